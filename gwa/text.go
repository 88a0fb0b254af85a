package gwa

import (
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"time"
)

// The text forms of the analyses, as `gmark trace` prints them; the JSON
// forms are the types themselves.

// human writes a time span as days and a Go duration, or n/a.
func human(span Stat) string {
	if !span.OK() {
		return "n/a"
	}
	secs := span.Value
	d := time.Duration(secs * float64(time.Second))
	if secs >= 86400 {
		days := int(secs / 86400)
		return fmt.Sprintf("%dd%s", days, (d - time.Duration(days)*24*time.Hour).Round(time.Second))
	}
	return d.Round(time.Second).String()
}

// plainSeconds writes a time in seconds as a plain decimal number, however
// large (never in e-notation), or n/a.
func plainSeconds(v Stat) string {
	if !v.OK() {
		return "n/a"
	}
	return strconv.FormatFloat(v.Value, 'f', -1, 64)
}

// percentilesText says how the distributions' percentiles were computed.
func (d Distributions) percentilesText() string {
	var sketched []string
	for _, row := range []struct {
		name string
		s    *Summary
	}{{"inter-arrival", d.InterArrival}, {"wait", d.Wait}, {"run time", d.RunTime}, {"processors", d.Parallelism}, {"memory", d.Memory}, {"CPU time", d.CPUTime}} {
		if row.s.Percentiles == PercentilesSketch {
			sketched = append(sketched, row.name)
		}
	}
	if len(sketched) == 0 {
		return "exact (type 7, as numpy's default)"
	}
	return "from a sketch, within 0.5%, for " + strings.Join(sketched, ", ") + " (the trace has more values than the memory budget of exact statistics keeps); the others exact"
}

// percent writes a share as a percentage with prec decimals, or n/a.
func percent(share Stat, prec int) string {
	if !share.OK() {
		return "n/a"
	}
	return strconv.FormatFloat(100*share.Value, 'f', prec, 64) + "%"
}

// pct is the percentage a/b, n/a when b is 0.
func pct(a, b float64) string {
	if b == 0 {
		return "n/a"
	}
	return percent(Stat{Value: a / b}, 1)
}

// WriteText writes the analysis as the summary of `gmark trace stats`.
func (a *Analysis) WriteText(w io.Writer) {
	a.writeTotals(w)
	fmt.Fprintf(w, "  distributions %8s %10s %10s %10s %10s %10s %10s\n", "count", "mean", "median", "p90", "p99", "max", "missing")
	d := a.Distributions
	for _, row := range []struct {
		name string
		s    *Summary
	}{{"inter-arrival s", d.InterArrival}, {"wait s", d.Wait}, {"run time s", d.RunTime}, {"processors", d.Parallelism}, {"memory KB", d.Memory}, {"CPU time s", d.CPUTime}} {
		if row.s.Count == 0 {
			fmt.Fprintf(w, "    %-15s %8d %10s (no values) %29s %10d\n", row.name, 0, "-", "", row.s.Missing)
			continue
		}
		if !row.s.Mean.OK() {
			fmt.Fprintf(w, "    %-15s %8s %10s (%s) %10d\n", row.name, "-", "-", row.s.Mean.Why, row.s.Missing)
			continue
		}
		fmt.Fprintf(w, "    %-15s %8d %10.4g %10.4g %10.4g %10.4g %10.4g %10d\n", row.name, row.s.Count, row.s.Mean, row.s.Median, row.s.P90, row.s.P99, row.s.Max, row.s.Missing)
	}
	fmt.Fprintf(w, "  percentiles:  %s\n", d.percentilesText())
	a.writeLoad(w)
	a.writeUsersAndSites(w)
	fmt.Fprintf(w, "  ranking:      %s; value %.2f over %d categories\n", a.Ranking, a.Ranking.Value, len(a.Ranking.KnownCategories()))
	if r := a.Read; r != nil {
		o := r.Oddities
		fmt.Fprintf(w, "  read:         %d lines, %d records, %d skipped; oddities: absolute submit %d, negative wait %d, negative run time %d (counted as unknown run time), cancelled before start %d, late comments %d, trailing space %d, extra fields %d, out of order %d\n",
			r.Lines, r.Records, r.Skipped, o.AbsoluteSubmit, o.NegativeWait, o.NegativeRunTime, o.CancelledBeforeStart, o.LateComments, o.TrailingSpace, o.ExtraFields, o.OutOfOrder)
	}
}

