package gwa

import (
	"bytes"
	"strings"

	"github.com/gmark/gmark/internal/names"
)

// Record fields by GWF column: 0-28 are GWF's 29 fields in order, then
// gmark's two SWF extension columns.
const (
	fJobID = iota
	fSubmitTime
	fWaitTime
	fRunTime
	fNProcs
	fAvgCPUTimeUsed
	fUsedMemory
	fReqNProcs
	fReqTime
	fReqMemory
	fStatus
	fUserID
	fGroupID
	fExecutableID
	fQueueID
	fPartitionID
	fOrigSiteID
	fLastRunSiteID
	fJobStructure
	fJobStructureParams
	fUsedNetwork
	fUsedLocalDiskSpace
	fUsedResources
	fReqPlatform
	fReqNetwork
	fReqLocalDiskSpace
	fReqResources
	fVOID
	fProjectID
	fPrecedingJob
	fThinkTime
	numFields
)

const gwfFields = 29

// columnAliases maps normalized column names (lower case, no spaces,
// underscores or dashes) to fields. Both GWF naming variants are here: the
// text header's NProcs, AverageCPUTimeUsed and "Used Memory", and the SQLite
// table's NProc, UsedCPUTime and UsedMemory.
var columnAliases = map[string]int{
	"jobid": fJobID, "submittime": fSubmitTime, "waittime": fWaitTime, "runtime": fRunTime,
	"nprocs": fNProcs, "nproc": fNProcs, "allocatedprocessors": fNProcs,
	"averagecputimeused": fAvgCPUTimeUsed, "usedcputime": fAvgCPUTimeUsed, "avgcputimeused": fAvgCPUTimeUsed,
	"usedmemory": fUsedMemory, "reqnprocs": fReqNProcs, "reqnproc": fReqNProcs, "reqtime": fReqTime,
	"reqmemory": fReqMemory, "status": fStatus, "userid": fUserID, "groupid": fGroupID,
	"executableid": fExecutableID, "queueid": fQueueID, "partitionid": fPartitionID,
	"origsiteid": fOrigSiteID, "lastrunsiteid": fLastRunSiteID, "jobstructure": fJobStructure,
	"jobstructureparams": fJobStructureParams, "usednetwork": fUsedNetwork,
	"usedlocaldiskspace": fUsedLocalDiskSpace, "usedresources": fUsedResources, "reqplatform": fReqPlatform,
	"reqnetwork": fReqNetwork, "reqlocaldiskspace": fReqLocalDiskSpace, "reqresources": fReqResources,
	"void": fVOID, "projectid": fProjectID, "precedingjob": fPrecedingJob, "thinktime": fThinkTime,
}

func normalizeColumn(s string) string {
	return strings.Map(func(r rune) rune {
		switch r {
		case ' ', '_', '-', '\t', ':':
			return -1
		}
		if r >= 'A' && r <= 'Z' {
			return r + 'a' - 'A'
		}
		return r
	}, s)
}

// isNumericField tells which fields hold numbers.
func isNumericField(f int) bool {
	switch f {
	case fSubmitTime, fWaitTime, fRunTime, fNProcs, fAvgCPUTimeUsed, fUsedMemory, fReqNProcs, fReqTime,
		fReqMemory, fStatus, fUsedNetwork, fUsedLocalDiskSpace, fReqNetwork, fReqLocalDiskSpace, fThinkTime:
		return true
	}
	return false
}

// fieldName is a field's GWF header name, for messages.
func fieldName(f int) string {
	switch {
	case f < gwfFields:
		return GWFFields[f]
	case f == fPrecedingJob:
		return colPrecedingJob
	case f == fThinkTime:
		return colThinkTime
	}
	return "?"
}

// missingRecord is a record with every field missing, copied to start each
// parsed record.
var missingRecord = NewRecord()

