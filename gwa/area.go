package gwa

import (
	"fmt"
	"io"
	"math"
	"sort"
	"strconv"
	"strings"
)

// Representative area selection (thesis §5.4.4): split the trace into
// non-overlapping windows of width W from its first submission, compute
// characteristics per window, resolve targets given as percentiles over the
// windows, and pick the window closest to the targets.
//
// Decisions the thesis leaves open:
//   - Windows start at the first submission and at multiples of W after it.
//     The last window, cut short by the end of the trace, is not a candidate
//     (its counts are not comparable), unless it is the only window.
//   - A percentile target p is the nearest-rank percentile of the candidate
//     windows' values: the value of rank ⌈p/100 · n⌉ in ascending order, so
//     it is always some window's value (p90 of 88 windows is rank 80).
//   - With several characteristics the distance is Euclidean over values
//     normalized by each characteristic's spread across the candidates:
//     d = √Σ ((v_i − t_i) / (max_i − min_i))², a term with no spread counting
//     0. With one characteristic this is |v − t| up to a constant.
//   - Ties go to the earliest window.

// Characteristic is a per-window quantity.
type Characteristic int

const (
	CharArrivals Characteristic = iota // jobs submitted
	CharWork                           // processor-seconds of the jobs submitted
	CharRunTime                        // mean run time of the jobs submitted
	CharProcs                          // mean size of the jobs submitted
	CharUsers                          // distinct users submitting
	CharWait                           // mean wait of the jobs submitted
	numChars
)

var charNames = [...]string{"arrivals", "work", "runtime", "procs", "users", "wait"}

func (c Characteristic) String() string { return charNames[c] }

// Target is one characteristic's target: an absolute value, or a percentile
// of the per-window values.
type Target struct {
	Char       Characteristic
	Value      float64 // absolute target, or the percentile (0-100)
	Percentile bool
}

func (t Target) String() string {
	v := strconv.FormatFloat(t.Value, 'f', -1, 64)
	if t.Percentile {
		v = "p" + v
	}
	return t.Char.String() + ":" + v
}

// ParseTarget reads "arrivals:p90", "arrivals:400", "work:1e6", "users:p50".
// A bare characteristic means its median.
func ParseTarget(s string) (Target, error) {
	name, val, ok := strings.Cut(strings.TrimSpace(s), ":")
	var t Target
	found := false
	for i, n := range charNames {
		if strings.EqualFold(name, n) {
			t.Char, found = Characteristic(i), true
		}
	}
	if !found {
		return t, fmt.Errorf("unknown characteristic %q in target %q (arrivals, work, runtime, procs, users, wait)", name, s)
	}
	if !ok {
		return Target{Char: t.Char, Value: 50, Percentile: true}, nil
	}
	val = strings.TrimSpace(val)
	if strings.HasPrefix(val, "p") || strings.HasPrefix(val, "P") {
		p, err := strconv.ParseFloat(val[1:], 64)
		if err != nil || p < 0 || p > 100 || math.IsNaN(p) {
			return t, fmt.Errorf("target %q: percentile %q must be p0 … p100", s, val)
		}
		t.Value, t.Percentile = p, true
		return t, nil
	}
	v, err := strconv.ParseFloat(val, 64)
	if err != nil || v < 0 || math.IsInf(v, 0) || math.IsNaN(v) {
		return t, fmt.Errorf("target %q: %q must be a number >= 0 or a percentile such as p90", s, val)
	}
	t.Value = v
	return t, nil
}

// Window is one candidate area and its characteristics.
type Window struct {
	Index  int               `json:"index"`
	Start  float64           `json:"start"`
	End    float64           `json:"end"`
	Values [numChars]float64 `json:"-"`
}

// Value returns one characteristic of the window.
func (w *Window) Value(c Characteristic) float64 { return w.Values[c] }

// AreaResult is the outcome of an area selection.
type AreaResult struct {
	Width    float64   `json:"width"`
	Origin   float64   `json:"origin"` // the first submission
	Windows  []Window  `json:"-"`      // the candidates, in time order
	Targets  []Target  `json:"targets"`
	Resolved []float64 `json:"resolved"` // the targets' values
	Best     Window    `json:"best"`
	Values   []float64 `json:"values"` // the best window's values of the targets' characteristics
	Distance float64   `json:"distance"`
}

// maxWindows bounds the number of windows (a width too small for the trace).
const maxWindows = 10_000_000

// windowAcc accumulates one window.
type windowAcc struct {
	n               int64
	work            float64
	runSum, procSum float64
	runN, procN     int64
	waitSum         float64
	waitN           int64
	users           int64
}

