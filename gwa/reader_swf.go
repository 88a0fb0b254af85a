package gwa

import (
	"bytes"
	"slices"
	"strings"
)

// swfFields is the number of fields of an SWF record.
const swfFields = 18

// swfReader reads SWF: ';' comment lines (the header before the first
// record), then one record of 18 whitespace-separated numbers per line.
type swfReader struct {
	common
	src *lineSource
	in  interner
	// names are the identifier tables gmark's SWF writer interleaves
	// ("; gmark-user: 3 U17"): per kind, number → name. nil until a table
	// line is read.
	names map[string]map[string]string
}

func newSWFReader(src *lineSource, opts ReadOptions) (Reader, error) {
	r := &swfReader{common: common{name: opts.Name, opts: opts, content: src.content}, src: src}
	r.hdr.Format = SWF
	r.hdr.SWFFields = true
	// Read the header and the first record now, so Header is complete.
	if err := r.readAhead(r.read()); err != nil {
		return nil, err
	}
	return r, nil
}

func (r *swfReader) Next() (Record, error) {
	if rec, err, ok := r.ahead(); ok {
		return rec, err
	}
	return r.keep(r.read())
}

func (r *swfReader) Close() error { return r.src.close() }

func (r *swfReader) read() (Record, error) {
	for {
		// Leading blanks, then a comment, a blank line or a record.
		line, i, err := r.nextLine(r.src)
		if err == errSkipLine {
			continue
		} else if err != nil {
			return Record{}, err
		}
		if line[i] == ';' {
			text := commentText(line[i+1:])
			if kind, entry, ok := tableLine(text); ok {
				if e := r.tableEntry(kind, entry); e != nil {
					return Record{}, e
				}
			} else if r.started || r.stats.Records > 0 {
				r.stats.LateComments++
			} else {
				if e := r.headerLine(r.src.line, text); e != nil {
					return Record{}, e
				}
			}
			continue
		}
		if isSpace(line[len(line)-1]) {
			r.stats.TrailingSpace++
		}
		var rec Record
		if ok, err := r.checked(&rec, r.parse(line, &rec), r.src.line); err != nil {
			return Record{}, err
		} else if ok {
			if r.names != nil {
				r.rename(&rec)
			}
			return rec, nil
		}
	}
}

// parse reads the 18 fields of one record.
func (r *swfReader) parse(line []byte, rec *Record) *ParseError {
	var num [swfFields]float64
	var toks [swfFields][]byte
	pos := 0
	for k := 0; k < swfFields; k++ {
		tok, next := nextField(line, pos)
		if len(tok) == 0 {
			return r.errorf(r.src.line, 0, "%d fields, SWF records have %d", k, swfFields)
		}
		pos = next
		v, isInt, ok := parseNumberInt(tok)
		if !ok {
			return r.errorf(r.src.line, k+1, "%q is not a number", truncate(tok))
		}
		// Status and identifiers are whole numbers.
		if !isInt && wholeSWFField[k] {
			return r.errorf(r.src.line, k+1, "%q is not a whole number (SWF %s)", truncate(tok), swfFieldNames[k])
		}
		if f := swfNumericField[k]; f > 0 {
			if msg := checkField(f, v); msg != "" {
				return r.errorf(r.src.line, k+1, "%s", msg)
			}
		}
		num[k], toks[k] = v, tok
	}
	if extra, _ := nextField(line, pos); len(extra) > 0 {
		r.stats.ExtraFields++
	}
	if num[10] < -1 || num[10] > 5 {
		return r.errorf(r.src.line, 11, "status %s is not one of -1, 0 (failed), 1 (completed), 2, 3, 4 (partial) or 5 (cancelled)", toks[10])
	}
	*rec = Record{
		JobID:              string(toks[0]),
		SubmitTime:         num[1],
		WaitTime:           num[2],
		RunTime:            num[3],
		NProcs:             num[4],
		AvgCPUTimeUsed:     num[5],
		UsedMemory:         num[6],
		ReqNProcs:          num[7],
		ReqTime:            num[8],
		ReqMemory:          num[9],
		Status:             int(num[10]),
		UserID:             r.in.str(toks[11]),
		GroupID:            r.in.str(toks[12]),
		ExecutableID:       r.in.str(toks[13]),
		QueueID:            r.in.str(toks[14]),
		PartitionID:        r.in.str(toks[15]),
		OrigSiteID:         smallInts[0],
		LastRunSiteID:      smallInts[0],
		JobStructure:       smallInts[0],
		JobStructureParams: smallInts[0],
		UsedNetwork:        Missing,
		UsedLocalDiskSpace: Missing,
		UsedResources:      smallInts[0],
		ReqPlatform:        smallInts[0],
		ReqNetwork:         Missing,
		ReqLocalDiskSpace:  Missing,
		ReqResources:       smallInts[0],
		VOID:               smallInts[0],
		ProjectID:          smallInts[0],
		PrecedingJob:       r.in.str(toks[16]),
		ThinkTime:          num[17],
	}
	return nil
}

