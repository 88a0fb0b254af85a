package gwa

import (
	"bytes"
	"errors"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/gmark/gmark/dag"
	"github.com/gmark/gmark/dag/dagtest"
	"github.com/gmark/gmark/gwa/wfformat"
	"github.com/gmark/gmark/gwa/wta"
	"github.com/parquet-go/parquet-go"
)

// The WfFormat instances of package wfformat's tests, in the shapes of
// WfInstances' files.
var wfformatInstances = []string{"diamond-1.5.json", "nextflow-1.5.json", "pegasus-1.4.json"}

func instancePath(name string) string { return filepath.Join("wfformat", "testdata", name) }

func TestWfFormatRecords(t *testing.T) {
	recs, h := openAll(t, instancePath("diamond-1.5.json"))
	if h.Format != WfFormat || h.UnixStartTime != 1714550400 || !h.AbsoluteBase {
		t.Fatalf("header %+v", h)
	}
	want := []struct {
		id, exe, site string
		wait, run     float64
		procs, memKB  float64
		deps          []string
		files         []TaskFile
	}{
		{"split_00000001", "split", "node1", 0.5, 4.25, 1, 1024, nil,
			[]TaskFile{{"input.dat", 4000000, false}, {"part1.dat", 2000000, true}, {"part2.dat", 2000000, true}}},
		{"work_00000002", "work", "node1", 5, 20, 4, 2048, []string{"split_00000001"},
			[]TaskFile{{"part1.dat", 2000000, false}, {"out1.dat", 1000, true}}},
		{"work_00000003", "work", "node2", 6, 25.75, 2, Missing, []string{"split_00000001"},
			[]TaskFile{{"part2.dat", 2000000, false}, {"out2.dat", 1500, true}}},
		{"merge_00000004", "merge", "node1;node2", 32.5, 4, 1, Missing, []string{"work_00000002", "work_00000003"},
			[]TaskFile{{"out1.dat", 1000, false}, {"out2.dat", 1500, false}, {"result.dat", 2500, true}}},
	}
	if len(recs) != len(want) {
		t.Fatalf("%d records", len(recs))
	}
	for i, w := range want {
		r := recs[i]
		if r.JobID != w.id || r.WorkflowID != "diamond" || r.ExecutableID != w.exe || r.LastRunSiteID != w.site || r.SubmitTime != 0 ||
			r.WaitTime != w.wait || r.RunTime != w.run || r.ReqNProcs != w.procs || r.UsedMemory != w.memKB ||
			!slices.Equal(r.Dependencies, w.deps) || !reflect.DeepEqual(r.Files, w.files) {
			t.Errorf("record %d: %+v", i, r)
		}
	}
}

