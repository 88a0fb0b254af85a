package metaqueue

import (
	"fmt"
	"time"

	"github.com/gmark/gmark/placeholder/site"
)

// Ident says which placeholder calls: its group and site and its local id
// (the batch job id, or the pid on a zinf site), as the thesis's
// `getcmdline ident host=… jobid=…`.
type Ident struct {
	Site    string `json:"site"`
	Host    string `json:"host,omitempty"`
	LocalID string `json:"local_id"`
}

func (id Ident) check() error {
	if id.Site == "" || id.LocalID == "" || len(id.LocalID) > 64 || len(id.Host) > 256 {
		return bad("site and local_id are required (local_id at most 64 bytes, host 256)")
	}
	return nil
}

// PullRequest is nextcmd: a placeholder that has started asks for a job.
type PullRequest struct {
	Ident
	Mode string `json:"mode,omitempty"`
	// Seq numbers the placeholder's pulls from 1: a pull retried after a
	// lost answer carries the same Seq and gets the same answer.
	Seq int64 `json:"seq"`
	// Submitted is when the placeholder was submitted, as handed to it by
	// whoever submitted it (the thesis's MQ/$PBS_JOBID file, Fig. 3.7).
	Submitted time.Time `json:"submitted,omitzero"`
}

// Order is the job a pull binds.
type Order struct {
	Job     int64  `json:"job"`
	Key     string `json:"key,omitempty"`
	Attempt int64  `json:"attempt"`
	Command string `json:"command"`
}

// PullReply answers a pull: a job, or Stop (the refusal: exit 111), or
// Wait (an extension for DAG groups: no job is eligible yet, but running
// ones may make some so; pull again after Wait seconds).
type PullReply struct {
	Placeholder int64  `json:"placeholder"`
	Order       *Order `json:"order,omitempty"`
	// Regulate is a self-regulating site's decision for this placeholder:
	// increase, reduce or maintain (empty when the site does not regulate).
	Regulate string  `json:"regulate,omitempty"`
	Stop     string  `json:"stop,omitempty"`
	Wait     float64 `json:"wait,omitempty"`
}

// DoneRequest is donejob: the job of Attempt ended with Exit; NewID is the
// local id of the successor the placeholder submitted (classic mode).
type DoneRequest struct {
	Ident
	Attempt     int64     `json:"attempt"`
	Exit        int       `json:"exit"`
	Started     time.Time `json:"started"`
	Ended       time.Time `json:"ended"`
	NewID       string    `json:"new_id,omitempty"`
	Resubmitted time.Time `json:"resubmitted,omitzero"`
	// ExtraID is the local id of the extra placeholder a self-regulating
	// placeholder submitted when told to increase.
	ExtraID string `json:"extra_id,omitempty"`
	// ResubmitError says why no successor was submitted.
	ResubmitError string `json:"resubmit_error,omitempty"`
}

// DequeueRequest is dequeue: the placeholder leaves the group, after a
// refusal or (a pilot) at its wall time, possibly leaving a successor.
type DequeueRequest struct {
	Ident
	Reason      string    `json:"reason,omitempty"`
	NewID       string    `json:"new_id,omitempty"`
	Resubmitted time.Time `json:"resubmitted,omitzero"`
}

// placeholderOf finds the calling placeholder, or makes its record: one
// started by hand, or a successor that pulls before its predecessor
// reports it.
func (s *state) placeholderOf(now time.Time, g *Group, id Ident, mode string) (*Placeholder, error) {
	if err := id.check(); err != nil {
		return nil, err
	}
	sp, ok := g.Site(id.Site)
	if !ok {
		return nil, notFound("group %s has no site %q", g.Name, id.Site)
	}
	if p := s.phs[s.latest[phKey{g.Name, id.Site, id.LocalID}]]; p != nil {
		return p, nil
	}
	if mode == "" {
		mode = sp.Mode
	}
	p := s.newPlaceholder(g.Name, id.Site, mode, id.LocalID, time.Time{}, 0)
	p.Host = id.Host
	s.phAct(now, p, "register", 0, 0, "unknown placeholder: recorded at its first call")
	// Most likely the extra of a placeholder told to increase (extras are
	// submitted before the job runs, so they call before their submitter
	// reports them): from now on it counts itself.
	var oldest *Placeholder
	for _, q := range s.active {
		if q.extraPending && q.Group == g.Name && q.Site == id.Site && (oldest == nil || q.ID < oldest.ID) {
			oldest = q
		}
	}
	if oldest != nil {
		oldest.extraPending = false
	}
	return p, nil
}

