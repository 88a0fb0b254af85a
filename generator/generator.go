// Package generator turns a WDL spec into a workload: the arrival process of
// each unit, the unit generators of the applications database, co-allocated
// components, composite jobs and their DAGs, and workload generators (wl:
// units). Generation is deterministic: the same spec and seed give the same
// jobs, and each unit draws from its own random streams, so adding a unit
// leaves the other units' jobs as they were.
package generator

import (
	"container/heap"
	"fmt"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/gmark/gmark/stats"
	"github.com/gmark/gmark/wdl"
	"github.com/gmark/gmark/workload"
)

// Generator generates the workload of one spec with one seed.
type Generator struct {
	spec     *wdl.Spec
	seed     uint64
	plans    []*unitPlan
	Warnings wdl.ErrorList
	// GridProcessors is the grid's size when the spec gives it: the units
	// that name the grid (Processors= or Grid=, read by their unit type)
	// agree on it. 0 when none names it or they disagree.
	GridProcessors int
}

// unitPlan is everything prepared for one unit before generation.
type unitPlan struct {
	unit  *wdl.Unit
	order int // position in the file, to break submit-time ties
	start time.Duration
	app   *appMaker
	place *placement
	attrs *attrs
	comp  *compositePlan
	// deadline is the unit's Deadline= (nil: none).
	deadline *deadlinePlan
	source   func() (WorkloadSource, error) // wl: units
	jobType  string
	// arrivalScale multiplies the unit's inter-arrival times: what
	// TargetLoad found (1 otherwise).
	arrivalScale float64
}

// compositePlan prepares a composite unit: its DAG shape, N and L, and the
// applications of its tasks.
type compositePlan struct {
	shape     *DAGShape
	pairs     dagSizes // the feasible (N, L)
	appNames  []string
	apps      []*appMaker
	appChoice *stats.Choice
	params    dagParams
	tmpl      *wfTemplate // a wf:PATH unit's workflow (wftemplate.go)
}

// New prepares the generation of spec with the given seed. It checks what the
// WDL parser cannot: unit types against the registries, application
// parameters, placements and composite settings. Errors come as a
// wdl.ErrorList; keys no part of gmark read are reported in Warnings.
func New(spec *wdl.Spec, seed uint64) (*Generator, error) {
	g := &Generator{spec: spec, seed: seed}
	var errs wdl.ErrorList
	for i, u := range spec.Units {
		p, uerrs := prepareUnit(u, seed)
		p.order = i
		if len(uerrs) == 0 && p.source == nil {
			uerrs = tuneJobUnit(p, seed)
		}
		errs = append(errs, uerrs...)
		g.plans = append(g.plans, p)
	}
	if err := errs.Err(); err != nil {
		return nil, err
	}
	g.Warnings = append(g.Warnings, spec.Warnings...)
	for _, u := range spec.Units {
		for _, opt := range u.Options.Unused() {
			if len(g.Warnings) < wdl.MaxWarnings {
				g.Warnings = append(g.Warnings, wdl.Errorf(opt.KeyPos, "%s is not used by unit type %s (a typo?)", opt.Key, u.FullType()))
			}
		}
	}
	g.Warnings.Sort()
	g.GridProcessors = gridSize(spec)
	return g, nil
}

// gridSize is the grid's processors when the units that name the grid and
// read the key agree on it, else 0. It reads the keys again, so it runs
// after the unused-key warnings.
func gridSize(spec *wdl.Spec) int {
	size := 0
	for _, u := range spec.Units {
		read := false
		for _, key := range []string{"Processors", "Grid"} {
			read = read || (u.Options.Has(key) && !slices.ContainsFunc(u.Options.Unused(), func(o wdl.Option) bool { return o.Key == key }))
		}
		if !read {
			continue
		}
		var errs wdl.ErrorList
		n, ok := gridProcessors(&modelKeys{o: u.Options, errs: &errs})
		if !ok || len(errs) > 0 || (size != 0 && n != size) {
			return 0
		}
		size = n
	}
	return size
}

