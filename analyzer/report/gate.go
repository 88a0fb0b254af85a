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
}

// Gate compares the runs of dbPath (every run when runIDs is empty) with
// the baseline's, metric by metric (gate.Compare), and writes the result
// to w. It returns the metrics that regressed. Bad usage (a baseline store
// or run that is not there, a side with no jobs) is a *StoreError.
func Gate(ctx context.Context, w io.Writer, dbPath string, runIDs []string, g GateOptions, opts Options) (regressed []string, err error) {
	if err := CheckStore(g.DB, g.Runs, true); err != nil {
		return nil, err
	}
	opts.Log = nil
	base, err := Build(ctx, g.DB, g.Runs, opts)
	if err != nil {
		return nil, err
	}
	cur, err := Build(ctx, dbPath, runIDs, opts)
	if err != nil {
		return nil, err
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
		return res.Regressed, err
	}
	return res.Regressed, res.WriteText(w)
}