func (s *state) newPlaceholder(group, siteName, mode, local string, submitted time.Time, pred int64) *Placeholder {
	p := &Placeholder{ID: s.nextPH, Group: group, Site: siteName, Mode: mode, LocalID: local, State: Queued,
		Submitted: submitted, Pred: pred}
	s.nextPH++
	s.phs[p.ID] = p
	s.latest[phKey{group, siteName, local}] = p.ID
	s.active[p.ID] = p
	s.dirtyPHs[p.ID] = true
	return p
}

func (s *state) endPlaceholder(now time.Time, p *Placeholder, why string) {
	p.State, p.End, p.Ended = Ended, why, now
	p.extraPending = false
	delete(s.active, p.ID)
	s.dirtyPHs[p.ID] = true
}

// pull is nextcmd.
func (s *state) pull(now time.Time, group string, req PullRequest, pullWait time.Duration) (PullReply, error) {
	g, err := s.group(group)
	if err != nil {
		return PullReply{}, err
	}
	p, err := s.placeholderOf(now, g, req.Ident, req.Mode)
	if err != nil {
		return PullReply{}, err
	}
	if p.State == Ended && req.Seq != 0 && req.Seq <= p.Seq {
		return PullReply{Placeholder: p.ID, Stop: "this placeholder has ended (" + p.End + ")"}, nil
	}
	if p.State == Ended {
		// The local id is reused (a new process, or a new cluster's job).
		p = s.newPlaceholder(g.Name, req.Site, p.Mode, req.LocalID, time.Time{}, 0)
		s.phAct(now, p, "register", 0, 0, "local id reused: a new placeholder")
	}
	if req.Seq != 0 && req.Seq == p.Seq && p.Attempt != 0 {
		// The answer to this pull was lost: give the same job again.
		return PullReply{Placeholder: p.ID, Order: s.order(s.atts[p.Attempt])}, nil
	}
	if p.Attempt != 0 {
		s.abandon(now, g, s.atts[p.Attempt], "the placeholder pulled again without reporting it", true)
	}
	if req.Host != "" {
		p.Host = req.Host
	}
	if !req.Submitted.IsZero() {
		p.Submitted = req.Submitted
	}
	p.Seq = req.Seq
	s.dirtyPHs[p.ID] = true
	if p.Started.IsZero() {
		p.Started = now
		s.phAct(now, p, "start", 0, 0, p.Mode)
	}
	if p.State == Queued {
		p.State = Idle
	}
	if g.Stopped {
		return s.refuse(now, p, "the group was stopped"), nil
	}
	j := g.pop(p.Site)
	if j == nil {
		if g.counts[Waiting] > 0 && g.counts[Bound] > 0 && hasDeps(g.Policy) {
			s.phAct(now, p, "wait", 0, 0, fmt.Sprintf("%d jobs wait on prerequisites", g.counts[Waiting]))
			return PullReply{Placeholder: p.ID, Wait: pullWait.Seconds()}, nil
		}
		why := "the metaqueue is empty"
		if g.counts[Waiting] > 0 {
			why = fmt.Sprintf("no job is eligible at site %s (%d wait: pinned to other sites, or on prerequisites that cannot finish)", p.Site, g.counts[Waiting])
		}
		return s.refuse(now, p, why), nil
	}
	a := &Attempt{ID: s.nextAtt, Job: j.ID, Placeholder: p.ID, Group: g.Name, Site: p.Site, Host: p.Host,
		LocalID: p.LocalID, Mode: p.Mode, Bound: now, Outcome: Running}
	s.nextAtt++
	s.atts[a.ID] = a
	s.dirtyAtts[a.ID] = true
	j.Attempt = a.ID
	j.attempts = append(j.attempts, a.ID)
	s.setJob(g, j, Bound)
	p.State, p.Attempt = Executing, a.ID
	s.phAct(now, p, "bind", j.ID, a.ID, "")
	return PullReply{Placeholder: p.ID, Order: s.order(a), Regulate: s.regulate(now, g, p)}, nil
}

