package generator

import (
	"fmt"
	"math"
	"math/rand/v2"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/gmark/gmark/internal/decimal"
	"github.com/gmark/gmark/stats"
	"github.com/gmark/gmark/wdl"
	"github.com/gmark/gmark/workload"
)

// What the workload models (wl:lublin, wl:bot) share: distribution-valued
// keys (any WDL distribution, Fit(file,key) included), Model= fit files, the
// daily cycle as a time change, Zipf users, and the jobs they emit. The
// models and every decision they take are documented in docs/models.md.

// Random stream purposes of the models (one stream each, so that changing
// how one aspect is drawn leaves the others as they were).
const (
	purposeUser    = "user"
	purposeSize    = "size"
	purposeRunTime = "runtime"
	purposeSingle  = "single"
)

// modelDist reads key from the Model= fit file named by opt, checked
// against lim; (nil, nil) when the file has no such key.
func modelDist(opt wdl.Option, key string, lim wdl.Limit) (stats.Distribution, error) {
	recs, full, err := wdl.LoadFitFile(opt.Value, wdl.DistContext{Dir: filepath.Dir(opt.Pos.File)})
	if err != nil {
		return nil, wdl.Errorf(opt.Pos, "Model: %v", err)
	}
	rec, ok := recs[key]
	if !ok {
		return nil, nil
	}
	d, err := rec.Distribution()
	if err == nil {
		err = lim.CheckDist(d)
	}
	if err != nil {
		return nil, wdl.Errorf(opt.Pos, "Model: %s [%s]: %v", wdl.ExcerptPath(full), key, err)
	}
	return d, nil
}

// modelKeys reads the distributions of a unit: each key may be given as a
// distribution (RunTime=LogNorm(4,1), Size=Fit(fit.toml,size)), or come from
// the unit's Model= fit file under its fit key, or take its default.
type modelKeys struct {
	o        *wdl.Options
	model    *wdl.Option
	recs     map[string]stats.FitRecord // the Model file, read once
	fullPath string
	errs     *wdl.ErrorList
}

func newModelKeys(o *wdl.Options, errs *wdl.ErrorList) *modelKeys {
	k := &modelKeys{o: o, errs: errs}
	if opt, ok := o.Get("Model"); ok {
		recs, full, err := wdl.LoadFitFile(opt.Value, wdl.DistContext{Dir: filepath.Dir(opt.Pos.File)})
		if err != nil {
			k.add(wdl.Errorf(opt.Pos, "Model: %v", err))
		} else {
			k.model, k.recs, k.fullPath = &opt, recs, full
		}
	}
	return k
}

func (k *modelKeys) add(err error) {
	if e, ok := err.(*wdl.Error); ok {
		*k.errs = append(*k.errs, e)
	}
}

// fromModel is the Model file's distribution under fitKey, if it has one;
// when lim is not nil, it must pass lim.CheckDist.
func (k *modelKeys) fromModel(fitKey string, lim *wdl.Limit) (stats.Distribution, bool) {
	if k.model == nil || fitKey == "" {
		return nil, false
	}
	rec, ok := k.recs[fitKey]
	if !ok {
		return nil, false
	}
	d, err := rec.Distribution()
	if err == nil && lim != nil {
		err = lim.CheckDist(d)
	}
	if err != nil {
		k.add(wdl.Errorf(k.model.Pos, "Model: %s [%s]: %v", wdl.ExcerptPath(k.fullPath), fitKey, err))
		return nil, false
	}
	return d, true
}

// dist returns the distribution of key, else of fitKey in the Model file,
// else def; given tells whether the unit set it (by key or model). A
// distribution the unit gives must pass lim.CheckDist when lim is not nil
// (the defaults are the model's own and pass by construction).
func (k *modelKeys) dist(key, fitKey string, def stats.Distribution, lim *wdl.Limit) (d stats.Distribution, given bool) {
	if opt, ok := k.o.Get(key); ok {
		d, err := wdl.ParseDistributionIn(opt.Value, wdl.DistContext{Dir: filepath.Dir(opt.Pos.File)})
		if err == nil && lim != nil {
			err = lim.CheckDist(d)
		}
		if err != nil {
			k.add(wdl.Errorf(opt.Pos, "%s: %v", key, err))
			return def, true
		}
		return d, true
	}
	if d, ok := k.fromModel(fitKey, lim); ok {
		return d, true
	}
	return def, false
}

// float returns the number of key (within [lo, hi]) or def.
func (k *modelKeys) float(key string, def, lo, hi float64) float64 {
	opt, ok := k.o.Get(key)
	if !ok {
		return def
	}
	v, err := wdl.ParseFloat(opt.Value)
	if err != nil {
		k.add(wdl.Errorf(opt.Pos, "%s: %v", key, err))
		return def
	}
	if v < lo || v > hi {
		k.add(wdl.Errorf(opt.Pos, "%s must be in [%g, %g], got %g", key, lo, hi, v))
		return def
	}
	return v
}

