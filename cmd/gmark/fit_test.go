package main

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/BurntSushi/toml"
	"github.com/gmark/gmark/gwa"
	"github.com/gmark/gmark/internal/testkit"
	"github.com/gmark/gmark/stats"
)

func readFitFile(t *testing.T, path string) map[string]stats.FitRecord {
	t.Helper()
	recs := map[string]stats.FitRecord{}
	if _, err := toml.DecodeFile(path, &recs); err != nil {
		t.Fatal(err)
	}
	return recs
}

func TestFitCommand(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "syn.swf"), testkit.SyntheticSWF(4000, 1), 0o644)

	out, stderr, code := run(t, dir, "fit", "syn.swf", "--field", "runtime,interarrival", "--log2", "-o", "fit.toml", "--plot", "plots")
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, out, stderr)
	}
	for _, want := range []string{"syn.swf: runtime", "syn.swf: interarrival", "at or below the floor", "* W ", "best: W", "wrote fit.toml"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	recs := readFitFile(t, filepath.Join(dir, "fit.toml"))
	rt := recs["runtime"]
	if rt.Family != "W" || !rt.Log2 || math.Abs(rt.Params["shape"]-2.5) > 0.15 || math.Abs(rt.Params["scale"]-9) > 0.1 || math.Abs(rt.Below-0.01) > 0.005 {
		t.Errorf("runtime record %+v", rt)
	}
	if iat := recs["interarrival"]; iat.Family != "W" || math.Abs(iat.Params["shape"]-4.25) > 0.25 || math.Abs(iat.Params["scale"]-7.86) > 0.1 {
		t.Errorf("interarrival record %+v", iat)
	}
	for _, f := range []string{"syn_runtime.png", "syn_runtime.svg", "syn_interarrival.png", "syn_interarrival.svg"} {
		if st, err := os.Stat(filepath.Join(dir, "plots", f)); err != nil || st.Size() == 0 {
			t.Errorf("plot %s: %v", f, err)
		}
	}
	// The WDL reads the file back: Fit(file,key) and Model=.
	spec := "200\tswf\tsingle\t1\t*:?\tFit(fit.toml,interarrival)\tRunTime=Fit(fit.toml,runtime)\n100\tswf\tsingle\t1\t*:?\t-\tModel=fit.toml\n"
	os.WriteFile(filepath.Join(dir, "use.wdl"), []byte(spec), 0o644)
	if out, stderr, code := run(t, dir, "generate", "use.wdl", "-o", "gen"); code != 0 {
		t.Fatalf("generate with the fit file: exit %d\n%s%s", code, out, stderr)
	}
	// JSON, censoring, a family list, and two traces: the average system.
	writeFile(t, filepath.Join(dir, "syn2.swf"), testkit.SyntheticSWF(3000, 1), 0o644)
	out, stderr, code = run(t, dir, "fit", "syn.swf", "syn2.swf", "--log2", "--families", "W,LogNorm,gamma", "--censor-at", "2000", "--json")
	if code != 0 {
		t.Fatalf("json: exit %d %s", code, stderr)
	}
	var js struct {
		Traces []struct {
			Fields map[string]struct {
				Censored int `json:"censored"`
				Fits     []struct {
					Family string             `json:"family"`
					Params map[string]float64 `json:"params"`
					Best   bool               `json:"best"`
				} `json:"fits"`
			} `json:"fields"`
		} `json:"traces"`
		Selection map[string]stats.FitRecord `json:"average_system"`
	}
	if err := json.Unmarshal([]byte(out), &js); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if len(js.Traces) != 2 || len(js.Traces[0].Fields["runtime"].Fits) != 3 || js.Traces[0].Fields["runtime"].Censored == 0 {
		t.Errorf("json: %+v", js)
	}
	if s := js.Selection["runtime"]; s.Family != "W" || s.Traces != 2 {
		t.Errorf("average system %+v", s)
	}
	// The bag-of-tasks fields and the peak-hour filter run.
	if out, stderr, code := run(t, dir, "fit", "syn.swf", "--field", "bot-size,bot-interarrival,bot-art", "--peak", "8-17", "--log2", "--families", "W,N"); code != 0 || !strings.Contains(out, "peak hours 8-17") {
		t.Errorf("bot fields: exit %d\n%s%s", code, out, stderr)
	}
}

