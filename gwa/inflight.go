package gwa

import (
	"slices"
)

// InFlightJob is a trace job that was in the system at some instant:
// submitted before it and, at it, waiting in a queue or running.
type InFlightJob struct {
	Record       // as read: neither rebased nor scaled
	Running bool // started at or before the instant (else queued)
}

// Remaining is the run time the job had left at the instant at: all of it
// for a queued job, end − at for a running one (seconds, trace time).
func (j *InFlightJob) Remaining(at float64) float64 {
	if !j.Running {
		return j.RunTime
	}
	return j.SubmitTime + j.WaitTime + j.RunTime - at
}

// InFlight reads r to its end and returns the jobs that f keeps — its
// submit window and FirstN aside: what was in flight does not depend on
// them — that were submitted before at and were, at at, queued (start after
// at) or running (start ≤ at < start + run time), in submit order. A job's
// start is its submit time plus its wait. A job whose wait or run time is
// unknown cannot be placed unless the record shows it had ended (submit +
// run ≤ at, a wait being ≥ 0): unknown counts the others, left out.
func InFlight(r Reader, f Filter, at float64) (jobs []InFlightJob, unknown int, err error) {
	f.Submit, f.FirstN = Range{}, 0
	_, err = ForEach(Filtered(r, f), func(rec *Record) error {
		if !(rec.SubmitTime < at) {
			return nil
		}
		runKnown := rec.RunTime >= 0
		if rec.WaitTime < 0 || !runKnown {
			if runKnown && rec.SubmitTime+rec.RunTime <= at {
				return nil // ended before at, whatever its wait
			}
			if rec.WaitTime >= 0 && rec.SubmitTime+rec.WaitTime > at {
				jobs = append(jobs, InFlightJob{Record: *rec}) // queued: its run time does not matter to that
				return nil
			}
			unknown++
			return nil
		}
		start := rec.SubmitTime + rec.WaitTime
		switch {
		case start > at:
			jobs = append(jobs, InFlightJob{Record: *rec})
		case at < start+rec.RunTime:
			jobs = append(jobs, InFlightJob{Record: *rec, Running: true})
		}
		return nil
	})
	if err != nil {
		return nil, 0, err
	}
	slices.SortStableFunc(jobs, func(a, b InFlightJob) int { return CompareSubmitOrder(a.Record, b.Record) })
	return jobs, unknown, nil
}
