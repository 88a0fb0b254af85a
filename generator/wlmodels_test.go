package generator

import (
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/gmark/gmark/stats"
	"github.com/gmark/gmark/wdl"
	"github.com/gmark/gmark/workload"
)

// modelSpec parses a one-unit spec of a workload model.
func modelSpec(t testing.TB, ntimes int, typ, arrival, other string) *wdl.Spec {
	t.Helper()
	return parse(t, "m.wdl", fmt.Sprintf("%d\twl:%s\tsingle\t1\t*:?\t%s\t%s\n", ntimes, typ, arrival, other))
}

// u2Pow2 is the probability that round(2^U) is a power of two, U uniform
// on [a, b].
func u2Pow2(a, b float64) float64 {
	if b <= a {
		return 0
	}
	p := 0.0
	for j := 0; j < 40; j++ {
		lo := math.Log2(math.Max(math.Exp2(float64(j))-0.5, 1e-300))
		hi := math.Log2(math.Exp2(float64(j)) + 0.5)
		p += math.Max(0, math.Min(b, hi)-math.Max(a, lo))
	}
	return p / (b - a)
}

// lfExpected are the model's own moments, computed from its parameters.
func lfPow2Share(p lfParams) float64 {
	q := p.UProb*u2Pow2(p.ULow, p.UMed) + (1-p.UProb)*u2Pow2(p.UMed, p.UHi)
	return (p.Pow2 + (1-p.Serial-p.Pow2)*q) / (1 - p.Serial)
}

// lfMeanLogRunTime is E[ln run time | n processors]: the hyper-gamma
// conditioned on ≤ 12, using ∫_0^c x f_{a,b}(x) dx = a·b·F_{a+1,b}(c).
func lfMeanLogRunTime(p lfParams, n int) float64 {
	pr := math.Min(1, math.Max(0, p.PA*float64(n)+p.PB))
	g1, g1p := stats.Gamma{Shape: p.A1, Scale: p.B1}, stats.Gamma{Shape: p.A1 + 1, Scale: p.B1}
	g2, g2p := stats.Gamma{Shape: p.A2, Scale: p.B2}, stats.Gamma{Shape: p.A2 + 1, Scale: p.B2}
	c := lfMaxLogRunTime
	num := pr*p.A1*p.B1*g1p.CDF(c) + (1-pr)*p.A2*p.B2*g2p.CDF(c)
	den := pr*g1.CDF(c) + (1-pr)*g2.CDF(c)
	return num / den
}

func isPow2(n int) bool { return n > 0 && n&(n-1) == 0 }

// sizeClass groups sizes: 1, 2, 3–4, 5–8, …
func sizeClass(n int) int {
	c := 0
	for v := 1; v < n; v *= 2 {
		c++
	}
	return c
}

// batchMeansSE is the standard error of the mean of x by batch means (20
// consecutive batches): valid for the correlated series a renewal process
// with a daily cycle gives.
func batchMeansSE(x []float64) float64 {
	const b = 20
	m := len(x) / b
	var means []float64
	for i := 0; i < b; i++ {
		s := 0.0
		for _, v := range x[i*m : (i+1)*m] {
			s += v
		}
		means = append(means, s/float64(m))
	}
	mu, v := 0.0, 0.0
	for _, x := range means {
		mu += x / b
	}
	for _, x := range means {
		v += (x - mu) * (x - mu) / (b - 1)
	}
	return math.Sqrt(v / b)
}

