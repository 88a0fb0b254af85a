package generator

import (
	"fmt"
	"math"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/gmark/gmark/stats"
	"github.com/gmark/gmark/wdl"
	"github.com/gmark/gmark/workload"
)

// wl:bot is the thesis's bag-of-tasks model (§4.4.2, Table 4.9), with the
// "Avg" row as defaults, every part replaceable:
//
//	users             Zipf(1.31, 368), drawn per arrival
//	inter-arrival     2^W(4.25, 7.86) s, the peak-hour (8AM–5PM) time between bags
//	daily cycle       W(1.79, 24.16) over the half-hour slot of the day,
//	                  normalised to weight 1 on average over the peak hours
//	bag size          round(2^W(1.76, 2.11)) tasks
//	task run times    per bag, ART ~ 2^N(μ = 6.1, σ = 2.73) s (the table prints
//	                  N(2.73, 6.1): (σ, μ), see the reference's P1), the bag's
//	                  mean run time, and RTV ~ 2^W(2.05, 12.25) s², the
//	                  variance of the bag's run times; the tasks are a normal
//	                  sample conditioned on having exactly that mean and
//	                  variance (see bagRunTimes)
//	size 1            a single job of the grid Lublin–Feitelson model
//
// NTimes is the number of arrivals: bags, and single jobs when the size is
// 1. A bag is one composite job of shape "bot" whose tasks are unitary swf
// jobs of one processor, with the bag's submit time and user. Every choice
// the thesis leaves open is listed with its reason in docs/models.md.
func init() {
	RegisterWorkloadGenerator(&WorkloadGenerator{
		Name:    "bot",
		Doc:     "the thesis's bags-of-tasks model (Table 4.9, Avg row); NTimes arrivals: bags, or single jobs when the size is 1",
		Prepare: prepareBoT,
	})
}

// The Avg row of Table 4.9, on the data's own scale.
var (
	botUsers        = 368
	botUserExponent = 1.31
	botDefaultIAT   = stats.Pow2{Of: stats.Weibull{Shape: 4.25, Scale: 7.86}}
	botDefaultCycle = stats.Weibull{Shape: 1.79, Scale: 24.16}
	botDefaultSize  = stats.Pow2{Of: stats.Weibull{Shape: 1.76, Scale: 2.11}}
	botDefaultART   = stats.Pow2{Of: stats.Normal{Mu: 6.1, Sigma: 2.73}}
	botDefaultRTV   = stats.Pow2{Of: stats.Weibull{Shape: 2.05, Scale: 12.25}}
)

const (
	botDefaultGap     = 120 * time.Second // the thesis's Δ
	botDefaultMaxSize = 100000
	botMaxRunTime     = 30 * 86400.0
)

// cycleKey reads DailyCycle: a boolean, or the distribution of the slot
// index of arrivals (for the bag-of-tasks cycle).
func cycleKey(k *modelKeys) (on bool, d stats.Distribution, given bool) {
	opt, ok := k.o.Get("DailyCycle")
	if !ok {
		return true, nil, false
	}
	if v, err := wdl.ParseBool(opt.Value); err == nil {
		return v, nil, true
	}
	switch strings.ToLower(opt.Value) {
	case "none":
		return false, nil, true
	}
	d, err := wdl.ParseDistributionIn(opt.Value, wdl.DistContext{Dir: filepath.Dir(opt.Pos.File)})
	if err != nil {
		k.add(wdl.Errorf(opt.Pos, "DailyCycle: %v (a boolean, or the distribution of the half-hour slot of arrivals, e.g. W(1.79,24.16))", err))
		return true, nil, true
	}
	return true, d, true
}

// botCycle is the bag-of-tasks daily cycle: the slot-index distribution of
// DailyCycle (default W(1.79, 24.16)), its mass per slot, normalised to a
// mean of 1 over PeakHours (default 8-17), the hours on which the
// inter-arrival time was fitted.
func botCycle(k *modelKeys, start float64) (*dailyCycle, error) {
	_, d, _ := cycleKey(k)
	if d == nil {
		d = botDefaultCycle
	}
	from, to := 8, 17
	if r, ok, err := k.o.Range("PeakHours"); err != nil {
		k.add(err)
	} else if ok {
		if r.Max > 24 || r.Max <= r.Min {
			opt, _ := k.o.Get("PeakHours")
			k.add(wdl.Errorf(opt.Pos, "PeakHours must be FROM-TO whole hours with FROM < TO ≤ 24, got %v", r))
		} else {
			from, to = r.Min, r.Max
		}
	}
	return newCycle(slotWeights(d, 0), 2*from, 2*to, start)
}

