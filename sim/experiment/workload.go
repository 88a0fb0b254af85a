package experiment

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"slices"
	"strings"

	"github.com/gmark/gmark/generator"
	"github.com/gmark/gmark/sim/topology"
	"github.com/gmark/gmark/wdl"
	"github.com/gmark/gmark/workload"
)

// A run's workload is made by the generator from a WDL spec written here
// (one unit per cluster for grid-LF, per grid for a trace) and pulled by
// the simulator one job at a time: a run holds no workload, whatever its
// length.

// WorkloadSummary describes the workload a run was given: its jobs and
// span, and the offered load (Σ processors × run time / (processors ×
// span)) of the whole and of each grid, against the target.
type WorkloadSummary struct {
	Jobs        int        `json:"jobs"`
	Span        float64    `json:"span_s"`
	OfferedLoad float64    `json:"offered_load_percent"`
	Grids       []GridLoad `json:"grids"`
}

// GridLoad is the offered load of one grid's jobs over their own span.
type GridLoad struct {
	Grid        string  `json:"grid"`
	Jobs        int     `json:"jobs"`
	Target      float64 `json:"target_percent"`
	OfferedLoad float64 `json:"offered_load_percent"`
}

// stream is a sim.Source over the jobs a generator emits: Generate pushes,
// the simulator pulls (iter.Pull), so only the job in hand is held.
type stream struct {
	ctx    context.Context
	next   func() (*workload.Job, bool)
	stop   func()
	genErr error
	keep   func(j *workload.Job) bool // nil: every job
	acc    loadAccount
	n      int
}

var errStopped = errors.New("stopped")

func newStream(ctx context.Context, g *generator.Generator, keep func(*workload.Job) bool, top *topology.Topology) *stream {
	s := &stream{ctx: ctx, keep: keep, acc: newLoadAccount(top)}
	seq := func(yield func(*workload.Job) bool) {
		_, err := g.Generate(func(j *workload.Job) error {
			if !yield(j) {
				return errStopped
			}
			return nil
		})
		if err != nil && !errors.Is(err, errStopped) {
			s.genErr = err
		}
	}
	s.next, s.stop = iter.Pull(seq)
	return s
}

// Next implements sim.Source.
func (s *stream) Next(j *workload.Job) (bool, error) {
	for {
		if s.n++; s.n%1024 == 0 && s.ctx.Err() != nil {
			return false, s.ctx.Err()
		}
		p, ok := s.next()
		if !ok {
			return false, s.genErr
		}
		if s.keep != nil && !s.keep(p) {
			continue
		}
		*j = *p
		j.Components = append([]workload.Component(nil), p.Components...)
		s.acc.add(j)
		return true, nil
	}
}

// Close ends the generator.
func (s *stream) Close() { s.stop() }

// loadAccount sums the offered work of a stream, as a whole and by grid.
type loadAccount struct {
	top                 *topology.Topology
	grids               []int // topology indexes of the roots
	jobs                []int
	work, first, last   []float64
	tJobs               int
	tWork, tFirst, tEnd float64
}

func newLoadAccount(top *topology.Topology) loadAccount {
	a := loadAccount{top: top}
	for i := range top.Nodes {
		if top.Nodes[i].Parent == -1 {
			a.grids = append(a.grids, i)
		}
	}
	a.jobs = make([]int, len(a.grids))
	a.work, a.first, a.last = make([]float64, len(a.grids)), make([]float64, len(a.grids)), make([]float64, len(a.grids))
	return a
}

func (a *loadAccount) add(j *workload.Job) {
	t, w := j.Submit.Seconds(), float64(j.Processors())*j.RunTime.Seconds()
	if a.tJobs == 0 {
		a.tFirst = t
	}
	a.tJobs++
	a.tWork += w
	a.tEnd = t
	if len(j.Components) == 0 {
		return
	}
	n, ok := a.top.Index(j.Components[0].Site)
	if !ok {
		return
	}
	for g, root := range a.grids {
		if a.top.Nodes[n].Grid == root {
			if a.jobs[g] == 0 {
				a.first[g] = t
			}
			a.jobs[g]++
			a.work[g] += w
			a.last[g] = t
		}
	}
}

