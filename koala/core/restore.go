package core

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/gmark/gmark/workload"
)

// Saved is a job as the persistence layer stored it.
type Saved struct {
	ID                 string
	Spec               workload.Job
	Opts               Options
	State              State
	Reason             string
	Submitted          time.Time
	PlacementTries     int
	ClaimTries         int
	Restarts           int
	Placements         int
	TotalPlacementTime time.Duration
	L                  float64
	JPT, JST, OrigJST  time.Time
	FTT                time.Duration
	Start, End         time.Time
	// Sites are those of its last placement: a finished job's outputs
	// are held there again (produced.go).
	Sites []string
}

// Restore brings back the jobs of a core that stopped (or was killed), in
// submission order, before any new submission. What happens to each:
//
//   - jobs that had ended keep their state, and the outputs of those that
//     finished are held again at the sites they ran on (of those the grid
//     still has), as when they finished;
//   - jobs waiting for placement or for their claims (placed, not started)
//     go back to their placement queue, with the reason recorded: nothing of
//     theirs ran yet, so they will run exactly once;
//   - jobs that were running fail, with the reason recorded: their
//     components died with the core (they ran on its emulated clusters, or as
//     its child processes), and running them again would run them twice.
//
// A job's start deadline counts from the run's origin when it was submitted
// after the run declared one (ResumeOrigin, before Restore), else from its
// submission, as when it was submitted.
func (c *Core) Restore(saved []Saved, reason string) error {
	if len(c.order) > 0 {
		return fmt.Errorf("restore into a core that already has jobs")
	}
	seen := make(map[string]bool, len(saved))
	for i := range saved {
		err := saved[i].check(seen)
		if err == nil {
			_, err = c.policy(saved[i].Opts.Policy)
		}
		if err == nil {
			err = checkDeadlineOptions(saved[i].Opts)
		}
		if err != nil {
			return fmt.Errorf("stored job %s: %v (the state was damaged or edited)", saved[i].ID, err)
		}
	}
	for _, s := range saved {
		j := &Job{ID: s.ID, Spec: s.Spec, Opts: s.Opts, State: s.State, Reason: s.Reason, Submitted: s.Submitted,
			PlacementTries: s.PlacementTries, ClaimTries: s.ClaimTries, Restarts: s.Restarts, Placements: s.Placements,
			TotalPlacementTime: s.TotalPlacementTime, L: s.L, JPT: s.JPT, JST: s.JST, OrigJST: s.OrigJST, FTT: s.FTT,
			Start: s.Start, End: s.End, priority: s.Opts.Priority, exclude: map[string]bool{},
			Deadline: deadlineOf(&s.Spec, s.Submitted, c.originOf(s.Submitted))}
		c.initComponents(j)
		c.jobs[j.ID] = j
		c.order = append(c.order, j)
		if s.Opts.Key != "" {
			c.keys[s.Opts.Key] = j.ID
		}
		if n, err := strconv.Atoi(strings.TrimPrefix(j.ID, "k")); err == nil && n > c.nextJob {
			c.nextJob = n
		}
		switch s.State {
		case Finished:
			c.produceAt(j, s.Sites)
		case Queued, Claiming:
			j.Restarts++
			c.requeue(j, EvReplaced, reason+": placed again")
		case Running:
			j.State, j.End = Failed, c.now
			j.Reason = reason + " while the job ran; it is not run again"
			c.emit(Event{Kind: EvFailed, Job: j.ID, Key: j.Opts.Key, Reason: j.Reason})
			c.ended(j)
		}
	}
	return nil
}

// MaxJobNumber bounds the number of a core's job id (k1, k2, ...): ids
// count on from the largest restored, which must leave room.
const MaxJobNumber = 1 << 50

// check refuses a stored job no core could have written: an id that is not
// a core's (kN) or is taken, a state the core does not have, a spec that
// does not validate, a negative count or time, an L out of [0, 1]. (Its
// placement policy and deadline settings Restore checks as Submit does.)
func (s *Saved) check(seen map[string]bool) error {
	n, err := strconv.ParseInt(strings.TrimPrefix(s.ID, "k"), 10, 64)
	if !strings.HasPrefix(s.ID, "k") || err != nil || n < 1 || n > MaxJobNumber || "k"+strconv.FormatInt(n, 10) != s.ID {
		return fmt.Errorf("the id is not one of the core's (k1 to k%d)", MaxJobNumber)
	}
	if seen[s.ID] {
		return fmt.Errorf("two jobs have the id")
	}
	seen[s.ID] = true
	switch s.State {
	case Queued, Claiming, Running, Finished, Failed, Cancelled:
	default:
		return fmt.Errorf("state %q is not one of queued, claiming, running, finished, failed, cancelled", s.State)
	}
	if err := s.Spec.Validate(); err != nil {
		return err
	}
	if s.PlacementTries < 0 || s.ClaimTries < 0 || s.Restarts < 0 || s.Placements < 0 || s.TotalPlacementTime < 0 || s.FTT < 0 {
		return fmt.Errorf("a negative count or time (placement tries %d, claim tries %d, restarts %d, placements %d, placement time %v, FTT %v)",
			s.PlacementTries, s.ClaimTries, s.Restarts, s.Placements, s.TotalPlacementTime, s.FTT)
	}
	if !(s.L >= 0 && s.L <= 1) {
		return fmt.Errorf("L %g is out of [0, 1]", s.L)
	}
	return nil
}

// SetEventSeq continues the event numbering of a restored core.
func (c *Core) SetEventSeq(seq uint64) {
	if seq > c.eventSeq {
		c.eventSeq = seq
	}
}

// originOf is the origin a job submitted at t counted its deadline from:
// the run's, when it was declared by then; zero (its submission) else.
func (c *Core) originOf(t time.Time) time.Time {
	if c.origin.IsZero() || t.Before(c.originSince) {
		return time.Time{}
	}
	return c.origin
}