// botPlan is a prepared wl:bot unit.
type botPlan struct {
	unit          *wdl.Unit
	seed          uint64
	users         int
	userExp       float64
	userGap       time.Duration
	iat           stats.Distribution
	cycle         *dailyCycle
	size          stats.Distribution
	rounding      string
	maxSize       int
	art, rtv      stats.Distribution
	option        string
	maxRunTime    float64
	single        lfParams
	singleRunTime stats.Distribution
	procs         int
	app           *appMaker
	scale         float64
}

func prepareBoT(u *wdl.Unit, seed uint64) (func() (WorkloadSource, error), wdl.ErrorList) {
	var errs wdl.ErrorList
	k := newModelKeys(u.Options, &errs)
	p := &botPlan{unit: u, seed: seed, scale: 1}
	p.users = k.int("Users", botUsers, 1, maxUsers)
	p.userExp = k.float("UserExponent", botUserExponent, 1e-9, 100)
	p.userGap = botDefaultGap
	if d, ok, err := u.Options.Duration("UserGap"); err != nil {
		k.add(err)
	} else if ok {
		p.userGap = d
	}
	if iat, ok := unitArrival(u, k, "bot-interarrival"); ok {
		p.iat = iat
	} else {
		p.iat, _ = k.dist("BoTIAT", "", botDefaultIAT, &wdl.InterArrivals)
	}
	if on, _, _ := cycleKey(k); on {
		c, err := botCycle(k, timeOfDay(k))
		if err != nil {
			opt, _ := u.Options.Get("DailyCycle")
			errs = append(errs, wdl.Errorf(opt.Pos, "DailyCycle: %v", err))
		}
		p.cycle = c
	}
	p.size, _ = k.dist("BoTSize", "bot-size", botDefaultSize, nil)
	p.rounding = k.word("SizeRounding", "round", "round", "floor", "ceil")
	p.maxSize = k.int("MaxBoTSize", botDefaultMaxSize, 1, wdl.MaxTasks)
	p.art, _ = k.dist("ART", "bot-art", botDefaultART, &wdl.RunTimes)
	p.rtv, _ = k.dist("RTV", "bot-rtv", botDefaultRTV, nil)
	p.option = k.word("RunTimeOption", "C", "A", "B", "C")
	p.maxRunTime = k.seconds("MaxRunTime", botMaxRunTime)
	procs, procsGiven := modelProcs(k, u)
	p.procs = procs
	p.single = gridParams(p.procs)
	overrideLF(k, &p.single, "")
	p.singleRunTime, _ = k.dist("RunTime", "runtime", nil, &wdl.RunTimes)
	if ferrs := finishModel(k, u, p.procs, procsGiven, &errs, &p.app, &p.scale, p.atScale); ferrs != nil {
		return nil, ferrs
	}
	return p.newSource, nil
}

// atScale is the plan's source with its inter-arrival times multiplied by
// scale (TargetLoad), the plan itself unchanged.
func (p *botPlan) atScale(scale float64) (WorkloadSource, error) {
	q := *p
	q.scale = scale
	return q.newSource()
}

// botSource emits a wl:bot unit's arrivals.
type botSource struct {
	p                                 *botPlan
	rArr, rUser, rSize, rRun, rSingle *rand.Rand
	rApp                              *rand.Rand
	users                             *userPicker
	t                                 float64
	idx                               int
	buf                               []byte
	z, rt                             []float64 // a bag's normal draws and run times
}

func (p *botPlan) newSource() (WorkloadSource, error) {
	id := p.unit.ID
	up, err := newUserPicker(p.users, p.userExp, p.userGap)
	if err != nil {
		return nil, err
	}
	return &botSource{p: p, users: up,
		rArr:    stats.NewStream(p.seed, id, purposeArrival),
		rUser:   stats.NewStream(p.seed, id, purposeUser),
		rSize:   stats.NewStream(p.seed, id, purposeSize),
		rRun:    stats.NewStream(p.seed, id, purposeRunTime),
		rSingle: stats.NewStream(p.seed, id, purposeSingle),
		rApp:    stats.NewStream(p.seed, id, purposeApp)}, nil
}

