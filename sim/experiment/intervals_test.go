package experiment

import (
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/gmark/gmark/internal/testkit"
)

// domains are the values each metric of the sim report can take, by its
// axis label, written out here rather than read from the code that draws
// them: a utilization and a rate of success or kills in [0, 1], JF a
// percentage, the bounded slowdown at least 1, every other metric (times,
// goodput, counts) at least 0.
var domains = map[string][2]float64{
	"U": {0, 1}, "JF %": {0, 100}, "ASD": {1, math.Inf(1)},
	"global success": {0, 1}, "local kill rate": {0, 1}, "total utilization": {0, 1},
}

func domainOfLabel(label string) [2]float64 {
	if d, ok := domains[label]; ok {
		return d
	}
	return [2]float64{0, math.Inf(1)}
}

// sweepReport runs examples/sim/sweep.toml (its repetitions set to reps)
// at a tenth of its length and writes its report; it returns the report's
// directory and the page.
func sweepReport(t *testing.T, reps int) (string, string) {
	t.Helper()
	dir := t.TempDir()
	src, err := os.ReadFile(filepath.Join(testkit.RepoRoot(t), "examples", "sim", "sweep.toml"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(src), "repetitions = 2\n") {
		t.Fatal("examples/sim/sweep.toml no longer has two repetitions: update the test")
	}
	path := filepath.Join(dir, "sweep.toml")
	if err := os.WriteFile(path, []byte(strings.Replace(string(src), "repetitions = 2\n", "repetitions = "+strconv.Itoa(reps)+"\n", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	e, err := Load(path, Options{Scale: 0.1})
	if err != nil {
		t.Fatal(err)
	}
	_, out := runAndReport(t, e, dir)
	page, err := os.ReadFile(filepath.Join(out, "index.html"))
	if err != nil {
		t.Fatal(err)
	}
	return out, string(page)
}

// The sweep's figures against the load, checked in their data: every
// point at one of its scenario's load levels, every mean and every end of
// an interval within its metric's domain; with two repetitions (as the
// example ships) no interval at all, and the captions say why; with three,
// intervals, some of which reach past their domain and are cut there, as
// the captions say. (Over two repetitions, the intervals reached a
// utilization of −0.8 and 1.5, a JF of −100% and 220%, negative waits.)
//
// Slow: 42 s at load 20–40 (2 cores, whole package run, when its tests ran
// one at a time): the sweep simulated with one, two and three repetitions
// (CPU).
func TestSweepFigureData(t *testing.T) {
	t.Parallel()
	levels := map[string][]float64{"balanced": {10, 30, 50, 70, 90}, "imbalanced": {100, 150}}
	for _, reps := range []int{2, 3} {
		t.Run(strconv.Itoa(reps)+" repetitions", func(t *testing.T) {
			out, page := sweepReport(t, reps)
			files, _ := filepath.Glob(filepath.Join(out, "sweep_*.csv"))
			figures, bars := 0, 0
			for _, f := range files {
				name := filepath.Base(f)
				if strings.HasSuffix(name, "-over-time.csv") {
					continue
				}
				scenario := strings.Split(name, "_")[1]
				header, rows := readCSV(t, f)
				if header[1] != "load (%)" {
					t.Errorf("%s: x axis %q", name, header[1])
				}
				dom := domainOfLabel(header[2])
				figures++
				for _, r := range rows {
					x, errX := strconv.ParseFloat(r[1], 64)
					y, errY := strconv.ParseFloat(r[2], 64)
					if errX != nil || errY != nil {
						t.Fatalf("%s: row %q", name, r)
					}
					if !slices.Contains(levels[scenario], x) {
						t.Errorf("%s: row %q at x = %g, not a load level of %s %v", name, r, x, scenario, levels[scenario])
					}
					if y < dom[0] || y > dom[1] {
						t.Errorf("%s: row %q: %s = %g outside its domain %v", name, r, header[2], y, dom)
					}
					if r[3] == "bar_low" || r[3] == "bar_high" {
						bars++
					}
				}
			}
			if figures < 16 {
				t.Errorf("%d figures against the load", figures)
			}
			switch reps {
			case 2:
				if bars != 0 {
					t.Errorf("%d interval ends drawn over two repetitions", bars)
				}
				if n := strings.Count(page, "each point is over 2 repetitions, fewer than the 3 an interval needs"); n != figures {
					t.Errorf("%d captions of %d figures say why they have no intervals", n, figures)
				}
			case 3:
				if bars == 0 {
					t.Error("no interval drawn over three repetitions")
				}
				if !strings.Contains(page, "cut at the bounds of the metric") {
					t.Error("no caption says an interval was cut at its metric's bounds")
				}
			}
		})
	}
}
