package ce

import (
	"path/filepath"
	"strconv"
	"strings"

	"github.com/gmark/gmark/apps/jobenv"
	"github.com/gmark/gmark/submitter"
)

// partName is the CE job name of a part (component comp, -1 for the whole
// job, at claiming try try): its idempotency key.
func partName(s *submitter.Submission, comp, try int) string {
	suffix := s.Job.ID
	if comp >= 0 {
		suffix += ".c" + strconv.Itoa(comp)
		if try > 1 {
			suffix += ".t" + strconv.Itoa(try)
		}
	}
	return "gmark-" + suffix + ".a" + strconv.Itoa(s.Attempt) + "-" + s.RunID
}

// parseName is the component (-1: the whole job) and claiming try of the
// part of s that a CE job name names; ok is false for a name of no part of
// s.
func parseName(s *submitter.Submission, name string) (comp, try int, ok bool) {
	if name == partName(s, -1, 1) {
		return -1, 1, len(s.Job.Components) == 1 // a job of several is never one CE job
	}
	mid, ok1 := strings.CutPrefix(name, "gmark-"+s.Job.ID+".c")
	mid, ok2 := strings.CutSuffix(mid, ".a"+strconv.Itoa(s.Attempt)+"-"+s.RunID)
	if !ok1 || !ok2 {
		return 0, 0, false
	}
	compText, tryText, hasTry := strings.Cut(mid, ".t")
	comp, err := strconv.Atoi(compText)
	if err != nil || comp < 0 || comp >= len(s.Job.Components) || strconv.Itoa(comp) != compText || len(s.Job.Components) == 1 {
		return 0, 0, false
	}
	try = 1
	if hasTry {
		try, err = strconv.Atoi(tryText)
		if err != nil || try < 2 || try > MaxClaimTries || strconv.Itoa(try) != tryText {
			return 0, 0, false
		}
	}
	return comp, try, true
}

// partNames are the names the parts of s may have: the whole job's, and
// each component's at every claiming try.
func (t *Target) partNames(s *submitter.Submission) []string {
	if len(s.Job.Components) == 1 {
		return []string{partName(s, -1, 1)}
	}
	var names []string
	for i := range s.Job.Components {
		for try := 1; try <= t.cfg.ClaimTries; try++ {
			names = append(names, partName(s, i, try))
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
