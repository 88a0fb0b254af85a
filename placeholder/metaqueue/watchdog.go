package metaqueue

import "time"

// Watchdog is the thesis's fault-tolerance script (Fig. 4.8), run by the
// server every Interval.
type Watchdog struct {
	// ExecFailure: a placeholder executing one job for longer is taken for
	// dead; its job is put back (or failed) and a fresh placeholder is
	// submitted in its place. The thesis: 12 h. Zero: never.
	ExecFailure time.Duration
	// QueueFailure: a placeholder queued for longer is deleted and
	// submitted again. The thesis: 24 h. Zero: never.
	QueueFailure time.Duration
	// MaxRetries: a job is put back while its retries <= MaxRetries (the
	// thesis's test), then goes to the failed list. The thesis: 3.
	MaxRetries int
	// Interval between runs. The thesis does not say; default 1 minute.
	Interval time.Duration
	// Probe (an extension; the thesis has none): every Interval, ask each
	// site which of its placeholders are still queued or running (squeue;
	// /proc on a zinf host), and treat those gone as dead at once rather
	// than after ExecFailure or QueueFailure.
	Probe bool
}

// DefaultWatchdog has the thesis's constants.
var DefaultWatchdog = Watchdog{ExecFailure: 12 * time.Hour, QueueFailure: 24 * time.Hour, MaxRetries: 3, Interval: time.Minute}

// task is work on a site, done outside the driver once the change that
// asked for it is committed: kill a placeholder, then maybe submit a fresh
// one.
type task struct {
	group, site string
	kill        string // local id ("" none)
	submit      bool
	reason      string
	requeued    bool // the placeholder held a job, which went back
}

// watchdog finds stale placeholders.
func (s *state) watchdog(now time.Time, w Watchdog) []task {
	var tasks []task
	for _, p := range s.active {
		switch {
		case p.State == Executing && w.ExecFailure > 0 && now.Sub(s.atts[p.Attempt].Bound) > w.ExecFailure:
			tasks = append(tasks, s.stale(now, p, EndExecFailure, w.MaxRetries))
		case p.State == Queued && w.QueueFailure > 0 && !p.Submitted.IsZero() && now.Sub(p.Submitted) > w.QueueFailure:
			tasks = append(tasks, s.stale(now, p, EndQueueFailure, w.MaxRetries))
		}
	}
	return s.revive(tasks)
}

// stale ends a placeholder the watchdog gave up on: its job goes back (or
// to the failed list), and it is killed and replaced, since it might be the
// only one left of its group.
func (s *state) stale(now time.Time, p *Placeholder, why string, maxRetries int) task {
	g := s.groups[p.Group]
	held := p.Attempt != 0
	if held {
		s.abandon(now, g, s.atts[p.Attempt], why, true, maxRetries)
		p.Attempt = 0
	}
	s.endPlaceholder(now, p, why)
	s.phAct(now, p, "kill", 0, 0, why)
	return task{group: p.Group, site: p.Site, kill: p.LocalID, submit: !g.Stopped, reason: why, requeued: held}
}

// revive (an extension; the thesis's script resubmits only at the stale
// placeholder's own site): when the watchdog put a job back, each other
// site of the group that has run placeholders but has none left (and was
// not stopped by the user) gets a fresh one. Classic placeholders leave once nothing waits, so without it
// a job put back late would wait on the replacement alone, at a site
// that may have stopped executing for good (Exp. 2's site A).
func (s *state) revive(tasks []task) []task {
	covered := map[[2]string]bool{}
	groups := map[string]bool{}
	for _, t := range tasks {
		if t.submit {
			covered[[2]string{t.group, t.site}] = true
		}
		if t.requeued && t.submit {
			groups[t.group] = true
		}
	}
	if len(groups) == 0 {
		return tasks
	}
	// A site is used when it has had placeholders, and the newest of them
	// was not stopped by the user (a site stopped on purpose stays so).
	newest := map[[2]string]*Placeholder{}
	for _, p := range s.phs {
		k := [2]string{p.Group, p.Site}
		if groups[p.Group] && (newest[k] == nil || p.ID > newest[k].ID) {
			newest[k] = p
		}
	}
	used := map[[2]string]bool{}
	for k, p := range newest {
		used[k] = p.End != EndStopped
	}
	for _, p := range s.active {
		covered[[2]string{p.Group, p.Site}] = true
	}
	for name := range groups {
		for _, sp := range s.groups[name].Sites {
			k := [2]string{name, sp.Name}
			if used[k] && !covered[k] {
				covered[k] = true
				tasks = append(tasks, task{group: name, site: sp.Name, submit: true, reason: "revive: a job was put back and the site had no placeholder left"})
			}
		}
	}
	return tasks
}