func prepareUnit(u *wdl.Unit, seed uint64) (*unitPlan, wdl.ErrorList) {
	var errs wdl.ErrorList
	p := &unitPlan{unit: u, jobType: u.Type, arrivalScale: 1}
	o := u.Options
	if d, ok, err := o.Duration("StartAt"); err != nil {
		errs = append(errs, err.(*wdl.Error))
	} else if ok {
		p.start = d
	}
	random := true
	if v, ok, err := o.Bool("RandomWorkload"); err != nil {
		errs = append(errs, err.(*wdl.Error))
	} else if ok {
		random = v
	}
	if u.Workload {
		gen, ok := workloadGenerators[u.Type]
		if !ok {
			errs = append(errs, wdl.Errorf(u.Cols.Type, "unknown workload generator %q (known: %s)", wdl.Excerpt(u.FullType()), strings.Join(WorkloadGeneratorNames(), ", ")))
			return p, errs
		}
		src, gerrs := gen.Prepare(u, seed)
		p.source = src
		return p, append(errs, gerrs...)
	}
	shape, isShape := LookupDAGShape(u.Type)
	var tmpl *wfTemplate
	if u.Template != "" {
		var terrs wdl.ErrorList
		shape, tmpl, terrs = prepareTemplate(u)
		if errs = append(errs, terrs...); shape == nil {
			return p, errs
		}
		isShape = true
	}
	if u.Composite && !isShape {
		names := make([]string, 0, len(dagShapes))
		for _, s := range dagShapes {
			names = append(names, s.Name)
		}
		errs = append(errs, wdl.Errorf(u.Cols.Type, "unknown composite structure %q (known: %s)", wdl.Excerpt(u.Type), strings.Join(names, ", ")))
		return p, errs
	}
	place, perrs := preparePlacement(u)
	p.place = place
	errs = append(errs, perrs...)
	a, aerrs := prepareAttrs(o, random)
	p.attrs = a
	errs = append(errs, aerrs...)
	dl, derrs := prepareDeadline(o, isShape)
	p.deadline = dl
	errs = append(errs, derrs...)
	if isShape {
		// A structure name makes the unit composite, also in the v1.0 layout
		// that has no GeneratorType column.
		p.jobType = shape.Name
		comp, cerrs := prepareComposite(u, shape, random)
		comp.tmpl = tmpl
		p.comp = comp
		return p, append(errs, cerrs...)
	}
	app, ok := LookupApp(u.Type)
	if !ok {
		errs = append(errs, wdl.Errorf(u.Cols.Type, "unknown unit type %q (applications: %s; composite structures: %s; workload generators: wl:…)",
			wdl.Excerpt(u.Type), strings.Join(AppNames(), ", "), shapeNames()))
		return p, errs
	}
	p.jobType = app.Name
	m, merrs := prepareApp(app, optView{o: o}, random)
	p.app = m
	return p, append(errs, merrs...)
}

// tuneJobUnit applies TargetLoad to a job unit: its inter-arrival times are
// scaled until the offered load (processors x run time over the grid's
// processors and the unit's span) is within the tolerance. The load needs
// the jobs' run times, so the unit must give RunTime (or Model).
func tuneJobUnit(p *unitPlan, seed uint64) wdl.ErrorList {
	var errs wdl.ErrorList
	o := p.unit.Options
	k := newModelKeys(o, &errs)
	procs, given := gridProcessors(k)
	s := prepareIWG(k, p.unit, procs, given)
	if !s.on || len(errs) > 0 {
		return errs
	}
	if !o.Has("RunTime") && !o.Has("Model") {
		opt, _ := o.Get("TargetLoad")
		return append(errs, wdl.Errorf(opt.KeyPos, "TargetLoad needs the jobs' run times: give RunTime= (or Model=)"))
	}
	scale, err := tuneLoad(s, func(scale float64) (WorkloadSource, error) {
		st := newUnitStream(p, seed)
		st.arr.scale = scale
		return jobUnitSource{st}, nil
	})
	if err != nil {
		return append(errs, err)
	}
	p.arrivalScale = scale
	return errs
}

// jobUnitSource lets a job unit's stream be read as a WorkloadSource.
type jobUnitSource struct{ s *unitStream }

func (j jobUnitSource) Next(job *workload.Job) (bool, error) {
	ok, err := j.s.advance()
	if ok {
		*job = j.s.job
	}
	return ok, err
}

func shapeNames() string {
	names := make([]string, 0, len(dagShapes))
	for _, s := range dagShapes {
		names = append(names, s.Name)
	}
	return strings.Join(names, ", ")
}

