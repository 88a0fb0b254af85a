package printers

import (
	"io"
	"testing"

	"github.com/gmark/gmark/workload"
)

// Printing alone, in memory: the co-allocated job for the per-job formats,
// the diamond for the DAG formats.

func benchmarkPrint(b *testing.B, format string, job func() *workload.Job) {
	p := mustLookup(b, format)
	j := job()
	b.ReportAllocs()
	for b.Loop() {
		if err := p.Print(io.Discard, j, Config{}); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkPrintRSL(b *testing.B)     { benchmarkPrint(b, "rsl", coallocJob) }
func BenchmarkPrintKoala(b *testing.B)   { benchmarkPrint(b, "koala", coallocJob) }
func BenchmarkPrintClassad(b *testing.B) { benchmarkPrint(b, "classad", coallocJob) }
func BenchmarkPrintSbatch(b *testing.B)  { benchmarkPrint(b, "sbatch", coallocJob) }
func BenchmarkPrintSGE(b *testing.B)     { benchmarkPrint(b, "sge", coallocJob) }
func BenchmarkPrintPBS(b *testing.B)     { benchmarkPrint(b, "pbs", coallocJob) }
func BenchmarkPrintDAGMan(b *testing.B)  { benchmarkPrint(b, "dagman", diamondJob) }
func BenchmarkPrintDot(b *testing.B)     { benchmarkPrint(b, "dot", diamondJob) }
