// Package fidelity compares a run that replayed a trace window (a wl:trace
// unit) with the original window: the distributions of the jobs' wait, run
// and response times, and the utilization over the window, each by a
// two-sample Kolmogorov–Smirnov test (stats.KSTwoSample). It tells a site
// administrator how far the system under test is from the system the trace
// was recorded on. docs/report.md gives every definition.
//
// The run's store says which window was replayed: the workload's manifest,
// recorded in the run's provenance, names the trace (path and SHA-256) and
// the selection of each wl:trace unit. The trace is read again from that
// path; a trace that is gone or changed is an error.
package fidelity

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"slices"
	"time"

	"github.com/gmark/gmark/analyzer/metrics"
	"github.com/gmark/gmark/analyzer/store"
	"github.com/gmark/gmark/internal/readlimit"
	"github.com/gmark/gmark/stats"
	"github.com/gmark/gmark/stats/sampstat"
	"github.com/gmark/gmark/workload"
	"gonum.org/v1/gonum/stat"
)

// Options tune Compare.
type Options struct {
	// Bins is the number of intervals of the utilization over the window
	// (100 when 0).
	Bins int
	// IncludeWarm compares the warm jobs too (metrics.Options.IncludeWarm).
	IncludeWarm bool
	// ReadWindow reads the original window again from its trace
	// (gwa.ReadReplayedWindow): the trace readers are above the analyzer,
	// so the caller hands their reader in.
	ReadWindow WindowReader
}

// WindowReader reads the window a wl:trace unit replayed from its trace,
// as recorded, into bins intervals of the window.
type WindowReader func(tr *workload.TraceReplay, bins int) (*workload.TraceWindow, error)

// ErrNoTrace is Compare's error for a run whose workload replayed no trace
// (or whose provenance does not say: a workload generated before gmark
// recorded the trace in the manifest).
var ErrNoTrace = errors.New("the run replayed no trace window (its workload's manifest records no wl:trace unit)")

// Result is the comparison of one wl:trace unit's replay with its window.
type Result struct {
	Unit        int     `json:"unit"`
	Trace       string  `json:"trace"`
	TraceSHA256 string  `json:"trace_sha256"`
	Selection   string  `json:"selection"`
	Origin      float64 `json:"window_origin_s"` // the window's start, trace seconds from the trace's time base
	WindowS     float64 `json:"window_s"`        // its length in workload seconds
	SubmitScale float64 `json:"submit_scale"`
	// OriginalJobs are the trace jobs of the window; ReplayedJobs the
	// unit's jobs in the run, warm jobs aside unless WarmIncluded.
	OriginalJobs int         `json:"original_jobs"`
	ReplayedJobs int         `json:"replayed_jobs"`
	WarmJobs     int         `json:"warm_jobs"`
	WarmIncluded bool        `json:"warm_included"`
	Tests        []Test      `json:"ks"`
	Utilization  Utilization `json:"utilization"`
	Notes        []string    `json:"notes,omitempty"`
}

// Test is the two-sample Kolmogorov–Smirnov test of one metric.
type Test struct {
	Metric         string  `json:"metric"` // wait, run, response or utilization
	Unit           string  `json:"unit"`   // of the samples: s, or the utilization's basis
	NOriginal      int     `json:"n_original"`
	NReplayed      int     `json:"n_replayed"`
	D              float64 `json:"d"`
	P              float64 `json:"p"`
	MeanOriginal   float64 `json:"mean_original"`
	MeanReplayed   float64 `json:"mean_replayed"`
	MedianOriginal float64 `json:"median_original"`
	MedianReplayed float64 `json:"median_replayed"`
	// The samples, sorted, for the figures.
	Original, Replayed []float64 `json:"-"`
}

// NullReason says why a figure of the test is undefined (report's JSON).
func (t *Test) NullReason(field string) string {
	switch {
	case t.NOriginal == 0 && t.NReplayed == 0:
		return "neither the original window nor the replay has a value"
	case t.NOriginal == 0:
		return "the original window has no value (the trace does not give it)"
	case t.NReplayed == 0:
		return "the replay has no value (no job of the unit got that far)"
	}
	return ""
}

// Utilization is the utilization over the window, original and replayed,
// in Bins equal intervals of the window.
type Utilization struct {
	BinS float64   `json:"bin_s"` // workload seconds
	T    []float64 `json:"t_s"`   // start of each bin, workload seconds from the window's start
	// Basis is "fraction" (busy processors / the system's processors, each
	// system its own) or "processors" (busy processors, when a system's
	// size is unknown).
	Basis              string    `json:"basis"`
	Original           []float64 `json:"original"`
	Replayed           []float64 `json:"replayed"`
	OriginalProcessors int       `json:"original_processors"`
	ReplayedProcessors int       `json:"replayed_processors"`
}