// tableLine tells whether a comment is a line of gmark's identifier
// tables, "gmark-KIND: N name", and splits it.
func tableLine(text string) (kind, entry string, ok bool) {
	rest, ok := strings.CutPrefix(text, "gmark-")
	if !ok {
		return "", "", false
	}
	kind, entry, ok = strings.Cut(rest, ": ")
	if !ok || (kind != "job" && !slices.Contains(swfIDKinds[:], kind)) {
		return "", "", false
	}
	return kind, entry, true
}

// tableEntry records one table line, "N name": a malformed one is a
// malformed line (the trace's identifiers could not be read back).
func (r *swfReader) tableEntry(kind, entry string) error {
	num, name, _ := strings.Cut(entry, " ")
	if s, ok := unquoteField([]byte(name)); ok {
		name = s
	}
	if _, ok := isDecimal(num); !ok || name == "" {
		return r.skip(r.errorf(r.src.line, 0, "gmark-%s: %q is not a number and a name", kind, truncate([]byte(entry))))
	}
	if r.names == nil {
		r.names = map[string]map[string]string{}
	}
	if r.names[kind] == nil {
		r.names[kind] = map[string]string{}
	}
	r.names[kind][num] = name
	return nil
}

// rename gives a record's renumbered identifiers their names back.
func (r *swfReader) rename(rec *Record) {
	for _, f := range [...]struct {
		kind string
		id   *string
	}{{"job", &rec.JobID}, {"job", &rec.PrecedingJob}, {"user", &rec.UserID}, {"group", &rec.GroupID},
		{"executable", &rec.ExecutableID}, {"queue", &rec.QueueID}, {"partition", &rec.PartitionID}} {
		if name, ok := r.names[f.kind][*f.id]; ok {
			*f.id = name
		}
	}
}

// wholeSWFField marks the fields that must be whole numbers: the job, the
// status and the identifiers.
var wholeSWFField = [swfFields]bool{0: true, 10: true, 11: true, 12: true, 13: true, 14: true, 15: true, 16: true}

// swfNumericField is the record field of each SWF field that holds a
// quantity (0 for the job number, the status and the identifiers).
var swfNumericField = [swfFields]int{1: fSubmitTime, 2: fWaitTime, 3: fRunTime, 4: fNProcs, 5: fAvgCPUTimeUsed,
	6: fUsedMemory, 7: fReqNProcs, 8: fReqTime, 9: fReqMemory, 17: fThinkTime}

var swfFieldNames = [swfFields]string{"job number", "submit time", "wait time", "run time", "allocated processors",
	"average CPU time", "used memory", "requested processors", "requested time", "requested memory", "status",
	"user", "group", "executable", "queue", "partition", "preceding job", "think time"}

// truncate shortens a bad token for a message.
func truncate(tok []byte) string {
	tok = bytes.ToValidUTF8(tok, []byte("?"))
	if len(tok) > 40 {
		return string(tok[:40]) + "…"
	}
	return string(tok)
}
