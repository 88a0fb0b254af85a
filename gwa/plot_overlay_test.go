package gwa

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gmark/gmark/internal/testkit"
	"github.com/gmark/gmark/plots"
)

// hexColor is the SVG stroke of plots.Color(k).
func hexColor(k int) string {
	r, g, b, _ := plots.Color(k).RGBA()
	return fmt.Sprintf("stroke:#%02X%02X%02X;", r>>8, g>>8, b>>8)
}

// The toolbox overlays several traces (the thesis's Fig. 3.3):
// three traces in every overlay figure, trace k in the k-th colour of every
// one, each figure passing the figure checks; the page shows every figure
// with its caption, and links each trace's own figures (weekly-striped top
// users, per-group breakdowns among them).
func TestToolboxOverlaysThreeTraces(t *testing.T) {
	small := []string{filepath.Join("testdata", "overlay", "grid-a.swf"), filepath.Join("testdata", "overlay", "grid-b.gwf")}
	sets := map[string][]string{"three small": append(small[:2:2], filepath.Join("testdata", "overlay", "grid-c.swf"))}
	if !testing.Short() {
		sets["LCG and two small"] = nil // filled below, when the trace is there
	}
	for name, paths := range sets {
		t.Run(name, func(t *testing.T) {
			testkit.CheckFigures(t) // every figure PlotTraces saves passes the checks
			if paths == nil {
				paths = append([]string{testkit.LCG(t)}, small...)
			}
			var as []*Analysis
			for _, p := range paths {
				a := analyzeFile(t, p)
				a.Trace.Name = filepath.Base(p)
				as = append(as, a)
			}
			var figs []namedPlot
			for _, f := range overlayPlots(as) {
				d, err := f.make()
				if d == nil && err == nil && f.name == "cdf_memory" {
					continue // no trace records memory
				}
				if err != nil || d == nil {
					t.Errorf("%s: %v (drawn: %v)", f.name, err, d != nil)
					continue
				}
				figs = append(figs, f)
				for _, msg := range d.ProblemsAt(plotWidth, plotHeight) {
					t.Errorf("%s: %s", f.name, msg)
				}
			}
			dir := t.TempDir()
			_, err := PlotTraces(as, dir, []string{"gmark", "trace", "plot"})
			if err != nil {
				t.Fatal(err)
			}
			page, err := os.ReadFile(filepath.Join(dir, "index.html"))
			if err != nil {
				t.Fatal(err)
			}
			for _, f := range figs {
				svg, err := os.ReadFile(filepath.Join(dir, f.name+".svg"))
				if err != nil {
					t.Fatal(err)
				}
				if !strings.Contains(string(page), `href="`+f.name+`.svg"`) {
					t.Errorf("the page does not show %s", f.name)
				}
				if strings.HasPrefix(f.name, "cdf_wait") || strings.HasPrefix(f.name, "cdf_memory") || strings.HasPrefix(f.name, "cdf_cpu") {
					continue // not every trace has these
				}
				for k := range as {
					if !strings.Contains(string(svg), hexColor(k)) {
						t.Errorf("%s: trace %d (%s) not drawn in colour %d", f.name, k, as[k].Trace.Name, k)
					}
				}
			}
			for i := range as {
				sub := filepath.Join(dir, fmt.Sprintf("%d_%s", i+1, as[i].Trace.Name))
				for _, f := range []string{"index.html", "top_users_by_jobs_weekly.svg", "groups_user_shares.svg", "cumulative_jobs.svg"} {
					if _, err := os.Stat(filepath.Join(sub, f)); err != nil {
						t.Errorf("trace %d: %v", i+1, err)
					}
				}
			}
			top, _ := filepath.Glob(filepath.Join(dir, "*.svg"))
			own, _ := filepath.Glob(filepath.Join(dir, "*", "*.svg"))
			csv, _ := filepath.Glob(filepath.Join(dir, "*.csv"))
			if len(top)+len(own) < 3*10 || len(csv) != len(top) {
				t.Errorf("%d figures overlaid, %d of the traces alone, %d CSV files", len(top), len(own), len(csv))
			}
			// The zeros of the wait are drawn apart and the caption says so.
			if !strings.Contains(string(page), "grid-a.swf: 66.7%") {
				t.Errorf("the wait's caption does not give grid-a's share of zero waits:\n%s", page)
			}
		})
	}
}

// The per-group view: jobs and CPU time per VO, group, user and site add
// up to the trace's; the weeks of the top users add up to their jobs; a
// trace of one group of a kind has no breakdown of it.
func TestGroupBreakdowns(t *testing.T) {
	cases := []struct {
		path string
		dims []string
	}{
		{filepath.Join("testdata", "overlay", "grid-a.swf"), []string{"group", "user", "site"}},
		{filepath.Join("testdata", "overlay", "grid-b.gwf"), []string{"VO", "group", "user", "site"}},
	}
	for _, c := range cases {
		a := analyzeFile(t, c.path)
		g := a.Groups
		var dims []string
		for _, b := range g.Breakdowns {
			dims = append(dims, b.Dim)
			var jobs int64
			for _, r := range b.Groups {
				jobs += r.Jobs
			}
			if jobs != b.Jobs || b.Jobs != a.Totals.Jobs {
				t.Errorf("%s, per %s: %d jobs in the groups, %d in all, %d in the trace", c.path, b.Dim, jobs, b.Jobs, a.Totals.Jobs)
			}
		}
		if strings.Join(dims, ",") != strings.Join(c.dims, ",") {
			t.Errorf("%s: breakdowns %v, want %v", c.path, dims, c.dims)
		}
		if len(g.TopByJobs) == 0 || g.Weeks < 2 {
			t.Fatalf("%s: %d top users over %d weeks", c.path, len(g.TopByJobs), g.Weeks)
		}
		for i, u := range g.TopByJobs {
			var n int64
			for _, w := range u.Jobs {
				n += w
			}
			if i < len(a.Users.TopByJob) && (a.Users.TopByJob[i].User != u.User || a.Users.TopByJob[i].Jobs != n) {
				t.Errorf("%s: top user %d: %s with %d jobs over the weeks; the analysis says %s with %d", c.path, i, u.User, n, a.Users.TopByJob[i].User, a.Users.TopByJob[i].Jobs)
			}
		}
	}
}
