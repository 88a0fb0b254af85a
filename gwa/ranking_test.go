package gwa

import (
	"math"
	"strings"
	"testing"
)

// Table 3.2 of the thesis through the Table 3.1 classifier gives the partial
// signatures (sites, cores, users, jobs) and values of the reference note.
func TestRankingTable32(t *testing.T) {
	four := []Category{CatSites, CatCores, CatUsers, CatJobs}
	rows := []struct {
		trace               string
		sites, cores, users int
		jobs                int64
		stars               [4]int
		value               float64
	}{
		{"DAS-2", 5, 400, 332, 602000, [4]int{2, 1, 3, 4}, 0.30},
		{"Grid'5000", 15, 2500, 473, 951000, [4]int{4, 2, 3, 4}, 0.45},
		{"NorduGrid", 75, 2000, 387, 781000, [4]int{5, 2, 3, 4}, 0.54},
		{"AuverGrid", 5, 475, 405, 404000, [4]int{2, 1, 3, 3}, 0.23},
		{"NGS", 4, 400, 379, 632000, [4]int{2, 1, 3, 4}, 0.30},
		{"LCG", 1, 880, 206, 1100000, [4]int{1, 1, 3, 5}, 0.36},
		{"GLOW", 1, 1400, 18, 216000, [4]int{1, 2, 0, 3}, 0.14},
		{"Grid3", 29, 2208, 19, 1300000, [4]int{5, 2, 0, 5}, 0.54},
		{"TeraGrid", 1, 96, 121, 1100000, [4]int{1, 0, 2, 5}, 0.30},
	}
	sigs := map[string]Signature{}
	for _, r := range rows {
		s := Classify(TraceFacts{Sites: r.sites, Cores: r.cores, Users: r.users, Jobs: r.jobs, Utilization: -1, ReportedWork: -1})
		for i, c := range four {
			if s.Stars[c] != r.stars[i] {
				t.Errorf("%s %s: %d stars, want %d", r.trace, c, s.Stars[c], r.stars[i])
			}
		}
		if math.Abs(s.Value-r.value) > 0.005 {
			t.Errorf("%s: value %.3f, want %.2f", r.trace, s.Value, r.value)
		}
		if s.Known[CatUtilization] || s.Known[CatReportedWork] {
			t.Errorf("%s: unknown categories marked known", r.trace)
		}
		sigs[r.trace] = s
	}
	if d, err := Distance(four, sigs["DAS-2"], sigs["LCG"]); err != nil || math.Abs(d-0.02) > 1e-12 {
		t.Errorf("D(DAS-2, LCG) = %g %v, want 0.02", d, err)
	}
	// Properties: symmetric, zero on itself, 1 when every category differs by 5.
	for a, sa := range sigs {
		for b, sb := range sigs {
			d1, _ := Distance(four, sa, sb)
			d2, _ := Distance(four, sb, sa)
			if d1 != d2 || d1 < 0 || d1 > 1 || (a == b && d1 != 0) {
				t.Errorf("D(%s, %s) = %g, %g", a, b, d1, d2)
			}
		}
	}
	top := Classify(TraceFacts{Sites: 100, Cores: 1e6, Users: 5000, Jobs: 1e8, Utilization: 90, ReportedWork: 50})
	zero := Classify(TraceFacts{Sites: 0, Cores: 0, Users: 0, Jobs: 0, Utilization: 0, ReportedWork: 0})
	if d, _ := Distance(Categories, top, zero); d != 1 || top.Value != 1 || zero.Value != 0 {
		t.Errorf("extremes: D %g, values %g %g", d, top.Value, zero.Value)
	}
	if _, err := Distance(Categories, sigs["LCG"], top); err == nil || !strings.Contains(err.Error(), "unknown") {
		t.Errorf("distance over unknown categories: %v", err)
	}
}

// Bucket edges are closed on the upper bound.
func TestStarEdges(t *testing.T) {
	cases := []struct {
		c     Category
		v     float64
		stars int
	}{
		{CatSites, 0, 0}, {CatSites, 1, 1}, {CatSites, 2, 2}, {CatSites, 5, 2}, {CatSites, 6, 3}, {CatSites, 20, 4}, {CatSites, 21, 5},
		{CatCores, 100, 0}, {CatCores, 101, 1}, {CatCores, 1000, 1}, {CatCores, 1001, 2}, {CatCores, 5000, 2}, {CatCores, 25001, 5},
		{CatUsers, 50, 0}, {CatUsers, 51, 1}, {CatUsers, 500, 3}, {CatUsers, 501, 4}, {CatUsers, 1001, 5},
		{CatJobs, 15000, 0}, {CatJobs, 15001, 1}, {CatJobs, 1e6, 4}, {CatJobs, 1e6 + 1, 5},
		{CatUtilization, 10, 0}, {CatUtilization, 10.5, 1}, {CatUtilization, 75, 4}, {CatUtilization, 75.1, 5},
		{CatReportedWork, 0, 0}, {CatReportedWork, 1, 1}, {CatReportedWork, 2, 2}, {CatReportedWork, 21, 5},
	}
	for _, c := range cases {
		if got := Stars(c.c, c.v); got != c.stars {
			t.Errorf("%s %g: %d stars, want %d", c.c, c.v, got, c.stars)
		}
	}
}