// gwfReader reads GWF text: '#' comment lines, one of which may name the
// columns, then one record per line, fields separated by tabs (or, in a
// line without tabs, by runs of spaces).
type gwfReader struct {
	common
	src     *lineSource
	in      interner
	cols    []int // field of each column; -1 ignores the column
	colLine string
}

func newGWFReader(src *lineSource, opts ReadOptions) (Reader, error) {
	r := &gwfReader{common: common{name: opts.Name, opts: opts, content: src.content}, src: src}
	r.hdr.Format = GWF
	if err := r.readAhead(r.read()); err != nil {
		return nil, err
	}
	return r, nil
}

func (r *gwfReader) Next() (Record, error) {
	if rec, err, ok := r.ahead(); ok {
		return rec, err
	}
	return r.keep(r.read())
}

func (r *gwfReader) Close() error { return r.src.close() }

// headerColumns reads a column-name line; ok is false for any other comment.
func headerColumns(text string) (names []string, ok bool) {
	if strings.Contains(text, "\t") {
		for _, f := range strings.Split(text, "\t") {
			if f = strings.TrimSpace(f); f != "" {
				names = append(names, f)
			}
		}
	} else {
		fs := strings.Fields(text)
		for i := 0; i < len(fs); i++ {
			if fs[i] == "Used" && i+1 < len(fs) && fs[i+1] == "Memory" {
				names = append(names, "Used Memory")
				i++
				continue
			}
			names = append(names, fs[i])
		}
	}
	job, submit := false, false
	for _, n := range names {
		switch columnAliases[normalizeColumn(n)] {
		case fJobID:
			job = job || normalizeColumn(n) == "jobid"
		case fSubmitTime:
			submit = true
		}
	}
	return names, job && submit
}

func (r *gwfReader) setColumns(names []string) {
	r.cols = mapColumns(&r.hdr, names)
}

// mapColumns maps a GWF table's column names (text header or SQLite) to
// fields, -1 for a column gmark does not know, and records them in hdr; the
// SWF-only fields mark the table as carrying them.
func mapColumns(hdr *Header, names []string) []int {
	hdr.Columns = names
	cols := make([]int, len(names))
	for i, n := range names {
		f, ok := columnAliases[normalizeColumn(n)]
		if !ok {
			f = -1
		}
		cols[i] = f
		if f == fPrecedingJob || f == fThinkTime {
			hdr.SWFFields = true
		}
	}
	return cols
}

func (r *gwfReader) read() (Record, error) {
	for {
		line, i, err := r.nextLine(r.src)
		if err == errSkipLine {
			continue
		} else if err != nil {
			return Record{}, err
		}
		if line[i] == '#' {
			if r.stats.Records > 0 {
				r.stats.LateComments++
				continue
			}
			text := commentText(line[i+1:])
			if names, ok := headerColumns(text); ok {
				// The last column line before the data wins (gmark's writer
				// puts its own last); an earlier one is an ordinary comment.
				if r.colLine != "" {
					if e := r.headerLine(r.src.line, r.colLine); e != nil {
						return Record{}, e
					}
				}
				r.colLine = text
				r.setColumns(names)
				continue
			}
			if e := r.headerLine(r.src.line, text); e != nil {
				return Record{}, e
			}
			continue
		}
		tabs := bytes.IndexByte(line, '\t') >= 0
		if isSpace(line[len(line)-1]) {
			r.stats.TrailingSpace++
			if !tabs {
				line = bytes.TrimRight(line, " \r\v\f")
			}
		}
		if !tabs {
			line = line[i:]
		}
		if r.cols == nil {
			r.cols = make([]int, gwfFields)
			for k := range r.cols {
				r.cols[k] = k
			}
		}
		var rec Record
		if ok, err := r.checked(&rec, r.parse(line, tabs, &rec), r.src.line); err != nil {
			return Record{}, err
		} else if ok {
			return rec, nil
		}
	}
}

