package ce

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/gmark/gmark/record"
	"github.com/gmark/gmark/submitter"
	"github.com/gmark/gmark/submitter/target"
)

// newJob makes the tracked job of s from its parts: a job of several parts
// is claimed component by component (released already when its release
// file exists).
func (t *Target) newJob(s *submitter.Submission, parts []*part) *cjob {
	cj := &cjob{sub: *s, parts: orderParts(parts)}
	if len(parts) > 1 {
		cj.claim = target.NewClaim(t.releasePath(s))
	}
	return cj
}

// started reports whether a part got its processors: the CE says it
// runs, or it ended after it started.
func started(p *part) bool {
	return p.lost == "" && p.seen && (p.st.State == submitter.Running || p.st.State.Final() && !p.st.Start.IsZero())
}

// claimViews are the parts of cj as the claiming sees them: one the CE
// says has ended (succeeded or failed) ended before the release; one lost
// is lost whatever the CE last said.
func claimViews(cj *cjob) []target.ClaimView {
	views := make([]target.ClaimView, len(cj.parts))
	for i, p := range cj.parts {
		v := target.ClaimView{Part: &p.ClaimPart, State: target.Waiting, Final: p.final()}
		switch {
		case p.lost != "":
			v.State, v.Lost = target.Lost, p.lost
		case p.seen && p.st.State == submitter.Cancelled:
			v.State = target.Cancelled
		case p.seen && p.st.State.Final():
			v.State = target.Ended
		case started(p):
			v.State = target.Holding
		}
		views[i] = v
	}
	return views
}

// claimStep advances the claiming of job cj (target.Claim.Step): it
// releases the components once every one has started, claims again a
// component that has not started ClaimRetry after another began holding
// (or that ended before the release), and gives up after ClaimTries. A
// component cancelled by someone else cancels the job. t.mu is held.
func (t *Target) claimStep(cj *cjob) {
	if cj.claim == nil || cj.cancelled {
		return
	}
	cj.claim.Step(time.Now(), t.cfg.ClaimRetry, claimViews(cj), target.ClaimSteps{
		CancelParts: func() { t.cancelParts(cj) },
		Again:       func(i int, why string) { t.claimAgain(cj, cj.parts[i], why) },
		Release:     func() { t.releaseJob(cj) },
		Ended:       func(i int) string { return partReason(cj.parts[i]) },
		Waiting: func(i int) string {
			if st := cj.parts[i].st.CEState; st != "" {
				return " (CE: " + st + ")"
			}
			return ""
		},
	})
}

// claimAgain cancels component p of cj and claims it again, or gives the
// job up when p had its last try. t.mu is held.
func (t *Target) claimAgain(cj *cjob, p *part, why string) {
	what := fmt.Sprintf("component %d (%s:%s, try %d of %d)", p.comp, p.ce.name, p.id, p.try, t.cfg.ClaimTries)
	if !cj.claim.Again(&p.ClaimPart, p.try, t.cfg.ClaimTries, what, why) {
		return
	}
	t.annotate(record.ClaimAnnotation(t.cfg.Kind), cj.sub.Key, what+" "+why+": claimed again")
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
	if !cj.claim.Claimed(&old.ClaimPart, old.comp, old.ce.name, err, t.cfg.ClaimRetry, t.annotate) {
		return // tried again at the next poll, or given up
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
	if !cj.claim.ReleaseNow(time.Now()) {
		return
	}
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
	t.annotate(record.ClaimAnnotation(t.cfg.Kind), cj.sub.Key, fmt.Sprintf("released %s: every component started (%s)", strings.Join(ids, ","), apart))
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
	failed, cancelled := cj.claim.Outcome(claimViews(cj))
	switch {
	case failed != "":
		return submitter.Failed, failed
	case cancelled:
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
