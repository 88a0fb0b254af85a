package gwa

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gmark/gmark/workload"
)

type failAfter struct{ n int }

func (f *failAfter) Write(p []byte) (int, error) {
	if f.n -= len(p); f.n < 0 {
		return 0, errors.New("disk full")
	}
	return len(p), nil
}

// The pipe refuses a record the format cannot hold as it is added (its job
// is the caller's to place), and reports a write that failed on its
// goroutine at the next add or at close.
func TestTracePipeErrors(t *testing.T) {
	sw, err := NewSWFWriter(&failAfter{n: 1 << 30})
	if err != nil {
		t.Fatal(err)
	}
	p := newTracePipe(nil, sw)
	bad := NewRecord()
	bad.JobID, bad.SubmitTime = "1", 1e300
	if err := p.add([]Record{bad}); !errors.Is(err, ErrOutOfRange) {
		t.Errorf("an out-of-range record: %v", err)
	}
	if err := p.close(); err != nil {
		t.Errorf("close after a refused record: %v", err)
	}
	sw, _ = NewSWFWriter(&failAfter{n: 100 << 10})
	p = newTracePipe(nil, sw)
	var got error
	for i := 0; i < 20000 && got == nil; i++ {
		r := NewRecord()
		r.JobID, r.SubmitTime = "1", float64(i)
		got = p.add([]Record{r})
	}
	if err := p.close(); err == nil && got == nil {
		t.Error("a failing writer's error was lost")
	}
	sw.Flush()
}

// A job refused by the direct path (TraceSink with GWF and SWF only, its
// records made in the pipe's batch) leaves nothing of it in the batch: the
// traces hold the jobs before and after it, not it.
func TestTraceSinkRefusedJobLeavesNoRecord(t *testing.T) {
	dir := t.TempDir()
	ts, err := NewTraceSink(dir, []string{"gwf", "swf"}, "note", 0)
	if err != nil {
		t.Fatal(err)
	}
	job := func(id string, submit time.Duration) *workload.Job {
		return &workload.Job{ID: id, Kind: workload.Unitary, Submit: submit, RunTime: time.Second,
			Components: []workload.Component{{Site: workload.AnySite, Count: 2}}}
	}
	if err := ts.Write(job("a-1", time.Second)); err != nil {
		t.Fatal(err)
	}
	if err := ts.Write(job("b-2", 21*365*24*time.Hour)); !errors.Is(err, ErrOutOfRange) {
		t.Fatalf("a submit offset of 21 years: %v, want ErrOutOfRange", err)
	}
	if err := ts.Write(job("c-3", 2*time.Second)); err != nil {
		t.Fatal(err)
	}
	if err := ts.Close(); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"workload.gwf", "workload.swf"} {
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		records := 0
		for _, l := range strings.Split(strings.TrimSpace(string(b)), "\n") {
			if l[0] != '#' && l[0] != ';' {
				records++
			}
		}
		if s := string(b); records != 2 || !strings.Contains(s, "a-1") || !strings.Contains(s, "c-3") || strings.Contains(s, "b-2") {
			t.Errorf("%s: %d records, want those of a-1 and c-3 only:\n%s", name, records, s)
		}
	}
}