// int returns the whole number of key (in [lo, hi]) or def.
func (k *modelKeys) int(key string, def, lo, hi int) int {
	v, ok, err := k.o.Int(key, lo, hi)
	if err != nil {
		k.add(err)
		return def
	}
	if !ok {
		return def
	}
	return v
}

// seconds returns the duration of key in seconds, or def.
func (k *modelKeys) seconds(key string, def float64) float64 {
	d, ok, err := k.o.Duration(key)
	if err != nil {
		k.add(err)
		return def
	}
	if !ok {
		return def
	}
	return d.Seconds()
}

// word returns key's value among choices (case-insensitive), or def.
func (k *modelKeys) word(key, def string, choices ...string) string {
	opt, ok := k.o.Get(key)
	if !ok {
		return def
	}
	for _, c := range choices {
		if strings.EqualFold(opt.Value, c) {
			return c
		}
	}
	k.add(wdl.Errorf(opt.Pos, "%s: %q is not one of %s", key, wdl.Excerpt(opt.Value), strings.Join(choices, ", ")))
	return def
}

// Half-hour slots of the day, as in Lublin–Feitelson and the thesis.
const (
	slotSeconds = 1800.0
	daySlots    = 48
	daySeconds  = 86400.0
)

// dailyCycle is a daily cycle of arrivals applied as a change of time: the
// arrival process runs on a "model clock" that advances w_k times as fast as
// real time during half-hour slot k of the day. A model inter-arrival time of
// τ seconds therefore takes less real time in busy slots (w > 1) and more in
// quiet ones, and the arrival rate in slot k is proportional to w_k. This is
// Lublin–Feitelson's "points" walk (each bucket consumes points equal to its
// weight), exact across slot boundaries; docs/models.md compares it with the
// thesis's "scale by the weight of the hour".
type dailyCycle struct {
	w     [daySlots]float64
	day   float64 // model seconds per real day: Σ w_k·1800
	start float64 // time of day, in seconds, at unit time 0
}

// newCycle builds a cycle from raw slot weights, normalised so that their
// mean over the slots [from, to) is 1.
func newCycle(raw [daySlots]float64, from, to int, start float64) (*dailyCycle, error) {
	c := &dailyCycle{start: math.Mod(start, daySeconds)}
	ref := 0.0
	for k := from; k < to; k++ {
		ref += raw[k%daySlots]
	}
	ref /= float64(to - from)
	if !(ref > 0) {
		return nil, fmt.Errorf("the daily cycle has no weight in the reference slots %d–%d", from, to-1)
	}
	for k := range raw {
		c.w[k] = raw[k] / ref
		c.day += c.w[k] * slotSeconds
	}
	return c, nil
}

// slotWeights returns the mass of each half-hour slot under d, a
// distribution of the slot index (0 = 00:00–00:30): slot k gets
// F(k+1+shift) − F(k+shift), and the mass beyond the day (index ≥ 48, or
// below 0) is wrapped around cyclically.
func slotWeights(d stats.Distribution, shift float64) [daySlots]float64 {
	var w [daySlots]float64
	for i := -4 * daySlots; i < 8*daySlots; i++ {
		m := d.CDF(float64(i+1)+shift) - d.CDF(float64(i)+shift)
		w[((i%daySlots)+daySlots)%daySlots] += m
	}
	return w
}

// warp returns the real time reached from real time t after tau model
// seconds.
func (c *dailyCycle) warp(t, tau float64) float64 {
	if !(tau > 0) {
		return t
	}
	if tau >= c.day {
		n := math.Floor(tau / c.day)
		t += n * daySeconds
		tau -= n * c.day
	}
	tod := dayRemainder(c.start + t)
	for i := 0; i < 2*daySlots+2; i++ {
		k := int(tod/slotSeconds) % daySlots
		end := float64(k+1) * slotSeconds
		cap := c.w[k] * (end - tod)
		if tau <= cap && c.w[k] > 0 {
			return t + tau/c.w[k]
		}
		tau -= cap
		t += end - tod
		tod = end
		if tod >= daySeconds {
			tod = 0
		}
	}
	return t // not reached: a day's capacity exceeds tau
}

// dayRemainder is math.Mod(x, daySeconds), the same double, in a few
// instructions where math.Mod loops (it was two thirds of the daily cycle's
// cost): the remainder of x by the whole number of days below it is exact,
// and one fused multiply-add, rounding once, gives it exactly; a quotient
// rounded up or down by the division is put right by the remainder's
// sign. Beyond 2^52 s, at 0 and below it is math.Mod.
func dayRemainder(x float64) float64 {
	if !(x > 0 && x < 1<<52) { // -0 too: math.Mod keeps its sign
		return math.Mod(x, daySeconds)
	}
	q := math.Floor(x / daySeconds)
	r := math.FMA(-q, daySeconds, x)
	if r < 0 {
		r = math.FMA(-(q - 1), daySeconds, x)
	} else if r >= daySeconds {
		r = math.FMA(-(q + 1), daySeconds, x)
	}
	return r
}

