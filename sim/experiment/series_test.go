package experiment

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// t1Experiment writes the thesis's T1 (Sec. 6.4.1) as an experiment: one
// cluster of 10 processors, 100 jobs of one processor and 10,000 s
// submitted at t = 0, with cool-down. A trace must span some time to be
// scaled to a load, so it has a 101st job, of 1 s, submitted at 1,000 s:
// at a load of 100% its submit time is scaled to just after 100,000 s,
// when the 100 jobs have all ended, so the waves are T1's.
func t1Experiment(t *testing.T, dir string) *Experiment {
	t.Helper()
	var b strings.Builder
	b.WriteString("; Version: 2.2\n; MaxProcs: 10\n")
	for k := 1; k <= 100; k++ {
		fmt.Fprintf(&b, "%d 0 0 10000 1 -1 -1 1 -1 -1 1 1 1 -1 -1 1 -1 -1\n", k)
	}
	b.WriteString("101 1000 0 1 1 -1 -1 1 -1 -1 1 1 1 -1 -1 1 -1 -1\n")
	if err := os.WriteFile(filepath.Join(dir, "t1.swf"), []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "one.toml"), []byte("name = \"one\"\n[[cluster]]\nname = \"c\"\nprocessors = 10\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return load(t, dir, `name = "t1"
topology = "one.toml"
architectures = ["central", "sep-c", "cern"]
loads = [100]
[workload]
kind = "trace"
trace = "t1.swf"
[settings]
cool_down = true
aligned_cycles = true
info_period = "0s"
`)
}

// T1 in the stored series: under each architecture without an
// information delay, the 100 arrivals in the first bin and 10 starts in
// each of the bins at 0, 10,000, …, 90,000 s (bins of 1,000 s: the run
// lasts 100,001 s), then the 101st job's start at 100,000 s (its end,
// and the last wave's, in the same bin); the report
// JSON is the same, byte for byte, from another execution into another
// store.
func TestSeriesT1Stored(t *testing.T) {
	dir := t.TempDir()
	e := t1Experiment(t, dir)
	var reports [][]byte
	for _, db := range []string{"a.db", "b.db"} {
		db = filepath.Join(dir, db)
		if _, err := Execute(context.Background(), e, RunOptions{DB: db, Parallel: 2}); err != nil {
			t.Fatal(err)
		}
		reports = append(reports, reportJSON(t, db))
	}
	if !bytes.Equal(reports[0], reports[1]) {
		t.Error("two executions of T1 give two report JSONs")
	}
	rep, err := ReadReport(filepath.Join(dir, "a.db"), nil)
	if err != nil {
		t.Fatal(err)
	}
	var back Report
	if err := json.Unmarshal(reports[0], &back); err != nil || !reflect.DeepEqual(&back, rep) {
		t.Errorf("the report JSON does not decode to the report (%v)", err)
	}
	runs := rep.Experiments[0].Runs
	if len(runs) != 3 {
		t.Fatalf("%d runs", len(runs))
	}
	for _, r := range runs {
		s := r.Series
		if s == nil || r.Metrics == nil || r.Metrics.Jobs != 101 {
			t.Fatalf("%s: series %v, metrics %+v", r.Arch, s, r.Metrics)
		}
		if s.Interval != 1000 || len(s.Starts) != 101 {
			t.Fatalf("%s: %d bins of %g s, want 101 of 1000 s (end %g s)", r.Arch, len(s.Starts), s.Interval, r.Metrics.End)
		}
		for i, n := range s.Starts {
			want := 0.0
			switch {
			case i%10 == 0 && i < 100:
				want = 10
			case i == 100:
				want = 1
			}
			if n != want {
				t.Fatalf("%s: %g starts in the bin at %g s, want %g (starts %v)", r.Arch, n, float64(i)*s.Interval, want, s.Starts)
			}
		}
		if s.Arrivals[0] != 100 || s.Arrivals[100] != 1 || s.Ends[10] != 10 || s.Ends[100] != 11 {
			t.Errorf("%s: arrivals %v, ends %v", r.Arch, s.Arrivals, s.Ends)
		}
	}
	for _, a := range rep.Experiments[0].Aggregates {
		if a.Runs != 1 || a.Series == nil || !reflect.DeepEqual(a.Series.Starts, runsOf(runs, a.Arch).Series.Starts) {
			t.Errorf("%s: the mean of one run is not the run: %+v", a.Arch, a.Series)
		}
	}
}

func runsOf(runs []RunRow, arch string) RunRow {
	for _, r := range runs {
		if r.Arch == arch {
			return r
		}
	}
	return RunRow{}
}

// The mean over repetitions merges the finer bins into the coarsest
// interval, and averages each bin over the repetitions that reach it.
func TestMeanSeries(t *testing.T) {
	a := &Series{Interval: 1, Arrivals: []float64{1, 1, 1, 1, 1, 1, 1}, Starts: make([]float64, 7), Ends: make([]float64, 7),
		Messages: map[string][]float64{"DMM": {0, 0, 0, 0, 0, 0, 4}}}
	b := &Series{Interval: 5, Arrivals: []float64{3}, Starts: []float64{1}, Ends: []float64{2}, Messages: map[string][]float64{}}
	for _, tc := range []struct {
		name string
		in   []*Series
		want *Series
	}{
		{"none", nil, nil},
		{"no series", []*Series{nil, nil}, nil},
		{"one", []*Series{nil, b}, b},
		{"two intervals", []*Series{a, nil, b}, &Series{Interval: 5, Arrivals: []float64{4, 2}, Starts: []float64{0.5, 0}, Ends: []float64{1, 0},
			Messages: map[string][]float64{"DMM": {0, 4}}}},
		{"intervals not multiples", []*Series{a, {Interval: 1.5, Arrivals: []float64{1}, Starts: []float64{1}, Ends: []float64{1}}}, nil},
	} {
		got := meanSeries(tc.in)
		if !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%s: %+v, want %+v", tc.name, got, tc.want)
		}
	}
}

// The report directory has the jobs and messages over time of each
// (scenario, architecture, load), and the page shows them.
func TestSeriesFigures(t *testing.T) {
	dir := t.TempDir()
	e := t1Experiment(t, dir)
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
	page, err := os.ReadFile(filepath.Join(out, "index.html"))
	if err != nil {
		t.Fatal(err)
	}
	for _, arch := range []string{"central", "sep-c", "cern"} {
		for _, f := range []string{"jobs-over-time", "messages-over-time"} {
			name := "t1_default_" + arch + "_100_" + f
			if !strings.Contains(string(page), name+".png") {
				t.Errorf("index.html does not show %s", name)
			}
			for _, ext := range []string{".png", ".svg"} {
				if fi, err := os.Stat(filepath.Join(out, name+ext)); err != nil || fi.Size() == 0 {
					t.Errorf("%s%s: %v", name, ext, err)
				}
			}
		}
	}
}

// The report's JSON has its arrays of numbers on one line, and only their
// white space taken out: it decodes to the same values.
func TestCompactNumberArrays(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"[\n  1,\n  2.5,\n  -3e-7\n]", "[1,2.5,-3e-7]"},
		{"[]", "[]"},
		{"{\n  \"a\": [\n    1\n  ],\n  \"b\": \"[ 1, 2 ]\"\n}", "{\n  \"a\": [1],\n  \"b\": \"[ 1, 2 ]\"\n}"},
		{"[\n  \"x\",\n  1\n]", "[\n  \"x\",\n  1\n]"},
		{"[\n  [\n    1\n  ],\n  [\n    2\n  ]\n]", "[\n  [1],\n  [2]\n]"},
		{"\"a\\\"[ 1 ]\"", "\"a\\\"[ 1 ]\""},
		{"[ 1, 2", "[ 1, 2"},
	} {
		if got := string(compactNumberArrays([]byte(tc.in))); got != tc.want {
			t.Errorf("%q: %q, want %q", tc.in, got, tc.want)
		}
	}
}
