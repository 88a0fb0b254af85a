package gwa

import (
	"encoding/json"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/gmark/gmark/stats/sampstat"
)

// analyseText analyses a text trace held in a string.
func analyseText(t *testing.T, text string, opts AnalysisOptions) *Analysis {
	t.Helper()
	r, err := NewReader(strings.NewReader(text), ReadOptions{Strict: true, Name: "t"})
	if err != nil {
		t.Fatal(err)
	}
	a, err := Analyze(r, opts, nil)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// Percentiles are exact, gmark's type 7 (numpy's default) as
// sampstat.Quantile computes it, within the memory budget: a p95 that is
// a cap of 259,200 s in the data is 259,200 (the sketch gave 259,132).
// Past the budget they come from the sketch, and the output says so.
func TestExactPercentiles(t *testing.T) {
	var text strings.Builder
	text.WriteString("; Version: 2.2\n; MaxProcs: 64\n")
	var runs []float64
	for i := 0; i < 101; i++ {
		run := 5000 + 100*float64(i)
		if i >= 95 {
			run = 259200 // the cap, from the 96th value on: h = 100 × 0.95 = 95
		}
		runs = append(runs, run)
		text.WriteString(swfJob(itoa(i+1), itoa(10*i), "0", ftoa(run), "1", "1", "1"))
	}
	a := analyseText(t, text.String(), AnalysisOptions{})
	rt := a.Distributions.RunTime
	if rt.P95.Value != 259200 || rt.Percentiles != PercentilesExact {
		t.Errorf("p95 %v (%s), want exactly 259200", rt.P95, rt.Percentiles)
	}
	if out := analysisText(a); !strings.Contains(out, "percentiles:  exact (type 7") {
		t.Errorf("the text does not say the percentiles are exact:\n%s", out)
	}
	sketched := analyseText(t, text.String(), AnalysisOptions{ExactBudget: -1})
	if s := sketched.Distributions.RunTime; s.Percentiles != PercentilesSketch || s.P95.Value == 259200 || math.Abs(s.P95.Value-259200) > 0.005*259200 {
		t.Errorf("past the budget: p95 %v (%s), want a sketch's, within 0.5%% of 259200", s.P95, s.Percentiles)
	}
	if out := analysisText(sketched); !strings.Contains(out, "percentiles:  from a sketch, within 0.5%, for run time") {
		t.Errorf("the text does not say the percentiles are a sketch's:\n%s", out)
	}
	b, _ := json.Marshal(sketched.Distributions.RunTime)
	if !strings.Contains(string(b), `"percentiles":"sketch"`) {
		t.Errorf("JSON %s", b)
	}

	// Random traces, with fractions, negative waits, zeros, whole numbers
	// past 4095 and repeated values: every percentile and the mean and
	// standard deviation as computed over the sorted values.
	rng := rand.New(rand.NewPCG(3, 14))
	for trial := 0; trial < 40; trial++ {
		var text strings.Builder
		var waits, runs []float64
		n := 1 + rng.IntN(300)
		for i := 0; i < n; i++ {
			wait := float64(rng.IntN(9000) - 500)
			if rng.IntN(3) == 0 {
				wait += 0.125
			}
			run := math.Floor(rng.ExpFloat64() * 3000)
			if rng.IntN(4) == 0 {
				run = 172800
			}
			waits, runs = append(waits, wait), append(runs, run)
			text.WriteString(swfJob(itoa(i+1), itoa(i), ftoa(wait), ftoa(run), "1", "1", "1"))
		}
		a := analyseText(t, text.String(), AnalysisOptions{})
		for _, c := range []struct {
			name string
			s    *Summary
			vals []float64
		}{{"wait", a.Distributions.Wait, waits}, {"run time", a.Distributions.RunTime, runs}} {
			slices.Sort(c.vals)
			for _, q := range []struct {
				p   float64
				got Stat
			}{{0.05, c.s.P5}, {0.25, c.s.P25}, {0.5, c.s.Median}, {0.75, c.s.P75}, {0.9, c.s.P90}, {0.95, c.s.P95}, {0.99, c.s.P99}} {
				if want := sampstat.Quantile(c.vals, q.p); q.got.Value != want {
					t.Fatalf("trial %d, %s: p%g = %v, want %v (type 7)", trial, c.name, 100*q.p, q.got, want)
				}
			}
			mean := 0.0
			for _, v := range c.vals {
				mean += v
			}
			mean /= float64(len(c.vals))
			if math.Abs(c.s.Mean.Value-mean) > 1e-9*math.Max(1, math.Abs(mean)) {
				t.Fatalf("trial %d, %s: mean %v, want %g", trial, c.name, c.s.Mean, mean)
			}
			for _, p := range c.s.CDF {
				i, _ := slices.BinarySearch(c.vals, math.Nextafter(p.Value, math.Inf(1)))
				if want := float64(i) / float64(len(c.vals)); p.P != want {
					t.Fatalf("trial %d, %s: CDF(%g) = %g, want %g", trial, c.name, p.Value, p.P, want)
				}
			}
		}
	}
}

// A system size that the jobs exceed (more processors in use at once than
// the header's MaxProcs) is said so, with the measured peak, offered as
// the size; before, the hourly utilization passed 100% without a word.
func TestSizeTheJobsExceed(t *testing.T) {
	text := "; Version: 2.2\n; MaxProcs: 4\n" +
		swfJob("1", "0", "0", "3600", "4", "1", "1") +
		swfJob("2", "0", "0", "3600", "2", "2", "1") +
		swfJob("3", "7200", "0", "60", "1", "1", "1")
	a := analyseText(t, text, AnalysisOptions{})
	u := a.Utilization
	if u.PeakProcessors != 6 || u.Processors != 4 || len(a.Warnings) != 1 {
		t.Fatalf("peak %g of %d processors, warnings %q", u.PeakProcessors, u.Processors, a.Warnings)
	}
	for _, want := range []string{"up to 6 processors at once (at 0 s), more than the 4 of the system size (header MaxProcs)", "the busiest hour 150%", "--procs 6 takes the measured peak"} {
		if !strings.Contains(a.Warnings[0], want) {
			t.Errorf("warning %q does not say %q", a.Warnings[0], want)
		}
	}
	if out := analysisText(a); !strings.Contains(out, "  warning:      the jobs use up to 6 processors") {
		t.Errorf("text:\n%s", out)
	}
	page := false
	for _, row := range pageSummary(a) {
		page = page || row[0] == "warning" && strings.Contains(row[1], "--procs 6 takes the measured peak")
	}
	if !page {
		t.Errorf("the trace page does not carry the warning: %q", pageSummary(a))
	}
	// With the measured peak as the size, nothing to say.
	if a := analyseText(t, text, AnalysisOptions{Processors: 6}); len(a.Warnings) != 0 {
		t.Errorf("--procs 6: %q", a.Warnings)
	}
	// An estimated size is the peak: never exceeded.
	if a := analyseText(t, strings.Replace(text, "; MaxProcs: 4\n", "", 1), AnalysisOptions{}); len(a.Warnings) != 0 || a.Utilization.Processors != 6 {
		t.Errorf("estimated: %d processors, %q", a.Utilization.Processors, a.Warnings)
	}
}

// A workflow trace's last end is when its last task could end with its
// dependencies: a task starts when its predecessors have ended, not at its
// submission (before: the latest submit plus run, 100 s here, not 175).
func TestWorkflowLastEnd(t *testing.T) {
	text := "WorkflowID,JobID,SubmitTime,RunTime,NProcs,ReqNProcs,Dependencies\n" +
		"1,c,0,25,1,1,b\n" +
		"1,a,0,100,1,1,\n" +
		"1,b,0,50,1,1,a\n" +
		"2,a,10,20,1,1,\n"
	a := analyseText(t, text, AnalysisOptions{})
	if v := a.Totals.LastEnd; v.Value != 175 {
		t.Errorf("last end %v, want 175 (a, then b, then c)", v)
	}
	if g := a.Totals.Goodput; !g.OK() {
		t.Errorf("goodput %v", g)
	}
}

// Without a time base there is no hour of day nor weekday to report; the
// span line writes every time as a plain number of seconds (before:
// "599850..2.9363618e+07 s").
func TestRelativeTraceText(t *testing.T) {
	text := "; Version: 2.2\n; MaxProcs: 8\n" +
		swfJob("1", "599850", "0", "100", "1", "1", "1") +
		swfJob("2", "29363518", "0", "100.5", "1", "1", "1")
	out := analysisText(analyseText(t, text, AnalysisOptions{}))
	if strings.Contains(out, "busiest weekday") || strings.Contains(out, "busiest hour of day") || !strings.Contains(out, "no time base: no hour of day or weekday") {
		t.Errorf("a trace without a time base reports hours or weekdays:\n%s", out)
	}
	if !strings.Contains(out, "(submits 599850..29363518 s), last job ends at 29363618.5 s") {
		t.Errorf("span line:\n%s", out)
	}
	based := analysisText(analyseText(t, "; UnixStartTime: 1200000000\n"+text, AnalysisOptions{}))
	if !strings.Contains(based, "busiest weekday") {
		t.Errorf("a trace with a time base:\n%s", based)
	}
}

// The bags-of-tasks statistics are exact too.
func TestBoTPercentilesExact(t *testing.T) {
	var text strings.Builder
	for i := 0; i < 50; i++ {
		text.WriteString(swfJob(itoa(i+1), itoa(10*i), "0", ftoa(100.5+float64(i)), "1", itoa(1+i%3), "1"))
	}
	r, err := NewReader(strings.NewReader(text.String()), ReadOptions{Strict: true})
	if err != nil {
		t.Fatal(err)
	}
	res, err := AnalyzeBoTs(r, []float64{60}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if s := res[0].MeanRunTime; s.Count == 0 || s.Percentiles != PercentilesExact {
		t.Errorf("mean run time per batch: %d values, percentiles %q", s.Count, s.Percentiles)
	}
}
