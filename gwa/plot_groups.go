package gwa

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/gmark/gmark/plots"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
)

// maxGroupBars is the most groups a per-group figure draws one by one; the
// rest are one bar, "other".
const maxGroupBars = 10

// groupPlots are the figures of the per-group view: the top users by jobs
// and by CPU time, striped by week (Fig. 3.4), and per grouping (VO, group,
// user, site) the shares of jobs and CPU time and the mean wait and run
// time of the largest groups.
func groupPlots(a *Analysis, title string) []namedPlot {
	g := a.Groups
	if g == nil {
		return nil
	}
	out := []namedPlot{
		{"top_users_by_jobs_weekly", func() (*plots.Drawing, error) {
			return weeklyStripes(title+"top users by jobs, by week", "jobs (cumulative over the weeks)", g.Weeks, g.TopByJobs,
				func(u UserWeeks, w int) float64 { return float64(u.Jobs[w]) })
		}},
		{"top_users_by_cpu_weekly", func() (*plots.Drawing, error) {
			return weeklyStripes(title+"top users by CPU time, by week", "CPU-years (cumulative over the weeks)", g.Weeks, g.TopByCPU,
				func(u UserWeeks, w int) float64 { return u.CPU[w] / (365 * 86400) })
		}},
	}
	names := map[string]string{}
	for _, s := range a.Sites {
		if s.Name != "" {
			names[s.Site] = s.Name
		}
	}
	for _, b := range g.Breakdowns {
		if b.Dim == "site" && len(names) > 0 { // SWF partitions by name
			b.Groups = slices.Clone(b.Groups)
			for i := range b.Groups {
				if n := names[b.Groups[i].Name]; n != "" {
					b.Groups[i].Name = n
				}
			}
		}
		out = append(out, namedPlot{"groups_" + b.Dim + "_shares", func() (*plots.Drawing, error) { return groupShares(title, b) }},
			namedPlot{"groups_" + b.Dim + "_times", func() (*plots.Drawing, error) { return groupTimes(title, b) }})
	}
	return out
}

// weeklyStripes draws the users' totals as bars, user by rank, each bar a
// stack of the user's weeks from the first at the bottom, the weeks
// striped in two tones (the thesis's Fig. 3.4). The users' labels are
// their ids, the same in the figure by jobs and by CPU time.
func weeklyStripes(title, ylabel string, weeks int, users []UserWeeks, val func(UserWeeks, int) float64) (*plots.Drawing, error) {
	if len(users) == 0 || weeks == 0 {
		return nil, nil
	}
	b := plots.NewBuilder(title, "user, by rank", ylabel)
	w := vg.Points(math.Min(40, 400/float64(len(users))))
	var below *plotter.BarChart
	tones := []int{0, 5} // blue, sky blue
	for k := 0; k < weeks; k++ {
		vals := make(plotter.Values, len(users))
		for i, u := range users {
			vals[i] = val(u, k)
		}
		bc, err := plotter.NewBarChart(vals, w)
		if err != nil {
			return nil, err
		}
		bc.Color, bc.LineStyle.Width = plots.Color(tones[k%2]), 0
		if below != nil {
			bc.StackOn(below)
		}
		below = bc
		b.Add(bc)
		if k < 2 {
			b.Plot().Legend.Add(weekStripes(k, weeks), bc)
		}
	}
	labels := make([]string, len(users))
	for i, u := range users {
		labels[i] = u.User
	}
	b.Plot().NominalX(labels...)
	b.Plot().Y.Min = 0
	return b.Done(fmt.Sprintf("%d weeks from the trace's start, one stripe each, the first at the bottom", weeks)), nil
}

// weekStripes names the weeks of a trace of weeks weeks drawn in the
// tone of week first+1 (every other week from it): "week 2" on a trace
// of two weeks, "weeks 1, 3" of three, "weeks 1, 3, 5, …" from seven.
func weekStripes(first, weeks int) string {
	var ws []string
	for w := first + 1; w <= weeks && len(ws) < 3; w += 2 {
		ws = append(ws, strconv.Itoa(w))
	}
	if first+1+2*len(ws) <= weeks {
		ws = append(ws, "…")
	}
	if len(ws) == 1 {
		return "week " + ws[0]
	}
	return "weeks " + strings.Join(ws, ", ")
}

