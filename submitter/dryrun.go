package submitter

import (
	"context"
	"strconv"
	"sync"
	"sync/atomic"
	"time"
)

// DryRun is the target that runs nothing: every submission is accepted at
// once and reported succeeded, started and ended at the instant it was
// submitted. It measures the submitter itself (the delay between a job's
// scheduled and actual submission, the cost of recording) and exercises
// composite jobs' dependency logic at full speed.
//
// DryRun keeps nothing outside the process, so it cannot Find a submission
// after a crash: on resume a submission whose outcome was not recorded is
// simply made again, which for DryRun has no effect anywhere.
type DryRun struct {
	mu  sync.Mutex
	rep Reporter
	n   atomic.Int64
}

// NewDryRun returns a dryrun target.
func NewDryRun() *DryRun { return &DryRun{} }

func (d *DryRun) Name() string { return "dryrun" }
func (d *DryRun) Caps() Caps   { return Caps{Cancel: true} }

func (d *DryRun) Watch(ctx context.Context, r Reporter) error {
	d.mu.Lock()
	d.rep = r
	d.mu.Unlock()
	return nil
}

func (d *DryRun) Submit(ctx context.Context, s *Submission) (Receipt, error) {
	now := time.Now()
	id := "dry-" + strconv.FormatInt(d.n.Add(1), 10)
	d.finish(s.Key, now)
	return Receipt{TargetID: id, Time: now}, nil
}

func (d *DryRun) finish(key string, at time.Time) {
	zero := 0
	d.mu.Lock()
	rep := d.rep
	d.mu.Unlock()
	if rep != nil {
		rep.Report(Update{Key: key, State: Succeeded, Time: at, Start: at, End: at, ExitStatus: &zero})
	}
}

func (d *DryRun) Find(ctx context.Context, s *Submission) (Receipt, bool, error) {
	return Receipt{}, false, nil
}

// Track reports a job submitted by an earlier process done: DryRun jobs
// end the instant they are submitted.
func (d *DryRun) Track(ctx context.Context, s *Submission, r Receipt) error {
	d.finish(s.Key, time.Now())
	return nil
}

func (d *DryRun) Cancel(ctx context.Context, s *Submission) error { return nil }
func (d *DryRun) Close() error                                    { return nil }