func (a *loadAccount) summary(targets []float64) WorkloadSummary {
	s := WorkloadSummary{Jobs: a.tJobs, Span: a.tEnd - a.tFirst, Grids: []GridLoad{}}
	s.OfferedLoad = offered(a.tWork, a.top.Processors(), s.Span)
	for g, root := range a.grids {
		procs := 0
		for _, c := range a.top.Subtree(root) {
			procs += a.top.Nodes[c].Processors
		}
		s.Grids = append(s.Grids, GridLoad{Grid: a.top.Nodes[root].Name, Jobs: a.jobs[g], Target: targets[g],
			OfferedLoad: offered(a.work[g], procs, a.last[g]-a.first[g])})
	}
	return s
}

// offered is the load in percent of work processor-seconds on procs
// processors over span seconds (0 for no span).
func offered(work float64, procs int, span float64) float64 {
	if !(span > 0) || procs == 0 {
		return 0
	}
	return 100 * work / (float64(procs) * span)
}

// gridTargets is the target load of each grid: that of its first cluster
// (a grid-LF grid may mix loads: the mean over its clusters, by size).
func gridTargets(top *topology.Topology, loads []float64) []float64 {
	var out []float64
	for i := range top.Nodes {
		if top.Nodes[i].Parent != -1 {
			continue
		}
		sum, procs := 0.0, 0
		for _, c := range top.Subtree(i) {
			sum += loads[c] * float64(top.Nodes[c].Processors)
			procs += top.Nodes[c].Processors
		}
		out = append(out, sum/float64(max(procs, 1)))
	}
	return out
}

// source makes the run's workload stream.
func (r *Run) source(ctx context.Context, top *topology.Topology) (*stream, error) {
	if r.Workload.Kind == KindTrace {
		return traceSource(ctx, top, &r.Workload)
	}
	return gridLFSource(ctx, top, &r.Workload)
}

// gridLFSource is the thesis's Ch. 8 workload: one grid-LF stream per
// cluster (wl:lublin Variant=grid: 95% serial jobs, Weibull bag-of-tasks
// arrivals with the daily cycle), each brought to its cluster's load by
// IWG and Span × Scale long. IWG changes only submit times: a unit's
// sizes and run times come from its own random streams, the same whatever
// its job count, its target or the other units. So a first pass reads each
// cluster's jobs until their work reaches load × processors × span, which
// is the job count that, at the target load, lasts the span.
func gridLFSource(ctx context.Context, top *topology.Topology, w *RunWorkload) (*stream, error) {
	span := w.Span.Seconds() * w.Scale
	counts := make([]int, top.Clusters)
	for c := range counts {
		n, err := gridLFCount(ctx, top, w, c, w.ClusterLoads[c]/100*float64(top.Nodes[c].Processors)*span)
		if err != nil {
			return nil, err
		}
		counts[c] = max(minGridLFJobs, n)
	}
	g, err := gridLFGenerator(top, w, counts)
	tries, first := make([]int, top.Clusters), slices.Clone(counts)
	for err != nil {
		// With the daily cycle the load jumps as IWG stretches the
		// arrivals, and a target may fall in a jump: a job less or more
		// moves it (n−1, n+1, n−2, …).
		var miss *iwgMiss
		if !errors.As(err, &miss) || tries[miss.cluster] >= iwgRetries {
			return nil, err
		}
		c := miss.cluster
		tries[c]++
		step := (tries[c] + 1) / 2
		if tries[c]%2 == 1 {
			step = -step
		}
		counts[c] = max(minGridLFJobs, first[c]+step)
		g, err = gridLFGenerator(top, w, counts)
	}
	if err != nil {
		return nil, err
	}
	return newStream(ctx, g, func(j *workload.Job) bool {
		c := j.Unit - 1 // unit ids count from 1, one unit per cluster in order
		j.Components = []workload.Component{{Site: top.Nodes[c].Name, Count: j.Processors()}}
		j.App = workload.App{Name: "swf"}
		return true
	}, top), nil
}

