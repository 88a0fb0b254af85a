package slurm

import "time"

// DefaultPollCPUFactor is how many times the CPU time of its squeue a
// poll waits, at least, before the next (Config.PollCPUFactor): the polls
// of a cluster take at most about 1% of a processor.
const DefaultPollCPUFactor = 100

// MaxPollWait bounds the wait pacing adds: a poll follows the last one
// within this (or within poll, when poll is longer).
const MaxPollWait = 15 * time.Second

// pacer spaces a cluster's polls by what they cost. Slurm 22.05's squeue
// reads every job the controller keeps (it filters by state on the client),
// so a poll's cost grows with the controller's list (MinJobAge keeps
// finished jobs) while what it finds does not: a poll that cost c of CPU
// (its squeue commands) is followed by the next no sooner than factor × c
// after it started, and no later than MaxPollWait. Owned by the cluster's
// poller.
type pacer struct {
	poll   time.Duration // the ticks' period (Config.Poll)
	factor int
	next   time.Time // the earliest start of the next poll; zero: now
}

// wait is how long after a poll that cost cpu the next one may start.
func (p *pacer) wait(cpu time.Duration) time.Duration {
	w := time.Duration(p.factor) * cpu
	if cpu > 0 && w/cpu != time.Duration(p.factor) { // overflow
		w = MaxPollWait
	}
	return max(p.poll, min(w, MaxPollWait))
}

// due reports whether a poll may start at now, a tick: a tick up to half a
// period early is taken (the ticks are poll apart and jitter).
func (p *pacer) due(now time.Time) bool {
	return !now.Add(p.poll / 2).Before(p.next)
}

// done notes that a poll started at started and cost cpu.
func (p *pacer) done(started time.Time, cpu time.Duration) {
	p.next = started.Add(p.wait(cpu))
}
