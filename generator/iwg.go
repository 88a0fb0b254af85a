package generator

import (
	"fmt"
	"math"

	"github.com/BurntSushi/toml"
	"github.com/gmark/gmark/wdl"
	"github.com/gmark/gmark/workload"
)

// Iterative workload generation (IWG): a model unit given a grid (its total
// processors), a target load and a tolerance scales its inter-arrival times
// until the offered load of what it generates,
//
//	load = Σ_jobs processors × run time / (grid processors × span),
//
// span being the time from the first to the last submission, is within the
// tolerance of the target. Sizes, run times and users come from their own
// random streams, so the scale changes only the submit times: the work is the
// same at every step and the search is over one number, s (every model
// inter-arrival time is multiplied by s before the daily cycle applies).
// Without a daily cycle the load is exactly proportional to 1/s and one step
// lands on the target; with one it is close to that, and the search keeps a
// bracket [s_lo, s_hi] and falls back to its geometric middle when the
// proportional step leaves it. Deterministic: each step regenerates the unit
// from the same seed. Keys (docs/models.md):
//
//	TargetLoad=0.7       the offered load to reach (> 0)
//	Processors=384       the grid's processors, or Grid=grid.toml (their sum)
//	Tolerance=0.02       |load − target| allowed (absolute; default 0.01)
//	MaxIterations=30     steps before giving up (default 30)

// maxIterations bounds MaxIterations: each step generates the whole unit.
const maxIterations = 100

type iwgSpec struct {
	on        bool
	target    float64
	tol       float64
	maxIter   int
	procs     int
	targetPos wdl.Pos
}

// gridProcessors reads Processors=N, or Grid=FILE (a grid.toml: the sum of
// its clusters' processors).
func gridProcessors(k *modelKeys) (int, bool) {
	if n, ok, err := k.o.Int("Processors", 1, wdl.MaxProcessors); err != nil {
		k.add(err)
	} else if ok {
		return n, true
	}
	opt, ok := k.o.Get("Grid")
	if !ok {
		return 0, false
	}
	path := specRelative(opt.Value, opt.Pos.File)
	n, err := gridFileProcessors(path)
	if err != nil {
		k.add(wdl.Errorf(opt.Pos, "Grid: %v", err))
		return 0, false
	}
	return n, true
}

// gridFileProcessors sums the processors of the [[cluster]] tables of a
// grid description (the format of docs/koala.md).
func gridFileProcessors(path string) (int, error) {
	src, err := wdl.ReadFile(path)
	if err != nil {
		return 0, err
	}
	var g struct {
		Cluster []struct {
			Processors int `toml:"processors"`
		} `toml:"cluster"`
	}
	if _, err := toml.Decode(string(src), &g); err != nil {
		return 0, fmt.Errorf("%s: %v", path, err)
	}
	n := 0
	for i, c := range g.Cluster {
		if c.Processors < 0 || c.Processors > wdl.MaxProcessors {
			return 0, fmt.Errorf("%s: cluster %d has %d processors; a cluster has 0 to %d", path, i+1, c.Processors, wdl.MaxProcessors)
		}
		n += c.Processors
	}
	if n < 1 {
		return 0, fmt.Errorf("%s: no [[cluster]] with processors", path)
	}
	if n > wdl.MaxProcessors {
		return 0, fmt.Errorf("%s: the clusters have %d processors in all; a grid has at most %d", path, n, wdl.MaxProcessors)
	}
	return n, nil
}

// modelProcs is the grid size an arrival model is written for: Processors=
// or Grid=, else the Lublin–Feitelson default; given says whether the unit
// named one (TargetLoad needs it).
func modelProcs(k *modelKeys, u *wdl.Unit) (procs int, given bool) {
	given = u.Options.Has("Processors") || u.Options.Has("Grid")
	procs = lfDefaultProcs
	if n, ok := gridProcessors(k); ok {
		procs = n
	}
	return procs, given
}

