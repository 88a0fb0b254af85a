package generator

import (
	"math"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"sort"
	"testing"

	"github.com/gmark/gmark/gwa"
	"github.com/gmark/gmark/stats"
	"gonum.org/v1/gonum/stat/distuv"
)

// botTraceFields generates a wl:bot unit of n arrivals, writes it as the SWF
// trace `gmark generate --format swf` writes, and reads the bag fields back
// as `gmark fit` does (gwa.ReadFields, Δ = 120 s).
func botTraceFields(t *testing.T, n int, other string, seed uint64) map[string][]float64 {
	t.Helper()
	g, err := New(modelSpec(t, n, "bot", "-", other), seed)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	sink, err := gwa.NewTraceSink(dir, []string{"swf"}, "wl:bot round trip", 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := g.Generate(sink.Write); err != nil {
		t.Fatal(err)
	}
	if err := sink.Close(); err != nil {
		t.Fatal(err)
	}
	r, err := gwa.Open(filepath.Join(dir, "workload.swf"), gwa.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	data, err := gwa.ReadFields(r, gwa.FieldOptions{Fields: []string{"bot-size", "bot-art", "bot-rtv"}, Delta: gwa.DefaultDelta}, nil)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// truncatedNormal is the mean and standard deviation of N(mu, sigma) given
// a value above lo.
func truncatedNormal(mu, sigma, lo float64) (float64, float64) {
	if math.IsInf(lo, -1) {
		return mu, sigma
	}
	a := (lo - mu) / sigma
	std := distuv.UnitNormal
	lambda := std.Prob(a) / std.Survival(a)
	return mu + sigma*lambda, sigma * math.Sqrt(1+a*lambda-lambda*lambda)
}

// The bag-of-tasks model round-trips: a generated trace refitted with `gmark
// fit --field bot-art --log2` (stats.FitAll on gwa.ReadFields, as the command
// does) gives back the model's ART, N(μ = 6.1, σ = 2.73) on log2 seconds:
// each estimate within its 95% confidence interval (μ ± 1.96 σ/√n, σ ±
// 1.96 σ/√(2n)). With the command's default floor (log2 values ≤ 0, bags of
// ART ≤ 1 s, set apart) the normal is fitted to the rest, so the target is
// the normal truncated there; with --no-floor it is the model's own.
func TestBoTARTRoundTrip(t *testing.T) {
	data := botTraceFields(t, 23000, "", 13)
	art := data["bot-art"]
	if len(art) < 20000 {
		t.Fatalf("%d bags, want at least 20000", len(art))
	}
	mu, sigma := 6.1, 2.73 // botDefaultART, written out: the test checks the model
	for _, c := range []struct {
		name string
		opts stats.FitOptions
		lo   float64 // the floor on log2
	}{
		{"--log2 --no-floor", stats.FitOptions{Log2: true, NoFloor: true}, math.Inf(-1)},
		{"--log2", stats.FitOptions{Log2: true}, 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			tf := gwa.FitTrace("workload.swf", &gwa.Header{}, data, gwa.FitOptions{
				FieldOptions: gwa.FieldOptions{Fields: []string{"bot-art"}}, Families: []string{"N"}, Stats: c.opts})
			if err := tf.Errs["bot-art"]; err != nil {
				t.Fatal(err)
			}
			f := tf.Fits["bot-art"][0]
			gotMu, _ := f.Param("mu")
			gotSigma, _ := f.Param("sigma")
			wantMu, wantSigma := truncatedNormal(mu, sigma, c.lo)
			n := float64(f.N)
			ciMu, ciSigma := 1.96*wantSigma/math.Sqrt(n), 1.96*wantSigma/math.Sqrt(2*n)
			t.Logf("%d bags fitted (%d set apart): N(μ=%.4f, σ=%.4f); model %.4f ± %.4f, %.4f ± %.4f",
				f.N, f.Below, gotMu, gotSigma, wantMu, ciMu, wantSigma, ciSigma)
			if math.Abs(gotMu-wantMu) > ciMu {
				t.Errorf("refitted μ = %.4f, want %.4f ± %.4f", gotMu, wantMu, ciMu)
			}
			if math.Abs(gotSigma-wantSigma) > ciSigma {
				t.Errorf("refitted σ = %.4f, want %.4f ± %.4f", gotSigma, wantSigma, ciSigma)
			}
		})
	}
}

// The bags' run-time variances (gmark fit's bot-rtv) follow the model's
// RTV, 2^W(2.05, 12.25) s², except where a bag cannot have it: n positive
// run times of mean ART have a variance below (n−1)·ART², and the model
// draws ART and RTV independently, so a bag whose RTV is beyond
// botMaxCoV²·(n−1)·ART² gets that instead. Given each bag's size and ART
// (which the trace records), its log2 variance is min(W, cap): the test
// compares the bags with the average of those distributions by
// Kolmogorov–Smirnov (conservative for independent, not identically
// distributed values), and logs the share of bags the cap cuts.
func TestBoTRTVRoundTrip(t *testing.T) {
	data := botTraceFields(t, 23000, "", 17)
	size, art, rtv := data["bot-size"], data["bot-art"], data["bot-rtv"]
	if len(art) != len(size) || len(rtv) != len(size) || len(size) < 20000 {
		t.Fatalf("%d sizes, %d ARTs, %d RTVs", len(size), len(art), len(rtv))
	}
	w := stats.Weibull{Shape: 2.05, Scale: 12.25}
	caps := make([]float64, len(size))
	y := make([]float64, len(size))
	cut := 0.0
	for b := range size {
		caps[b] = math.Log2(botMaxCoV * botMaxCoV * (size[b] - 1) * art[b] * art[b])
		y[b] = math.Log2(rtv[b])
		cut += 1 - w.CDF(caps[b])
	}
	slices.Sort(caps)
	slices.Sort(y)
	cdf := func(x float64) float64 {
		below := float64(sort.SearchFloat64s(caps, math.Nextafter(x, math.Inf(1)))) // caps ≤ x
		return (below + w.CDF(x)*(float64(len(caps))-below)) / float64(len(caps))
	}
	d := stats.KSStatistic(y, cdf)
	crit := stats.KSCritical(0.01, len(y))
	t.Logf("%d bags; the cap cuts %.1f%% of the model's RTV draws; D = %.4f (critical %.4f)", len(y), 100*cut/float64(len(y)), d, crit)
	if d > crit {
		t.Errorf("bag run-time variances: D = %.4f > %.4f", d, crit)
	}
}

// bagRunTimes gives every bag exactly its mean and (population) variance,
// the variance capped at botMaxCoV²·(n−1)·mean², no run time negative, on
// both shapes (normal when positive, else log-normal). Near the cap the
// shortest tasks of a log-normal bag can underflow to 0 s; fillModelJob
// makes them 1 ms, like every model run time below it.
func TestBagRunTimes(t *testing.T) {
	p := &botPlan{maxRunTime: botMaxRunTime}
	r := rand.New(rand.NewPCG(1, 2))
	for _, c := range []struct {
		name     string
		n, reps  int
		art, rtv float64
	}{
		{"pair, normal", 2, 20, 100, 2500},
		{"pair, at the limit", 2, 20, 10, 100},
		{"pair, beyond the limit", 2, 20, 10, 1e6},
		{"three, log-normal", 3, 20, 1, 1.8},
		{"small bag, tiny ART", 5, 20, 0.01, 0.5},
		{"no variance", 7, 20, 42, 0},
		{"variance not finite", 4, 20, 42, math.Inf(1)},
		{"large bag", 1000, 20, 60, 3600},
		{"large bag, wide", 1000, 20, 60, 3600 * 500},
		{"huge bag", 100000, 2, 3, 9e4},
	} {
		t.Run(c.name, func(t *testing.T) {
			for range c.reps {
				z := make([]float64, c.n)
				for k := range z {
					z[k] = r.NormFloat64()
				}
				rt := make([]float64, c.n)
				p.bagRunTimes(rt, z, c.art, c.rtv)
				mean, v := 0.0, 0.0
				for _, x := range rt {
					if !(x >= 0) {
						t.Fatalf("run time %g", x)
					}
					mean += x
				}
				mean /= float64(c.n)
				for _, x := range rt {
					v += (x - mean) * (x - mean)
				}
				v /= float64(c.n)
				want := math.Min(c.rtv, botMaxCoV*botMaxCoV*float64(c.n-1)*c.art*c.art)
				if math.Abs(mean-c.art) > 1e-9*c.art {
					t.Fatalf("mean %g, want %g", mean, c.art)
				}
				if math.Abs(v-want) > 1e-6*want+1e-12 {
					t.Fatalf("variance %g, want %g", v, want)
				}
			}
		})
	}
	// Degenerate draws: equal normals (no spread to scale) or an RTV that is
	// not a number give every task the ART.
	for _, z := range [][]float64{{0.3, 0.3, 0.3}, {-1, 1}} {
		rtv := 100.0
		if len(z) == 2 {
			rtv = math.NaN()
		}
		rt := make([]float64, len(z))
		p.bagRunTimes(rt, z, 7, rtv)
		for _, x := range rt {
			if x != 7 {
				t.Errorf("z %v, RTV %g: run times %v, want all 7", z, rtv, rt)
				break
			}
		}
	}
	// MaxRunTime cuts the longest tasks (the mean then falls short).
	p.maxRunTime = 100
	rt := make([]float64, 4)
	p.bagRunTimes(rt, []float64{-1, 0, 0, 5}, 90, 1e6)
	if m := slices.Max(rt); m != 100 {
		t.Errorf("longest task %g, want MaxRunTime 100", m)
	}
}
