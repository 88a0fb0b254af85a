package generator

import (
	"container/heap"
	"fmt"
	"math"
	"math/rand/v2"
	"time"

	"github.com/gmark/gmark/stats"
	"github.com/gmark/gmark/wdl"
	"github.com/gmark/gmark/workload"
)

// wl:lublin is the Lublin–Feitelson model of rigid parallel jobs (Lublin and
// Feitelson, JPDC 2003, as in the published generator m_lublin99.c), with
// its published parameters for batch, interactive and typeless jobs, and the
// grid adaptation of the thesis (§4.4.1): 95% single-processor jobs, no
// correlation between size and run time, and the bags-of-tasks arrival
// process (Weibull inter-arrival times on log2 seconds with the Weibull
// daily cycle). docs/models.md has the model, the keys and the decisions.
func init() {
	RegisterWorkloadGenerator(&WorkloadGenerator{
		Name:    "lublin",
		Doc:     "the Lublin–Feitelson model (batch, interactive, combined, typeless) and its grid adaptation; NTimes jobs",
		Prepare: prepareLublin,
	})
}

// lfParams are one job class of the model. Sizes: serial with probability
// Serial; otherwise log2(size) is two-stage uniform (on [ULow, UMed] with
// probability UProb, else on [UMed, UHi]) and rounded to a whole power of
// two when the same uniform draw u falls below Serial + Pow2 (the published
// code's rule: Pow2 is an unconditional probability). Run times: ln(run
// time) is hyper-gamma, gamma(A1, B1) with probability p = PA·size + PB
// (clipped to [0, 1]), else gamma(A2, B2); draws above 12 (e^12 s ≈ 45 h)
// are redrawn. Arrivals: ln(inter-arrival time) is gamma(AArr·ARAR, BArr),
// redrawn above 13, on the model clock of the daily cycle, whose weights are
// the mass of gamma(ANum, BNum) over the half-hour buckets of the day
// numbered from 1 (00:00–00:30), the gamma's variable running over buckets
// 11 (05:00–05:30) to 58 (the next day's bucket 10).
type lfParams struct {
	Serial, Pow2, ULow, UMed, UHi, UProb float64
	A1, B1, A2, B2, PA, PB               float64
	AArr, BArr, ANum, BNum, ARAR         float64
}

// The published parameters (reference 003b §4.3, from m_lublin99.c), for a
// machine of 128 processors (UHi = 7).
var (
	lfBatch = lfParams{Serial: 0.2927, Pow2: 0.6686, ULow: 1.2, UMed: 5, UHi: 7, UProb: 0.875,
		A1: 6.57, B1: 0.823, A2: 639.1, B2: 0.0156, PA: -0.003, PB: 0.6986,
		AArr: 6.0415, BArr: 0.8531, ANum: 6.1271, BNum: 5.2740, ARAR: 1.0519}
	lfInteractive = lfParams{Serial: 0.1541, Pow2: 0.625, ULow: 1, UMed: 3, UHi: 5.5, UProb: 0.705,
		A1: 3.8351, B1: 0.6605, A2: 7.073, B2: 0.6856, PA: -0.0118, PB: 0.9156,
		AArr: 6.5510, BArr: 0.6621, ANum: 8.9186, BNum: 3.6680, ARAR: 0.9797}
	lfTypeless = lfParams{Serial: 0.244, Pow2: 0.576, ULow: 0.8, UMed: 4.5, UHi: 7, UProb: 0.86,
		A1: 4.2, B1: 0.94, A2: 312, B2: 0.03, PA: -0.0054, PB: 0.78,
		AArr: 10.2303, BArr: 0.4871, ANum: 8.1737, BNum: 3.9631, ARAR: 1.0225}
)

// lfDefaultProcs is the machine size of the published parameters.
const (
	lfDefaultProcs   = 128
	lfCycleStart     = 11 // CYCLIC_DAY_START: the first bucket the gamma covers
	lfMaxLogRunTime  = 12.0
	lfMaxLogInterArr = 13.0
	gridSerial       = 0.95
)

