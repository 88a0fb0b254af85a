package gwa

import (
	"bufio"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gmark/gmark/internal/heappeak"
	"github.com/gmark/gmark/internal/testkit"
)

// The speed targets, measured here on the real LCG trace (quote them
// with `go test -run '^$' -bench . -benchtime 10x ./gwa/`):
//   - parsing LCG.swf.gz at >= 150 MB/s of uncompressed input;
//   - the full `trace stats` analysis of LCG in under 1 s;
//   - both compared with `zcat LCG.swf.gz | wc -l` timed in the same run.

// zcatWc times the shell pipeline once.
func zcatWc(b *testing.B, path string) time.Duration {
	for _, tool := range []string{"sh", "zcat", "wc"} {
		if _, err := exec.LookPath(tool); err != nil {
			b.Skipf("%s is not installed", tool)
		}
	}
	start := time.Now()
	if out, err := exec.Command("sh", "-c", "zcat "+path+" | wc -l").Output(); err != nil {
		b.Fatalf("zcat | wc: %v %s", err, out)
	}
	return time.Since(start)
}

// BenchmarkParseLCG reads every record of LCG.swf.gz; it reports MB/s of
// uncompressed input, and the ratio of its time to zcat | wc -l's.
func BenchmarkParseLCG(b *testing.B) {
	path := testkit.LCG(b)
	var bytes int64
	var parse, zcat time.Duration
	for i := 0; i < b.N; i++ {
		start := time.Now()
		r, err := Open(path, ReadOptions{Strict: true})
		if err != nil {
			b.Fatal(err)
		}
		for {
			if _, err := r.Next(); err != nil {
				if err != io.EOF {
					b.Fatal(err)
				}
				break
			}
		}
		bytes = r.Stats().Bytes
		r.Close()
		parse += time.Since(start)
		b.StopTimer()
		zcat += zcatWc(b, path)
		b.StartTimer()
	}
	b.SetBytes(bytes)
	b.ReportMetric(float64(bytes)*float64(b.N)/parse.Seconds()/1e6, "MB/s-parse")
	b.ReportMetric(zcat.Seconds()*1000/float64(b.N), "ms-zcat|wc")
	b.ReportMetric(parse.Seconds()/zcat.Seconds(), "x-zcat|wc")
}

// BenchmarkStatsLCG is `gmark trace stats LCG.swf.gz` without the printing:
// read, analyse everything (CDFs included), and summarize.
func BenchmarkStatsLCG(b *testing.B) {
	path := testkit.LCG(b)
	var stats, zcat time.Duration
	for i := 0; i < b.N; i++ {
		start := time.Now()
		r, err := Open(path, ReadOptions{})
		if err != nil {
			b.Fatal(err)
		}
		if _, err := Analyze(r, AnalysisOptions{}, nil); err != nil {
			b.Fatal(err)
		}
		r.Close()
		stats += time.Since(start)
		b.StopTimer()
		zcat += zcatWc(b, path)
		b.StartTimer()
	}
	b.ReportMetric(stats.Seconds()*1000/float64(b.N), "ms-stats")
	b.ReportMetric(zcat.Seconds()*1000/float64(b.N), "ms-zcat|wc")
	b.ReportMetric(stats.Seconds()/zcat.Seconds(), "x-zcat|wc")
}

// BenchmarkParseSWFUncompressed parses SWF text already in memory: the
// parser alone, without gzip or analysis.
func BenchmarkParseSWFUncompressed(b *testing.B) {
	src := &synthTrace{n: 200000}
	data, _ := io.ReadAll(src)
	b.SetBytes(int64(len(data)))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		r, err := NewReader(bytesReader(data), ReadOptions{Strict: true})
		if err != nil {
			b.Fatal(err)
		}
		for {
			if _, err := r.Next(); err != nil {
				if err != io.EOF {
					b.Fatal(err)
				}
				break
			}
		}
	}
}

// BenchmarkAnalyzeSWFUncompressed is the parser and the full analysis on SWF
// text in memory.
func BenchmarkAnalyzeSWFUncompressed(b *testing.B) {
	data, _ := io.ReadAll(&synthTrace{n: 200000})
	b.SetBytes(int64(len(data)))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		r, err := NewReader(bytesReader(data), ReadOptions{Strict: true})
		if err != nil {
			b.Fatal(err)
		}
		if _, err := Analyze(r, AnalysisOptions{}, nil); err != nil {
			b.Fatal(err)
		}
	}
}

// synthTrace generates an SWF trace of n jobs on the fly, without holding
// it: 1,000 users in 50 groups on 100 partitions, submit gaps of 0-9 s, run
// times up to a day, 1-64 processors.
type synthTrace struct {
	n, i int
	t    int64
	x    uint64
	buf  []byte
	off  int
}

func (s *synthTrace) rnd() uint64 {
	s.x = s.x*6364136223846793005 + 1442695040888963407
	return s.x >> 33
}

