package ce

import (
	"context"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/gmark/gmark/submitter"
	"github.com/gmark/gmark/submitter/target"
)

// holdBudget is the longest a claimed component may hold its processors
// before the application starts, added to its wall time: every try of
// the other components.
func (t *Target) holdBudget() time.Duration {
	return time.Duration(t.cfg.ClaimTries)*t.cfg.ClaimRetry + time.Minute
}

// newJob makes the tracked job of s from its parts: a job of several parts
// is claimed component by component (released already when its release
// file exists).
func (t *Target) newJob(s *submitter.Submission, parts []*part) *cjob {
	cj := &cjob{sub: *s, parts: orderParts(parts)}
	if len(parts) > 1 {
		cj.claim, cj.release = true, t.releasePath(s)
		if _, err := os.Stat(cj.release); err == nil {
			cj.released = true
		}
	}
	return cj
}

// started reports whether a part got its processors: the CE says it
// runs, or it ended after it started.
func started(p *part) bool {
	return p.lost == "" && p.seen && (p.st.State == submitter.Running || p.st.State.Final() && !p.st.Start.IsZero())
}

// claimStep advances the claiming of job cj: it releases the components
// once every one has started, claims again a component that has not
// started ClaimRetry after another began holding (or that ended before
// the release), and gives up after ClaimTries. A component cancelled by
// someone else cancels the job. t.mu is held.
func (t *Target) claimStep(cj *cjob) {
	if !cj.claim || cj.released || cj.cancelled || cj.claimFail != "" {
		return
	}
	now := time.Now()
	holding, busy := 0, false
	for _, p := range cj.parts {
		switch {
		case p.reclaiming:
			busy = true
		case p.lost != "":
			return // the job fails with the reason
		case p.seen && p.st.State == submitter.Cancelled:
			t.cancelParts(cj)
			return
		case p.seen && p.st.State.Final():
		case started(p):
			holding++
		}
	}
	for _, p := range cj.parts {
		switch {
		case p.reclaiming:
		case p.seen && p.st.State.Final():
			t.claimAgain(cj, p, "ended before the release ("+partReason(p)+")")
		case started(p), holding == 0: // holding, or nothing held: waiting costs nothing
			p.waitFrom = time.Time{}
		case p.waitFrom.IsZero():
			p.waitFrom = now
		case now.Sub(p.waitFrom) >= t.cfg.ClaimRetry:
			why := fmt.Sprintf("not started %s after another component began holding", t.cfg.ClaimRetry)
			if p.st.CEState != "" {
				why += " (CE: " + p.st.CEState + ")"
			}
			t.claimAgain(cj, p, why)
		}
	}
	if holding == len(cj.parts) && !busy && cj.claimFail == "" {
		t.releaseJob(cj)
	}
}

// claimAgain cancels component p of cj and claims it again, or gives the
// job up when p had its last try. t.mu is held.
func (t *Target) claimAgain(cj *cjob, p *part, why string) {
	what := fmt.Sprintf("component %d (%s:%s, try %d of %d)", p.comp, p.ce.name, p.id, p.try, t.cfg.ClaimTries)
	if p.try >= t.cfg.ClaimTries {
		cj.claimFail = fmt.Sprintf("claiming failed: %s %s; gave up after %d claiming tries", what, why, t.cfg.ClaimTries)
		return
	}
	p.reclaiming, p.waitFrom = true, time.Time{}
	t.annotate(t.cfg.Kind+"-claim", cj.sub.Key, what+" "+why+": claimed again")
	t.bg.Add(1)
	go t.reclaim(cj, p)
}

