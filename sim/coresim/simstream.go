package coresim

import (
	"context"
	"fmt"
	"sort"
	"time"

	"github.com/gmark/gmark/record"
	"github.com/gmark/gmark/workload"
)

// simStream records a simulation as it runs (Options.DB): each job's
// records go to the store as the job ends, and only the jobs that have
// arrived and not ended are kept (pending), with what their rows need.
type simStream struct {
	rec     *record.RunRecording
	pending map[string]*pendingJob // by the workload's job id
	seq     int                    // arrivals so far
	err     error                  // the first recording error, returned at the end
}

// pendingJob is a job that arrived and has no record yet.
type pendingJob struct {
	job workload.Job
	at  time.Time // when it was due
	seq int       // its place in the workload
}

func startStream(s *Simulation, db *DB) (*simStream, error) {
	start := record.StartRecording
	if db.Resume {
		start = record.ResumeRecording
	}
	rec, err := start(context.Background(), db.Store, s.finishedRun(db.RunInfo))
	if err != nil {
		return nil, err
	}
	return &simStream{rec: rec, pending: map[string]*pendingJob{}}, nil
}

// arrived keeps a job of the workload until it has a record.
func (d *simStream) arrived(j *workload.Job, at time.Time) {
	d.seq++
	d.pending[j.ID] = &pendingJob{job: *j, at: at, seq: d.seq}
}

// record writes the records of a pending job: j is the core's record of
// it, nil when the core never had it.
func (d *simStream) record(s *Simulation, id string, j *Job) {
	p, ok := d.pending[id]
	if !ok {
		if d.err == nil {
			d.err = fmt.Errorf("job %s ended, but never arrived, or ended twice", id)
		}
		return
	}
	delete(d.pending, id)
	if err := d.rec.Add(&p.job, s.finishedJob(Arrival{ID: id, At: p.at}, j)); err != nil && d.err == nil {
		d.err = err
	}
}

// ended records a job the core accepted, as it ended (or as the
// simulation left it).
func (d *simStream) ended(s *Simulation, j *Job) { d.record(s, j.Name, j) }

// afterLimit records a job the simulator never asked for, when it was due
// after the limit (those due before it are left to rest).
func (d *simStream) afterLimit(s *Simulation, id string) error {
	if p := d.pending[id]; p != nil && p.at.After(s.Deadline) {
		d.record(s, id, nil)
	}
	return d.err
}

// rest records the jobs the core never had (refused, or due after the
// limit), in the workload's order, once the simulation has stopped.
func (d *simStream) rest(s *Simulation) error {
	left := make([]*pendingJob, 0, len(d.pending))
	for _, p := range d.pending {
		left = append(left, p)
	}
	sort.Slice(left, func(a, b int) bool { return left[a].seq < left[b].seq })
	for _, p := range left {
		d.record(s, p.job.ID, nil)
	}
	return d.err
}

// FinishRecord ends the record of a simulation recorded as it ran
// (Options.DB): the core's utilization (and deadline figures), the
// run's end and its summary, as Record writes them.
func (s *Simulation) FinishRecord() (*record.Summary, error) {
	if s.db == nil {
		return nil, fmt.Errorf("the simulation was not recorded as it ran (Options.DB)")
	}
	as, endNS, elapsed := s.ending()
	return s.db.rec.Finish(as, endNS, elapsed)
}