// finishModel reads the keys every arrival model ends with (the
// application, the IWG load target) into *app and, when the unit sets
// TargetLoad, sets *scale to the inter-arrival scale that meets it.
// atScale makes the model's source at a scale; it is called only once the
// unit's keys read without error (*errs, which k also appends to).
func finishModel(k *modelKeys, u *wdl.Unit, procs int, procsGiven bool, errs *wdl.ErrorList, app **appMaker,
	scale *float64, atScale func(scale float64) (WorkloadSource, error)) wdl.ErrorList {
	a, aerrs := swfApp(u.Options)
	*errs = append(*errs, aerrs...)
	*app = a
	iwg := prepareIWG(k, u, procs, procsGiven)
	if len(*errs) > 0 {
		return *errs
	}
	if !iwg.on {
		return nil
	}
	s, err := tuneLoad(iwg, atScale)
	if err != nil {
		return wdl.ErrorList{err}
	}
	*scale = s
	return nil
}

// prepareIWG reads the IWG keys of a model unit.
func prepareIWG(k *modelKeys, u *wdl.Unit, procs int, procsGiven bool) iwgSpec {
	s := iwgSpec{tol: 0.01, maxIter: 30, procs: procs}
	opt, ok := u.Options.Get("TargetLoad")
	if !ok {
		for _, key := range []string{"Tolerance", "MaxIterations"} {
			if o, ok := u.Options.Get(key); ok {
				k.add(wdl.Errorf(o.KeyPos, "%s needs TargetLoad, the offered load to reach", key))
			}
		}
		return s
	}
	s.on, s.targetPos = true, opt.Pos
	s.target = k.float("TargetLoad", 0, 1e-9, 1e6)
	if !(s.target > 0) {
		k.add(wdl.Errorf(opt.Pos, "TargetLoad must be > 0, got %q", wdl.Excerpt(opt.Value)))
	}
	s.tol = k.float("Tolerance", s.tol, 1e-9, 1e6)
	s.maxIter = k.int("MaxIterations", s.maxIter, 1, maxIterations)
	if !procsGiven {
		k.add(wdl.Errorf(opt.KeyPos, "TargetLoad needs the grid's size: Processors=N or Grid=grid.toml"))
	}
	return s
}

// offeredLoad generates a source to the end and returns its offered load
// on procs processors.
func offeredLoad(src WorkloadSource, procs int) (float64, int, error) {
	var j workload.Job
	work := 0.0
	n := 0
	var first, last float64
	for {
		ok, err := src.Next(&j)
		if err != nil {
			return 0, n, err
		}
		if !ok {
			break
		}
		t := j.Submit.Seconds()
		if n == 0 {
			first = t
		}
		last = math.Max(last, t)
		n++
		if j.Kind == workload.Composite {
			for i := range j.Tasks {
				work += float64(j.Tasks[i].Processors()) * j.Tasks[i].RunTime.Seconds()
			}
		} else {
			work += float64(j.Processors()) * j.RunTime.Seconds()
		}
	}
	span := last - first
	if n < 2 || !(span > 0) {
		return 0, n, fmt.Errorf("TargetLoad needs at least two submissions at different times (the unit made %d)", n)
	}
	return work / (float64(procs) * span), n, nil
}

// tuneLoad finds the inter-arrival scale that brings the offered load of
// mk(scale) within the tolerance of the target.
func tuneLoad(s iwgSpec, mk func(scale float64) (WorkloadSource, error)) (float64, *wdl.Error) {
	load := func(scale float64) (float64, error) {
		src, err := mk(scale)
		if err != nil {
			return 0, err
		}
		l, _, err := offeredLoad(src, s.procs)
		return l, err
	}
	scale := 1.0
	lo, hi := 0.0, math.Inf(1) // load(lo) > target > load(hi)
	var l float64
	for it := 1; it <= s.maxIter; it++ {
		var err error
		l, err = load(scale)
		if err != nil {
			return 0, wdl.Errorf(s.targetPos, "TargetLoad: %v", err)
		}
		if math.Abs(l-s.target) <= s.tol {
			return scale, nil
		}
		if l > s.target {
			lo = scale
		} else {
			hi = scale
		}
		next := scale * l / s.target
		if !(next > lo && next < hi) {
			switch {
			case math.IsInf(hi, 1):
				next = 2 * scale
			case lo == 0:
				next = scale / 2
			default:
				next = math.Sqrt(lo * hi)
			}
		}
		scale = next
	}
	return 0, wdl.Errorf(s.targetPos, "TargetLoad %g not reached within %g after %d iterations (last load %.4f); raise MaxIterations or Tolerance", s.target, s.tol, s.maxIter, l)
}
