// Package reporttest checks written HTML reports, for the tests of the
// report package and of the commands that write reports.
package reporttest

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/gmark/gmark/analyzer/report"
)

// DefaultFigures are the file names (without extension) of the figures
// every report draws when it has the data for them.
var DefaultFigures = append(OneRunFigures, AcrossRunFigures...)

// OneRunFigures are the default figures one run draws when it has the data.
var OneRunFigures = []string{"cdf_wait", "cdf_run", "cdf_response", "box_wait", "xbar_delay", "scatter_wait_run", "pareto_sites",
	"bihist_wait", "utilization", "goodput", "throughput", "success_rate", "breakdown", "duration_runs", "wait_by_arrival"}

// AcrossRunFigures are the default figures drawn only across runs that
// differ (in their size, in their submitter threads).
var AcrossRunFigures = []string{"delay_by_size", "delay_by_threads"}

var (
	imgSrc   = regexp.MustCompile(`<img[^>]+src="([^"]+)"`)
	figLink  = regexp.MustCompile(`<a href="(` + report.FiguresDir + `/[^"]+)"`)
	notDrawn = regexp.MustCompile(`Not drawn: <b>([^<]*)</b>: ([^<]*)\.</p>`)
)

// CheckPage checks the report whose page is index: every figure the page
// shows or links to exists and is not empty; every default figure is shown
// or said not to be drawn, with a reason that is neither empty, nor a bare
// "no data", nor an internal error; the figures named in drawn are shown.
// It returns the reasons given for the figures not drawn.
func CheckPage(t testing.TB, index string, drawn ...string) []string {
	t.Helper()
	b, err := os.ReadFile(index)
	if err != nil {
		t.Fatal(err)
	}
	page := string(b)
	dir := filepath.Dir(index)
	for _, m := range append(imgSrc.FindAllStringSubmatch(page, -1), figLink.FindAllStringSubmatch(page, -1)...) {
		if fi, err := os.Stat(filepath.Join(dir, m[1])); err != nil || fi.Size() == 0 {
			t.Errorf("the page refers to %s: %v", m[1], err)
		}
	}
	var reasons []string
	for _, m := range notDrawn.FindAllStringSubmatch(page, -1) {
		reasons = append(reasons, m[1]+": "+m[2])
		if r := strings.TrimSpace(m[2]); r == "" || r == "no data" || strings.Contains(r, "internal error") {
			t.Errorf("not drawn, and no good reason: %s", m[0])
		}
	}
	want := len(DefaultFigures)
	if !strings.Contains(page, "Submission delay against") { // a report of one run: no figure across runs
		want = len(OneRunFigures)
	}
	if n := len(imgSrc.FindAllString(page, -1)) + len(reasons); n != want {
		t.Errorf("%d figures shown or said not drawn, want %d", n, want)
	}
	for _, name := range drawn {
		if !strings.Contains(page, `src="`+report.FiguresDir+"/"+name+`.png"`) {
			t.Errorf("figure %s not drawn; not drawn: %q", name, reasons)
		}
	}
	return reasons
}
