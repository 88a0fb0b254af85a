package gwa

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/gmark/gmark/gwa/wta"
	"github.com/gmark/gmark/internal/outfile"
)

// wtaSchemaDir is where the writer puts a table's part file.
const wtaSchemaDir = "schema-1.0"

// writeWTA writes a trace in the WTA's parquet layout: a directory
// (OUT/tasks/schema-1.0/part.0.parquet and OUT/workflows/…), or, for an
// OUT named .parquet, the tasks table alone. The records are held (the
// ids may need numbering, and the workflows table needs whole workflows).
func writeWTA(path string, h *Header, r Reader, progress func(int64)) (int64, error) {
	var recs []Record
	n, err := ForEach(r, func(rec *Record) error {
		recs = append(recs, *rec)
		if progress != nil && len(recs)%(64<<10) == 0 {
			progress(int64(len(recs)))
		}
		return nil
	})
	if err != nil {
		return n, err
	}
	tasks, wfs, err := wtaTables(recs, h)
	if err != nil {
		return n, err
	}
	if strings.HasSuffix(strings.ToLower(path), ".parquet") {
		return n, writeTable(path, func(out *outfile.File) error {
			return writeTasks(out, tasks)
		})
	}
	for _, t := range []string{"tasks", "workflows"} {
		if err := os.MkdirAll(filepath.Join(path, t, wtaSchemaDir), 0o755); err != nil {
			return n, err
		}
	}
	if err := writeTable(filepath.Join(path, "tasks", wtaSchemaDir, "part.0.parquet"), func(out *outfile.File) error {
		return writeTasks(out, tasks)
	}); err != nil {
		return n, err
	}
	return n, writeTable(filepath.Join(path, "workflows", wtaSchemaDir, "part.0.parquet"), func(out *outfile.File) error {
		w := wta.NewWorkflowWriter(out, wta.Options{})
		for i := range wfs {
			if err := w.Write(&wfs[i]); err != nil {
				return err
			}
		}
		return w.Close()
	})
}

// writeTable writes one file as an output of internal/outfile.
func writeTable(path string, write func(*outfile.File) error) error {
	out, err := outfile.Create(path)
	if err != nil {
		return err
	}
	defer out.Close()
	if err := write(out); err != nil {
		return err
	}
	return out.Commit()
}

func writeTasks(out *outfile.File, tasks []wta.Task) error {
	w := wta.NewTaskWriter(out, wta.Options{})
	for i := range tasks {
		if err := w.Write(&tasks[i]); err != nil {
			return err
		}
	}
	return w.Close()
}

