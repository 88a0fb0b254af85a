package gwa

import (
	"fmt"
	"math"
	"sort"
	"strings"
	"testing"

	"github.com/gmark/gmark/stats/sampstat"
)

// trace builds an SWF text from (submit, run, procs, user, partition, status) rows.
func trace(rows ...[6]float64) string {
	var b strings.Builder
	b.WriteString("; UnixStartTime: 1000000000\n; Partition: 1 alpha\n; Partition: 2 beta\n")
	for i, r := range rows {
		fmt.Fprintf(&b, "%d %g 5 %g %g -1 -1 %g 100 -1 %g %g 1 -1 -1 %g -1 -1\n", i+1, r[0], r[1], r[2], r[2], r[5], r[3], r[4])
	}
	return b.String()
}

func ids(recs []Record) string {
	var s []string
	for _, r := range recs {
		s = append(s, r.JobID)
	}
	return strings.Join(s, ",")
}

func TestFilters(t *testing.T) {
	text := trace(
		[6]float64{0, 100, 1, 1, 1, 1},
		[6]float64{10, 900, 4, 2, 2, 0},
		[6]float64{20, -1, 2, 1, 2, 5},
		[6]float64{30, 50, 16, 3, 1, 1},
		[6]float64{40, 1000, 1, 2, 1, 1},
	)
	cases := []struct {
		name string
		f    Filter
		want string
	}{
		{"none", Filter{}, "1,2,3,4,5"},
		{"window", Filter{Submit: Range{Min: 10, Max: 40, HasMin: true, HasMax: true}}, "2,3,4"},
		{"from only", Filter{Submit: Range{Min: 25, HasMin: true}}, "4,5"},
		{"first N", Filter{FirstN: 2}, "1,2"},
		{"first N after a filter", Filter{Users: []string{"2"}, FirstN: 1}, "2"},
		{"site by number", Filter{Sites: []string{"2"}}, "2,3"},
		{"site by partition name", Filter{Sites: []string{"alpha"}}, "1,4,5"},
		{"users", Filter{Users: []string{"1", "3"}}, "1,3,4"},
		{"status", Filter{Status: []int{1}}, "1,4,5"},
		{"runtime below 900 s", Filter{RunTime: Range{Max: 899, HasMax: true}}, "1,4"},
		{"runtime range drops unknown", Filter{RunTime: Range{Min: 0, HasMin: true}}, "1,2,4,5"},
		{"procs", Filter{Procs: Range{Min: 2, Max: 4, HasMin: true, HasMax: true}}, "2,3"},
		{"combined", Filter{Sites: []string{"alpha"}, Status: []int{1}, Procs: Range{Max: 1, HasMax: true}}, "1,5"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r, err := NewReader(strings.NewReader(text), ReadOptions{Strict: true})
			if err != nil {
				t.Fatal(err)
			}
			recs, err := drain(Filtered(r, c.f))
			if err != nil {
				t.Fatal(err)
			}
			if got := ids(recs); got != c.want {
				t.Errorf("kept %s, want %s", got, c.want)
			}
		})
	}
}

func TestScaleAndRebase(t *testing.T) {
	text := trace([6]float64{100, 60, 3, 1, 1, 1}, [6]float64{160, 10, 1, 1, 1, 1}, [6]float64{400, -1, 5, 1, 1, 1})
	cases := []struct {
		name              string
		sel               Selection
		submit, run, proc []float64
		base              int64
	}{
		{"rebase only", Selection{Rebase: true}, []float64{0, 60, 300}, []float64{60, 10, -1}, []float64{3, 1, 5}, 1000000100},
		{"submit x0.1", Selection{Rebase: true, Scale: Scale{Submit: 0.1}}, []float64{0, 6, 30}, []float64{60, 10, -1}, []float64{3, 1, 5}, 1000000100},
		{"runtime x2, procs x0.5", Selection{Scale: Scale{RunTime: 2, Procs: 0.5}}, []float64{100, 160, 400}, []float64{120, 20, -1}, []float64{2, 1, 3}, 1000000000},
		{"window from 150, rebased to its start", Selection{Rebase: true, Filter: Filter{Submit: Range{Min: 150, HasMin: true}}}, []float64{10, 250}, []float64{10, -1}, []float64{1, 5}, 1000000150},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			open := func() (Reader, error) { return NewReader(strings.NewReader(text), ReadOptions{Strict: true}) }
			r, _, err := Select(open, c.sel)
			if err != nil {
				t.Fatal(err)
			}
			recs, err := drain(r)
			if err != nil {
				t.Fatal(err)
			}
			if len(recs) != len(c.submit) {
				t.Fatalf("%d records", len(recs))
			}
			for i, rec := range recs {
				if rec.SubmitTime != c.submit[i] || rec.RunTime != c.run[i] || rec.NProcs != c.proc[i] || rec.ReqNProcs != c.proc[i] {
					t.Errorf("record %d: submit %g run %g procs %g/%g, want %g %g %g", i, rec.SubmitTime, rec.RunTime, rec.NProcs, rec.ReqNProcs, c.submit[i], c.run[i], c.proc[i])
				}
			}
			if r.Header().UnixStartTime != c.base {
				t.Errorf("time base %d, want %d", r.Header().UnixStartTime, c.base)
			}
		})
	}
}

