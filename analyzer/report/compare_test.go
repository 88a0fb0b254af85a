package report_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/gmark/gmark/analyzer/metrics"
	"github.com/gmark/gmark/analyzer/report"
	"github.com/gmark/gmark/analyzer/report/reporttest"
	"github.com/gmark/gmark/analyzer/store"
)

// compareStores writes two stores: a.db with runs of policies WF (seeds 1
// and 2) and CF (seed 1), b.db with a run of CF (seed 2) and a run "wf1"
// again (another run of the same id).
func compareStores(t *testing.T) (a, b string) {
	dir := t.TempDir()
	a, b = filepath.Join(dir, "a.db"), filepath.Join(dir, "b.db")
	jobs, constant := reporttest.Jobs, reporttest.Constant
	wait := func(k float64) func(int) float64 { return func(i int) float64 { return k * float64(i%7) } }
	reporttest.WriteRuns(t, a,
		reporttest.Run{ID: "wf1", Ended: true, TargetConfig: `{"processors":64,"policy":"WF","seed":1}`, Jobs: jobs(30, store.Succeeded, wait(10), constant(60), "sser", "smpi")},
		reporttest.Run{ID: "wf2", Ended: true, TargetConfig: `{"processors":64,"policy":"WF","seed":2}`, Jobs: jobs(30, store.Succeeded, wait(14), constant(50), "sser", "smpi")},
		reporttest.Run{ID: "cf1", Ended: true, TargetConfig: `{"processors":64,"policy":"CF","seed":1}`, Jobs: jobs(30, store.Succeeded, wait(3), func(i int) float64 { return float64(20 + i) })},
	)
	reporttest.WriteRuns(t, b,
		reporttest.Run{ID: "cf2", Ended: true, TargetConfig: `{"processors":64,"policy":"CF","seed":2,"nested":{"scan":"1m"}}`, Jobs: jobs(20, store.Succeeded, wait(4), constant(30))},
		reporttest.Run{ID: "wf1", Ended: true, TargetConfig: `{"processors":32,"policy":"WF","seed":3}`, Jobs: jobs(10, store.Failed, wait(1), constant(5))},
	)
	return a, b
}