func TestFitCommandErrors(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "syn.swf"), testkit.SyntheticSWF(200, 1), 0o644)
	os.WriteFile(filepath.Join(dir, "exists.toml"), []byte("x"), 0o644)
	os.WriteFile(filepath.Join(dir, "junk.swf"), []byte("this is not a trace\n"), 0o644)
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"fit"}, "fit takes one or more trace files"},
		{[]string{"fit", "syn.swf", "--field", "height"}, `--field "height": not one of`},
		{[]string{"fit", "syn.swf", "--families", "W,Cauchy"}, `unknown family "Cauchy"`},
		{[]string{"fit", "syn.swf", "--censor-at", "-5"}, "--censor-at"},
		{[]string{"fit", "syn.swf", "--peak", "17-8"}, "--peak"},
		{[]string{"fit", "syn.swf", "-o", "exists.toml"}, "exists; use --force"},
		{[]string{"fit", "nosuch.swf"}, "no such file"},
		{[]string{"fit", "junk.swf"}, `junk.swf:1: field 1: "this" is not a number; no line is a valid record (1 malformed)`},
		{[]string{"fit", "junk.swf", "--strict"}, "is not a number"},
		{[]string{"fit", "syn.swf", "--field", "memory"}, "nothing to fit"},
	}
	for _, c := range cases {
		_, stderr, code := run(t, dir, c.args...)
		if code != 2 || !strings.Contains(stderr, c.want) {
			t.Errorf("%v: exit %d, stderr %q; want 2 and %q", c.args, code, stderr, c.want)
		}
	}
}

// Fit → generate → refit on the LCG trace: fit its run times (censored at
// the 48 h wall-time limit) and inter-arrival times on log2, generate four
// times as many jobs from the fit file through the WDL, write them as SWF,
// fit them again: every refitted parameter lies in the 95% confidence
// interval (±1.96 standard errors) of the first fit. The run times are
// drawn capped at the censoring point (tail = "capped"), censored as the
// trace's were, so that the refit censored at 48 h sees the same data (the
// default, drawing below the point, leaves the model's mass past it out).
func TestFitRoundTripLCG(t *testing.T) {
	t.Parallel()
	lcg := testkit.LCG(t)
	if testing.Short() {
		t.Skip("generates and refits 750,000 jobs")
	}
	dir := t.TempDir()
	fitArgs := []string{"--field", "runtime,interarrival", "--log2", "--censor-at", "48h", "-q"}
	if out, stderr, code := run(t, dir, append([]string{"fit", lcg, "-o", "fit.toml"}, fitArgs...)...); code != 0 {
		t.Fatalf("fit LCG: exit %d\n%s%s", code, out, stderr)
	}
	first := readFitFile(t, filepath.Join(dir, "fit.toml"))
	ft, err := os.ReadFile(filepath.Join(dir, "fit.toml"))
	if err != nil || !strings.Contains(string(ft), `tail = "truncated"`) {
		t.Fatalf("the fit file does not say how its censored run times are drawn: %v\n%s", err, ft)
	}
	os.WriteFile(filepath.Join(dir, "fit.toml"), []byte(strings.ReplaceAll(string(ft), `tail = "truncated"`, `tail = "capped"`)), 0o644)
	n := 4 * first["runtime"].N
	spec := fmt.Sprintf("%d\tswf\tsingle\t1\t*:?\tFit(fit.toml,interarrival)\tRunTime=Fit(fit.toml,runtime)\n", n)
	os.WriteFile(filepath.Join(dir, "rt.wdl"), []byte(spec), 0o644)
	if out, stderr, code := run(t, dir, "generate", "rt.wdl", "-o", "gen", "--format", "swf", "-q"); code != 0 {
		t.Fatalf("generate: exit %d\n%s%s", code, out, stderr)
	}
	for _, field := range []string{"runtime", "interarrival"} {
		fam := first[field].Family
		if out, stderr, code := run(t, dir, append([]string{"fit", "gen/workload.swf", "--families", fam, "-o", "refit-" + field + ".toml"}, fitArgs...)...); code != 0 {
			t.Fatalf("refit: exit %d\n%s%s", code, out, stderr)
		}
		again := readFitFile(t, filepath.Join(dir, "refit-"+field+".toml"))[field]
		for name, v := range first[field].Params {
			se := first[field].StdErr[name]
			w := again.Params[name]
			t.Logf("%s %s %s: fit %.6g ± %.2g, refit %.6g (%+.2f standard errors)", field, fam, name, v, se, w, (w-v)/se)
			if !(se > 0) || math.Abs(w-v) > 1.96*se {
				t.Errorf("%s %s: refit %.6g outside the 95%% interval %.6g ± %.3g", field, name, w, v, 1.96*se)
			}
		}
		if b1, b2 := first[field].Below, again.Below; field == "interarrival" && math.Abs(b1-b2) > 0.01 {
			t.Errorf("%s: share below the floor %.4f, refit %.4f", field, b1, b2)
		}
	}
}