// Self-regulation decisions.
const (
	Increase = "increase"
	Maintain = "maintain"
	Reduce   = "reduce"
)

// regulate is the thesis's decide(wait) for a self-regulating site, made
// here, where the site's count is known: the placeholder's queue wait
// (start - submit; unknown: maintain) against the site's thresholds and
// bounds. The decision is recorded with its inputs.
func (s *state) regulate(now time.Time, g *Group, p *Placeholder) string {
	sp, _ := g.Site(p.Site)
	if !sp.Regulate || p.Mode != site.Classic {
		return ""
	}
	th, err := sp.Thresholds()
	if err != nil {
		return ""
	}
	// The site's count includes the extras already decided but not yet
	// reported: placeholders pulling at once would otherwise each see room
	// for one more and together pass max_count.
	count := 0
	for _, q := range s.active {
		if q.Group == g.Name && q.Site == p.Site {
			count++
			if q.extraPending {
				count++
			}
		}
	}
	decision, wait := Maintain, time.Duration(-1)
	if !p.Submitted.IsZero() {
		wait = p.Started.Sub(p.Submitted)
		switch {
		case wait < th.Low && count < th.MaxCount:
			decision = Increase
			p.extraPending = true
		case wait > th.High && count > th.MinCount:
			decision = Reduce
		}
	}
	s.phAct(now, p, "regulate", 0, 0, fmt.Sprintf("%s: wait %v (low %v, high %v), %d placeholders (min %d, max %d)",
		decision, wait, th.Low, th.High, count, th.MinCount, th.MaxCount))
	return decision
}

func (s *state) order(a *Attempt) *Order {
	j := s.jobs[a.Job]
	return &Order{Job: j.ID, Key: j.Key, Attempt: a.ID, Command: j.Command}
}

func (s *state) refuse(now time.Time, p *Placeholder, why string) PullReply {
	s.phAct(now, p, "refuse", 0, 0, why)
	s.endPlaceholder(now, p, EndRefused)
	return PullReply{Placeholder: p.ID, Stop: why}
}

// abandon gives up an attempt: its job goes back to the metaqueue, or to
// the failed list after too many retries (count false: no retry is
// counted, as when the user stopped the placeholder). The watchdog's test
// is the thesis's `retries <= MAX_RETRIES` (Fig. 4.8): MaxRetries 3 lets a
// job be put back four times.
func (s *state) abandon(now time.Time, g *Group, a *Attempt, why string, count bool, maxRetries ...int) {
	if a == nil || a.Outcome != Running {
		return
	}
	a.Outcome, a.Reason = Abandoned, why
	s.dirtyAtts[a.ID] = true
	j := s.jobs[a.Job]
	if j.State != Bound || j.Attempt != a.ID {
		return
	}
	limit := -1
	if len(maxRetries) > 0 {
		limit = maxRetries[0]
	}
	if count && limit >= 0 && j.Retries > limit {
		j.Reason = fmt.Sprintf("failed list: %s after %d retries", why, j.Retries)
		s.setJob(g, j, Failed)
		s.act(now, Action{Group: g.Name, Site: a.Site, Placeholder: a.Placeholder, LocalID: a.LocalID, Action: "fail", Job: j.ID, Attempt: a.ID, Detail: why})
		return
	}
	if count {
		j.Retries++
	}
	j.Reason = "requeued: " + why
	s.setJob(g, j, Waiting)
	g.push(j)
	s.act(now, Action{Group: g.Name, Site: a.Site, Placeholder: a.Placeholder, LocalID: a.LocalID, Action: "requeue", Job: j.ID, Attempt: a.ID, Detail: why})
}