// gridParams is the thesis's grid adaptation of the typeless class for a
// machine of procs processors: 95% serial jobs; among parallel jobs the
// typeless share of powers of two (0.576 / (1 − 0.244)); UHi = log2(procs);
// and a constant p, the typeless p of a serial job (PB + PA), since the
// size–run-time correlation is dropped.
func gridParams(procs int) lfParams {
	g := lfTypeless
	g.Pow2 = (1 - gridSerial) * lfTypeless.Pow2 / (1 - lfTypeless.Serial)
	g.Serial = gridSerial
	g.PB = lfTypeless.PB + lfTypeless.PA
	g.PA = 0
	g.UHi = math.Log2(float64(procs))
	g.UMed = math.Min(g.UMed, g.UHi)
	g.ULow = math.Min(g.ULow, g.UMed)
	return g
}

// forProcs moves the size range to a machine of procs processors: UHi =
// log2(procs) minus the class's published offset from log2(128) (the
// interactive class tops at 2^5.5 of 128), UMed by the same amount, both
// clamped to at least ULow.
func (p lfParams) forProcs(procs int) lfParams {
	shift := math.Log2(float64(procs)) - math.Log2(lfDefaultProcs)
	p.UHi = math.Max(p.ULow, p.UHi+shift)
	p.UMed = math.Min(math.Max(p.ULow, p.UMed+shift), p.UHi)
	return p
}

// size draws a job size.
func (p *lfParams) size(r *rand.Rand) int {
	u := r.Float64()
	if u <= p.Serial {
		return 1
	}
	var par float64
	if r.Float64() <= p.UProb {
		par = p.ULow + (p.UMed-p.ULow)*r.Float64()
	} else {
		par = p.UMed + (p.UHi-p.UMed)*r.Float64()
	}
	if u <= p.Serial+p.Pow2 {
		par = math.Round(par)
	}
	return max(1, int(math.Round(math.Exp2(par))))
}

// logRunTime draws ln(run time) for a job of n processors.
func (p *lfParams) logRunTime(r *rand.Rand, n int) float64 {
	pr := math.Min(1, math.Max(0, p.PA*float64(n)+p.PB))
	for i := 0; ; i++ {
		var v float64
		if r.Float64() < pr {
			v = stats.Gamma{Shape: p.A1, Scale: p.B1}.Rand(r)
		} else {
			v = stats.Gamma{Shape: p.A2, Scale: p.B2}.Rand(r)
		}
		if v <= lfMaxLogRunTime || i >= 1000 {
			return math.Min(v, lfMaxLogRunTime)
		}
	}
}

// interArrival draws a model inter-arrival time (seconds).
func (p *lfParams) interArrival(r *rand.Rand) float64 {
	g := stats.Gamma{Shape: p.AArr * p.ARAR, Scale: p.BArr}
	for i := 0; ; i++ {
		if v := g.Rand(r); v <= lfMaxLogInterArr || i >= 1000 {
			return math.Exp(math.Min(v, lfMaxLogInterArr))
		}
	}
}

// cycle is the class's daily cycle: bucket i (i = 11…58) gets the mass of
// gamma(ANum, BNum) on [i−0.5, i+0.5], normalised to a mean weight of 1 over
// the day. The published generator numbers the buckets from 1, so bucket i
// is slot (i−1) mod 48 of the day (slot 0 = 00:00–00:30): m_lublin99.c
// stores it at index (i-1)%BUCKETS, "since array indices are 0..47 and not
// 1..48". Slot i mod 48 would run the whole cycle 30 minutes late.
func (p *lfParams) cycle(start float64) (*dailyCycle, error) {
	g := stats.Gamma{Shape: p.ANum, Scale: p.BNum}
	var raw [daySlots]float64
	for i := lfCycleStart; i < lfCycleStart+daySlots; i++ {
		raw[(i-1)%daySlots] = g.CDF(float64(i)+0.5) - g.CDF(float64(i)-0.5)
	}
	return newCycle(raw, 0, daySlots, start)
}

