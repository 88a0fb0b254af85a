package report_test

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/gmark/gmark/analyzer/report"
	"github.com/gmark/gmark/analyzer/report/reporttest"
	"github.com/gmark/gmark/analyzer/store"
)

// quickstartLike is a store of one run as small as the quickstart's: 56
// jobs, one a second, each 12 s long, with a submission delay of 0.3 ms.
func quickstartLike(t *testing.T) string {
	t.Helper()
	db := filepath.Join(t.TempDir(), "r.db")
	jobs := reporttest.Jobs(56, store.Succeeded, func(i int) float64 { return float64(i % 3) }, reporttest.Constant(12), "swf", "chain")
	for i := range jobs {
		jobs[i].DelayNS = 314_200 // 0.3142 ms
	}
	reporttest.WriteRuns(t, db, reporttest.Run{ID: "R1", Ended: true, Jobs: jobs})
	return db
}

// The throughput of a run of 56 jobs over a minute is drawn as a rate,
// not as a row of spikes: its 100 bins held 0 or 1 job each, drawn as 0
// or 5,700 jobs per hour.
func TestThroughputIsARate(t *testing.T) {
	dir := t.TempDir()
	index, err := report.Write(context.Background(), quickstartLike(t), nil, dir, report.Options{})
	if err != nil {
		t.Fatal(err)
	}
	_, rows := readFigureCSV(t, filepath.Join(dir, report.FiguresDir, "throughput.csv"))
	if len(rows) < 6 || 56/len(rows) < 5 {
		t.Errorf("throughput drawn through %d points: %.1f jobs a point", len(rows), 56/float64(len(rows)))
	}
	zeros := 0
	for _, r := range rows {
		if v, _ := strconv.ParseFloat(r[2], 64); v == 0 {
			zeros++
		}
	}
	if zeros > 1 { // the jobs end evenly from 13 s to 68 s: only the first point may hold none
		t.Errorf("%d of %d points at 0 jobs per hour", zeros, len(rows))
	}
	page, err := os.ReadFile(index)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(page), "bins of") || !strings.Contains(string(page), "merged into each point") {
		t.Error("the throughput figure's caption does not say how its bins were merged")
	}
}

// readFigureCSV reads a figure's data: its header and its rows.
func readFigureCSV(t *testing.T, path string) ([]string, [][]string) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var rows [][]string
	for _, l := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		rows = append(rows, strings.Split(l, ","))
	}
	return rows[0], rows[1:]
}

// The submission delay is in ms in the tables, as in the summary line and
// the X-bar chart: in seconds, the table printed 3.142e-4.
func TestDelayInMilliseconds(t *testing.T) {
	dir := t.TempDir()
	db := quickstartLike(t)
	index, err := report.Write(context.Background(), db, nil, dir, report.Options{})
	if err != nil {
		t.Fatal(err)
	}
	page, err := os.ReadFile(index)
	if err != nil {
		t.Fatal(err)
	}
	row := regexp.MustCompile(`(?s)<tr><td class="l">submission delay \(m?s\)</td>.*?</tr>`).FindString(string(page))
	if !strings.Contains(row, "submission delay (ms)</td><td>56</td><td>0.3142</td>") || strings.Contains(row, "e-") {
		t.Errorf("the page's submission delay row %q", row)
	}
	rep, err := report.Build(context.Background(), db, nil, report.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var text strings.Builder
	if err := rep.WriteText(&text); err != nil {
		t.Fatal(err)
	}
	lines := regexp.MustCompile(`(?m)^ *submission delay.*$`).FindAllString(text.String(), -1)
	if len(lines) < 2 {
		t.Errorf("the text's submission delay rows: %q", lines)
	}
	for _, line := range lines {
		if strings.Contains(line, "e-") || strings.Contains(line, "(s)") {
			t.Errorf("the text's submission delay row %q", line)
		}
	}
	// The breakdown's phases are in seconds, a sub-millisecond delay in
	// plain decimals.
	if !strings.Contains(string(page), `<td class="l">submission delay</td><td>0.0003142</td>`) {
		t.Error("the breakdown's submission delay is not 0.0003142 s")
	}
}
