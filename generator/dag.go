package generator

import (
	"fmt"
	"math/rand/v2"
	"sort"

	"github.com/gmark/gmark/internal/names"
	"github.com/gmark/gmark/wdl"
)

// DAG is the graph of a composite job: nodes 0..N-1 numbered level by level
// (so in topological order), and edges from a lower to a higher node.
type DAG struct {
	N     int
	Edges [][2]int
}

// Height is the traversal height L: the number of nodes on the longest path
// (thesis Ch. 2: a chain of k tasks has L = k, master-worker L = 3, a bag of
// tasks L = 1).
func (d DAG) Height() int {
	if d.N == 0 {
		return 0
	}
	depth := make([]int, d.N)
	for i := range depth {
		depth[i] = 1
	}
	edges := append([][2]int(nil), d.Edges...)
	sort.Slice(edges, func(i, j int) bool { return edges[i][1] < edges[j][1] })
	h := 1
	for _, e := range edges {
		if depth[e[0]]+1 > depth[e[1]] {
			depth[e[1]] = depth[e[0]] + 1
		}
		h = max(h, depth[e[1]])
	}
	return h
}

// dagParams are the knobs of the random DAG generators.
type dagParams struct {
	edgeProb float64 // sameprob, layrprob: probability of each candidate edge
	meanPred int     // samepred, layrpred: mean number of predecessors
}

// Limits of composite jobs beyond wdl.MaxTasks (docs/wdl.md#limits). The
// random structures draw each candidate edge, O(N²) work per job, and can
// make O(N²) dependencies: N is smaller for them, and a job's dependencies
// are capped while they are drawn, so memory stays bounded whatever the
// draws.
const (
	maxRandomDAGTasks = 10_000
	maxDependencies   = 1_000_000
)

// errTooManyDeps is the error of a DAG that passed maxDependencies.
var errTooManyDeps = fmt.Errorf("more than %d dependencies in one composite job: lower EdgeProb or MeanPred, or N", maxDependencies)

// DAGShape is a composite-job structure, registered by name.
type DAGShape struct {
	Name     string
	Aliases  []string
	Doc      string
	DefaultN wdl.Range
	DefaultL wdl.Range
	// MaxN is the most tasks a job of this structure may have.
	MaxN int
	// byPred: the structure draws MeanPred predecessors per task.
	byPred bool
	// heights is the interval of the heights L an N-task DAG can have (for
	// every structure they form one interval; lo > hi when there is none).
	heights func(n int) (lo, hi int)
	make    func(r *rand.Rand, n, l int, p dagParams) (DAG, error)
}

// feasible tells whether an (N, L) pair can be built.
func (s *DAGShape) feasible(n, l int) bool {
	lo, hi := s.heights(n)
	return n >= 1 && lo <= l && l <= hi
}

// dagSizes are the feasible (N, L) pairs of a composite unit, in the order
// N, then L, ascending; a job draws one uniformly. They are counted per N
// rather than listed, so wide ranges (N=1-100000 of a chain, whose L range
// is anything) cost one number per N.
type dagSizes struct {
	nMin int
	lr   wdl.Range
	cum  []int // cum[i]: pairs with N <= nMin+i
	lo   []int // lo[i]: the smallest feasible L for N = nMin+i
}

func newDAGSizes(shape *DAGShape, nr, lr wdl.Range) dagSizes {
	d := dagSizes{nMin: nr.Min, lr: lr}
	total := 0
	for n := nr.Min; n <= nr.Max; n++ {
		lo, hi := shape.heights(n)
		lo, hi = max(lo, lr.Min, 1), min(hi, lr.Max)
		if hi >= lo {
			total += hi - lo + 1
		}
		d.cum = append(d.cum, total)
		d.lo = append(d.lo, lo)
	}
	return d
}

func (d dagSizes) count() int {
	if len(d.cum) == 0 {
		return 0
	}
	return d.cum[len(d.cum)-1]
}

// pick draws a pair uniformly.
func (d dagSizes) pick(r *rand.Rand) (n, l int) {
	k := r.IntN(d.count())
	i := sort.Search(len(d.cum), func(i int) bool { return d.cum[i] > k })
	before := 0
	if i > 0 {
		before = d.cum[i-1]
	}
	return d.nMin + i, d.lo[i] + k - before
}

var thesisN = wdl.Range{Min: 30, Max: 50} // Table 7.3: every shape has N 30-50

