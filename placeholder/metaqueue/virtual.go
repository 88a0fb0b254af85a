package metaqueue

import "time"

// Virtual is the metaqueue's state machine alone: no store, no server, no
// clock. The caller gives every call its time, so it runs in simulated time
// (package placeholder/experiment), with the same groups, policies, pinned
// jobs (the static split), atomic pop and placeholder life cycle as the
// server. Nothing is written anywhere; the recorded actions are dropped.
type Virtual struct{ s *state }

// NewVirtual makes an empty metaqueue.
func NewVirtual() *Virtual { return &Virtual{s: newState()} }

// PutGroup creates a group, or replaces the sites of one.
func (v *Virtual) PutGroup(now time.Time, gs GroupSpec) error {
	defer v.s.clean()
	_, err := v.s.putGroup(now, gs)
	return err
}

// AddJobs adds jobs to a group, in order; all or none.
func (v *Virtual) AddJobs(now time.Time, group string, jobs []NewJob) ([]int64, error) {
	defer v.s.clean()
	return v.s.addJobs(now, group, jobs)
}

// Pull is nextcmd (no DAG wait: the Wait of a reply is 10 s).
func (v *Virtual) Pull(now time.Time, group string, req PullRequest) (PullReply, error) {
	defer v.s.clean()
	return v.s.pull(now, group, req, 10*time.Second)
}

// Done is donejob.
func (v *Virtual) Done(now time.Time, group string, req DoneRequest) error {
	defer v.s.clean()
	return v.s.done(now, group, req)
}

// Dequeue is a placeholder leaving.
func (v *Virtual) Dequeue(now time.Time, group string, req DequeueRequest) error {
	defer v.s.clean()
	return v.s.dequeue(now, group, req)
}

// Report is the group's report: jobs per state, run once, duplicated.
func (v *Virtual) Report(group string) (*Report, error) {
	g, err := v.s.group(group)
	if err != nil {
		return nil, err
	}
	return v.s.report(g), nil
}
