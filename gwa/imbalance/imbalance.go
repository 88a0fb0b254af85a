// Package imbalance measures how unevenly jobs arrive at the clusters (or
// sites, or traces) of a multi-cluster system, with the definitions of
// Iosup's thesis, Sec. 8.2.2, the premise of Delegated MatchMaking:
//
//   - each parallel job of n processors counts as n jobs of one processor
//     (the thesis's pre-processing; Options.NoSplit counts jobs instead);
//   - the normalized daily load of a cluster is its arrivals over a day
//     divided by its processors, and its cumulative normalized load at a
//     day the sum of those up to that day (the mean number of jobs one of
//     its processors has been given so far);
//   - the hourly load of a cluster is its arrivals in an hour of the clock;
//   - the overall imbalance between two clusters over a period is the
//     ratio of their cumulative normalized loads at the period's end, and
//     the system's the largest such ratio (of its most to its least loaded
//     cluster);
//   - the temporary imbalance between two clusters is the largest ratio of
//     their hourly loads over the hours of the period, and the system's
//     the largest over its pairs.
//
// A ratio with a zero below it has no value: the overall imbalance is taken
// over the groups that had arrivals by then, the temporary one over the
// hours in which both had arrivals (as the thesis's "over a thousand jobs
// arriving at cluster 2 and only one at cluster 5"); the hours in which one
// group had arrivals and another none are counted apart.
package imbalance

import (
	"cmp"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/gmark/gmark/gwa"
)

// Grouping is what a group of arrivals is.
const (
	BySite      = "site"      // a record's site (gwa.Record.Site: GWF's execution, then submission site, then the partition)
	ByPartition = "partition" // SWF's partition (field 16), a cluster of a site in GWF traces that name one
	ByTrace     = "trace"     // each input trace is one group
)

// Options tune an analysis.
type Options struct {
	By string // BySite (default), ByPartition or ByTrace
	// Sizes are the groups' processors. A group without one gets the peak
	// of processors its jobs had in use at once (start to end), an
	// estimate that the result marks; without run times, none.
	Sizes map[string]int
	// NoSplit counts a parallel job as one arrival, not one per processor.
	NoSplit bool
	// Location is where days and hours begin (default UTC) when the trace
	// has a time base; without one, they count from its time 0.
	Location *time.Location
}

// Group is one cluster's (site's, trace's) figures over the whole period.
type Group struct {
	Name       string  `json:"name"`
	Processors int     `json:"processors"`           // 0: unknown
	Estimated  bool    `json:"processors_estimated"` // the peak of processors in use, not a given size
	Jobs       int64   `json:"jobs"`
	Arrivals   float64 `json:"arrivals"` // jobs, each counting its processors unless NoSplit
	// Load is the cumulative normalized load at the period's end:
	// arrivals per processor (0 when the processors are unknown).
	Load float64 `json:"cumulative_normalized_load"`
	// PeakHour is the hour with its most arrivals, and how many.
	PeakHour         string  `json:"peak_hour"`
	PeakHourArrivals float64 `json:"peak_hour_arrivals"`
}

// Ratio is an imbalance between two groups: High's load over Low's.
type Ratio struct {
	Ratio float64 `json:"ratio"` // 0 when there is no pair to compare
	High  string  `json:"high"`
	Low   string  `json:"low"`
	// the loads compared: cumulative normalized (overall) or arrivals
	// in the hour (temporary)
	HighLoad float64 `json:"high_load"`
	LowLoad  float64 `json:"low_load"`
	At       string  `json:"at,omitempty"` // the day or hour
}

// Day is the overall imbalance up to the end of one day.
type Day struct {
	Day       string    `json:"day"`
	Loads     []float64 `json:"cumulative_normalized_loads"` // per group, in Result.Groups' order
	Imbalance Ratio     `json:"overall_imbalance"`
}

// Hour is the temporary imbalance within one hour with arrivals.
type Hour struct {
	Hour      string    `json:"hour"`
	Arrivals  []float64 `json:"arrivals"` // per group
	Imbalance Ratio     `json:"imbalance"`
	OneSided  bool      `json:"one_sided"` // a group had arrivals, another none
}

// Result is an analysis.
type Result struct {
	By      string   `json:"by"`
	Split   bool     `json:"parallel_jobs_split"`
	Groups  []Group  `json:"groups"`
	Unsized []string `json:"unsized,omitempty"` // groups whose processors are not known: left out of the overall imbalance
	Overall Ratio    `json:"overall_imbalance"`
	// Temporary is the largest hourly ratio over the hours in which both
	// groups had arrivals; OneSidedHours the hours in which one group had
	// arrivals and another none (their ratio has no value).
	Temporary     Ratio  `json:"temporary_imbalance"`
	OneSidedHours int    `json:"one_sided_hours"`
	HoursWithJobs int    `json:"hours_with_arrivals"`
	Days          []Day  `json:"days"`
	Hours         []Hour `json:"hours"`
}

