package gwa

import (
	"bytes"
	"fmt"
	"io"
	"sort"
	"strings"
)

// Workflow is the workflow variant of GWF that the OpenDC simulator and the
// Workflow Trace Archive use: comma-separated values under a column line
//
//	WorkflowID, JobID, SubmitTime, RunTime, NProcs, ReqNProcs, Dependencies
//
// one task per line, Dependencies holding the JobIDs of the task's
// predecessors in its workflow, separated by white space. docs/trace.md
// describes it and what gmark checks.
const Workflow Format = "wf"

// The variant's columns beyond GWF's fields.
const (
	fWorkflowID = numFields + iota
	fDependencies
)

// WorkflowColumns are the variant's columns, in the order gmark writes them.
var WorkflowColumns = []string{"WorkflowID", "JobID", "SubmitTime", "RunTime", "NProcs", "ReqNProcs", "Dependencies"}

// Bounds of what the workflow reader holds: a workflow's graph can only be
// checked whole, and its tasks may be anywhere in the file, so the reader
// keeps every task line (about 100 bytes a task beside the line itself).
const (
	MaxWorkflowTasks = 1 << 21   // task lines in one trace
	maxWorkflowBytes = 512 << 20 // bytes of those lines
)

// workflowField maps a column name of the variant to a field: its own two
// columns, or any GWF column by the names GWF accepts; -1 when unknown.
func workflowField(name string) int {
	n := normalizeColumn(strings.Trim(strings.TrimSpace(name), `"`))
	switch n {
	case "workflowid":
		return fWorkflowID
	case "dependencies":
		return fDependencies
	}
	if f, ok := columnAliases[n]; ok {
		return f
	}
	return -1
}

var utf8BOM = []byte("\xef\xbb\xbf")

// workflowColumnLine reads line as the variant's column line: the names,
// and ok when it is comma-separated and names WorkflowID, JobID and
// SubmitTime.
func workflowColumnLine(line []byte) (names []string, ok bool) {
	line = bytes.TrimPrefix(line, utf8BOM)
	if bytes.IndexByte(line, ',') < 0 {
		return nil, false
	}
	var wf, job, submit bool
	for _, tok := range bytes.Split(line, []byte{','}) {
		n := strings.TrimSpace(string(tok))
		names = append(names, n)
		switch workflowField(n) {
		case fWorkflowID:
			wf = true
		case fJobID:
			job = true
		case fSubmitTime:
			submit = true
		}
	}
	return names, wf && job && submit
}

// isWorkflowHead tells whether the start of a text trace is the workflow
// variant: its first line that is neither blank nor a '#' comment is the
// variant's column line.
func isWorkflowHead(head []byte) bool {
	for line := range bytes.Lines(head) {
		line = bytes.TrimSpace(bytes.TrimPrefix(line, utf8BOM))
		if len(line) == 0 || line[0] == '#' {
			continue
		}
		_, ok := workflowColumnLine(line)
		return ok
	}
	return false
}

// wfTask is a task line the workflow reader keeps until its workflow has
// been checked.
type wfTask struct {
	text string // the line, without surrounding white space
	line int64
	wf   int32 // index into wfReader.wfIDs
	id   string
	deps []string // until the graphs are checked
	drop bool     // its workflow's graph is broken
}

// wfReader reads the workflow variant. It reads the whole trace when it is
// made, checks every workflow's graph (each predecessor a task of the same
// workflow, no task twice, no cycle), and then returns the tasks of the
// sound workflows in file order, each line parsed again.
type wfReader struct {
	common
	src   *lineSource
	g     gwfReader // for its field parser: numbers, ranges, quoting
	cols  []int
	tasks []wfTask
	held  int64 // bytes of the task lines held
	wfIDs []string
	wfIdx map[string]int32
	next  int
}

func newWorkflowReader(src *lineSource, opts ReadOptions) (Reader, error) {
	r := &wfReader{common: common{name: opts.Name, opts: opts, content: src.content}, src: src, wfIdx: map[string]int32{}}
	r.hdr.Format = Workflow
	if err := r.load(); err != nil {
		return nil, err
	}
	if err := r.checkGraphs(); err != nil {
		return nil, err
	}
	if err := r.end(io.EOF); err != io.EOF {
		return nil, err
	}
	return r, nil
}

func (r *wfReader) Close() error { return r.src.close() }

