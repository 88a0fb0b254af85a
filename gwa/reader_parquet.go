package gwa

import (
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/gmark/gmark/dag"
	"github.com/gmark/gmark/gwa/wta"
	"github.com/gmark/gmark/internal/srcerr"
)

// WTA is the Workflow Trace Archive's parquet trace (package wta): a
// tasks table, one task a row, with its workflow and its parents, and a
// workflows table. docs/trace.md describes what gmark reads of it.
const WTA Format = "wta"

// parquetMagic starts (and ends) every parquet file.
const parquetMagic = "PAR1"

// wtaCarried are the tasks table's columns gmark carries; every other
// column, and every column of the workflows table, is named as not
// carried.
var wtaCarried = map[string]bool{"id": true, "workflow_id": true, "ts_submit": true, "wait_time": true, "runtime": true,
	"resource_amount_requested": true, "parents": true, "children": true, "user_id": true, "group_id": true, "submission_site": true}

// isWTADir tells whether a directory is a WTA trace: it has tasks/.
func isWTADir(dir string) bool {
	fi, err := os.Stat(filepath.Join(dir, "tasks"))
	return err == nil && fi.IsDir()
}

// wtaParts are the parquet files of a table of a WTA trace directory:
// DIR/TABLE/schema-*/*.parquet (or DIR/TABLE/*.parquet), in the order of
// their names, numbers compared as numbers (part.2 before part.10).
func wtaParts(dir, table string) []string {
	var parts []string
	for _, pat := range []string{filepath.Join(dir, table, "schema-*", "*.parquet"), filepath.Join(dir, table, "*.parquet")} {
		m, _ := filepath.Glob(pat)
		parts = append(parts, m...)
	}
	sort.Slice(parts, func(a, b int) bool { return naturalLess(parts[a], parts[b]) })
	return parts
}

// naturalLess compares names with runs of digits as numbers.
func naturalLess(a, b string) bool {
	for a != "" && b != "" {
		da, db := digitRun(a), digitRun(b)
		if da > 0 && db > 0 {
			na, _ := strconv.ParseUint(a[:da], 10, 64)
			nb, _ := strconv.ParseUint(b[:db], 10, 64)
			if na != nb {
				return na < nb
			}
			a, b = a[da:], b[db:]
			continue
		}
		if a[0] != b[0] {
			return a[0] < b[0]
		}
		a, b = a[1:], b[1:]
	}
	return len(a) < len(b)
}

func digitRun(s string) int {
	n := 0
	for n < len(s) && n < 18 && s[n] >= '0' && s[n] <= '9' {
		n++
	}
	return n
}

// wtaReader streams the tasks of a WTA trace. It reads the table twice:
// first the workflow_id column alone, to count each workflow's tasks, then
// the rows, holding the tasks of each workflow until its last one has been
// read, when the workflow's graph is checked and its tasks handed out (in
// table order). A trace whose workflows are each in consecutive rows, as
// the archive's are, holds one workflow at a time.
type wtaReader struct {
	common
	tr      *wta.TaskReader
	counts  map[string]int
	pending map[string][]wta.Task
	queue   []Record
	held    int
}