// lfKeys are the keys that override a class's parameters.
var lfKeys = []struct {
	key    string
	lo, hi float64
	field  func(*lfParams) *float64
}{
	{"SerialProb", 0, 1, func(p *lfParams) *float64 { return &p.Serial }},
	{"Pow2Prob", 0, 1, func(p *lfParams) *float64 { return &p.Pow2 }},
	// log2 of sizes: at most log2 of wdl.MaxProcessors.
	{"ULow", 0, 24, func(p *lfParams) *float64 { return &p.ULow }},
	{"UMed", 0, 24, func(p *lfParams) *float64 { return &p.UMed }},
	{"UHi", 0, 24, func(p *lfParams) *float64 { return &p.UHi }},
	{"UProb", 0, 1, func(p *lfParams) *float64 { return &p.UProb }},
	{"A1", 1e-9, 1e6, func(p *lfParams) *float64 { return &p.A1 }},
	{"B1", 1e-9, 1e6, func(p *lfParams) *float64 { return &p.B1 }},
	{"A2", 1e-9, 1e6, func(p *lfParams) *float64 { return &p.A2 }},
	{"B2", 1e-9, 1e6, func(p *lfParams) *float64 { return &p.B2 }},
	{"PA", -1, 1, func(p *lfParams) *float64 { return &p.PA }},
	{"PB", -10, 10, func(p *lfParams) *float64 { return &p.PB }},
	{"AArr", 1e-9, 1e6, func(p *lfParams) *float64 { return &p.AArr }},
	{"BArr", 1e-9, 1e6, func(p *lfParams) *float64 { return &p.BArr }},
	{"ANum", 1e-9, 1e6, func(p *lfParams) *float64 { return &p.ANum }},
	{"BNum", 1e-9, 1e6, func(p *lfParams) *float64 { return &p.BNum }},
	{"ARAR", 1e-9, 1e3, func(p *lfParams) *float64 { return &p.ARAR }},
}

// overrideLF applies the unit's parameter keys to p: "Key" for every class,
// and prefix+"Key" (e.g. "Batch.SerialProb") for one class.
func overrideLF(k *modelKeys, p *lfParams, prefix string) {
	for _, lk := range lfKeys {
		for _, key := range []string{lk.key, prefix + lk.key} {
			if key == lk.key && prefix != "" && k.o.Has(prefix+lk.key) {
				continue // the class's own key wins
			}
			if k.o.Has(key) {
				f := lk.field(p)
				*f = k.float(key, *f, lk.lo, lk.hi)
			}
		}
	}
	if p.Serial+p.Pow2 > 1 {
		p.Pow2 = 1 - p.Serial
	}
	if !(p.ULow <= p.UMed && p.UMed <= p.UHi) {
		opt, _ := k.o.Get("UMed")
		if opt.Key == "" {
			opt, _ = k.o.Get("UHi")
		}
		*k.errs = append(*k.errs, wdl.Errorf(opt.Pos, "the size range needs ULow ≤ UMed ≤ UHi, got %g, %g, %g", p.ULow, p.UMed, p.UHi))
	}
}

// lfStreamPlan is one arrival stream of a wl:lublin unit.
type lfStreamPlan struct {
	name    string // purpose prefix: "batch", "interactive", …
	params  lfParams
	cycle   *dailyCycle
	arrival stats.Distribution // replaces the model's arrivals (model seconds)
	runtime stats.Distribution // replaces the hyper-gamma (seconds)
	size    stats.Distribution // replaces the size model
}

// lublinPlan is a prepared wl:lublin unit.
type lublinPlan struct {
	unit    *wdl.Unit
	seed    uint64
	streams []lfStreamPlan
	procs   int
	users   int
	userExp float64
	app     *appMaker
	scale   float64 // multiplies every inter-arrival time (IWG)
}