// wtaTables makes the rows of both tables. The archive's ids are
// integers, unique over the table: when the records' task ids are not all
// distinct canonical integers they are numbered from 0 in record order (a
// workflow's dependencies follow), and so are workflow ids; user, group and
// site ids that are not integers are numbered from 1 by kind.
func wtaTables(recs []Record, h *Header) ([]wta.Task, []wta.Workflow, error) {
	base := 0.0
	if h != nil && h.AbsoluteBase {
		base = float64(h.UnixStartTime)
	}
	taskID := idNumbering(len(recs), func(i int) string { return recs[i].JobID }, true)
	wfOf := func(i int) string { return workflowOf(&recs[i]) }
	wfID := idNumbering(len(recs), wfOf, false)
	users := newIntNames(len(recs), func(i int) string { return recs[i].UserID })
	groups := newIntNames(len(recs), func(i int) string { return recs[i].GroupID })
	sites := newIntNames(len(recs), func(i int) string { return recs[i].Site() })
	groupsOf := map[string][]int{}
	var order []string
	tasks := make([]wta.Task, len(recs))
	for i := range recs {
		rec := &recs[i]
		wf := wfOf(i)
		if _, ok := groupsOf[wf]; !ok {
			order = append(order, wf)
		}
		groupsOf[wf] = append(groupsOf[wf], i)
		tasks[i] = wta.Task{ID: taskID(i, rec.JobID), WorkflowID: wfID(i, wf), TsSubmit: (rec.SubmitTime + base) * 1000,
			WaitTime: msOrMissing(rec.WaitTime), Runtime: msOrMissing(rec.RunTime), ResourceAmountRequested: rec.ReqNProcs,
			UserID: users.of(rec.UserID), GroupID: groups.of(rec.GroupID), SubmissionSite: sites.of(rec.Site())}
	}
	var wfs []wta.Workflow
	for _, wf := range order {
		idx := groupsOf[wf]
		byJob := make(map[string]int, len(idx))
		sub := make([]Record, len(idx))
		for k, i := range idx {
			byJob[recs[i].JobID] = k
			sub[k] = recs[i]
		}
		for _, i := range idx {
			for _, d := range recs[i].Dependencies {
				p, ok := byJob[d]
				if !ok {
					return nil, nil, fmt.Errorf("workflow %s: task %s depends on %s, which is no task of the workflow", truncate([]byte(wf)), truncate([]byte(recs[i].JobID)), truncate([]byte(d)))
				}
				tasks[i].Parents = append(tasks[i].Parents, tasks[idx[p]].ID)
				tasks[idx[p]].Children = append(tasks[idx[p]].Children, tasks[i].ID)
			}
		}
		m, err := workflowMetrics(sub, byJob)
		if err != nil {
			return nil, nil, fmt.Errorf("workflow %s: %v", truncate([]byte(wf)), err)
		}
		w := wta.Workflow{ID: tasks[idx[0]].WorkflowID, TsSubmit: math.Inf(1), TaskCount: len(idx), CriticalPath: m.CriticalPath * 1000,
			CriticalPathTasks: m.CriticalTasks, MaxConcurrentTasks: m.Width}
		for _, i := range idx {
			w.TsSubmit = min(w.TsSubmit, tasks[i].TsSubmit)
			if recs[i].ReqNProcs > 0 {
				w.TotalResources += recs[i].ReqNProcs
			}
		}
		wfs = append(wfs, w)
	}
	return tasks, wfs, nil
}

func msOrMissing(s float64) float64 {
	if s == Missing {
		return wta.Missing
	}
	return s * 1000
}

// idNumbering keeps ids that are all distinct canonical integers (unique:
// every one distinct; else every record's own key is), and otherwise
// numbers them from 0 by first appearance.
func idNumbering(n int, key func(int) string, unique bool) func(i int, id string) string {
	keep := true
	seen := map[string]bool{}
	for i := 0; i < n && keep; i++ {
		k := key(i)
		v, err := strconv.ParseInt(k, 10, 64)
		keep = err == nil && strconv.FormatInt(v, 10) == k && !(unique && seen[k])
		seen[k] = true
	}
	if keep {
		return func(_ int, id string) string { return id }
	}
	if unique {
		return func(i int, _ string) string { return strconv.Itoa(i) }
	}
	num := map[string]string{}
	return func(_ int, id string) string {
		if s, ok := num[id]; ok {
			return s
		}
		num[id] = strconv.Itoa(len(num))
		return num[id]
	}
}

// intNames maps user, group and site ids to the archive's int32 ids:
// integers as they are, others numbered past the largest integer among
// them.
type intNames struct {
	num  map[string]string
	next int64
}

func newIntNames(n int, id func(int) string) *intNames {
	names := &intNames{num: map[string]string{}, next: 1}
	for i := 0; i < n; i++ {
		if v, ok := int32Name(id(i)); ok {
			names.next = max(names.next, v+1)
		}
	}
	return names
}

func int32Name(s string) (int64, bool) {
	v, err := strconv.ParseInt(s, 10, 32)
	return v, err == nil && strconv.FormatInt(v, 10) == s && v >= 0
}

func (n *intNames) of(s string) string {
	if missingString(s) {
		return "-1"
	}
	if _, ok := int32Name(s); ok {
		return s
	}
	if id, ok := n.num[s]; ok {
		return id
	}
	n.num[s] = strconv.FormatInt(n.next, 10)
	n.next++
	return n.num[s]
}
