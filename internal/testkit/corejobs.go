package testkit

import (
	"fmt"
	"testing"
	"time"

	"github.com/gmark/gmark/apps"
	"github.com/gmark/gmark/workload"
)

// The workloads that the bundled core's tests give it both live (the koala
// target, submitter/koalatarget) and in simulated time (sim/coresim), so
// that the two are held to the same figures.

// DeadlineJobs are n jobs with start deadlines, 20 s apart, each due 100 s
// after its submission plus a few milliseconds more per job (a deadline
// that a late submission would move is told from one that it does not).
func DeadlineJobs(n int) []workload.Job {
	var out []workload.Job
	for i := range n {
		at := time.Duration(i) * 20 * time.Second
		out = append(out, workload.Job{ID: fmt.Sprint(i + 1), Kind: workload.Unitary, Type: "swf", SiteType: workload.Unordered,
			Submit: at, Deadline: at + 100*time.Second + time.Duration(i)*7*time.Millisecond, RunTime: 30 * time.Second,
			App: workload.App{Name: "swf"}, Components: []workload.Component{{Site: "*", Count: 4}, {Site: "*", Count: 4}}})
	}
	return out
}

// RunTimeJobs are a hello job with no run time (the model's), an swf job
// with one (the job's) and a program gmark does not know (the core's
// default_runtime).
func RunTimeJobs() []workload.Job {
	one := []workload.Component{{Site: "*", Count: 1}}
	return []workload.Job{
		{ID: "hello", Kind: workload.Unitary, Type: "hello", SiteType: workload.Single, App: workload.App{Name: "hello"}, Components: one},
		{ID: "swf", Kind: workload.Unitary, Type: "swf", SiteType: workload.Single, RunTime: 30 * time.Second,
			App: workload.App{Name: "swf", Params: []workload.Param{{Key: "runtime", Value: "30"}}}, Components: one},
		{ID: "exec", Kind: workload.Unitary, Type: "exec", SiteType: workload.Single,
			App: workload.App{Name: "exec", Params: []workload.Param{{Key: "executable", Value: "/bin/true"}}}, Components: one},
	}
}

// RunTime is how long the core emulates a job for, and where that came
// from (the runtime_source of its events: job, model or default).
type RunTime struct {
	Source  string
	RunTime time.Duration
}

// RunTimeWant is what the core makes of each of RunTimeJobs, by job id,
// with the default_runtime of a grid that sets none (a minute).
func RunTimeWant(t testing.TB) map[string]RunTime {
	t.Helper()
	hello, err := apps.RunTime("hello", nil, 1)
	if err != nil {
		t.Fatal(err)
	}
	return map[string]RunTime{
		"hello": {"model", hello},
		"swf":   {"job", 30 * time.Second},
		"exec":  {"default", time.Minute},
	}
}