func prepareLublin(u *wdl.Unit, seed uint64) (func() (WorkloadSource, error), wdl.ErrorList) {
	var errs wdl.ErrorList
	k := newModelKeys(u.Options, &errs)
	p := &lublinPlan{unit: u, seed: seed, scale: 1}
	variant := k.word("Variant", "combined", "batch", "interactive", "combined", "typeless", "grid")
	procs, procsGiven := modelProcs(k, u)
	p.procs = procs
	start := timeOfDay(k)

	// Replacements shared by the streams: the ArrivalTimeDistr column or
	// Model's interarrival; RunTime; Size.
	arrival, arrGiven := unitArrival(u, k, "interarrival")
	runtime, _ := k.dist("RunTime", "runtime", nil, &wdl.RunTimes)
	size, _ := k.dist("Size", "size", nil, nil)
	cycleOn := !arrGiven
	if on, d, given := cycleKey(k); given {
		cycleOn = on
		if d != nil && variant != "grid" {
			opt, _ := u.Options.Get("DailyCycle")
			errs = append(errs, wdl.Errorf(opt.Pos, "DailyCycle: the %s class takes true or false (its cycle is set by ANum and BNum); a slot distribution is for Variant=grid", variant))
		}
	}

	addStream := func(name string, base lfParams, prefix string) {
		params := base
		if variant == "grid" {
			params = gridParams(p.procs)
		} else if procsGiven {
			params = base.forProcs(p.procs)
		}
		overrideLF(k, &params, prefix)
		s := lfStreamPlan{name: name, params: params, arrival: arrival, runtime: runtime, size: size}
		if cycleOn {
			var c *dailyCycle
			var err error
			if variant == "grid" {
				c, err = botCycle(k, start)
			} else {
				c, err = params.cycle(start)
			}
			if err != nil {
				opt, _ := u.Options.Get("DailyCycle")
				errs = append(errs, wdl.Errorf(opt.Pos, "DailyCycle: %v", err))
			}
			s.cycle = c
		}
		if variant == "grid" && s.arrival == nil {
			s.arrival = botDefaultIAT
		}
		p.streams = append(p.streams, s)
	}
	switch variant {
	case "batch":
		addStream("batch", lfBatch, "Batch.")
	case "interactive":
		addStream("interactive", lfInteractive, "Interactive.")
	case "combined":
		addStream("batch", lfBatch, "Batch.")
		addStream("interactive", lfInteractive, "Interactive.")
	case "typeless":
		addStream("typeless", lfTypeless, "")
	case "grid":
		addStream("grid", lfTypeless, "")
	}
	p.users = k.int("Users", 0, 1, maxUsers)
	p.userExp = k.float("UserExponent", botUserExponent, 1e-9, 100)
	if ferrs := finishModel(k, u, p.procs, procsGiven, &errs, &p.app, &p.scale, p.atScale); ferrs != nil {
		return nil, ferrs
	}
	return p.newSource, nil
}

// atScale is the plan's source with its inter-arrival times multiplied by
// scale (TargetLoad), the plan itself unchanged.
func (p *lublinPlan) atScale(scale float64) (WorkloadSource, error) {
	q := *p
	q.scale = scale
	return q.newSource()
}

// unitArrival is a model unit's replacement inter-arrival time: its
// ArrivalTimeDistr column when not "-", else Model's fitKey.
func unitArrival(u *wdl.Unit, k *modelKeys, fitKey string) (stats.Distribution, bool) {
	if u.Arrival.Text != "-" && u.Arrival.Dist != nil {
		return u.Arrival.Dist, true
	}
	return k.fromModel(fitKey, &wdl.InterArrivals)
}

// lfStream generates one stream's jobs.
type lfStream struct {
	plan              *lfStreamPlan
	rArr, rSize, rRun *rand.Rand
	t                 float64 // real seconds from the unit's start
	started           bool
	next              lfJob
	order             int
	scale             float64
	procs             int
}

// lfJob is one drawn job.
type lfJob struct {
	submit  time.Duration
	tooLate bool // the submit time passed the limit of submit offsets
	procs   int
	runtime float64
	order   int
}