// parse reads one record line. A line with a tab is split on single tabs
// (an empty field, first, middle or last, is missing; a field is trimmed of
// spaces); a line without is split on runs of spaces.
func (r *gwfReader) parse(line []byte, tabs bool, rec *Record) *ParseError {
	*rec = missingRecord
	pos := 0
	for k, f := range r.cols {
		var tok []byte
		if tabs {
			if pos > len(line) {
				return r.errorf(r.src.line, 0, "%s, this GWF file has %s", names.Count(k, "field"), names.Count(len(r.cols), "column"))
			}
			end := bytes.IndexByte(line[pos:], '\t')
			if end < 0 {
				end = len(line) - pos
			}
			tok = bytes.TrimSpace(line[pos : pos+end])
			pos += end + 1
		} else {
			var next int
			tok, next = nextField(line, pos)
			if len(tok) == 0 {
				return r.errorf(r.src.line, 0, "%s, this GWF file has %s", names.Count(k, "field"), names.Count(len(r.cols), "column"))
			}
			pos = next
		}
		if f < 0 {
			continue
		}
		if err := r.set(rec, f, tok); err != "" {
			return r.errorf(r.src.line, k+1, "%s", err)
		}
	}
	if tabs {
		// Fields past the columns are extra, unless they are all empty (a
		// line ending in separators, counted as trailing space).
		if pos <= len(line) && len(bytes.Trim(line[pos:], " \t\r\v\f")) > 0 {
			r.stats.ExtraFields++
		}
	} else if extra, _ := nextField(line, pos); len(extra) > 0 {
		r.stats.ExtraFields++
	}
	return nil
}

// set stores one field; it returns what is wrong with the value, or "".
func (r *gwfReader) set(rec *Record, f int, tok []byte) string {
	if isNumericField(f) {
		v := float64(Missing)
		if len(tok) > 0 && !(len(tok) == 2 && tok[0] == '-' && tok[1] == '1') {
			var ok bool
			if v, ok = parseNumber(tok); !ok {
				return quote(tok) + " is not a number (GWF " + fieldName(f) + ")"
			}
			if msg := checkField(f, v); msg != "" {
				return msg
			}
		}
		if f == fStatus {
			if v != float64(int(v)) || v < -1 || v > 5 {
				return "status " + quote(tok) + " is not one of -1, 0 (failed), 1 (completed), 2, 3, 4 (partial) or 5 (cancelled)"
			}
			rec.Status = int(v)
			return ""
		}
		setNumber(rec, f, v)
		return ""
	}
	var s string
	switch {
	case len(tok) == 0:
		s = smallInts[0]
	case tok[0] == '"':
		// Quoted by a writer (see field); taken literally when it is not
		// valid quoting.
		var ok bool
		if s, ok = unquoteField(tok); !ok {
			s = string(tok)
		} else if s == "" {
			s = smallInts[0]
		}
	case f == fJobID:
		s = string(tok)
	default:
		s = r.in.str(tok)
	}
	setString(rec, f, s)
	return ""
}

// setString stores a string field.
func setString(rec *Record, f int, s string) {
	switch f {
	case fJobID:
		rec.JobID = s
	case fUserID:
		rec.UserID = s
	case fGroupID:
		rec.GroupID = s
	case fExecutableID:
		rec.ExecutableID = s
	case fQueueID:
		rec.QueueID = s
	case fPartitionID:
		rec.PartitionID = s
	case fOrigSiteID:
		rec.OrigSiteID = s
	case fLastRunSiteID:
		rec.LastRunSiteID = s
	case fJobStructure:
		rec.JobStructure = s
	case fJobStructureParams:
		rec.JobStructureParams = s
	case fUsedResources:
		rec.UsedResources = s
	case fReqPlatform:
		rec.ReqPlatform = s
	case fReqResources:
		rec.ReqResources = s
	case fVOID:
		rec.VOID = s
	case fProjectID:
		rec.ProjectID = s
	case fPrecedingJob:
		rec.PrecedingJob = s
	}
}

func quote(tok []byte) string { return "\"" + truncate(tok) + "\"" }