func prepareComposite(u *wdl.Unit, shape *DAGShape, random bool) (*compositePlan, wdl.ErrorList) {
	var errs wdl.ErrorList
	o := u.Options
	c := &compositePlan{shape: shape, params: dagParams{edgeProb: 0.1, meanPred: 2}}
	nr, nOK, err := o.Range("N")
	if err != nil {
		errs = append(errs, err.(*wdl.Error))
	}
	if !nOK {
		if nr, nOK, err = o.Range("NJobs"); err != nil {
			errs = append(errs, err.(*wdl.Error))
		}
	}
	if !nOK {
		nr = shape.DefaultN
	}
	lr, lOK, err := o.Range("L")
	if err != nil {
		errs = append(errs, err.(*wdl.Error))
	}
	if !lOK {
		lr = shape.DefaultL
	}
	if nr.Min < 1 {
		nr.Min = 1
	}
	if nr.Max > shape.MaxN {
		at := u.Cols.OtherInfo
		for _, key := range []string{"N", "NJobs"} {
			if opt, ok := o.Get(key); ok {
				at = opt.Pos
				break
			}
		}
		errs = append(errs, wdl.Errorf(at, "N %v: a %s job has at most %d tasks", nr, shape.Name, shape.MaxN))
	}
	if len(errs) == 0 {
		c.pairs = newDAGSizes(shape, nr, lr)
		if c.pairs.count() == 0 {
			errs = append(errs, wdl.Errorf(u.Cols.OtherInfo, "no %s DAG has N in %v and L in %v (%s)", shape.Name, nr, lr, shape.Doc))
		}
	}
	if p, ok, err := o.Float("EdgeProb", 0, 1); err != nil {
		errs = append(errs, err.(*wdl.Error))
	} else if ok {
		c.params.edgeProb = p
	}
	if m, ok, err := o.Int("MeanPred", 1, wdl.MaxTasks); err != nil {
		errs = append(errs, err.(*wdl.Error))
	} else if ok {
		c.params.meanPred = m
		// A task draws up to 2·MeanPred−1 predecessors: bound them all.
		if worst := nr.Max * (2*m - 1); shape.byPred && worst > maxDependencies {
			opt, _ := o.Get("MeanPred")
			errs = append(errs, wdl.Errorf(opt.Pos, "MeanPred=%d with N up to %d can give %d dependencies in one job, more than %d: lower MeanPred or N", m, nr.Max, worst, maxDependencies))
		}
	}
	items := []wdl.Weighted{{Value: "sser", Weight: 1}}
	if shape.Name == "wf" { // a workflow's tasks run for their run times
		items = []wdl.Weighted{{Value: "swf", Weight: 1}}
	}
	opt, ok := o.Get("AppsWithWeights")
	if ok {
		if items, err = wdl.ParseWeighted(opt.Value); err != nil {
			return c, append(errs, wdl.Errorf(opt.Pos, "AppsWithWeights: %v", err))
		}
	}
	w := make([]float64, len(items))
	for i, it := range items {
		app, found := LookupApp(it.Value)
		if !found {
			errs = append(errs, wdl.Errorf(opt.ItemPos(it), "AppsWithWeights: unknown application %q (known: %s)", wdl.Excerpt(it.Value), strings.Join(AppNames(), ", ")))
			continue
		}
		m, merrs := prepareApp(app, optView{o: o, prefix: it.Value + "."}, random)
		errs = append(errs, merrs...)
		c.appNames = append(c.appNames, app.Name)
		c.apps = append(c.apps, m)
		w[i] = it.Weight
	}
	c.appChoice, _ = stats.NewChoice(w)
	return c, errs
}

