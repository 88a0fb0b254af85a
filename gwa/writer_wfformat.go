package gwa

import (
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/gmark/gmark/dag"
	"github.com/gmark/gmark/gwa/wfformat"
	"github.com/gmark/gmark/internal/outfile"
)

// wfformatWriter gathers the records of one workflow and writes them as a
// WfFormat 1.5 instance when it is closed. WfFormat holds one workflow a
// file: records of a second workflow are an error (write a directory:
// WriteTrace).
type wfformatWriter struct {
	w    io.Writer
	hdr  Header
	recs []Record
	wf   string
}

// NewWfFormatWriter writes the records of one workflow as a WfFormat
// instance on w (at Close).
func NewWfFormatWriter(w io.Writer, h *Header) Writer {
	ww := &wfformatWriter{w: w}
	if h != nil {
		ww.hdr = *h
	}
	return ww
}

func (w *wfformatWriter) Write(r *Record) error {
	id := workflowOf(r)
	if len(w.recs) == 0 {
		w.wf = id
	} else if id != w.wf {
		return fmt.Errorf("job %s is of workflow %s, after workflow %s: a WfFormat file holds one workflow (write a directory, OUT/, for a trace of several)", truncate([]byte(r.JobID)), truncate([]byte(id)), truncate([]byte(w.wf)))
	}
	w.recs = append(w.recs, *r)
	return nil
}

func (w *wfformatWriter) Close() error {
	if len(w.recs) == 0 {
		return fmt.Errorf("no job to write: a WfFormat instance has at least one task")
	}
	inst, err := instanceOf(w.recs, &w.hdr)
	if err != nil {
		return err
	}
	return wfformat.Encode(w.w, inst)
}

// workflowOf is the workflow a record is a task of: its WorkflowID, else
// (a job of a trace without workflows) its own JobID.
func workflowOf(r *Record) string {
	if r.WorkflowID != "" {
		return r.WorkflowID
	}
	return r.JobID
}

// instanceOf makes the WfFormat instance of one workflow's records. The
// workflow's start is the time base plus its earliest submission; a task's
// start, when its wait is known, its submission plus its wait; the
// makespan the one its tasks ran (package dag, as ran).
func instanceOf(recs []Record, h *Header) (*wfformat.Instance, error) {
	inst := &wfformat.Instance{Name: workflowOf(&recs[0]), Makespan: math.NaN(), Files: map[string]int64{}}
	submit := recs[0].SubmitTime
	for i := range recs {
		submit = min(submit, recs[i].SubmitTime)
	}
	at := func(off float64) time.Time {
		return time.Unix(h.UnixStartTime, 0).Add(time.Duration(math.Round(off * 1e9))).UTC()
	}
	inst.Start = at(submit)
	index := make(map[string]int, len(recs))
	seenMachine := map[string]bool{}
	for i := range recs {
		r := &recs[i]
		if _, dup := index[r.JobID]; dup {
			return nil, fmt.Errorf("workflow %s: two tasks %s", truncate([]byte(inst.Name)), truncate([]byte(r.JobID)))
		}
		index[r.JobID] = i
		t := wfformat.NewTask(r.JobID)
		t.Name = r.JobID
		if !missingString(r.ExecutableID) {
			t.Name = r.ExecutableID
		}
		t.Parents = r.Dependencies
		if r.RunTime != Missing {
			t.Runtime, inst.Execution = r.RunTime, true
		}
		cores := 1.0
		switch {
		case r.ReqNProcs > 0:
			t.Cores, cores = r.ReqNProcs, r.ReqNProcs
		case r.NProcs > 0:
			t.Cores, cores = r.NProcs, r.NProcs
		}
		if r.UsedMemory != Missing && r.UsedMemory >= 0 {
			t.Memory = wholeIfNear(r.UsedMemory * 1024 * cores)
		}
		if r.WaitTime != Missing {
			t.Start = at(r.SubmitTime + r.WaitTime)
		}
		if !missingString(r.LastRunSiteID) {
			t.Machines = strings.Split(r.LastRunSiteID, ";")
			for _, m := range t.Machines {
				if !seenMachine[m] {
					seenMachine[m] = true
					inst.Machines = append(inst.Machines, wfformat.Machine{NodeName: m})
				}
			}
		}
		for _, f := range r.Files {
			if old, ok := inst.Files[f.Name]; ok && old != f.Size && old >= 0 && f.Size >= 0 {
				return nil, fmt.Errorf("workflow %s: file %s is %d bytes for task %s and %d bytes for another", truncate([]byte(inst.Name)), truncate([]byte(f.Name)), f.Size, truncate([]byte(r.JobID)), old)
			}
			if old, ok := inst.Files[f.Name]; !ok || old < 0 {
				inst.Files[f.Name] = f.Size
			}
			if f.Output {
				t.Outputs = append(t.Outputs, f.Name)
			} else {
				t.Inputs = append(t.Inputs, f.Name)
			}
		}
		inst.Execution = inst.Execution || wfformatHasExecution(&t)
		inst.Tasks = append(inst.Tasks, t)
	}
	m, err := workflowMetrics(recs, index)
	if err != nil {
		return nil, fmt.Errorf("workflow %s: %v", truncate([]byte(inst.Name)), err)
	}
	inst.Makespan = m.AsRan
	return inst, nil
}