// SelectArea reads r to the end and selects the representative window.
func SelectArea(r Reader, width float64, targets []Target) (*AreaResult, error) {
	if !(width > 0) {
		return nil, fmt.Errorf("area width must be > 0")
	}
	if len(targets) == 0 {
		targets = []Target{{Char: CharArrivals, Value: 50, Percentile: true}}
	}
	var acc []windowAcc
	lastWin := map[string]int{}
	origin, last := 0.0, 0.0
	first := true
	n, err := ForEach(r, func(rec *Record) error {
		t := rec.SubmitTime
		if first {
			origin, last, first = t, t, false
		}
		if t < origin {
			// Out of order before the first window: not in any window.
			return nil
		}
		last = math.Max(last, t)
		// The window index in floating point first: a tiny width makes it
		// too large for an int.
		wf := math.Floor((t - origin) / width)
		if wf >= maxWindows {
			return fmt.Errorf("area width %gs makes more than %d windows over the trace: %w", width, maxWindows, ErrOutOfRange)
		}
		w := int(wf)
		for len(acc) <= w {
			acc = append(acc, windowAcc{})
		}
		a := &acc[w]
		a.n++
		a.work += rec.CPUTime()
		if rt, ok := rec.KnownRunTime(); ok {
			a.runSum += rt
			a.runN++
		}
		if p := rec.Procs(); p > 0 {
			a.procSum += p
			a.procN++
		}
		if rec.WaitTime != Missing {
			a.waitSum += rec.WaitTime
			a.waitN++
		}
		if !missingString(rec.UserID) {
			if lw, ok := lastWin[rec.UserID]; !ok || lw != w {
				lastWin[rec.UserID] = w
				a.users++
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	if n == 0 {
		return nil, fmt.Errorf("no jobs to select an area from")
	}
	full := int((last - origin) / width) // windows ending at or before the last submission
	if full == 0 {
		full = 1
	}
	res := &AreaResult{Width: width, Origin: origin, Targets: targets}
	for i := 0; i < full; i++ {
		w := Window{Index: i, Start: origin + float64(i)*width, End: origin + float64(i+1)*width}
		if i < len(acc) {
			a := acc[i]
			w.Values[CharArrivals] = float64(a.n)
			w.Values[CharWork] = a.work
			w.Values[CharUsers] = float64(a.users)
			if a.runN > 0 {
				w.Values[CharRunTime] = a.runSum / float64(a.runN)
			}
			if a.procN > 0 {
				w.Values[CharProcs] = a.procSum / float64(a.procN)
			}
			if a.waitN > 0 {
				w.Values[CharWait] = a.waitSum / float64(a.waitN)
			}
		}
		res.Windows = append(res.Windows, w)
	}
	// Resolve the targets and the spreads.
	spread := make([]float64, len(targets))
	for i, t := range targets {
		vals := make([]float64, len(res.Windows))
		for k := range res.Windows {
			vals[k] = res.Windows[k].Values[t.Char]
		}
		sort.Float64s(vals)
		spread[i] = vals[len(vals)-1] - vals[0]
		v := t.Value
		if t.Percentile {
			rank := int(math.Ceil(t.Value / 100 * float64(len(vals))))
			rank = min(max(rank, 1), len(vals))
			v = vals[rank-1]
		}
		res.Resolved = append(res.Resolved, v)
	}
	best := -1
	for k := range res.Windows {
		d := 0.0
		for i, t := range targets {
			diff := res.Windows[k].Values[t.Char] - res.Resolved[i]
			if spread[i] > 0 {
				diff /= spread[i]
			} else if len(targets) > 1 {
				diff = 0
			}
			d += diff * diff
		}
		d = math.Sqrt(d)
		if best < 0 || d < res.Distance {
			best, res.Distance = k, d
		}
	}
	res.Best = res.Windows[best]
	for _, t := range targets {
		res.Values = append(res.Values, res.Best.Values[t.Char])
	}
	return res, nil
}

// WriteText writes the chosen window and how it meets the targets, as
// `gmark trace select` prints it.
func (a *AreaResult) WriteText(w io.Writer) {
	fmt.Fprintf(w, "  area: window %d of %d, [%g, %g) s; targets", a.Best.Index+1, len(a.Windows), a.Best.Start, a.Best.End)
	for i, t := range a.Targets {
		fmt.Fprintf(w, " %s=%g (window: %g)", t.Char, a.Resolved[i], a.Values[i])
	}
	fmt.Fprintf(w, "; distance %.4g\n", a.Distance)
}