// draw makes the stream's next job. Its error is a draw that is not a
// number; a submit time past the limit is marked by tooLate, an error only
// when the job is due.
func (s *lfStream) draw() (lfJob, error) {
	pl := s.plan
	if s.started {
		var tau float64
		if pl.arrival != nil {
			var err error
			if tau, err = drawInterArrival(pl.arrival, s.rArr); err != nil {
				return lfJob{}, err
			}
		} else {
			tau = pl.params.interArrival(s.rArr)
		}
		tau *= s.scale
		if pl.cycle != nil {
			s.t = pl.cycle.warp(s.t, tau)
		} else {
			s.t += tau
		}
	}
	s.started = true
	var n int
	if pl.size != nil {
		v := pl.size.Rand(s.rSize)
		var err error
		if n, err = jobSize.Int(math.Min(math.Max(v, 1), float64(s.procs))); err != nil {
			return lfJob{}, fmt.Errorf("Size %s: %v", pl.size, err)
		}
	} else {
		n = pl.params.size(s.rSize)
	}
	var rt float64
	if pl.runtime != nil {
		var err error
		if rt, err = wdl.RunTimes.Draw(pl.runtime, s.rRun); err != nil {
			return lfJob{}, fmt.Errorf("RunTime: %v", err)
		}
	} else {
		rt = math.Exp(pl.params.logRunTime(s.rRun, n))
	}
	submit, err := submitOffset(s.t)
	if err != nil {
		submit = wdl.MaxDuration + 1 // after every job in time, so due last
	}
	return lfJob{submit: submit, tooLate: err != nil, procs: n, runtime: rt, order: s.order}, nil
}

// lfHeap merges the streams by submit time (ties: stream order).
type lfHeap []*lfStream

func (h lfHeap) Len() int { return len(h) }
func (h lfHeap) Less(a, b int) bool {
	x, y := h[a].next, h[b].next
	if x.submit != y.submit {
		return x.submit < y.submit
	}
	return x.order < y.order
}
func (h lfHeap) Swap(a, b int) { h[a], h[b] = h[b], h[a] }
func (h *lfHeap) Push(x any)   { *h = append(*h, x.(*lfStream)) }
func (h *lfHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

// lublinSource emits the unit's NTimes jobs.
type lublinSource struct {
	p     *lublinPlan
	h     lfHeap
	idx   int
	rApp  *rand.Rand
	rUser *rand.Rand
	users *userPicker
	buf   []byte
}

func (p *lublinPlan) newSource() (WorkloadSource, error) {
	id := p.unit.ID
	src := &lublinSource{p: p, rApp: stats.NewStream(p.seed, id, purposeApp)}
	if p.users > 0 {
		up, err := newUserPicker(p.users, p.userExp, 0)
		if err != nil {
			return nil, err
		}
		src.users, src.rUser = up, stats.NewStream(p.seed, id, purposeUser)
	}
	for i := range p.streams {
		sp := &p.streams[i]
		s := &lfStream{plan: sp, order: i, scale: p.scale, procs: p.procs,
			rArr:  stats.NewStream(p.seed, id, sp.name+"."+purposeArrival),
			rSize: stats.NewStream(p.seed, id, sp.name+"."+purposeSize),
			rRun:  stats.NewStream(p.seed, id, sp.name+"."+purposeRunTime)}
		var err error
		if s.next, err = s.draw(); err != nil {
			return nil, err
		}
		src.h = append(src.h, s)
	}
	heap.Init(&src.h)
	return src, nil
}

func (s *lublinSource) Next(j *workload.Job) (bool, error) {
	p := s.p
	if s.idx >= p.unit.NTimes || len(s.h) == 0 {
		return false, nil
	}
	st := s.h[0]
	job := st.next
	if job.tooLate {
		return false, errArrivalsTooLate
	}
	var err error
	if st.next, err = st.draw(); err != nil {
		return false, err
	}
	heap.Fix(&s.h, 0)
	user := ""
	if s.users != nil {
		user = s.users.pick(s.rUser, job.submit)
	}
	var id string
	s.buf, id = unitID(s.buf, p.unit.ID, s.idx)
	if err := fillModelJob(j, id, p.unit.ID, s.idx, job.submit, job.procs, job.runtime, user, p.app, s.rApp); err != nil {
		return false, err
	}
	s.idx++
	return true, nil
}