// openWTA opens a WTA trace: a tasks table (a .parquet file) or a trace
// directory.
func openWTA(path string, opts ReadOptions) (Reader, error) {
	parts := []string{path}
	var notCarried []string
	if fi, err := os.Stat(path); err == nil && fi.IsDir() {
		parts = wtaParts(path, "tasks")
		if len(parts) == 0 {
			return nil, parseError(opts.Name, 0, 0, "a WTA trace directory without a tasks table (tasks/schema-1.0/*.parquet)")
		}
		for _, wp := range wtaParts(path, "workflows") {
			cols, _, err := wta.Columns(wp)
			if err != nil {
				return nil, wtaError(err)
			}
			for _, c := range cols {
				if !strings.HasPrefix(c, "__index_level") {
					notCarried = append(notCarried, "workflows."+c)
				}
			}
		}
	}
	tr, err := wta.OpenTasks(parts)
	if err != nil {
		return nil, wtaError(err)
	}
	r := &wtaReader{common: common{name: opts.Name, opts: opts}, tr: tr, pending: map[string][]wta.Task{}}
	r.hdr.Format = WTA
	for _, c := range tr.Columns() {
		if !wtaCarried[c] && !strings.HasPrefix(c, "__index_level") {
			notCarried = append(notCarried, "tasks."+c)
		}
	}
	var minSubmit float64
	if r.counts, minSubmit, err = tr.Survey(); err != nil {
		tr.Close()
		return nil, wtaError(err)
	}
	if s := minSubmit / 1000; minSubmit != wta.Missing && s >= absoluteThreshold && s <= MaxSubmitTime {
		r.hdr.UnixStartTime, r.hdr.AbsoluteBase = int64(math.Floor(s)), true
	}
	r.stats.NotCarried = dedupe(notCarried)
	sort.Strings(r.stats.NotCarried)
	if err := r.readAhead(r.next()); err != nil {
		tr.Close()
		return nil, err
	}
	return r, nil
}

// wtaError is a problem of the codec as gmark's positioned error.
func wtaError(err error) error {
	var we *wta.Error
	if errors.As(err, &we) {
		return &ParseError{Pos: posOf(we.At), Msg: strings.TrimPrefix(we.Error(), we.At.File+": ")}
	}
	return err
}

// posOf is a row's position as gmark's: the file (the message names the
// row group, the row and the column).
func posOf(at wta.Pos) srcerr.Pos { return srcerr.Pos{File: at.File} }

func (r *wtaReader) Close() error { return r.tr.Close() }

func (r *wtaReader) Next() (Record, error) {
	if rec, err, ok := r.ahead(); ok {
		return rec, err
	}
	return r.keep(r.next())
}

// next returns the next task of a sound workflow.
func (r *wtaReader) next() (Record, error) {
	for len(r.queue) == 0 {
		t, err := r.tr.Next()
		if err == io.EOF {
			if len(r.pending) > 0 {
				return Record{}, parseError(r.name, 0, 0, "the table changed while it was read (a workflow's tasks are missing)")
			}
			return Record{}, io.EOF
		}
		if err != nil {
			return Record{}, wtaError(err)
		}
		r.stats.Lines++
		if r.held++; r.held > MaxWorkflowTasks {
			return Record{}, parseError(r.name, 0, 0, fmt.Sprintf("more than %d tasks held at once: gmark holds the tasks of each workflow until its last one, and the workflows of this table are spread over it", MaxWorkflowTasks))
		}
		wf := r.pending[t.WorkflowID]
		wf = append(wf, t)
		if len(wf) < r.counts[t.WorkflowID] {
			r.pending[t.WorkflowID] = wf
			continue
		}
		delete(r.pending, t.WorkflowID)
		r.held -= len(wf)
		if err := r.release(wf); err != nil {
			return Record{}, err
		}
	}
	rec := r.queue[0]
	r.queue[0] = Record{}
	r.queue = r.queue[1:]
	return rec, nil
}

// release checks a whole workflow and queues its records. A broken
// workflow, or one with a malformed task (its dependents would lose a
// predecessor), is skipped whole (in strict mode, an error).
func (r *wtaReader) release(tasks []wta.Task) error {
	preds, problem := wtaGraph(tasks)
	recs := make([]Record, len(tasks))
	for i := 0; problem == nil && i < len(tasks); i++ {
		recs[i], problem = r.record(&tasks[i], preds[i], tasks)
	}
	if problem != nil {
		r.stats.Skipped += int64(len(tasks) - 1)
		return r.skip(problem)
	}
	for i := range recs {
		if ok, err := r.checked(&recs[i], nil, tasks[i].At.Table); err != nil {
			return err
		} else if ok {
			r.queue = append(r.queue, recs[i])
		}
	}
	return nil
}

