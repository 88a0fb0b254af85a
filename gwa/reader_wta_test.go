package gwa

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// workflowTrace is a trace in the layout of OpenDC's and the Workflow
// Trace Archive's GWF, ", " separators and all: workflow 0 a diamond
// (1 -> 2, 1 -> 3, 2 3 -> 4), written with its sink first; workflow 1 a
// single task with an empty Dependencies field; workflow 2 a task with two
// predecessors and a "-1" for none, its lines interleaved with workflow
// 0's; an extra column (Priority) gmark does not know.
const workflowTrace = "# a comment before the columns\n" +
	"WorkflowID, JobID, SubmitTime, RunTime, NProcs, ReqNProcs, Dependencies, Priority\n" +
	"0, 4, 16, 5, 1, 1, 2 3, 1\n" + // line 3
	"0, 1, 16, 11, 2, 2, , 1\n" +
	"2, 7, 20, 3, 1, 1, -1, 2\n" +
	"0, 2, 17, 7.5, 1, 1, 1, 1\n" + // line 6
	"2, 9, 20, 4, 1, 1, 7  8, 2\n" +
	"0, 3, 18, 2, 4, 4, 1, 1\n" +
	"1, 5, 12, 30, 1, 1, , 3\n" +
	"2, 8, 21, -1, -1, 2, , 2\n" // line 10

func TestWorkflowTraceRead(t *testing.T) {
	dir := t.TempDir()
	// A .gwf name says GWF; the content says the workflow variant, which
	// wins.
	path := filepath.Join(dir, "trace.gwf")
	if err := os.WriteFile(path, []byte(workflowTrace), 0o644); err != nil {
		t.Fatal(err)
	}
	r, err := Open(path, ReadOptions{Strict: true})
	if err != nil {
		t.Fatal(err)
	}
	recs, err := drain(r)
	if err != nil {
		t.Fatal(err)
	}
	if f := r.Header().Format; f != Workflow {
		t.Fatalf("format %q, want %q", f, Workflow)
	}
	if got := strings.Join(r.Header().Lines, "|"); got != "a comment before the columns" {
		t.Errorf("header lines %q", got)
	}
	type task struct {
		wf, id         string
		submit, run, n float64
		deps           string
	}
	var got []task
	for _, rec := range recs {
		got = append(got, task{rec.WorkflowID, rec.JobID, rec.SubmitTime, rec.RunTime, rec.NProcs, strings.Join(rec.Dependencies, " ")})
	}
	want := []task{{"0", "4", 16, 5, 1, "2 3"}, {"0", "1", 16, 11, 2, ""}, {"2", "7", 20, 3, 1, ""}, {"0", "2", 17, 7.5, 1, "1"},
		{"2", "9", 20, 4, 1, "7 8"}, {"0", "3", 18, 2, 4, "1"}, {"1", "5", 12, 30, 1, ""}, {"2", "8", 21, Missing, Missing, ""}}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("records\n%v\nwant\n%v", got, want)
	}
	if s := r.Stats(); s.Records != 8 || s.Skipped != 0 || s.ExtraFields != 0 || s.Lines != 10 || s.OutOfOrder != 3 || s.CancelledBeforeStart != 1 {
		t.Errorf("stats %+v", s)
	}

	wfs, err := GroupWorkflows(recs)
	if err != nil {
		t.Fatal(err)
	}
	type shape struct {
		id     string
		submit float64
		tasks  string
		preds  [][]int
	}
	var shapes []shape
	for _, w := range wfs {
		var ids []string
		for _, rec := range w.Tasks {
			ids = append(ids, rec.JobID)
		}
		shapes = append(shapes, shape{w.ID, w.Submit, strings.Join(ids, " "), w.Preds})
	}
	// By submit time; tasks in dependency order, the trace's order where
	// the dependencies allow.
	wantShapes := []shape{
		{"1", 12, "5", [][]int{nil}},
		{"0", 16, "1 2 3 4", [][]int{nil, {0}, {0}, {1, 2}}},
		{"2", 20, "7 8 9", [][]int{nil, nil, {0, 1}}},
	}
	if !reflect.DeepEqual(shapes, wantShapes) {
		t.Fatalf("workflows\n%+v\nwant\n%+v", shapes, wantShapes)
	}
}

