package report_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gmark/gmark/analyzer/report"
	"github.com/gmark/gmark/analyzer/report/reporttest"
	"github.com/gmark/gmark/analyzer/store"
	"github.com/gmark/gmark/internal/testkit"
)

// Every figure of the report, drawn from fixed stores (the benchmark's
// 2,000 jobs; degenerate runs; two runs side by side), passes the figure
// checks of plots: no data on or past the plot area's edge,
// enough ticks on each axis, the legend clear of the data, the title off
// the top edge.
func TestReportFigureChecks(t *testing.T) {
	dir := t.TempDir()
	big := filepath.Join(dir, "big.db")
	if err := report.BuildStore(big, 2000); err != nil {
		t.Fatal(err)
	}
	jobs, constant := reporttest.Jobs, reporttest.Constant
	stores := map[string]string{"2000 jobs": big}
	// Runs of three sizes and three thread counts, with delays that grow
	// with both: the figures across runs (Fig. 5.8).
	var sized []reporttest.Run
	for k, n := range []int{20, 40, 80} {
		js := jobs(n, store.Succeeded, func(i int) float64 { return float64(i % 7) }, constant(5), "sser", "smpi")
		for i := range js {
			js[i].DelayNS = int64((k+1)*(1+i%5)) * 1e6
		}
		sized = append(sized, reporttest.Run{ID: fmt.Sprintf("s%d", k), Ended: true, Jobs: js, Settings: fmt.Sprintf(`{"speedup":1,"workers":%d}`, 1<<(2*k))})
	}
	sizes := filepath.Join(dir, "sizes.db")
	reporttest.WriteRuns(t, sizes, sized...)
	stores["sizes and threads"] = sizes
	// Figures that need several runs that differ.
	acrossRuns := map[string]bool{"delay_by_size": true, "delay_by_threads": true}
	for name, runs := range map[string][]reporttest.Run{
		"one job":           {{ID: "r", Ended: true, Jobs: jobs(1, store.Succeeded, constant(2), constant(3))}},
		"every wait zero":   {{ID: "r", Ended: true, Jobs: jobs(20, store.Succeeded, constant(0), constant(4), "sser", "smpi")}},
		"every value equal": {{ID: "r", Ended: true, Jobs: jobs(20, store.Succeeded, constant(300), constant(300), "sser", "smpi")}},
		"negative waits":    {{ID: "r", Ended: true, Jobs: jobs(20, store.Succeeded, func(i int) float64 { return -0.4 + float64(i%3) }, constant(2), "sser", "smpi")}},
		"two runs": {
			{ID: "wf", Ended: true, Jobs: jobs(40, store.Succeeded, func(i int) float64 { return float64(i * i) }, constant(60), "sser", "smpi")},
			{ID: "cf", Ended: true, Jobs: jobs(30, store.Succeeded, func(i int) float64 { return float64(3 * i) }, func(i int) float64 { return float64(10 + i) }, "sser", "smpi")},
		},
	} {
		db := filepath.Join(dir, name+".db")
		reporttest.WriteRuns(t, db, runs...)
		stores[name] = db
	}
	// And as Figures saves them, through the checks of testkit.
	checked := testkit.CheckFigures(t)
	rep, err := report.Build(context.Background(), sizes, nil, report.Options{})
	if err != nil {
		t.Fatal(err)
	}
	set, err := report.Figures(context.Background(), rep, t.TempDir())
	if err != nil || checked() != len(set.Figures) || len(set.Figures) < 16 {
		t.Errorf("%d figures saved, %d checked, missing %v: %v", len(set.Figures), checked(), set.Missing, err)
	}
	for name, db := range stores {
		rep, err := report.Build(context.Background(), db, nil, report.Options{})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		drawn := 0
		names, drawings, errs := report.FigureDrawings(rep)
		for i, d := range drawings {
			if errs[i] != nil { // listed on the page as not drawn, with the reason
				if name == "2000 jobs" && !acrossRuns[names[i]] || name == "sizes and threads" && (acrossRuns[names[i]] || names[i] == "wait_by_arrival" || names[i] == "duration_runs") {
					t.Errorf("%s, %s not drawn: %v", name, names[i], errs[i])
				}
				continue
			}
			drawn++
			if out := os.Getenv("GMARK_FIGURES_OUT"); out != "" { // to look at them
				if _, err := d.Save(out, strings.ReplaceAll(name, " ", "_")+"-"+names[i]); err != nil {
					t.Fatal(err)
				}
			}
			for _, p := range d.Problems() {
				t.Errorf("%s, %s: %s", name, names[i], p)
			}
		}
		if drawn == 0 {
			t.Errorf("%s: no figure drawn", name)
		}
	}
}