func single(t *testing.T, db, run string) *metrics.RunMetrics {
	t.Helper()
	rep, err := report.Build(context.Background(), db, []string{run}, report.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return rep.Runs[0].Metrics
}

// Grouped by policy over two stores: the groups in order of first
// appearance, each with its runs; a group of several runs has the mean of
// their single-run values with a t interval over them; the runs of one id
// in two stores are told apart by their store.
func TestCompareByPolicy(t *testing.T) {
	a, b := compareStores(t)
	c, err := report.BuildComparison(context.Background(), report.CompareOptions{By: "policy", DBs: []string{a, b}})
	if err != nil {
		t.Fatal(err)
	}
	var keys []string
	for _, g := range c.Groups {
		keys = append(keys, g.Key+":"+strings.Join(g.Runs, ","))
	}
	want := []string{"WF:" + a + ":wf1,wf2," + b + ":wf1", "CF:cf1,cf2"}
	if !slices.Equal(keys, want) {
		t.Fatalf("groups %q, want %q", keys, want)
	}
	if c.Groups[0].Color != "#0072b2" || c.Groups[1].Color != "#d55e00" {
		t.Errorf("colours %s %s, want Okabe–Ito blue and vermillion", c.Groups[0].Color, c.Groups[1].Color)
	}
	cf := c.Group("CF")
	m1, m2 := single(t, a, "cf1"), single(t, b, "cf2")
	for _, tc := range []struct {
		metric string
		x, y   float64
	}{
		{"mean-wait", m1.Wait.Mean, m2.Wait.Mean},
		{"p95-wait", m1.Wait.P95, m2.Wait.P95},
		{"mean-response", m1.Response.Mean, m2.Response.Mean},
		{"mean-bsld", m1.BSlowdown.Mean, m2.BSlowdown.Mean},
		{"utilization", m1.Utilization, m2.Utilization},
		{"jobs", 30, 20},
	} {
		v := cf.Value(tc.metric)
		mean := (tc.x + tc.y) / 2
		// t(0.975, 1) = 12.706; s = |x − y| / √2; half-width t·s/√2.
		half := 12.7062047 * math.Abs(tc.x-tc.y) / 2
		if v.Runs != 2 || math.Abs(v.Value-mean) > 1e-9*max(1, math.Abs(mean)) ||
			math.Abs(v.CI[0]-(mean-half)) > 1e-6*max(1, half) || math.Abs(v.CI[1]-(mean+half)) > 1e-6*max(1, half) {
			t.Errorf("CF %s = %+v, want mean %g ± %g over 2 runs", tc.metric, v, mean, half)
		}
	}
	if v := c.Group("WF").Value("success-rate"); v.Runs != 3 || math.Abs(v.Value-2.0/3) > 1e-12 {
		t.Errorf("WF success rate %+v, want the mean of 1, 1 and 0", v)
	}
}

// Grouped by run (the default), each group is one run, and its numbers are
// that run's single-run report's, with the run's own intervals.
func TestCompareByRunEqualsSingleReports(t *testing.T) {
	a, _ := compareStores(t)
	c, err := report.BuildComparison(context.Background(), report.CompareOptions{DBs: []string{a}})
	if err != nil {
		t.Fatal(err)
	}
	if c.By != "run" || len(c.Groups) != 3 {
		t.Fatalf("by %s, %d groups", c.By, len(c.Groups))
	}
	for _, g := range c.Groups {
		m := single(t, a, g.Key)
		for _, tc := range []struct {
			metric string
			want   float64
			ci     [2]float64
		}{
			{"mean-wait", m.Wait.Mean, m.Wait.MeanCI}, {"p50-wait", m.Wait.P50, m.Wait.MedianCI},
			{"mean-response", m.Response.Mean, m.Response.MeanCI}, {"mean-bsld", m.BSlowdown.Mean, m.BSlowdown.MeanCI},
			{"makespan", m.Makespan, [2]float64{math.NaN(), math.NaN()}}, {"throughput", m.Throughput, [2]float64{math.NaN(), math.NaN()}},
		} {
			v := g.Value(tc.metric)
			if v.Value != tc.want || v.Runs != 1 || !(v.CI == tc.ci || math.IsNaN(tc.ci[0]) && math.IsNaN(v.CI[0])) {
				t.Errorf("run %s, %s: %+v, want %g %v", g.Key, tc.metric, v, tc.want, tc.ci)
			}
		}
	}
}

// Bad input is a *StoreError, found before the work: no store, a store
// that is not there, a run in none of the stores, a field no run has (the
// message lists those they have), a format unknown.
func TestCompareRefusals(t *testing.T) {
	a, b := compareStores(t)
	empty := filepath.Join(t.TempDir(), "empty.db")
	reporttest.WriteRuns(t, empty)
	for _, tc := range []struct {
		name string
		o    report.CompareOptions
		want string
	}{
		{"no store", report.CompareOptions{Format: "text"}, "no results store"},
		{"missing store", report.CompareOptions{DBs: []string{a, a + ".nope"}, Format: "text"}, ".nope"},
		{"empty store", report.CompareOptions{DBs: []string{empty}, Format: "text"}, "holds no run"},
		{"unknown run", report.CompareOptions{DBs: []string{a, b}, Runs: []string{"cf1", "zz"}, Format: "text"}, "run zz is in none"},
		{"unknown field", report.CompareOptions{DBs: []string{a}, By: "colour", Format: "text"}, "policy"},
		{"bad format", report.CompareOptions{DBs: []string{a}, Format: "pdf"}, "--format"},
		{"a file as -o", report.CompareOptions{DBs: []string{a}, Format: "html", Dir: a}, "not a directory"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := report.WriteComparison(context.Background(), &bytes.Buffer{}, tc.o)
			var se *report.StoreError
			if !errors.As(err, &se) || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v, want a StoreError with %q", err, tc.want)
			}
		})
	}
}