// Analyzer gathers arrivals, one record at a time.
type Analyzer struct {
	opts    Options
	index   map[string]int
	names   []string
	jobs    []int64
	hours   map[int64][]float64 // hour number → arrivals per group
	days    map[int64][]float64
	use     [][]edge // per group: processors in use changes, for the size estimate
	noUse   []bool   // a group had a job without a start or end
	base    int64
	loc     *time.Location
	absTime bool
}

type edge struct {
	t float64
	d float64
}

// New starts an analysis. base is the traces' time base (gwa.Header's
// UnixStartTime; 0 when unknown: days and hours count from time 0).
func New(opts Options, base int64) (*Analyzer, error) {
	switch opts.By {
	case "":
		opts.By = BySite
	case BySite, ByPartition, ByTrace:
	default:
		return nil, fmt.Errorf("group by %q: use %s, %s or %s", opts.By, BySite, ByPartition, ByTrace)
	}
	for name, n := range opts.Sizes {
		if n < 1 {
			return nil, fmt.Errorf("group %q: %d processors: a size must be at least 1", name, n)
		}
	}
	loc := opts.Location
	if loc == nil {
		loc = time.UTC
	}
	return &Analyzer{opts: opts, index: map[string]int{}, hours: map[int64][]float64{}, days: map[int64][]float64{},
		base: base, loc: loc, absTime: base != 0}, nil
}

// GroupOf is a record's group under the options (trace: the trace's own
// name); "" when the record names none.
func (a *Analyzer) GroupOf(r *gwa.Record, trace string) string {
	switch a.opts.By {
	case ByTrace:
		return trace
	case ByPartition:
		if r.PartitionID == "" || r.PartitionID == "-1" {
			return ""
		}
		return r.PartitionID
	}
	return r.Site()
}

// Add counts one record of group g. A record with an unknown submit time
// or no group is skipped (it reports false).
func (a *Analyzer) Add(g string, r *gwa.Record) bool {
	if g == "" || !gwa.Known(r.SubmitTime) || math.IsNaN(r.SubmitTime) || math.IsInf(r.SubmitTime, 0) {
		return false
	}
	k, ok := a.index[g]
	if !ok {
		k = len(a.names)
		a.index[g] = k
		a.names = append(a.names, g)
		a.jobs = append(a.jobs, 0)
		a.use = append(a.use, nil)
		a.noUse = append(a.noUse, false)
	}
	n := 1.0
	procs := r.Procs()
	if !a.opts.NoSplit {
		n = max(1, math.Round(procs))
	}
	a.jobs[k]++
	t := r.SubmitTime
	add := func(m map[int64][]float64, at int64) {
		v := m[at]
		for len(v) <= k {
			v = append(v, 0)
		}
		v[k] += n
		m[at] = v
	}
	add(a.hours, a.bin(t, time.Hour))
	add(a.days, a.bin(t, 24*time.Hour))
	if _, sized := a.opts.Sizes[g]; !sized {
		run, okRun := r.KnownRunTime()
		if !okRun || procs <= 0 {
			a.noUse[k] = true
		} else {
			start := r.Start()
			a.use[k] = append(a.use[k], edge{start, procs}, edge{start + run, -procs})
		}
	}
	return true
}

// bin is the number of the period (an hour, a day) a submit time falls in,
// on the clock of the location when the trace has a time base.
func (a *Analyzer) bin(t float64, period time.Duration) int64 {
	if !a.absTime {
		return int64(math.Floor(t / period.Seconds()))
	}
	at := time.Unix(a.base, 0).Add(time.Duration(t * 1e9)).In(a.loc)
	_, off := at.Zone()
	return int64(math.Floor((float64(at.Unix()) + float64(off) + frac(t)) / period.Seconds()))
}

func frac(t float64) float64 { return t - math.Floor(t) }

// label names an hour or a day.
func (a *Analyzer) label(n int64, period time.Duration) string {
	if !a.absTime {
		return "+" + strconv.FormatInt(n*int64(period/time.Second), 10) + "s"
	}
	// n periods of local clock time since the epoch: the local time whose
	// clock reads that is UTC of it less the offset there.
	utc := time.Unix(n*int64(period/time.Second), 0).UTC()
	local := time.Date(utc.Year(), utc.Month(), utc.Day(), utc.Hour(), 0, 0, 0, a.loc)
	if period >= 24*time.Hour {
		return local.Format("2006-01-02")
	}
	return local.Format("2006-01-02T15:04Z07:00")
}