var dagShapes = []*DAGShape{
	{Name: "chain", Aliases: []string{"S-1", "sequence"}, Doc: "S-1: a sequence of tasks (L = N)",
		DefaultN: thesisN, DefaultL: wdl.Range{Min: 1, Max: 1 << 30}, MaxN: wdl.MaxTasks,
		heights: func(n int) (int, int) { return n, n },
		make:    func(_ *rand.Rand, n, _ int, _ dagParams) (DAG, error) { return chain(n), nil }},
	{Name: "forkjoin", Aliases: []string{"S-2", "fork-join", "master-worker"}, Doc: "S-2: parallel fork/join stages, alternating one coordinating task and a wide level of workers",
		DefaultN: thesisN, DefaultL: wdl.Range{Min: 5, Max: 15}, MaxN: wdl.MaxTasks,
		heights: rootedHeights,
		make:    func(_ *rand.Rand, n, l int, _ dagParams) (DAG, error) { return forkJoin(n, l), nil }},
	{Name: "hybrid", Aliases: []string{"S-3"}, Doc: "S-3: the root forks into short chains that join in one final task (L = 3 by default: a bag of tasks between a root and a sink)",
		DefaultN: thesisN, DefaultL: wdl.Range{Min: 3, Max: 3}, MaxN: wdl.MaxTasks,
		heights: rootedHeights,
		make:    func(_ *rand.Rand, n, l int, _ dagParams) (DAG, error) { return hybrid(n, l), nil }},
	{Name: "bot", Aliases: []string{"bag-of-tasks"}, Doc: "a bag of independent tasks (L = 1)",
		DefaultN: thesisN, DefaultL: wdl.Range{Min: 1, Max: 1}, MaxN: wdl.MaxTasks,
		heights: func(int) (int, int) { return 1, 1 },
		make:    func(_ *rand.Rand, n, _ int, _ dagParams) (DAG, error) { return DAG{N: n}, nil }},
	{Name: "sameprob", Aliases: []string{"C-1"}, Doc: "C-1: every forward edge between levels exists with the same probability EdgeProb",
		DefaultN: thesisN, DefaultL: wdl.Range{Min: 5, Max: 15}, MaxN: maxRandomDAGTasks, heights: randomHeights,
		make: func(r *rand.Rand, n, l int, p dagParams) (DAG, error) { return randomDAG(r, n, l, p, false, false) }},
	{Name: "samepred", Aliases: []string{"C-2"}, Doc: "C-2: every task has the same expected number of predecessors MeanPred",
		DefaultN: thesisN, DefaultL: wdl.Range{Min: 5, Max: 15}, MaxN: maxRandomDAGTasks, heights: randomHeights, byPred: true,
		make: func(r *rand.Rand, n, l int, p dagParams) (DAG, error) { return randomDAG(r, n, l, p, true, false) }},
	{Name: "layrprob", Aliases: []string{"C-3"}, Doc: "C-3: layered; each edge between consecutive levels exists with probability EdgeProb",
		DefaultN: thesisN, DefaultL: wdl.Range{Min: 5, Max: 10}, MaxN: maxRandomDAGTasks, heights: randomHeights,
		make: func(r *rand.Rand, n, l int, p dagParams) (DAG, error) { return randomDAG(r, n, l, p, false, true) }},
	{Name: "layrpred", Aliases: []string{"C-4"}, Doc: "C-4: layered; each task has MeanPred predecessors on average, all in the level before",
		DefaultN: thesisN, DefaultL: wdl.Range{Min: 5, Max: 10}, MaxN: maxRandomDAGTasks, heights: randomHeights, byPred: true,
		make: func(r *rand.Rand, n, l int, p dagParams) (DAG, error) { return randomDAG(r, n, l, p, true, true) }},
}

var dagIndex = names.Index(dagShapes, func(s *DAGShape) []string { return append([]string{s.Name}, s.Aliases...) }, false)

// LookupDAGShape finds a composite structure by name or alias.
func LookupDAGShape(name string) (*DAGShape, bool) {
	s, ok := dagIndex[name]
	return s, ok
}

// DAGShapes lists the composite structures.
func DAGShapes() []*DAGShape { return dagShapes }

// randomHeights: the random structures spread N tasks over any L ≤ N levels.
func randomHeights(n int) (int, int) { return 1, n }

// rootedHeights are the heights of forkjoin and hybrid: below 3 levels they
// are chains (L = N); from 3 levels on, any L ≤ N.
func rootedHeights(n int) (int, int) {
	if n <= 2 {
		return n, n
	}
	return 3, n
}

func chain(n int) DAG {
	d := DAG{N: n}
	for i := 1; i < n; i++ {
		d.Edges = append(d.Edges, [2]int{i - 1, i})
	}
	return d
}

// forkJoinWide is the number of wide (worker) levels of a fork/join of height
// l: levels 2, 4, … strictly inside the graph. Levels 1, 3, 5, … and the last
// level hold one coordinating task each.
func forkJoinWide(l int) int {
	if l < 3 {
		return 0
	}
	return (l - 1) / 2
}