// wl:bot through the whole pipeline: generated as SWF by gmark generate,
// read back by gwa and its bags re-extracted at Δ = 120 s (as gmark trace
// bots does), the bag sizes and the inter-arrival times between bags follow
// the distributions the model generated them from (Kolmogorov–Smirnov
// distance below the critical value at 1%).
func TestBoTModelRoundTrip(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	const arrivals = 20000
	spec := fmt.Sprintf("%d\twl:bot\tsingle\t1\t*:?\t-\tDailyCycle=off\n", arrivals)
	os.WriteFile(filepath.Join(dir, "bot.wdl"), []byte(spec), 0o644)
	if out, stderr, code := run(t, dir, "generate", "bot.wdl", "-o", "gen", "--format", "swf", "-q"); code != 0 {
		t.Fatalf("generate: exit %d\n%s%s", code, out, stderr)
	}
	r, err := gwa.Open(filepath.Join(dir, "gen", "workload.swf"), gwa.ReadOptions{Strict: true})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	var sizes, starts []float64
	batches := 0
	x := gwa.NewBatchExtractor(gwa.DefaultDelta, func(b *gwa.Batch) {
		sizes = append(sizes, float64(b.Size))
		starts = append(starts, b.Start)
		if b.Size >= 2 {
			batches++
		}
	})
	for {
		rec, err := r.Next()
		if err != nil {
			break
		}
		x.Add(&rec)
	}
	x.Close()
	if len(sizes) != arrivals {
		t.Fatalf("re-extracted %d runs (bags and single jobs), generated %d arrivals", len(sizes), arrivals)
	}
	size := stats.Pow2{Of: stats.Weibull{Shape: 1.76, Scale: 2.11}}
	d := 0.0
	slices.Sort(sizes)
	for i := 0; i < len(sizes); {
		j := i
		for j < len(sizes) && sizes[j] == sizes[i] {
			j++
		}
		n := float64(len(sizes))
		d = math.Max(d, math.Abs(float64(i)/n-size.CDF(sizes[i]-0.5)))
		d = math.Max(d, math.Abs(float64(j)/n-size.CDF(sizes[i]+0.5)))
		i = j
	}
	crit := stats.KSCritical(0.01, len(sizes))
	t.Logf("bag sizes: D = %.4f (critical %.4f at 1%%)", d, crit)
	if d > crit {
		t.Errorf("bag sizes: D = %.4f > %.4f", d, crit)
	}
	slices.Sort(starts)
	var gapsv []float64
	for i := 1; i < len(starts); i++ {
		gapsv = append(gapsv, starts[i]-starts[i-1])
	}
	slices.Sort(gapsv)
	iat := stats.Pow2{Of: stats.Weibull{Shape: 4.25, Scale: 7.86}}
	di := stats.KSStatistic(gapsv, iat.CDF)
	crit = stats.KSCritical(0.01, len(gapsv))
	t.Logf("inter-arrival times: D = %.4f (critical %.4f at 1%%)", di, crit)
	if di > crit {
		t.Errorf("inter-arrival times: D = %.4f > %.4f", di, crit)
	}
	// gmark trace bots finds the same bags of 2 or more.
	out, stderr, code := run(t, dir, "trace", "bots", "gen/workload.swf", "--json")
	if code != 0 {
		t.Fatalf("trace bots: exit %d %s", code, stderr)
	}
	var tb struct {
		BoTs []struct {
			Batches int `json:"batches"`
		} `json:"bots"`
	}
	if err := json.Unmarshal([]byte(out), &tb); err != nil || len(tb.BoTs) != 1 || tb.BoTs[0].Batches != batches {
		t.Errorf("trace bots: %v %+v, want %d batches", err, tb, batches)
	}
	checkBoTARTRefit(t, dir, batches)
}

// checkBoTARTRefit refits the bags' mean run times of dir/gen/workload.swf
// with gmark fit --field bot-art --log2 --no-floor: μ and σ lie in the 95%
// confidence intervals of the model's ART, N(μ = 6.1, σ = 2.73) on log2 s.
func checkBoTARTRefit(t *testing.T, dir string, bags int) {
	t.Helper()
	if out, stderr, code := run(t, dir, "fit", "gen/workload.swf", "--field", "bot-art", "--log2", "--no-floor", "--families", "N", "-o", "art.toml", "-q"); code != 0 {
		t.Fatalf("fit bot-art: exit %d\n%s%s", code, out, stderr)
	}
	art := readFitFile(t, filepath.Join(dir, "art.toml"))["bot-art"]
	n := float64(bags)
	for _, c := range []struct {
		name      string
		want, tol float64
	}{
		{"mu", 6.1, 1.96 * 2.73 / math.Sqrt(n)},
		{"sigma", 2.73, 1.96 * 2.73 / math.Sqrt(2*n)},
	} {
		got := art.Params[c.name]
		t.Logf("bot-art %s: refit %.4f, model %.4f ± %.4f", c.name, got, c.want, c.tol)
		if math.Abs(got-c.want) > c.tol {
			t.Errorf("bot-art %s: refit %.4f, want %.4f ± %.4f", c.name, got, c.want, c.tol)
		}
	}
}
