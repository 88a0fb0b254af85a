package experiment

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/gmark/gmark/analyzer/store"
	"github.com/gmark/gmark/plots"
	"github.com/gmark/gmark/sim"
)

// Series is a run's operational time series (sim.Series), or the mean of
// the series of a (scenario, architecture, load)'s repetitions: per
// interval of virtual time from 0, bin i covering [i·interval,
// (i+1)·interval), the jobs that arrived, started and ended, and the
// messages sent, by type (the types with no message left out).
type Series struct {
	Interval float64              `json:"interval_s"`
	Arrivals []float64            `json:"arrivals"`
	Starts   []float64            `json:"starts"`
	Ends     []float64            `json:"ends"`
	Messages map[string][]float64 `json:"messages"`
}

// storedSeries is a run's series as the store keeps it.
func storedSeries(s *sim.Series) *store.SimSeries {
	out := &store.SimSeries{Interval: s.Interval.Seconds(), Arrivals: s.Arrivals, Starts: s.Starts, Ends: s.Ends, Messages: map[string][]int64{}}
	for k, name := range sim.MsgTypeNames() {
		out.Messages[name] = s.Messages[k]
	}
	return out
}

// seriesOf is a stored series in the report (nil for none).
func seriesOf(s *store.SimSeries) *Series {
	if s == nil {
		return nil
	}
	out := &Series{Interval: s.Interval, Arrivals: floats(s.Arrivals), Starts: floats(s.Starts), Ends: floats(s.Ends), Messages: map[string][]float64{}}
	for t, v := range s.Messages {
		if slices.ContainsFunc(v, func(n int64) bool { return n != 0 }) {
			out.Messages[t] = floats(v)
		}
	}
	return out
}

func floats(v []int64) []float64 {
	out := make([]float64, len(v))
	for i, n := range v {
		out[i] = float64(n)
	}
	return out
}

// meanSeries is the bin-by-bin mean of the series of repetitions, each
// first merged into bins of the longest interval among them (the
// simulator's intervals, 1, 5, 10, 50 … s, are multiples of each other);
// a bin's mean is over the repetitions whose series reach it (a run's
// series ends with its measurement window). Nil when no repetition has a
// series, or their intervals are not multiples of each other.
func meanSeries(runs []*Series) *Series {
	var with []*Series
	interval := 0.0
	for _, s := range runs {
		if s != nil {
			with = append(with, s)
			interval = math.Max(interval, s.Interval)
		}
	}
	if len(with) == 0 {
		return nil
	}
	out := &Series{Interval: interval, Messages: map[string][]float64{}}
	var cover []float64
	for _, s := range with {
		f := interval / s.Interval
		if math.Abs(f-math.Round(f)) > 1e-9*f {
			return nil
		}
		n := int(math.Round(f))
		bins := (len(s.Arrivals) + n - 1) / n
		for len(cover) < bins {
			cover = append(cover, 0)
		}
		for i := 0; i < bins; i++ {
			cover[i]++
		}
		addMerged(&out.Arrivals, s.Arrivals, n)
		addMerged(&out.Starts, s.Starts, n)
		addMerged(&out.Ends, s.Ends, n)
		for t, v := range s.Messages {
			m := out.Messages[t]
			addMerged(&m, v, n)
			out.Messages[t] = m
		}
	}
	pad := func(v []float64) []float64 { return append(v, make([]float64, len(cover)-len(v))...) }
	out.Arrivals, out.Starts, out.Ends = pad(out.Arrivals), pad(out.Starts), pad(out.Ends)
	for t, v := range out.Messages {
		out.Messages[t] = pad(v)
	}
	for _, v := range append([][]float64{out.Arrivals, out.Starts, out.Ends}, mapValues(out.Messages)...) {
		for i := range v {
			v[i] /= cover[i]
		}
	}
	return out
}

// addMerged adds v, its bins merged n by n, to *sum, lengthening it as
// needed.
func addMerged(sum *[]float64, v []float64, n int) {
	for i, x := range v {
		for len(*sum) <= i/n {
			*sum = append(*sum, 0)
		}
		(*sum)[i/n] += x
	}
}

// mapValues are the values of m in the order of its sorted keys.
func mapValues(m map[string][]float64) [][]float64 {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	out := make([][]float64, len(keys))
	for i, k := range keys {
		out[i] = m[k]
	}
	return out
}

// seriesFigures draws, per (scenario, architecture, load) with a series
// (the mean over its repetitions), the jobs that arrived, started and
// ended per interval over time, and the messages sent per interval over
// time, by type: the thesis's operational graphics (Sec. 6.4.1).
func seriesFigures(e *ExperimentReport, dir string) ([]plots.Figure, error) {
	var out []plots.Figure
	for _, a := range e.Aggregates {
		s := a.Series
		if s == nil || len(s.Arrivals) == 0 {
			continue
		}
		unit, per := timeUnit(s.Interval * float64(len(s.Arrivals)))
		xs := make([]float64, len(s.Arrivals))
		for i := range xs {
			xs[i] = float64(i) * s.Interval / per
		}
		what := fmt.Sprintf("%s, scenario %s, %s at load %s%%", e.Name, a.Scenario, a.Arch, num(a.Load))
		if a.Runs > 1 {
			what += fmt.Sprintf(" (mean of %d runs)", a.Runs)
		}
		perBin := "per " + num(s.Interval) + " s"
		jobs := []plots.Series{{Label: "arrivals", Values: s.Arrivals}, {Label: "starts", Values: s.Starts}, {Label: "ends", Values: s.Ends}}
		var msgs []plots.Series
		for _, t := range sim.MsgTypeNames() {
			if v, ok := s.Messages[t]; ok {
				msgs = append(msgs, plots.Series{Label: t, Values: v})
			}
		}
		base := strings.Join([]string{e.Name, a.Scenario, a.Arch, num(a.Load)}, "_")
		for _, f := range []struct {
			name, title, ylabel string
			series              []plots.Series
		}{
			{"jobs-over-time", what + ": jobs over time", "jobs " + perBin, jobs},
			{"messages-over-time", what + ": messages over time", "messages " + perBin, msgs},
		} {
			xss := make([][]float64, len(f.series))
			for i := range xss {
				xss[i] = xs
			}
			d, err := plots.Lines(f.title, "time ("+unit+")", f.ylabel, xss, f.series, 0)
			if plots.NoData(err) {
				continue
			}
			if err != nil {
				return nil, err
			}
			fig, err := d.Save(dir, base+"_"+f.name)
			if err != nil {
				return nil, err
			}
			out = append(out, fig)
		}
	}
	return out, nil
}

// timeUnit is the unit of a time axis of span seconds, and its seconds.
func timeUnit(span float64) (string, float64) {
	switch {
	case span <= 2*3600:
		return "s", 1
	case span <= 7*86400:
		return "h", 3600
	}
	return "days", 86400
}
