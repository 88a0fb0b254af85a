// Package report turns runs in the results store into reports: a static
// HTML page with every table and figure and the provenance of each run
// (Write), a short text summary (Summary), and full text, JSON and CSV
// (Build, then WriteText, WriteJSON, WriteCSV). Metrics come from
// analyzer/metrics, figures from plots.
package report

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/gmark/gmark/analyzer/fidelity"
	"github.com/gmark/gmark/analyzer/metrics"
	"github.com/gmark/gmark/analyzer/store"
	"github.com/gmark/gmark/internal/outfile"
)

// Options tune a report.
type Options struct {
	// Tau is the bounded slowdown's threshold (10 s when 0).
	Tau time.Duration
	// Processors is the system size for utilization (0: from the run's
	// records; see docs/metrics.md).
	Processors int
	// WallTime reports runs submitted with --speedup in wall time, as
	// observed, instead of the default workload time (metrics.Options).
	WallTime bool
	// Bins is the number of intervals of the time series (100 when 0).
	Bins int
	// Command is the command line that asked for the report, shown in it.
	Command []string
	// Log, when set, receives a line per step (reading a run, drawing).
	Log io.Writer
	// IncludeWarm counts the warm jobs of a trace replay like the others
	// (metrics.Options.IncludeWarm).
	IncludeWarm bool
	// Fidelity compares each run that replayed a trace window with the
	// original window (analyzer/fidelity), which ReadWindow reads again
	// from its trace (gwa.ReadReplayedWindow).
	Fidelity   bool
	ReadWindow fidelity.WindowReader
	// PDF writes each figure as PDF too (for a paper), beside its PNG and
	// SVG, and links it from the page.
	PDF bool
	// JobSeries keeps every run's per-job series (metrics.Samples.JobSubmit
	// … JobDelay), which the regression gate resamples: the runs are then
	// read whole instead of streamed, and the report's memory grows with
	// their jobs.
	JobSeries bool
}

func (o Options) metrics() metrics.Options {
	return metrics.Options{Tau: o.Tau, WallTime: o.WallTime, Bins: o.Bins, IncludeWarm: o.IncludeWarm}
}

// PrefixLog is a writer for Options.Log that starts each write (each line
// of the log) with prefix.
func PrefixLog(w io.Writer, prefix string) io.Writer { return prefixWriter{w: w, prefix: prefix} }

type prefixWriter struct {
	w      io.Writer
	prefix string
}

func (p prefixWriter) Write(b []byte) (int, error) {
	if _, err := io.WriteString(p.w, p.prefix); err != nil {
		return 0, err
	}
	return p.w.Write(b)
}

func (o Options) logf(format string, args ...any) {
	if o.Log != nil {
		fmt.Fprintf(o.Log, format+"\n", args...)
	}
}

// Run is one run of a report.
type Run struct {
	Label      string              `json:"label"` // R1, R2, … in the figures
	Metrics    *metrics.RunMetrics `json:"metrics"`
	Settings   string              `json:"settings"`
	CreatedNS  int64               `json:"created_ns"`
	Provenance []store.Provenance  `json:"provenance"`
	// Fidelity compares the run's trace replays with their windows (with
	// Options.Fidelity); FidelityNote says why there is none.
	Fidelity     []*fidelity.Result `json:"fidelity,omitempty"`
	FidelityNote string             `json:"fidelity_note,omitempty"`
}

// Report is the metrics of a set of runs of one store.
type Report struct {
	DB        string    `json:"db"`
	Generated time.Time `json:"generated"`
	Command   []string  `json:"command,omitempty"`
	TauS      float64   `json:"tau_s"`
	Runs      []*Run    `json:"runs"`
}

// Build reads the runs (every run of the store when runIDs is empty, oldest
// first) and computes their metrics.
func Build(ctx context.Context, dbPath string, runIDs []string, opts Options) (*Report, error) {
	st, err := store.OpenReadOnly(dbPath)
	if err != nil {
		return nil, err
	}
	defer st.Close()
	if len(runIDs) == 0 {
		runs, err := st.Runs()
		if err != nil {
			return nil, err
		}
		for _, r := range runs {
			runIDs = append(runIDs, r.ID)
		}
		if len(runIDs) == 0 {
			return nil, fmt.Errorf("%s holds no run", dbPath)
		}
	}
	rep := &Report{DB: dbPath, Generated: time.Now().UTC(), Command: CleanCommand(opts.Command), TauS: metrics.DefaultTau.Seconds()}
	if opts.Tau > 0 {
		rep.TauS = opts.Tau.Seconds()
	}
	for i, id := range runIDs {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		opts.logf("reading run %s", id)
		rd, m, err := readRun(st, id, opts)
		if err != nil {
			return nil, err
		}
		run := &Run{Label: fmt.Sprintf("R%d", i+1), Metrics: m, Settings: rd.Settings, CreatedNS: rd.CreatedNS, Provenance: rd.Provenance}
		if opts.Fidelity {
			opts.logf("comparing run %s with the trace it replayed", id)
			if err := run.compare(st, rd, opts); err != nil {
				return nil, err
			}
		}
		rep.Runs = append(rep.Runs, run)
	}
	return rep, nil
}

