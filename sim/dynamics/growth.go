package dynamics

import (
	"fmt"
	"math"
	"strconv"
	"time"

	"github.com/gmark/gmark/sim/topology"
	"github.com/gmark/gmark/stats"
)

// Year is the growth rates' unit: 365 days.
const Year = 365 * 24 * time.Hour

// Growth is the evolution model: the number of clusters grows by PerYear
// a year, compounded (the thesis's "over 20% per year", Ch. 7), over Span
// from the start; a new cluster copies a present cluster (its parent,
// speed and local scheduler; it becomes that cluster's sibling) with its
// size scaled by (1 + SizePerYear)^(years at its join). The present
// clusters are copied in turn, in a random order each round, so that the
// new clusters' sizes before scaling are distributed as the present ones.
type Growth struct {
	PerYear     float64
	SizePerYear float64
	Span        time.Duration
}

// The defaults: 20% more clusters a year (thesis Ch. 7); new clusters
// 19% larger a year, calibrated so that when the count triples in three
// years (WLCG's 100 → 300, Sec. 4.3.2) the median size of all clusters
// grows by about the thesis's 20% (TestGrowMedian: +16% to +25% on the
// DAS-2 + Grid'5000 preset and on a uniform spread of sizes). Only new
// clusters carry the growth (present clusters keep their size), so they
// must grow faster than the median.
const (
	DefaultPerYear     = 0.20
	DefaultSizePerYear = 0.19
	DefaultSpan        = Year
	MaxPerYear         = 100.0 // 10,000% a year
)

// Joined is the result of Grow: the topology with the clusters that will
// join, and when each cluster is there (0 for the present ones).
type Joined struct {
	Topology *topology.Topology
	Present  int             // clusters 0..Present-1 are there from the start
	At       []time.Duration // per cluster of Topology
}

// Grow adds the clusters that join within the span: the k-th new cluster
// joins when N0·(1+PerYear)^(t/Year) reaches N0 + k (N0 the present
// clusters). Its template and size come from the stream (seed, 0,
// "sim/growth").
func Grow(top *topology.Topology, g Growth, seed uint64) (*Joined, error) {
	n0 := top.Clusters
	j := &Joined{Topology: top, Present: n0, At: make([]time.Duration, n0)}
	if !(g.PerYear > 0) || g.Span <= 0 || n0 == 0 {
		return j, nil
	}
	if g.PerYear > MaxPerYear || math.IsNaN(g.SizePerYear) || g.SizePerYear < 0 || g.SizePerYear > MaxPerYear {
		return nil, fmt.Errorf("growth_per_year = %g, growth_size_per_year = %g: out of range [0, %g]", g.PerYear, g.SizePerYear, MaxPerYear)
	}
	years := min(g.Span, Horizon).Hours() / (365 * 24)
	total := float64(n0) * math.Pow(1+g.PerYear, years)
	room := topology.MaxNodes - len(top.Nodes)
	if total-float64(n0) > float64(room) {
		return nil, fmt.Errorf("growth_per_year = %g over %v adds %.3g clusters to %d nodes: a topology has at most %d clusters and sites", g.PerYear, g.Span, total-float64(n0), len(top.Nodes), topology.MaxNodes)
	}
	added := int(math.Floor(total+1e-9)) - n0
	if added <= 0 {
		return j, nil
	}
	spec := top.Spec()
	names := map[string]bool{}
	for i := range top.Nodes {
		names[top.Nodes[i].Name] = true
	}
	r := stats.NewStream(seed, 0, "sim/growth")
	var perm []int
	for k := 1; k <= added; k++ {
		if (k-1)%n0 == 0 {
			perm = r.Perm(n0)
		}
		at := time.Duration(float64(Year) * math.Log(float64(n0+k)/float64(n0)) / math.Log1p(g.PerYear))
		at = min(max(at, 0), g.Span)
		t := spec.Clusters[perm[(k-1)%n0]]
		size := float64(t.Processors) * math.Pow(1+g.SizePerYear, at.Hours()/(365*24))
		c := topology.ClusterSpec{Name: newName(names, k), Parent: t.Parent, Speed: t.Speed, Scheduler: t.Scheduler,
			Processors: int(min(max(math.Round(size), 1), topology.MaxProcessors))}
		spec.Clusters = append(spec.Clusters, c)
		spec.Siblings = append(spec.Siblings, topology.SiblingSpec{Sites: []string{t.Name, c.Name}})
		j.At = append(j.At, at)
	}
	grown, err := topology.Build(&spec)
	if err != nil {
		return nil, fmt.Errorf("growing the topology: %v", err)
	}
	j.Topology = grown
	return j, nil
}

func newName(used map[string]bool, k int) string {
	name := "joined-" + strconv.Itoa(k)
	for used[name] {
		name += "x"
	}
	used[name] = true
	return name
}

// Joins lists the join events of a grown topology, in time order.
func (j *Joined) Joins() []Event {
	var out []Event
	for c := j.Present; c < len(j.At); c++ {
		out = append(out, Event{At: j.At[c], Kind: Join, Cluster: c})
	}
	return out
}

// Stream merges a grown topology's joins and the failures of its clusters
// (each from its join on) into one time-ordered stream; at equal times a
// join comes before a failure.
type Stream struct {
	joins []Event
	fails *Failures
	next  Event
	has   bool
}

// NewStream is the dynamics of a run: failures after m (nil: none) on the
// grown topology j.
func NewStream(j *Joined, m *FailureModel, seed uint64) *Stream {
	s := &Stream{joins: j.Joins()}
	if m != nil {
		s.fails = NewFailures(*m, seed, j.At)
	}
	return s
}

// Next is the next event; false when there is none.
func (s *Stream) Next() (Event, bool) {
	if !s.has && s.fails != nil {
		s.next, s.has = s.fails.Next()
	}
	if len(s.joins) > 0 && (!s.has || s.joins[0].At <= s.next.At) {
		e := s.joins[0]
		s.joins = s.joins[1:]
		return e, true
	}
	if !s.has {
		return Event{}, false
	}
	s.has = false
	return s.next, true
}