func TestMix(t *testing.T) {
	a := trace([6]float64{0, 10, 1, 1, 1, 1}, [6]float64{20, 10, 1, 1, 1, 1})
	b := "; MaxProcs: 8\n" + strings.Join(strings.Split(trace([6]float64{5, 10, 2, 1, 2, 1}, [6]float64{20, 10, 2, 2, 1, 1}), "\n")[1:], "\n")
	open := func(s string) Reader {
		r, err := NewReader(strings.NewReader(s), ReadOptions{Strict: true})
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	m := Mix([]MixInput{{Reader: open(a), Tag: "a"}, {Reader: open(b), Tag: "b"}, {Reader: open(a), Tag: "c", Shift: 100}})
	recs, err := drain(m)
	if err != nil {
		t.Fatal(err)
	}
	if got := ids(recs); got != "a:1,b:1,a:2,b:2,c:1,c:2" {
		t.Errorf("merged order %s", got)
	}
	if recs[1].UserID != "b:1" || recs[1].PartitionID != "b:2" || recs[4].SubmitTime != 100 {
		t.Errorf("tags and shift: %+v", recs[1])
	}
	h := m.Header()
	if h.MaxProcs != 8 || h.Partitions["b:2"] != "beta" || h.UnixStartTime != 1000000000 {
		t.Errorf("header %+v", h)
	}
	a2 := analysisOf(t, recs, h)
	if a2.Totals.Users != 4 || a2.Totals.Sites != 4 {
		t.Errorf("mixed users %d sites %d, want 4 and 4 (a:1, b:1, b:2, c:1)", a2.Totals.Users, a2.Totals.Sites)
	}
	if s := m.Stats(); s.Records != 6 {
		t.Errorf("stats %+v", s)
	}
}

func analysisOf(t *testing.T, recs []Record, h *Header) *Analysis {
	a := NewAnalyzer(h, AnalysisOptions{})
	for i := range recs {
		a.Add(&recs[i])
	}
	return a.Result()
}

// areaTrace puts counts[i] arrivals into window i of width w, each job run
// times[i] seconds long.
func areaTrace(w float64, counts []int, runs []float64) string {
	var rows [][6]float64
	for i, n := range counts {
		for k := 0; k < n; k++ {
			rows = append(rows, [6]float64{float64(i)*w + float64(k)*w/float64(n+1), runs[i], 1, float64(k%3 + 1), 1, 1})
		}
	}
	// One job in a last, partial window: never a candidate.
	rows = append(rows, [6]float64{float64(len(counts))*w + 1, 1, 1, 1, 1, 1})
	return trace(rows...)
}

// Representative area selection finds the known answers.
func TestAreaSelection(t *testing.T) {
	w := 3600.0
	counts := []int{5, 12, 3, 40, 7, 9, 25, 1, 18, 30} // sorted: 1 3 5 7 9 12 18 25 30 40
	runs := []float64{100, 200, 300, 400, 500, 600, 700, 800, 900, 1000}
	cases := []struct {
		name    string
		targets []Target
		best    int
		values  []float64
	}{
		{"p90 of arrivals is the window with 30", []Target{{CharArrivals, 90, true}}, 9, []float64{30}},
		{"p50 is rank 5: 9 arrivals", []Target{{CharArrivals, 50, true}}, 5, []float64{9}},
		{"p100 is the maximum", []Target{{CharArrivals, 100, true}}, 3, []float64{40}},
		{"p0 is the minimum", []Target{{CharArrivals, 0, true}}, 7, []float64{1}},
		{"absolute 400 jobs per 4h: nearest is 40", []Target{{CharArrivals, 400, false}}, 3, []float64{40}},
		{"absolute 20: nearest is 18", []Target{{CharArrivals, 20, false}}, 8, []float64{18}},
		{"10.4: 9 is nearer than 12", []Target{{CharArrivals, 10.4, false}}, 5, []float64{9}},
		{"10.5: a tie between 12 and 9 goes to the earlier window", []Target{{CharArrivals, 10.5, false}}, 1, []float64{12}},
		{"exact tie goes to the earliest", []Target{{CharArrivals, 6, false}}, 0, []float64{5}},
		{"mean run time 650 and arrivals p50: window 5", []Target{{CharRunTime, 650, false}, {CharArrivals, 50, true}}, 5, []float64{600, 9}},
		{"two characteristics pull apart: runtime 1000 and 30 arrivals", []Target{{CharRunTime, 1000, false}, {CharArrivals, 30, false}}, 9, []float64{1000, 30}},
	}
	text := areaTrace(w, counts, runs)
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r, _ := NewReader(strings.NewReader(text), ReadOptions{Strict: true})
			res, err := SelectArea(r, w, c.targets)
			if err != nil {
				t.Fatal(err)
			}
			if len(res.Windows) != len(counts) {
				t.Fatalf("%d candidate windows, want %d", len(res.Windows), len(counts))
			}
			if res.Best.Index != c.best {
				t.Errorf("best window %d (values %v), want %d", res.Best.Index, res.Values, c.best)
			}
			for i, v := range c.values {
				if res.Values[i] != v {
					t.Errorf("value %d: %g, want %g", i, res.Values[i], v)
				}
			}
		})
	}
	// The selection replays exactly the chosen window, rebased.
	open := func() (Reader, error) { return NewReader(strings.NewReader(text), ReadOptions{Strict: true}) }
	r, area, err := Select(open, Selection{AreaWidth: w, AreaTargets: []Target{{CharArrivals, 90, true}}, Rebase: true})
	if err != nil {
		t.Fatal(err)
	}
	recs, _ := drain(r)
	if len(recs) != 30 || area.Best.Start != 9*w {
		t.Fatalf("selected %d jobs from %g, want 30 from %g", len(recs), area.Best.Start, 9*w)
	}
	for _, rec := range recs {
		if rec.SubmitTime < 0 || rec.SubmitTime >= w {
			t.Errorf("rebased submit %g outside [0, %g)", rec.SubmitTime, w)
		}
	}
}

