package gwa

import (
	"math"
	"slices"
	"strings"
)

// The per-group view of a trace (thesis §3.3.5, the toolbox's second
// aspect: the same metrics for all users and groups, and for the top ones)
// and the weekly breakdown of the top users (Fig. 3.4's stripes).

// GroupDims are the groupings a trace carries, in the order they are drawn:
// the virtual organisation (GWF's VO), the group (SWF's and GWF's group),
// the user and the site (GWF's execution or submission site, SWF's
// partition).
var GroupDims = []string{"VO", "group", "user", "site"}

// groupKey is r's group under each of GroupDims ("" when unknown).
func groupKey(r *Record) [4]string {
	var k [4]string
	for i, v := range []string{r.VOID, r.GroupID, r.UserID, r.Site()} {
		if !missingString(v) {
			k[i] = v
		}
	}
	return k
}

// weekStat is one user's jobs and CPU time in one week.
type weekStat struct {
	jobs int64
	cpu  float64
}

// groupAccumulator gathers the per-group statistics and each user's weeks.
type groupAccumulator struct {
	dims  [4]map[string]*groupStat
	weeks map[string]map[int]*weekStat
	nweek int
}

func (g *groupAccumulator) add(r *Record, cpu float64) {
	if g.weeks == nil {
		g.weeks = map[string]map[int]*weekStat{}
		for i := range g.dims {
			g.dims[i] = map[string]*groupStat{}
		}
	}
	key := groupKey(r)
	for i, k := range key {
		if k == "" {
			continue
		}
		s := g.dims[i][k]
		if s == nil {
			s = &groupStat{}
			g.dims[i][k] = s
		}
		s.jobs++
		s.cpu += cpu
		if rt, ok := r.KnownRunTime(); ok {
			s.runSum += rt
			s.runN++
		}
		if r.WaitTime != Missing && r.WaitTime >= 0 {
			s.waitSum += r.WaitTime
			s.waitN++
		}
	}
	if u := key[2]; u != "" && r.SubmitTime >= 0 && r.SubmitTime <= maxBinnedSeconds {
		w := int(r.SubmitTime / (7 * 86400))
		g.nweek = max(g.nweek, w+1)
		m := g.weeks[u]
		if m == nil {
			m = map[int]*weekStat{}
			g.weeks[u] = m
		}
		s := m[w]
		if s == nil {
			s = &weekStat{}
			m[w] = s
		}
		s.jobs++
		s.cpu += cpu
	}
}

// GroupRow is one group's share of a trace.
type GroupRow struct {
	Name     string
	Jobs     int64
	CPU      float64 // processor-seconds
	MeanWait float64 // s; NaN when no wait is known
	MeanRun  float64 // s; NaN when no run time is known
}

// GroupBreakdown is a trace's jobs per group of one grouping, largest
// first.
type GroupBreakdown struct {
	Dim    string
	Groups []GroupRow
	Jobs   int64   // of every group
	CPU    float64 // of every group
}

// UserWeeks is one top user's jobs and CPU time per week of the trace.
type UserWeeks struct {
	User string
	Jobs []int64
	CPU  []float64
}

// GroupAnalysis is the per-group view of a trace.
type GroupAnalysis struct {
	// Breakdowns has a grouping of GroupDims when the trace has two groups
	// or more of it.
	Breakdowns []GroupBreakdown
	// Weeks is the number of weeks of the trace (from its time base);
	// TopByJobs and TopByCPU are the top users' weeks.
	Weeks     int
	TopByJobs []UserWeeks
	TopByCPU  []UserWeeks
}

func (g *groupAccumulator) result(top int) *GroupAnalysis {
	out := &GroupAnalysis{Weeks: g.nweek}
	for i, m := range g.dims {
		if len(m) < 2 {
			continue
		}
		b := GroupBreakdown{Dim: GroupDims[i]}
		for name, s := range m {
			row := GroupRow{Name: name, Jobs: s.jobs, CPU: s.cpu, MeanWait: math.NaN(), MeanRun: math.NaN()}
			if s.waitN > 0 {
				row.MeanWait = s.waitSum / float64(s.waitN)
			}
			if s.runN > 0 {
				row.MeanRun = s.runSum / float64(s.runN)
			}
			b.Groups = append(b.Groups, row)
			b.Jobs += s.jobs
			b.CPU += s.cpu
		}
		slices.SortFunc(b.Groups, func(x, y GroupRow) int {
			if x.Jobs != y.Jobs {
				return int(y.Jobs - x.Jobs)
			}
			return strings.Compare(x.Name, y.Name)
		})
		out.Breakdowns = append(out.Breakdowns, b)
	}
	out.TopByJobs = g.topWeeks(top, func(s *weekStat) float64 { return float64(s.jobs) })
	out.TopByCPU = g.topWeeks(top, func(s *weekStat) float64 { return s.cpu })
	return out
}

// topWeeks is the weeks of the top users by the total of by.
func (g *groupAccumulator) topWeeks(top int, by func(*weekStat) float64) []UserWeeks {
	type tot struct {
		user string
		v    float64
	}
	var all []tot
	for u, m := range g.weeks {
		t := 0.0
		for _, s := range m {
			t += by(s)
		}
		if t > 0 {
			all = append(all, tot{u, t})
		}
	}
	slices.SortFunc(all, func(a, b tot) int {
		switch {
		case a.v > b.v:
			return -1
		case a.v < b.v:
			return 1
		}
		return strings.Compare(a.user, b.user)
	})
	var out []UserWeeks
	for _, t := range all[:min(top, len(all))] {
		uw := UserWeeks{User: t.user, Jobs: make([]int64, g.nweek), CPU: make([]float64, g.nweek)}
		for w, s := range g.weeks[t.user] {
			uw.Jobs[w], uw.CPU[w] = s.jobs, s.cpu
		}
		out = append(out, uw)
	}
	return out
}
