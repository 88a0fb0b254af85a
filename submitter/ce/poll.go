package ce

import (
	"context"
	"fmt"
	"time"

	"github.com/gmark/gmark/record"
	"github.com/gmark/gmark/submitter"
	"github.com/gmark/gmark/submitter/target"
)

// poll asks CE c about the parts it runs, in one call, and reports the
// jobs whose state changed.
func (t *Target) poll(ctx context.Context, c *ceState) {
	mine := t.partsOn(c)
	if len(mine) == 0 {
		return
	}
	refs := make([]Ref, len(mine))
	for i, p := range mine {
		refs[i] = Ref{ID: p.id, Name: p.name}
	}
	asked := time.Now()
	got, err := c.be.Poll(ctx, refs)
	if err != nil {
		t.pollFailed(c, mine, asked, err)
		return
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	c.reach.Answered(c.name, t.annotate)
	for _, p := range mine {
		if p.final() {
			continue // cancelled meanwhile, or replaced
		}
		st, ok := got[p.id]
		if ok {
			p.st, p.seen, p.missing = st, true, time.Time{}
			continue
		}
		if p.submitted.After(asked) {
			continue
		}
		if p.missing.IsZero() {
			p.missing = time.Now()
		} else if time.Since(p.missing) > t.cfg.UnreachableAfter {
			p.lost = fmt.Sprintf("lost: CE %s no longer knows job %s", c.name, p.id)
		}
	}
	t.aggregateAll()
}

// partsOn lists the parts on CE c that have not ended.
func (t *Target) partsOn(c *ceState) []*part {
	t.mu.Lock()
	defer t.mu.Unlock()
	var mine []*part
	for _, cj := range t.jobs {
		for _, p := range cj.parts {
			if p.ce == c && !p.final() && !p.Reclaiming {
				mine = append(mine, p)
			}
		}
	}
	return mine
}

// pollFailed notes that CE c did not answer (at asked); once it has not
// answered for UnreachableAfter its parts are lost.
func (t *Target) pollFailed(c *ceState, mine []*part, asked time.Time, err error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if down := c.reach.Failed(c.name, asked, err, t.annotate); down > t.cfg.UnreachableAfter {
		reason := fmt.Sprintf("lost: CE %s unreachable for %s: %v", c.name, down.Round(time.Second), err)
		for _, p := range mine {
			if !p.final() {
				p.lost = reason
			}
		}
		t.aggregateAll()
	}
}

// aggregateAll reports the jobs whose state changed. t.mu is held.
func (t *Target) aggregateAll() {
	for key, cj := range t.jobs {
		if t.aggregate(cj) {
			delete(t.jobs, key)
		}
	}
}

// partsState is what the parts of a job say together.
type partsState struct {
	allFinal, allStarted, anyFailed, anyCancelled bool
	failReason                                    string // the first failed part's
	startMax, endMax, submitMin                   time.Time
	exit                                          *int // the first non-zero, else 0; nil unknown
}

func combineParts(parts []*part) partsState {
	ps := partsState{allFinal: true, allStarted: true}
	for _, p := range parts {
		if !p.st.Submit.IsZero() && (ps.submitMin.IsZero() || p.st.Submit.Before(ps.submitMin)) {
			ps.submitMin = p.st.Submit
		}
		switch {
		case p.lost != "" || p.seen && p.st.State == submitter.Failed:
			ps.anyFailed = true
			if ps.failReason == "" {
				ps.failReason = partReason(p)
			}
		case p.seen && p.st.State == submitter.Cancelled:
			ps.anyCancelled = true
		}
		if !p.final() {
			ps.allFinal = false
		}
		if !started(p) {
			ps.allStarted = false
		} else if p.st.Start.After(ps.startMax) {
			ps.startMax = p.st.Start
		}
		if p.final() && p.st.End.After(ps.endMax) {
			ps.endMax = p.st.End
		}
		if p.final() && p.lost == "" && p.st.Exit != nil {
			if ps.exit == nil || (*ps.exit == 0 && *p.st.Exit != 0) {
				e := *p.st.Exit
				ps.exit = &e
			}
		}
	}
	return ps
}

func (ps partsState) state() submitter.State {
	switch {
	case ps.anyFailed:
		return submitter.Failed
	case ps.allFinal && ps.anyCancelled:
		return submitter.Cancelled
	case ps.allFinal:
		return submitter.Succeeded
	case ps.allStarted:
		return submitter.Running
	}
	return submitter.Queued
}

// aggregate combines a job's parts into its state and reports a change;
// it returns true once the job is final. t.mu is held.
func (t *Target) aggregate(cj *cjob) bool {
	claiming := cj.claim != nil && !cj.claim.Released
	if claiming {
		t.claimStep(cj)
		claiming = !cj.claim.Released
	}
	ps := combineParts(cj.parts)
	st := ps.state()
	if claiming {
		var reason string
		if st, reason = claimState(cj); reason != "" {
			ps.failReason = reason
		}
	}
	if st == cj.reported || st == submitter.Queued && cj.reported == submitter.Running {
		return false
	}
	cj.reported = st
	u := submitter.Update{Key: cj.sub.Key, State: st, Time: time.Now(), Sites: sites(cj.parts), Submitted: ps.submitMin}
	if cj.claim != nil {
		u.TargetID = targetID(cj.parts) // a component claimed again is another CE job
	}
	if ps.allStarted {
		u.Start = ps.startMax
	}
	if st.Final() {
		u.End, u.ExitStatus = ps.endMax, ps.exit
		switch st {
		case submitter.Failed:
			u.Reason = ps.failReason
			for _, p := range cj.parts { // a co-allocated job failed: stop the rest
				if !p.final() {
					t.cancelLater(p)
					p.st.State, p.seen = submitter.Cancelled, true
				}
			}
		case submitter.Cancelled:
			u.Reason = "cancelled on the CE"
			if cj.cancelled {
				u.Reason = "cancelled by gmark"
			}
		}
		u.Detail = partsDetail(t.cfg.Kind, cj.parts)
		t.recordComponentStarts(cj)
	}
	t.report(u)
	return st.Final()
}

// recordComponentStarts writes a component-start record of each component
// of co-allocated job cj that started, by its CE's start time, as the
// job's final event records the parts. t.mu is held.
func (t *Target) recordComponentStarts(cj *cjob) {
	if cj.sub.Job == nil || len(cj.sub.Job.Components) < 2 {
		return
	}
	clock := "the start time each component's CE gave its job (" + t.cfg.Kind + ")"
	for _, p := range cj.parts {
		if p.comp < 0 || p.st.Start.IsZero() || target.UnixSeconds(p.st.Start.Unix()) == 0 {
			continue
		}
		c := record.NewComponentStart(cj.sub.Job.ID, cj.sub.Attempt, p.comp, p.ce.name, p.st.Start, clock)
		t.annotate(record.AnnotationComponentStart, cj.sub.Key, c.Value())
	}
}