// forkJoin builds L levels: one task, a wide level, one task, a wide level, …,
// one task. (For even L the last two levels are single tasks: the last join,
// then a final collecting task.) The N − (single levels) workers are spread
// evenly over the wide levels.
func forkJoin(n, l int) DAG {
	wide := forkJoinWide(l)
	if wide == 0 {
		return chain(n)
	}
	workers := n - (l - wide)
	d := DAG{N: n}
	prev := []int{0}
	next := 1
	w := 0
	for level := 2; level <= l; level++ {
		var cur []int
		if level%2 == 0 && level < l {
			size := workers / wide
			if w < workers%wide {
				size++
			}
			w++
			for k := 0; k < size; k++ {
				cur = append(cur, next)
				next++
			}
		} else {
			cur = []int{next}
			next++
		}
		for _, a := range prev {
			for _, b := range cur {
				d.Edges = append(d.Edges, [2]int{a, b})
			}
		}
		prev = cur
	}
	return d
}

// hybrid builds a root, chains of at most L−2 tasks (one of exactly L−2, the
// others sharing the remaining tasks as evenly as that allows), and a sink.
func hybrid(n, l int) DAG {
	if l <= 2 {
		return chain(n)
	}
	h := l - 2
	m := n - 2
	lengths := []int{h}
	rest := m - h
	if rest > 0 {
		k := (rest + h - 1) / h
		for i := 0; i < k; i++ {
			size := rest / k
			if i < rest%k {
				size++
			}
			lengths = append(lengths, size)
		}
	}
	d := DAG{N: n}
	sink := n - 1
	next := 1
	for _, length := range lengths {
		prev := 0
		for k := 0; k < length; k++ {
			d.Edges = append(d.Edges, [2]int{prev, next})
			prev = next
			next++
		}
		d.Edges = append(d.Edges, [2]int{prev, sink})
	}
	return d
}

// levelSizes splits n nodes into l non-empty levels at random: the l−1 cut
// points are a uniform sample of the n−1 gaps (Knuth's selection sampling).
func levelSizes(r *rand.Rand, n, l int) []int {
	sizes := make([]int, 0, l)
	need, last := l-1, 0
	for gap := 1; gap < n && need > 0; gap++ {
		if r.IntN(n-gap) < need {
			sizes = append(sizes, gap-last)
			last = gap
			need--
		}
	}
	return append(sizes, n-last)
}

// randomDAG builds the four random generators of Table 7.3 on levels, so that
// N and L come out exactly as drawn: nodes are spread over L non-empty levels,
// edges only go from a lower to a higher level, and every node below the first
// level has a predecessor in the level right above it (added when the random
// edges left it without one). A node's longest path from a root is then its
// level, and L is the number of levels.
//
// byPred selects samepred/layrpred (each node draws 1..2·MeanPred−1
// predecessors, mean MeanPred) over sameprob/layrprob (each candidate edge
// with probability EdgeProb). layered keeps all edges between consecutive
// levels (layrprob, layrpred) rather than between any two levels.
//
// The error is errTooManyDeps, as soon as the edges pass maxDependencies.
func randomDAG(r *rand.Rand, n, l int, p dagParams, byPred, layered bool) (DAG, error) {
	sizes := levelSizes(r, n, l)
	d := DAG{N: n}
	start := 0 // first node of the current level
	prevStart := 0
	var preds []int
	for lv, size := range sizes {
		if lv > 0 {
			// candidates: the previous level only, or every earlier level
			lo := 0
			if layered {
				lo = prevStart
			}
			for v := start; v < start+size; v++ {
				preds = preds[:0]
				if byPred {
					want := 1 + r.IntN(max(1, 2*p.meanPred-1))
					// one in the level right above, the rest from the candidates
					preds = append(preds, prevStart+r.IntN(start-prevStart))
					for len(preds) < want && len(preds) < start-lo {
						c := lo + r.IntN(start-lo)
						if !contains(preds, c) {
							preds = append(preds, c)
						}
					}
				} else {
					above := false
					for c := lo; c < start; c++ {
						if r.Float64() < p.edgeProb {
							preds = append(preds, c)
							above = above || c >= prevStart
						}
					}
					if !above {
						preds = append(preds, prevStart+r.IntN(start-prevStart))
					}
				}
				sort.Ints(preds)
				if len(d.Edges)+len(preds) > maxDependencies {
					return DAG{}, errTooManyDeps
				}
				for _, c := range preds {
					d.Edges = append(d.Edges, [2]int{c, v})
				}
			}
		}
		prevStart = start
		start += size
	}
	return d, nil
}

func contains(s []int, v int) bool {
	for _, x := range s {
		if x == v {
			return true
		}
	}
	return false
}
