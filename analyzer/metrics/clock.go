package metrics

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/gmark/gmark/analyzer/store"
	"github.com/gmark/gmark/record"
)

// Clock names: a figure is in wall time (as the submitter's clock measured
// it), in workload time (converted to the workload's own time), or in the
// simulation's time (a simulated run's clock, which is the workload's).
const (
	Wall      = "wall"
	Workload  = "workload"
	Simulated = "simulated"
)

// Clocks says which clock each kind of figure of a run is in. --speedup S
// compresses the schedule (the submission instants) S times; whether the
// jobs are compressed too depends on the target: the bundled core emulates
// them on its own clock, time_scale times faster than the wall clock, while
// local, slurm, sge, condor and dryrun jobs run in real time. So a figure a
// target measured in wall time stays in wall time, and only the core's
// emulated jobs are converted to workload time (docs/metrics.md).
type Clocks struct {
	// Jobs is the clock of the jobs' durations: wait, run, response, the
	// slowdowns' τ, goodput in processor-seconds, the composite jobs', the
	// breakdown's, the core's and the co-allocation figures.
	Jobs string `json:"jobs"`
	// Span is the clock of the run's span: makespan, throughput and the
	// series over time (their bins and the submission instants).
	Span string `json:"span"`
	// Delay is the submission delay's: always wall time (the submitter's
	// accuracy, which no speedup compresses).
	Delay string `json:"delay"`
	// Speedup compressed the schedule; JobScale the jobs (the bundled
	// core's time scale; 1 for a target whose jobs ran in real time).
	Speedup  float64 `json:"speedup"`
	JobScale float64 `json:"job_scale"`
	// JobScaleSource says where JobScale came from.
	JobScaleSource string `json:"job_scale_source,omitempty"`
}

// newClocks decides the clocks of a run: job durations are converted to
// workload time when the core compressed them (jobScale ≠ 1), the span
// when the schedule and the jobs were compressed alike (a span of a
// schedule compressed S× whose jobs ran in real time is neither the
// workload's span nor any multiple of it: it stays in wall time). wall
// keeps every figure in wall time, as observed.
func newClocks(rd *RunData, wall bool) Clocks {
	c := Clocks{Jobs: Wall, Span: Wall, Delay: Wall, Speedup: rd.Speedup, JobScale: rd.JobScale, JobScaleSource: rd.JobScaleSource}
	if c.Speedup <= 0 {
		c.Speedup = 1
	}
	if c.JobScale <= 0 {
		c.JobScale = 1
	}
	if rd.Target == "koala-sim" {
		c.Jobs, c.Span = Simulated, Simulated
		return c
	}
	if wall {
		return c
	}
	if c.JobScale != 1 {
		c.Jobs = Workload
		if c.Speedup == c.JobScale {
			c.Span = Workload
		}
	}
	return c
}

// JobFactor is the factor from the store's times to the jobs' figures:
// workload seconds per wall second when they are converted, else 1.
func (c Clocks) JobFactor() float64 {
	if c.Jobs == Workload {
		return c.JobScale
	}
	return 1
}

// SpanFactor is the factor from the store's times to the span's figures.
func (c Clocks) SpanFactor() float64 {
	if c.Span == Workload {
		return c.Speedup
	}
	return 1
}

// Base is the run's one time base, for the tables that name one: workload
// when any figure is converted, else wall (or simulated).
func (c Clocks) Base() string {
	switch {
	case c.Jobs == Simulated:
		return Simulated
	case c.Jobs == Workload || c.Span == Workload:
		return Workload
	}
	return Wall
}

// Plain tells whether the run compressed nothing: every figure is in wall
// time (or the simulation's) as measured, and there is nothing to say.
func (c Clocks) Plain() bool { return c.Speedup == 1 && c.JobScale == 1 }

// JobsCompression is how many times faster than the workload's own time
// the jobs' figures, as reported, ran: 1 when they are converted or the
// jobs were never compressed. Two runs' job figures compare only when
// this is the same.
func (c Clocks) JobsCompression() float64 {
	if c.Jobs == Workload {
		return 1
	}
	return c.JobScale
}

// SpanCompression is the same for the span's figures: the schedule's
// compression and the jobs', both 1 when converted.
func (c Clocks) SpanCompression() [2]float64 {
	if c.Span == Workload {
		return [2]float64{1, 1}
	}
	return [2]float64{c.Speedup, c.JobScale}
}

// ClockDifference says which kinds of figure of two runs are on
// different clocks (compressed differently, as reported), or "" when each
// kind compares: job durations, the span; the submission delay is always
// wall time.
func ClockDifference(a, b Clocks) string { return ClockDifferenceOf(a, b, true, true) }

// ClockDifferenceOf is ClockDifference of the job durations (jobs) and of
// the span (span) only.
func ClockDifferenceOf(a, b Clocks, jobs, span bool) string {
	var d []string
	if x, y := a.JobsCompression(), b.JobsCompression(); jobs && x != y {
		d = append(d, "job durations: "+a.jobsWord()+" against "+b.jobsWord())
	}
	if span && a.SpanCompression() != b.SpanCompression() {
		d = append(d, "makespan and throughput: "+a.spanWord()+" against "+b.spanWord())
	}
	return strings.Join(d, "; ")
}