// Compare compares each wl:trace unit of the run rd (loaded from st) with
// its original window. ErrNoTrace when the run replayed none.
func Compare(st *store.Store, rd *metrics.RunData, opts Options) ([]*Result, error) {
	if opts.Bins <= 0 {
		opts.Bins = 100
	}
	m, err := manifest(rd)
	if err != nil {
		return nil, err
	}
	places := map[string]store.JobPlace{}
	err = st.ScanJobPlaces(rd.ID, func(p store.JobPlace) error {
		places[p.JobID] = p
		return nil
	})
	if err != nil {
		return nil, err
	}
	var out []*Result
	for _, u := range m.Units {
		if u.Trace == nil {
			continue
		}
		res, err := compareUnit(rd, u.ID, u.Trace, places, opts)
		if err != nil {
			return nil, fmt.Errorf("run %s, unit %d: %w", rd.ID, u.ID, err)
		}
		out = append(out, res)
	}
	if len(out) == 0 {
		return nil, ErrNoTrace
	}
	return out, nil
}

// manifest is the workload's manifest as the run's last provenance record
// holds it.
func manifest(rd *metrics.RunData) (*workload.Manifest, error) {
	var text string
	for _, p := range rd.Provenance {
		if p.Manifest != "" {
			text = p.Manifest
		}
	}
	if text == "" {
		return nil, ErrNoTrace
	}
	return workload.ParseManifest([]byte(text), "the manifest recorded with run "+rd.ID)
}

// compareUnit compares one unit's replay with its window.
func compareUnit(rd *metrics.RunData, unit int, tr *workload.TraceReplay, places map[string]store.JobPlace, opts Options) (*Result, error) {
	if tr.Period <= 0 || tr.Replays < 0 {
		return nil, fmt.Errorf("the recorded window has a length of %v and %d replays: there is no window to compare with", time.Duration(tr.Period), tr.Replays)
	}
	if err := checkTrace(tr); err != nil {
		return nil, err
	}
	if opts.ReadWindow == nil {
		return nil, errors.New("no reader of the trace's window was given (fidelity.Options.ReadWindow)")
	}
	orig, err := opts.ReadWindow(tr, opts.Bins)
	if err != nil {
		return nil, err
	}
	res := &Result{Unit: unit, Trace: tr.Path, TraceSHA256: tr.SHA256, Selection: tr.Description, Origin: tr.Origin,
		WindowS: time2s(tr.Period), SubmitScale: orig.SubmitScale, WarmIncluded: opts.IncludeWarm, OriginalJobs: orig.Jobs}
	rep := readReplay(rd, unit, tr, places, opts)
	res.ReplayedJobs, res.WarmJobs = rep.jobs, rep.warm
	for _, m := range []struct {
		name string
		o, r []float64
	}{{"wait", orig.Wait, rep.wait}, {"run", orig.Run, rep.run}, {"response", orig.Response, rep.resp}} {
		res.Tests = append(res.Tests, test(m.name, "s", m.o, m.r))
	}
	res.Utilization = utilization(orig, rep, rd, opts.Bins, res.WindowS, &res.Notes)
	u := &res.Utilization
	res.Tests = append(res.Tests, test("utilization", u.Basis, u.Original, u.Replayed))
	res.Notes = append(res.Notes, notes(rd, tr, orig)...)
	return res, nil
}

// checkTrace fails when the trace is not where the manifest says, or is
// not the file that was replayed.
func checkTrace(tr *workload.TraceReplay) error {
	f, err := readlimit.Open(tr.Path)
	if err != nil {
		return fmt.Errorf("the trace the run replayed cannot be read again: %w", err)
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return fmt.Errorf("the trace the run replayed cannot be read again: %w", err)
	}
	if got := hex.EncodeToString(h.Sum(nil)); got != tr.SHA256 {
		return fmt.Errorf("the trace %s changed since the workload was generated (SHA-256 %s, the manifest says %s): the original window cannot be read again",
			tr.Path, got, tr.SHA256)
	}
	return nil
}

// test is the KS test of one metric, on sorted copies of o and r.
func test(name, unit string, o, r []float64) Test {
	o, r = slices.Clone(o), slices.Clone(r)
	slices.Sort(o)
	slices.Sort(r)
	ks := stats.KSTwoSample(o, r)
	return Test{Metric: name, Unit: unit, NOriginal: len(o), NReplayed: len(r), D: ks.D, P: ks.P,
		MeanOriginal: stat.Mean(o, nil), MeanReplayed: stat.Mean(r, nil), MedianOriginal: sampstat.Quantile(o, 0.5), MedianReplayed: sampstat.Quantile(r, 0.5),
		Original: o, Replayed: r}
}

func time2s(s workload.Seconds) float64 { return float64(s) / 1e9 }
