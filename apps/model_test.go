package apps

import (
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/gmark/gmark/apps/launch"
	"github.com/gmark/gmark/apps/lunar"
)

// timedRun runs `gmark app NAME ARGS` as a job of procs processes, as the
// bundled core's process executor does (package launch, a directory of its
// own), and returns its wall time, start to the last exit, the CPU time
// (user and system) of its processes, per process, and rank 0's summary.
func timedRun(t testing.TB, name string, args []string, procs int) (wall, cpu float64, summary map[string]any) {
	t.Helper()
	dir, err := os.MkdirTemp("", "gmark-model-")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(dir)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	spec := launch.Spec{JobID: "model", Executable: gmark, Args: append([]string{"app", name, "--quiet"}, args...),
		Components: []int{procs}, Dir: dir, Env: []string{"PATH=" + os.Getenv("PATH"), "HOME=" + os.Getenv("HOME")}}
	before := childrenCPU(t)
	t0 := time.Now()
	res, err := launch.Run(ctx, spec)
	took := time.Since(t0).Seconds()
	cpu = (childrenCPU(t) - before) / float64(procs)
	if err != nil {
		t.Fatalf("%s %v: %v", name, args, err)
	}
	for _, r := range res {
		if r.ExitCode != 0 {
			t.Fatalf("%s %v: rank exited %d: %s", name, args, r.ExitCode, r.Stderr)
		}
	}
	s, err := res[0].Summary()
	if err != nil {
		t.Fatalf("%s %v: %v", name, args, err)
	}
	return took, cpu, s
}

// childrenCPU is the user and system time of this process's reaped
// children so far, in seconds. The tests of this file run one job at a
// time, so its difference over a run is that run's processes'.
func childrenCPU(t testing.TB) float64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_CHILDREN, &ru); err != nil {
		t.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()).Seconds()
}

// fastest is the least wall time of reps runs: a busy machine only ever
// slows a run down. The CPU time is the least of the same runs.
func fastest(t testing.TB, reps int, name string, args []string, procs int) (wall, cpu float64) {
	wall, cpu = math.Inf(1), math.Inf(1)
	for range reps {
		w, c, _ := timedRun(t, name, args, procs)
		wall, cpu = min(wall, w), min(cpu, c)
	}
	return wall, cpu
}

func words(s string) []string { return strings.Fields(s) }

// TestRunTimeAgainstRuns: the model's run time of each application at two
// settings against real runs. The bounds are wide (the machine may be
// faster than the one calibrated): the run takes at least a fifth of the
// model's time, and its processes spend at most five times it plus a
// quarter second of CPU each. The upper bound is on CPU time, not wall
// time: a machine busy with other work stretches a run's wall time without
// limit, but not the CPU its processes use. The exact figures are
// TestCalibrate's (docs/apps.md).
func TestRunTimeAgainstRuns(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the applications for a few seconds")
	}
	workers := runtime.GOMAXPROCS(0)
	cases := []struct {
		app   string
		args  string
		procs int
	}{
		{"hello", "", 1},
		{"hello", "", 2},
		{"sser", "--supersteps 10 --memory 100 --elements 10 --compute 10", 1},
		{"sser", "--supersteps 2 --memory 100 --elements 1000 --compute 10", 1},
		{"sserio", "--supersteps 1 --memory 10 --input1 256 --input2 0 --output1 0 --output2 0 --output3 0", 1},
		{"sserio", "--supersteps 5 --memory 100 --elements 100 --compute 10", 1},
		{"smpi", "--supersteps 10 --memory 10 --compute 2 --exchange 1000", 2},
		{"smpi", "--supersteps 20 --memory 10 --compute 2 --exchange 100000", 2},
		{"lunar", "--dimension 12", 1},
		{"lunar", "--dimension 14 --flavour large", workers},
		{"swf", "--runtime 0.2", 1},
		{"swf", "--runtime 0.4 --scale 0.5 --mode cpu", 1},
	}
	for _, c := range cases {
		model, err := RunTime(c.app, words(c.args), c.procs)
		if err != nil {
			t.Fatalf("%s %s: %v", c.app, c.args, err)
		}
		got, cpu := fastest(t, 3, c.app, words(c.args), c.procs)
		m := model.Seconds()
		t.Logf("%-6s %-70s P=%d  measured %8.4fs (CPU %8.4fs a process)  model %8.4fs", c.app, c.args, c.procs, got, cpu, m)
		if got < m/5 {
			t.Errorf("%s %s (P=%d): ran %.4fs, under a fifth of the model's %.4fs", c.app, c.args, c.procs, got, m)
		}
		if cpu > 5*m+0.25 {
			t.Errorf("%s %s (P=%d): its processes spent %.4fs of CPU each, the model says %.4fs", c.app, c.args, c.procs, cpu, m)
		}
	}
}

