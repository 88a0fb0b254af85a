package report

import (
	"context"
	"fmt"
	"io"

	"github.com/gmark/gmark/analyzer/gate"
)

// GateOptions are a regression gate's: the baseline's store and runs
// (every run of it when none), the comparison's settings and the format
// of its result (text or json).
type GateOptions struct {
	DB     string
	Runs   []string
	Config gate.Config
	Format string
	// AllowDifferentWorkloads compares sides whose workloads, specs or
	// scenarios differ (gate.CheckSides); the same runs on both sides are
	// refused whatever it says.
	AllowDifferentWorkloads bool
}

// Gate compares the runs of dbPath (every run when runIDs is empty) with
// the baseline's, metric by metric (gate.Compare), and writes the result
// to w. It returns the result (Failed: a metric regressed, or changed for
// the worse on too few values to judge). Bad usage (a baseline store or
// run that is not there, a side with no jobs, sides that share a run or
// differ in their workload, runs on different clocks) is a *StoreError.
func Gate(ctx context.Context, w io.Writer, dbPath string, runIDs []string, g GateOptions, opts Options) (*gate.Result, error) {
	if err := CheckStore(g.DB, g.Runs, true); err != nil {
		return nil, err
	}
	opts.Log, opts.JobSeries = nil, true // the gate resamples the jobs
	base, err := Build(ctx, g.DB, g.Runs, opts)
	if err != nil {
		return nil, err
	}
	cur, err := Build(ctx, dbPath, runIDs, opts)
	if err != nil {
		return nil, err
	}
	if err := gate.CheckJobs(base.Metrics(), cur.Metrics()); err != nil {
		return nil, &StoreError{err.Error()}
	}
	if err := gate.CheckSides(identities(base), identities(cur), g.AllowDifferentWorkloads); err != nil {
		return nil, &StoreError{err.Error()}
	}
	res, err := gate.Compare(base.Metrics(), cur.Metrics(), g.Config)
	if err != nil {
		return nil, &StoreError{err.Error()}
	}
	if g.Format == "json" {
		b, err := MarshalJSON(res)
		if err != nil {
			return nil, err
		}
		_, err = fmt.Fprintf(w, "%s\n", b)
		return res, err
	}
	return res, res.WriteText(w)
}

// identities are what the gate checks of a side's runs: the digest of
// each run's first provenance record, its workload, spec and scenario (of
// its last record: a resumed run ran the same).
func identities(r *Report) []gate.RunIdentity {
	var out []gate.RunIdentity
	for _, run := range r.Runs {
		m := run.Metrics
		id := gate.RunIdentity{Run: m.RunID, Store: r.DB, Scenario: m.Project + "/" + m.Scenario}
		if ps := run.Provenance; len(ps) > 0 {
			last := ps[len(ps)-1]
			id.Key = ps[0].Digest
			id.Workload, id.Spec, id.SpecPath = last.WorkloadSHA256, last.SpecSHA256, last.SpecPath
		}
		out = append(out, id)
	}
	return out
}
