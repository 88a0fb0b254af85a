package experiment

import (
	"context"
	"iter"
	"strconv"

	"github.com/gmark/gmark/sim/topology"
	"github.com/gmark/gmark/workload"
)

// A burst workload is a number of identical jobs all submitted at time 0:
// the thesis's functional self-test T1 (Sec. 6.4.1: 100 jobs of 10,000 s on
// one cluster of 10 processors). It has no arrival process, so no load
// level applies to it and --scale does not shorten it.

// MaxBurstJobs bounds a burst's jobs.
const MaxBurstJobs = 1_000_000

// burstKeys are the settings only a burst workload takes.
var burstKeys = []string{"jobs", "processors", "runtime", "site"}

func (p *parser) burst(m *workloadSpec, w *Workload, path func(string) string, e *Experiment) {
	for _, k := range []string{"span", "tolerance", "max_iterations", "lf", "trace", "format", "from", "to", "sites", "spec", "fixed_load", "load_scale"} {
		if wsSet(m, k) {
			p.errorf(path(k), "%s is not a setting of a %s workload (jobs, processors, runtime, site)", k, KindBurst)
		}
	}
	switch {
	case m.Jobs == nil:
		p.errorf(path("kind"), "a %s workload needs jobs = N (1 to %d)", KindBurst, MaxBurstJobs)
	case *m.Jobs < 1 || *m.Jobs > MaxBurstJobs:
		p.errorf(path("jobs"), "jobs = %d: must be from 1 to %d", *m.Jobs, MaxBurstJobs)
	default:
		w.Jobs = int(*m.Jobs)
	}
	w.Processors = 1
	if m.Processors != nil {
		if *m.Processors < 1 || *m.Processors > topology.MaxProcessors {
			p.errorf(path("processors"), "processors = %d: must be from 1 to %d", *m.Processors, topology.MaxProcessors)
		} else {
			w.Processors = int(*m.Processors)
		}
	}
	if m.RunTime == nil {
		p.errorf(path("kind"), "a %s workload needs runtime = DURATION (each job's run time at speed 1, e.g. \"10000s\")", KindBurst)
	} else if d, ok := p.duration(m.RunTime, path("runtime")); ok {
		if d <= 0 {
			p.errorf(path("runtime"), "runtime = %v: a job runs for some time (above 0)", d)
		}
		w.RunTime = d
	}
	if m.Site != nil {
		w.Site = *m.Site
		if e.top == nil {
			return
		}
		if i, ok := e.top.Index(w.Site); !ok {
			p.errorf(path("site"), "site %q is not a cluster or site of the topology", excerpt(w.Site))
		} else if len(e.top.Subtree(i)) == 0 {
			p.errorf(path("site"), "site %q has no cluster below it", w.Site)
		}
	}
}

// notBurst reports the burst settings in a workload of another kind.
func (p *parser) notBurst(m *workloadSpec, path func(string) string, kind string) {
	for _, k := range burstKeys {
		if wsSet(m, k) {
			p.errorf(path(k), "%s is a setting of a %s workload, not of %s", k, KindBurst, kind)
		}
	}
}

func mergeBurst(m, o *workloadSpec) {
	if o.Jobs != nil {
		m.Jobs = o.Jobs
	}
	if o.Processors != nil {
		m.Processors = o.Processors
	}
	if o.RunTime != nil {
		m.RunTime = o.RunTime
	}
	if o.Site != nil {
		m.Site = o.Site
	}
}

// burstSet tells whether a burst setting is given (ok: key is one).
func burstSet(w *workloadSpec, key string) (set, ok bool) {
	switch key {
	case "jobs":
		return w.Jobs != nil, true
	case "processors":
		return w.Processors != nil, true
	case "runtime":
		return w.RunTime != nil, true
	case "site":
		return w.Site != nil, true
	}
	return false, false
}

// burstSource is the burst's jobs, made one at a time.
func burstSource(ctx context.Context, top *topology.Topology, w *RunWorkload) *stream {
	s := &stream{ctx: ctx, acc: newLoadAccount(top)}
	site := w.Site
	if site == "" {
		site = workload.AnySite
	}
	seq := func(yield func(*workload.Job) bool) {
		for i := range w.Jobs {
			j := &workload.Job{ID: "burst-" + strconv.Itoa(i+1), Unit: 1, Index: i, SiteType: workload.Single, RunTime: w.RunTime,
				App:        workload.App{Name: "swf"},
				Components: []workload.Component{{Site: site, Count: w.Processors}}}
			if !yield(j) {
				return
			}
		}
	}
	s.next, s.stop = iter.Pull(iter.Seq[*workload.Job](seq))
	return s
}
