package gate

import (
	"errors"
	"strings"
	"testing"

	"github.com/gmark/gmark/analyzer/metrics"
	"github.com/gmark/gmark/analyzer/store"
)

// The gate refuses sides that are not comparable: the same runs (one
// store twice, or a copy of it), a run on both sides, runs of another
// workload, spec or scenario (unless allowed).
func TestCheckSides(t *testing.T) {
	w30 := RunIdentity{Run: "base", Store: "a.db", Key: "k1", Workload: "1c910e87ef3b0000", Spec: "aa", SpecPath: "examples/koala-w30.wdl", Scenario: "p/w30"}
	again := w30
	again.Run, again.Store, again.Key = "new", "b.db", "k2"
	copied := w30
	copied.Store = "copy.db"
	qs := RunIdentity{Run: "qs", Store: "b.db", Key: "k3", Workload: "ee9a44a55ce40000", Spec: "bb", SpecPath: "examples/quickstart.wdl", Scenario: "p/w30"}
	otherSpec := again
	otherSpec.Spec, otherSpec.SpecPath = "cc", "other.wdl"
	otherScenario := again
	otherScenario.Scenario = "p/w30-slow"
	cases := []struct {
		name       string
		base, cur  []RunIdentity
		allow      bool
		err        string // "" accepted
		errAllowed string // the error with allow, when it differs
	}{
		{"another run of the workload", []RunIdentity{w30}, []RunIdentity{again}, false, "", ""},
		{"the same run", []RunIdentity{w30}, []RunIdentity{w30}, false, "the new runs are the baseline's runs (base of a.db is the baseline's base of a.db)", ""},
		{"a copy of the store", []RunIdentity{w30}, []RunIdentity{copied}, true, "the new runs are the baseline's runs (base of copy.db is the baseline's base of a.db)", ""},
		{"a run on both sides", []RunIdentity{w30}, []RunIdentity{again, w30}, true, "runs on both sides: base of a.db", ""},
		{"another workload", []RunIdentity{w30}, []RunIdentity{qs}, false,
			"the sides differ in their workload (SHA-256 of workload.jsonl): baseline base 1c910e87ef3b (from examples/koala-w30.wdl), new qs ee9a44a55ce4 (from examples/quickstart.wdl)", ""},
		{"another workload, allowed", []RunIdentity{w30}, []RunIdentity{qs}, true, "", ""},
		{"another spec", []RunIdentity{w30}, []RunIdentity{otherSpec}, false, "differ in their spec: baseline base examples/koala-w30.wdl (aa), new new other.wdl (cc)", ""},
		{"another scenario", []RunIdentity{w30}, []RunIdentity{otherScenario}, false, "differ in their scenario: baseline base p/w30, new new p/w30-slow", ""},
		{"two workloads a side, the same two", []RunIdentity{w30, qs}, []RunIdentity{again, {Run: "qs2", Key: "k4", Workload: qs.Workload, Spec: qs.Spec, Scenario: qs.Scenario}}, false, "", ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			err := CheckSides(c.base, c.cur, c.allow)
			var me *MismatchError
			switch {
			case c.err == "" && err != nil:
				t.Errorf("refused: %v", err)
			case c.err != "" && (err == nil || !strings.Contains(err.Error(), c.err)):
				t.Errorf("error %v, want %q", err, c.err)
			case err != nil && !errors.As(err, &me):
				t.Errorf("%T, want a *MismatchError", err)
			}
		})
	}
}

// Runs on different clocks are not compared: the makespan of a local run
// at speedup 10 (a compressed schedule of jobs in real time) against one
// at speedup 1; job durations of the bundled core's emulated jobs reported
// in wall time (--wall-time) against real ones. Job metrics of local runs
// at speedups 1 and 10 do compare: both are the jobs' real durations.
func TestCompareRefusesDifferentClocks(t *testing.T) {
	at := func(id, target string, speedup, scale float64, wall bool) *metrics.RunMetrics {
		rd := &metrics.RunData{ID: id, Target: target, Speedup: speedup, JobScale: scale}
		for i := range 12 {
			sub := int64(946684800+10*i) * 1e9
			rd.Jobs = append(rd.Jobs, metrics.Job{JobFacts: store.JobFacts{ID: "j", Processors: 1, Components: 1, ScheduledNS: sub, SubmitNS: sub,
				StartNS: sub + 1e9, EndNS: sub + 6e9, State: metrics.Succeeded}})
		}
		return metrics.Compute(rd, metrics.Options{WallTime: wall})
	}
	cases := []struct {
		name      string
		base, cur *metrics.RunMetrics
		metrics   []string
		err       string
	}{
		{"local at 1 and 10: the jobs", at("a", "local", 1, 1, false), at("b", "local", 10, 1, false), nil, ""},
		{"local at 1 and 10: the makespan", at("a", "local", 1, 1, false), at("b", "local", 10, 1, false), []string{"makespan"},
			"runs a and b are on different clocks (makespan and throughput: wall time against wall time of a schedule compressed 10× (jobs 1×))"},
		{"the core at 10 in workload time and local at 1", at("a", "local", 1, 1, false), at("b", "koala", 10, 10, false), []string{"mean-wait", "makespan"}, ""},
		{"the core at 10 in wall time and local at 1", at("a", "local", 1, 1, true), at("b", "koala", 10, 10, true), []string{"mean-wait"},
			"job durations: wall time (jobs in real time) against wall time of jobs compressed 10× (--wall-time)"},
		{"the rate has no clock", at("a", "local", 1, 1, true), at("b", "koala", 10, 10, true), []string{"success-rate", "mean-delay"}, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := Compare([]*metrics.RunMetrics{c.base}, []*metrics.RunMetrics{c.cur}, Config{Metrics: c.metrics})
			if c.err == "" && err != nil || c.err != "" && (err == nil || !strings.Contains(err.Error(), c.err)) {
				t.Errorf("error %v, want %q", err, c.err)
			}
		})
	}
}
