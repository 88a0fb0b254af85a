package sim

import (
	"time"

	"github.com/gmark/gmark/record"
)

// CPUYear is the unit of goodput: a processor for 365 days.
const CPUYear = 365 * 24 * 3600.0

// Result is what a run measured. Times are seconds. The job metrics (AWT,
// ART, ASD) are over the jobs that finished within the measurement window.
type Result struct {
	Arch       string  `json:"arch"`
	Seed       uint64  `json:"seed"`
	Processors int     `json:"processors"`
	End        float64 `json:"end_s"` // end of the measurement window: the last arrival, or with cool-down the last end

	Jobs     int `json:"jobs"`     // arrived
	Rejected int `json:"rejected"` // could never run under the architecture (larger than every cluster it may use)
	Started  int `json:"started"`
	Finished int `json:"finished"`

	Utilization float64 `json:"utilization"` // busy processor-time / (processors × End)
	AWT         float64 `json:"awt_s"`       // average wait time
	ART         float64 `json:"art_s"`       // average response time
	ASD         float64 `json:"asd"`         // average bounded slowdown: max(1, response / max(run, τ))
	SlowdownTau float64 `json:"asd_tau_s"`   // τ

	Goodput float64 `json:"goodput_cpu_years"` // processor-time of finished jobs
	// GoodputBy splits the goodput by where the processors were relative
	// to the job's home cluster: local, intra-site, intra-grid, inter-grid.
	GoodputBy [4]float64 `json:"goodput_by_relation_cpu_years"`
	JF        float64    `json:"jf_percent"` // finished / arrived

	Messages          Messages `json:"messages"`
	Delegations       int64    `json:"delegations"`         // delegation hops (DMM)
	DelegationsPerJob float64  `json:"delegations_per_job"` // hops / arrived jobs
	// Delegated counts the jobs delegated at least once; HopsPerDelegated
	// is Delegations / Delegated, the mean delegation chain length of the
	// jobs that were delegated (the thesis's "number of delegations of a
	// job" read over the jobs that have one).
	Delegated        int64   `json:"delegated"`
	HopsPerDelegated float64 `json:"hops_per_delegated"`
	ChainPerJob      float64 `json:"chain_per_job"` // mean delegation chain length of the finished jobs' runs
	// The three counts a "delegation" can be (DMM): Delegations are the
	// accepted hops (above); DelegationAttempts the times a site manager
	// set out to delegate a request (a delegation cycle's, or a loaded or
	// processor-less site's passing it on), whether a target took it or
	// not; DelegationOffers the offers to one target each, taken or
	// rejected. Per arrived job: AttemptsPerJob, OffersPerJob. Zero (and
	// left out of the JSON) for the other architectures.
	DelegationAttempts int64   `json:"delegation_attempts,omitempty"`
	DelegationOffers   int64   `json:"delegation_offers,omitempty"`
	AttemptsPerJob     float64 `json:"attempts_per_job,omitempty"`
	OffersPerJob       float64 `json:"offers_per_job,omitempty"`

	Restarts      int     `json:"restarts"`         // runs killed by failures or expired leases
	Wasted        float64 `json:"wasted_cpu_years"` // processor-time of killed runs
	LeasesExpired int     `json:"leases_expired"`
	Events        int64   `json:"events"` // arrivals and heap events processed

	// Deadlines are Ballier et al.'s figures (global success, local
	// response and kill rate, wasted processor time, utilization by
	// class), from central's core model when its jobs have start
	// deadlines or its grid local workloads (docs/deadlines.md).
	Deadlines *record.CoreDeadlines `json:"deadlines,omitempty"`

	// Workflows are the figures of the composite jobs (docs/sim.md,
	// Workflows); nil, and left out of the JSON, for a workload without
	// any. The job figures above are over their tasks.
	Workflows *WorkflowResult `json:"workflows,omitempty"`
}

// MessagesByName is the message counts keyed by type name.
func (r *Result) MessagesByName() map[string]int64 { return r.Messages.ByName() }

// end is the end of the measurement window: the last arrival, or with
// cool-down the last end (the cool-down limit when jobs remain), or the
// horizon of a run cut there.
func (s *Sim) end() time.Duration {
	if s.horizonCut {
		return s.cfg.Horizon
	}
	end := s.lastArrival
	if s.cfg.CoolDown {
		end = max(s.lastArrival, s.lastEnd)
		if s.active > 0 || s.unreleased > 0 {
			end = s.lastArrival + s.cfg.CoolDownLimit
		}
	}
	return end
}

func (s *Sim) result() *Result {
	end := s.end()
	a := &s.acc
	busy := a.busy + s.hostedRun.busyAt(end)
	for _, c := range s.clusters {
		for _, j := range c.running {
			busy += float64(j.Procs) * sec(end-j.Start)
			s.countKeepAlives(j, end)
		}
	}
	procs, avail := s.capacity(end)
	r := &Result{
		Arch: s.cfg.Arch, Seed: s.cfg.Seed, Processors: procs, End: sec(end),
		Jobs: s.arrived, Rejected: a.rejected, Started: a.started, Finished: a.finished,
		SlowdownTau: sec(s.cfg.SlowdownBound),
		Messages:    s.bus.counts, Delegations: a.delegations, Delegated: a.delegated,
		DelegationAttempts: a.attempts, DelegationOffers: a.offers,
		Restarts: a.restarts, Wasted: a.wasted / CPUYear, LeasesExpired: a.leasesExpired, Events: s.events,
	}
	if avail > 0 {
		r.Utilization = busy / avail
	}
	r.Workflows = s.workflowResult()
	if n := float64(a.finished); n > 0 {
		r.AWT, r.ART, r.ASD = a.wait/n, a.resp/n, a.bsd/n
		r.ChainPerJob = float64(a.chains) / n
	}
	for i, g := range a.goodput {
		r.GoodputBy[i] = g / CPUYear
		r.Goodput += g / CPUYear
	}
	if a.delegated > 0 {
		r.HopsPerDelegated = float64(a.delegations) / float64(a.delegated)
	}
	if s.arrived > 0 {
		r.JF = 100 * float64(a.finished) / float64(s.arrived)
		r.DelegationsPerJob = float64(a.delegations) / float64(s.arrived)
		r.AttemptsPerJob = float64(a.attempts) / float64(s.arrived)
		r.OffersPerJob = float64(a.offers) / float64(s.arrived)
	}
	return r
}
