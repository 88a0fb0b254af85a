package grid

import (
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/gmark/gmark/stats"
)

// MinDeadlineL is the smallest L_p: with L_p = 0.001 a job whose deadline
// is an hour away is tried about 8,000 times before the deadline (the gap
// shrinks by 1 − L_p at each try, down to deadline_epsilon).
const MinDeadlineL = 1e-3

// Wait is the Ignore parameter I of a Wait-X policy (Ballier et al.): a job
// is ignored until I before its deadline, then tried by the Repeated
// Placement Policy. Inf (Wait-∞) ignores nothing: pure RPP.
type Wait struct {
	I   time.Duration
	Inf bool
}

// String is the policy's name: wait-10, wait-1m30s, wait-inf.
func (w Wait) String() string {
	if w.Inf {
		return "wait-inf"
	}
	if w.I%time.Second == 0 {
		return "wait-" + strconv.FormatInt(int64(w.I/time.Second), 10)
	}
	return "wait-" + w.I.String()
}

// WaitPresets are the policies of the paper's experiments.
var WaitPresets = []string{"wait-0", "wait-10", "wait-100", "wait-1000", "wait-inf"}

// ParseWait reads a deadline policy: "rpp" (pure RPP, Wait-∞), "wait-inf",
// or "wait-X" with X a number of seconds (wait-10) or a duration
// (wait-2m), from 0 to LongestRun.
func ParseWait(s string) (Wait, error) {
	t := strings.ToLower(strings.TrimSpace(s))
	if t == "rpp" || t == "wait-inf" || t == "wait-∞" {
		return Wait{Inf: true}, nil
	}
	x, ok := strings.CutPrefix(t, "wait-")
	if ok {
		if v, err := strconv.ParseFloat(x, 64); err == nil && v >= 0 && v <= LongestRun.Seconds() && !math.IsNaN(v) {
			return Wait{I: time.Duration(math.Round(v * 1e9))}, nil
		}
		if d, err := time.ParseDuration(x); err == nil && d >= 0 && d <= LongestRun {
			return Wait{I: d}, nil
		}
	}
	return Wait{}, fmt.Errorf("%q is not a deadline policy: rpp, wait-inf, or wait-X with X seconds or a duration (presets: %s)", s, strings.Join(WaitPresets, ", "))
}

// The readings of gp_kill and waitx_first_try, and their defaults.
const (
	GPKillAtDeadline = "at-deadline" // global priority kills local jobs at the try at the deadline only
	GPKillEveryTry   = "every-try"   // … and at every failed try before it
	WaitXRestart     = "restart"     // Wait-X tries from D − X: PT_0 = (D − X) + L_p·X
	WaitXSkip        = "skip"        // Wait-X keeps pure RPP's series from the submission, skipping its tries before D − X

	DefaultGPKill        = GPKillEveryTry
	DefaultWaitXFirstTry = WaitXSkip
)

// MarshalJSON is the scheduler's settings as JSON (what a simulation
// run's digest covers of a core's grid), gp_kill and waitx_first_try left
// out when they are at-deadline and restart: the readings every grid had
// before the two settings existed, so that a run under them keeps the
// digest (and the result) it had.
func (s Scheduler) MarshalJSON() ([]byte, error) {
	type plain Scheduler
	out := struct {
		plain
		GPKill        string `json:",omitempty"`
		WaitXFirstTry string `json:",omitempty"`
	}{plain: plain(s)}
	if s.GPKill != GPKillAtDeadline {
		out.GPKill = s.GPKill
	}
	if s.WaitXFirstTry != WaitXRestart {
		out.WaitXFirstTry = s.WaitXFirstTry
	}
	return json.Marshal(out)
}