// load reads every line: comments, the column line, then the tasks.
func (r *wfReader) load() error {
	for {
		line, i, err := r.nextLine(r.src)
		if err == errSkipLine {
			continue
		} else if err == io.EOF {
			return nil
		} else if err != nil {
			return err
		}
		n := r.src.line
		if line[i] == '#' {
			if r.stats.Records > 0 {
				r.stats.LateComments++
				continue
			}
			if e := r.headerLine(n, strings.TrimPrefix(string(line[i+1:]), " ")); e != nil {
				return e
			}
			continue
		}
		if isSpace(line[len(line)-1]) {
			r.stats.TrailingSpace++
			line = bytes.TrimRight(line, " \t\r\v\f")
		}
		if r.cols == nil {
			if err := r.columns(n, line[i:]); err != nil {
				return err
			}
			continue
		}
		if len(r.tasks) >= MaxWorkflowTasks || r.held+int64(len(line)) > maxWorkflowBytes {
			return r.errorf(n, 0, "more than %d tasks or %d MiB of task lines: gmark holds a workflow trace in memory to check its graphs, and reads no larger one", MaxWorkflowTasks, maxWorkflowBytes>>20)
		}
		if err := r.keepTask(n, line[i:]); err != nil {
			return err
		}
	}
}

// columns reads the column line.
func (r *wfReader) columns(n int64, line []byte) error {
	names, ok := workflowColumnLine(line)
	if !ok {
		return r.errorf(n, 0, "the first line that is not a comment must name the columns, comma-separated, among them WorkflowID, JobID and SubmitTime (%s)", strings.Join(WorkflowColumns, ","))
	}
	r.hdr.Columns = names
	seen := map[int]string{}
	for k, name := range names {
		f := workflowField(name)
		if f >= 0 {
			if prev, dup := seen[f]; dup {
				return r.errorf(n, k+1, "column %q names the same field as column %q", truncate([]byte(name)), truncate([]byte(prev)))
			}
			seen[f] = name
		}
		if f == fPrecedingJob || f == fThinkTime {
			r.hdr.SWFFields = true
		}
		r.cols = append(r.cols, f)
	}
	return nil
}

// keepTask parses a task line, finishes its record (the time base, the
// oddities) and keeps it; a malformed one is skipped (or, strict, an error).
func (r *wfReader) keepTask(n int64, line []byte) error {
	var rec Record
	extra, perr := r.parse(n, line, &rec)
	ok, err := r.checked(&rec, perr, n)
	if !ok {
		return err
	}
	if extra {
		r.stats.ExtraFields++
	}
	w, known := r.wfIdx[rec.WorkflowID]
	if !known {
		w = int32(len(r.wfIDs))
		r.wfIdx[rec.WorkflowID] = w
		r.wfIDs = append(r.wfIDs, rec.WorkflowID)
	}
	r.tasks = append(r.tasks, wfTask{text: string(line), line: n, wf: w, id: rec.JobID, deps: rec.Dependencies})
	r.held += int64(len(line))
	return nil
}

// parse reads a task line into rec; extra tells whether the line has more
// fields than the column line names.
func (r *wfReader) parse(n int64, line []byte, rec *Record) (extra bool, perr *ParseError) {
	*rec = missingRecord
	pos := 0
	for k, f := range r.cols {
		if pos > len(line) {
			return false, r.errorf(n, 0, "%d fields, the column line names %d", k, len(r.cols))
		}
		end := bytes.IndexByte(line[pos:], ',')
		if end < 0 {
			end = len(line) - pos
		}
		tok := bytes.TrimSpace(line[pos : pos+end])
		pos += end + 1
		if msg := r.set(rec, f, tok); msg != "" {
			return false, r.errorf(n, k+1, "%s", msg)
		}
	}
	switch {
	case missingString(rec.WorkflowID):
		return false, r.errorf(n, 0, "no WorkflowID: every task belongs to a workflow")
	case missingString(rec.JobID):
		return false, r.errorf(n, 0, "no JobID: every task needs the id its dependents name")
	}
	return pos <= len(line), nil
}

// set stores one field; it returns what is wrong with the value, or "".
func (r *wfReader) set(rec *Record, f int, tok []byte) string {
	switch f {
	case -1:
		return ""
	case fWorkflowID:
		rec.WorkflowID = idToken(tok)
		return ""
	case fDependencies:
		rec.Dependencies = parseDependencies(tok)
		return ""
	}
	return r.g.set(rec, f, tok)
}

// idToken is an identifier as written: unquoted when a writer quoted it.
func idToken(tok []byte) string {
	if s, ok := unquoteField(tok); ok {
		return s
	}
	return string(tok)
}

// parseDependencies reads a Dependencies field: JobIDs separated by white
// space, each listed once; empty or -1 for none.
func parseDependencies(tok []byte) []string {
	if len(tok) == 0 || string(tok) == "-1" {
		return nil
	}
	var deps []string
	var seen map[string]bool
	for _, d := range bytes.Fields(tok) {
		id := idToken(d)
		if seen == nil && len(deps) >= 8 {
			seen = make(map[string]bool, 2*len(deps))
			for _, x := range deps {
				seen[x] = true
			}
		}
		if seen != nil {
			if seen[id] {
				continue
			}
			seen[id] = true
		} else if containsString(deps, id) {
			continue
		}
		deps = append(deps, id)
	}
	return deps
}

