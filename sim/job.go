package sim

import (
	"fmt"
	"time"

	"github.com/gmark/gmark/workload"
)

// Source gives the jobs of a run in submission order, one at a time, so a
// run never holds the whole workload (generator.WorkloadSource and the
// workload directory reader have this shape).
type Source interface {
	// Next fills j with the next job; false at the end.
	Next(j *workload.Job) (bool, error)
}

// SliceSource is a Source over jobs in memory.
type SliceSource struct {
	Jobs []workload.Job
	i    int
}

// Next implements Source.
func (s *SliceSource) Next(j *workload.Job) (bool, error) {
	if s.i >= len(s.Jobs) {
		return false, nil
	}
	*j = s.Jobs[s.i]
	s.i++
	return true, nil
}

type jobState uint8

const (
	jobQueued jobState = iota
	jobRunning
	jobDone
	jobRejected
	jobWaiting // a workflow's task waiting for its parents (workflow.go)
	jobSkipped // a workflow's task that will never run: a parent failed
)

// Job is a job inside the simulator: the rigid job of the thesis's model
// (a number of processors held exclusively from start to end, on one
// cluster), with its run state.
type Job struct {
	ID     string
	Seq    int           // arrival order, from 0
	Procs  int           // processors
	Work   time.Duration // run time on a processor of speed 1
	Submit time.Duration // arrival, from the start of the run
	Home   int           // arrival cluster (the user's local cluster)
	JM     int           // job manager: one per (user, home cluster)
	Est    time.Duration // run-time estimate for backfilling (WallTime, or Work when there is none)

	Cluster     int // where it runs or ran; -1 before it starts
	Start, End  time.Duration
	Restarts    int // runs killed by a cluster failure or an expired lease
	Delegations int // delegation hops over the job's life (DMM)
	Chain       int // delegation chain length of its last run (DMM)

	state jobState
	gen   uint32 // a kill bumps it, so the old end event is ignored
	slot  int    // index in its cluster's running list
	// X is the architecture's own data about the job.
	X any

	wf   *workflow // the workflow it is a task of; nil for a unitary job
	task int32     // its index among the workflow's tasks
}

// RunTime is the job's run time on a cluster of the given speed: work
// divided by speed (the thesis writes "proportional to the speed"; the
// only reading that makes faster processors faster is the inverse).
func (j *Job) RunTime(speed float64) time.Duration {
	if speed == 1 || j.Work == 0 {
		return j.Work // a job of no work takes no time anywhere
	}
	return max(time.Duration(float64(j.Work)/speed+0.5), 1)
}

// convert turns a workload job into a simulator job. home picks a cluster
// for a job that names none (or names a site without processors).
func (s *Sim) convert(w *workload.Job, seq int) (*Job, error) {
	if w.Kind == workload.Composite {
		return s.convertComposite(w, seq)
	}
	if s.hosted {
		return s.convertHosted(w, seq), nil
	}
	procs := w.Processors()
	if procs < 1 {
		return nil, fmt.Errorf("job %s: no processors", w.ID)
	}
	// A known run time, 0 s included, is the job's work; only an unknown
	// one (a trace's -1) is stood in for by the time the job requests.
	work, known := w.KnownRunTime()
	if !known {
		work = w.WallTime
	}
	if !known && work <= 0 {
		return nil, fmt.Errorf("job %s: no run time to simulate: its run time is unknown (a trace's -1) and it requests no time (WallTime)", w.ID)
	}
	if w.Submit < 0 {
		return nil, fmt.Errorf("job %s: submitted before the start (%v)", w.ID, w.Submit)
	}
	site := workload.AnySite
	if len(w.Components) > 0 {
		site = w.Components[0].Site
	}
	home, err := s.homeOf(site)
	if err != nil {
		return nil, fmt.Errorf("job %s: %v", w.ID, err)
	}
	est := w.WallTime
	if est <= 0 {
		est = work
	}
	j := &Job{ID: w.ID, Seq: seq, Procs: procs, Work: work, Submit: w.Submit, Home: home, Est: est, Cluster: -1}
	j.JM = s.jmOf(w.User, home)
	return j, nil
}

// homeOf resolves a job's site: a cluster by name; a site by name, or any
// site ("*"), to one of the clusters below it, drawn with probability
// proportional to their processors from the run's "home" stream.
func (s *Sim) homeOf(site string) (int, error) {
	if site == "" || site == workload.AnySite {
		return s.drawHome(s.allClusters), nil
	}
	i, ok := s.top.Index(site)
	if !ok {
		return 0, fmt.Errorf("site %q is not in the topology %q", site, s.top.Name)
	}
	if i < s.top.Clusters {
		return i, nil
	}
	sub, ok := s.subtrees[i]
	if !ok {
		sub = s.top.Subtree(i)
		s.subtrees[i] = sub
	}
	if len(sub) == 0 {
		return 0, fmt.Errorf("site %q has no cluster below it", site)
	}
	return s.drawHome(sub), nil
}

func (s *Sim) drawHome(clusters []int) int {
	total := 0
	for _, c := range clusters {
		total += s.clusters[c].Procs
	}
	x := s.homeRand.IntN(total)
	for _, c := range clusters {
		if x -= s.clusters[c].Procs; x < 0 {
			return c
		}
	}
	return clusters[len(clusters)-1]
}

// jmOf interns a job manager: one per user and home cluster (a user's jobs
// are all submitted at the user's local cluster; jobs without a user
// belong to their cluster's anonymous job manager).
func (s *Sim) jmOf(user string, home int) int {
	k := jmKey{user, home}
	if id, ok := s.jms[k]; ok {
		return id
	}
	id := len(s.jms)
	s.jms[k] = id
	return id
}

type jmKey struct {
	user string
	home int
}
