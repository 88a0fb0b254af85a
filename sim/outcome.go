package sim

// Dropper is an Observer that is also told of the jobs that leave a run
// without finishing: rejected as they arrive (no cluster can hold them),
// refused by the architecture, or ended without success by it (the core
// model's failed and cancelled jobs). With Ended, every job that arrived
// is told of once, but those still in the system when the run stops
// (queued, or running at the end of the measurement).
type Dropper interface {
	Dropped(j *Job)
}

// dropped tells the observer, if it listens, that j left without
// finishing.
func (s *Sim) dropped(j *Job) {
	if d, ok := s.obs.(Dropper); ok {
		d.Dropped(j)
	}
}

// JobState is where a job stands: waiting (arrived, not running), running,
// done (its run ended: finished, or failed under the core model) or
// rejected.
type JobState uint8

// The job states.
const (
	JobWaiting JobState = iota
	JobRunning
	JobDone
	JobRejected
)

// State is where the job stands now.
func (j *Job) State() JobState {
	switch j.state {
	case jobRunning:
		return JobRunning
	case jobDone:
		return JobDone
	case jobRejected:
		return JobRejected
	}
	return JobWaiting
}

// Dropped forwards to the observer the recorder wraps.
func (r *seriesRecorder) Dropped(j *Job) {
	if d, ok := r.next.(Dropper); ok {
		d.Dropped(j)
	}
}
