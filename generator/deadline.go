package generator

import (
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"strings"
	"time"

	"github.com/gmark/gmark/stats"
	"github.com/gmark/gmark/wdl"
	"github.com/gmark/gmark/workload"
)

// purposeDeadline is the stream of drawn start deadlines: a unit without
// Deadline= never draws from it, so its jobs are what they were before
// deadlines existed.
const purposeDeadline = "deadline"

// deadlinePlan is a unit's Deadline= (docs/wdl.md): a duration is one
// start deadline for every job, from the workload start; a distribution is
// drawn per job, from the job's submission (Ballier et al.'s deadlines,
// U(1s,3599s) after the submission).
type deadlinePlan struct {
	fixed time.Duration      // from the workload start; 0: none
	dist  stats.Distribution // from the submission; nil: none
}

func (d *deadlinePlan) on() bool { return d != nil && (d.fixed > 0 || d.dist != nil) }

// prepareDeadline reads Deadline=; nil when the unit has none.
func prepareDeadline(o *wdl.Options, composite bool) (*deadlinePlan, wdl.ErrorList) {
	opt, ok := o.Get("Deadline")
	if !ok {
		return nil, nil
	}
	if composite {
		return nil, wdl.ErrorList{wdl.Errorf(opt.KeyPos, "Deadline applies to unitary jobs, not to the tasks of a composite structure (their submissions wait for their predecessors)")}
	}
	if strings.ContainsRune(opt.Value, '(') || isFamilyName(opt.Value) {
		d, err := wdl.ParseDistributionIn(opt.Value, wdl.DistContext{Dir: filepath.Dir(opt.Pos.File)})
		if err == nil {
			err = wdl.Deadlines.CheckDist(d)
		}
		if err != nil {
			return nil, wdl.ErrorList{wdl.Errorf(opt.Pos, "Deadline: %v", err)}
		}
		return &deadlinePlan{dist: d}, nil
	}
	d, err := wdl.ParseDuration(opt.Value)
	switch {
	case err != nil:
		return nil, wdl.ErrorList{wdl.Errorf(opt.Pos, "Deadline: %v (a duration from the workload start, or a distribution from each job's submission such as U(1s,3599s))", err)}
	case d <= 0:
		return nil, wdl.ErrorList{wdl.Errorf(opt.Pos, "Deadline: a fixed deadline is a time after the workload start, so it must be > 0 (for a deadline at each job's submission write C(0))")}
	}
	return &deadlinePlan{fixed: d}, nil
}

// fill sets j's deadline (its Submit set). A drawn deadline is rounded to
// the millisecond; one that would fall at the workload start itself (a job
// submitted at 0 drawing 0) is put 1 ms later, since 0 means none.
func (d *deadlinePlan) fill(r *rand.Rand, j *workload.Job) error {
	if !d.on() {
		j.Deadline = 0
		return nil
	}
	if d.dist == nil {
		j.Deadline = d.fixed
		return nil
	}
	secs, err := wdl.Deadlines.Draw(d.dist, r)
	if err != nil {
		return fmt.Errorf("job %s: Deadline: %v; change the distribution so that its draws stay in range", j.ID, err)
	}
	rel, _ := wdl.Deadlines.Duration(secs) // in range: Draw checked it
	if j.Submit+rel > wdl.MaxDuration {
		return fmt.Errorf("job %s: its deadline, %v after its submission at %v, passes 100 years, the limit of times in a workload", j.ID, rel, j.Submit)
	}
	j.Deadline = max(j.Submit+rel, time.Millisecond)
	return nil
}