// Fields: a key nested in the target configuration by its last name and
// by its path; a run that lacks the field in a group "(none)"; --run picks
// runs across stores; the same store named twice counts once.
func TestCompareFields(t *testing.T) {
	a, b := compareStores(t)
	for _, tc := range []struct {
		by   string
		dbs  []string
		runs []string
		want []string
	}{
		{"scan", []string{a, b}, nil, []string{"(none):wf1,wf2,cf1,wf1", "1m:cf2"}},
		{"nested.scan", []string{b}, nil, []string{"1m:cf2", "(none):wf1"}},
		{"processors", []string{a, b}, []string{"cf2", "wf1"}, []string{"64:" + a + ":wf1,cf2", "32:" + b + ":wf1"}},
		{"target", []string{a, a}, nil, []string{"local:wf1,wf2,cf1"}},
		{"scenario", []string{a}, []string{"cf1"}, []string{"s:cf1"}},
		{"seed", []string{a}, nil, []string{"1:wf1,cf1", "2:wf2"}},
	} {
		c, err := report.BuildComparison(context.Background(), report.CompareOptions{By: tc.by, DBs: tc.dbs, Runs: tc.runs})
		if err != nil {
			t.Fatalf("%s: %v", tc.by, err)
		}
		var got []string
		for _, g := range c.Groups {
			got = append(got, g.Key+":"+strings.Join(g.Runs, ","))
		}
		if tc.by == "scan" { // the names of the runs of id wf1 carry their store
			for i := range got {
				got[i] = strings.NewReplacer(a+":", "", b+":", "").Replace(got[i])
			}
		}
		if !slices.Equal(got, tc.want) {
			t.Errorf("by %s: %q, want %q", tc.by, got, tc.want)
		}
	}
}

// Grouped by revision (a before/after pair of builds, in two stores): the
// first 12 digits of the revision, "+modified" for a tree with changes,
// the version when the revision is unknown.
func TestCompareByRevision(t *testing.T) {
	dir := t.TempDir()
	jobs, constant := reporttest.Jobs, reporttest.Constant
	rev := func(r string, modified *bool) func(*store.Provenance) {
		return func(p *store.Provenance) { p.GmarkVersion, p.GmarkRevision, p.GmarkModified = "v1.2.0", r, modified }
	}
	yes, no := true, false
	before, after := filepath.Join(dir, "before.db"), filepath.Join(dir, "after.db")
	reporttest.WriteRuns(t, before,
		reporttest.Run{ID: "b1", Ended: true, Jobs: jobs(5, store.Succeeded, constant(1), constant(2)), Provenance: rev("0123456789abcdef0123456789abcdef01234567", &no)},
		reporttest.Run{ID: "b2", Ended: true, Jobs: jobs(5, store.Succeeded, constant(2), constant(2)), Provenance: rev("0123456789abcdef0123456789abcdef01234567", nil)},
		reporttest.Run{ID: "old", Ended: true, Jobs: jobs(5, store.Succeeded, constant(2), constant(2)), Provenance: rev("", nil)},
	)
	reporttest.WriteRuns(t, after,
		reporttest.Run{ID: "a1", Ended: true, Jobs: jobs(5, store.Succeeded, constant(3), constant(2)), Provenance: rev("fedcba9876543210fedcba9876543210fedcba98", &yes)},
	)
	c, err := report.BuildComparison(context.Background(), report.CompareOptions{By: "revision", DBs: []string{before, after}})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, g := range c.Groups {
		got = append(got, g.Key+":"+strings.Join(g.Runs, ","))
	}
	want := []string{"0123456789ab:b1,b2", "unknown (version v1.2.0):old", "fedcba987654+modified:a1"}
	if !slices.Equal(got, want) {
		t.Errorf("groups %q, want %q", got, want)
	}
	if v := c.Group("0123456789ab").Value("mean-wait"); v.Runs != 2 || math.Abs(v.Value-1.5) > 0.01 {
		t.Errorf("mean wait of the first revision %+v, want 1.5 s over 2 runs", v)
	}
}

// Every figure of a comparison passes the figure checks, for groups of
// several runs, of one run, of runs with no job started, of one job; the
// figures of metric against seed are drawn when a group's runs differ in
// seed.
func TestCompareFigureChecks(t *testing.T) {
	a, b := compareStores(t)
	dir := t.TempDir()
	jobs, constant := reporttest.Jobs, reporttest.Constant
	odd := filepath.Join(dir, "odd.db")
	reporttest.WriteRuns(t, odd,
		reporttest.Run{ID: "none", Ended: true, Jobs: jobs(5, store.NeverStarted, nil, nil)},
		reporttest.Run{ID: "one", Ended: true, Jobs: jobs(1, store.Succeeded, constant(0), constant(3))},
	)
	for _, tc := range []struct {
		name, by string
		dbs      []string
		drawn    []string
	}{
		{"by policy", "policy", []string{a, b}, []string{"cmp_cdf_wait", "cmp_box_bsld", "cmp_wait_vs_seed", "cmp_bsld_vs_seed"}},
		{"by run", "run", []string{a}, []string{"cmp_cdf_response", "cmp_box_wait"}},
		{"degenerate", "run", []string{odd}, []string{"cmp_cdf_wait"}},
	} {
		c, err := report.BuildComparison(context.Background(), report.CompareOptions{By: tc.by, DBs: tc.dbs})
		if err != nil {
			t.Fatal(err)
		}
		names, drawings, errs := report.CompareDrawings(c)
		for i, d := range drawings {
			if errs[i] != nil {
				if slices.Contains(tc.drawn, names[i]) {
					t.Errorf("%s: %s not drawn: %v", tc.name, names[i], errs[i])
				}
				continue
			}
			for _, p := range d.Problems() {
				t.Errorf("%s, %s: %s", tc.name, names[i], p)
			}
		}
		for _, n := range tc.drawn {
			if !slices.Contains(names, n) {
				t.Errorf("%s: no figure %s among %q", tc.name, n, names)
			}
		}
		if tc.name == "by run" && slices.ContainsFunc(names, func(n string) bool { return strings.HasSuffix(n, "_vs_seed") }) {
			t.Errorf("by run: a figure against the seed, with one run per group: %q", names)
		}
	}
}

