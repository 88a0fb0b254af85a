package gwa

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/gmark/gmark/internal/heappeak"
)

// syntheticWorkflows are n tasks in workflows of size tasks each: layered
// DAGs of width 10 (every task depends on two tasks of the level above),
// with run times, sizes, users and files; the shapes the readers must
// carry.
func syntheticWorkflows(n, size int, files bool) []Record {
	recs := make([]Record, 0, n)
	for i := 0; i < n; i++ {
		w, k := i/size, i%size
		r := NewRecord()
		r.WorkflowID, r.JobID = fmt.Sprint(w), fmt.Sprint(i)
		r.SubmitTime, r.RunTime, r.WaitTime = float64(w*60), float64(1+i%97), float64(k/10*100)
		r.ReqNProcs, r.UserID = float64(1+i%4), fmt.Sprint(w%13)
		if k >= 10 {
			r.Dependencies = []string{fmt.Sprint(i - 10), fmt.Sprint(i - 10 - (k % 10 / 5))}
		}
		if files {
			r.ExecutableID = "task"
			r.Files = []TaskFile{{Name: fmt.Sprintf("in%d", i%50), Size: 1 << 20}, {Name: fmt.Sprintf("out%d", i), Size: 4096, Output: true}}
		}
		recs = append(recs, r)
	}
	return recs
}

// writeBenchTrace writes recs in format f at path (once per process).
func writeBenchTrace(b *testing.B, path string, f Format, recs []Record) {
	b.Helper()
	if _, err := os.Stat(path); err == nil {
		return
	}
	h := &Header{UnixStartTime: 1700000000, AbsoluteBase: true}
	if _, err := WriteTrace(path, f, h, &sliceReader{recs: recs}, nil); err != nil {
		b.Fatal(err)
	}
}

func benchRead(b *testing.B, path string, want int) {
	b.Helper()
	var size int64
	filepath.Walk(path, func(_ string, fi os.FileInfo, _ error) error {
		if fi != nil && !fi.IsDir() {
			size += fi.Size()
		}
		return nil
	})
	b.SetBytes(size)
	b.ResetTimer()
	var peak uint64
	for b.Loop() {
		peak = max(peak, heappeak.During(func() {
			r, err := Open(path, ReadOptions{Strict: true})
			if err != nil {
				b.Fatal(err)
			}
			n, err := ForEach(r, func(*Record) error { return nil })
			r.Close()
			if err != nil || n != int64(want) {
				b.Fatalf("%d records: %v", n, err)
			}
		}))
	}
	b.ReportMetric(float64(peak)/(1<<20), "peak-heap-MB")
}

// BenchmarkReadWTA100k reads a WTA trace of 100,000 tasks (1,000
// workflows of 100), written by gmark in the archive's schema.
func BenchmarkReadWTA100k(b *testing.B) {
	path := filepath.Join(os.TempDir(), "gmark-bench-wta-100k")
	writeBenchTrace(b, path, WTA, syntheticWorkflows(100000, 100, false))
	benchRead(b, path, 100000)
}

// BenchmarkReadWfFormat10k reads a WfFormat instance of 10,000 tasks, with
// two files a task.
func BenchmarkReadWfFormat10k(b *testing.B) {
	path := filepath.Join(os.TempDir(), "gmark-bench-wfformat-10k.json")
	writeBenchTrace(b, path, WfFormat, syntheticWorkflows(10000, 10000, true))
	benchRead(b, path, 10000)
}