// Generate produces the workload in submit order, calling emit once per job.
// The job passed to emit is reused after emit returns: copy what must be kept.
// Ties in submit time go to the unit written first, then to the lower index.
func (g *Generator) Generate(emit func(*workload.Job) error) (*Summary, error) {
	sum := &Summary{PerUnit: make([]int, len(g.plans)), Traces: make([]*workload.TraceReplay, len(g.plans))}
	h := make(streamHeap, 0, len(g.plans))
	for _, p := range g.plans {
		s, err := g.newStream(p)
		if err != nil {
			return sum, unitError(p, err)
		}
		if tr, ok := s.source.(traceReplayer); ok {
			sum.Traces[p.order] = tr.TraceReplay()
		}
		if ok, err := s.advance(); err != nil {
			return sum, unitError(p, err)
		} else if ok {
			h = append(h, s)
		}
	}
	heap.Init(&h)
	for len(h) > 0 {
		s := h[0]
		j := &s.job
		sum.add(j, s.plan.order)
		if err := emit(j); err != nil {
			return sum, err
		}
		ok, err := s.advance()
		if err != nil {
			return sum, unitError(s.plan, err)
		}
		if ok {
			heap.Fix(&h, 0)
		} else {
			heap.Pop(&h)
		}
	}
	slices.Sort(sum.InputFiles)
	return sum, nil
}

// unitError places an error of a unit's generation (a bad draw, arrivals
// past the limit, a trace that fails to read) at the unit's line: it is the
// spec's error, so it is a *wdl.Error like those of New.
func unitError(p *unitPlan, err error) *wdl.Error {
	return wdl.Errorf(p.unit.Pos, "unit %d: %v", p.unit.ID, err)
}

// Summary describes a generated workload.
type Summary struct {
	Jobs        int
	Tasks       int   // sub-jobs of composite jobs
	Processors  int64 // sum over jobs of the processors each asks for
	First, Last time.Duration
	PerUnit     []int // jobs per unit, in file order
	// Traces is what each wl:trace unit replayed (nil for the other
	// units), in file order; WarmJobs are the ids of the warm jobs.
	Traces   []*workload.TraceReplay
	WarmJobs []string
	// Placement is what the workload leaves a placement policy to decide,
	// and InputFiles the input files its jobs read, by name (sorted when
	// Generate returns).
	Placement  workload.PlacementScope
	InputFiles []string
	files      map[string]bool
}

func (s *Summary) add(j *workload.Job, unit int) {
	if s.Jobs == 0 {
		s.First = j.Submit
	}
	s.Jobs++
	s.Last = j.Submit
	s.Tasks += len(j.Tasks)
	s.Processors += int64(j.Processors())
	s.PerUnit[unit]++
	if j.Warm {
		s.WarmJobs = append(s.WarmJobs, j.ID)
	}
	s.Placement.Add(j)
	s.addFiles(j)
}

// addFiles notes the names of the files j and its tasks read.
func (s *Summary) addFiles(j *workload.Job) {
	for _, f := range j.Files {
		if !s.files[f.Name] {
			if s.files == nil {
				s.files = map[string]bool{}
			}
			s.files[f.Name] = true
			s.InputFiles = append(s.InputFiles, f.Name)
		}
	}
	for i := range j.Tasks {
		s.addFiles(&j.Tasks[i])
	}
}

// traceReplayer is a WorkloadSource that replays a trace window.
type traceReplayer interface {
	TraceReplay() *workload.TraceReplay
}

// Span is the time from the first to the last submission.
func (s *Summary) Span() time.Duration { return s.Last - s.First }

// unitStream generates one unit's jobs in its own submit order.
type unitStream struct {
	plan   *unitPlan
	arr    arrivals
	rApp   *rand.Rand
	rPlace *rand.Rand
	rAttrs *rand.Rand
	rDAG   *rand.Rand
	rDead  *rand.Rand // drawn deadlines; nil when the unit gives none
	source WorkloadSource
	job    workload.Job
	idx    int
	idBuf  []byte
}

func (g *Generator) newStream(p *unitPlan) (*unitStream, error) {
	if p.source != nil {
		src, err := p.source()
		if err != nil {
			return nil, err
		}
		return &unitStream{plan: p, source: src}, nil
	}
	return newUnitStream(p, g.seed), nil
}

// newUnitStream starts a job unit's stream from its seed.
func newUnitStream(p *unitPlan, seed uint64) *unitStream {
	id := p.unit.ID
	s := &unitStream{plan: p}
	s.arr = arrivals{dist: p.unit.Arrival.Dist, r: stats.NewStream(seed, id, purposeArrival), t: p.start, scale: p.arrivalScale}
	s.rApp = stats.NewStream(seed, id, purposeApp)
	s.rPlace = stats.NewStream(seed, id, purposePlacement)
	s.rAttrs = stats.NewStream(seed, id, purposeAttrs)
	if p.comp != nil {
		s.rDAG = stats.NewStream(seed, id, purposeDAG)
	}
	if p.deadline.on() {
		s.rDead = stats.NewStream(seed, id, purposeDeadline)
	}
	return s
}

