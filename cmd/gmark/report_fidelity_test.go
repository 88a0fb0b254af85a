package main

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gmark/gmark/internal/testkit"
)

type fidelityJSON struct {
	Runs []struct {
		Metrics struct {
			Jobs struct {
				Submitted int `json:"submitted"`
			} `json:"jobs"`
			WarmJobs     int  `json:"warm_jobs"`
			WarmIncluded bool `json:"warm_included"`
		} `json:"metrics"`
		Fidelity []struct {
			Unit         int `json:"unit"`
			OriginalJobs int `json:"original_jobs"`
			ReplayedJobs int `json:"replayed_jobs"`
			WarmJobs     int `json:"warm_jobs"`
			Tests        []struct {
				Metric    string   `json:"metric"`
				NOriginal int      `json:"n_original"`
				NReplayed int      `json:"n_replayed"`
				D         *float64 `json:"d"`
				P         *float64 `json:"p"`
			} `json:"ks"`
			Utilization struct {
				Original []float64 `json:"original"`
				Replayed []float64 `json:"replayed"`
			} `json:"utilization"`
		} `json:"fidelity"`
		FidelityNote string `json:"fidelity_note"`
	} `json:"runs"`
}

// TestReportFidelity: the trace written here, replayed as wl:trace on the
// dryrun target, then 'report --fidelity'. Dryrun starts and ends a job the
// instant it is submitted: every replayed run time is 0 and every wait 0
// or a few microseconds. By hand, for the window's four jobs:
//   - wait: the original's {0, 0, 50, 100} against four waits in [0, 50):
//     at the largest replayed wait the CDFs are 2/4 and 4/4, D = 0.5;
//   - run {20, 50, 100, 200} and response {20, 100, 100, 300} against
//     values below 20: D = 1;
//   - utilization over 4 bins of 100 s on 8 processors: the original's
//     0.375, 0.3125, 0.525, 0.25 (the in-flight job 1 included) against
//     0, 0, 0, 0: D = 1.
//
// n = m = 4: p = Q((√2 + 0.12 + 0.11/√2)·D), 0.534416 for D = 0.5 and
// 0.011066 for D = 1 (stats.KSTwoSamplePValue's test works them out).
func TestReportFidelity(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "site.swf"), []byte(testkit.WindowSWF), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name, other string
		extra       []string
		submitted   int
		warm        int
	}{
		{"cold", "File=site.swf,From=100s,To=500s", nil, 4, 0},
		{"warm start", "File=site.swf,From=100s,To=500s,WarmStart=true", nil, 4, 1},
		{"warm start, warm jobs counted", "File=site.swf,From=100s,To=500s,WarmStart=true", []string{"--include-warm"}, 5, 1},
	} {
		t.Run(c.name, func(t *testing.T) {
			spec := filepath.Join(dir, "replay.wdl")
			if err := os.WriteFile(spec, []byte("1\twl:trace\tsingle\t1\t*:?\t-\t"+c.other+"\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			wl, db := filepath.Join(dir, "wl"), filepath.Join(dir, strings.ReplaceAll(c.name, " ", "_")+".db")
			if _, stderr, code := run(t, dir, "generate", spec, "-o", wl, "-q", "-f"); code != 0 {
				t.Fatalf("generate: %s", stderr)
			}
			if _, stderr, code := run(t, dir, "submit", wl, "--target", "dryrun", "--db", db, "--speedup", "100", "-q"); code != 0 {
				t.Fatalf("submit: %s", stderr)
			}
			args := append([]string{"report", "--db", db, "--fidelity", "--format", "json", "--bins", "4", "--processors", "8"}, c.extra...)
			stdout, stderr, code := run(t, dir, args...)
			if code != 0 {
				t.Fatalf("report: exit %d: %s", code, stderr)
			}
			var rep fidelityJSON
			if err := json.Unmarshal([]byte(stdout), &rep); err != nil || len(rep.Runs) != 1 || len(rep.Runs[0].Fidelity) != 1 {
				t.Fatalf("report JSON (%v):\n%s", err, stdout)
			}
			r := rep.Runs[0]
			if r.Metrics.Jobs.Submitted != c.submitted || r.Metrics.WarmJobs != c.warm || r.Metrics.WarmIncluded != (len(c.extra) > 0) {
				t.Errorf("metrics: %d jobs, %d warm (included %v); want %d, %d", r.Metrics.Jobs.Submitted, r.Metrics.WarmJobs, r.Metrics.WarmIncluded, c.submitted, c.warm)
			}
			f := r.Fidelity[0]
			if f.Unit != 1 || f.OriginalJobs != 4 || f.ReplayedJobs != c.submitted || f.WarmJobs != c.warm {
				t.Errorf("fidelity: unit %d, %d original, %d replayed, %d warm", f.Unit, f.OriginalJobs, f.ReplayedJobs, f.WarmJobs)
			}
			want := []struct {
				metric string
				n      int
				d, p   float64
			}{{"wait", c.submitted, 0.5, 0.534416}, {"run", c.submitted, 1, 0.011066}, {"response", c.submitted, 1, 0.011066}, {"utilization", 4, 1, 0.011066}}
			waitLine := "wait         KS D 0.5, p 0.534 (n 4 original, 4 replayed)"
			if c.submitted == 5 {
				// The warm job's wait joins: {0,0,50,100} against five waits
				// in [0, 50): D = 0.5 still. Nₑ = 4·5/9, so λ = (1.490712 +
				// 0.12 + 0.073790)·D = 1.684502·D: p = Q(0.842251) = 0.477166
				// and Q(1.684502) = 2(e^{−5.675} − …) = 0.006861.
				want[0].p, want[1].p, want[2].p = 0.477166, 0.006861, 0.006861
				waitLine = "wait         KS D 0.5, p 0.477 (n 4 original, 5 replayed)"
			}
			for i, w := range want {
				got := f.Tests[i]
				if got.Metric != w.metric || got.NOriginal != 4 || got.NReplayed != w.n || got.D == nil || got.P == nil ||
					math.Abs(*got.D-w.d) > 1e-12 || math.Abs(*got.P-w.p) > 1e-6 {
					t.Errorf("%s: %+v (D %v, p %v), want D %v, p %v over 4 and %d", w.metric, got, deref(got.D), deref(got.P), w.d, w.p, w.n)
				}
			}
			if fmt.Sprint(f.Utilization.Original) != "[0.375 0.3125 0.525 0.25]" {
				t.Errorf("original utilization %v", f.Utilization.Original)
			}
			text, stderr, code := run(t, dir, append([]string{"report", "--db", db, "--fidelity", "--format", "text", "--bins", "4", "--processors", "8"}, c.extra...)...)
			if code != 0 || !strings.Contains(text, "replay fidelity, unit 1:") || !strings.Contains(text, waitLine) {
				t.Errorf("text report: exit %d\n%s%s", code, text, stderr)
			}
			html := filepath.Join(dir, "html-"+strings.ReplaceAll(c.name, " ", "_"))
			if _, stderr, code := run(t, dir, append([]string{"report", "--db", db, "--fidelity", "-o", html, "--bins", "4", "--processors", "8", "-q"}, c.extra...)...); code != 0 {
				t.Fatalf("HTML report: exit %d: %s", code, stderr)
			}
			page, err := os.ReadFile(filepath.Join(html, "index.html"))
			if err != nil || !strings.Contains(string(page), `<h2 id="fidelity">`) || !strings.Contains(string(page), "<td class=\"l\">utilization</td><td>4</td><td>4</td><td>1</td><td>0.0111</td>") {
				t.Errorf("the HTML page lacks the fidelity section or its utilization row (%v)", err)
			}
			for _, fig := range []string{"cdf_wait", "cdf_run", "cdf_response", "utilization"} {
				name := "fidelity_R1_u1_" + fig
				if _, err := os.Stat(filepath.Join(html, "figures", name+".png")); err != nil || !strings.Contains(string(page), `id="fig-`+name+`"`) {
					t.Errorf("figure %s: %v, or not on the page", name, err)
				}
			}
		})
	}
}

func deref(p *float64) any {
	if p == nil {
		return nil
	}
	return *p
}

// TestReportFidelityNoTrace: a run of a workload that replayed no trace
// gets a note, and a trace gone since is an error (exit 1).
func TestReportFidelityNoTrace(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	spec := filepath.Join(dir, "plain.wdl")
	os.WriteFile(spec, []byte("2\tsser\tsingle\t1\t*:1\tC(1)\tRunTime=5\n"), 0o644)
	if _, stderr, code := run(t, dir, "generate", spec, "-o", "wl", "-q"); code != 0 {
		t.Fatalf("generate: %s", stderr)
	}
	if _, stderr, code := run(t, dir, "submit", "wl", "--target", "dryrun", "--db", "r.db", "-q"); code != 0 {
		t.Fatalf("submit: %s", stderr)
	}
	stdout, stderr, code := run(t, dir, "report", "--db", "r.db", "--fidelity", "--format", "json")
	if code != 0 || !strings.Contains(stdout, `"fidelity_note": "the run replayed no trace window`) {
		t.Errorf("no trace: exit %d\n%s%s", code, stdout, stderr)
	}

	os.WriteFile(filepath.Join(dir, "t.swf"), []byte(testkit.WindowSWF), 0o644)
	os.WriteFile(spec, []byte("1\twl:trace\tsingle\t1\t*:?\t-\tFile=t.swf\n"), 0o644)
	if _, stderr, code := run(t, dir, "generate", spec, "-o", "wl2", "-q"); code != 0 {
		t.Fatalf("generate: %s", stderr)
	}
	if _, stderr, code := run(t, dir, "submit", "wl2", "--target", "dryrun", "--db", "t.db", "--speedup", "1000", "-q"); code != 0 {
		t.Fatalf("submit: %s", stderr)
	}
	os.Remove(filepath.Join(dir, "t.swf"))
	_, stderr, code = run(t, dir, "report", "--db", "t.db", "--fidelity", "--format", "text")
	if code != 1 || !strings.Contains(stderr, "cannot be read again") {
		t.Errorf("a trace gone: exit %d, %s", code, stderr)
	}
}