// done is donejob.
func (s *state) done(now time.Time, group string, req DoneRequest) error {
	g, err := s.group(group)
	if err != nil {
		return err
	}
	a, ok := s.atts[req.Attempt]
	if !ok || a.Group != group {
		return notFound("no attempt %d in group %s", req.Attempt, group)
	}
	if a.Outcome == Finished || a.Outcome == Duplicate {
		return nil // a retried report
	}
	p := s.phs[a.Placeholder]
	a.Started, a.Ended, a.Exit = req.Started, req.Ended, &req.Exit
	s.dirtyAtts[a.ID] = true
	s.settle(now, g, a, p)
	if p.Attempt == a.ID {
		p.Attempt = 0
		p.Jobs++
		if p.Mode == site.Classic {
			s.endPlaceholder(now, p, EndDone)
		} else if p.State != Ended {
			p.State = Idle
		}
		s.dirtyPHs[p.ID] = true
	}
	s.phAct(now, p, "done", a.Job, a.ID, fmt.Sprintf("exit %d", req.Exit))
	if req.ResubmitError != "" {
		s.phAct(now, p, "resubmit-failed", 0, 0, req.ResubmitError)
	}
	s.successor(now, g, p, req.NewID, req.Resubmitted)
	s.successor(now, g, p, req.ExtraID, time.Time{})
	p.extraPending = false
	return nil
}

// settle records what a reported attempt did to its job.
func (s *state) settle(now time.Time, g *Group, a *Attempt, p *Placeholder) {
	j := s.jobs[a.Job]
	j.Exit = a.Exit
	switch {
	case j.State == Bound && j.Attempt == a.ID:
		a.Outcome = Finished
		s.finish(g, j)
	case j.State == Waiting || j.State == Failed:
		// The watchdog gave up on this attempt, and no other has run the
		// job since: it ran once, late.
		a.Outcome, a.Reason = Finished, "reported after the watchdog gave up on it ("+a.Reason+")"
		j.Attempt = a.ID
		s.finish(g, j)
		s.phAct(now, p, "late", j.ID, a.ID, a.Reason)
	default:
		a.Outcome = Duplicate
		a.Reason = fmt.Sprintf("the job was %s by attempt %d when this one reported (this one was %s)", j.State, j.Attempt, a.Reason)
		s.phAct(now, p, "duplicate", j.ID, a.ID, a.Reason)
	}
	if a.Outcome == Duplicate && j.State == Bound {
		return
	}
	j.Reason = ""
	s.dirtyJobs[j.ID] = true
}

// successor records the placeholder a placeholder submitted to its own
// local queue: new, or already known when it pulled first.
func (s *state) successor(now time.Time, g *Group, p *Placeholder, newID string, at time.Time) {
	if newID == "" || len(newID) > 64 {
		return
	}
	if at.IsZero() {
		at = now
	}
	// A record of that local id that ended before p started is an older
	// placeholder whose id the local system reuses (a pid): the reported
	// one is new. One that started after p did is the one p submitted,
	// which called, ran and ended before p's report arrived: it is linked,
	// not counted again (a second record would stay active forever).
	q := s.phs[s.latest[phKey{g.Name, p.Site, newID}]]
	if q == nil || q == p || q.State == Ended && !q.Submitted.IsZero() && q.Started.Before(p.Started) {
		q = s.newPlaceholder(g.Name, p.Site, p.Mode, newID, at, p.ID)
	} else {
		q.Pred = p.ID
		if q.Submitted.IsZero() {
			q.Submitted = at
		}
		s.dirtyPHs[q.ID] = true
	}
	s.phAct(now, q, "resubmit", 0, 0, fmt.Sprintf("by placeholder %d", p.ID))
}

// dequeue is the placeholder leaving (after a refusal, or a pilot at its
// wall time).
func (s *state) dequeue(now time.Time, group string, req DequeueRequest) error {
	g, err := s.group(group)
	if err != nil {
		return err
	}
	if err := req.check(); err != nil {
		return err
	}
	p := s.phs[s.latest[phKey{group, req.Site, req.LocalID}]]
	if p == nil {
		return notFound("no placeholder %s on site %s of group %s", req.LocalID, req.Site, group)
	}
	if p.State != Ended {
		why := EndRefused
		if req.Reason == EndWallTime {
			why = EndWallTime
		}
		s.abandon(now, g, s.atts[p.Attempt], "the placeholder left holding it", true)
		p.Attempt = 0
		s.endPlaceholder(now, p, why)
	}
	s.phAct(now, p, "dequeue", 0, 0, req.Reason)
	s.successor(now, g, p, req.NewID, req.Resubmitted)
	return nil
}
