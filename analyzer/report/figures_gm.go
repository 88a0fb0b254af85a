package report

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"

	"github.com/gmark/gmark/analyzer/metrics"
	"github.com/gmark/gmark/plots"
)

// The rest of GrenchMark's default figures (Iosup's thesis §5.4, 003c §5.4
// items 1, 5 and 8) that a store has the data for: the test's duration per
// run by phase (Fig. 5.6 left), the submission delay against the workload's
// size and against the submitter's threads across runs (Fig. 5.8), and the
// wait of each job in arrival order (Fig. 5.10 right).

// grenchmarkFigures adds them to the report's figures.
func (fc *figureContext) grenchmarkFigures(add func(title, name, what string, draw func() (*plots.Drawing, error))) {
	add("Test duration per run, by phase", "duration_runs", "", fc.durations)
	if len(fc.runs) > 1 { // figures across runs
		fc.acrossRuns(add)
	}
	add("Wait time per job, in arrival order", "wait_by_arrival", "wait", fc.waitByArrival)
}

// acrossRuns adds the figures of the submission delay across runs.
func (fc *figureContext) acrossRuns(add func(title, name, what string, draw func() (*plots.Drawing, error))) {
	add("Submission delay against the workload's size", "delay_by_size", "delay", func() (*plots.Drawing, error) {
		return fc.delayAgainst("Submission delay against the workload's size", "jobs submitted in the run", func(r *Run) (float64, bool) {
			return float64(r.Metrics.Jobs.Submitted), r.Metrics.Jobs.Submitted > 0
		})
	})
	add("Submission delay against the submitter's threads", "delay_by_threads", "delay", func() (*plots.Drawing, error) {
		return fc.delayAgainst("Submission delay against the submitter's threads", "submitter threads (workers)", runWorkers)
	})
}

// runWorkers is the submitter threads a run recorded in its settings.
func runWorkers(r *Run) (float64, bool) {
	var s struct {
		Workers *int `json:"workers"`
	}
	if json.Unmarshal([]byte(r.Settings), &s) != nil || s.Workers == nil || *s.Workers <= 0 {
		return 0, false
	}
	return float64(*s.Workers), true
}

// wallFactor turns a run's submission instants (its span's clock) into
// wall seconds.
func wallFactor(m *metrics.RunMetrics) float64 {
	return 1 / m.Clocks.SpanFactor()
}

// durations stacks each run's wall time: from its creation to its first
// submission, the submission (first to last submit), and the rest until
// its last job ended. Workload generation and the post-processing happen
// outside the run and are not in the store.
func (fc *figureContext) durations() (*plots.Drawing, error) {
	parts := []plots.Series{{Label: "before the first submission"}, {Label: "submitting (first to last submit)"}, {Label: "until the last job ended"}}
	var labels []string
	for _, run := range fc.runs {
		m := run.Metrics
		if m.StartNS == 0 || m.EndNS < m.StartNS {
			continue
		}
		setup := 0.0
		if run.CreatedNS > 0 && m.StartNS > run.CreatedNS {
			setup = float64(m.StartNS-run.CreatedNS) / 1e9
		}
		last := m.Samples.LastSubmit
		for _, s := range m.Samples.JobSubmit { // a RunMetrics made by hand may have only these
			if !math.IsNaN(s) {
				last = max(last, s)
			}
		}
		total := float64(m.EndNS-m.StartNS) / 1e9
		submit := min(last*wallFactor(m), total)
		labels = append(labels, run.Label)
		for i, v := range []float64{setup, submit, total - submit} {
			parts[i].Values = append(parts[i].Values, max(0, v))
		}
	}
	if len(labels) == 0 {
		return nil, errors.New(noData("time", fc.runs))
	}
	d, err := plots.Stacked("Test duration per run, by phase (wall time)", "seconds", labels, parts)
	if err != nil {
		return nil, err
	}
	d.Note = "the workload's generation and the report's post-processing run outside the run and are not in the store"
	return d, nil
}

// delayAgainst draws the mean and quartiles of each run's submission delay
// against a property of the run (one point per run), the thesis's Fig. 5.8.
func (fc *figureContext) delayAgainst(title, xlabel string, x func(*Run) (float64, bool)) (*plots.Drawing, error) {
	type point struct {
		x     float64
		label string
		d     [4]float64
	}
	var pts []point
	missing := 0
	for _, run := range fc.runs {
		dl := run.Metrics.Delay
		if dl.N == 0 {
			continue
		}
		v, ok := x(run)
		if !ok {
			missing++
			continue
		}
		pts = append(pts, point{v, run.Label, [4]float64{dl.Mean * 1e3, dl.P25 * 1e3, dl.P50 * 1e3, dl.P75 * 1e3}})
	}
	switch {
	case len(pts) == 0 && missing > 0:
		return nil, fmt.Errorf("no run with a submission delay recorded its %s", xlabel)
	case len(pts) == 0:
		return nil, errors.New(noData("delay", fc.runs))
	}
	distinct := map[float64]bool{}
	for _, p := range pts {
		distinct[p.x] = true
	}
	if len(distinct) < 2 {
		return nil, fmt.Errorf("every run with a submission delay has the same %s (%s): the figure needs runs that differ in it", xlabel, plots.Num(pts[0].x, 6))
	}
	slices.SortStableFunc(pts, func(a, b point) int {
		switch {
		case a.x < b.x:
			return -1
		case a.x > b.x:
			return 1
		}
		return 0
	})
	names := []string{"mean", "25th percentile", "median", "75th percentile"}
	xs := make([][]float64, len(names))
	series := make([]plots.Series, len(names))
	for k, n := range names {
		series[k].Label = n
		for _, p := range pts {
			xs[k] = append(xs[k], p.x)
			series[k].Values = append(series[k].Values, p.d[k])
		}
	}
	d, err := plots.Lines(title, xlabel, "submission delay (ms)", xs, series, 0)
	if err != nil {
		return nil, err
	}
	note := strconv.Itoa(len(pts)) + " runs, one point each"
	if missing > 0 {
		note += fmt.Sprintf("; %d runs without the value left out", missing)
	}
	d.Note = join(note, d.Note)
	return d, nil
}

// maxArrivalRuns is the most runs drawn in the wait-per-job figure.
const maxArrivalRuns = 8

// waitByArrival draws each job's wait against its place in the arrival
// order, a line per run (the first maxArrivalRuns runs).
func (fc *figureContext) waitByArrival() (*plots.Drawing, error) {
	var xs [][]float64
	var series []plots.Series
	note := ""
	for i, run := range fc.runs {
		if i == maxArrivalRuns {
			note = fmt.Sprintf("the first %d of %d runs", maxArrivalRuns, len(fc.runs))
			break
		}
		a := run.Metrics.Samples.ArrivalWaits()
		if a.K > 1 {
			note = join(note, fmt.Sprintf("%s: each point the mean wait of %d consecutive jobs", run.Label, a.K))
		}
		x, y := a.X, a.Y
		xs, series = append(xs, x), append(series, plots.Series{Label: run.Label, Values: y})
	}
	d, err := plots.Lines("Wait time per job, in arrival order", "job, in order of submission", "wait time ("+fc.unit+")", xs, series, 0)
	if err != nil {
		return nil, err
	}
	d.Note = join(note, join(d.Note, "jobs that never started are left out"))
	return d, nil
}

// join joins two notes with "; ", either of which may be empty.
func join(a, b string) string {
	switch {
	case a == "":
		return b
	case b == "":
		return a
	}
	return a + "; " + b
}
