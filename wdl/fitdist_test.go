package wdl

import (
	"math"
	"strings"
	"testing"

	"github.com/gmark/gmark/stats"
)

const testFitFile = `# written by gmark fit
[runtime]
family = "HGamma2"
log2 = true
params = { p = 0.4, shape1 = 157, scale1 = 0.046, shape2 = 8.6, scale2 = 1.27 }
below = 0.01
below_values = [0, 1]
below_weights = [3, 1]

[interarrival]
family = "W"
log2 = true
params = { shape = 4.25, scale = 7.86 }

[broken]
family = "W"
params = { shape = 4.25 }
`

// Pow2, HGamma2 and Fit(file,key) in the arrival column and as values,
// resolved against the file that names them.
func TestFitDistributions(t *testing.T) {
	fs := memFS{"dir/fit.toml": testFitFile}
	src := "10\tsser\tsingle\t1\t*:?\tFit(fit.toml,interarrival)\tRunTime=Fit(fit.toml,runtime)\n" +
		"10\tsser\tsingle\t1\t*:?\tPow2(W(4.25,7.86))\t-\n" +
		"10\tsser\tsingle\t1\t*:?\tHGamma2(0.78,4.2,0.94,312,0.03)\t-\n" +
		"10\tsser\tsingle\t1\t*:?\t-\tModel=fit.toml\n"
	spec, err := Parse("dir/w.wdl", []byte(src), fs.open)
	if err != nil {
		t.Fatal(err)
	}
	want := stats.Pow2{Of: stats.Weibull{Shape: 4.25, Scale: 7.86}}
	for _, i := range []int{0, 1, 3} {
		d := spec.Units[i].Arrival.Dist
		if math.Abs(d.CDF(148)-want.CDF(148)) > 1e-12 || math.Abs(d.Quantile(0.9)-want.Quantile(0.9)) > 1e-9 {
			t.Errorf("unit %d arrival %v, want %v", i+1, d, want)
		}
	}
	if hg, ok := spec.Units[2].Arrival.Dist.(stats.HyperGamma); !ok || math.Abs(hg.Weights[1]-0.22) > 1e-12 || hg.Shapes[1] != 312 {
		t.Errorf("HGamma2: %#v", spec.Units[2].Arrival.Dist)
	}
	if len(spec.Includes) != 1 || spec.Includes[0] != "dir/fit.toml" {
		t.Errorf("includes %v", spec.Includes)
	}
	// The runtime model: 2^HGamma2 spliced with the zeros and ones.
	recs, full, err := LoadFitFile("fit.toml", DistContext{Dir: "dir", Open: fs.open})
	if err != nil || full != "dir/fit.toml" || len(FitKeys(recs)) != 3 {
		t.Fatal(err, full)
	}
	d, err := ParseDistributionIn("Fit(fit.toml,runtime)", DistContext{Dir: "dir", Open: fs.open})
	if err != nil {
		t.Fatal(err)
	}
	if s, ok := d.(stats.Spliced); !ok || s.LowShare != 0.01 || s.CDF(0) != 0.0075 {
		t.Errorf("runtime model %v", d)
	}
}

func TestFitDistributionErrors(t *testing.T) {
	fs := memFS{"fit.toml": testFitFile, "bad.toml": "this is = = not toml"}
	cases := []struct{ arrival, want string }{
		{"Fit(nofile.toml,runtime)", "w.wdl:1:26: Fit: nofile.toml: no such file"},
		{"Fit(fit.toml,nokey)", `w.wdl:1:35: Fit: fit.toml has no model "nokey" (it has: broken, interarrival, runtime)`},
		{"Fit(fit.toml,broken)", `w.wdl:1:35: Fit: fit.toml [broken]: W needs the parameters shape, scale; "scale" is missing`},
		{"Fit(bad.toml,runtime)", "w.wdl:1:26: Fit: bad.toml:1: not a fit file: expected '.' or '=', but got 'i' instead"},
		{"Fit(fit.toml)", "w.wdl:1:22: Fit takes a fit file and a key"},
		{"Pow2()", "w.wdl:1:22: Pow2 takes one distribution"},
		{"Pow2(W(0,1))", "w.wdl:1:27: Pow2: W: shape must be > 0"},
		{"HGamma2(1,2,3)", "w.wdl:1:22: HGamma2 takes 5 parameter(s): HGamma2(p,shape1,scale1,shape2,scale2)"},
		{"HGamma2(1.5,2,3,4,5)", "w.wdl:1:22: HGamma2: p must be a probability"},
		{"HGamma2(0.5,2,x,4,5)", "w.wdl:1:36: HGamma2: scale1: \"x\" is not a number"},
	}
	for _, c := range cases {
		_, err := Parse("w.wdl", []byte("10\tsser\tsingle\t1\t*:?\t"+c.arrival+"\t-\n"), fs.open)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v\nwant %s", c.arrival, err, c.want)
		}
	}
	// Model= names a file that is not there.
	_, err := Parse("w.wdl", []byte("10\tsser\tsingle\t1\t*:?\t-\tModel=none.toml\n"), fs.open)
	if err == nil || !strings.Contains(err.Error(), "w.wdl:1:30: Model: none.toml: no such file") {
		t.Errorf("Model error %v", err)
	}
}

