package metrics

import (
	"math"
	"testing"
)

// The hand run's composite job 3-0 is a chain a -> b: a ran 35..55 s, b
// 65..95 s, so its critical path is 20 + 30 = 50 s, its response 95 − 30
// = 65 s (a submitted at 30), its slowdown 1.3 and efficiency 50/65.
func TestWorkflowMetricsHandRun(t *testing.T) {
	rd := handRun()
	rd.DAGs = map[string][][2]string{"3-0": {{"3-0.a", "3-0.b"}}}
	m := Compute(rd, Options{})
	w := m.Workflows
	if w == nil || w.Workflows != 1 || len(w.PerWorkflow) != 1 {
		t.Fatalf("workflows %+v", w)
	}
	x := w.PerWorkflow[0]
	if x.ID != "3-0" || x.Tasks != 2 || !near(x.CriticalPath, 50) || !near(x.Response, 65) || !near(x.Slowdown, 1.3) || !near(x.Efficiency, 50.0/65) {
		t.Errorf("3-0: %+v", x)
	}
	// The gate's samples: the composite job's value, NaN for the others.
	s := m.Samples
	if len(s.JobWorkflowSlowdown) != len(s.JobSubmit) {
		t.Fatalf("%d workflow samples for %d jobs", len(s.JobWorkflowSlowdown), len(s.JobSubmit))
	}
	n := 0
	for i, v := range s.JobWorkflowSlowdown {
		if !math.IsNaN(v) {
			n++
			if !near(v, 1.3) || !near(s.JobCPEfficiency[i], 50.0/65) {
				t.Errorf("sample %d: %g %g", i, v, s.JobCPEfficiency[i])
			}
		}
	}
	if n != 1 {
		t.Errorf("%d workflow samples", n)
	}
	// Without the edge the tasks are independent: the critical path is the
	// longer task, 30 s.
	rd = handRun()
	rd.DAGs = map[string][][2]string{"3-0": nil}
	if x := Compute(rd, Options{}).Workflows.PerWorkflow[0]; !near(x.CriticalPath, 30) {
		t.Errorf("no dependencies: critical path %g", x.CriticalPath)
	}
}

func TestWorkflowMetricsLeftOut(t *testing.T) {
	// No dag event recorded: left out, and said why.
	m := Compute(handRun(), Options{})
	if w := m.Workflows; w == nil || w.Workflows != 0 || w.LeftOut["dependencies not recorded (run before gmark recorded them)"] != 1 {
		t.Errorf("%+v", w)
	}
	// A run without composite jobs has none.
	rd := handRun()
	rd.Jobs = rd.Jobs[:5]
	if m := Compute(rd, Options{}); m.Workflows != nil || m.Samples.JobWorkflowSlowdown != nil {
		t.Errorf("a run without composite jobs: %+v", m.Workflows)
	}
	// A dependency on a task not recorded, and a cycle.
	for name, deps := range map[string][][2]string{
		"a dependency names a task not recorded": {{"3-0.a", "3-0.z"}},
		"dependencies that are no DAG":           {{"3-0.a", "3-0.b"}, {"3-0.b", "3-0.a"}},
	} {
		rd := handRun()
		rd.DAGs = map[string][][2]string{"3-0": deps}
		if w := Compute(rd, Options{}).Workflows; w.LeftOut[name] != 1 {
			t.Errorf("%s: %+v", name, w.LeftOut)
		}
	}
}