// wfformatHasExecution tells whether a task has a value of WfFormat's
// execution part.
func wfformatHasExecution(t *wfformat.Task) bool {
	return !math.IsNaN(t.Runtime) || !math.IsNaN(t.Cores) || !math.IsNaN(t.Memory) || len(t.Machines) > 0 || !t.Start.IsZero()
}

// workflowMetrics analyses the graph of one workflow's records (index:
// their positions by JobID); a dependency on a task that is not among them
// is an error.
func workflowMetrics(recs []Record, index map[string]int) (dag.Metrics, error) {
	submit := recs[0].SubmitTime
	for i := range recs {
		submit = min(submit, recs[i].SubmitTime)
	}
	preds := make([][]int32, len(recs))
	tasks := make([]dag.Task, len(recs))
	for i := range recs {
		r := &recs[i]
		for _, d := range r.Dependencies {
			k, ok := index[d]
			if !ok {
				return dag.Metrics{}, fmt.Errorf("task %s depends on %s, which is no task of the workflow", truncate([]byte(r.JobID)), truncate([]byte(d)))
			}
			preds[i] = append(preds[i], int32(k))
		}
		tasks[i] = dag.Task{Run: r.RunTime, Release: r.SubmitTime - submit, Start: math.NaN()}
		if r.RunTime == Missing {
			tasks[i].Run = -1
		}
		if r.WaitTime != Missing {
			tasks[i].Start = r.SubmitTime + r.WaitTime - submit
		}
	}
	return dag.Analyze(preds, tasks)
}

// wholeIfNear rounds v to a whole number when it is one but for the
// rounding of the arithmetic that made it (memory per processor times the
// processors).
func wholeIfNear(v float64) float64 {
	if r := math.Round(v); math.Abs(v-r) <= 1e-12*math.Max(1, math.Abs(v)) {
		return r
	}
	return v
}

// IsDirOutput tells whether a WfFormat output is a directory (one instance
// a workflow): a path ending in a slash, or an existing directory.
func IsDirOutput(path string) bool {
	if strings.HasSuffix(path, "/") || strings.HasSuffix(path, string(os.PathSeparator)) {
		return true
	}
	fi, err := os.Stat(path)
	return err == nil && fi.IsDir()
}

// checkOutputDir checks a directory output (a WTA trace, WfFormat
// instances): nothing there, an empty directory, or with force a
// directory; its parent must exist.
func checkOutputDir(path string, force bool) error {
	fi, err := os.Stat(path)
	switch {
	case os.IsNotExist(err):
		parent := filepath.Dir(filepath.Clean(path))
		if pi, err := os.Stat(parent); err != nil || !pi.IsDir() {
			return fmt.Errorf("%s: its directory %s does not exist", path, parent)
		}
		return nil
	case err != nil:
		return err
	case !fi.IsDir():
		return fmt.Errorf("%s is not a directory: this output is a directory of tables or instances", path)
	}
	entries, err := os.ReadDir(path)
	if err != nil {
		return err
	}
	if len(entries) > 0 && !force {
		return fmt.Errorf("%s: the directory is not empty; --force writes into it", path)
	}
	return nil
}

// writeWfFormatDir writes each workflow of a trace as an instance,
// DIR/NAME.json (NAME its workflow id, characters other than letters,
// digits, '.', '_' and '-' as '_', a second workflow of one NAME as
// NAME-2.json). The records are held by workflow.
func writeWfFormatDir(dir string, h *Header, r Reader, progress func(int64)) (int64, error) {
	byWF := map[string][]Record{}
	var order []string
	n, err := ForEach(r, func(rec *Record) error {
		wf := workflowOf(rec)
		if _, ok := byWF[wf]; !ok {
			order = append(order, wf)
		}
		byWF[wf] = append(byWF[wf], *rec)
		return nil
	})
	if err != nil {
		return n, err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return n, err
	}
	used := map[string]int{}
	for _, wf := range order {
		name := fileSafe(wf)
		if used[name]++; used[name] > 1 {
			name += "-" + strconv.Itoa(used[name])
		}
		inst, err := instanceOf(byWF[wf], h)
		if err != nil {
			return n, err
		}
		if err := writeTable(filepath.Join(dir, name+".json"), func(out *outfile.File) error { return wfformat.Encode(out, inst) }); err != nil {
			return n, err
		}
		delete(byWF, wf)
	}
	if progress != nil {
		progress(n)
	}
	return n, nil
}

// fileSafe is a workflow id as a file name.
func fileSafe(id string) string {
	b := []byte(id)
	for i, c := range b {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '.' || c == '_' || c == '-') {
			b[i] = '_'
		}
	}
	if len(b) == 0 || b[0] == '.' {
		b = append([]byte("wf"), b...)
	}
	if len(b) > 200 {
		b = b[:200]
	}
	return string(b)
}

// WfFormatDir is the directory of a generated workload that holds its
// composite jobs as WfFormat instances (gmark generate --format wfformat).
const WfFormatDir = "workflows"

// writeInstanceFile writes one composite job's records (JobRecords) as a
// WfFormat instance: its tasks, their dependencies and run times, the
// workload's offsets as times from 1970-01-01 (a workload has no date).
func writeInstanceFile(path string, recs []Record) error {
	inst, err := instanceOf(recs, &Header{})
	if err != nil {
		return err
	}
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := wfformat.Encode(f, inst); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