// Every fit file a unit names reaches the spec's inputs (the manifest).
func TestFitFilesAreIncludes(t *testing.T) {
	files := memFS{"dir/runtime.toml": "x", "dir/model.toml": "y"}
	src := "5\tswf\tsingle\t1\t*:?\tZero\tRunTime=Fit(runtime.toml,runtime)\n" +
		"2\twl:bot\tsingle\t1\t*:?\t-\tModel=model.toml,Missing=Fit(nope.toml,x)\n"
	spec, err := Parse("dir/w.wdl", []byte(src), files.open)
	if err != nil {
		t.Fatal(err)
	}
	got := strings.Join(spec.Includes, " ")
	if got != "dir/runtime.toml dir/model.toml" {
		t.Errorf("includes %q", got)
	}
}

// A fit file is read like any outside input: its parameters are checked
// against their family's range (finite, positive where the family needs it),
// its share below the floor against [0, 1), its keys against the format,
// and the distribution it gives against the use it is put to.
func TestFitFileValidation(t *testing.T) {
	cases := []struct {
		name, file, use string // use: the arrival column, or "RunTime=…"
		want            string // "" when it is accepted
	}{
		{"good", "[r]\nfamily = \"W\"\nparams = { shape = 2.0, scale = 100.0 }\n", "RunTime", ""},
		{"NaN shape", "[r]\nfamily = \"W\"\nparams = { shape = nan, scale = 1.0 }\n", "RunTime", "f.toml [r]: W: shape must be > 0, got NaN"},
		{"infinite scale", "[r]\nfamily = \"Gamma\"\nparams = { shape = 1.0, scale = inf }\n", "RunTime", "Gamma: scale must be > 0, got +Inf"},
		{"infinite mu", "[r]\nfamily = \"N\"\nparams = { mu = -inf, sigma = 1.0 }\n", "RunTime", "N: mu must be a finite number, got -Inf"},
		{"negative sigma", "[r]\nfamily = \"LogNorm\"\nparams = { mu = 1.0, sigma = -1.0 }\n", "RunTime", "LogNorm: sigma must be > 0, got -1"},
		{"NaN probability", "[r]\nfamily = \"HExp2\"\nparams = { p = nan, rate1 = 1.0, rate2 = 2.0 }\n", "RunTime", "HExp2: p must be a probability in [0,1], got NaN"},
		{"probabilities not summing to 1", "[r]\nfamily = \"HExp3\"\nparams = { p1 = 0.5, p2 = 0.5, p3 = 0.5, rate1 = 1.0, rate2 = 2.0, rate3 = 3.0 }\n", "RunTime", "the branch probabilities sum to 1.5, not 1"},
		{"NaN below", "[r]\nfamily = \"W\"\nparams = { shape = 2.0, scale = 1.0 }\nbelow = nan\n", "RunTime", "below = NaN: the share of values below the floor must be in [0, 1)"},
		{"negative below", "[r]\nfamily = \"W\"\nparams = { shape = 2.0, scale = 1.0 }\nbelow = -0.5\n", "RunTime", "below = -0.5"},
		{"below without values", "[r]\nfamily = \"W\"\nparams = { shape = 2.0, scale = 1.0 }\nbelow = 0.5\n", "RunTime", "below = 0.5 needs below_values and below_weights of the same length"},
		{"infinite below value", "[r]\nfamily = \"W\"\nparams = { shape = 2.0, scale = 1.0 }\nbelow = 0.5\nbelow_values = [inf]\nbelow_weights = [1.0]\n", "RunTime", "empirical: value +Inf is not finite"},
		{"negative below weight", "[r]\nfamily = \"W\"\nparams = { shape = 2.0, scale = 1.0 }\nbelow = 0.5\nbelow_values = [0.0]\nbelow_weights = [-1.0]\n", "RunTime", "must be a finite number >= 0"},
		{"typo", "[r]\nfamily = \"W\"\nparms = { shape = 2.0, scale = 1.0 }\n", "RunTime", `f.toml: unknown key "r.parms" in a fit file`},
		{"wrong type", "[r]\nfamily = 3\n", "RunTime", "f.toml:2: not a fit file"},
		{"unknown family", "[r]\nfamily = \"Cauchy\"\nparams = { x0 = 1.0 }\n", "RunTime", `unknown family "Cauchy"`},
		{"infinite mean on log2", "[r]\nfamily = \"LogNorm\"\nlog2 = true\nparams = { mu = 3.0, sigma = 1.0 }\n", "RunTime", "Pow2(LogNorm(3,1)) has no finite mean"},
		{"beyond 100 years", "[r]\nfamily = \"N\"\nlog2 = true\nparams = { mu = 31.0, sigma = 0.5 }\n", "RunTime", "Pow2(N(31,0.5)) gives values above 3.154e+09 s (100 years)"},
		{"as an inter-arrival time", "[r]\nfamily = \"N\"\nlog2 = true\nparams = { mu = 31.0, sigma = 0.5 }\n", "arrival", "w.wdl:1:21: Fit(f.toml,r) (Pow2(N(31,0.5))) gives values above 3.154e+09 s (100 years)"},
		{"far beyond as an inter-arrival time", "[r]\nfamily = \"W\"\nlog2 = true\nparams = { shape = 4.0, scale = 40.0 }\n", "arrival", "w.wdl:1:21: Fit(f.toml,r) (Pow2(W(4,40))) gives values above 3.154e+09 s (100 years) (its 99.99th percentile is 9.479e+20 s"},
		{"no mean as an inter-arrival time", "[r]\nfamily = \"W\"\nlog2 = true\nparams = { shape = 0.9, scale = 4.0 }\n", "arrival", "w.wdl:1:21: Fit(f.toml,r) (Pow2(W(0.9,4))) has no finite mean"},
		// The fits of real traces pass: LCG's run time (2^HGamma2, a share of
		// 0 and 1 s set apart) goes past 100 years with a chance of about
		// 6e-6, under Tail; a Weibull on log2 has a finite mean.
		{"LCG run time", "[r]\nfamily = \"HGamma2\"\nlog2 = true\nparams = { p = 0.4029038399599662, shape1 = 156.98107747032014, scale1 = 0.045992480217522655, shape2 = 8.5810928589895, scale2 = 1.2716587099636745 }\nbelow = 0.004722374375801022\nbelow_values = [0.0, 1.0]\nbelow_weights = [0.5867117117117117, 0.41328828828828834]\n", "RunTime", ""},
		{"Weibull on log2", "[r]\nfamily = \"W\"\nlog2 = true\nparams = { shape = 2.5320479196692487, scale = 8.972033854981003 }\n", "RunTime", ""},
		{"not a fit file", "root:x:0:0:root:/root:/bin/bash\n", "RunTime", "f.toml:1: not a fit file: expected '.' or '=', but got ':' instead"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			line := "5\tsser\tsingle\t1\t*:?\tPoisson(1m)\tRunTime=Fit(f.toml,r)\n"
			if c.use == "arrival" {
				line = "5\tsser\tsingle\t1\t*:?\tFit(f.toml,r)\t-\n"
			}
			spec, err := Parse("w.wdl", []byte(line), memFS{"f.toml": c.file}.open)
			if err == nil && c.use == "RunTime" {
				// The run time is checked where it is used, by the generator;
				// here, the same check by hand.
				opt, _ := spec.Units[0].Options.Get("RunTime")
				var d stats.Distribution
				if d, err = ParseDistributionIn(opt.Value, DistContext{Open: memFS{"f.toml": c.file}.open}); err == nil {
					err = RunTimes.CheckDist(d)
				}
			}
			if c.want == "" && err != nil || c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)) {
				t.Errorf("error %v\nwant %q", err, c.want)
			}
			if err != nil && strings.Contains(err.Error(), "root:x:0:0:root") {
				t.Errorf("the error echoes the file: %v", err)
			}
		})
	}
}

