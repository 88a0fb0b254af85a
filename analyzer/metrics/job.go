// Package metrics computes gmark's performance metrics from the results
// store: per job (wait, response, run time, slowdown, bounded slowdown,
// submission delay), per run (success and failure rates, utilization,
// goodput, throughput, makespan, their evolution over time), per job type,
// site and user, the operational level of composite jobs and bags of tasks,
// and, for the bundled core, the response-time breakdown, placement time,
// claiming tries, transfer time and wasted processor time. docs/metrics.md
// gives every formula.
//
// The per-job functions are pure functions of a Job; Compute is a pure
// function of a RunData; Load reads a RunData from the store; Stream reads
// a run and computes its metrics in one pass, holding none of its jobs
// (Compute's numbers, for the runs it takes).
package metrics

import (
	"strings"
	"time"

	"github.com/gmark/gmark/analyzer/store"
)

// Job is what the metrics read of one job: its row's facts and, when the
// workload says, its user (the store's rows do not carry users; Load reads
// them from the run's workload file).
type Job struct {
	store.JobFacts
	User string // "" when the workload does not say
	// Warm marks a warm job of a trace replay (docs/workload.md): one the
	// run's manifest lists in warm_jobs. The metrics leave warm jobs out
	// unless Options.IncludeWarm.
	Warm bool
}

// Job states, as the store writes them.
const (
	Succeeded    = "succeeded"
	Failed       = "failed"
	Cancelled    = "cancelled"
	NeverStarted = "never-started"
)

// DefaultTau is the bounded slowdown's threshold τ.
const DefaultTau = 10 * time.Second

func sec(ns int64) float64 { return float64(ns) / 1e9 }

// Started tells whether the job started: it has a submit and a start time.
// Jobs that never started count in the success and failure rates (they
// failed to run) but have no wait, run or response time.
func (j *Job) Started() bool { return j.SubmitNS != 0 && j.StartNS != 0 }

// Completed tells whether the job ran to its own end: it started and ended,
// and was not cancelled (a cancelled job's run time is cut short by the
// cancellation, not the job's own). Run, response and slowdown are defined
// for completed jobs, successful or failed.
func (j *Job) Completed() bool {
	return j.Started() && j.EndNS != 0 && (j.State == Succeeded || j.State == Failed)
}

// Wait is start − submit, in seconds; ok is false when the job did not start.
func Wait(j *Job) (s float64, ok bool) {
	if !j.Started() {
		return 0, false
	}
	return sec(j.StartNS - j.SubmitNS), true
}

// RunTime is end − start, in seconds, for a completed job.
func RunTime(j *Job) (s float64, ok bool) {
	if !j.Completed() {
		return 0, false
	}
	return sec(j.EndNS - j.StartNS), true
}

// Response is end − submit (= wait + run), in seconds, for a completed job.
func Response(j *Job) (s float64, ok bool) {
	if !j.Completed() {
		return 0, false
	}
	return sec(j.EndNS - j.SubmitNS), true
}

// Slowdown is response / run for a completed job with a run time > 0 (the
// thesis's "run / response" is a slip; see docs/metrics.md).
func Slowdown(j *Job) (float64, bool) {
	r, ok := RunTime(j)
	if !ok || r <= 0 {
		return 0, false
	}
	resp, _ := Response(j)
	return resp / r, true
}

// BoundedSlowdown is max(1, response / max(run, τ)) for a completed job.
func BoundedSlowdown(j *Job, tau time.Duration) (float64, bool) {
	r, ok := RunTime(j)
	if !ok {
		return 0, false
	}
	resp, _ := Response(j)
	d := max(r, tau.Seconds())
	if d <= 0 {
		return 1, true
	}
	return max(1, resp/d), true
}

// Delay is the submission delay: actual − scheduled submission, in seconds,
// as the submitter measured it (on the monotonic clock); ok is false when
// the job was never submitted.
func Delay(j *Job) (float64, bool) {
	if !j.HasDelay {
		return 0, false
	}
	return sec(j.DelayNS), true
}

// ProcessorSeconds is processors × run time for a job that started and
// ended (cancelled ones too: they held their processors until then).
func ProcessorSeconds(j *Job) float64 {
	if !j.Started() || j.EndNS <= j.StartNS {
		return 0
	}
	return float64(j.Processors) * sec(j.EndNS-j.StartNS)
}

// SiteList splits Sites.
func (j *Job) SiteList() []string {
	if j.Sites == "" {
		return nil
	}
	return strings.Split(j.Sites, ",")
}

// CountComponents counts the components of a stored components JSON array
// ([{"site","count"}] or [{"Site","Count"}]) without decoding it.
func CountComponents(js string) int {
	n := strings.Count(js, `"site"`) + strings.Count(js, `"Site"`)
	return max(n, 1)
}