// wl:lublin reproduces the model's published moments: the fraction of
// serial jobs, the fraction of powers of two among parallel jobs, the mean
// log run time of each size class (the size–run-time correlation), and the
// daily cycle of arrivals.
func TestLublinMoments(t *testing.T) {
	n := 60000
	if testing.Short() {
		n = 20000
	}
	for _, c := range []struct {
		variant string
		params  lfParams
	}{
		{"batch", lfBatch}, {"interactive", lfInteractive}, {"typeless", lfTypeless}, {"grid", gridParams(lfDefaultProcs)},
	} {
		t.Run(c.variant, func(t *testing.T) {
			jobs := generate(t, modelSpec(t, n, "lublin", "-", "Variant="+c.variant), 3)
			if len(jobs) != n {
				t.Fatalf("%d jobs, want %d", len(jobs), n)
			}
			p := c.params
			serial, pow2, parallel := 0, 0, 0
			byClass := map[int][]float64{}
			expClass := map[int]float64{}
			for i := range jobs {
				j := &jobs[i]
				if i > 0 && j.Submit < jobs[i-1].Submit {
					t.Fatalf("job %d submitted before job %d", i, i-1)
				}
				if j.Kind != workload.Unitary || j.Type != "swf" || j.App.Name != "swf" {
					t.Fatalf("job %s is %s/%s", j.ID, j.Kind, j.Type)
				}
				size := j.Processors()
				if size == 1 {
					serial++
				} else {
					parallel++
					if isPow2(size) {
						pow2++
					}
				}
				lr := math.Log(j.RunTime.Seconds())
				cl := sizeClass(size)
				byClass[cl] = append(byClass[cl], lr)
				expClass[cl] += lfMeanLogRunTime(p, size)
			}
			fs := float64(serial) / float64(n)
			if se := math.Sqrt(p.Serial * (1 - p.Serial) / float64(n)); math.Abs(fs-p.Serial) > 4*se {
				t.Errorf("serial fraction %.4f, want %.4f ± %.4f", fs, p.Serial, 4*se)
			}
			want := lfPow2Share(p)
			fp := float64(pow2) / float64(parallel)
			if se := math.Sqrt(want * (1 - want) / float64(parallel)); math.Abs(fp-want) > 4*se {
				t.Errorf("powers of two among parallel jobs %.4f, want %.4f ± %.4f", fp, want, 4*se)
			}
			for cl, lrs := range byClass {
				if len(lrs) < 200 {
					continue
				}
				mean, sd := meanSD(lrs)
				exp := expClass[cl] / float64(len(lrs))
				if se := sd / math.Sqrt(float64(len(lrs))); math.Abs(mean-exp) > 4*se {
					t.Errorf("size class %d (%d jobs): mean ln run time %.4f, want %.4f ± %.4f", cl, len(lrs), mean, exp, 4*se)
				}
			}
			if c.variant == "grid" {
				// No correlation: every class has the same expected log run time.
				if a, b := lfMeanLogRunTime(p, 1), lfMeanLogRunTime(p, 64); a != b {
					t.Errorf("grid run time depends on size: %g vs %g", a, b)
				}
			}
			checkDailyCycle(t, jobs, c.variant, p)
		})
	}
}

func meanSD(x []float64) (float64, float64) {
	m := 0.0
	for _, v := range x {
		m += v
	}
	m /= float64(len(x))
	s := 0.0
	for _, v := range x {
		s += (v - m) * (v - m)
	}
	return m, math.Sqrt(s / float64(len(x)-1))
}

// checkDailyCycle compares the share of arrivals in each 3-hour block of
// the day with the cycle's weights, within 4.5 batch-means standard errors.
func checkDailyCycle(t *testing.T, jobs []workload.Job, variant string, p lfParams) {
	t.Helper()
	var c *dailyCycle
	var err error
	if variant == "grid" {
		c, err = newCycle(slotWeights(botDefaultCycle, 0), 16, 34, 0)
	} else {
		c, err = p.cycle(0)
	}
	if err != nil {
		t.Fatal(err)
	}
	const blocks = 8
	var want [blocks]float64
	total := 0.0
	for k, w := range c.w {
		want[k/(daySlots/blocks)] += w
		total += w
	}
	for b := range want {
		want[b] /= total
		in := make([]float64, len(jobs))
		for i := range jobs {
			tod := math.Mod(jobs[i].Submit.Seconds(), daySeconds)
			if int(tod/(daySeconds/blocks)) == b {
				in[i] = 1
			}
		}
		got, _ := meanSD(in)
		se := batchMeansSE(in)
		if math.Abs(got-want[b]) > 4.5*se+1e-3 {
			t.Errorf("arrivals in hours %d-%d: %.4f, want %.4f ± %.4f", 3*b, 3*b+3, got, want[b], 4.5*se)
		}
	}
}