// TestWfFormatNotCarried: the reader names every key it does not carry,
// and no key it carries.
func TestWfFormatNotCarried(t *testing.T) {
	r, err := Open(instancePath("diamond-1.5.json"), ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	got := r.Stats().NotCarried
	for _, k := range []string{"author.email", "description", "createdAt", "runtimeSystem.url", "workflow.execution.tasks[].avgCPU",
		"workflow.execution.tasks[].command.program", "workflow.execution.machines[].cpu.speedInMHz", "workflow.execution.makespanInSeconds"} {
		if !slices.Contains(got, k) {
			t.Errorf("%s not named among %v", k, got)
		}
	}
	for _, k := range got {
		if wfformatCarried[k] || k == "author" || k == "workflow" {
			t.Errorf("%s named, but it is carried or a container", k)
		}
	}
	var buf bytes.Buffer
	WriteSkipped(&buf, "d.json", r.Stats())
	if !strings.Contains(buf.String(), "warning: d.json: gmark carries none of these fields, read and left out: author.email") {
		t.Errorf("warning %q", buf.String())
	}
}

// TestWfFormatRoundTrip: WfFormat -> gmark -> WfFormat keeps every field
// gmark carries: the records read back are the records written, and the
// instance written holds the original's shared values.
func TestWfFormatRoundTrip(t *testing.T) {
	for _, name := range wfformatInstances {
		t.Run(name, func(t *testing.T) {
			recs, h := openAll(t, instancePath(name))
			out := filepath.Join(t.TempDir(), "back.json")
			r, _ := Open(instancePath(name), ReadOptions{})
			if _, err := WriteTrace(out, "", h, r, nil); err != nil {
				t.Fatal(err)
			}
			r.Close()
			back, h2 := openAll(t, out)
			if h2.UnixStartTime != h.UnixStartTime {
				t.Errorf("time base %d, was %d", h2.UnixStartTime, h.UnixStartTime)
			}
			if !reflect.DeepEqual(back, recs) {
				for i := range recs {
					if !reflect.DeepEqual(back[i], recs[i]) {
						t.Fatalf("record %d\nread back %+v\nwritten   %+v", i, back[i], recs[i])
					}
				}
				t.Fatalf("%d records read back, %d written", len(back), len(recs))
			}
			orig := decodeInstance(t, instancePath(name))
			again := decodeInstance(t, out)
			for i := range orig.Tasks {
				a, b := orig.Tasks[i], again.Tasks[i]
				if a.ID != b.ID || a.Name != b.Name || !slices.Equal(a.Parents, b.Parents) || !slices.Equal(a.Inputs, b.Inputs) ||
					!slices.Equal(a.Outputs, b.Outputs) || !same(a.Runtime, b.Runtime) || !same(a.Cores, b.Cores) || !same(a.Memory, b.Memory) ||
					!slices.Equal(a.Machines, b.Machines) || !a.Start.Equal(b.Start) {
					t.Errorf("task %d\norig  %+v\nagain %+v", i, a, b)
				}
			}
			if !reflect.DeepEqual(orig.Files, again.Files) || !orig.Start.Equal(again.Start) || orig.Name != again.Name {
				t.Errorf("files, start or name: %v %v %s", again.Files, again.Start, again.Name)
			}
		})
	}
}

func same(a, b float64) bool { return a == b || math.IsNaN(a) && math.IsNaN(b) }

func decodeInstance(t *testing.T, path string) *wfformat.Instance {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	inst, err := wfformat.Decode(f, path)
	if err != nil {
		t.Fatal(err)
	}
	return inst
}

// TestWfFormatMakespanAsRan: the makespan written is the one the tasks
// ran (the diamond's instance says 36.5 s, its tasks end at 36.5 s).
func TestWfFormatMakespanAsRan(t *testing.T) {
	recs, h := openAll(t, instancePath("diamond-1.5.json"))
	inst, err := instanceOf(recs, h)
	if err != nil {
		t.Fatal(err)
	}
	if inst.Makespan != 36.5 {
		t.Errorf("makespan %g, want 36.5", inst.Makespan)
	}
}

// TestWorkflowFormatsDAGChecks: on every test instance, the graph the
// readers make passes dagtest's independent computations.
func TestWorkflowFormatsDAGChecks(t *testing.T) {
	paths := []string{}
	for _, n := range wfformatInstances {
		paths = append(paths, instancePath(n))
	}
	paths = append(paths, writeArchiveLikeWTA(t))
	for _, p := range paths {
		recs, _ := openAll(t, p)
		wfs, err := GroupWorkflows(recs)
		if err != nil {
			t.Fatal(err)
		}
		for _, w := range wfs {
			preds := make([][]int32, len(w.Tasks))
			tasks := make([]dag.Task, len(w.Tasks))
			for k := range w.Tasks {
				for _, p := range w.Preds[k] {
					preds[k] = append(preds[k], int32(p))
				}
				tasks[k] = dag.Task{Run: w.Tasks[k].RunTime, Release: w.Tasks[k].SubmitTime - w.Submit, Start: math.NaN()}
			}
			if err := dagtest.Check(preds, tasks); err != nil {
				t.Errorf("%s, workflow %s: %v", p, w.ID, err)
			}
		}
	}
}

func TestWfFormatDirectory(t *testing.T) {
	dir := t.TempDir()
	for _, n := range []string{"diamond-1.5.json", "pegasus-1.4.json"} {
		b, _ := os.ReadFile(instancePath(n))
		os.WriteFile(filepath.Join(dir, n), b, 0o644)
	}
	recs, h := openAll(t, dir)
	// The 1.4 instance started in 2020, the diamond in 2024: the 1.4 one
	// comes first and is the time base.
	if len(recs) != 6 || recs[0].WorkflowID != "chain-1.4" || recs[2].WorkflowID != "diamond" || h.UnixStartTime != 1585719735 {
		t.Fatalf("%d records, first of %s, third of %s, base %d", len(recs), recs[0].WorkflowID, recs[2].WorkflowID, h.UnixStartTime)
	}
	if want := float64(1714550400 - 1585719735); recs[2].SubmitTime != want {
		t.Errorf("the diamond submitted at %g, want %g", recs[2].SubmitTime, want)
	}
	// Written back as a directory: one instance a workflow.
	out := filepath.Join(t.TempDir(), "out") + "/"
	r, _ := Open(dir, ReadOptions{})
	if _, err := WriteTrace(out, WfFormat, h, r, nil); err != nil {
		t.Fatal(err)
	}
	back, _ := openAll(t, out)
	if !reflect.DeepEqual(back, recs) {
		t.Errorf("the directory read back differs")
	}
	// A file holds one workflow.
	r, _ = Open(dir, ReadOptions{})
	_, err := WriteTrace(filepath.Join(t.TempDir(), "one.json"), "", h, r, nil)
	if err == nil || !strings.Contains(err.Error(), "a WfFormat file holds one workflow") {
		t.Errorf("two workflows into one file: %v", err)
	}
}

func TestWfFormatDetection(t *testing.T) {
	b, _ := os.ReadFile(instancePath("nextflow-1.5.json"))
	// From a stream, whatever the name: the content tells.
	r, err := NewReader(bytes.NewReader(b), ReadOptions{Name: "x.gwf"})
	if err != nil || r.Header().Format != WfFormat {
		t.Fatalf("%v %v", err, r)
	}
	// A malformed instance is an error at its line and column.
	_, err = NewReader(strings.NewReader("{\n  \"name\": 5}"), ReadOptions{Name: "bad.json"})
	var pe *ParseError
	if !errors.As(err, &pe) || pe.Line != 2 || pe.Col != 11 {
		t.Errorf("got %v", err)
	}
}

// archiveTask is a tasks table's row in the physical types of the
// archive's published files (the Shell trace's: children as doubles,
// memory as int64, resource_used as a string, pandas' index column).
type archiveTask struct {
	Children           []float64 `parquet:"children,list"`
	DiskIOTime         *int64    `parquet:"disk_io_time,optional"`
	DiskSpaceRequested *int64    `parquet:"disk_space_requested,optional"`
	GroupID            *int32    `parquet:"group_id,optional"`
	ID                 *int64    `parquet:"id,optional"`
	MemoryRequested    *int64    `parquet:"memory_requested,optional"`
	Nfrs               *string   `parquet:"nfrs,optional"`
	Params             *string   `parquet:"params,optional"`
	Parents            []int64   `parquet:"parents,list"`
	ResourceAmount     *float64  `parquet:"resource_amount_requested,optional"`
	ResourceType       *string   `parquet:"resource_type,optional"`
	ResourceUsed       *string   `parquet:"resource_used,optional"`
	Runtime            *int64    `parquet:"runtime,optional"`
	SubmissionSite     *int32    `parquet:"submission_site,optional"`
	TsSubmit           *int64    `parquet:"ts_submit,optional"`
	Type               *string   `parquet:"type,optional"`
	UserID             *int32    `parquet:"user_id,optional"`
	WaitTime           *int64    `parquet:"wait_time,optional"`
	WorkflowID         *int64    `parquet:"workflow_id,optional"`
	Index              *int64    `parquet:"__index_level_0__,optional"`
}

func p[T any](v T) *T { return &v }

// archiveRows are two workflows: a chain 0 -> 1 -> 2 (task 2 submitted
// later), and a fork 3 -> {4, 5} whose edge 3 -> 5 is given only in 3's
// children; interleaved rows, two row groups.
func archiveRows() []archiveTask {
	row := func(id, wf, ts, rt, wait int64, parents []int64, children []float64) archiveTask {
		return archiveTask{Children: children, DiskIOTime: p(int64(-1)), DiskSpaceRequested: p(int64(-1)), GroupID: p(int32(-1)),
			ID: p(id), MemoryRequested: p(int64(-1)), Nfrs: p(""), Params: p("{}"), Parents: parents, ResourceAmount: p(1.0),
			ResourceType: p("thread"), ResourceUsed: p("[]"), Runtime: p(rt), SubmissionSite: p(int32(0)), TsSubmit: p(ts),
			Type: p("composite"), UserID: p(int32(7)), WaitTime: p(wait), WorkflowID: p(wf), Index: p(id)}
	}
	return []archiveTask{
		row(0, 0, 0, 7184, -1, nil, []float64{1}),
		row(3, 1, 6000, 1000, 250, nil, []float64{4, 5}),
		row(1, 0, 0, 9171, -1, []int64{0}, []float64{2}),
		row(4, 1, 6000, 2500, 0, []int64{3}, nil),
		row(2, 0, 6000, 5240, -1, []int64{1}, nil),
		row(5, 1, 6000, 1500, 0, nil, nil),
	}
}

// writeArchiveLikeWTA writes a trace directory in the archive's layout and
// types, and returns it.
func writeArchiveLikeWTA(t testing.TB) string {
	t.Helper()
	dir := t.TempDir()
	tasks := filepath.Join(dir, "tasks", "schema-1.0")
	os.MkdirAll(tasks, 0o755)
	f, err := os.Create(filepath.Join(tasks, "part.0.parquet"))
	if err != nil {
		t.Fatal(err)
	}
	w := parquet.NewGenericWriter[archiveTask](f, parquet.MaxRowsPerRowGroup(4))
	if _, err := w.Write(archiveRows()); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	f.Close()
	return dir
}

func TestWTARecords(t *testing.T) {
	dir := writeArchiveLikeWTA(t)
	r, err := Open(dir, ReadOptions{Strict: true})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	recs, err := drain(r)
	if err != nil {
		t.Fatal(err)
	}
	// Workflow 0 is whole at row 5, workflow 1 at row 6: each is handed
	// out then, its tasks in table order.
	ids := []string{}
	for _, rec := range recs {
		ids = append(ids, rec.WorkflowID+"/"+rec.JobID)
	}
	if !slices.Equal(ids, []string{"0/0", "0/1", "0/2", "1/3", "1/4", "1/5"}) {
		t.Fatalf("order %v", ids)
	}
	r5 := recs[5]
	if r5.SubmitTime != 6 || r5.RunTime != 1.5 || r5.WaitTime != 0 || r5.ReqNProcs != 1 || r5.UserID != "7" || r5.OrigSiteID != "0" ||
		!slices.Equal(r5.Dependencies, []string{"3"}) || recs[0].WaitTime != Missing {
		t.Errorf("task 5: %+v", r5)
	}
	nc := r.Stats().NotCarried
	for _, c := range []string{"tasks.memory_requested", "tasks.params", "tasks.type", "tasks.resource_used"} {
		if !slices.Contains(nc, c) {
			t.Errorf("%s not named among %v", c, nc)
		}
	}
	if slices.Contains(nc, "tasks.__index_level_0__") || slices.Contains(nc, "tasks.parents") {
		t.Errorf("named a column it should not: %v", nc)
	}
}

// wtaRows reads a tasks table as the codec reads it, children and parents
// sorted (their order is not a field).
func wtaRows(t *testing.T, paths ...string) []wta.Task {
	t.Helper()
	tr, err := wta.OpenTasks(paths)
	if err != nil {
		t.Fatal(err)
	}
	defer tr.Close()
	var out []wta.Task
	for {
		task, err := tr.Next()
		if err != nil {
			break
		}
		task.At = wta.Pos{}
		sort.Strings(task.Parents)
		sort.Strings(task.Children)
		out = append(out, task)
	}
	sort.Slice(out, func(a, b int) bool { return out[a].ID < out[b].ID })
	return out
}

// TestWTARoundTrip: WTA parquet -> gmark -> parquet keeps every column
// gmark carries, for every row (the edge given only as a child becomes a
// parent too, as gmark reads it).
func TestWTARoundTrip(t *testing.T) {
	dir := writeArchiveLikeWTA(t)
	orig := wtaRows(t, filepath.Join(dir, "tasks", "schema-1.0", "part.0.parquet"))
	out := filepath.Join(t.TempDir(), "trace")
	r, _ := Open(dir, ReadOptions{})
	if _, err := WriteTrace(out, WTA, r.Header(), r, nil); err != nil {
		t.Fatal(err)
	}
	r.Close()
	back := wtaRows(t, filepath.Join(out, "tasks", "schema-1.0", "part.0.parquet"))
	orig[5].Parents = []string{"3"} // 3 lists 5 as a child
	if !reflect.DeepEqual(back, orig) {
		for i := range orig {
			if !reflect.DeepEqual(back[i], orig[i]) {
				t.Errorf("row %d\nback %+v\norig %+v", i, back[i], orig[i])
			}
		}
	}
	// And once more through gmark: the records are the same.
	first, _ := openAll(t, dir)
	again, _ := openAll(t, out)
	if !reflect.DeepEqual(first, again) {
		t.Errorf("records differ after the round trip")
	}
	// The workflows table holds what gmark computes: workflow 0's
	// critical path is 7184+9171+5240 ms, its width 1.
	cols, n, err := wta.Columns(filepath.Join(out, "workflows", "schema-1.0", "part.0.parquet"))
	if err != nil || n != 2 || !slices.Equal(cols, wta.WorkflowColumns) {
		t.Errorf("workflows table: %v rows %d: %v", cols, n, err)
	}
}

func TestWTAErrors(t *testing.T) {
	for _, tc := range []struct {
		name   string
		mutate func([]archiveTask) []archiveTask
		want   string
	}{
		{"an unknown parent", func(rows []archiveTask) []archiveTask {
			rows[4].Parents = []int64{9}
			return rows
		}, "row group 2, row 1 (row 5 of the table): column parents: task 2 names 9, not a task of workflow 0"},
		{"a cycle", func(rows []archiveTask) []archiveTask {
			rows[0].Parents = []int64{2}
			return rows
		}, "column parents: workflow 0 has a dependency cycle: 0 -> 1 -> 2 -> 0"},
		{"a task twice", func(rows []archiveTask) []archiveTask {
			rows[2].ID = p(int64(0))
			return rows
		}, "column id: task 0 is already a task of workflow 0, at row 1"},
		{"a fractional id", func(rows []archiveTask) []archiveTask {
			rows[1].Children = []float64{4.5}
			return rows
		}, "row group 1, row 2 (row 2 of the table): column children: 4.5 is not a whole number"},
		{"a run time out of range", func(rows []archiveTask) []archiveTask {
			rows[3].Runtime = p(int64(1) << 62)
			return rows
		}, "column runtime: RunTime"},
		{"no submission", func(rows []archiveTask) []archiveTask {
			rows[0].TsSubmit = nil
			return rows
		}, "column ts_submit: no submission time"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "t.parquet")
			f, _ := os.Create(path)
			w := parquet.NewGenericWriter[archiveTask](f, parquet.MaxRowsPerRowGroup(4))
			w.Write(tc.mutate(archiveRows()))
			w.Close()
			f.Close()
			r, err := Open(path, ReadOptions{Strict: true})
			if err == nil {
				_, err = drain(r)
				r.Close()
			}
			var pe *ParseError
			if !errors.As(err, &pe) || !strings.Contains(err.Error(), tc.want) || !strings.HasPrefix(err.Error(), path+": ") {
				t.Errorf("got %v\nwant %s: …%s", err, path, tc.want)
			}
			// Not strict: the broken workflow is skipped, the other read.
			r, err = Open(path, ReadOptions{})
			if err != nil {
				return // the survey refused the table: nothing to skip
			}
			recs, err := drain(r)
			r.Close()
			if err == nil && (len(recs) != 3 || r.Stats().Skipped != 3) {
				t.Errorf("lenient: %d records, %d skipped", len(recs), r.Stats().Skipped)
			}
		})
	}
}