func (a *Analysis) writeTotals(w io.Writer) {
	t := a.Totals
	fmt.Fprintf(w, "%s: %s, %d jobs", a.Trace.Name, strings.ToUpper(string(a.Trace.Format)), t.Jobs)
	if a.Trace.HeaderJobs > 0 {
		fmt.Fprintf(w, " (header MaxJobs %d)", a.Trace.HeaderJobs)
	}
	fmt.Fprintf(w, ", %d users, %d groups, %d sites, %d processors (%s)\n", t.Users, t.Groups, t.Sites, t.Processors, a.Utilization.ProcessorsSource)
	base := "none (times are relative)"
	if a.Trace.Start != "" {
		base = a.Trace.Start + " (" + a.Trace.TimeBase + ", " + a.Trace.TimeZone + ")"
	}
	fmt.Fprintf(w, "  time base:    %s\n", base)
	fmt.Fprintf(w, "  span:         %s (submits %s..%s s), last job ends at %s s\n", human(t.Span), plainSeconds(t.FirstSubmit), plainSeconds(t.LastSubmit), plainSeconds(t.LastEnd))
	goodput := "n/a"
	if t.Goodput.OK() {
		goodput = fmt.Sprintf("%.1f CPU-years/year", t.Goodput.Value)
	}
	util := percent(a.Utilization.Average, 2)
	if a.Utilization.ProcessorsEstimated && a.Utilization.Average.OK() {
		util += " (on the estimated system size: an upper bound)"
	}
	fmt.Fprintf(w, "  consumed:     %.2f CPU-years; goodput %s; utilization %s\n", t.CPUYears, goodput, util)
	for _, warn := range a.Warnings {
		fmt.Fprintf(w, "  warning:      %s\n", warn)
	}
	s := a.Status
	fmt.Fprintf(w, "  status:       completed %d, failed %d, cancelled %d, partial %d, unknown %d\n", s.Completed, s.Failed, s.Cancelled, s.Partial, s.Unknown)
	z := a.Size
	fmt.Fprintf(w, "  size:         %d sequential (%s of CPU), %d parallel (%s of CPU), %d unknown; power of two %s of jobs (1 = 2^0 counted), %s of parallel jobs\n",
		z.SequentialJobs, pct(z.SequentialCPU, z.SequentialCPU+z.ParallelCPU), z.ParallelJobs, pct(z.ParallelCPU, z.SequentialCPU+z.ParallelCPU), z.UnknownSize,
		percent(z.PowerOfTwoShare, 1), percent(z.ParallelPowerOfTwoShare, 1))
}

func (a *Analysis) writeLoad(w io.Writer) {
	peakHour, peakDay := 0, 0
	for i := range a.Arrivals.ByHour {
		if a.Arrivals.ByHour[i] > a.Arrivals.ByHour[peakHour] {
			peakHour = i
		}
	}
	for i := range a.Arrivals.ByWeekday {
		if a.Arrivals.ByWeekday[i] > a.Arrivals.ByWeekday[peakDay] {
			peakDay = i
		}
	}
	days := []string{"Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"}
	if a.Trace.TimeBase == "relative" {
		// Without a time base, offset 0 is no known hour or weekday.
		fmt.Fprintf(w, "  arrivals:     at most %d jobs in a day (no time base: no hour of day or weekday)\n", a.Arrivals.PeakDay)
	} else {
		fmt.Fprintf(w, "  arrivals:     busiest hour of day %02d:00, busiest weekday %s, at most %d jobs in a day\n", peakHour, days[peakDay], a.Arrivals.PeakDay)
	}
	u := a.Utilization
	peak := 0.0
	for _, v := range u.BusiestHourly {
		peak = math.Max(peak, v)
	}
	if u.BusiestMonth == "" {
		fmt.Fprintf(w, "  load:         busiest month n/a, spike %d jobs running in a day\n", u.Spike)
	} else {
		fmt.Fprintf(w, "  load:         busiest month %s (hourly peak %.1f%%), spike %d jobs running in a day\n", u.BusiestMonth, 100*peak, u.Spike)
	}
}

func (a *Analysis) writeUsersAndSites(w io.Writer) {
	printUsers := func(title string, us []UserShare) {
		var parts []string
		for _, x := range us {
			parts = append(parts, fmt.Sprintf("%s %s/%s", x.User, percent(x.JobShare, 1), percent(x.CPUShare, 1)))
		}
		fmt.Fprintf(w, "  %-13s %s\n", title, strings.Join(parts, ", "))
	}
	printUsers("top by jobs:", a.Users.TopByJob)
	printUsers("top by CPU:", a.Users.TopByCPU)
	fmt.Fprintf(w, "                (user jobs%%/CPU%%)\n")
	var sites []string
	for _, x := range a.Sites[:min(len(a.Sites), 5)] {
		n := x.Site
		if x.Name != "" {
			n = x.Name
		}
		sites = append(sites, fmt.Sprintf("%s %d", n, x.Jobs))
	}
	fmt.Fprintf(w, "  top sites:    %s\n", strings.Join(sites, ", "))
}

