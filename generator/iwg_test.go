package generator

import (
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gmark/gmark/wdl"
	"github.com/gmark/gmark/workload"
)

// loadOf is the offered load of generated jobs on procs processors.
func loadOf(jobs []workload.Job, procs int) float64 {
	work := 0.0
	first, last := jobs[0].Submit.Seconds(), jobs[0].Submit.Seconds()
	for _, j := range jobs {
		last = math.Max(last, j.Submit.Seconds())
		if j.Kind == workload.Composite {
			for _, t := range j.Tasks {
				work += float64(t.Processors()) * t.RunTime.Seconds()
			}
		} else {
			work += float64(j.Processors()) * j.RunTime.Seconds()
		}
	}
	return work / (float64(procs) * (last - first))
}

// Iterative workload generation reaches the target load within the
// tolerance, with and without the daily cycle, for both models, and is
// deterministic.
func TestTargetLoad(t *testing.T) {
	dir := t.TempDir()
	grid := "[[cluster]]\nname = \"a\"\nprocessors = 144\n[[cluster]]\nname = \"b\"\nprocessors = 240\n"
	if err := os.WriteFile(filepath.Join(dir, "grid.toml"), []byte(grid), 0o644); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		typ, other  string
		target, tol float64
		procs       int
	}{
		{"bot", "TargetLoad=0.7,Processors=384,Tolerance=0.02", 0.7, 0.02, 384},
		{"bot", "TargetLoad=0.3,Processors=384,Tolerance=0.005,DailyCycle=off", 0.3, 0.005, 384},
		{"lublin", "Variant=grid,TargetLoad=0.5,Grid=grid.toml", 0.5, 0.01, 384},
		{"lublin", "Variant=batch,TargetLoad=0.9,Processors=128,Tolerance=0.02", 0.9, 0.02, 128},
	}
	for _, c := range cases {
		t.Run(c.typ+" "+c.other, func(t *testing.T) {
			path := filepath.Join(dir, "m.wdl")
			src := "3000\twl:" + c.typ + "\tsingle\t1\t*:?\t-\t" + c.other + "\n"
			if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
				t.Fatal(err)
			}
			spec := parseSpecFile(t, path)
			jobs := generate(t, spec, 4)
			if l := loadOf(jobs, c.procs); math.Abs(l-c.target) > c.tol+1e-9 {
				t.Errorf("offered load %.4f, want %.2f ± %g", l, c.target, c.tol)
			}
			again := generate(t, parseSpecFile(t, path), 4)
			if len(again) != len(jobs) || again[len(again)-1].Submit != jobs[len(jobs)-1].Submit {
				t.Error("not deterministic")
			}
		})
	}
	// An iteration budget too small to get there.
	spec := modelSpec(t, 2000, "bot", "-", "TargetLoad=5,Processors=10,Tolerance=0.0001,MaxIterations=1")
	if _, err := New(spec, 1); err == nil || !strings.Contains(err.Error(), "not reached") {
		t.Errorf("error %v", err)
	}
}

// TargetLoad on a plain job unit: the unit's inter-arrival times are scaled
// until its offered load is the target.
func TestTargetLoadOnAJobUnit(t *testing.T) {
	src := "500\tswf\tunordered\t16\t-\tPoisson(60s)\tNSites=2,RunTime=U(60s,120s),TargetLoad=0.5,Processors=384,Tolerance=0.005\n"
	spec, err := wdl.Parse("iwg.wdl", []byte(src), os.ReadFile)
	if err != nil {
		t.Fatal(err)
	}
	g, err := New(spec, 3)
	if err != nil {
		t.Fatal(err)
	}
	var work, first, last float64
	n := 0
	if _, err := g.Generate(func(j *workload.Job) error {
		if n == 0 {
			first = j.Submit.Seconds()
		}
		last = j.Submit.Seconds()
		work += float64(j.Processors()) * j.RunTime.Seconds()
		n++
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if load := work / (384 * (last - first)); math.Abs(load-0.5) > 0.005 {
		t.Errorf("offered load %.4f, want 0.5 ± 0.005", load)
	}
	// Without run times there is no load to tune.
	spec, _ = wdl.Parse("iwg.wdl", []byte("500\tsser\tsingle\t1\t*:?\tPoisson(60s)\tTargetLoad=0.5,Processors=384\n"), os.ReadFile)
	if _, err := New(spec, 3); err == nil || !strings.Contains(err.Error(), "iwg.wdl:1:36: TargetLoad needs the jobs' run times") {
		t.Errorf("job unit without run times: %v", err)
	}
}