// The grid variant's arrivals are the bag-of-tasks process: on the cycle's
// model clock, the inter-arrival times follow 2^W(4.25, 7.86).
func TestLublinGridArrivals(t *testing.T) {
	jobs := generate(t, modelSpec(t, 20000, "lublin", "-", "Variant=grid,TimeOfDay=6h"), 5)
	c, _ := newCycle(slotWeights(botDefaultCycle, 0), 16, 34, 6*3600)
	var gaps []float64
	for i := 1; i < len(jobs); i++ {
		gaps = append(gaps, c.modelClock(jobs[i].Submit.Seconds())-c.modelClock(jobs[i-1].Submit.Seconds()))
	}
	slices.Sort(gaps)
	if d := stats.KSStatistic(gaps, botDefaultIAT.CDF); d > stats.KSCritical(0.01, len(gaps)) {
		t.Errorf("model-clock inter-arrival times: D = %.4f > %.4f", d, stats.KSCritical(0.01, len(gaps)))
	}
}

// The daily cycle as a time change: warp and modelClock are inverses, and
// a day of real time holds the cycle's model day.
func TestDailyCycleWarp(t *testing.T) {
	c, err := newCycle(slotWeights(botDefaultCycle, 0), 16, 34, 5000)
	if err != nil {
		t.Fatal(err)
	}
	peak := 0.0
	for k := 16; k < 34; k++ {
		peak += c.w[k] / 18
	}
	if math.Abs(peak-1) > 1e-12 {
		t.Errorf("peak weights average %g, want 1", peak)
	}
	for _, t0 := range []float64{0, 100, 30000, 86399, 200000} {
		for _, tau := range []float64{0.5, 1800, 50000, 3e5, 2e6} {
			t1 := c.warp(t0, tau)
			if got := c.modelClock(t1) - c.modelClock(t0); math.Abs(got-tau) > 1e-6*tau {
				t.Errorf("warp(%g, %g) = %g: model time %g", t0, tau, t1, got)
			}
		}
	}
	if d := c.modelClock(daySeconds) - c.modelClock(0); math.Abs(d-c.day) > 1e-6 {
		t.Errorf("a real day holds %g model seconds, want %g", d, c.day)
	}
	// The weights of W(1.79, 24.16): the mass beyond slot 47 (3.3%) wraps.
	w := slotWeights(botDefaultCycle, 0)
	if s := sum(w[:]); math.Abs(s-1) > 1e-9 {
		t.Errorf("slot weights sum to %g", s)
	}
}

func sum(v []float64) float64 {
	s := 0.0
	for _, x := range v {
		s += x
	}
	return s
}