// record makes the record of a task.
func (r *wtaReader) record(t *wta.Task, preds []int32, tasks []wta.Task) (Record, *ParseError) {
	rec := NewRecord()
	rec.JobID, rec.WorkflowID = t.ID, t.WorkflowID
	rec.UserID, rec.GroupID, rec.OrigSiteID = t.UserID, t.GroupID, t.SubmissionSite
	if t.TsSubmit == wta.Missing {
		return rec, wtaRowError(t.At, "ts_submit", "no submission time: every task needs one")
	}
	for _, f := range []struct {
		col   string
		field int
		v     float64
		dst   *float64
		scale float64
	}{{"ts_submit", fSubmitTime, t.TsSubmit, &rec.SubmitTime, 1000}, {"wait_time", fWaitTime, t.WaitTime, &rec.WaitTime, 1000},
		{"runtime", fRunTime, t.Runtime, &rec.RunTime, 1000}, {"resource_amount_requested", fReqNProcs, t.ResourceAmountRequested, &rec.ReqNProcs, 1}} {
		if f.v == wta.Missing {
			continue
		}
		*f.dst = f.v / f.scale
		if msg := checkField(f.field, *f.dst); msg != "" {
			return rec, wtaRowError(t.At, f.col, msg)
		}
	}
	for _, p := range preds {
		rec.Dependencies = append(rec.Dependencies, tasks[p].ID)
	}
	return rec, nil
}

func wtaRowError(at wta.Pos, col, msg string) *ParseError {
	e := &wta.Error{At: at, Column: col, Msg: msg}
	return &ParseError{Pos: posOf(at), Msg: strings.TrimPrefix(e.Error(), at.File+": ")}
}

// wtaGraph resolves a workflow's parents and children to its tasks: a
// task's predecessors are its parents and the tasks that list it as a
// child, each once. A task twice, a parent or child that is no task of the
// workflow, or a cycle is the problem returned.
func wtaGraph(tasks []wta.Task) ([][]int32, *ParseError) {
	index := make(map[string]int32, len(tasks))
	for i := range tasks {
		if first, dup := index[tasks[i].ID]; dup {
			return nil, wtaRowError(tasks[i].At, "id", fmt.Sprintf("task %s is already a task of workflow %s, at row %d", truncate([]byte(tasks[i].ID)), truncate([]byte(tasks[i].WorkflowID)), tasks[first].At.Table))
		}
		index[tasks[i].ID] = int32(i)
	}
	preds := make([][]int32, len(tasks))
	add := func(to, from int32) {
		if !containsInt32(preds[to], from) {
			preds[to] = append(preds[to], from)
		}
	}
	for i := range tasks {
		t := &tasks[i]
		for _, list := range []struct {
			col string
			ids []string
		}{{"parents", t.Parents}, {"children", t.Children}} {
			for _, id := range list.ids {
				k, ok := index[id]
				switch {
				case !ok:
					return nil, wtaRowError(t.At, list.col, fmt.Sprintf("task %s names %s, not a task of workflow %s", truncate([]byte(t.ID)), truncate([]byte(id)), truncate([]byte(t.WorkflowID))))
				case k == int32(i):
					return nil, wtaRowError(t.At, list.col, fmt.Sprintf("task %s of workflow %s depends on itself", truncate([]byte(t.ID)), truncate([]byte(t.WorkflowID))))
				case list.col == "parents":
					add(int32(i), k)
				default:
					add(k, int32(i))
				}
			}
		}
	}
	if _, err := dag.Order(preds); err != nil {
		var ce *dag.CycleError
		if errors.As(err, &ce) {
			first := ce.Cycle[0]
			for _, k := range ce.Cycle {
				first = min(first, k)
			}
			return nil, wtaRowError(tasks[first].At, "parents", fmt.Sprintf("workflow %s has a dependency cycle: %s", truncate([]byte(tasks[first].WorkflowID)), ce.Names(func(k int32) string { return truncate([]byte(tasks[k].ID)) })))
		}
		return nil, &ParseError{Msg: err.Error()}
	}
	return preds, nil
}

func containsInt32(list []int32, v int32) bool {
	for _, x := range list {
		if x == v {
			return true
		}
	}
	return false
}
