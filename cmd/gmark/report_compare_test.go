package main

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/gmark/gmark/analyzer/report"
	"github.com/gmark/gmark/internal/testkit"
)

// compareJSON is what the test reads of `report --compare --format json`.
type compareJSON struct {
	By     string `json:"by"`
	Groups []struct {
		Key    string   `json:"key"`
		Runs   []string `json:"runs"`
		Values []struct {
			Metric string      `json:"metric"`
			Value  *float64    `json:"value"`
			CI     [2]*float64 `json:"ci"`
			Runs   int         `json:"runs"`
		} `json:"values"`
	} `json:"groups"`
}

// singleJSON is what the test reads of a single run's JSON report.
type singleJSON struct {
	Runs []struct {
		Metrics struct {
			Wait struct {
				Mean, P50, P95 float64
				MeanCI         [2]float64 `json:"mean_ci"`
			} `json:"wait_s"`
			Response struct{ Mean, P50 float64 } `json:"response_s"`
			BSld     struct{ Mean, P95 float64 } `json:"bounded_slowdown"`
			Makespan float64                     `json:"makespan_s"`
			Util     float64                     `json:"utilization"`
		} `json:"metrics"`
	} `json:"runs"`
}

func (s singleJSON) values() map[string]float64 {
	m := s.Runs[0].Metrics
	return map[string]float64{"mean-wait": m.Wait.Mean, "p50-wait": m.Wait.P50, "p95-wait": m.Wait.P95, "mean-response": m.Response.Mean,
		"p50-response": m.Response.P50, "mean-bsld": m.BSld.Mean, "p95-bsld": m.BSld.P95, "makespan": m.Makespan, "utilization": m.Util}
}

// The W30 workload on the bundled scheduler, simulated under WF (seeds 1
// and 2, in two stores) and CF (seed 1): `report --compare policy` over
// both stores puts the runs in groups WF and CF; the CF group's numbers
// are those of CF's single-run report, WF's the mean of its two runs'
// (with an interval around it); the HTML comparison draws its figures, and
// every figure passes the style's checks.
func TestReportCompareW30Policies(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	simRun(t, dir, "a.db", "wf-1", 1, 1, "--policy", "WF")
	simRun(t, dir, "a.db", "cf-1", 1, 1, "--policy", "CF")
	simRun(t, dir, "b,1.db", "wf-2", 1, 2, "--policy", "WF") // a comma in a store's name
	stdout, stderr, code := run(t, dir, "report", "--compare", "policy", "--db", "a.db", "--db", "b,1.db", "--format", "json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var c compareJSON
	if err := json.Unmarshal([]byte(stdout), &c); err != nil {
		t.Fatalf("%v:\n%s", err, stdout)
	}
	var groups []string
	for _, g := range c.Groups {
		groups = append(groups, g.Key+":"+strings.Join(g.Runs, ","))
	}
	if want := []string{"WF:wf-1,wf-2", "CF:cf-1"}; !slices.Equal(groups, want) {
		t.Fatalf("groups %q, want %q", groups, want)
	}
	single := func(db, runID string) map[string]float64 {
		out, stderr, code := run(t, dir, "report", "--db", db, "--run", runID, "--format", "json")
		var s singleJSON
		if code != 0 || json.Unmarshal([]byte(out), &s) != nil || len(s.Runs) != 1 {
			t.Fatalf("report --run %s: exit %d: %s", runID, code, stderr)
		}
		return s.values()
	}
	cf, wf1, wf2 := single("a.db", "cf-1"), single("a.db", "wf-1"), single("b,1.db", "wf-2")
	if wf1["mean-wait"] == cf["mean-wait"] {
		t.Errorf("WF and CF wait the same on average (%g s): the policy was not applied", cf["mean-wait"])
	}
	for _, g := range c.Groups {
		for _, v := range g.Values {
			want, ok := cf[v.Metric]
			if g.Key == "WF" {
				want = (wf1[v.Metric] + wf2[v.Metric]) / 2
			}
			if !ok {
				continue
			}
			if v.Value == nil || math.Abs(*v.Value-want) > 1e-9*max(1, math.Abs(want)) {
				t.Errorf("%s %s = %v, want %g", g.Key, v.Metric, v.Value, want)
			}
			if g.Key == "WF" && (v.Runs != 2 || v.CI[0] == nil || !(*v.CI[0] <= want && want <= *v.CI[1])) {
				t.Errorf("WF %s: %d runs, interval %v around %g", v.Metric, v.Runs, v.CI, want)
			}
		}
	}
	out := filepath.Join(dir, "cmp")
	if stdout, stderr, code = run(t, dir, "report", "--compare", "policy", "--db", "a.db", "--db", "b,1.db", "-o", out, "-q"); code != 0 {
		t.Fatalf("html: exit %d: %s", code, stderr)
	}
	page, err := os.ReadFile(filepath.Join(out, "index.html"))
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"cmp_cdf_wait", "cmp_cdf_response", "cmp_cdf_run", "cmp_cdf_bsld", "cmp_box_wait", "cmp_wait_vs_seed"} {
		if fi, err := os.Stat(filepath.Join(out, "figures", f+".svg")); err != nil || fi.Size() == 0 || !strings.Contains(string(page), f+".png") {
			t.Errorf("figure %s: %v", f, err)
		}
	}
	cmp, err := report.BuildComparison(context.Background(), report.CompareOptions{By: "policy", DBs: []string{filepath.Join(dir, "a.db"), filepath.Join(dir, "b,1.db")}})
	if err != nil {
		t.Fatal(err)
	}
	drawn, problems := cmp.FigureProblems()
	if len(drawn) < 10 || len(problems) > 0 {
		t.Errorf("drawn %q; problems %q", drawn, problems)
	}
	checkInBrowser(t, filepath.Join(out, "index.html"), strings.Count(string(page), "<img "))
}