// probeEntry is a placeholder as it was when its site was asked about it.
type probeEntry struct {
	id, attempt int64
	state       string
	local       string
}

// snapshot lists the active placeholders of each site of each group.
func (s *state) snapshot() map[[2]string][]probeEntry {
	m := map[[2]string][]probeEntry{}
	for _, p := range s.active {
		k := [2]string{p.Group, p.Site}
		m[k] = append(m[k], probeEntry{id: p.ID, attempt: p.Attempt, state: p.State, local: p.LocalID})
	}
	return m
}

// lost ends the placeholders a site no longer has, unless they changed
// since the site was asked.
func (s *state) lost(now time.Time, entries []probeEntry, alive map[string]bool, w Watchdog) []task {
	var tasks []task
	for _, e := range entries {
		p := s.active[e.id]
		if p == nil || alive[e.local] || p.State != e.state || p.Attempt != e.attempt {
			continue
		}
		tasks = append(tasks, s.stale(now, p, EndLost, w.MaxRetries))
	}
	return s.revive(tasks)
}

// stop stops one placeholder (id), or every active one of a site, or of
// the whole group (then pulls are refused until the next start). Their jobs
// go back to the metaqueue with no retry counted.
func (s *state) stop(now time.Time, group, siteName string, id int64) ([]task, error) {
	g, err := s.group(group)
	if err != nil {
		return nil, err
	}
	var victims []*Placeholder
	switch {
	case id != 0:
		p, ok := s.phs[id]
		if !ok || p.Group != group {
			return nil, notFound("no placeholder %d in group %s", id, group)
		}
		if p.State == Ended {
			return nil, conflict("placeholder %d has ended (%s)", id, p.End)
		}
		victims = append(victims, p)
	case siteName != "":
		if _, ok := g.Site(siteName); !ok {
			return nil, notFound("group %s has no site %q", group, siteName)
		}
		fallthrough
	default:
		for _, p := range s.active {
			if p.Group == group && (siteName == "" || p.Site == siteName) {
				victims = append(victims, p)
			}
		}
	}
	if id == 0 && siteName == "" {
		g.Stopped = true
		s.dirtyGroups[group] = true
	}
	var tasks []task
	for _, p := range victims {
		if p.Attempt != 0 {
			s.abandon(now, g, s.atts[p.Attempt], "its placeholder was stopped", false)
			p.Attempt = 0
		}
		s.endPlaceholder(now, p, EndStopped)
		s.phAct(now, p, "stop", 0, 0, "")
		tasks = append(tasks, task{group: group, site: p.Site, kill: p.LocalID, reason: "stopped"})
	}
	return tasks, nil
}

// register records a placeholder the server submitted.
func (s *state) register(now time.Time, group, siteName, local, why string, at time.Time) *Placeholder {
	g := s.groups[group]
	if g == nil {
		return nil
	}
	sp, _ := g.Site(siteName)
	p := s.phs[s.latest[phKey{group, siteName, local}]]
	// A record of that local id that ended and first called before the
	// submission (at, taken before it) is an older placeholder whose id the
	// local system reuses (a pid): this one is new. One that first called
	// after it is this very placeholder, which called, and may have run a
	// job and ended, before its submitter recorded it (seen on a loaded
	// machine): a second record would stay queued for good. Its submit time
	// cannot tell them apart, since a placeholder reports that itself.
	if p == nil || p.State == Ended && !p.Submitted.IsZero() && p.Started.Before(at) {
		p = s.newPlaceholder(group, siteName, sp.Mode, local, at, 0)
	} else {
		p.Submitted = at
		s.dirtyPHs[p.ID] = true
	}
	s.phAct(now, p, "submit", 0, 0, why)
	return p
}