// readRun reads a run and computes its metrics: streamed from the store
// (metrics.Stream) when the report needs neither the jobs (a fidelity
// comparison) nor the per-job series (the regression gate), and the run
// can be; else loaded whole (metrics.Load). The numbers are the same.
func readRun(st *store.Store, id string, opts Options) (*metrics.RunData, *metrics.RunMetrics, error) {
	lo := metrics.LoadOptions{Processors: opts.Processors}
	collectFor(st, id)
	if !opts.Fidelity && !opts.JobSeries {
		rd, m, ok, err := metrics.Stream(st, id, lo, opts.metrics())
		if err != nil || ok {
			return rd, m, err
		}
	}
	rd, err := metrics.Load(st, id, lo)
	if err != nil {
		return nil, nil, err
	}
	return rd, metrics.Compute(rd, opts.metrics()), nil
}

// Write writes the HTML report of the runs (every run of the store when
// runIDs is empty) into dir: index.html and its figures (PNG, and SVG
// linked from each), a page that opens in a browser with no server. It
// returns the path of index.html.
func Write(ctx context.Context, dbPath string, runIDs []string, dir string, opts Options) (indexPath string, err error) {
	if err := CheckDir(dir); err != nil { // before the work, not after
		return "", err
	}
	rep, err := Build(ctx, dbPath, runIDs, opts)
	if err != nil {
		return "", err
	}
	return rep.WriteHTML(ctx, dir, opts)
}

// WriteRun writes the HTML report of one run into dir and prints its
// summary to w, from one reading of the store: what 'gmark run' does at its
// end. With the same options it prints what 'gmark report --run RUN
// --format summary' prints (the same numbers, in the same time base).
func WriteRun(ctx context.Context, w io.Writer, dbPath, runID, dir string, opts Options) (indexPath string, err error) {
	if err := CheckDir(dir); err != nil {
		return "", err
	}
	rep, err := Build(ctx, dbPath, []string{runID}, opts)
	if err != nil {
		return "", err
	}
	if indexPath, err = rep.WriteHTML(ctx, dir, opts); err != nil {
		return "", err
	}
	return indexPath, rep.WriteSummary(w)
}

// WriteHTML writes the report's page and figures into dir (created when
// absent; a symbolic link to a directory is written into). The page goes
// through internal/outfile: a reader never sees half of it.
func (r *Report) WriteHTML(ctx context.Context, dir string, opts Options) (string, error) {
	if err := CheckDir(dir); err != nil {
		return "", err
	}
	figDir := filepath.Join(dir, FiguresDir)
	if err := CheckDir(figDir); err != nil {
		return "", err
	}
	if err := os.MkdirAll(figDir, 0o755); err != nil {
		return "", err
	}
	opts.logf("drawing the figures")
	figs, err := FiguresAs(ctx, r, figDir, opts.PDF)
	if err != nil {
		return "", err
	}
	var page bytes.Buffer
	if err := r.html(&page, figs); err != nil {
		return "", err
	}
	index := filepath.Join(dir, "index.html")
	if err := outfile.WriteFile(index, page.Bytes()); err != nil {
		return "", err
	}
	return index, nil
}

// CheckDir checks that dir can hold a report: it is a directory, a
// symbolic link to one, or absent (a dangling link is refused: the report
// would not be where the link says).
func CheckDir(dir string) error {
	fi, err := os.Stat(dir)
	switch {
	case err == nil && fi.IsDir():
		return nil
	case err == nil:
		return fmt.Errorf("%s is %s, not a directory: the report is a directory (index.html and %s/); name a new or existing directory", dir, outfile.Kind(fi.Mode()), FiguresDir)
	case errors.Is(err, fs.ErrNotExist):
		if li, lerr := os.Lstat(dir); lerr == nil && li.Mode()&fs.ModeSymlink != 0 {
			dest, _ := os.Readlink(dir)
			return fmt.Errorf("%s is a symbolic link to %s, which does not exist: create it, or name another directory", dir, dest)
		}
		return nil
	}
	return err
}

// Metrics are the metrics of the report's runs, in its order.
func (r *Report) Metrics() []*metrics.RunMetrics {
	out := make([]*metrics.RunMetrics, len(r.Runs))
	for i, run := range r.Runs {
		out[i] = run.Metrics
	}
	return out
}