// wl:bot: sizes, inter-arrival times (on the model clock) and users follow
// the model; bags are composite "bot" jobs of one-processor swf tasks with
// the bag's submit time and user; size 1 gives a single grid-LF job.
func TestBoTModel(t *testing.T) {
	n := 20000
	jobs := generate(t, modelSpec(t, n, "bot", "-", "UserGap=0"), 7)
	if len(jobs) != n {
		t.Fatalf("%d arrivals, want %d", len(jobs), n)
	}
	c, _ := newCycle(slotWeights(botDefaultCycle, 0), 16, 34, 0)
	var sizes, gaps []float64
	users := map[string]int{}
	for i := range jobs {
		j := &jobs[i]
		size := 1
		if j.Kind == workload.Composite {
			size = len(j.Tasks)
			if j.Type != "bot" || size < 2 || len(j.Deps) != 0 {
				t.Fatalf("bag %s: type %s, %d tasks, %d deps", j.ID, j.Type, size, len(j.Deps))
			}
			for k := range j.Tasks {
				tk := &j.Tasks[k]
				if tk.Submit != j.Submit || tk.User != j.User || tk.Processors() != 1 || tk.RunTime <= 0 || tk.App.Name != "swf" {
					t.Fatalf("task %s: submit %v user %s procs %d run %v", tk.ID, tk.Submit, tk.User, tk.Processors(), tk.RunTime)
				}
			}
		} else if j.Type != "swf" || j.RunTime <= 0 {
			t.Fatalf("single job %s: %s run %v", j.ID, j.Type, j.RunTime)
		}
		if err := j.Validate(); err != nil {
			t.Fatal(err)
		}
		sizes = append(sizes, float64(size))
		users[j.User]++
		if i > 0 {
			gaps = append(gaps, c.modelClock(j.Submit.Seconds())-c.modelClock(jobs[i-1].Submit.Seconds()))
		}
	}
	slices.Sort(gaps)
	if d := stats.KSStatistic(gaps, botDefaultIAT.CDF); d > stats.KSCritical(0.01, len(gaps)) {
		t.Errorf("inter-arrival times: D = %.4f", d)
	}
	if d := discreteKS(sizes, roundedCDF(botDefaultSize)); d > stats.KSCritical(0.01, len(sizes)) {
		t.Errorf("bag sizes: D = %.4f", d)
	}
	ones := 0
	for _, s := range sizes {
		if s == 1 {
			ones++
		}
	}
	if f := float64(ones) / float64(n); math.Abs(f-0.099) > 0.01 {
		t.Errorf("share of size 1: %.3f, want about 0.099 (reference §6.2)", f)
	}
	// Zipf(1.31, 368): the top ranks' shares.
	z, _ := stats.NewZipf(1.31, 368)
	for r := 1; r <= 5; r++ {
		p := z.Prob(float64(r))
		got := float64(users[strconv.Itoa(r)]) / float64(n)
		if se := math.Sqrt(p * (1 - p) / float64(n)); math.Abs(got-p) > 4.5*se {
			t.Errorf("user %d: share %.4f, want %.4f", r, got, p)
		}
	}
}

// roundedCDF is the CDF of round(X) at whole numbers, X from d.
func roundedCDF(d stats.Distribution) func(float64) float64 {
	return func(k float64) float64 { return d.CDF(k + 0.5) }
}

// discreteKS is sup |F_n − F| over the whole numbers, for whole-number data.
func discreteKS(x []float64, cdf func(float64) float64) float64 {
	s := slices.Clone(x)
	slices.Sort(s)
	d := 0.0
	for i := 0; i < len(s); {
		j := i
		for j < len(s) && s[j] == s[i] {
			j++
		}
		// below s[i] (at s[i]−1) and at s[i]
		d = math.Max(d, math.Abs(float64(i)/float64(len(s))-cdf(s[i]-1)))
		d = math.Max(d, math.Abs(float64(j)/float64(len(s))-cdf(s[i])))
		i = j
	}
	return d
}

// With the default UserGap (the thesis's Δ = 120 s) no user submits twice
// within 120 s, so re-extracting bags at Δ = 120 s finds each bag again.
func TestBoTUserGap(t *testing.T) {
	jobs := generate(t, modelSpec(t, 20000, "bot", "-", "DailyCycle=off"), 2)
	last := map[string]float64{}
	for i := range jobs {
		j := &jobs[i]
		tt := j.Submit.Seconds()
		if p, ok := last[j.User]; ok && tt-p <= 120 {
			t.Fatalf("user %s submits at %.3f and %.3f", j.User, p, tt)
		}
		last[j.User] = tt
	}
}