// Every broken workflow is reported at the line that breaks it, and only
// that workflow is left out: the sound ones around it are read.
func TestWorkflowTraceErrors(t *testing.T) {
	const head = "WorkflowID,JobID,SubmitTime,RunTime,NProcs,ReqNProcs,Dependencies\n"
	const good = "9,1,0,1,1,1,\n9,2,0,1,1,1,1\n" // lines 2-3: a sound workflow
	cases := []struct {
		name, body string
		want       string // the strict error
		skipped    int64  // lines skipped without --strict
	}{
		{"unknown predecessor", "1,1,5,1,1,1,\n1,2,5,1,1,1,1 42\n", "t:5: field 7: task 2 depends on 42, not a task of workflow 1", 2},
		{"predecessor in another workflow", "1,1,5,1,1,1,2\n", "t:4: field 7: task 1 depends on 2, not a task of workflow 1", 1},
		{"cycle", "1,a,5,1,1,1,c\n1,b,5,1,1,1,a\n1,c,5,1,1,1,b\n1,d,5,1,1,1,\n",
			"t:4: field 7: workflow 1 has a dependency cycle: a -> b -> c -> a (lines 4, 5, 6)", 4},
		{"cycle after a sound part", "1,a,5,1,1,1,\n1,b,5,1,1,1,a c\n1,c,5,1,1,1,b\n",
			"t:5: field 7: workflow 1 has a dependency cycle: b -> c -> b (lines 5, 6)", 3},
		{"self dependency", "1,a,5,1,1,1,a\n", "t:4: field 7: task a of workflow 1 depends on itself", 1},
		{"a JobID twice in a workflow", "1,a,5,1,1,1,\n1,a,6,1,1,1,\n", "t:5: field 2: JobID a is already a task of workflow 1, at line 4", 2},
		{"no WorkflowID", ",a,5,1,1,1,\n", "t:4: no WorkflowID: every task belongs to a workflow", 1},
		{"no JobID", "1,,5,1,1,1,\n", "t:4: no JobID: every task needs the id its dependents name", 1},
		{"bad number", "1,a,x,1,1,1,\n", `t:4: field 3: "x" is not a number (GWF SubmitTime)`, 1},
		{"too few fields", "1,a,5\n", "t:4: 3 fields, the column line names 7", 1},
		// A malformed line leaves its dependents with an unknown
		// predecessor: the whole workflow goes.
		{"predecessor on a malformed line", "1,a,x,1,1,1,\n1,b,5,1,1,1,a\n", `t:4: field 3: "x" is not a number (GWF SubmitTime)`, 2},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			text := head + good + tc.body
			_, err := NewReader(strings.NewReader(text), ReadOptions{Name: "t", Strict: true})
			var pe *ParseError
			if !errors.As(err, &pe) || err.Error() != tc.want {
				t.Fatalf("strict: %v, want %s", err, tc.want)
			}
			recs, r := readAll(t, "t", text, ReadOptions{})
			if len(recs) != 2 || recs[0].WorkflowID != "9" || recs[1].WorkflowID != "9" {
				t.Fatalf("the sound workflow: %+v", recs)
			}
			s := r.Stats()
			if s.Skipped != tc.skipped || s.Records != 2 || len(s.Errors) == 0 || s.Errors[0].Error() != tc.want {
				t.Fatalf("stats %+v (errors %v), want %d skipped and first error %s", s, s.Errors, tc.skipped, tc.want)
			}
		})
	}
}

// What cannot be read as the variant at all.
func TestWorkflowTraceNotReadable(t *testing.T) {
	cases := []struct {
		name, text, want string
	}{
		{"every workflow broken", "WorkflowID,JobID,SubmitTime\n1,a,5\n1,a,6\n",
			"t:3: field 2: JobID a is already a task of workflow 1, at line 2; no line is a valid record (2 malformed)"},
		{"no column line, format forced", "1,a,5\n",
			"t:1: the first line that is not a comment must name the columns, comma-separated, among them WorkflowID, JobID and SubmitTime (WorkflowID,JobID,SubmitTime,RunTime,NProcs,ReqNProcs,Dependencies)"},
		{"a field named twice", "WorkflowID,JobID,SubmitTime,NProc,NProcs\n",
			`t:1: field 5: column "NProcs" names the same field as column "NProc"`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := NewReader(strings.NewReader(tc.text), ReadOptions{Name: "t", Format: Workflow})
			if err == nil || err.Error() != tc.want {
				t.Fatalf("%v\nwant %s", err, tc.want)
			}
		})
	}
	// The column line alone is a valid trace of no tasks.
	recs, r := readAll(t, "t", "WorkflowID,JobID,SubmitTime\n", ReadOptions{Strict: true})
	if len(recs) != 0 || r.Header().Format != Workflow {
		t.Fatalf("%d records, format %s", len(recs), r.Header().Format)
	}
}