// lcgRunTimeFit is the run-time fit of the LCG trace censored at 48 h, as
// gmark fit writes it (docs/models.md) but for the provenance keys.
const lcgRunTimeFit = `[runtime]
family = "HGamma2"
log2 = true
below = 0.004722374375801022
below_values = [0.0, 1.0]
below_weights = [0.5867117117117117, 0.41328828828828834]
floor = 0.0
censor_at = 172800.0
n = 187153
censored = 2191
TAIL
[runtime.params]
p = 0.4029038399599662
scale1 = 0.045992480217522655
scale2 = 1.2716587099636745
shape1 = 156.98107747032014
shape2 = 8.5810928589895
`

// A model fitted to run times censored at a wall-time limit is drawn
// below that limit by default, and generation says how much of the model
// lay beyond it; tail = "uncensored" draws the whole model, as before
// (where a fit of LCG drew jobs of 75 years, with a mean 49 times the
// trace's).
func TestCensoredFitDraws(t *testing.T) {
	draw := func(t *testing.T, tail string) (maxV, mean float64, warnings []string) {
		t.Helper()
		fs := memFS{"dir/fit.toml": strings.Replace(lcgRunTimeFit, "TAIL", tail, 1)}
		spec, err := Parse("dir/w.wdl", []byte("10\tsser\tsingle\t1\t*:?\tPoisson(10s)\tRunTime=Fit(fit.toml,runtime)\n"), fs.open)
		if err != nil {
			t.Fatal(err)
		}
		for _, w := range spec.Warnings {
			warnings = append(warnings, w.Error())
		}
		d, err := ParseDistributionIn("Fit(fit.toml,runtime)", DistContext{Dir: "dir", Open: fs.open})
		if err != nil {
			t.Fatal(err)
		}
		if err := RunTimes.CheckDist(d); err != nil {
			t.Fatal(err)
		}
		r := stats.NewStream(1, 1, "test")
		const n = 20000
		for range n {
			v, err := RunTimes.Draw(d, r)
			if err != nil {
				t.Fatal(err)
			}
			maxV = math.Max(maxV, v)
			mean += v / n
		}
		return maxV, mean, warnings
	}
	for _, tail := range []string{"", `tail = "truncated"`} {
		maxV, mean, warnings := draw(t, tail)
		if maxV >= 172800 || mean > 8000 || mean < 4000 {
			t.Errorf("%q: draws up to %g s, mean %g s; want below 172800 s, a mean near the trace's 7990 s", tail, maxV, mean)
		}
		if len(warnings) != 1 || !strings.Contains(warnings[0], "RunTime: Fit(fit.toml,runtime) is drawn below its censoring point 172800 s: the fitted model puts 3.32% of its mass beyond it (the data: 2191 of 187153 values, 1.17%, censored there)") {
			t.Errorf("%q: warnings %q", tail, warnings)
		}
	}
	// Capped: the draws the censored data recorded, the model's 3.32% past
	// 48 h at 48 h.
	maxV, mean, warnings := draw(t, `tail = "capped"`)
	if maxV != 172800 || mean < 9000 || mean > 14000 {
		t.Errorf("capped: draws up to %g s, mean %g s; want up to 172800 s, a mean near 11,500 s", maxV, mean)
	}
	if len(warnings) != 1 || !strings.Contains(warnings[0], "is drawn as the censored data were recorded: draws at or past its censoring point 172800 s are 172800 s, 3.32% of the fitted model's mass") {
		t.Errorf("capped: warnings %q", warnings)
	}
	maxV, mean, warnings = draw(t, `tail = "uncensored"`)
	if maxV < 172800 || mean < 100000 {
		t.Errorf("uncensored: draws up to %g s, mean %g s; want the whole model's tail", maxV, mean)
	}
	if len(warnings) != 1 || !strings.Contains(warnings[0], `is drawn whole (tail = "uncensored"), past its censoring point 172800 s too, where the fitted model puts 3.32% of its mass`) {
		t.Errorf("uncensored: warnings %q", warnings)
	}
	fs := memFS{"dir/fit.toml": strings.Replace(lcgRunTimeFit, "TAIL", `tail = "cut"`, 1)}
	if _, err := ParseDistributionIn("Fit(fit.toml,runtime)", DistContext{Dir: "dir", Open: fs.open}); err == nil || !strings.Contains(err.Error(), `tail = "cut": "truncated" (the default: draws below censor_at), "capped" (draws at or past censor_at are censor_at) or "uncensored"`) {
		t.Errorf("a bad tail: %v", err)
	}
}