// The run-time options and the keys that replace the model's parts.
func TestBoTOptionsAndKeys(t *testing.T) {
	for _, opt := range []string{"A", "B", "C"} {
		jobs := generate(t, modelSpec(t, 500, "bot", "-", "RunTimeOption="+opt+",MaxRunTime=2d"), 1)
		for _, j := range jobs {
			for _, tk := range append([]workload.Job{j}, j.Tasks...) {
				if tk.Kind == workload.Unitary && (tk.RunTime <= 0 || tk.RunTime.Hours() > 48+1e-9) {
					t.Errorf("option %s: task %s runs %v", opt, tk.ID, tk.RunTime)
				}
			}
		}
	}
	// Fixed parts: every bag of 4 tasks of 10 s, one per hour, two users.
	jobs := generate(t, modelSpec(t, 10, "bot", "C(1h)", "BoTSize=C(4),ART=C(10),RTV=Zero,Users=2,UserGap=0,DailyCycle=off"), 1)
	for i, j := range jobs {
		if len(j.Tasks) != 4 || j.Submit.Seconds() != float64(3600*i) || j.Tasks[0].RunTime.Seconds() != 10 {
			t.Errorf("job %d: %d tasks at %v running %v", i, len(j.Tasks), j.Submit, j.Tasks[0].RunTime)
		}
	}
	// Deterministic, and independent of other units.
	a := generate(t, modelSpec(t, 300, "bot", "-", ""), 9)
	b := generate(t, parse(t, "m.wdl", "300\twl:bot\tsingle\t1\t*:?\t-\t-\n50\tsser\tsingle\t1\t*:?\tPoisson(10s)\t-\n"), 9)
	var bb []workload.Job
	for _, j := range b {
		if j.Unit == 1 {
			bb = append(bb, j)
		}
	}
	if fmt.Sprint(a) != fmt.Sprint(bb) {
		t.Error("adding a unit changed the wl:bot unit's jobs")
	}
}

func TestModelKeyErrors(t *testing.T) {
	cases := []struct{ typ, other, want string }{
		{"lublin", "Variant=huge", `Variant: "huge" is not one of batch, interactive, combined, typeless, grid`},
		{"lublin", "SerialProb=1.5", "SerialProb must be in [0, 1], got 1.5"},
		{"lublin", "RunTime=W(0,1)", "RunTime: W: shape must be > 0"},
		{"lublin", "DailyCycle=W(1,2)", "DailyCycle: the combined class takes true or false"},
		{"bot", "BoTSize=Fit(nofile.toml,bot-size)", "no such file"},
		{"bot", "RunTimeOption=D", `RunTimeOption: "D" is not one of A, B, C`},
		{"bot", "TargetLoad=0.5", "TargetLoad needs the grid's size"},
		{"bot", "Tolerance=0.1", "Tolerance needs TargetLoad"},
		{"bot", "Users=0", "Users must be a whole number from 1 to 1048576, got 0"},
		{"bot", "Grid=nogrid.toml,TargetLoad=1", "Grid: open"},
		{"bot", "PeakHours=17-8", "PeakHours"},
	}
	for _, c := range cases {
		spec := modelSpec(t, 10, c.typ, "-", c.other)
		_, err := New(spec, 1)
		if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), "m.wdl:1:") {
			t.Errorf("%s %s: error %v, want %q at a position", c.typ, c.other, err, c.want)
		}
	}
}