func TestWTANotATable(t *testing.T) {
	path := filepath.Join(t.TempDir(), "x.parquet")
	os.WriteFile(path, []byte("PAR1 but not really"), 0o644)
	if _, err := Open(path, ReadOptions{}); err == nil || !strings.Contains(err.Error(), "not a parquet file gmark can read") {
		t.Errorf("got %v", err)
	}
	type other struct {
		Name string `parquet:"name"`
	}
	path = filepath.Join(t.TempDir(), "y.parquet")
	f, _ := os.Create(path)
	w := parquet.NewGenericWriter[other](f)
	w.Write([]other{{"a"}})
	w.Close()
	f.Close()
	if _, err := Open(path, ReadOptions{}); err == nil || !strings.Contains(err.Error(), "no column id: not a WTA tasks table") {
		t.Errorf("got %v", err)
	}
}

// TestWTAToWfFormat: a WTA trace converts to WfFormat instances (one a
// workflow) and back to the same records but for what WfFormat does not
// hold (users, sites, per-task submissions: a WfFormat task is submitted
// with its workflow).
func TestWTAToWfFormat(t *testing.T) {
	dir := writeArchiveLikeWTA(t)
	recs, h := openAll(t, dir)
	out := filepath.Join(t.TempDir(), "inst") + "/"
	r, _ := Open(dir, ReadOptions{})
	if _, err := WriteTrace(out, WfFormat, h, r, nil); err != nil {
		t.Fatal(err)
	}
	back, _ := openAll(t, out)
	if len(back) != len(recs) {
		t.Fatalf("%d records back", len(back))
	}
	for i := range recs {
		if back[i].JobID != recs[i].JobID || back[i].RunTime != recs[i].RunTime || !slices.Equal(back[i].Dependencies, recs[i].Dependencies) {
			t.Errorf("record %d: %+v\nwas %+v", i, back[i], recs[i])
		}
	}
}