// topGroups is b's largest groups, and the rest as one group "other".
func topGroups(b GroupBreakdown) []GroupRow {
	if len(b.Groups) <= maxGroupBars+1 {
		return b.Groups
	}
	rows := append([]GroupRow(nil), b.Groups[:maxGroupBars]...)
	rest := GroupRow{Name: plots.Num(float64(len(b.Groups)-maxGroupBars), 20) + " others", MeanWait: math.NaN(), MeanRun: math.NaN()}
	for _, g := range b.Groups[maxGroupBars:] {
		rest.Jobs += g.Jobs
		rest.CPU += g.CPU
	}
	return append(rows, rest)
}

// groupShares draws the shares of the jobs and of the CPU time of the
// largest groups.
func groupShares(title string, b GroupBreakdown) (*plots.Drawing, error) {
	rows := topGroups(b)
	labels := make([]string, len(rows))
	jobs, cpu := make([]float64, len(rows)), make([]float64, len(rows))
	for i, g := range rows {
		labels[i] = g.Name
		jobs[i] = 100 * float64(g.Jobs) / float64(b.Jobs)
		cpu[i] = math.NaN()
		if b.CPU > 0 {
			cpu[i] = 100 * g.CPU / b.CPU
		}
	}
	what := plots.Num(float64(len(b.Groups)), 20) + " " + b.Dim + "s"
	if len(rows) < len(b.Groups) {
		what = fmt.Sprintf("the %d of %s %ss with the most jobs, and the others", maxGroupBars, plots.Num(float64(len(b.Groups)), 20), b.Dim)
	}
	d, err := plots.Grouped(fmt.Sprintf("%sshares of the jobs and CPU time per %s (%s)", title, b.Dim, what), byJobs(b.Dim), "share (%)", labels,
		[]plots.Series{{Label: "jobs", Values: jobs}, {Label: "CPU time", Values: cpu}})
	return rotated(d, err, labels)
}

// groupTimes draws the mean wait and run time of the largest groups.
func groupTimes(title string, b GroupBreakdown) (*plots.Drawing, error) {
	rows := topGroups(b)
	if len(rows) > maxGroupBars {
		rows = rows[:maxGroupBars] // "other" has no mean
	}
	labels := make([]string, len(rows))
	wait, run := make([]float64, len(rows)), make([]float64, len(rows))
	for i, g := range rows {
		labels[i], wait[i], run[i] = g.Name, g.MeanWait, g.MeanRun
	}
	var series []plots.Series
	var what []string
	for _, s := range []plots.Series{{Label: "wait time", Values: wait}, {Label: "run time", Values: run}} {
		if slices.ContainsFunc(s.Values, func(v float64) bool { return !math.IsNaN(v) }) {
			series, what = append(series, s), append(what, s.Label)
		}
	}
	if len(series) == 0 {
		return nil, nil
	}
	which := fmt.Sprintf("the %d with the most jobs", len(rows))
	if len(rows) == len(b.Groups) {
		which = fmt.Sprintf("all %d", len(rows))
	}
	d, err := plots.Grouped(fmt.Sprintf("%smean %s per %s (%s)", title, strings.Join(what, " and "), b.Dim, which), byJobs(b.Dim), "mean (s)", labels, series)
	return rotated(d, err, labels)
}

// byJobs is the x axis of the per-group figures: the groups in the order
// of their jobs, which is also how the largest are chosen.
func byJobs(dim string) string { return dim + " (most jobs first)" }

// rotated slants the category labels of d when they are long.
func rotated(d *plots.Drawing, err error, labels []string) (*plots.Drawing, error) {
	if err != nil {
		if plots.NoData(err) {
			return nil, nil
		}
		return nil, err
	}
	long := 0
	for _, l := range labels {
		long = max(long, len(l))
	}
	if long*len(labels) > 60 {
		p := d.Plot()
		p.X.Tick.Label.Rotation = math.Pi / 6
		p.X.Tick.Label.XAlign, p.X.Tick.Label.YAlign = -1, -0.5
	}
	return d, nil
}