func TestParseTarget(t *testing.T) {
	for in, want := range map[string]Target{
		"arrivals:p90": {CharArrivals, 90, true}, "work:1e6": {CharWork, 1e6, false}, "users": {CharUsers, 50, true},
		"RunTime:P50": {CharRunTime, 50, true},
	} {
		got, err := ParseTarget(in)
		if err != nil || got != want {
			t.Errorf("%s: %+v %v", in, got, err)
		}
	}
	for _, bad := range []string{"load:p90", "arrivals:p101", "arrivals:-3", "arrivals:x"} {
		if _, err := ParseTarget(bad); err == nil {
			t.Errorf("%s: no error", bad)
		}
	}
}

func TestSketchAccuracy(t *testing.T) {
	var s Sketch
	var vals []float64
	x := 1.0
	for i := 0; i < 100000; i++ {
		// whole numbers, fractions and large values, one of each kind in turn
		var v float64
		switch i % 3 {
		case 0:
			v = float64(i % 1000)
		case 1:
			v = x
			x *= 1.0003
		default:
			v = 1e5 + float64(i)*37.5
		}
		vals = append(vals, v)
		s.Add(v)
	}
	sort.Float64s(vals)
	for _, q := range []float64{0.001, 0.05, 0.25, 0.5, 0.75, 0.9, 0.99, 0.999} {
		// The type-7 quantile, gmark's one definition (docs/metrics.md).
		exact := sampstat.Quantile(vals, q)
		got := s.Quantile(q)
		if exact == math.Trunc(exact) && exact < exactLimit {
			if got != exact {
				t.Errorf("q%g: %g, want exactly %g", q, got, exact)
			}
		} else if math.Abs(got-exact) > sketchAlpha*exact*1.0001 {
			t.Errorf("q%g: %g, exact %g: relative error %.4f > %g", q, got, exact, math.Abs(got-exact)/exact, sketchAlpha)
		}
	}
	mean := 0.0
	for _, v := range vals {
		mean += v
	}
	mean /= float64(len(vals))
	if math.Abs(s.Mean()-mean) > 1e-6*mean || s.Min() != vals[0] || s.Max() != vals[len(vals)-1] {
		t.Errorf("mean %g (%g), min %g, max %g", s.Mean(), mean, s.Min(), s.Max())
	}
	var neg Sketch
	for _, v := range []float64{-300, -60, -1.5, 0, 0, 2, 7} {
		neg.Add(v)
	}
	// h = 6·0.2 = 1.2: −60 + 0.2·(−1.5 + 60) = −48.3, each order statistic within α.
	if q := neg.Quantile(0.2); math.Abs(q+48.3) > 60*sketchAlpha {
		t.Errorf("negative quantile %g, want -48.3", q)
	}
	var four Sketch
	for _, v := range []float64{4, 1, 3, 2} {
		four.Add(v)
	}
	if q := four.Quantile(0.5); q != 2.5 {
		t.Errorf("median of 1, 2, 3, 4: %g, want 2.5 (type 7)", q)
	}
	if q := neg.Quantile(0.5); q != 0 {
		t.Errorf("median %g, want 0", q)
	}
	if c := neg.CDF(0); c != 5.0/7 {
		t.Errorf("CDF(0) %g", c)
	}
}
