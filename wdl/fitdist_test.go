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
		{"Fit(bad.toml,runtime)", "w.wdl:1:26: Fit: bad.toml: not a fit file"},
		{"Fit(fit.toml)", "w.wdl:1:22: Fit takes a fit file and a key"},
		{"Pow2()", "w.wdl:1:22: Pow2 takes one distribution"},
		{"Pow2(W(0,1))", "w.wdl:1:27: Pow2: W: shape must be > 0"},
		{"HGamma2(1,2,3)", "w.wdl:1:22: HGamma2 takes 5 parameters"},
		{"HGamma2(1.5,2,3,4,5)", "w.wdl:1:22: HGamma: p must be a probability"},
		{"HGamma2(0.5,2,x,4,5)", "w.wdl:1:36: HGamma2: \"x\" is not a number"},
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