// TestWorkCountsWhatTheAppsDo: the work the model counts is the work the
// applications report, exactly, defaults included.
func TestWorkCountsWhatTheAppsDo(t *testing.T) {
	cases := []struct {
		app   string
		args  string
		procs int
		check func(w Work, s map[string]any) error
	}{
		{"sser", "", 1, bspCounts},
		{"sser", "--supersteps 3 --memory 7 --elements 3 --compute 5 --max-memory 4KiB", 1, bspCounts},
		{"sserio", "--supersteps 1 --memory 1 --input2 16 --output3 0", 1, func(w Work, s map[string]any) error {
			if w.InputKB*1024 != fnum(s, "bytes_read") || w.OutputKB*1024 != fnum(s, "bytes_written") {
				return fmt.Errorf("KB in/out %v/%v", w.InputKB, w.OutputKB)
			}
			return bspCounts(w, s)
		}},
		{"smpi", "--supersteps 4 --memory 1 --exchange 30", 3, func(w Work, s map[string]any) error {
			if w.Elements != fnum(s, "received_elements") || w.Peers != fnum(s, "peers") {
				return fmt.Errorf("elements %v peers %v", w.Elements, w.Peers)
			}
			return bspCounts(w, s)
		}},
		{"smpi", "--supersteps 2 --memory 1", 1, func(w Work, s map[string]any) error {
			if w.Elements != 0 || w.Peers != 0 || w.Messages != 0 || fnum(s, "received_elements") != 0 {
				return fmt.Errorf("a single process exchanges nothing: %+v", w)
			}
			return bspCounts(w, s)
		}},
		{"lunar", "", 1, func(w Work, s map[string]any) error {
			if w.States != fnum(s, "states_explored") {
				return fmt.Errorf("states %v", w.States)
			}
			return nil
		}},
		{"swf", "--runtime 0.05 --scale 2", 1, func(w Work, s map[string]any) error {
			if w.Held != fnum(s, "hold_s") || w.Starts != 0 {
				return fmt.Errorf("held %v, starts %v", w.Held, w.Starts)
			}
			return nil
		}},
		{"hello", "", 1, func(w Work, _ map[string]any) error {
			if w != (Work{Starts: 1}) {
				return fmt.Errorf("hello does nothing but start: %+v", w)
			}
			return nil
		}},
	}
	for _, c := range cases {
		w, _, err := Plan(c.app, words(c.args), c.procs)
		if err != nil {
			t.Fatalf("%s %s: %v", c.app, c.args, err)
		}
		_, _, s := timedRun(t, c.app, words(c.args), c.procs)
		if err := c.check(w, s); err != nil {
			t.Errorf("%s %s: %v (summary %v)", c.app, c.args, err, s)
		}
	}
}

func bspCounts(w Work, s map[string]any) error {
	n := fnum(s, "supersteps")
	items := fnum(s, "memory") * 1000
	if w.Updates != fnum(s, "element_updates") || w.AllocBytes != fnum(s, "memory_bytes") ||
		w.Items != n*items || w.Sweeps != n*items*fnum(s, "compute") {
		return fmt.Errorf("updates %v alloc %v items %v sweeps %v", w.Updates, w.AllocBytes, w.Items, w.Sweeps)
	}
	return nil
}

// TestLunarStates: the table is what the exploration counts (up to 12 here;
// 13 to 16 take seconds), and the extrapolation keeps growing.
func TestLunarStates(t *testing.T) {
	for dim := 1; dim <= 12; dim++ {
		var c lunar.Counts
		lunar.Explore(dim, 1, &c, nil)
		if got := LunarStates(dim); got != float64(c.States.Load()) {
			t.Errorf("dimension %d: table %v, explored %d", dim, got, c.States.Load())
		}
	}
	if LunarStates(0) != 0 || LunarStates(-3) != 0 {
		t.Error("no states below dimension 1")
	}
	for dim := 2; dim <= lunar.MaxDimension; dim++ {
		if r := LunarStates(dim) / LunarStates(dim-1); !(r >= 1) || (dim > 12 && !(r > 5 && r < 14)) {
			t.Errorf("dimension %d: growth %v over %d", dim, r, dim-1)
		}
	}
}

