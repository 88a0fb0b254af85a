package experiment

import (
	"context"
	"encoding/csv"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"testing"

	"github.com/gmark/gmark/internal/testkit"
)

// runFig7 runs examples/deadlines/fig7-local-load.toml (14 scenarios at
// one global load: Wait-10 and pure RPP at seven local loads) at a
// fiftieth of its length, from a copy of the examples whose file edit
// changes, and writes its report into a directory.
func runFig7(t *testing.T, edit func(string) string) (*ExperimentReport, string) {
	t.Helper()
	dir := t.TempDir()
	if err := os.CopyFS(filepath.Join(dir, "ex"), os.DirFS(filepath.Join(testkit.RepoRoot(t), "examples", "deadlines"))); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "ex", "fig7-local-load.toml")
	src, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(edit(string(src))), 0o644); err != nil {
		t.Fatal(err)
	}
	e, err := Load(path, Options{Scale: 0.02})
	if err != nil {
		t.Fatal(err)
	}
	rep, out := runAndReport(t, e, dir)
	return &rep.Experiments[0], out
}

// runAndReport runs e into dir/r.db and writes its report into dir/rep.
func runAndReport(t *testing.T, e *Experiment, dir string) (*Report, string) {
	t.Helper()
	db := filepath.Join(dir, "r.db")
	if _, err := Execute(context.Background(), e, RunOptions{DB: db, Parallel: 2}); err != nil {
		t.Fatal(err)
	}
	rep, err := ReadReport(db, nil)
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "rep")
	if _, err := WriteReportDir(rep, out); err != nil {
		t.Fatal(err)
	}
	return rep, out
}

// readCSV reads a figure's data: its header and its rows.
func readCSV(t *testing.T, path string) ([]string, [][]string) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	if err != nil || len(rows) == 0 {
		t.Fatalf("%s: %v", path, err)
	}
	return rows[0], rows[1:]
}

// With [plot], the report draws each metric against the scenarios' own
// x (the paper's Fig. 7: the local load), one line per line name, each
// point at its scenario's x (not shifted in the data) with the mean over
// its repetitions.
func TestPlacedFigures(t *testing.T) {
	t.Parallel()
	checked := testkit.CheckFigures(t)
	e, out := runFig7(t, func(s string) string { return s })
	if e.Plot == nil || e.Plot.X != "local load U_l (%)" || len(e.Placements) != 14 {
		t.Fatalf("plot %+v, %d placements", e.Plot, len(e.Placements))
	}
	if p := e.Placements["rpp-Ul-30"]; p != (Placement{X: 30, Line: "pure RPP"}) {
		t.Errorf("rpp-Ul-30 at %+v", p)
	}
	mean := map[string]float64{}
	for _, a := range e.Aggregates {
		mean[a.Scenario] = a.Stats["deadlines.global_success"].Mean
	}
	header, rows := readCSV(t, filepath.Join(out, "fig7-local-load_deadlines-global_success.csv"))
	if header[1] != "local load U_l (%)" || header[2] != "global success" {
		t.Errorf("header %q", header)
	}
	points := map[string]int{}
	for _, r := range rows {
		if r[3] != "" { // a bar's end
			continue
		}
		x, err := strconv.ParseFloat(r[1], 64)
		if err != nil {
			t.Fatalf("row %q: %v", r, err)
		}
		sc := map[string]string{"Wait-10": "wait-10", "pure RPP": "rpp"}[r[0]] + "-Ul-" + strconv.Itoa(int(x))
		want, ok := mean[sc]
		if !ok || float64(int(x)) != x {
			t.Errorf("row %q: no scenario %s at x = %v", r, sc, x)
			continue
		}
		if y, _ := strconv.ParseFloat(r[2], 64); y != want {
			t.Errorf("%s: %v drawn, mean %v", sc, y, want)
		}
		points[r[0]]++
	}
	if points["Wait-10"] != 7 || points["pure RPP"] != 7 {
		t.Errorf("points per line: %v", points)
	}
	// Every figure of the experiment is against the local load.
	csvs, _ := filepath.Glob(filepath.Join(out, "fig7-local-load_*.csv"))
	for _, f := range csvs {
		if regexp.MustCompile(`over-time\.csv$`).MatchString(f) {
			continue
		}
		if h, _ := readCSV(t, f); h[1] != "local load U_l (%)" {
			t.Errorf("%s: x axis %q", filepath.Base(f), h[1])
		}
	}
	if n := checked(); n < 10 {
		t.Errorf("%d figures checked", n)
	}
}

// Without [plot], an experiment of one load level and many scenarios is
// drawn against the load: each scenario is one point, drawn as a point
// with its interval over the repetitions (it was a line of one point,
// which draws nothing: the figure was empty).
func TestOnePointPerScenarioShows(t *testing.T) {
	t.Parallel()
	strip := regexp.MustCompile(`(?m)^(\[plot\]\nx = .*\nload = .*|plot = \{.*\})$`)
	e, out := runFig7(t, func(s string) string { return strip.ReplaceAllString(s, "") })
	if e.Plot != nil || len(e.Placements) != 0 {
		t.Fatalf("plot %+v, placements %v", e.Plot, e.Placements)
	}
	_, rows := readCSV(t, filepath.Join(out, "fig7-local-load_deadlines-global_success.csv"))
	points := map[string]map[string]bool{} // scenario → what is drawn at 20%: the mean (""), bar_low, bar_high
	for _, r := range rows {
		if r[1] == "20" {
			if points[r[0]] == nil {
				points[r[0]] = map[string]bool{}
			}
			points[r[0]][r[3]] = true
		}
	}
	if len(points) != 14 {
		t.Errorf("%d scenarios drawn at the load 20%%: %v", len(points), points)
	}
	for sc, drawn := range points {
		if !drawn[""] || !drawn["bar_low"] || !drawn["bar_high"] {
			t.Errorf("%s: %v drawn", sc, drawn)
		}
	}
}
