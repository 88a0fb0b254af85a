package gwa

import (
	"math"
	"strings"
	"testing"
)

// The analysis of a tiny trace whose every number can be worked out by hand.
func TestAnalysisByHand(t *testing.T) {
	text := `; UnixStartTime: 1000000000
; MaxProcs: 2
1 0 0 3600 2 -1 2048 2 -1 -1 1 7 1 -1 -1 1 -1 -1
2 3600 -1 1800 1 -1 -1 1 -1 -1 1 7 1 -1 -1 2 -1 -1
3 7200 100 100 1 50 1024 1 -1 -1 0 8 2 -1 -1 2 -1 -1
4 7300 -1 -1 -1 -1 -1 -1 -1 -1 5 9 2 -1 -1 -1 -1 -1
`
	r, _ := NewReader(strings.NewReader(text), ReadOptions{Strict: true})
	a, err := Analyze(r, AnalysisOptions{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	eq := func(name string, got, want float64) {
		t.Helper()
		if math.Abs(got-want) > 1e-9*math.Max(1, math.Abs(want)) {
			t.Errorf("%s = %g, want %g", name, got, want)
		}
	}
	tt := a.Totals
	eq("jobs", float64(tt.Jobs), 4)
	eq("users", float64(tt.Users), 3)
	eq("groups", float64(tt.Groups), 2)
	eq("sites", float64(tt.Sites), 2)
	eq("span", tt.Span.Value, 7300)
	eq("last end", tt.LastEnd.Value, 7400)
	busy := 7200.0 + 1800 + 100
	eq("CPU-years", tt.CPUYears, busy/(365*86400))
	eq("utilization", a.Utilization.Average.Value, busy/(2*7400))
	if h := a.Utilization.BusiestHourly; len(h) != 3 || h[0] != 1 || h[1] != 0.25 || math.Abs(h[2]-100.0/7200) > 1e-12 {
		t.Errorf("hourly utilization %v", h)
	}
	if a.Utilization.BusiestMonth != "2001-09" || a.Utilization.Spike != 3 {
		t.Errorf("busiest month %q spike %d", a.Utilization.BusiestMonth, a.Utilization.Spike)
	}
	if s := a.Status; s.Completed != 2 || s.Failed != 1 || s.Cancelled != 1 || s.Unknown != 0 {
		t.Errorf("status %+v", s)
	}
	// 2001-09-09 01:46:40 UTC was a Sunday: submissions at 01, 02, 03, 03 h.
	if h := a.Arrivals.ByHour; h[1] != 1 || h[2] != 1 || h[3] != 2 || a.Arrivals.ByWeekday[6] != 4 {
		t.Errorf("arrivals by hour %v weekday %v", h, a.Arrivals.ByWeekday)
	}
	d := a.Distributions
	eq("IAT count", float64(d.InterArrival.Count), 3)
	eq("IAT median", d.InterArrival.Median.Value, 3600)
	eq("wait count", float64(d.Wait.Count), 2)
	eq("wait missing", float64(d.Wait.Missing), 2)
	eq("memory mean", d.Memory.Mean.Value, 1536)
	eq("parallelism max", d.Parallelism.Max.Value, 2)
	// Run times 100, 1800, 3600: type 7, h = 2·0.99 = 1.98, 1800 + 0.98·1800.
	eq("run time p99", d.RunTime.P99.Value, 3564)
	if u := a.Users.TopByJob; len(u) != 3 || u[0].User != "7" || u[0].Jobs != 2 || math.Abs(u[0].CPUShare.Value-9000/busy) > 1e-12 {
		t.Errorf("top users %+v", u)
	}
	if s := a.Sites; len(s) != 2 || s[0].Site != "2" || s[0].Jobs != 2 || s[0].MeanRun.Value != 950 {
		t.Errorf("sites %+v", s)
	}
	if a.Size.SequentialJobs != 2 || a.Size.ParallelJobs != 1 || a.Size.UnknownSize != 1 {
		t.Errorf("size split %+v", a.Size)
	}
	if a.Ranking.Stars[CatSites] != 2 || a.Ranking.Stars[CatUtilization] != 4 || a.Ranking.Known[CatReportedWork] {
		t.Errorf("ranking %v", a.Ranking)
	}
}