func (c Clocks) jobsWord() string {
	switch {
	case c.Jobs == Workload:
		return "workload time (the bundled core's, × " + num(c.JobScale) + ")"
	case c.Jobs == Simulated:
		return "the simulation's time"
	case c.JobScale != 1:
		return "wall time of jobs compressed " + num(c.JobScale) + "× (--wall-time)"
	}
	return "wall time (jobs in real time)"
}

func (c Clocks) spanWord() string {
	switch {
	case c.Span == Workload:
		return "workload time (× " + num(c.Speedup) + ")"
	case c.Span == Simulated:
		return "the simulation's time"
	case c.Speedup != 1 || c.JobScale != 1:
		return "wall time of a schedule compressed " + num(c.Speedup) + "× (jobs " + num(c.JobScale) + "×)"
	}
	return "wall time"
}

// Describe says in words which clock each kind of figure is in.
func (c Clocks) Describe() (jobs, span, delay string) {
	s := num(c.Speedup)
	k := num(c.JobScale)
	switch {
	case c.Jobs == Simulated:
		jobs = "job durations in the simulation's time (the workload's)"
	case c.Jobs == Workload:
		jobs = "job durations in workload time: the bundled core emulated the jobs on a clock " + k + "× the wall clock (" + c.JobScaleSource + "), converted (wall × " + k + ")"
	case c.JobScale != 1:
		jobs = "job durations in wall time as observed (--wall-time), on the bundled core's clock " + k + "× faster than the workload's"
	case c.Speedup != 1:
		jobs = "job durations in wall time: the jobs ran in real time (--speedup " + s + " compresses the schedule only)"
	default:
		jobs = "job durations in wall time"
	}
	switch {
	case c.Span == Simulated:
		span = "makespan, throughput and the series over time in the simulation's time"
	case c.Span == Workload:
		span = "makespan, throughput and the series over time in workload time (wall × " + s + ")"
	case c.Speedup != 1 || c.JobScale != 1:
		span = "makespan, throughput and the series over time in wall time, of a schedule compressed " + s + "× with jobs compressed " + k +
			"×: no factor converts them to the workload's time; they compare only with runs compressed alike"
	default:
		span = "makespan, throughput and the series over time in wall time"
	}
	return jobs, span, "submission delay in wall time (the submitter's accuracy)"
}

func num(v float64) string { return strconv.FormatFloat(v, 'g', 4, 64) }

// findJobScale sets how much the target compressed the jobs: 1 (they ran
// in real time) for every target but the bundled core, whose clock runs
// its time_scale times faster than the wall clock: the scale the run's
// target configuration gave the core ('gmark run --speedup'), else the
// grid's scheduler.time_scale (the grid the run recorded, else the file
// its configuration names), else, for a core gmark did not start, the
// scale measured from the jobs (the core's durations against the
// submitter's). The koala target records the scale the core itself
// reports (its "koala" annotation "time_scale"), which wins over all.
func (rd *RunData) findJobScale(st *store.Store) {
	rd.JobScale, rd.JobScaleSource = 1, "the jobs ran in real time on target "+rd.Target
	switch rd.Target {
	case "koala":
	case "koala-sim":
		rd.JobScaleSource = "a simulation: its clock is the workload's"
		return
	default:
		return
	}
	if as, err := st.Annotations(rd.ID, record.AnnotationKoala); err == nil {
		for i := len(as) - 1; i >= 0; i-- {
			if v, err := strconv.ParseFloat(as[i].Value, 64); as[i].Key == "time_scale" && err == nil && v > 0 && !math.IsInf(v, 0) {
				rd.JobScale, rd.JobScaleSource = v, "the core's time scale, as it reported it"
				return
			}
		}
	}
	tc, wd := rd.lastTargetConfig()
	if tc.TimeScale > 0 {
		rd.JobScale, rd.JobScaleSource = tc.TimeScale, "the core's time scale, as the run started it"
		return
	}
	if tc.Grid != "" {
		g, err := rd.recordedGrid(st)
		if g == nil && err == nil {
			g, err = readGrid(tc.Grid, wd)
		}
		if err == nil && g != nil {
			rd.JobScale, rd.JobScaleSource = 1, "the grid "+tc.Grid+" sets no time_scale"
			if s := g.Scheduler.TimeScale; s > 0 {
				rd.JobScale, rd.JobScaleSource = s, "the grid's time_scale"
			}
			return
		}
	}
	// Measured, the scale carries the requests' latency: within 2% of 1 it
	// is 1, within 2% of the speedup it is the speedup ('gmark run'
	// compresses the schedule and the core alike).
	m := 1.0
	if rd.Koala != nil && rd.Koala.TimeScale > 0 {
		m = rd.Koala.TimeScale
	}
	near := func(a, b float64) bool { return math.Abs(a-b) <= 0.02*b }
	switch {
	case near(m, 1):
		rd.JobScaleSource = "the core's clock ran as the wall clock (measured from the jobs)"
	case near(m, rd.Speedup):
		rd.JobScale, rd.JobScaleSource = rd.Speedup, fmt.Sprintf("measured from the jobs (median %s), taken as the speedup", num(m))
	default:
		rd.JobScale, rd.JobScaleSource = m, "measured from the jobs: the core's durations against the submitter's, median"
	}
}