func containsString(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// checkGraphs checks every workflow. The tasks of a broken one are dropped:
// in strict mode the first problem (by line) is returned; otherwise every
// problem is listed as a skipped line, and the workflow's other lines are
// counted as skipped too.
func (r *wfReader) checkGraphs() error {
	members := make([][]int, len(r.wfIDs))
	for i := range r.tasks {
		members[r.tasks[i].wf] = append(members[r.tasks[i].wf], i)
	}
	var problems []*ParseError
	for w, idx := range members {
		ps := r.checkWorkflow(r.wfIDs[w], idx)
		if len(ps) == 0 {
			continue
		}
		problems = append(problems, ps...)
		for _, i := range idx {
			r.tasks[i].drop = true
		}
		r.stats.Records -= int64(len(idx))
		r.stats.Skipped += int64(len(idx) - len(ps))
	}
	for i := range r.tasks {
		r.tasks[i].deps = nil
	}
	sort.SliceStable(problems, func(i, j int) bool { return problems[i].Line < problems[j].Line })
	for _, p := range problems {
		if err := r.skip(p); err != nil {
			return err
		}
	}
	return nil
}

// field is the column number (from 1) of field f, 0 when no column has it.
func (r *wfReader) field(f int) int {
	for k, c := range r.cols {
		if c == f {
			return k + 1
		}
	}
	return 0
}

// checkWorkflow checks the graph of one workflow, its tasks idx in file
// order: at most one problem per task line.
func (r *wfReader) checkWorkflow(wf string, idx []int) []*ParseError {
	var ps []*ParseError
	pos := make(map[string]int, len(idx))
	for k, i := range idx {
		t := &r.tasks[i]
		if first, dup := pos[t.id]; dup {
			ps = append(ps, r.errorf(t.line, r.field(fJobID), "JobID %s is already a task of workflow %s, at line %d", truncate([]byte(t.id)), truncate([]byte(wf)), r.tasks[idx[first]].line))
			continue
		}
		pos[t.id] = k
	}
	if len(ps) > 0 {
		return ps
	}
	depCol := r.field(fDependencies)
	preds := make([][]int32, len(idx))
	for k, i := range idx {
		t := &r.tasks[i]
		var unknown []string
		self := false
		for _, d := range t.deps {
			p, ok := pos[d]
			switch {
			case !ok:
				unknown = append(unknown, truncate([]byte(d)))
			case p == k:
				self = true
			default:
				preds[k] = append(preds[k], int32(p))
			}
		}
		switch {
		case len(unknown) > 0:
			what := "a task"
			if len(unknown) > 1 {
				what = "tasks"
			}
			ps = append(ps, r.errorf(t.line, depCol, "task %s depends on %s, not %s of workflow %s", truncate([]byte(t.id)), strings.Join(unknown[:min(len(unknown), 5)], " "), what, truncate([]byte(wf))))
		case self:
			ps = append(ps, r.errorf(t.line, depCol, "task %s of workflow %s depends on itself", truncate([]byte(t.id)), truncate([]byte(wf))))
		}
	}
	if len(ps) > 0 {
		return ps
	}
	if _, cycle := topoOrder(preds); cycle != nil {
		ids := make([]string, 0, len(cycle)+1)
		lines := make([]string, 0, len(cycle))
		first := cycle[0]
		for _, k := range cycle {
			ids = append(ids, truncate([]byte(r.tasks[idx[k]].id)))
			lines = append(lines, fmt.Sprint(r.tasks[idx[k]].line))
			if k < first {
				first = k
			}
		}
		ids = append(ids, ids[0])
		if len(ids) > 12 {
			ids = append(ids[:10], "…", ids[len(ids)-1])
			lines = append(lines[:10], "…")
		}
		ps = append(ps, r.errorf(r.tasks[idx[first]].line, depCol, "workflow %s has a dependency cycle: %s (lines %s)", truncate([]byte(wf)), strings.Join(ids, " -> "), strings.Join(lines, ", ")))
	}
	return ps
}

// Next returns the next task of a sound workflow, in file order.
func (r *wfReader) Next() (Record, error) {
	if r.err != nil {
		return Record{}, r.err
	}
	for r.next < len(r.tasks) {
		t := &r.tasks[r.next]
		r.next++
		if t.drop {
			continue
		}
		var rec Record
		if _, perr := r.parse(t.line, []byte(t.text), &rec); perr != nil {
			r.err = perr // cannot happen: the line parsed when it was read
			return Record{}, perr
		}
		// The time base is the one the first pass settled on (see finish).
		if rec.SubmitTime >= absoluteThreshold {
			rec.SubmitTime -= float64(r.hdr.UnixStartTime)
		}
		t.text = "" // no longer needed
		return rec, nil
	}
	r.err = io.EOF
	return Record{}, io.EOF
}