// Result is the analysis of the records added.
func (a *Analyzer) Result() *Result {
	res := &Result{By: a.opts.By, Split: !a.opts.NoSplit, Groups: []Group{}, Days: []Day{}, Hours: []Hour{}}
	ng := len(a.names)
	sizes := make([]float64, ng)
	for k, name := range a.names {
		g := Group{Name: name, Jobs: a.jobs[k]}
		if n, ok := a.opts.Sizes[name]; ok {
			g.Processors = n
		} else if !a.noUse[k] {
			g.Processors, g.Estimated = peak(a.use[k]), true
		}
		sizes[k] = float64(g.Processors)
		if g.Processors == 0 {
			res.Unsized = append(res.Unsized, name)
		}
		res.Groups = append(res.Groups, g)
	}
	// Days in order: the cumulative normalized loads and their imbalance.
	cum := make([]float64, ng)
	for _, d := range sortedKeys(a.days) {
		for k, v := range a.days[d] {
			cum[k] += v
		}
		loads := make([]float64, ng)
		for k := range loads {
			if sizes[k] > 0 {
				loads[k] = cum[k] / sizes[k]
			}
		}
		r := extremes(a.names, loads)
		r.At = a.label(d, 24*time.Hour)
		res.Days = append(res.Days, Day{Day: r.At, Loads: loads, Imbalance: r})
	}
	for k := range res.Groups {
		res.Groups[k].Arrivals = cum[k]
		if sizes[k] > 0 {
			res.Groups[k].Load = cum[k] / sizes[k]
		}
	}
	if n := len(res.Days); n > 0 {
		res.Overall = res.Days[n-1].Imbalance
	}
	for _, h := range sortedKeys(a.hours) {
		v := make([]float64, ng)
		copy(v, a.hours[h])
		at := a.label(h, time.Hour)
		r := extremes(a.names, v)
		r.At = at
		one := false
		for _, x := range v {
			one = one || x == 0
		}
		one = one && ng > 1
		if one {
			res.OneSidedHours++
		}
		res.HoursWithJobs++
		res.Hours = append(res.Hours, Hour{Hour: at, Arrivals: v, Imbalance: r, OneSided: one})
		if r.Ratio > res.Temporary.Ratio {
			res.Temporary = r
		}
		for k, x := range v {
			if x > res.Groups[k].PeakHourArrivals {
				res.Groups[k].PeakHourArrivals, res.Groups[k].PeakHour = x, at
			}
		}
	}
	return res
}

// extremes is the ratio of the largest to the smallest positive value of
// loads (ties: the first group for the largest, the last for the
// smallest, so that equal loads give 1:1 between two groups), or a zero
// Ratio when fewer than two are positive.
func extremes(names []string, loads []float64) Ratio {
	hi, lo := -1, -1
	for k, x := range loads {
		if x <= 0 {
			continue
		}
		if hi < 0 || x > loads[hi] {
			hi = k
		}
		if lo < 0 || x <= loads[lo] {
			lo = k
		}
	}
	if hi < 0 || hi == lo {
		return Ratio{}
	}
	return Ratio{Ratio: loads[hi] / loads[lo], High: names[hi], Low: names[lo], HighLoad: loads[hi], LowLoad: loads[lo]}
}

// peak is the most processors in use at once: ends before starts at one
// instant.
func peak(es []edge) int {
	slices.SortFunc(es, func(x, y edge) int { return cmp.Or(cmp.Compare(x.t, y.t), cmp.Compare(x.d, y.d)) })
	cur, best := 0.0, 0.0
	for _, e := range es {
		cur += e.d
		best = max(best, cur)
	}
	return int(math.Round(best))
}