// modelClock is the inverse of warp: the model time elapsed from real time 0
// to real time t (the tests read generated arrivals on the model clock).
func (c *dailyCycle) modelClock(t float64) float64 {
	if c == nil {
		return t
	}
	at := func(x float64) float64 { // model time from the day's start to time of day x
		s := 0.0
		for k := 0; k < daySlots; k++ {
			lo := float64(k) * slotSeconds
			if x <= lo {
				break
			}
			s += c.w[k] * (math.Min(x, lo+slotSeconds) - lo)
		}
		return s
	}
	abs := c.start + t
	days := math.Floor(abs / daySeconds)
	return days*c.day + at(abs-days*daySeconds) - at(c.start)
}

// userPicker draws users by Zipf rank. With a gap, a user who submitted
// less than gap before is redrawn: two submissions of one user closer than
// the bag-of-tasks Δ would be one bag by the thesis's own definition (§4.4.2),
// so the model keeps its bags apart.
type userPicker struct {
	z    *stats.Zipf
	gap  time.Duration
	last []time.Duration
}

func newUserPicker(n int, s float64, gap time.Duration) (*userPicker, error) {
	z, err := stats.NewZipf(s, n)
	if err != nil {
		return nil, err
	}
	last := make([]time.Duration, n+1)
	for i := range last {
		last[i] = math.MinInt64 / 2
	}
	return &userPicker{z: z, gap: gap, last: last}, nil
}

// pick returns the user of a submission at t: a rank 1..n as a string.
func (u *userPicker) pick(r *rand.Rand, t time.Duration) string {
	k := int(u.z.Rand(r))
	if u.gap > 0 {
		for try := 0; try < 1000 && t-u.last[k] <= u.gap; try++ {
			k = int(u.z.Rand(r))
		}
	}
	u.last[k] = t
	return strconv.Itoa(k)
}

// maxUsers bounds Users: the Zipf table of user ranks is precomputed.
const maxUsers = 1 << 20

// jobSize is the limit of a drawn job or bag size, clamped into its range
// before the conversion (so only NaN is refused).
var jobSize = wdl.Limit{What: "a size", Min: 1, Max: wdl.MaxProcessors}

// minRunTime keeps drawn run times from rounding to 0, which in a workload
// means "unknown".
const minRunTime = 0.001

// fillModelJob makes j a unitary swf job of procs processors on any site,
// running for runtime seconds. Its error is a run time beyond the limits.
func fillModelJob(j *workload.Job, id string, unit, idx int, submit time.Duration, procs int, runtime float64, user string, app *appMaker, r *rand.Rand) error {
	rt, err := wdl.RunTimes.Duration(math.Max(runtime, minRunTime))
	if err != nil {
		return fmt.Errorf("job %s: %v; change RunTime (or the Model) so that its draws stay in range", id, err)
	}
	j.ID, j.Unit, j.Index = id, unit, idx
	j.Kind, j.Type, j.SiteType = workload.Unitary, "swf", workload.Single
	j.Submit = submit
	j.RunTime = rt
	j.WallTime = 0
	j.User, j.Group = user, ""
	j.Components = append(j.Components[:0], workload.Component{Site: workload.AnySite, Count: max(procs, 1)})
	j.Files = j.Files[:0]
	j.Tasks, j.Deps = j.Tasks[:0], j.Deps[:0]
	app.fill(r, j)
	return nil
}

// swfApp prepares the swf application of a model unit (Scale=, Mode=).
func swfApp(o *wdl.Options) (*appMaker, wdl.ErrorList) {
	app, _ := LookupApp("swf")
	return prepareApp(app, optView{o: o}, false)
}

// unitID formats "<unit>-<index>".
func unitID(buf []byte, unit, idx int) ([]byte, string) {
	b := decimal.AppendInt(buf[:0], int64(unit))
	b = append(b, '-')
	b = decimal.AppendInt(b, int64(idx))
	return b, string(b)
}

// timeOfDay reads TimeOfDay: the time of day at the unit's time 0.
func timeOfDay(k *modelKeys) float64 {
	return math.Mod(k.seconds("TimeOfDay", 0), daySeconds)
}

// redraw draws from d until the value is at most limit (a cap that keeps
// back-transformed tails finite), at most 100 times, then returns limit.
func redraw(d stats.Distribution, r *rand.Rand, limit float64) float64 {
	for i := 0; i < 100; i++ {
		if v := d.Rand(r); v <= limit {
			return v
		}
	}
	return limit
}
