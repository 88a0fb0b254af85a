package target

import (
	"fmt"
	"os"
	"time"

	"github.com/gmark/gmark/record"
)

// Co-allocation without reservations, as KOALA does it (its claiming and
// its DUROC runner's barrier): the components of a job that cannot be one
// job of the resource manager are each claimed as a part of their own
// that holds the processors it was given until a release file exists; the
// target polls and, once every component has started, creates the file,
// and the application starts in every component at once. A component
// that has not started a retry interval after another began holding is
// cancelled and claimed again while the others keep holding (KOALA's
// Incremental Claiming Policy keeps what it claimed), up to a number of
// tries; then the job fails, naming the component. The Slurm target and
// the grid middleware's claim this way; what a part's state is, how a part
// is submitted and cancelled, and what is said, are theirs.

// Claim is the claiming of one job's components.
type Claim struct {
	Release  string // the file whose creation starts the application
	Released bool
	Fail     string // why claiming gave up; "" while it goes on
}

// NewClaim is the claiming of a job whose release file is release:
// released already when the file exists (a restarted submitter's job).
func NewClaim(release string) *Claim {
	c := &Claim{Release: release}
	if _, err := os.Stat(release); err == nil {
		c.Released = true
	}
	return c
}

// ClaimPart is what claiming keeps of one part: since when it has waited
// while another component held its processors, and whether its next try
// is under way.
type ClaimPart struct {
	WaitFrom   time.Time
	Reclaiming bool
}

// ClaimState is where a part stands, as its target reads what the
// resource manager says of it.
type ClaimState int

const (
	Waiting   ClaimState = iota // not holding: queued, or whatever the target does not count as started
	Holding                     // started: it holds its processors until the release
	Ended                       // ended before the release: claimed again
	Cancelled                   // cancelled by someone else: the job is cancelled
	Lost                        // gone: the job fails with the part's reason
)

// ClaimView is one part of a claimed job, in component order, as a
// claiming step sees it.
type ClaimView struct {
	Part  *ClaimPart
	State ClaimState
	Final bool   // it has ended, in whatever way (a part the target counts Holding may have)
	Lost  string // why it is gone (State Lost)
}

// ClaimSteps are what a claiming step has the target do.
type ClaimSteps struct {
	// CancelParts cancels the parts that have not ended: one was
	// cancelled before the release, so the job is.
	CancelParts func()
	// Again cancels part i and claims it again (Claim.Again), saying why.
	Again func(i int, why string)
	// Release creates the release file (Claim.ReleaseNow) and says so.
	Release func()
	// Ended is why part i ended before the release, and Waiting what the
	// resource manager says of part i that keeps it waiting ("" nothing).
	Ended, Waiting func(i int) string
}

// Step advances the claiming: it releases the components once every one
// holds, claims again a component that has not started retry after
// another began holding (or that ended before the release), and cancels
// the job when someone else cancelled a component. A claim that gave up or
// was released does nothing more; nor does a job gmark cancelled (its
// caller's to check).
func (c *Claim) Step(now time.Time, retry time.Duration, parts []ClaimView, do ClaimSteps) {
	if c.Released || c.Fail != "" {
		return
	}
	holding, busy := 0, false
	for _, p := range parts {
		switch {
		case p.Part.Reclaiming:
			busy = true
		case p.State == Cancelled:
			do.CancelParts()
			return
		case p.State == Lost:
			return // the job fails with the reason
		case p.State == Holding:
			holding++
		}
	}
	for i, p := range parts {
		switch {
		case p.Part.Reclaiming:
		case p.State == Ended:
			do.Again(i, "ended before the release ("+do.Ended(i)+")")
		case p.State == Holding, holding == 0: // holding, or nothing held: waiting costs nothing
			p.Part.WaitFrom = time.Time{}
		case p.Part.WaitFrom.IsZero():
			p.Part.WaitFrom = now
		case now.Sub(p.Part.WaitFrom) >= retry:
			do.Again(i, fmt.Sprintf("not started %s after another component began holding", retry)+do.Waiting(i))
		}
	}
	if holding == len(parts) && !busy && c.Fail == "" {
		do.Release()
	}
}

// Again starts the next try of part p, at its try of tries, or gives the
// claim up when that was its last; what names the part and why says why
// it is claimed again. It reports whether a new try is to be submitted.
func (c *Claim) Again(p *ClaimPart, try, tries int, what, why string) bool {
	if try >= tries {
		c.Fail = fmt.Sprintf("claiming failed: %s %s; gave up after %d claiming tries", what, why, tries)
		return false
	}
	p.Reclaiming, p.WaitFrom = true, time.Time{}
	return true
}

// Claimed takes the outcome of the new try of old's component comp on
// site (err: its submission's): a transient error is tried again at the
// next step (said through annotate), another gives the claim up. It
// reports whether the new try replaces old.
func (c *Claim) Claimed(old *ClaimPart, comp int, site string, err error, retry time.Duration, annotate func(kind, key, value string)) bool {
	old.Reclaiming = false
	switch {
	case err == nil:
		return true
	case IsTransient(err):
		annotate(record.AnnotationTargetError, site, err.Error())
		old.WaitFrom = time.Now().Add(-retry)
	default:
		c.Fail = fmt.Sprintf("claiming failed: component %d could not be claimed again on %s: %v", comp, site, err)
	}
	return false
}

// ReleaseNow creates the release file; when it cannot, the claim gives
// up. It reports whether the job was released.
func (c *Claim) ReleaseNow(now time.Time) bool {
	if err := Release(c.Release, now); err != nil {
		c.Fail = fmt.Sprintf("claiming failed: cannot create the release file: %v", err)
		return false
	}
	c.Released = true
	return true
}

// Outcome is what the parts of a job still being claimed make of it: the
// reason when it failed (the claim gave up, or a part was lost), and
// whether it was cancelled (someone cancelled a part and every part has
// ended); neither: it is queued.
func (c *Claim) Outcome(parts []ClaimView) (failed string, cancelled bool) {
	if c.Fail != "" {
		return c.Fail, false
	}
	allFinal, anyCancelled := true, false
	for _, p := range parts {
		if p.State == Lost {
			return p.Lost, false
		}
		if p.Part.Reclaiming || !p.Final {
			allFinal = false
		}
		if p.State == Cancelled && !p.Part.Reclaiming {
			anyCancelled = true
		}
	}
	return "", allFinal && anyCancelled
}
