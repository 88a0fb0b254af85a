package wdl

import (
	"bytes"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/gmark/gmark/stats"
)

// A fit file written by EncodeFitFile reads back, through LoadFitFile and
// Fit(file,key), as the records and distributions that were written.
func TestFitFileRoundTrip(t *testing.T) {
	var x []float64
	r := stats.NewStream(1, 0, "fitfile")
	w := stats.Spliced{Low: mustEmpirical(t, []float64{0, 1}, []float64{3, 1}), LowShare: 0.02, High: stats.Pow2{Of: stats.Weibull{Shape: 2.5, Scale: 9}}}
	for i := 0; i < 2000; i++ {
		x = append(x, w.Rand(r))
	}
	recs := map[string]stats.FitRecord{}
	for _, fam := range []string{"W", "HGamma2"} {
		f, err := stats.FitFamily(fam, x, stats.FitOptions{Log2: true, CensorAt: 5000})
		if err != nil {
			t.Fatal(err)
		}
		rec := f.Record()
		rec.Field, rec.Source = "runtime", []string{"a.swf"}
		recs[strings.ToLower(fam)] = rec
	}
	h := FitFileHeader{Version: "v1.2.3", Written: time.Date(2024, 5, 6, 7, 8, 9, 0, time.FixedZone("CEST", 7200)),
		Traces: []string{"traces/a.swf", "b.gwf"}, Families: []string{"W", "HGamma2"}, Log2: true, CensorAt: 5000}
	var buf bytes.Buffer
	if err := EncodeFitFile(&buf, h, recs); err != nil {
		t.Fatal(err)
	}
	head := "# gmark fit file, written by gmark v1.2.3 on 2024-05-06T05:08:09Z\n" +
		"# traces: traces/a.swf, b.gwf\n" +
		"# families tried: W, HGamma2; log2: true; censored at 5000\n" +
		"# Read back in a WDL spec with Fit(FILE,KEY) or Model=FILE; the format is in docs/models.md.\n\n[hgamma2]\n"
	if !strings.HasPrefix(buf.String(), head) {
		t.Errorf("the file begins\n%s\nwant\n%s", buf.String()[:min(len(head), buf.Len())], head)
	}
	dir := t.TempDir()
	path := filepath.Join(dir, "fit.toml")
	if err := WriteFitFile(path, h, recs); err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile(path); err != nil || !bytes.Equal(b, buf.Bytes()) {
		t.Errorf("WriteFitFile wrote other bytes than EncodeFitFile (%v)", err)
	}
	back, _, err := LoadFitFile("fit.toml", DistContext{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(back, recs) {
		t.Errorf("read back\n%+v\nwrote\n%+v", back, recs)
	}
	for key, rec := range recs {
		want, err := rec.Distribution()
		if err != nil {
			t.Fatal(err)
		}
		got, err := ParseDistributionIn("Fit(fit.toml,"+key+")", DistContext{Dir: dir})
		if err != nil || got.String() != want.String() {
			t.Errorf("Fit(fit.toml,%s) = %v, %v; want %v", key, got, err, want)
		}
	}
}

func mustEmpirical(t *testing.T, v, w []float64) *stats.Empirical {
	t.Helper()
	e, err := stats.NewEmpirical(v, w)
	if err != nil {
		t.Fatal(err)
	}
	return e
}