// advance makes the unit's next job in s.job; false when the unit is done.
func (s *unitStream) advance() (bool, error) {
	p := s.plan
	j := &s.job
	if s.source != nil {
		ok, err := s.source.Next(j)
		if ok {
			j.Submit += p.start
		}
		return ok, err
	}
	if s.idx >= p.unit.NTimes {
		return false, nil
	}
	t, err := s.arr.next()
	if err != nil {
		return false, err
	}
	j.ID = s.makeID(s.idx)
	j.Unit, j.Index, j.Submit, j.Type = p.unit.ID, s.idx, t, p.jobType
	if p.comp != nil {
		if err := s.makeComposite(j); err != nil {
			return false, err
		}
	} else {
		j.Kind = workload.Unitary
		p.place.fill(s.rPlace, j)
		if err := p.attrs.fill(s.rAttrs, j); err != nil {
			return false, err
		}
		p.app.fill(s.rApp, j)
		if err := p.deadline.fill(s.rDead, j); err != nil {
			return false, err
		}
		j.Tasks, j.Deps = j.Tasks[:0], j.Deps[:0]
	}
	s.idx++
	return true, nil
}

func (s *unitStream) makeID(idx int) string {
	b := strconv.AppendInt(s.idBuf[:0], int64(s.plan.unit.ID), 10)
	b = append(b, '-')
	b = strconv.AppendInt(b, int64(idx), 10)
	s.idBuf = b
	return string(b)
}

func (s *unitStream) makeComposite(j *workload.Job) error {
	p := s.plan
	c := p.comp
	n, l := c.pairs.pick(s.rDAG)
	dag, err := c.shape.make(s.rDAG, n, l, c.params)
	if err != nil {
		return fmt.Errorf("job %s (N=%d, L=%d): %v", j.ID, n, l, err)
	}
	j.Kind = workload.Composite
	j.SiteType, j.Components, j.App = "", j.Components[:0], workload.App{Params: j.App.Params[:0]}
	if err := p.attrs.fill(s.rAttrs, j); err != nil {
		return err
	}
	user, group := j.User, j.Group
	j.WallTime, j.RunTime, j.Files = 0, 0, j.Files[:0]
	if cap(j.Tasks) < dag.N {
		j.Tasks = make([]workload.Job, dag.N)
	}
	j.Tasks = j.Tasks[:dag.N]
	for k := range j.Tasks {
		t := &j.Tasks[k]
		t.ID = j.ID + "." + strconv.Itoa(k)
		t.Unit, t.Index, t.Kind, t.Submit = j.Unit, k, workload.Unitary, j.Submit
		a := c.appChoice.Pick(s.rApp)
		t.Type = c.appNames[a]
		p.place.fill(s.rPlace, t)
		if err := p.attrs.fill(s.rAttrs, t); err != nil {
			return err
		}
		t.User, t.Group = user, group
		if c.tmpl != nil {
			if err := c.tmpl.fill(t, k); err != nil {
				return fmt.Errorf("job %s: %v", j.ID, err)
			}
		}
		c.apps[a].fill(s.rApp, t)
		t.Tasks, t.Deps = nil, nil
	}
	j.Deps = j.Deps[:0]
	for _, e := range dag.Edges {
		j.Deps = append(j.Deps, workload.Dependency{From: j.Tasks[e[0]].ID, To: j.Tasks[e[1]].ID})
	}
	return nil
}

// streamHeap orders unit streams by their pending job's submit time.
type streamHeap []*unitStream

func (h streamHeap) Len() int { return len(h) }
func (h streamHeap) Less(a, b int) bool {
	x, y := &h[a].job, &h[b].job
	if x.Submit != y.Submit {
		return x.Submit < y.Submit
	}
	if h[a].plan.order != h[b].plan.order {
		return h[a].plan.order < h[b].plan.order
	}
	return x.Index < y.Index
}
func (h streamHeap) Swap(a, b int) { h[a], h[b] = h[b], h[a] }
func (h *streamHeap) Push(x any)   { *h = append(*h, x.(*unitStream)) }
func (h *streamHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}