// A GWF or SWF trace whose text merely mentions the columns is not taken
// for the variant.
func TestWorkflowDetection(t *testing.T) {
	cases := []struct {
		head string
		want bool
	}{
		{"WorkflowID,JobID,SubmitTime\n", true},
		{"\xef\xbb\xbf\"WorkflowID\",\"JobID\",\"SubmitTime\",\"Dependencies\"\r\n", true},
		{"# c\n\n  workflow_id , job_id,submit_time\n", true},
		{"JobID,SubmitTime,RunTime\n", false},             // no WorkflowID
		{"WorkflowID\tJobID\tSubmitTime\n", false},        // not comma-separated
		{"; WorkflowID,JobID,SubmitTime\n", false},        // an SWF comment
		{"# WorkflowID,JobID,SubmitTime\n1 2 3\n", false}, // a GWF comment
		{"1,2,3\nWorkflowID,JobID,SubmitTime\n", false},   // not the first line
		{"WorkflowID,JobID,SubmitTime 0 -1\n", false},     // a record
		{"", false},
	}
	for _, tc := range cases {
		if got := isWorkflowHead([]byte(tc.head)); got != tc.want {
			t.Errorf("%q: %v, want %v", tc.head, got, tc.want)
		}
	}
	for _, name := range []string{"w.wf.gwf", "W.WF.GWF.gz"} {
		if f := FormatFromName(name); f != Workflow {
			t.Errorf("%s: %q", name, f)
		}
	}
}

// Records written by the variant's writer read back as they were, with
// identifiers that need quoting (a comma, white space, a leading '#').
func TestWorkflowWriterRoundTrip(t *testing.T) {
	mk := func(wf, id string, submit, run float64, deps ...string) Record {
		r := NewRecord()
		r.WorkflowID, r.JobID, r.SubmitTime, r.RunTime, r.ReqNProcs, r.NProcs = wf, id, submit, run, 2, 2
		r.Dependencies = deps
		return r
	}
	recs := []Record{
		mk("w,1", "#a", 0, 1.25),
		mk("w,1", "b c", 0.5, -1, "#a"),
		mk("w,1", "d,e", 3, 10, "#a", "b c"),
		mk("x", "\"q\"", 7, 2),
	}
	var buf bytes.Buffer
	w, err := NewWorkflowWriter(&buf, &Header{UnixStartTime: 1136073600})
	if err != nil {
		t.Fatal(err)
	}
	writeAll(t, w, recs)
	if n := strings.Count(buf.String(), ","); n != 6*(len(recs)+1) {
		t.Fatalf("%d commas: a field's comma was written raw\n%s", n, buf.String())
	}
	back, r := readAll(t, "back", buf.String(), ReadOptions{Strict: true})
	if !reflect.DeepEqual(back, recs) {
		t.Fatalf("read back\n%+v\nwant\n%+v\n%s", back, recs, buf.String())
	}
	if r.Header().UnixStartTime != 1136073600 {
		t.Errorf("time base %d", r.Header().UnixStartTime)
	}
	// A job of a trace without workflows is a workflow of its own.
	plain := NewRecord()
	plain.JobID, plain.SubmitTime = "17", 3
	buf.Reset()
	w, _ = NewWorkflowWriter(&buf, nil)
	writeAll(t, w, []Record{plain})
	if want := strings.Join(WorkflowColumns, ",") + "\n17,17,3,-1,-1,-1,\n"; buf.String() != want {
		t.Fatalf("%q, want %q", buf.String(), want)
	}
	if err := w.Write(&Record{JobID: "-1"}); err == nil {
		t.Error("a record with no JobID was written")
	}
}

func TestTopoOrderCycle(t *testing.T) {
	cases := []struct {
		preds       [][]int32
		order, loop []int32
	}{
		{nil, []int32{}, nil},
		{[][]int32{nil}, []int32{0}, nil},
		{[][]int32{{2}, nil, {1}}, []int32{1, 2, 0}, nil},
		{[][]int32{{0}}, nil, []int32{0}},
		{[][]int32{nil, {3}, {1}, {2}, {3}}, nil, []int32{1, 2, 3}},
	}
	for _, tc := range cases {
		order, loop := topoOrder(tc.preds)
		if !reflect.DeepEqual(order, tc.order) || !reflect.DeepEqual(loop, tc.loop) {
			t.Errorf("%v: order %v cycle %v, want %v %v", tc.preds, order, loop, tc.order, tc.loop)
		}
	}
}

// Mixing two workflow traces keeps every workflow whole: the tags go on
// workflow ids and dependencies as on job ids.
func TestWorkflowMix(t *testing.T) {
	var inputs []MixInput
	for _, tag := range []string{"a", "b"} {
		r, err := NewReader(strings.NewReader(workflowTrace), ReadOptions{Name: tag, Strict: true})
		if err != nil {
			t.Fatal(err)
		}
		inputs = append(inputs, MixInput{Reader: r, Tag: tag})
	}
	recs, err := drain(Mix(inputs))
	if err != nil {
		t.Fatal(err)
	}
	wfs, err := GroupWorkflows(recs)
	if err != nil || len(wfs) != 6 {
		t.Fatalf("%d workflows (%v)", len(wfs), err)
	}
	for _, w := range wfs {
		if w.ID == "b:0" && !reflect.DeepEqual(w.Preds, [][]int{nil, {0}, {0}, {1, 2}}) {
			t.Errorf("workflow b:0: %v", w.Preds)
		}
	}
}
