package printers

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/gmark/gmark/workload"
)

// The Sink's per-job mode must write at least half as many JDFs per second as
// the machine creates files of the same size in a plain loop. The two
// benchmarks below measure both in the same run, with the same file size and
// the same directory fan-out (benchUnits unit directories); compare their
// jobs/s.

const (
	benchFormat = "sbatch"
	benchUnits  = 16
)

// setBenchIdentity makes j the i-th job of a benchmark workload, spread over
// the units round-robin as a generator's units would interleave.
func setBenchIdentity(j *workload.Job, i int) {
	j.Unit = i % benchUnits
	j.Index = i / benchUnits
	j.ID = strconv.Itoa(j.Unit) + "-" + strconv.Itoa(j.Index)
}

func reportJobRate(b *testing.B) {
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "jobs/s")
}

func BenchmarkSinkOneFilePerJob(b *testing.B) {
	s, err := NewSink(b.TempDir(), []string{benchFormat}, false, Config{})
	if err != nil {
		b.Fatal(err)
	}
	j := singleJob()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		setBenchIdentity(j, i)
		if err := s.Write(j); err != nil {
			b.Fatal(err)
		}
	}
	if err := s.Close(); err != nil {
		b.Fatal(err)
	}
	reportJobRate(b)
}

func BenchmarkPlainFileCreate(b *testing.B) {
	dir := b.TempDir()
	p := mustLookup(b, benchFormat)
	j := singleJob()
	setBenchIdentity(j, 0)
	var sample bytes.Buffer
	if err := p.Print(&sample, j, Config{}); err != nil {
		b.Fatal(err)
	}
	data := bytes.Repeat([]byte{'x'}, sample.Len())
	for u := 0; u < benchUnits; u++ {
		if err := os.MkdirAll(filepath.Join(dir, workload.JDFDir, benchFormat, strconv.Itoa(u)), 0o755); err != nil {
			b.Fatal(err)
		}
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		unit, index := strconv.Itoa(i%benchUnits), strconv.Itoa(i/benchUnits)
		name := filepath.Join(dir, workload.JDFDir, benchFormat, unit, unit+"-"+index+"."+p.Ext())
		if err := os.WriteFile(name, data, 0o644); err != nil {
			b.Fatal(err)
		}
	}
	reportJobRate(b)
}

func BenchmarkSinkSingleFile(b *testing.B) {
	s, err := NewSink(b.TempDir(), []string{benchFormat}, true, Config{})
	if err != nil {
		b.Fatal(err)
	}
	j := singleJob()
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		setBenchIdentity(j, i)
		if err := s.Write(j); err != nil {
			b.Fatal(err)
		}
	}
	if err := s.Close(); err != nil {
		b.Fatal(err)
	}
	reportJobRate(b)
}