// bagSize draws a bag size: the size distribution rounded by the unit's
// rule, at least 1; sizes above MaxBoTSize are redrawn. A draw that is not
// a number is an error.
func (p *botPlan) bagSize(r *rand.Rand) (int, error) {
	for i := 0; ; i++ {
		v := p.size.Rand(r)
		if math.IsNaN(v) {
			return 0, fmt.Errorf("BoTSize %s drew NaN, not a number of tasks", p.size)
		}
		switch p.rounding {
		case "floor":
			v = math.Floor(v)
		case "ceil":
			v = math.Ceil(v)
		default:
			v = math.Round(v)
		}
		if v <= float64(p.maxSize) || i >= 100 {
			return jobSize.Int(math.Max(1, math.Min(v, float64(p.maxSize))))
		}
	}
}

// taskRunTime draws one task's run time (seconds) in a bag of average run
// time art and run-time variance rtv, by RunTimeOption A or B (C is
// bagRunTimes): both read ART and RTV on log2 scales, each task on its own:
//
//	A  2^N(log2 art, √(log2 rtv)): RTV read as the variance of log2 run times
//	B  2^N(log2 art, log2 rtv): the thesis's text taken literally
//
// Values above MaxRunTime are redrawn.
func (p *botPlan) taskRunTime(r *rand.Rand, art, rtv float64) float64 {
	sd := math.Max(0, math.Log2(rtv))
	if p.option == "A" {
		sd = math.Sqrt(sd)
	}
	for i := 0; i < 100; i++ {
		v := math.Exp2(math.Log2(art) + sd*r.NormFloat64())
		if v > 0 && v <= p.maxRunTime {
			return v
		}
	}
	return math.Min(art, p.maxRunTime)
}

// bagRunTimes sets rt (one run time per task, seconds) for a bag whose
// mean run time is art and whose run-time variance (over the bag, divided
// by n, as gwa measures it) is rtv, by RunTimeOption C: the bag's measured
// ART and RTV are then exactly the drawn ones, so `gmark fit --field
// bot-art,bot-rtv` on a generated trace gives the model back. z holds n
// standard normal draws, standardised here to mean 0 and variance 1:
//
//   - art·(1 + c·z), c = √rtv/art, when every task is then positive: the
//     thesis's "normal space with average ART and standard deviation RTV",
//     conditioned on the bag's own mean and variance;
//   - otherwise (c too large for a positive normal sample) art·e^(s·z)/mean,
//     s chosen so the coefficient of variation is c: the same mean and
//     variance on a log-normal shape;
//   - n positive run times of mean art cannot reach a variance of
//     (n−1)·art²: c is capped just below √(n−1), so such bags keep their
//     ART and get a smaller variance than drawn.
//
// Run times above MaxRunTime are cut to it.
func (p *botPlan) bagRunTimes(rt, z []float64, art, rtv float64) {
	n := float64(len(z))
	mean, ss := 0.0, 0.0
	for _, v := range z {
		mean += v
	}
	mean /= n
	for _, v := range z {
		ss += (v - mean) * (v - mean)
	}
	sd := math.Sqrt(ss / n)
	lo := math.Inf(1)
	for k, v := range z {
		z[k] = 0
		if sd > 0 {
			z[k] = (v - mean) / sd
		}
		lo = math.Min(lo, z[k])
	}
	c := math.Min(math.Sqrt(rtv)/art, botMaxCoV*math.Sqrt(n-1))
	if !(c > 0) {
		c = 0 // no variance (or none that is a number): every task runs art
	}
	if 1+c*lo > 0 {
		for k, v := range z {
			rt[k] = art * (1 + c*v)
		}
	} else {
		s := logShape(z, c)
		hi := slices.Max(z)
		m := 0.0
		for k, v := range z {
			rt[k] = math.Exp(s * (v - hi)) // ≤ 1: no overflow
			m += rt[k]
		}
		m /= n
		for k := range rt {
			rt[k] *= art / m
		}
	}
	for k := range rt {
		rt[k] = math.Min(rt[k], p.maxRunTime)
	}
}