// Fitted models plug in: Model=fit.toml and Fit(file,key) as a unit's
// run time, size and arrivals.
func TestModelsTakeFittedDistributions(t *testing.T) {
	dir := t.TempDir()
	fit := `[runtime]
family = "W"
log2 = true
params = { shape = 4.0, scale = 8.0 }

[size]
family = "Exp"
params = { rate = 0.25 }

[interarrival]
family = "LogNorm"
params = { mu = 4.0, sigma = 1.0 }

[bot-size]
family = "W"
log2 = true
params = { shape = 1.76, scale = 2.11 }
`
	if err := os.WriteFile(filepath.Join(dir, "fit.toml"), []byte(fit), 0o644); err != nil {
		t.Fatal(err)
	}
	write := func(src string) *wdl.Spec {
		path := filepath.Join(dir, "m.wdl")
		if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
		spec, err := wdl.ParseFile(path)
		if err != nil {
			t.Fatal(err)
		}
		return spec
	}
	// wl:lublin with the whole model file: run times 2^W(4,8), sizes
	// round(Exp), arrivals log-normal without a daily cycle.
	jobs := generate(t, write("3000\twl:lublin\tsingle\t1\t*:?\t-\tModel=fit.toml,Variant=typeless\n"), 1)
	var rt, gaps []float64
	for i, j := range jobs {
		rt = append(rt, j.RunTime.Seconds())
		if i > 0 {
			gaps = append(gaps, (j.Submit - jobs[i-1].Submit).Seconds())
		}
	}
	slices.Sort(rt)
	slices.Sort(gaps)
	if d := stats.KSStatistic(rt, stats.Pow2{Of: stats.Weibull{Shape: 4, Scale: 8}}.CDF); d > stats.KSCritical(0.01, len(rt)) {
		t.Errorf("Model run times: D = %.4f", d)
	}
	if d := stats.KSStatistic(gaps, stats.LogNormal{Mu: 4, Sigma: 1}.CDF); d > stats.KSCritical(0.01, len(gaps))+0.002 {
		t.Errorf("Model inter-arrival times: D = %.4f", d)
	}
	// A job unit: Model gives the arrival (column "-") and the run time;
	// Fit(file,key) works in the column and in RunTime=.
	spec := write("200\tsser\tsingle\t1\t*:?\t-\tModel=fit.toml\n200\tsser\tsingle\t1\t*:?\tFit(fit.toml,interarrival)\tRunTime=Fit(fit.toml,runtime)\n")
	if _, ok := spec.Units[0].Arrival.Dist.(stats.LogNormal); !ok {
		t.Errorf("Model arrival is %T", spec.Units[0].Arrival.Dist)
	}
	if !slices.Contains(spec.Includes, filepath.Join(dir, "fit.toml")) {
		t.Errorf("the fit file is not among the spec's inputs: %v", spec.Includes)
	}
	jobs = generate(t, spec, 1)
	for _, j := range jobs {
		if j.RunTime < 1000*1e6 { // 2^W(4,8) ≥ 2^0 s: never below 1 s
			t.Errorf("job %s: run time %v", j.ID, j.RunTime)
			break
		}
	}
	// wl:bot takes bot-size from the model.
	if _, err := New(write("10\twl:bot\tsingle\t1\t*:?\t-\tModel=fit.toml\n"), 1); err != nil {
		t.Error(err)
	}
	// A missing key.
	if _, err := wdl.Parse("x.wdl", []byte("10\tsser\tsingle\t1\t*:?\tFit(fit.toml,nokey)\t-\n"), func(string) ([]byte, error) { return []byte(fit), nil }); err == nil || !strings.Contains(err.Error(), `no model "nokey" (it has: bot-size, interarrival, runtime, size)`) {
		t.Errorf("missing key: %v", err)
	}
}

// dayRemainder is math.Mod(x, daySeconds) to the bit: at whole days and one
// ulp either side of them, at the ends of its fast range and past them,
// for what is not a time, and for random times of every magnitude.
func TestDayRemainderIsMathMod(t *testing.T) {
	xs := []float64{0, math.Copysign(0, -1), 1, daySeconds, 1 << 52, 1<<52 - 1, 1 << 53, 1e300, -1, -daySeconds,
		math.Inf(1), math.Inf(-1), math.NaN(), math.SmallestNonzeroFloat64, 0.5, 521213729.86}
	for k := 1.0; k < 1<<34; k *= 3 {
		d := k * daySeconds
		xs = append(xs, d, math.Nextafter(d, 0), math.Nextafter(d, math.Inf(1)))
	}
	r := rand.New(rand.NewPCG(7, 8))
	for i := 0; i < 1_000_000; i++ {
		xs = append(xs, math.Ldexp(r.Float64(), r.IntN(70)-8))
	}
	for _, x := range xs {
		if got, want := dayRemainder(x), math.Mod(x, daySeconds); math.Float64bits(got) != math.Float64bits(want) {
			t.Fatalf("dayRemainder(%v) = %v, math.Mod %v", x, got, want)
		}
	}
}

func FuzzDayRemainder(f *testing.F) {
	f.Add(0.0)
	f.Add(daySeconds)
	f.Add(521213729.86)
	f.Fuzz(func(t *testing.T, x float64) {
		if got, want := dayRemainder(x), math.Mod(x, daySeconds); math.Float64bits(got) != math.Float64bits(want) {
			t.Fatalf("dayRemainder(%v) = %v, math.Mod %v", x, got, want)
		}
	})
}
