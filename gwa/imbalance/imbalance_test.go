package imbalance

import (
	"bytes"
	"math"
	"strconv"
	"strings"
	"testing"

	"github.com/gmark/gmark/gwa"
)

// swf is an SWF trace of jobs "submit wait run procs partition" (one a
// line), after the header lines.
func swf(t *testing.T, header string, jobs ...string) gwa.Reader {
	t.Helper()
	var b strings.Builder
	b.WriteString("; Version: 2.2\n" + header)
	for i, j := range jobs {
		f := strings.Fields(j)
		// job submit wait run procs cpu mem reqprocs reqtime reqmem status user group exe queue partition prev think
		b.WriteString(strings.Join([]string{itoa(i + 1), f[0], f[1], f[2], f[3], "-1", "-1", f[3], "-1", "-1", "1", "1", "1", "-1", "-1", f[4], "-1", "-1"}, " ") + "\n")
	}
	r, err := gwa.NewReader(strings.NewReader(b.String()), gwa.ReadOptions{Strict: true, Name: "t.swf"})
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func itoa(n int) string { return strconv.Itoa(n) }

// The hand-worked case. Partitions A (4 processors), B (2), C (no size:
// its one job of 1 processor makes its estimated size 1). Arrivals, a job
// of n processors counting n:
//
//	hour 0 (0 s, 10 s, 3,599 s): A 2 + 1 = 3, B 1           → 3:1 (A:B); C none
//	hour 1 (3,600 s, 3,700 s):   A 1, B 3                   → 3:1 (B:A); C none
//	hour 24 (day 1):             A 4, C 1                   → 4:1 (A:C); B none
//
// Temporary imbalance 4:1 (A against C, in hour 24); every hour has a
// group without arrivals (3 one-sided hours). Cumulative normalized
// loads: day 0 A 4/4 = 1, B 4/2 = 2 (C none: not compared) → 2:1, B:A;
// day 1 A 8/4 = 2, B 2, C 1/1 = 1 → overall 2:1 (A, the first of the
// largest, against C). Counting jobs (NoSplit): hour 0 A 2, B 1 → 2:1, the
// largest.
func TestHandWorkedCase(t *testing.T) {
	jobs := []string{
		"0 0 100 2 1", "10 0 100 1 2", "3599 0 10 1 1",
		"3600 0 10 1 1", "3700 0 10 3 2",
		"86405 0 50 1 3", "86410 0 10 4 1",
	}
	hdr := "; Partition: 1 A\n; Partition: 2 B\n; Partition: 3 C\n"
	res, skipped, err := Analyze([]Trace{{Name: "t", Reader: swf(t, hdr, jobs...)}}, Options{By: ByPartition, Sizes: map[string]int{"A": 4, "B": 2}})
	if err != nil || skipped != 0 {
		t.Fatal(err, skipped)
	}
	type g struct {
		name           string
		procs          int
		est            bool
		jobs           int64
		arrivals, load float64
		peak           string
		peakN          float64
	}
	want := []g{{"A", 4, false, 4, 8, 2, "+86400s", 4}, {"B", 2, false, 2, 4, 2, "+3600s", 3}, {"C", 1, true, 1, 1, 1, "+86400s", 1}}
	for k, w := range want {
		x := res.Groups[k]
		got := g{x.Name, x.Processors, x.Estimated, x.Jobs, x.Arrivals, x.Load, x.PeakHour, x.PeakHourArrivals}
		if got != w {
			t.Errorf("group %d: %+v, want %+v", k, got, w)
		}
	}
	check := func(what string, r Ratio, ratio float64, hi, lo, at string) {
		t.Helper()
		if math.Abs(r.Ratio-ratio) > 1e-12 || r.High != hi || r.Low != lo || r.At != at {
			t.Errorf("%s: %+v, want %g:1 %s against %s at %s", what, r, ratio, hi, lo, at)
		}
	}
	check("overall", res.Overall, 2, "A", "C", "+86400s")
	check("temporary", res.Temporary, 4, "A", "C", "+86400s")
	if len(res.Days) != 2 {
		t.Fatalf("%d days, want 2", len(res.Days))
	}
	check("day 0", res.Days[0].Imbalance, 2, "B", "A", "+0s")
	if res.HoursWithJobs != 3 || res.OneSidedHours != 3 || len(res.Hours) != 3 {
		t.Errorf("%d hours with arrivals, %d one-sided, %d listed; want 3, 3, 3", res.HoursWithJobs, res.OneSidedHours, len(res.Hours))
	}
	check("hour 1", res.Hours[1].Imbalance, 3, "B", "A", "+3600s")

	jobsOnly, _, _ := Analyze([]Trace{{Name: "t", Reader: swf(t, hdr, jobs...)}}, Options{By: ByPartition, NoSplit: true, Sizes: map[string]int{"A": 4, "B": 2, "C": 1}})
	check("temporary, jobs counted", jobsOnly.Temporary, 2, "A", "B", "+0s")
	// Day 1: A 4 jobs / 4, B 2 / 2, C 1 / 1: all 1, 1:1 (the first of the
	// largest against the last of the smallest).
	check("overall, jobs counted", jobsOnly.Overall, 1, "A", "C", "+86400s")

	var text bytes.Buffer
	WriteText(&text, res)
	for _, s := range []string{"overall imbalance at the end (+86400s): 2.0:1", "temporary imbalance (largest hourly ratio, both with arrivals): 4.0:1", "1 (est.)"} {
		if !strings.Contains(text.String(), s) {
			t.Errorf("text lacks %q:\n%s", s, text.String())
		}
	}
}

// Hours and days are the clock's of the trace's time zone: a trace that
// starts at midnight of 2005-06-04 in Amsterdam (22:00 UTC the day
// before) has its arrivals 14 h in within 2–3 pm of 2005-06-04, the
// thesis's hour (over a thousand jobs at one cluster, one at another):
// 1,001:1.
func TestClockHours(t *testing.T) {
	hdr := "; UnixStartTime: 1117836000\n; TimeZoneString: Europe/Amsterdam\n"
	res, _, err := Analyze([]Trace{{Name: "t", Reader: swf(t, hdr, "50400 0 60 1001 2", "50460 0 60 1 5", "0 0 60 1 2")}},
		Options{By: ByPartition, Sizes: map[string]int{"2": 64, "5": 64}})
	if err != nil {
		t.Fatal(err)
	}
	if r := res.Temporary; r.Ratio != 1001 || r.High != "2" || r.Low != "5" || r.At != "2005-06-04T14:00+02:00" {
		t.Errorf("temporary %+v, want 1001:1, 2 against 5, in the hour from 2005-06-04T14:00+02:00", r)
	}
	if len(res.Days) != 1 || res.Days[0].Day != "2005-06-04" {
		t.Errorf("days %+v, want one: 2005-06-04", res.Days)
	}
}

// Degenerate input: one group (no pair: no ratio), a group without a
// site (skipped and counted), sizes below 1 and a bad grouping refused.
func TestDegenerate(t *testing.T) {
	res, skipped, err := Analyze([]Trace{{Name: "t", Reader: swf(t, "", "0 0 10 1 1", "5 0 10 1 -1", "7 0 10 2 1")}}, Options{By: ByPartition})
	if err != nil {
		t.Fatal(err)
	}
	if skipped != 1 || len(res.Groups) != 1 || res.Overall.Ratio != 0 || res.Temporary.Ratio != 0 || res.OneSidedHours != 0 {
		t.Errorf("skipped %d, groups %d, overall %+v, temporary %+v, one-sided %d", skipped, len(res.Groups), res.Overall, res.Temporary, res.OneSidedHours)
	}
	var text bytes.Buffer
	WriteText(&text, res)
	if !strings.Contains(text.String(), "none (fewer than two groups") {
		t.Errorf("text:\n%s", text.String())
	}
	if _, err := New(Options{By: "cluster"}, 0); err == nil {
		t.Error("grouping by cluster accepted")
	}
	if _, err := New(Options{Sizes: map[string]int{"a": 0}}, 0); err == nil {
		t.Error("a size of 0 accepted")
	}
	if _, _, err := Analyze(nil, Options{}); err == nil {
		t.Error("no trace accepted")
	}
	for _, bad := range []string{"a", "a=", "=3", "a=0", "a=x", "a=-2"} {
		if _, err := ParseSizes([]string{bad}); err == nil {
			t.Errorf("size %q accepted", bad)
		}
	}
	if m, err := ParseSizes([]string{"fs0=144,fs1=64", "fs2=64"}); err != nil || m["fs0"] != 144 || m["fs2"] != 64 || len(m) != 3 {
		t.Errorf("ParseSizes: %v, %v", m, err)
	}
}

// By trace: each input trace is a group; a second trace with its own time
// base is shifted onto the first's.
func TestByTrace(t *testing.T) {
	a := swf(t, "; UnixStartTime: 1000000\n", "0 0 10 1 1", "100 0 10 1 1")
	b := swf(t, "; UnixStartTime: 1003600\n", "0 0 10 3 1")
	res, _, err := Analyze([]Trace{{Name: "das2", Reader: a}, {Name: "g5k", Reader: b}}, Options{By: ByTrace, Sizes: map[string]int{"das2": 1, "g5k": 1}})
	if err != nil {
		t.Fatal(err)
	}
	// das2's two arrivals fall in the hour of 1,000,000 s (from 997,200 s),
	// g5k's three an hour later: two one-sided hours, no temporary ratio;
	// overall 3:2.
	if len(res.Hours) != 2 || res.OneSidedHours != 2 || res.Temporary.Ratio != 0 || res.Overall.Ratio != 1.5 || res.Overall.High != "g5k" {
		t.Errorf("hours %d, one-sided %d, temporary %+v, overall %+v", len(res.Hours), res.OneSidedHours, res.Temporary, res.Overall)
	}
}

func FuzzParseSizes(f *testing.F) {
	for _, s := range []string{"fs0=144", "a=1,b=2", "=", "a=-1", "a=99999999999", " x = 3 ,"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		m, err := ParseSizes([]string{s})
		if err != nil {
			return
		}
		for name, n := range m {
			if name == "" || n < 1 {
				t.Fatalf("%q: size %q = %d accepted", s, name, n)
			}
		}
	})
}
