package ce

import (
	"path/filepath"
	"strconv"

	"github.com/gmark/gmark/apps/jobenv"
	"github.com/gmark/gmark/submitter"
	"github.com/gmark/gmark/submitter/target"
)

// partsOf names the CE jobs of submission s, every name an idempotency
// key (submitter/target's names, as the Slurm target's).
func partsOf(s *submitter.Submission) target.PartsOf {
	return target.PartsOf{Job: s.Job.ID, Attempt: s.Attempt, Run: s.RunID, Components: len(s.Job.Components)}
}

// partName is the CE job name of a part (component comp, -1 for the whole
// job, at claiming try try).
func partName(s *submitter.Submission, comp, try int) string { return partsOf(s).Name(comp, try) }

// parseName is the component (-1: the whole job) and claiming try of the
// part of s that a CE job name names; ok is false for a name of no part of
// s. A job of one component is one CE job, a job of several never is.
func parseName(s *submitter.Submission, name string) (comp, try int, ok bool) {
	comp, try, ok = partsOf(s).Parse(name)
	if !ok || (comp == -1) != (len(s.Job.Components) == 1) {
		return 0, 0, false
	}
	return comp, try, true
}

// partNames are the names the parts of s may have: the whole job's, or
// each component's at every claiming try.
func (t *Target) partNames(s *submitter.Submission) []string {
	var names []string
	for _, n := range partsOf(s).Names(t.cfg.ClaimTries) {
		if _, _, ok := parseName(s, n); ok {
			names = append(names, n)
		}
	}
	return names
}

// releasePath is the release file of submission s: one per job attempt.
func (t *Target) releasePath(s *submitter.Submission) string {
	return filepath.Join(t.cfg.WorkDir, releaseDir, jobenv.Safe(s.Job.ID)+".a"+strconv.Itoa(s.Attempt)+"-"+s.RunID)
}

// rendezvousPath is where rank 0 of submission s publishes its rendezvous.
func (t *Target) rendezvousPath(s *submitter.Submission) string {
	return filepath.Join(t.cfg.WorkDir, rendezvousDir, jobenv.Safe(s.Job.ID)+".a"+strconv.Itoa(s.Attempt)+"-"+s.RunID)
}