func (s *synthTrace) Read(p []byte) (int, error) {
	if s.i == 0 && s.buf == nil {
		s.buf = append(s.buf, "; Version: 2.2\n; UnixStartTime: 1200000000\n; MaxProcs: 4096\n"...)
	}
	for s.off == len(s.buf) {
		if s.i >= s.n {
			return 0, io.EOF
		}
		s.buf, s.off = s.buf[:0], 0
		for k := 0; k < 256 && s.i < s.n; k++ {
			s.i++
			s.t += int64(s.rnd() % 10)
			procs := 1 << (s.rnd() % 7)
			b := strconv.AppendInt(s.buf, int64(s.i), 10)
			b = append(b, ' ')
			b = strconv.AppendInt(b, s.t, 10)
			b = append(b, ' ')
			b = strconv.AppendInt(b, int64(s.rnd()%600), 10)
			b = append(b, ' ')
			b = strconv.AppendInt(b, int64(s.rnd()%86400), 10)
			b = append(b, ' ')
			b = strconv.AppendInt(b, int64(procs), 10)
			b = append(b, " -1 "...)
			b = strconv.AppendInt(b, int64(s.rnd()%100000), 10)
			b = append(b, ' ')
			b = strconv.AppendInt(b, int64(procs), 10)
			b = append(b, " 86400 -1 "...)
			b = strconv.AppendInt(b, int64(s.rnd()%2), 10)
			b = append(b, ' ')
			u := s.rnd() % 1000
			b = strconv.AppendInt(b, int64(u+1), 10)
			b = append(b, ' ')
			b = strconv.AppendInt(b, int64(u%50+1), 10)
			b = append(b, " -1 1 "...)
			b = strconv.AppendInt(b, int64(s.rnd()%100+1), 10)
			b = append(b, " -1 -1\n"...)
			s.buf = b
		}
	}
	n := copy(p, s.buf[s.off:])
	s.off += n
	return n, nil
}

type byteReader struct {
	b   []byte
	off int
}

func bytesReader(b []byte) *byteReader { return &byteReader{b: b} }

func (r *byteReader) Read(p []byte) (int, error) {
	if r.off >= len(r.b) {
		return 0, io.EOF
	}
	n := copy(p, r.b[r.off:])
	r.off += n
	return n, nil
}

// TestTenMillionJobsBoundedMemory analyses a synthesized trace of 10^7 jobs
// streamed from memory (never written out) past a budget of exact
// statistics of 8 MiB, and checks that the live heap stays as small as for
// 10^5 jobs (kept exactly within that budget): past the budget the analysis
// keeps per-user, per-site and time-binned state and bounded sketches,
// never per-job state.
func TestTenMillionJobsBoundedMemory(t *testing.T) {
	if testing.Short() {
		t.Skip("analyses 10^7 jobs; skipped with -short")
	}
	const budget = 8 << 20
	small, a := analyseSynth(t, 100_000, budget)
	if a.Distributions.RunTime.Percentiles != PercentilesExact {
		t.Errorf("10^5 jobs within %d bytes: percentiles %q, want exact", budget, a.Distributions.RunTime.Percentiles)
	}
	big, a := analyseSynth(t, 10_000_000, budget)
	if a.Distributions.RunTime.Percentiles != PercentilesSketch || strings.Contains(strings.Join(a.Warnings, " "), "submit order") || !a.Distributions.InterArrival.Median.OK() {
		t.Errorf("10^7 jobs past %d bytes: percentiles %q, warnings %q, inter-arrival median %v; want a sketch, no warning (the trace is in submit order), a median",
			budget, a.Distributions.RunTime.Percentiles, a.Warnings, a.Distributions.InterArrival.Median)
	}
	t.Logf("peak live heap: %.1f MB for 10^5 jobs, %.1f MB for 10^7 jobs (%d users, %d sites, %.0f days, run-time median %g s)",
		float64(small)/1e6, float64(big)/1e6, a.Totals.Users, a.Totals.Sites, a.Totals.Span.Value/86400, a.Distributions.RunTime.Median.Value)
	// Headroom of twice the exact budget: at the switch to the sketch the
	// exact values (up to budget, in a slice that doubles as it grows) are
	// still live beside the sketch, and a sample can catch that instant (a
	// peak of 35.2 MB against a bound of 35.0 once). Per-job state of 10^7
	// jobs would be 80 MB for one float64 per job, far past it.
	if big > 2*small+16<<20+2*budget {
		t.Errorf("heap grows with the trace: %d bytes for 10^5 jobs, %d for 10^7", small, big)
	}
}

// analyseSynth analyses synthTrace of n jobs with an exact budget (bytes)
// and returns the peak live heap and the analysis.
func analyseSynth(t testing.TB, n int, budget int64) (uint64, *Analysis) {
	t.Helper()
	var a *Analysis
	var err error
	peak := heappeak.During(func() {
		var r Reader
		if r, err = NewReader(bufio.NewReaderSize(&synthTrace{n: n}, 1<<16), ReadOptions{Strict: true, Name: "synth"}); err == nil {
			a, err = Analyze(r, AnalysisOptions{ExactBudget: budget}, nil)
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	if a.Totals.Jobs != int64(n) {
		t.Fatalf("analysed %d jobs, want %d", a.Totals.Jobs, n)
	}
	return peak, a
}

// BenchmarkExactPercentiles analyses a synthesized trace of 10^7 jobs
// (-benchtime 1x; GMARK_BENCH_JOBS sets another size) with the default
// budget of exact statistics: every percentile exact. It reports the peak
// live heap, and the bytes per job, that docs/trace.md quotes.
func BenchmarkExactPercentiles(b *testing.B) {
	n := 10_000_000
	if v, err := strconv.Atoi(os.Getenv("GMARK_BENCH_JOBS")); err == nil && v > 0 {
		n = v
	}
	var peak uint64
	for i := 0; i < b.N; i++ {
		p, a := analyseSynth(b, n, 0)
		if a.Distributions.RunTime.Percentiles != PercentilesExact {
			b.Fatalf("percentiles %q, want exact", a.Distributions.RunTime.Percentiles)
		}
		peak = max(peak, p)
	}
	b.ReportMetric(float64(peak)/1e6, "MB-peak-heap")
	b.ReportMetric(float64(peak)/float64(n), "B/job")
}
