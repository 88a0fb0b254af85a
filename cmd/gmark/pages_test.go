package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gmark/gmark/internal/testkit"
)

// screenshotPages are the HTML pages TestPagesInChromium opens: each is made
// by gmark commands run in turn in a fresh directory, and opened at page
// (relative to it). In the commands, $REPO is the repository and $LCG the
// LCG trace (the page is skipped, saying so, without ../shared/traces).
// Adding a page to the set (and to the screenshots) is one line here.
// report-w30-wf-cf is the W30 workload simulated under the WF and the CF
// placement policies, the two runs of one store reported together;
// sim-sweep the report of examples/sim/sweep.toml (68 runs, about 8 s on
// two cores), its figures against the load and over time.
var screenshotPages = []struct {
	name  string
	steps [][]string
	page  string
}{
	{"report-quickstart", [][]string{{"run", "$REPO/examples/quickstart.wdl", "--speedup", "100", "-q", "-o", "out"}, {"report", "--db", "out/results.db", "-o", "page", "-q"}}, "page/index.html"},
	{"report-dryrun", [][]string{{"generate", "$REPO/examples/quickstart.wdl", "-o", "wl", "-q"}, {"submit", "wl", "--target", "dryrun", "--db", "d.db", "--speedup", "1000", "-q"}, {"report", "--db", "d.db", "-o", "page", "-q"}}, "page/index.html"},
	{"report-w30-wf-cf", [][]string{{"generate", "$REPO/examples/koala-w30.wdl", "-o", "wl", "-q", "--seed", "1"}, {"koala", "simulate", "--grid", "$REPO/examples/das2.toml", "--db", "c.db", "--run-id", "WF", "--policy", "WF", "wl"}, {"koala", "simulate", "--grid", "$REPO/examples/das2.toml", "--db", "c.db", "--run-id", "CF", "--policy", "CF", "wl"}, {"report", "--db", "c.db", "-o", "page", "-q"}}, "page/index.html"},
	{"compare-w30-wf-cf", [][]string{{"generate", "$REPO/examples/koala-w30.wdl", "-o", "wl", "-q", "--seed", "1"}, {"koala", "simulate", "--grid", "$REPO/examples/das2.toml", "--db", "c.db", "--run-id", "WF-1", "--policy", "WF", "--seed", "1", "wl"}, {"koala", "simulate", "--grid", "$REPO/examples/das2.toml", "--db", "c.db", "--run-id", "WF-2", "--policy", "WF", "--seed", "2", "wl"}, {"koala", "simulate", "--grid", "$REPO/examples/das2.toml", "--db", "c.db", "--run-id", "CF-1", "--policy", "CF", "--seed", "1", "wl"}, {"koala", "simulate", "--grid", "$REPO/examples/das2.toml", "--db", "c.db", "--run-id", "CF-2", "--policy", "CF", "--seed", "2", "wl"}, {"report", "--db", "c.db", "--compare", "policy", "-o", "page", "-q"}}, "page/index.html"},
	{"sim-sweep", [][]string{{"sim", "run", "$REPO/examples/sim/sweep.toml", "--scale", "0.1", "--db", "s.db", "-q"}, {"sim", "report", "--db", "s.db", "sweep", "-o", "page"}}, "page/index.html"},
	{"trace-lcg", [][]string{{"trace", "plot", "$LCG", "-o", "page", "-q"}}, "page/index.html"},
	{"trace-three", [][]string{{"trace", "plot", "$LCG", "$REPO/gwa/testdata/overlay/grid-a.swf", "$REPO/gwa/testdata/overlay/grid-b.gwf", "-o", "page", "-q"}}, "page/index.html"},
}

// screenshotWidths are the window widths every page is opened at.
var screenshotWidths = []int{1280, 1920}

// Every page of the set, in headless Chromium at 1280 and 1920 px: no
// horizontal overflow (the document no wider than the window), every image
// loaded and decoded, no error and no console message. A screenshot of the
// whole page at each width is kept in the artefact directory
// (testkit.Artefacts: $GMARK_TEST_ARTIFACTS/screenshots, else
// artefacts/screenshots in the repository), as NAME-WIDTH.png.
//
// The sweep's page is made from a tenth of its span (the same figures;
// the time the whole sweep took, 16 s of this test's 52 s, was not what
// the page is checked for).
//
// Slow: 52 s at load 4–30, 118 s at load 20–40 (2 cores, whole package run),
// before the sweep was cut and the pages were made side by side: the
// commands that make seven pages, and Chromium twice per page and width.
func TestPagesInChromium(t *testing.T) {
	t.Parallel()
	bin := testkit.Chromium(t)
	shots := testkit.Artefacts(t, "screenshots")
	for _, pg := range screenshotPages {
		t.Run(pg.name, func(t *testing.T) {
			t.Parallel() // each page in a directory of its own, each Chromium with a profile of its own
			dir := t.TempDir()
			for _, step := range pg.steps {
				args := make([]string, len(step))
				for i, a := range step {
					if strings.Contains(a, "$LCG") {
						a = strings.ReplaceAll(a, "$LCG", testkit.LCG(t))
					}
					args[i] = strings.ReplaceAll(a, "$REPO", testkit.RepoRoot(t))
				}
				if stdout, stderr, code := run(t, dir, args...); code != 0 {
					t.Fatalf("gmark %s: exit %d\n%s%s", strings.Join(args, " "), code, stdout, stderr)
				}
			}
			page := filepath.Join(dir, pg.page)
			if _, err := os.Stat(page); err != nil {
				t.Fatal(err)
			}
			url := "file://" + page
			for _, w := range screenshotWidths {
				p := testkit.OpenPage(t, bin, url, w)
				for _, problem := range p.Problems() {
					t.Errorf("at %d px: %s", w, problem)
				}
				if p.Images < 1 {
					t.Errorf("at %d px: no image in the page", w)
				}
				shot := filepath.Join(shots, fmt.Sprintf("%s-%d.png", pg.name, w))
				testkit.Screenshot(t, bin, url, w, p.ScrollHeight, shot)
				t.Logf("%s at %d px: %d images, %d px wide in %d, %d px tall; screenshot %s", pg.name, w, p.Images, p.ScrollWidth, p.ViewportWidth, p.ScrollHeight, shot)
			}
		})
	}
}
