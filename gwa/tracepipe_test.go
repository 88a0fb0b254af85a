package gwa

import (
	"errors"
	"testing"
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