// reclaim submits the next try of component old of cj, then cancels old
// (in this order, so a crash between the two leaves both, and Find or
// Track keep the newer). The new part replaces old in the job; if the job
// ended meanwhile, the new part is cancelled.
func (t *Target) reclaim(cj *cjob, old *part) {
	defer t.bg.Done()
	ctx := context.Background()
	np, _, err := t.submitPart(ctx, planned{ce: old.ce, comp: old.comp}, &cj.sub, old.try+1)
	if err == nil && !old.final() {
		old.ce.be.Cancel(ctx, []string{old.id})
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	old.reclaiming = false
	if err != nil {
		if target.IsTransient(err) {
			t.annotate("target-error", old.ce.name, err.Error()) // tried again at the next poll
			old.waitFrom = time.Now().Add(-t.cfg.ClaimRetry)
			return
		}
		cj.claimFail = fmt.Sprintf("claiming failed: component %d could not be claimed again on %s: %v", old.comp, old.ce.name, err)
		return
	}
	if cj.cancelled || t.jobs[cj.sub.Key] != cj {
		t.cancelLater(np)
		return
	}
	for i, p := range cj.parts {
		if p == old {
			cj.parts[i] = np
		}
	}
	old.st.State = submitter.Cancelled
	t.report(submitter.Update{Key: cj.sub.Key, State: submitter.Queued, Time: time.Now(), TargetID: targetID(cj.parts)})
}

// releaseJob creates the release file: every component has started, and
// its application starts. t.mu is held.
func (t *Target) releaseJob(cj *cjob) {
	f, err := os.OpenFile(cj.release, os.O_CREATE|os.O_WRONLY, 0o644)
	if err == nil {
		_, err = fmt.Fprintln(f, time.Now().UTC().Format(time.RFC3339Nano))
		if cerr := f.Close(); err == nil {
			err = cerr
		}
	}
	if err != nil {
		cj.claimFail = fmt.Sprintf("claiming failed: cannot create the release file: %v", err)
		return
	}
	cj.released = true
	var first, last time.Time
	var ids []string
	for _, p := range cj.parts {
		if first.IsZero() || p.st.Start.Before(first) {
			first = p.st.Start
		}
		if p.st.Start.After(last) {
			last = p.st.Start
		}
		ids = append(ids, p.ce.name+":"+p.id)
	}
	apart := "start times not known"
	if !first.IsZero() {
		apart = fmt.Sprintf("the CEs' start times %s apart", last.Sub(first).Round(time.Second))
	}
	t.annotate(t.cfg.Kind+"-claim", cj.sub.Key, fmt.Sprintf("released %s: every component started (%s)", strings.Join(ids, ","), apart))
}

// cancelParts cancels the parts of cj that have not ended: one was
// cancelled before the release, so the job is. t.mu is held.
func (t *Target) cancelParts(cj *cjob) {
	for _, p := range cj.parts {
		if !p.final() {
			t.cancelLater(p)
			p.st.State, p.seen = submitter.Cancelled, true
		}
	}
}

// claimState is the state of a job whose components are still being
// claimed, and the reason when it failed.
func claimState(cj *cjob) (submitter.State, string) {
	if cj.claimFail != "" {
		return submitter.Failed, cj.claimFail
	}
	allFinal, anyCancelled := true, false
	for _, p := range cj.parts {
		if p.lost != "" {
			return submitter.Failed, p.lost
		}
		if p.reclaiming || !p.final() {
			allFinal = false
		}
		if p.seen && p.st.State == submitter.Cancelled && !p.reclaiming {
			anyCancelled = true
		}
	}
	if allFinal && anyCancelled {
		return submitter.Cancelled, ""
	}
	return submitter.Queued, ""
}

func partReason(p *part) string {
	if p.lost != "" {
		return p.lost
	}
	r := fmt.Sprintf("%s:%s %s", p.ce.name, p.id, p.st.CEState)
	if p.st.Reason != "" {
		r += " (" + p.st.Reason + ")"
	}
	if p.st.Exit != nil && *p.st.Exit != 0 {
		r += fmt.Sprintf(", exit status %d", *p.st.Exit)
	}
	return r
}
