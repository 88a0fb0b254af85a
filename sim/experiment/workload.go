package experiment

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"iter"
	"maps"
	"math"
	"regexp"
	"slices"
	"strconv"
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
	edit   func(j *workload.Job)      // nil: none; before keep
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
		if s.edit != nil {
			s.edit(p)
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
	t, w := j.Submit.Seconds(), workOf(j)
	if a.tJobs == 0 {
		a.tFirst = t
	}
	a.tJobs++
	a.tWork += w
	a.tEnd = t
	site, ok := siteOf(j)
	if !ok {
		return
	}
	n, ok := a.top.Index(site)
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

// workOf is the work a job offers, processor-seconds: a composite job's is
// its tasks'.
func workOf(j *workload.Job) float64 {
	if j.Kind == workload.Composite {
		w := 0.0
		for i := range j.Tasks {
			w += workOf(&j.Tasks[i])
		}
		return w
	}
	return float64(j.Processors()) * j.RunTime.Seconds()
}

// siteOf is where a job is submitted: its first component's site (a
// composite job's first task's).
func siteOf(j *workload.Job) (string, bool) {
	if j.Kind == workload.Composite && len(j.Tasks) > 0 {
		j = &j.Tasks[0]
	}
	if len(j.Components) == 0 {
		return "", false
	}
	return j.Components[0].Site, true
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
	switch r.Workload.Kind {
	case KindTrace:
		return traceSource(ctx, top, &r.Workload)
	case KindWDL:
		return wdlSource(ctx, top, &r.Workload)
	case KindBurst:
		return burstSource(ctx, top, &r.Workload), nil
	}
	return gridLFSource(ctx, top, &r.Workload)
}

// gridLFSource is the thesis's Ch. 8 workload: one grid-LF stream per
// cluster (wl:lublin Variant=grid: 95% serial jobs, Weibull bag-of-tasks
// arrivals with the daily cycle), each bringing its cluster's load over
// the period (Span × Scale), as the thesis's IWG does "for a system of
// known size, during a specified period" (Sec. 8.4.3): the stream's first
// job arrives at 0, its last at the period's end (within 1%), and its work
// is load × processors × period (within the tolerance). See tuneGridLF.
func gridLFSource(ctx context.Context, top *topology.Topology, w *RunWorkload) (*stream, error) {
	period := w.Span.Seconds() * w.Scale
	units := make([]gridLFUnit, top.Clusters)
	for c := range units {
		u, err := tuneGridLF(ctx, top, w, c, period)
		if err != nil {
			return nil, err
		}
		units[c] = u
	}
	g, err := gridLFGenerator(top, w, units)
	if err != nil {
		return nil, err
	}
	return newStream(ctx, g, func(j *workload.Job) bool {
		c := (j.Unit - 1) % top.Clusters // unit ids: draw × clusters + cluster + 1
		j.Components = []workload.Component{{Site: top.Nodes[c].Name, Count: j.Processors()}}
		j.App = workload.App{Name: "swf"}
		return true
	}, top), nil
}

// GridLFMethod names how grid-LF streams are made, in every run's
// definition (so in its digest): results made otherwise are not reused.
// "period/1": each stream tuned to its cluster's load over the period
// (tuneGridLF). Before it (no name), each stream was tuned to its load over
// its own span, and a stream could end hours before the others.
const GridLFMethod = "period/1"

// gridLFUnit is one cluster's stream as tuned: the unit id (which keys its
// random streams), its job count, and the load IWG brings it to over its
// own span (the load that makes the span the period).
type gridLFUnit struct {
	id, n int
	load  float64 // fraction
}

// The grid-LF streams: IWG needs two jobs to measure a load; a stream has
// at most maxGridLFJobs; a cluster's stream is drawn again (another unit
// id, so other random draws) at most gridLFDraws times; spanTolerance is
// how far (relative) a stream's last arrival may be from the period's end.
const (
	minGridLFJobs = 2
	maxGridLFJobs = 50_000_000
	gridLFDraws   = 32
	gridLFTries   = 8
	spanTolerance = 0.01
)

// tuneGridLF finds cluster c's stream: the first draw (unit id) whose jobs
// 1..n hold work within the tolerance of load × processors × period for
// some n, and for which IWG can place those n jobs over the period (their
// offered load over their own span, the work over processors × period,
// reached within 1%). Sizes and run times come from the unit's own random
// streams whatever its count, and IWG changes only submit times, so the
// work of jobs 1..n is read once, without IWG. A draw can miss: one long
// parallel job may hold more work than the whole period asks (e.g. 512
// processors for 20 h on a cluster of 560 at 70% for a day), and the
// daily cycle makes the load jump as IWG stretches the arrivals; then the
// counts nearest the target are tried (up to gridLFTries), and then
// another draw, as DGSim's IWG did when "a random draw misses the target
// load" (Sec. 6.4.2). The accepted streams are conditioned on not
// missing, which leaves out the draws whose work is dominated by one job.
// When no draw comes within the tolerance (a period too short for the
// jobs: minutes, at a low load), the draw nearest the target is taken;
// the run's workload summary shows the load it has.
func tuneGridLF(ctx context.Context, top *topology.Topology, w *RunWorkload, c int, period float64) (gridLFUnit, error) {
	procs := float64(top.Nodes[c].Processors)
	want, tol := w.ClusterLoads[c]/100, w.Tolerance/100
	dist := func(work float64) float64 { return math.Abs(work/(procs*period) - want) }
	var lastErr error
	var nearest []gridLFUnit // of each draw, the count nearest the target
	place := func(u gridLFUnit) (bool, error) {
		_, err := gridLFGeneratorOf(top, w, []int{c}, []gridLFUnit{u})
		switch {
		case err == nil:
			return true, nil
		case errors.As(err, new(*iwgMiss)):
			lastErr = err
			return false, nil
		}
		return false, err
	}
	for draw := 0; draw < gridLFDraws; draw++ {
		id := draw*top.Clusters + c + 1
		works, err := gridLFWorks(ctx, top, w, c, id, (want+tol)*procs*period)
		if err != nil {
			return gridLFUnit{}, err
		}
		// The counts nearest the target first (the work grows with the
		// count: those within the tolerance are one run of counts).
		var cands []int
		for n := minGridLFJobs; n < len(works); n++ {
			cands = append(cands, n)
		}
		slices.SortStableFunc(cands, func(a, b int) int { return cmp.Compare(dist(works[a]), dist(works[b])) })
		if len(cands) > 0 {
			nearest = append(nearest, gridLFUnit{id: id, n: cands[0], load: works[cands[0]] / (procs * period)})
		}
		for k, n := range cands {
			if k == gridLFTries || dist(works[n]) > tol {
				break
			}
			u := gridLFUnit{id: id, n: n, load: works[n] / (procs * period)}
			if ok, err := place(u); err != nil || ok {
				return u, err
			}
		}
	}
	slices.SortStableFunc(nearest, func(a, b gridLFUnit) int {
		return cmp.Compare(math.Abs(a.load-want), math.Abs(b.load-want))
	})
	for k, u := range nearest {
		if k == gridLFTries {
			break
		}
		if ok, err := place(u); err != nil || ok {
			return u, err
		}
	}
	if lastErr == nil {
		lastErr = fmt.Errorf("grid-LF workload of cluster %s: no stream of at least %d jobs", top.Nodes[c].Name, minGridLFJobs)
	}
	return gridLFUnit{}, fmt.Errorf("%w (after %d draws; raise the workload's max_iterations or lengthen the span)", lastErr, gridLFDraws)
}

// gridLFWorks is the work (processor-seconds) of cluster c's grid-LF jobs
// 1..n, for every n until it passes limit (works[n], works[0] = 0): the
// unit alone, under its id, without IWG.
func gridLFWorks(ctx context.Context, top *topology.Topology, w *RunWorkload, c, id int, limit float64) ([]float64, error) {
	src := gridLFSpecHeader + gridLFUnitLine(id, maxGridLFJobs, top.Nodes[c].Processors, w.LF, "")
	spec, err := wdl.Parse(gridLFSpecName, []byte(src), nil)
	if err != nil {
		return nil, err
	}
	g, err := generator.New(spec, w.Seed)
	if err != nil {
		return nil, fmt.Errorf("grid-LF workload of cluster %s: %w", top.Nodes[c].Name, err)
	}
	works := []float64{0}
	sum := 0.0
	_, err = g.Generate(func(j *workload.Job) error {
		sum += float64(j.Processors()) * j.RunTime.Seconds()
		works = append(works, sum)
		if sum > limit {
			return errStopped
		}
		if len(works)%4096 == 0 {
			return ctx.Err()
		}
		return nil
	})
	if err != nil && !errors.Is(err, errStopped) {
		return nil, fmt.Errorf("grid-LF workload of cluster %s: %w", top.Nodes[c].Name, err)
	}
	if !errors.Is(err, errStopped) {
		return nil, fmt.Errorf("grid-LF workload of cluster %s: %d jobs hold less work than the load asks; shorten the span or lower the load", top.Nodes[c].Name, maxGridLFJobs)
	}
	return works, nil
}

// gridLFGenerator is the generator of every cluster's stream.
func gridLFGenerator(top *topology.Topology, w *RunWorkload, units []gridLFUnit) (*generator.Generator, error) {
	cs := make([]int, len(units))
	for c := range cs {
		cs[c] = c
	}
	return gridLFGeneratorOf(top, w, cs, units)
}

// gridLFGeneratorOf is the generator of the streams of clusters cs, with
// their units: IWG brings each to its load (the one that spans the
// period) within spanTolerance of it.
func gridLFGeneratorOf(top *topology.Topology, w *RunWorkload, cs []int, units []gridLFUnit) (*generator.Generator, error) {
	var b strings.Builder
	b.WriteString(gridLFSpecHeader)
	for k, c := range cs {
		u := units[k]
		b.WriteString(gridLFUnitLine(u.id, u.n, top.Nodes[c].Processors, w.LF,
			fmt.Sprintf(",TargetLoad=%g,Tolerance=%g,MaxIterations=%d", u.load, spanTolerance*u.load, w.MaxIterations)))
	}
	spec, err := wdl.Parse(gridLFSpecName, []byte(b.String()), nil)
	if err != nil {
		return nil, err
	}
	g, err := generator.New(spec, w.Seed)
	if err != nil {
		return nil, gridLFError(top, cs, err)
	}
	return g, nil
}

const gridLFSpecName = "grid-lf.wdl"

const gridLFSpecHeader = "# File-type: text/wl-spec\n# File-version: 1.1\n"

// gridLFUnitLine is the WDL line of one cluster's grid-LF stream: unit id,
// n jobs on a cluster of procs processors, the experiment's wl:lublin
// parameters (lf, in key order) and then more (",Key=value…").
func gridLFUnitLine(id, n, procs int, lf map[string]float64, more string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%d\tunitary\t%d\twl:lublin\tsingle\t1\t*:?\t-\tVariant=grid,Processors=%d", id, n, procs)
	for _, k := range slices.Sorted(maps.Keys(lf)) {
		fmt.Fprintf(&b, ",%s=%s", k, strconv.FormatFloat(lf[k], 'g', -1, 64))
	}
	b.WriteString(more)
	b.WriteByte('\n')
	return b.String()
}

// gridLFKeys are the wl:lublin parameters a grid-LF workload may set
// ([workload.lf]): the model's own (docs/models.md), and its user
// population (Users: each cluster's stream draws its jobs' users from that
// many, by Zipf rank with UserExponent), not those gmark sets per cluster
// (Processors, the IWG keys) or the variant.
var gridLFKeys = []string{"SerialProb", "Pow2Prob", "ULow", "UMed", "UHi", "UProb",
	"A1", "B1", "A2", "B2", "PA", "PB", "AArr", "BArr", "ANum", "BNum", "ARAR", "Users", "UserExponent"}

var gridLFPos = regexp.MustCompile(regexp.QuoteMeta(gridLFSpecName) + `:\d+(:\d+)?: `)

// checkGridLFParams checks [workload.lf]: known keys, and values the
// generator takes (its ranges and rules, e.g. ULow ≤ UMed ≤ UHi) on a
// cluster of 128 processors.
func checkGridLFParams(lf map[string]float64) error {
	for _, k := range slices.Sorted(maps.Keys(lf)) {
		if !slices.Contains(gridLFKeys, k) {
			return fmt.Errorf("unknown wl:lublin parameter %q (known: %s)", excerpt(k), strings.Join(gridLFKeys, ", "))
		}
	}
	spec, err := wdl.Parse(gridLFSpecName, []byte(gridLFSpecHeader+gridLFUnitLine(1, 1, 128, lf, "")), nil)
	if err == nil {
		_, err = generator.New(spec, 1)
	}
	if err != nil {
		// The positions are in a spec of gmark's; a key is checked once
		// per class of the model, so a problem can come twice.
		msgs := strings.Split(gridLFPos.ReplaceAllString(err.Error(), ""), "\n")
		slices.Sort(msgs)
		return errors.New(strings.Join(slices.Compact(msgs), "; "))

	}
	return nil
}

// iwgMiss is IWG's failure to reach a cluster's target.
type iwgMiss struct {
	cluster int
	name    string
	msg     string
}

func (e *iwgMiss) Error() string {
	return fmt.Sprintf("grid-LF workload of cluster %s: %s (raise the workload's tolerance or max_iterations)", e.name, e.msg)
}

// gridLFError names the cluster of a unit's error (IWG missing its
// target); units are one per line of cs after the two marker lines.
func gridLFError(top *topology.Topology, cs []int, err error) error {
	var list wdl.ErrorList
	if errors.As(err, &list) && len(list) > 0 {
		err = list[0]
	}
	var we *wdl.Error
	if errors.As(err, &we) {
		if k := we.Pos.Line - 3; k >= 0 && k < len(cs) {
			return &iwgMiss{cluster: cs[k], name: top.Nodes[cs[k]].Name, msg: we.Msg}
		}
	}
	return fmt.Errorf("grid-LF workload: %w", err)
}