// TestModelStructure: more of any parameter is never less time, and each
// parameter the work depends on makes a difference.
func TestModelStructure(t *testing.T) {
	cases := []struct {
		app, base, more string
		procs, moreP    int
	}{
		{"sser", "--supersteps 10", "--supersteps 20", 1, 1},
		{"sser", "--memory 10", "--memory 20", 1, 1},
		{"sser", "--elements 10", "--elements 11", 1, 1},
		{"sser", "--compute 2", "--compute 3", 1, 1},
		{"sserio", "--input1 0", "--input1 16", 1, 1},
		{"sserio", "--output2 16", "--output2 32", 1, 1},
		{"smpi", "--exchange 100", "--exchange 1000", 2, 2},
		{"smpi", "--supersteps 5", "--supersteps 6", 4, 4},
		{"smpi", "", "", 2, 3},
		{"smpi", "", "", 1, 2},
		{"lunar", "--dimension 12", "--dimension 13", 1, 1},
		{"lunar", "--dimension 17", "--dimension 18", 1, 1},
		{"swf", "--runtime 1", "--runtime 2", 1, 1},
		{"swf", "--runtime 1", "--runtime 1 --scale 1.5", 1, 1},
	}
	for _, c := range cases {
		a, err1 := RunTime(c.app, words(c.base), c.procs)
		b, err2 := RunTime(c.app, words(c.more), c.moreP)
		if err1 != nil || err2 != nil {
			t.Fatalf("%s: %v %v", c.app, err1, err2)
		}
		if !(a < b) {
			t.Errorf("%s %q P=%d: %v; %q P=%d: %v, want more", c.app, c.base, c.procs, a, c.more, c.moreP, b)
		}
	}
	// Every process of hello, sser, sserio and lunar does the same whatever
	// the job's size, and lunar's large flavour has only its own processor.
	for _, args := range []string{"hello", "sser", "sserio", "lunar", "lunar --flavour large"} {
		w := words(args)
		a, _ := RunTime(w[0], w[1:], 1)
		b, _ := RunTime(w[0], w[1:], 64)
		if a != b || a <= 0 {
			t.Errorf("%s: %v with 1 process, %v with 64", args, a, b)
		}
	}
}

func TestRunTimeEdges(t *testing.T) {
	cases := []struct {
		app   string
		args  string
		procs int
		want  time.Duration // -1: an error
	}{
		{"swf", "--runtime 2.5", 1, 2500 * time.Millisecond},
		{"swf", "--runtime 10 --scale 0.1", 8, time.Second},
		{"swf", "", 1, 0}, // an unknown run time: it exits at once
		{"smpi1", "--supersteps 1 --memory 1 --walltime 1ms", 2, time.Millisecond},
		{"sser", "--supersteps 2147483647 --memory 2147483647 --elements 1 --compute 1 --walltime 2h", 1, 2 * time.Hour},
		{"lunar", "--dimension 32", 1, math.MaxInt64}, // beyond any Duration: saturated
		{"hello", "", 0, seconds(Calibrated.Start)},
		{"nosuch", "", 1, -1},
		{"exec", "--executable /bin/true", 1, -1},
		{"sser", "--supersteps -3", 1, -1},
		{"sser", "--colour red", 1, -1},
		{"sser", "--help", 1, -1},
		{"smpi", "--supersteps", 1, -1},
	}
	for _, c := range cases {
		got, err := RunTime(c.app, words(c.args), c.procs)
		switch {
		case c.want < 0 && err == nil:
			t.Errorf("%s %s: %v, want an error", c.app, c.args, got)
		case c.want >= 0 && (err != nil || got != c.want):
			t.Errorf("%s %s: %v %v, want %v", c.app, c.args, got, err, c.want)
		}
	}
	if _, err := RunTime("nosuch", nil, 1); !errors.Is(err, ErrUnknownApp) {
		t.Errorf("unknown application: %v", err)
	}
	var ue *UsageError
	if _, err := RunTime("sser", words("--memory 0"), 1); !errors.As(err, &ue) || !strings.Contains(err.Error(), "--memory") {
		t.Errorf("bad flag: %v", err)
	}
}

// FuzzPlan: any command line gives work or an error, never a panic, and a
// run time that is never negative.
func FuzzPlan(f *testing.F) {
	f.Add("sser", "--supersteps 5 --memory 10", 1)
	f.Add("smpi", "--exchange 1000 --walltime 2s", 4)
	f.Add("lunar", "--dimension 31 --flavour large", 0)
	f.Add("swf", "--runtime 1e300 --scale 1e6", 1)
	f.Add("sserio", "--input1=16 --max-memory 8", -5)
	f.Fuzz(func(t *testing.T, app, args string, procs int) {
		w, wall, err := Plan(app, words(args), procs)
		if err != nil {
			return
		}
		if wall < 0 {
			t.Fatalf("walltime %v", wall)
		}
		if s := w.Seconds(Calibrated); s < 0 || math.IsNaN(s) {
			t.Fatalf("%+v: %v seconds", w, s)
		}
		if d, err := RunTime(app, words(args), procs); err != nil || d < 0 {
			t.Fatalf("RunTime %v %v", d, err)
		}
	})
}

func fnum(s map[string]any, k string) float64 {
	f, _ := s[k].(float64)
	return f
}