// WriteBoTsText writes the bags-of-tasks of a trace, per Δ, and the
// batches listed, as `gmark trace bots` prints them.
func WriteBoTsText(w io.Writer, trace string, res []*BoTStats, listed []Batch) {
	fmt.Fprintf(w, "%s: bags-of-tasks (a user's jobs with submit gaps <= Δ)\n", trace)
	fmt.Fprintf(w, "  %8s %8s %8s %8s %8s %9s %9s %10s %10s\n", "Δ (s)", "batches", "jobs%", "CPU%", "max", "mean size", "IAT p50", "ART p50", "RTV p50")
	for _, s := range res {
		fmt.Fprintf(w, "  %8g %8d %8s %8s %8d %9.2f %9.4g %10.4g %10.4g\n", s.Delta, s.Batches, percent(s.JobShare, 1), percent(s.CPUShare, 1), s.MaxSize,
			s.Size.Mean, s.InterArrival.Median, s.MeanRunTime.Median, s.RunTimeStd.Median)
	}
	fmt.Fprintf(w, "  size classes (Δ = %gs):", res[0].Delta)
	for i, cl := range BoTSizeClasses {
		label := fmt.Sprintf("%d-%d", cl.Min, cl.Max)
		if i == len(BoTSizeClasses)-1 {
			label = fmt.Sprintf(">=%d", cl.Min)
		}
		fmt.Fprintf(w, " %s:%d", label, res[0].SizeClasses[i])
	}
	fmt.Fprintln(w)
	for _, b := range listed {
		fmt.Fprintf(w, "  batch user %s: %d jobs %s..%s, submitted %g..%g s, ends %g s, mean run %.4g s\n", b.User, b.Size, b.FirstJob, b.LastJob, b.Start, b.LastSubmit, b.End, b.MeanRunTime())
	}
}

// RankedTrace is a trace's place in a ranking: its signature, its value
// (its distance from the all-zero sample) and its distance to every trace
// ranked with it.
type RankedTrace struct {
	Trace     string         `json:"trace"`
	Signature Signature      `json:"signature"`
	Value     float64        `json:"value"`
	Distances map[string]any `json:"distances,omitempty"`
}

// Rank ranks traces by the categories cats; every category must be known
// for every trace (UnknownCategories).
func Rank(cats []Category, traces []string, sigs []Signature) ([]RankedTrace, error) {
	out := make([]RankedTrace, len(traces))
	for i, sig := range sigs {
		v, err := Distance(cats, sig, Signature{Known: sig.Known})
		if err != nil {
			return nil, fmt.Errorf("%s: %v", traces[i], err)
		}
		out[i] = RankedTrace{Trace: traces[i], Signature: sig, Value: v}
	}
	for i := range out {
		out[i].Distances = map[string]any{}
		for j := range out {
			d, _ := Distance(cats, out[i].Signature, out[j].Signature)
			out[i].Distances[out[j].Trace] = d
		}
	}
	return out, nil
}

// UnknownCategories are those of cats the signature does not know.
func (s Signature) UnknownCategories(cats []Category) []string {
	var unknown []string
	for _, cat := range cats {
		if !s.Known[cat] {
			unknown = append(unknown, cat.String())
		}
	}
	return unknown
}

// WriteRankingText writes a ranking as `gmark trace rank` prints it.
func WriteRankingText(w io.Writer, cats []Category, ranked []RankedTrace) {
	var names []string
	for _, cat := range cats {
		names = append(names, cat.String())
	}
	fmt.Fprintf(w, "categories C = {%s}; value = D(C, trace, all-zero sample)\n", strings.Join(names, ", "))
	for _, r := range ranked {
		var stars []string
		for _, cat := range cats {
			stars = append(stars, fmt.Sprintf("%s %d", cat, r.Signature.Stars[cat]))
		}
		fmt.Fprintf(w, "  %-30s value %.3f   %s\n", r.Trace, r.Value, strings.Join(stars, ", "))
		if est := r.Signature.EstimatedCategories(cats); len(est) > 0 {
			fmt.Fprintf(w, "  %-30s (%s rest on an estimated system size: the trace gives none; --procs gives one)\n", "", strings.Join(est, " and "))
		}
	}
	if len(ranked) > 1 {
		fmt.Fprintf(w, "distances D(C, row, column):\n")
		for _, r := range ranked {
			fmt.Fprintf(w, "  %-30s", r.Trace)
			for _, o := range ranked {
				fmt.Fprintf(w, " %6.3f", r.Distances[o.Trace])
			}
			fmt.Fprintln(w)
		}
	}
}
