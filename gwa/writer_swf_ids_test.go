package gwa

import (
	"bytes"
	"testing"
)

// A stream that forgets its job ids after each job (a generated workload:
// ids unique, no record naming an earlier job's) is written exactly as
// without forgetting, the numbers given to ids that are not numbers stay
// taken (a decimal id that comes later is renumbered all the same), and
// the writer's table stays empty.
func TestSWFWriterForgetsJobIDs(t *testing.T) {
	ids := []string{"a-1", "a-2", "2", "7", "x", "3", "8", "b", "1"}
	write := func(forget bool) (string, int) {
		var b bytes.Buffer
		w, err := NewSWFWriter(&b)
		if err != nil {
			t.Fatal(err)
		}
		for i, id := range ids {
			r := NewRecord()
			r.JobID, r.SubmitTime = id, float64(i)
			if err := w.Write(&r); err != nil {
				t.Fatal(err)
			}
			if forget {
				w.ForgetJobIDs()
			}
		}
		w.Flush()
		return b.String(), len(w.jobs.ids)
	}
	kept, n := write(false)
	forgot, m := write(true)
	if kept != forgot {
		t.Errorf("forgetting changed the output:\n%s\nagainst\n%s", forgot, kept)
	}
	if n != 8 || m != 0 {
		t.Errorf("the table holds %d ids kept, %d forgotten; want 8 and 0", n, m)
	}
	// a-1 1, a-2 2, "2" taken: 3, 7, x 8, "3" taken: 9, "8" taken: 10, b 11, "1" taken: 12.
	for _, line := range []string{"; gmark-job: 3 2\n", "; gmark-job: 9 3\n", "; gmark-job: 10 8\n", "; gmark-job: 12 1\n", "\n7 3 "} {
		if !bytes.Contains([]byte(kept), []byte(line)) {
			t.Errorf("no %q in\n%s", line, kept)
		}
	}
}

func TestNumberRuns(t *testing.T) {
	var r numberRuns
	for _, n := range []int{1, 2, 3, 5, 9, 10} {
		r.add(n)
	}
	if len(r) != 3 {
		t.Errorf("runs %v", r)
	}
	for n := 0; n <= 11; n++ {
		want := n == 1 || n == 2 || n == 3 || n == 5 || n == 9 || n == 10
		if r.has(n) != want {
			t.Errorf("has(%d) = %v", n, !want)
		}
	}
}