// checkInBrowser opens the page in headless Chromium: its load handler
// runs, every image of it loads, with no error.
func checkInBrowser(t *testing.T, index string, images int) {
	bin := testkit.Chromium(t)
	dom, _ := testkit.Headless(t, bin, "--virtual-time-budget=10000", "--dump-dom", "file://"+index)
	root := regexp.MustCompile(`<html[^>]*>`).FindString(dom)
	attr := func(name string) string {
		if m := regexp.MustCompile(name + `="([^"]*)"`).FindStringSubmatch(root); m != nil {
			return m[1]
		}
		return ""
	}
	if attr("data-ready") != "1" || attr("data-images") != fmt.Sprint(images) || attr("data-images-loaded") != fmt.Sprint(images) || attr("data-errors") != "0" {
		t.Errorf("in Chromium, %d images in the page: %s", images, root)
	}
}

// Runs of two workloads (W30 and W50) per policy: the figures of the
// metrics against the load are drawn, one point per workload, and those
// against the seed are not (the seed is not all that differs), which the
// page says.
func TestReportCompareLoad(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	if _, stderr, code := run(t, dir, "generate", abs(t, "../../examples/koala-w50.wdl"), "-o", "w50", "-q", "--seed", "1"); code != 0 {
		t.Fatalf("generate: %s", stderr)
	}
	for _, p := range []string{"WF", "CF"} {
		simRun(t, dir, "a.db", "w30-"+p, 1, 1, "--policy", p)
		if _, stderr, code := run(t, dir, "koala", "simulate", "--grid", abs(t, "../../examples/das2.toml"), "--db", "a.db", "--run-id", "w50-"+p,
			"--seed", "2", "--policy", p, "w50"); code != 0 {
			t.Fatalf("simulate: %s", stderr)
		}
	}
	// A second run of W50 under WF: that level's point is the mean of two
	// runs, with no interval (a t interval over two reached far past the
	// values: negative waits).
	if _, stderr, code := run(t, dir, "koala", "simulate", "--grid", abs(t, "../../examples/das2.toml"), "--db", "a.db", "--run-id", "w50-WF-2",
		"--seed", "3", "--policy", "WF", "w50"); code != 0 {
		t.Fatalf("simulate: %s", stderr)
	}
	out := filepath.Join(dir, "cmp")
	if _, stderr, code := run(t, dir, "report", "--compare", "policy", "--db", "a.db", "-o", out, "-q"); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	page, err := os.ReadFile(filepath.Join(out, "index.html"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(page), "cmp_wait_vs_load.png") || strings.Contains(string(page), "vs_seed") ||
		!strings.Contains(string(page), "no figure against the seed") {
		t.Errorf("figures against the load and the seed: %s", page)
	}
	if !strings.Contains(string(page), "none at the 1 point over fewer than 3 runs") {
		t.Error("the caption does not say that the level of two runs has no interval")
	}
	csvRows, err := os.ReadFile(filepath.Join(out, "figures", "cmp_wait_vs_load.csv"))
	if err != nil {
		t.Fatal(err)
	}
	bars := map[string]int{}
	for _, l := range strings.Split(strings.TrimSpace(string(csvRows)), "\n")[1:] {
		f := strings.Split(l, ",")
		if f[3] == "bar_low" {
			bars[f[0]]++
			if v, _ := strconv.ParseFloat(f[2], 64); v < 0 {
				t.Errorf("a bar reaches a wait of %g s: %s", v, l)
			}
		}
	}
	if bars["WF"] != 1 || bars["CF"] != 2 { // WF's W50 level (two runs) has none
		t.Errorf("bars per group %v, want WF 1 and CF 2:\n%s", bars, csvRows)
	}
	cmp, err := report.BuildComparison(context.Background(), report.CompareOptions{By: "policy", DBs: []string{filepath.Join(dir, "a.db")}})
	if err != nil {
		t.Fatal(err)
	}
	drawn, problems := cmp.FigureProblems()
	if !slices.Contains(drawn, "cmp_bsld_vs_load") || len(problems) > 0 {
		t.Errorf("drawn %q; problems %q", drawn, problems)
	}
}

// Bad usage is exit 2: --compare or several stores with --baseline or
// --fidelity, a field no run has, a format of no comparison, a store that
// is not there. Several stores without --compare compare run by run.
func TestReportCompareUsage(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	simRun(t, dir, "a.db", "r", 1, 1)
	for _, args := range [][]string{
		{"--db", "a.db", "--db", "b.db", "--baseline", "a.db"},
		{"--db", "a.db", "--compare", "policy", "--baseline", "a.db"},
		{"--db", "a.db", "--compare", "policy", "--fidelity"},
		{"--db", "a.db", "--compare", "colour", "-f", "text"},
		{"--db", "a.db", "--compare", "policy", "-f", "summary"},
		{"--db", "a.db", "--db", "nope.db", "--compare", "policy", "-f", "text"},
	} {
		if _, stderr, code := run(t, dir, append([]string{"report"}, args...)...); code != 2 || !strings.HasPrefix(stderr, "gmark: ") {
			t.Errorf("%q: exit %d, want 2: %s", args, code, stderr)
		}
	}
	// A field no run has: the nearest ones, and the common fields, not
	// every key of every run's settings.
	_, stderr, _ := run(t, dir, "report", "--db", "a.db", "--compare", "polcy", "--format", "text")
	if !strings.Contains(stderr, "did you mean policy?") || strings.Contains(stderr, "core.") || !strings.Contains(stderr, "other keys of their settings") {
		t.Errorf("--compare polcy: %s", stderr)
	}
	simRun(t, dir, "b.db", "r", 1, 2)
	stdout, stderr, code := run(t, dir, "report", "--db", "a.db", "--db", "b.db", "-f", "text")
	if code != 0 || !strings.HasPrefix(stdout, "comparison by run of 2 runs in 2 groups") || !strings.Contains(stdout, "a.db:r ") {
		t.Errorf("two stores: exit %d: %s%s", code, stdout, stderr)
	}
}
