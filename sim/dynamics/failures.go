// Package dynamics generates the grid dynamics and evolution events of a
// multi-grid simulation, after Iosup's thesis (Sec. 4.3.1, the resource
// dynamics model fitted to Grid'5000's availability traces, and Sec. 4.3.2,
// the resource evolution model; DGSim's Sec. 6.3.3): failures of groups of
// processors (correlated failures) with their repair, and clusters joining
// the system over time. It knows nothing of jobs: the simulator (package
// sim) consumes the events one at a time, so a run's memory does not grow
// with its length. docs/sim.md lists every choice made where the thesis
// leaves one open.
package dynamics

import (
	"math"
	"math/rand/v2"
	"time"

	"github.com/gmark/gmark/stats"
)

// FailureModel is the failure model: every distribution is of log2 of the
// quantity (the thesis fits log2 of seconds and of node counts; 003b §1.6).
type FailureModel struct {
	// IAT between two failures of one cluster: log2(seconds) ~
	// Weibull(IATShape, IATScale).
	IATShape, IATScale float64
	// Duration of a failure: log2(seconds) ~ LogNormal(DurMu, DurSigma).
	DurMu, DurSigma float64
	// Size of a correlated failure, in nodes: log2(nodes) ~
	// Weibull(SizeShape, SizeScale), rounded, at least 2.
	SizeShape, SizeScale float64
	// Correlated is the fraction of failures that are correlated (hit more
	// than one node); the others hit one node.
	Correlated float64
	// ProcsPerNode turns nodes into processors (Grid'5000's nodes were
	// dual-processor).
	ProcsPerNode int
	// MaxDuration caps a failure's duration (the back-transformed lognormal
	// has an exploding tail: 003b P20).
	MaxDuration time.Duration
	// Scale multiplies the failure rate (divides every IAT); 0: no failure.
	Scale float64
}

// Thesis is the Grid'5000 row of the thesis's Table 4.4 (Weibull IAT,
// lognormal duration, Weibull size, all on log2), used for every cluster,
// with gmark's choices where the thesis gives no value (docs/sim.md):
// 3.6% of failures correlated (so that 30% of failed nodes are in
// correlated failures with the fitted mean size of about 11 nodes, as the
// thesis reports), two processors per node, and durations capped at 7 days.
func Thesis() FailureModel {
	return FailureModel{
		IATShape: 9.66772, IATScale: 12.23796,
		DurMu: 2.33916, DurSigma: 0.26363,
		SizeShape: 1.58526, SizeScale: 2.61400,
		Correlated:   0.036,
		ProcsPerNode: 2,
		MaxDuration:  7 * 24 * time.Hour,
		Scale:        1,
	}
}

// The bounds of a generated failure.
const (
	MinIAT   = time.Millisecond // a shorter IAT (a huge Scale) is raised to this
	MaxNodes = 1 << 20          // a failure's size is capped here before the cluster's size caps it
	MaxScale = 1000.0           // the largest rate multiplier
)

// Horizon is when the generators stop: no event is drawn after it.
const Horizon = 100 * 365 * 24 * time.Hour

// Kind tells a failure from a join.
type Kind uint8

// The event kinds.
const (
	Failure Kind = iota // Procs processors of Cluster fail for For
	Join                // Cluster joins the system (it was absent before)
)

// Event is one dynamics event.
type Event struct {
	At      time.Duration
	Kind    Kind
	Cluster int
	Nodes   int           // Failure: nodes hit
	Procs   int           // Failure: processors hit, Nodes × ProcsPerNode (the simulator caps it at what is up)
	For     time.Duration // Failure: until the repair
}

// Failures draws the failures of every cluster: one independent stream
// per cluster (the thesis's clusters fail independently of each other),
// each from its own random stream (seed, cluster, "sim/failures"), merged
// in time order. It holds one pending failure per cluster.
type Failures struct {
	m    FailureModel
	pend []Event // one per cluster, a min-heap by (At, Cluster)
	rnds []*rand.Rand
}

// NewFailures starts the failure streams of clusters that exist from
// starts[c] on (0 for a cluster present from the beginning; a cluster that
// joins later fails only once it is there).
func NewFailures(m FailureModel, seed uint64, starts []time.Duration) *Failures {
	f := &Failures{m: m, rnds: make([]*rand.Rand, len(starts))}
	if !(m.Scale > 0) {
		return f
	}
	for c, at := range starts {
		f.rnds[c] = stats.NewStream(seed, c, "sim/failures")
		if e, ok := f.draw(c, at); ok {
			f.push(e)
		}
	}
	return f
}

// Next is the next failure in time order (ties by cluster index); false
// when there is none before the Horizon.
func (f *Failures) Next() (Event, bool) {
	if len(f.pend) == 0 {
		return Event{}, false
	}
	e := f.pend[0]
	if n, ok := f.draw(e.Cluster, e.At); ok {
		f.pend[0] = n
		f.down(0)
	} else {
		last := len(f.pend) - 1
		f.pend[0] = f.pend[last]
		f.pend = f.pend[:last]
		f.down(0)
	}
	return e, true
}

// draw is cluster c's failure after time from.
func (f *Failures) draw(c int, from time.Duration) (Event, bool) {
	r, m := f.rnds[c], &f.m
	iat := math.Exp2(weibull(r, m.IATShape, m.IATScale)) / min(m.Scale, MaxScale)
	step := max(seconds(iat), MinIAT)
	if from > Horizon-step {
		return Event{}, false
	}
	nodes := 1
	if r.Float64() < m.Correlated {
		nodes = int(min(math.Round(math.Exp2(weibull(r, m.SizeShape, m.SizeScale))), MaxNodes))
		nodes = max(nodes, 2)
	}
	dur := math.Exp2(math.Exp(m.DurMu + m.DurSigma*r.NormFloat64()))
	e := Event{At: from + step, Kind: Failure, Cluster: c, Nodes: nodes, Procs: nodes * max(m.ProcsPerNode, 1)}
	e.For = min(seconds(dur), m.MaxDuration)
	e.For = max(e.For, time.Second) // 2^(e^x) > 1 s always; guards a rounding
	return e, true
}

// weibull draws from Weibull(shape, scale): scale·E^(1/shape), E ~ Exp(1).
func weibull(r *rand.Rand, shape, scale float64) float64 {
	return scale * math.Pow(r.ExpFloat64(), 1/shape)
}

// seconds converts, saturating at the Horizon (and at 0 for NaN or less).
func seconds(s float64) time.Duration {
	switch {
	case !(s > 0):
		return 0
	case s >= Horizon.Seconds():
		return Horizon
	}
	return time.Duration(s * 1e9)
}

func (f *Failures) push(e Event) {
	f.pend = append(f.pend, e)
	for i := len(f.pend) - 1; i > 0; {
		p := (i - 1) / 2
		if !before(&f.pend[i], &f.pend[p]) {
			break
		}
		f.pend[i], f.pend[p] = f.pend[p], f.pend[i]
		i = p
	}
}

func (f *Failures) down(i int) {
	a := f.pend
	for {
		l := 2*i + 1
		if l >= len(a) {
			return
		}
		m := l
		if r := l + 1; r < len(a) && before(&a[r], &a[l]) {
			m = r
		}
		if !before(&a[m], &a[i]) {
			return
		}
		a[i], a[m] = a[m], a[i]
		i = m
	}
}

func before(a, b *Event) bool {
	return a.At < b.At || (a.At == b.At && a.Cluster < b.Cluster)
}