func sortedKeys(m map[int64][]float64) []int64 {
	keys := make([]int64, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// ParseSizes reads NAME=PROCESSORS pairs (a flag's values; each may hold
// several, comma-separated).
func ParseSizes(list []string) (map[string]int, error) {
	out := map[string]int{}
	for _, item := range list {
		for _, p := range strings.Split(item, ",") {
			p = strings.TrimSpace(p)
			if p == "" {
				continue
			}
			name, num, ok := strings.Cut(p, "=")
			n, err := strconv.Atoi(strings.TrimSpace(num))
			if !ok || strings.TrimSpace(name) == "" || err != nil || n < 1 || n > 1<<30 {
				return nil, fmt.Errorf("size %q: want NAME=PROCESSORS, a whole number from 1", p)
			}
			out[strings.TrimSpace(name)] = n
		}
	}
	return out, nil
}

// Trace is one input of Analyze: its name (its group under ByTrace) and
// its reader.
type Trace struct {
	Name   string
	Reader gwa.Reader
}

// Analyze reads every record of the traces; a group is named as the
// trace's header names it (an SWF partition's name). Their submit times are put on
// the first trace's time base (a trace with another base is shifted by
// the difference; one without a base is taken as on the first's).
// Records without a group or a submit time are skipped and counted.
func Analyze(traces []Trace, opts Options) (*Result, int64, error) {
	if len(traces) == 0 {
		return nil, 0, fmt.Errorf("no trace to analyse")
	}
	base := traces[0].Reader.Header().UnixStartTime
	if opts.Location == nil && base != 0 {
		if tz := traces[0].Reader.Header().TimeZone; tz != "" {
			if loc, err := time.LoadLocation(tz); err == nil {
				opts.Location = loc
			}
		}
	}
	a, err := New(opts, base)
	if err != nil {
		return nil, 0, err
	}
	skipped := int64(0)
	for _, tr := range traces {
		shift := 0.0
		if b := tr.Reader.Header().UnixStartTime; b != 0 && base != 0 {
			shift = float64(b - base)
		}
		for {
			r, err := tr.Reader.Next()
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				return nil, skipped, err
			}
			r.SubmitTime += shift
			g := a.GroupOf(&r, tr.Name)
			if g != "" && opts.By != ByTrace {
				g = tr.Reader.Header().SiteName(g) // an SWF partition by its name
			}
			if !a.Add(g, &r) {
				skipped++
			}
		}
	}
	return a.Result(), skipped, nil
}

// WriteText prints the analysis: the groups, the overall and temporary
// imbalance, and the day at whose end the overall imbalance was largest.
func WriteText(w io.Writer, res *Result) {
	fmt.Fprintf(w, "Load imbalance between %ss (%s)\n\n", res.By, map[bool]string{true: "a job of n processors counts n arrivals", false: "jobs counted, not processors"}[res.Split])
	fmt.Fprintf(w, "%-24s %12s %10s %12s %14s  %s\n", res.By, "processors", "jobs", "arrivals", "load/processor", "peak hour (arrivals)")
	for _, g := range res.Groups {
		procs := "?"
		if g.Processors > 0 {
			procs = strconv.Itoa(g.Processors)
			if g.Estimated {
				procs += " (est.)"
			}
		}
		fmt.Fprintf(w, "%-24s %12s %10d %12.0f %14.2f  %s (%.0f)\n", g.Name, procs, g.Jobs, g.Arrivals, g.Load, g.PeakHour, g.PeakHourArrivals)
	}
	fmt.Fprintln(w)
	if len(res.Unsized) > 0 {
		fmt.Fprintf(w, "processors unknown (left out of the overall imbalance): %s\n", strings.Join(res.Unsized, ", "))
	}
	fmt.Fprintf(w, "overall imbalance at the end (%s): %s\n", dayOf(res), ratioText(res.Overall))
	if d, ok := maxDay(res); ok {
		fmt.Fprintf(w, "largest overall imbalance at a day's end: %s, on %s\n", ratioText(d.Imbalance), d.Day)
	}
	fmt.Fprintf(w, "temporary imbalance (largest hourly ratio, both with arrivals): %s, in the hour from %s\n", ratioText(res.Temporary), res.Temporary.At)
	fmt.Fprintf(w, "hours with arrivals: %d; of them with a %s without any: %d\n", res.HoursWithJobs, res.By, res.OneSidedHours)
	if res.Groups != nil && anyEstimated(res) {
		fmt.Fprintln(w, "(est.): no size given (--sizes): the peak of processors its jobs had in use at once")
	}
}

func dayOf(res *Result) string {
	if n := len(res.Days); n > 0 {
		return res.Days[n-1].Day
	}
	return "no day"
}

func maxDay(res *Result) (Day, bool) {
	best, ok := Day{}, false
	for _, d := range res.Days {
		if d.Imbalance.Ratio > best.Imbalance.Ratio {
			best, ok = d, true
		}
	}
	return best, ok
}

func anyEstimated(res *Result) bool {
	for _, g := range res.Groups {
		if g.Estimated {
			return true
		}
	}
	return false
}

func ratioText(r Ratio) string {
	if r.Ratio == 0 {
		return "none (fewer than two groups with arrivals and a size)"
	}
	return fmt.Sprintf("%.1f:1 (%s %.4g against %s %.4g)", r.Ratio, r.High, r.HighLoad, r.Low, r.LowLoad)
}