// LocalLoad is a cluster's local users' workload: jobs that arrive by a
// Poisson process, each of a size drawn from Size (the Realistic Synthetic
// Distribution by default) and an exponential run time, and go to the
// cluster's local queue. Their draws come from the grid's seed, a stream
// per cluster. Either Load or Interarrival sets the rate.
type LocalLoad struct {
	// Load is the requested local load U_l: the mean time between
	// arrivals is E[size]·E[runtime] / (Load·processors) (Ballier et al.'s
	// U_l = λ_l·E[S_l] / (μ_l·N)).
	Load float64 `toml:"load"`
	// Interarrival is the mean time between arrivals, instead of Load.
	Interarrival Duration `toml:"interarrival"`
	Size         [2]int   `toml:"size"`              // [min, max] processors ([1, processors])
	SizeDist     string   `toml:"size_distribution"` // rsd (default) or uniform
	RSDQ         float64  `toml:"rsd_q"`             // q of the RSD (0.9)
	Runtime      Duration `toml:"runtime"`           // mean of the exponential run time (100s)
}

// Enabled tells whether the cluster has a local workload.
func (l LocalLoad) Enabled() bool { return l.Load > 0 || l.Interarrival.Duration > 0 }

// MeanSize is the mean of the local jobs' sizes.
func (l LocalLoad) MeanSize() float64 {
	if l.SizeDist == "uniform" {
		return float64(l.Size[0]+l.Size[1]) / 2
	}
	return stats.RSDMean(l.Size[0], l.Size[1], l.RSDQ)
}

// MeanInterarrival is the mean time between arrivals on a cluster of
// processors processors.
func (l LocalLoad) MeanInterarrival(processors int) time.Duration {
	if l.Interarrival.Duration > 0 {
		return l.Interarrival.Duration
	}
	secs := l.MeanSize() * l.Runtime.Seconds() / (l.Load * float64(processors))
	return time.Duration(math.Round(secs * 1e9))
}

// checkLocal checks a cluster's local workload, filling in its defaults.
func checkLocal(c *checker, cl *Cluster) {
	l := &cl.Local
	if *l == (LocalLoad{}) {
		return
	}
	if cl.Real() {
		c.fail("load", "does not apply to cluster %s: a real cluster's local jobs are its own users' (remove [cluster.local])", cl.Name)
		return
	}
	switch {
	case l.Load > 0 && l.Interarrival.Duration > 0:
		c.fail("load", "and interarrival both set the arrival rate: give one")
	case !l.Enabled():
		c.fail("load", "or interarrival is needed: [cluster.local] sets a local workload's arrival rate")
	}
	if l.Size == [2]int{} {
		l.Size = [2]int{1, cl.Processors}
	}
	if l.SizeDist == "" {
		l.SizeDist = "rsd"
	}
	if l.RSDQ == 0 {
		l.RSDQ = 0.9
	}
	if l.Runtime.Duration == 0 {
		l.Runtime.Duration = 100 * time.Second
	}
	if l.Load != 0 {
		c.floatIn("load", l.Load, 1e-6, 1)
	}
	if l.Interarrival.Duration != 0 {
		c.durationIn("interarrival", l.Interarrival.Duration, time.Millisecond, LongestRun)
	}
	if l.Size[0] < 1 || l.Size[1] < l.Size[0] || l.Size[1] > cl.Processors {
		c.fail("size", "= %v: must be [min, max] with 1 <= min <= max <= processors (%d)", l.Size, cl.Processors)
	}
	if l.SizeDist != "rsd" && l.SizeDist != "uniform" {
		c.fail("size_distribution", "must be rsd or uniform, got %q", l.SizeDist)
	}
	if !(l.RSDQ > 0 && l.RSDQ < 1) {
		c.fail("rsd_q", "= %g is out of range: must be in (0, 1)", l.RSDQ)
	}
	c.durationIn("runtime", l.Runtime.Duration, time.Millisecond, LongestRun)
	if c.err == nil && l.MeanInterarrival(cl.Processors) < time.Millisecond {
		c.fail("load", "= %g gives local jobs more often than one per millisecond: lower it", l.Load)
	}
}
