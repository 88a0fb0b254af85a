package gwa

import (
	"bufio"
	"bytes"
	"errors"
	"reflect"
	"strings"
	"testing"
)

// workflowView is what the variant's writer keeps of a record.
type workflowView struct {
	WorkflowID, JobID                      string
	SubmitTime, RunTime, NProcs, ReqNProcs float64
	Dependencies                           []string
}

func viewOf(recs []Record) []workflowView {
	out := make([]workflowView, len(recs))
	for i, r := range recs {
		out[i] = workflowView{r.WorkflowID, r.JobID, r.SubmitTime, r.RunTime, r.NProcs, r.ReqNProcs, r.Dependencies}
		if len(r.Dependencies) == 0 {
			out[i].Dependencies = nil
		}
	}
	return out
}

// checkWorkflowRead checks what the workflow reader read: counts that add
// up, every record in range and in a workflow whose predecessors are its
// own tasks, and records that survive the variant's writer.
func checkWorkflowRead(t *testing.T, r Reader, recs []Record, strict bool) {
	t.Helper()
	s := r.Stats()
	if s.Records != int64(len(recs)) || s.Records+s.Skipped > s.Lines || (strict && s.Skipped != 0) {
		t.Fatalf("strict=%v: stats %+v for %d records", strict, s, len(recs))
	}
	for i := range recs {
		if msg := checkRecord(&recs[i]); msg != "" || missingString(recs[i].WorkflowID) || missingString(recs[i].JobID) {
			t.Fatalf("record %d read but not sound (%s)\n%+v", i, msg, recs[i])
		}
	}
	wfs, err := GroupWorkflows(recs)
	if err != nil {
		t.Fatalf("the reader let a broken workflow through: %v", err)
	}
	n := 0
	for _, w := range wfs {
		n += len(w.Tasks)
		for k := range w.Tasks {
			if len(w.Preds[k]) != len(w.Tasks[k].Dependencies) {
				t.Fatalf("workflow %s task %s: %d predecessors of %v found", w.ID, w.Tasks[k].JobID, len(w.Preds[k]), w.Tasks[k].Dependencies)
			}
			for _, p := range w.Preds[k] {
				if p >= k {
					t.Fatalf("workflow %s: task %d after its successor %d", w.ID, p, k)
				}
			}
		}
	}
	if n != len(recs) {
		t.Fatalf("%d tasks grouped of %d", n, len(recs))
	}
	h := *r.Header()
	var buf bytes.Buffer
	w, err := NewWorkflowWriter(&buf, &h)
	if err != nil {
		t.Fatal(err)
	}
	writeAll(t, w, recs)
	back, err := NewReader(&buf, ReadOptions{Name: "back", Strict: true})
	if err != nil {
		t.Fatalf("reading back: %v\n%s", err, buf.String())
	}
	got, err := drain(back)
	if err != nil {
		t.Fatalf("reading back: %v\n%s", err, buf.String())
	}
	if !reflect.DeepEqual(viewOf(got), viewOf(recs)) || back.Header().UnixStartTime != h.UnixStartTime {
		t.Fatalf("changed by the writer:\n%+v\nwant\n%+v\n%s", viewOf(got), viewOf(recs), buf.String())
	}
}

// The workflow reader never panics; its only errors are positioned ones;
// what it reads is a set of sound workflows that its writer writes back as
// they were.
func FuzzWorkflowGWF(f *testing.F) {
	f.Add([]byte(workflowTrace))
	f.Add([]byte("WorkflowID,JobID,SubmitTime,RunTime,NProcs,ReqNProcs,Dependencies\n1,a,5,1,1,1,c\n1,b,5,1,1,1,a\n1,c,5,1,1,1,b\n2,a,1,1,1,1,\n"))
	f.Add([]byte("# UnixStartTime: 1136073600\nWorkflowID,JobID,SubmitTime,Dependencies\n\"w\\x2c1\",\"#a\",1136073700,\n\"w\\x2c1\",b,1136073601,\"#a\" \"#a\"\nx,y,z,\nx,z,0,y\n"))
	f.Add([]byte("\xef\xbb\xbfworkflow_id,job_id,submit_time,user_id,status\r\n1,1,0,u,9\r\n1,2,-5,u,1\r\n#late\r\n\r\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, strict := range []bool{false, true} {
			src := &lineSource{br: bufio.NewReaderSize(bytes.NewReader(data), 4096), name: "fuzz"}
			r, err := newWorkflowReader(src, ReadOptions{Name: "fuzz", Strict: strict})
			var pe *ParseError
			if err != nil {
				if !errors.As(err, &pe) {
					t.Fatalf("strict=%v: open: %v (%T)", strict, err, err)
				}
				continue
			}
			recs, err := drain(r)
			if err != nil {
				t.Fatalf("strict=%v: read after a clean open: %v", strict, err)
			}
			checkWorkflowRead(t, r, recs, strict)
		}
	})
}

// Records with any identifiers and any DAG the fuzzer draws are written
// and read back as they were; a record the writer refuses is one out of
// range.
func FuzzRoundTripWorkflow(f *testing.F) {
	f.Add("a\nb c\n#d\ne,f\n\"g\"\n\u00a0h", []byte{1, 0, 0, 0, 0, 2, 0, 0, 0, 1, 0, 0, 0, 0, 0x81}, []byte{0, 1, 3, 2, 7})
	f.Add("w\nx", []byte{}, []byte{255, 255, 255})
	f.Fuzz(func(t *testing.T, ids string, nums, edges []byte) {
		recs := fuzzRecords(ids, nums, 6)
		// Two workflows, tasks numbered within each so that JobIDs are
		// unique there; each task depends on earlier tasks of its workflow
		// as the edge bytes say.
		names := strings.Split(ids, "\n")
		var want []Record
		var buf bytes.Buffer
		w, _ := NewWorkflowWriter(&buf, &Header{MaxProcs: 4})
		for i := range recs {
			r := &recs[i]
			r.WorkflowID = "w" + names[i%2%len(names)]
			r.JobID = names[i%len(names)] + "#" + string(rune('0'+i))
			r.Dependencies = nil
			for k := i - 2; k >= 0; k -= 2 {
				if len(edges) > 0 && edges[(i*7+k)%len(edges)]&(1<<(k%8)) != 0 {
					r.Dependencies = append(r.Dependencies, recs[k].JobID)
				}
			}
			err := w.Write(r)
			if (err != nil) != (checkRecord(r) != "") {
				t.Fatalf("write: %v, but the range check says %q\n%+v", err, checkRecord(r), *r)
			}
			if err == nil {
				want = append(want, *r)
			}
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		r, err := NewReader(&buf, ReadOptions{Name: "back", Strict: true})
		if len(want) == 0 {
			return
		}
		if err != nil {
			// A dependency on a record the writer refused is unknown.
			if strings.Contains(err.Error(), "not a task of workflow") || strings.Contains(err.Error(), "not tasks of workflow") {
				return
			}
			t.Fatalf("%v\n%s", err, buf.String())
		}
		got, err := drain(r)
		if err != nil || !reflect.DeepEqual(viewOf(got), viewOf(want)) {
			t.Fatalf("read back (%v):\n%+v\nwant\n%+v\n%s", err, viewOf(got), viewOf(want), buf.String())
		}
	})
}