// botMaxCoV caps a bag's coefficient of variation at this share of its
// supremum √(n−1) (one task taking all the work, the others none).
const botMaxCoV = 0.999

// logShape returns s ≥ 0 such that e^(s·z) has coefficient of variation c
// (population), for z of mean 0 and variance 1 and c < √(n−1): the
// coefficient grows with s from 0 towards √(n−1), so a bisection finds it.
func logShape(z []float64, c float64) float64 {
	hi := slices.Max(z)
	cov := func(s float64) float64 {
		m, m2 := 0.0, 0.0
		for _, v := range z {
			e := math.Exp(s * (v - hi))
			m += e
			m2 += e * e
		}
		n := float64(len(z))
		m, m2 = m/n, m2/n
		return math.Sqrt(math.Max(0, m2-m*m)) / m
	}
	a, b := 0.0, 1.0
	for i := 0; i < 60 && cov(b) < c; i++ {
		a, b = b, 2*b
	}
	for i := 0; i < 60; i++ {
		mid := (a + b) / 2
		if cov(mid) < c {
			a = mid
		} else {
			b = mid
		}
	}
	return (a + b) / 2
}

func (s *botSource) Next(j *workload.Job) (bool, error) {
	p := s.p
	if s.idx >= p.unit.NTimes {
		return false, nil
	}
	if s.idx > 0 {
		tau, err := drawInterArrival(p.iat, s.rArr)
		if err != nil {
			return false, err
		}
		tau *= p.scale
		if p.cycle != nil {
			s.t = p.cycle.warp(s.t, tau)
		} else {
			s.t += tau
		}
	}
	submit, err := submitOffset(s.t)
	if err != nil {
		return false, err
	}
	user := s.users.pick(s.rUser, submit)
	n, err := p.bagSize(s.rSize)
	if err != nil {
		return false, err
	}
	var id string
	s.buf, id = unitID(s.buf, p.unit.ID, s.idx)
	if n == 1 {
		procs := p.single.size(s.rSingle)
		var rt float64
		if p.singleRunTime != nil {
			if rt, err = wdl.RunTimes.Draw(p.singleRunTime, s.rSingle); err != nil {
				return false, fmt.Errorf("job %s: RunTime: %v", id, err)
			}
		} else {
			rt = math.Exp(p.single.logRunTime(s.rSingle, procs))
		}
		if err := fillModelJob(j, id, p.unit.ID, s.idx, submit, procs, rt, user, p.app, s.rApp); err != nil {
			return false, err
		}
		s.idx++
		return true, nil
	}
	art := p.art.Rand(s.rRun)
	rtv := math.Max(0, p.rtv.Rand(s.rRun))
	if !(art > 0) {
		art = minRunTime
	}
	j.ID, j.Unit, j.Index = id, p.unit.ID, s.idx
	j.Kind, j.Type, j.SiteType = workload.Composite, "bot", ""
	j.Submit, j.WallTime, j.RunTime = submit, 0, 0
	j.User, j.Group = user, ""
	j.Components = j.Components[:0]
	j.App = workload.App{Params: j.App.Params[:0]}
	j.Files = j.Files[:0]
	if cap(j.Tasks) < n {
		j.Tasks = make([]workload.Job, n)
	}
	j.Tasks = j.Tasks[:n]
	if cap(s.rt) < n {
		s.rt = make([]float64, n)
	}
	s.rt = s.rt[:n]
	if p.option == "C" {
		s.z = s.z[:0]
		for range n {
			s.z = append(s.z, s.rRun.NormFloat64())
		}
		p.bagRunTimes(s.rt, s.z, art, rtv)
	} else {
		for k := range s.rt {
			s.rt[k] = p.taskRunTime(s.rRun, art, rtv)
		}
	}
	for k := range j.Tasks {
		if err := fillModelJob(&j.Tasks[k], id+"."+strconv.Itoa(k), p.unit.ID, k, submit, 1, s.rt[k], user, p.app, s.rApp); err != nil {
			return false, err
		}
	}
	j.Deps = j.Deps[:0]
	s.idx++
	return true, nil
}
