package gwa

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"
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
		return b.String(), len(w.jobs.few) + len(w.jobs.ids)
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

// More renumbered ids than the writer's short list holds (a composite
// job's tasks) keep their numbers when named again, from the list or the
// map: each task's preceding job is the number the task before it got, and
// forgetting after the job empties both.
func TestSWFWriterManyJobIDs(t *testing.T) {
	var b bytes.Buffer
	w, err := NewSWFWriter(&b)
	if err != nil {
		t.Fatal(err)
	}
	const n = 3*fewJobIDs + 1
	for i := 0; i < n; i++ {
		r := NewRecord()
		r.JobID, r.SubmitTime = fmt.Sprintf("t-%d", i), float64(i)
		if i > 0 {
			r.PrecedingJob = fmt.Sprintf("t-%d", i-1)
		}
		if err := w.Write(&r); err != nil {
			t.Fatal(err)
		}
	}
	// the first task again, by its id: its number, not a new one
	r := NewRecord()
	r.JobID, r.PrecedingJob, r.SubmitTime = "t-last", "t-0", n
	if err := w.Write(&r); err != nil {
		t.Fatal(err)
	}
	w.ForgetJobIDs()
	if len(w.jobs.few)+len(w.jobs.ids) != 0 {
		t.Errorf("%d ids kept after ForgetJobIDs", len(w.jobs.few)+len(w.jobs.ids))
	}
	w.Flush()
	var lines []string
	for _, l := range strings.Split(b.String(), "\n") {
		if l != "" && l[0] != ';' {
			lines = append(lines, l)
		}
	}
	if len(lines) != n+1 {
		t.Fatalf("%d records, want %d", len(lines), n+1)
	}
	for i, l := range lines {
		f := strings.Fields(l)
		want := strconv.Itoa(i)
		switch i {
		case 0:
			want = "-1"
		case n:
			want = "1"
		}
		if f[0] != strconv.Itoa(i+1) || f[16] != want {
			t.Errorf("record %d: job %s, preceding %s; want %d, %s", i, f[0], f[16], i+1, want)
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
