package sim

import (
	"fmt"
	"time"

	"github.com/gmark/gmark/sim/topology"
)

// Series is a run's operational time series (the thesis's "operational
// graphics", Sec. 6.4.1): per interval of virtual time from t = 0, the
// jobs that arrived, started and ended, and the messages sent by type.
// Bin i covers [i·Interval, (i+1)·Interval). Every start counts, the
// restarts of a killed run too. A KeepAlive is counted at the time it is
// due (every KeepAlivePeriod of a run, from the run's start), not when the
// engine tallies it.
//
// A series holds at most SeriesBins bins, whatever the run's length: its
// interval starts at 1 s and grows through 5 s, 10 s, 50 s, 100 s, … as the
// run goes on (each step an integer multiple of the one before, so the bins
// are merged, never re-estimated), so the same run always gives the same
// bins.
type Series struct {
	Interval time.Duration
	Arrivals []int64
	Starts   []int64
	Ends     []int64
	Messages [NumMsgTypes][]int64
}

// SeriesBins is the most bins a Series holds.
const SeriesBins = 200

// RunWithSeries is RunObserved that also records the run's Series (obs may
// be nil). The series covers the run's measurement window [0, Result.End]
// and every event the run handled.
func RunWithSeries(cfg Config, top *topology.Topology, src Source, obs Observer) (*Result, *Series, error) {
	rec := &seriesRecorder{next: obs, interval: time.Second}
	res, err := RunObserved(cfg, top, src, rec)
	if err != nil {
		return nil, nil, err
	}
	if rec.s == nil {
		return nil, nil, fmt.Errorf("sim: the series recorder was not attached")
	}
	return res, rec.finish(secDuration(res.End)), nil
}

func secDuration(s float64) time.Duration { return time.Duration(s * float64(time.Second)) }

// seriesRecorder counts a run's events per bin. The engine calls tick
// before an event at or past the current bin's end (Sim.seriesEdge), so
// the messages the bus counted since the last tick are all of the bin that
// ends there; arrivals, starts and ends come as an Observer.
type seriesRecorder struct {
	next     Observer
	s        *Sim
	interval time.Duration
	grown    int   // times the interval grew: ×5 after an even count, ×2 after an odd one
	used     int   // bins in use: 1 + the last bin touched
	cur      int   // the bin of the messages not yet taken from the bus
	last     Bus   // the bus's counts at the last tick
	bins     []bin // SeriesBins
}

type bin struct {
	arrivals, starts, ends int64
	msgs                   [NumMsgTypes]int64
}

// attachSeries connects a series recorder given as the run's observer to
// the engine.
func (s *Sim) attachSeries() {
	r, ok := s.obs.(*seriesRecorder)
	if !ok {
		return
	}
	r.s = s
	s.ser = r
	r.bins = make([]bin, SeriesBins)
	s.seriesEdge = r.interval
}

// binOf is the bin of time t, the bins merged first as far as it takes to
// hold it.
func (r *seriesRecorder) binOf(t time.Duration) int {
	for t/SeriesBins >= r.interval { // t ≥ interval × SeriesBins, without overflow
		r.grow()
	}
	i := int(t / r.interval)
	r.used = max(r.used, i+1)
	return i
}

// grow steps the interval (1, 5, 10, 50, 100, … s) and merges the bins.
func (r *seriesRecorder) grow() {
	f := 5
	if r.grown%2 == 1 {
		f = 2
	}
	r.grown++
	for i := range r.bins {
		var b bin
		for j := i * f; j < min((i+1)*f, len(r.bins)); j++ {
			o := &r.bins[j]
			b.arrivals += o.arrivals
			b.starts += o.starts
			b.ends += o.ends
			for k := range b.msgs {
				b.msgs[k] += o.msgs[k]
			}
		}
		r.bins[i] = b
	}
	r.interval *= time.Duration(f)
	r.cur /= f
	r.used = (r.used + f - 1) / f
}

// tick files the bus's counts since the last tick under the current bin
// and moves to the bin of the engine's clock.
func (r *seriesRecorder) tick() {
	r.takeMessages()
	r.cur = r.binOf(r.s.now)
	r.s.seriesEdge = time.Duration(r.cur+1) * r.interval
}

// takeMessages adds the bus's counts since the last tick to the current
// bin (KeepAlives aside: keepAlives files them when due).
func (r *seriesRecorder) takeMessages() {
	b := &r.bins[r.cur]
	for t := MsgType(0); t < NumMsgTypes; t++ {
		if t != KeepAlive {
			b.msgs[t] += r.s.bus.counts[t] - r.last.counts[t]
		}
	}
	r.last = r.s.bus
}

// keepAlives files the KeepAlives of a run from start until: one every
// period after start.
func (r *seriesRecorder) keepAlives(start, until, period time.Duration) {
	n := int64((until - start) / period)
	if n <= 0 {
		return
	}
	lastAt := start + time.Duration(n)*period
	r.binOf(lastAt)
	// due(t): the KeepAlives due before t.
	due := func(t time.Duration) int64 {
		if t <= start {
			return 0
		}
		k := int64((t - start + period - 1) / period) // ⌈(t−start)/period⌉
		return min(max(k-1, 0), n)
	}
	for i := int((start + period) / r.interval); i <= int(lastAt/r.interval); i++ {
		a, b := time.Duration(i)*r.interval, time.Duration(i+1)*r.interval
		r.bins[i].msgs[KeepAlive] += due(b) - due(a)
	}
}

// The observer's calls file a job's event at its own time (a hosted job's
// start and end are the hosting architecture's, not the engine clock's).

func (r *seriesRecorder) Arrived(j *Job) {
	r.bins[r.binOf(j.Submit)].arrivals++
	if r.next != nil {
		r.next.Arrived(j)
	}
}

func (r *seriesRecorder) Started(j *Job) {
	r.bins[r.binOf(j.Start)].starts++
	if r.next != nil {
		r.next.Started(j)
	}
}

func (r *seriesRecorder) Ended(j *Job) {
	r.bins[r.binOf(j.End)].ends++
	if r.next != nil {
		r.next.Ended(j)
	}
}

// finish takes the last messages and returns the series up to the end of
// the measurement window (or the last bin touched, if later).
func (r *seriesRecorder) finish(end time.Duration) *Series {
	r.takeMessages()
	n := max(r.binOf(end)+1, r.used)
	out := &Series{Interval: r.interval, Arrivals: make([]int64, n), Starts: make([]int64, n), Ends: make([]int64, n)}
	for k := range out.Messages {
		out.Messages[k] = make([]int64, n)
	}
	for i, b := range r.bins[:n] {
		out.Arrivals[i], out.Starts[i], out.Ends[i] = b.arrivals, b.starts, b.ends
		for k := range out.Messages {
			out.Messages[k][i] = b.msgs[k]
		}
	}
	return out
}