// The text, JSON, CSV and HTML forms of one comparison: the groups, their
// values, and the page's figures.
func TestCompareOutputs(t *testing.T) {
	a, b := compareStores(t)
	o := report.CompareOptions{By: "policy", DBs: []string{a, b}}
	var text, js, csvb, html bytes.Buffer
	for f, w := range map[string]*bytes.Buffer{"text": &text, "json": &js, "csv": &csvb} {
		o.Format = f
		if err := report.WriteComparison(context.Background(), w, o); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
	}
	if !regexpMatch(`(?m)^WF +3 `, text.String()) || !regexpMatch(`(?m)^CF +2 `, text.String()) {
		t.Errorf("text:\n%s", text.String())
	}
	var got struct {
		By     string
		Groups []struct {
			Key    string
			Runs   []string
			Values []struct {
				Metric string
				Value  *float64
				CI     [2]*float64
			}
		}
	}
	if err := json.Unmarshal(js.Bytes(), &got); err != nil || got.By != "policy" || len(got.Groups) != 2 || len(got.Groups[1].Runs) != 2 {
		t.Fatalf("JSON (%v):\n%s", err, js.String())
	}
	if n := strings.Count(csvb.String(), "\ngroup,CF,CF,"); n != 13 {
		t.Errorf("%d CSV rows of group CF, want 13:\n%s", n, csvb.String())
	}
	o.Format, o.Dir = "html", filepath.Join(t.TempDir(), "cmp")
	if err := report.WriteComparison(context.Background(), &html, o); err != nil {
		t.Fatal(err)
	}
	page, err := os.ReadFile(filepath.Join(o.Dir, "index.html"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"gmark comparison by policy", `background: #0072b2`, `src="figures/cmp_cdf_wait.png"`, `src="figures/cmp_wait_vs_seed.png"`} {
		if !strings.Contains(string(page), want) {
			t.Errorf("the page lacks %q", want)
		}
	}
	for _, f := range []string{"cmp_cdf_wait.svg", "cmp_box_wait.png"} {
		if fi, err := os.Stat(filepath.Join(o.Dir, "figures", f)); err != nil || fi.Size() == 0 {
			t.Errorf("%s: %v", f, err)
		}
	}
}

func regexpMatch(re, s string) bool { return regexp.MustCompile(re).MatchString(s) }

// flatJSON, which reads the fields of a run's recorded JSON (target
// configuration, scheduler parameters, settings), takes any input without
// panicking, and gives a field for each leaf of an object.
func FuzzCompareFields(f *testing.F) {
	for _, s := range []string{`{"policy":"CF","seed":1,"core":{"policy":"WF","w":[1,2]}}`, `[]`, `null`, `"x"`, `{"a":{"b":{"c":null}}}`, `{`, ``} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		m := report.FlatJSON(s)
		var v any
		if json.Unmarshal([]byte(s), &v) != nil {
			if len(m) != 0 {
				t.Errorf("%q is no JSON, yet fields %v", s, m)
			}
			return
		}
		obj, ok := v.(map[string]any)
		if !ok && len(m) != 0 {
			t.Errorf("%q is no object, yet fields %v", s, m)
		}
		for k, e := range obj {
			if _, scalar := e.(map[string]any); !scalar && e != nil {
				if _, has := m[k]; !has {
					t.Errorf("%q: no field %q in %v", s, k, m)
				}
			}
		}
	})
}
