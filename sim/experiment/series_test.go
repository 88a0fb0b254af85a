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

	"github.com/gmark/gmark/examples"
	"github.com/gmark/gmark/internal/testkit"
)

// t1Experiment is the thesis's T1 (Sec. 6.4.1) as an experiment: one
// cluster of 10 processors (the t1 preset), 100 jobs of one processor and
// 10,000 s submitted at t = 0 (a burst), under the architectures without
// an information delay, with cool-down.
func t1Experiment(t *testing.T, dir string) *Experiment {
	t.Helper()
	return load(t, dir, `name = "t1"
topology = "t1"
architectures = ["central", "sep-c", "cern"]
loads = [100]
[workload]
kind = "burst"
jobs = 100
processors = 1
runtime = "10000s"
[settings]
cool_down = true
aligned_cycles = true
info_period = 0
`)
}

// T1 in the stored series: under each architecture without an
// information delay, the 100 arrivals in the first bin and 10 starts in
// each of the bins at 0, 10,000, …, 90,000 s, none between (bins of 1,000
// s: the run lasts 100,000 s, and its last bin, of the last wave's ends,
// starts there); the report JSON decodes to the report, and is the same,
// byte for byte, from another execution into another store.
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
		if s == nil || r.Metrics == nil || r.Metrics.Jobs != 100 {
			t.Fatalf("%s: series %v, metrics %+v", r.Arch, s, r.Metrics)
		}
		if s.Interval != 1000 || len(s.Starts) != 101 {
			t.Fatalf("%s: %d bins of %g s, want 101 of 1000 s (end %g s)", r.Arch, len(s.Starts), s.Interval, r.Metrics.End)
		}
		for i := range s.Starts {
			var starts, ends, arrivals float64
			if i%10 == 0 && i < 100 {
				starts = 10
			}
			if i%10 == 0 && i > 0 {
				ends = 10
			}
			if i == 0 {
				arrivals = 100
			}
			if s.Starts[i] != starts || s.Ends[i] != ends || s.Arrivals[i] != arrivals {
				t.Fatalf("%s: bin at %g s: %g arrivals, %g starts, %g ends; want %g, %g, %g", r.Arch, float64(i)*s.Interval,
					s.Arrivals[i], s.Starts[i], s.Ends[i], arrivals, starts, ends)
			}
		}
	}
	for _, a := range rep.Experiments[0].Aggregates {
		if a.Runs != 1 || a.Series == nil || !reflect.DeepEqual(a.Series.Starts, runsOf(runs, a.Arch).Series.Starts) {
			t.Errorf("%s: the mean of one run is not the run: %+v", a.Arch, a.Series)
		}
	}
}

// The shipped T1 self-test (examples/sim/t1-selftest.toml) in the stored
// series: in every scenario the 10 waves of 10 starts are in the bins of
// their times, wave k at (k−1)·10,000 + δ when the grid scheduler
// overcommits and (k−1)·10,000 + k·δ under soft reservation (docs/sim.md,
// T1), and no start is anywhere else.
func TestSeriesT1SelfTestExample(t *testing.T) {
	const name = "sim/t1-selftest.toml"
	b, err := examples.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	e, err := Parse(filepath.Join("examples", name), b, Options{})
	if err != nil {
		t.Fatal(err)
	}
	db := filepath.Join(t.TempDir(), "t1.db")
	if _, err := Execute(context.Background(), e, RunOptions{DB: db, Parallel: 2}); err != nil {
		t.Fatal(err)
	}
	rep, err := ReadReport(db, nil)
	if err != nil {
		t.Fatal(err)
	}
	runs := rep.Experiments[0].Runs
	if len(runs) != 8 {
		t.Fatalf("%d runs", len(runs))
	}
	for _, r := range runs {
		var delta float64
		reserve := strings.HasPrefix(r.Scenario, "reserve-")
		if _, err := fmt.Sscanf(strings.TrimPrefix(r.Scenario, "reserve-"), "delta-%g", &delta); err != nil {
			t.Fatalf("scenario %q: %v", r.Scenario, err)
		}
		s := r.Series
		if s == nil {
			t.Fatalf("%s: no series", r.Scenario)
		}
		want := make([]float64, len(s.Starts))
		for k := 1; k <= 10; k++ {
			at := float64(k-1)*10_000 + delta
			if reserve {
				at = float64(k-1)*10_000 + float64(k)*delta
			}
			want[int(at/s.Interval)] += 10
		}
		if !reflect.DeepEqual(s.Starts, want) {
			t.Errorf("%s: starts per %g s\n%v\nwant\n%v", r.Scenario, s.Interval, s.Starts, want)
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
	t.Parallel()
	testkit.CheckFigures(t) // every figure passes the checks of plots
	dir := t.TempDir()
	_, out := runAndReport(t, t1Experiment(t, dir), dir)
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