// The job counts of grid-LF streams: IWG needs a few jobs to measure a
// load; a stream has at most maxGridLFJobs.
const (
	minGridLFJobs = 20
	maxGridLFJobs = 50_000_000
)

// gridLFCount is how many of cluster c's grid-LF jobs it takes for their
// work (processor-seconds) to come nearest to work: the unit alone, under
// its own id (so with its own random streams), read until then.
func gridLFCount(ctx context.Context, top *topology.Topology, w *RunWorkload, c int, work float64) (int, error) {
	src := fmt.Sprintf("# File-type: text/wl-spec\n# File-version: 1.1\n%d\tunitary\t%d\twl:lublin\tsingle\t1\t*:?\t-\tVariant=grid,Processors=%d\n",
		c+1, maxGridLFJobs, top.Nodes[c].Processors)
	spec, err := wdl.Parse(gridLFSpecName, []byte(src), nil)
	if err != nil {
		return 0, err
	}
	g, err := generator.New(spec, w.Seed)
	if err != nil {
		return 0, fmt.Errorf("grid-LF workload of cluster %s: %w", top.Nodes[c].Name, err)
	}
	n, sum := 0, 0.0
	_, err = g.Generate(func(j *workload.Job) error {
		w := float64(j.Processors()) * j.RunTime.Seconds()
		if sum+w >= work {
			// The count whose work is the nearer to the target: one long
			// parallel job may hold much of it.
			if sum+w-work <= work-sum || n == 0 {
				n, sum = n+1, sum+w
			}
			return errStopped
		}
		n, sum = n+1, sum+w
		if n%4096 == 0 {
			return ctx.Err()
		}
		return nil
	})
	if err != nil && !errors.Is(err, errStopped) {
		return 0, fmt.Errorf("grid-LF workload of cluster %s: %w", top.Nodes[c].Name, err)
	}
	if !errors.Is(err, errStopped) {
		return 0, fmt.Errorf("grid-LF workload of cluster %s: %d jobs hold less work than the load asks; shorten the span or lower the load", top.Nodes[c].Name, maxGridLFJobs)
	}
	return n, nil
}

func gridLFGenerator(top *topology.Topology, w *RunWorkload, counts []int) (*generator.Generator, error) {
	var b strings.Builder
	b.WriteString("# File-type: text/wl-spec\n# File-version: 1.0\n")
	for c := 0; c < top.Clusters; c++ {
		fmt.Fprintf(&b, "%d\twl:lublin\tsingle\t1\t*:?\t-\tVariant=grid,Processors=%d,TargetLoad=%g,Tolerance=%g,MaxIterations=%d\n",
			counts[c], top.Nodes[c].Processors, w.ClusterLoads[c]/100, w.Tolerance/100, w.MaxIterations)
	}
	spec, err := wdl.Parse(gridLFSpecName, []byte(b.String()), nil)
	if err != nil {
		return nil, err
	}
	g, err := generator.New(spec, w.Seed)
	if err != nil {
		return nil, gridLFError(top, err)
	}
	return g, nil
}

const gridLFSpecName = "grid-lf.wdl"

// iwgRetries bounds the job counts tried for a cluster whose target IWG
// cannot reach.
const iwgRetries = 8

// iwgMiss is IWG's failure to reach a cluster's target.
type iwgMiss struct {
	cluster int
	name    string
	msg     string
}

func (e *iwgMiss) Error() string {
	return fmt.Sprintf("grid-LF workload of cluster %s: %s (raise the workload's tolerance or max_iterations)", e.name, e.msg)
}

// gridLFError names the cluster of a unit's error (IWG missing its target).
func gridLFError(top *topology.Topology, err error) error {
	var list wdl.ErrorList
	if errors.As(err, &list) && len(list) > 0 {
		err = list[0]
	}
	var we *wdl.Error
	if errors.As(err, &we) {
		if c := we.Pos.Line - 3; c >= 0 && c < top.Clusters { // two marker lines, then one unit per cluster
			return &iwgMiss{cluster: c, name: top.Nodes[c].Name, msg: we.Msg}
		}
	}
	return fmt.Errorf("grid-LF workload: %w", err)
}
