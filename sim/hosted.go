package sim

import (
	"time"

	"github.com/gmark/gmark/sim/topology"
	"github.com/gmark/gmark/workload"
)

// Hosted jobs: an architecture that runs the jobs itself (central's core
// model) tells the engine when they start and end, and the engine keeps
// the metrics as for its own clusters' jobs.

// stopper is an architecture told where the run stopped (end) and whether
// it was cut at the horizon.
type stopper interface {
	Stop(end time.Duration, cut bool)
}

// hostedRunning sums what the hosted jobs running now hold, so the busy
// time at the end of the window needs no list of them.
type hostedRunning struct {
	procs      float64 // processors held
	procsStart float64 // Σ processors × start (seconds)
}

func (h *hostedRunning) add(j *Job, sign float64) {
	h.procs += sign * float64(j.Procs)
	h.procsStart += sign * float64(j.Procs) * sec(j.Start)
}

// busyAt is the processor time of the running hosted jobs up to end.
func (h *hostedRunning) busyAt(end time.Duration) float64 {
	return h.procs*sec(end) - h.procsStart
}

// convertHosted takes a job as it is: the hosting architecture checks it
// (and refuses what it cannot run) when it arrives.
func (s *Sim) convertHosted(w *workload.Job, seq int) *Job {
	j := &Job{ID: w.ID, Seq: seq, Procs: w.Processors(), Work: w.RunTime, Submit: w.Submit, Home: -1, Est: w.WallTime, Cluster: -1}
	if len(w.Components) > 0 {
		if i, ok := s.top.Index(w.Components[0].Site); ok && i < s.top.Clusters {
			j.Home = i
		}
	}
	j.JM = s.jmOf(w.User, j.Home)
	return j
}

// Workload is the job being handed to Arrive, as the workload gave it
// (valid only during Arrive).
func (s *Sim) Workload() *workload.Job { return s.cur }

// Refuse rejects a job that arrived: it never runs and counts as not
// finished.
func (s *Sim) Refuse(j *Job) {
	j.state = jobRejected
	s.acc.rejected++
	s.active--
	s.dropped(j)
	if j.wf != nil {
		s.taskEnded(j, false, s.now)
	}
}

// HostedStart records the start of a hosted job's run at time at. A job
// that starts again lost its earlier run (counted busy and wasted).
func (s *Sim) HostedStart(j *Job, at time.Duration) {
	if j.state == jobRunning {
		s.hostedStop(j, at)
		s.acc.restarts++
		j.Restarts++
	} else if j.Restarts == 0 {
		s.acc.started++
	}
	j.state = jobRunning
	j.Start = at
	s.hostedRun.add(j, 1)
	if s.obs != nil {
		s.obs.Started(j)
	}
}

// hostedStop ends the accounting of a run that did not succeed.
func (s *Sim) hostedStop(j *Job, at time.Duration) {
	s.hostedRun.add(j, -1)
	cpu := float64(j.Procs) * sec(at-j.Start)
	s.acc.busy += cpu
	s.acc.wasted += cpu
}

// HostedEnd records the end of a hosted job at time at: finished (ok) or
// failed, started or not.
func (s *Sim) HostedEnd(j *Job, ok bool, at time.Duration) {
	if j.state == jobRejected || j.state == jobDone {
		return
	}
	if j.wf != nil { // after the accounting below, which ends the task
		defer s.taskEnded(j, ok && j.state == jobRunning, at)
	}
	s.active--
	s.lastEnd = max(s.lastEnd, at)
	if j.state != jobRunning {
		j.state = jobDone
		s.dropped(j)
		return
	}
	j.End = at
	if !ok {
		s.hostedStop(j, at)
		j.state = jobDone
		s.dropped(j)
		return
	}
	s.hostedRun.add(j, -1)
	j.state = jobDone
	rel := topology.IntraGrid // the core places a job that names no cluster anywhere in its grid
	if j.Home >= 0 && j.Cluster >= 0 {
		rel = s.top.Relate(j.Home, j.Cluster)
	}
	s.accountFinished(j, rel)
	if s.obs != nil {
		s.obs.Ended(j)
	}
}

// pastHorizon: the next arrival or event is after the horizon, or nothing
// is left while jobs are still in the system.
func (s *Sim) pastHorizon() bool {
	at, ok := time.Duration(0), false
	if s.next != nil {
		at, ok = s.next.Submit, true
	}
	if len(s.heap) > 0 && (!ok || s.heap[0].at < at) {
		at, ok = s.heap[0].at, true
	}
	if !ok {
		return s.active > 0
	}
	if s.next == nil && s.srcDone && s.active == 0 && s.cfg.CoolDown {
		return false // done: the loop ends on its own
	}
	return at > s.cfg.Horizon
}
