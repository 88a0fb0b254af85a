package core

import (
	"strconv"

	"github.com/gmark/gmark/koala/placement"
)

// The placement queues. A job enters at the tail of its priority's queue.
// Every scan interval one queue is scanned, head to tail, trying to place each
// job (backfilling with no protection for the head: any job may be
// overtaken). Which queue is scanned follows KOALA's weighted round-robin in
// groups: the higher group (super-high n1 times, then high n2 times) N_h
// times, then the lower group (low n3 times, super-low n4 times) N_l times;
// empty queues are skipped. Every P tries (aging_period) a high or low job
// moves up one queue; super-low jobs never move.

func (c *Core) enqueue(j *Job) {
	j.State = Queued
	j.queuedAt = c.now
	c.queues[j.priority] = append(c.queues[j.priority], qent{j: j})
	c.queued++
}

// dequeue removes a job from its placement queue, or from the deadline
// jobs' wait, if it is in one.
func (c *Core) dequeue(j *Job) {
	c.leaveWait(j)
	q := c.queues[j.priority]
	// From the tail: a job is in its queue once, and the one placed as it
	// is submitted is the last.
	for i := len(q) - 1; i >= 0; i-- {
		if q[i].j == j {
			if q[i].lazy {
				c.wake(j, &c.lazy[j.priority])
			}
			c.queues[j.priority] = append(q[:i], q[i+1:]...)
			c.queued--
			return
		}
	}
}

// scanTick is the periodic placement-queue scan.
func (c *Core) scanTick() {
	c.at(c.now.Add(c.cfg.ScanInterval.Duration), c.scanTick)
	if p, ok := c.nextQueue(); ok {
		c.scan(p)
	}
	c.emit(Event{Kind: EvQueueLength, Count: c.QueueLength()})
}

// nextQueue advances the round-robin to the next non-empty queue.
func (c *Core) nextQueue() (Priority, bool) {
	for i := 0; i < len(c.rrCycle); i++ {
		p := c.rrCycle[c.rrPos]
		c.rrPos = (c.rrPos + 1) % len(c.rrCycle)
		if len(c.queues[p]) > 0 {
			return p, true
		}
	}
	return 0, false
}

// Scan scans one placement queue now (the periodic scan does this; tests
// and event-driven drivers may call it directly).
func (c *Core) Scan(p Priority) { c.scan(p) }

func (c *Core) scan(p Priority) {
	info := c.info()
	// The scan owns the queue while it walks it: placing a job must not
	// shift the slice being iterated. Jobs that enter this queue during the
	// scan (none do today) would go after the ones kept.
	jobs := c.queues[p]
	c.queues[p] = nil
	kept := c.spare[:0] // the queue of the last scan: its array is free
	c.spare = nil
	var promoted []*Job
	fast := fastScan && reasonsCache && c.skipTry && c.skipWhy && c.cfg.MaxPlacementTries == 0
	// bulk: from here on no processor is idle, and the lazy jobs are
	// tried in bulk (lazy.go).
	lz, bulkable, bulk := &c.lazy[p], c.bulkable(p, fast), false
	for i := 0; i < len(jobs); i++ {
		q := jobs[i]
		j := q.j
		if bulkable && !bulk {
			bulk = c.noneIdle(info)
		}
		if q.lazy {
			if bulk {
				// Tried in bulk, below: the run of lazy jobs from here
				// is kept as it is, in one copy.
				k := i + 1
				for k < len(jobs) && jobs[k].lazy {
					k++
				}
				kept = append(kept, jobs[i:k]...)
				i = k - 1
				continue
			}
			c.wake(j, lz)
		}
		if j.State != Queued {
			continue
		}
		if fast && c.tryHopeless(j, info) {
			// Failed as tryPlace would have failed it (tryHopeless).
			if bulk && !j.excludes() {
				c.makeLazy(j, lz)
				kept = append(kept, qent{j: j, lazy: true})
				continue
			}
		} else if c.tryPlace(j, info) || j.State != Queued {
			continue // placed, or failed (max_placement_tries)
		}
		// Aging: every P tries a high or low job moves up a queue.
		if P := c.cfg.AgingPeriod; P > 0 && j.PlacementTries%P == 0 && (j.priority == High || j.priority == Low) {
			j.priority--
			promoted = append(promoted, j)
			c.emit(Event{Kind: EvPromoted, Job: j.ID, Key: j.Opts.Key, Reason: "aged to " + j.priority.String()})
			continue
		}
		kept = append(kept, qent{j: j})
	}
	if bulk {
		c.bulkTry(lz, info)
	}
	c.queues[p] = append(kept, c.queues[p]...)
	clear(jobs) // no pointers to jobs that ended
	c.spare = jobs[:0]
	for _, j := range promoted {
		c.queues[j.priority] = append(c.queues[j.priority], qent{j: j})
	}
	c.queued = 0
	for _, q := range c.queues {
		c.queued += len(q)
	}
}

// fastScan lets a scan take tryHopeless's way for the jobs the cheap
// checks refuse; a test turns it off to check that doing so changes
// nothing.
var fastScan = true

// tryHopeless is tryPlace for a job the cheap checks refuse with the
// current view, when the sink takes neither placement tries nor failed
// placements and no try limit can fail the job: the same try, the same
// events numbered, the same reasons left on the job, without building the
// failure. A scan of a saturated grid refuses nearly every queued job at
// nearly every scan (95 million tries in the LCG trace at 70% load on
// DAS-2), and those tries were most of a simulated run's time. It tells
// whether it made the try; when not (the job may fit, or excludes a site),
// tryPlace makes it.
func (c *Core) tryHopeless(j *Job, info *placement.Info) bool {
	if j.excludes() || info != c.infoNow {
		return false
	}
	maxIdle, total := c.idleOf(j, info)
	var key whyKey
	switch {
	case !j.flexible && int(j.reqLargest) > maxIdle:
		key = whyKey{need: int(j.reqLargest), component: int(j.reqAt)}
	case j.reqNeed > total:
		key = whyKey{need: j.reqNeed, component: placement.Total}
	default:
		return false
	}
	j.PlacementTries++
	c.fastTries++
	c.eventSeq++ // the placement_try, not built
	if j.whyGen == c.infoGen {
		return true // the reasons stand (hopeless's reasonsStand)
	}
	e := c.sharedWhyOf(&j.request, info, key)
	same := c.sameAs(j, e)
	j.Why, j.whyClass, j.whyGen = e.fail.Reasons, e.class, c.infoGen
	if !same {
		c.eventSeq++ // the placement_failed, not built
	}
	return true
}

// sameAs tells whether a job's reasons are the Same as an entry's, as
// noteWhy compares them. Jobs whose reasons are shared with a class are
// compared once per class and entry: all the reasons of a class are the
// Same (sharedWhy), so the answer is the class's.
func (c *Core) sameAs(j *Job, e *whyEntry) bool {
	return c.sameClass(j.whyClass, j.Why, e)
}

// sameClass is sameAs for reasons why of class (0: of no class).
func (c *Core) sameClass(class uint64, why []placement.Reason, e *whyEntry) bool {
	if class == 0 {
		return placement.SameReasons(why, e.fail.Reasons)
	}
	if class == e.class {
		return true
	}
	if e.cmpClass != class {
		e.cmpClass, e.cmpSame = class, placement.SameReasons(why, e.fail.Reasons)
	}
	return e.cmpSame
}

// info is the information service's view: per site, idle processors minus
// what placed jobs hold (the soft reservation), 0 when out of service. Idle
// counts are cached for info_cache, as KOALA's information service did.
// With each count go the facts that explain it (the site's size, its idle
// processors before soft reservations, why it is out of service), for the
// reasons of failed placements.
func (c *Core) info() *placement.Info {
	sites := make([]placement.Site, len(c.clusters))
	changed := len(c.infoSeen) != len(sites)
	for i, cl := range c.clusters {
		idle := c.localIdle(cl)
		sites[i] = placement.Site{Name: cl.cfg.Name, Idle: max(0, idle-cl.soft), Processors: cl.cfg.Processors,
			LocalIdle: idle, Down: c.outOfService(cl)}
		changed = changed || sites[i] != c.infoSeen[i]
	}
	if changed {
		c.infoGen++
		c.infoSeen = append(c.infoSeen[:0], sites...)
	}
	c.infoNow = &placement.Info{Sites: sites, Replicas: c.replicas, Bandwidth: c.grid.Bandwidth}
	return c.infoNow
}

// placeable is the processors the co-allocator may place on at a site.
func (c *Core) placeable(cl *cluster) int {
	return max(0, c.localIdle(cl)-cl.soft)
}

// localIdle is the idle processors of a site's local resource manager, as
// the information service gives them (cached for info_cache); 0 when the
// site is out of service.
func (c *Core) localIdle(cl *cluster) int {
	if cl.lrm.Down() || cl.disabled != "" || cl.unreachable != "" {
		return 0
	}
	idle := cl.lrm.Idle()
	if ttl := c.cfg.InfoCache.Duration; ttl > 0 {
		if cl.cacheAt.IsZero() || c.now.Sub(cl.cacheAt) >= ttl {
			cl.cacheAt, cl.cacheIdl = c.now, idle
		}
		idle = cl.cacheIdl
	}
	return idle
}

// outOfService is why a site is out of service, or "" when it is in.
func (c *Core) outOfService(cl *cluster) string {
	switch {
	case cl.disabled != "":
		return cl.disabled
	case cl.lrm.Down():
		return "down"
	case cl.unreachable != "":
		return cl.unreachable
	}
	return ""
}

// tryPlace makes one placement try; on success the job's processors are
// soft-reserved, its claiming is scheduled, and info is updated for the
// rest of the scan. The caller takes the job out of its queue when it is
// placed or failed.
func (c *Core) tryPlace(j *Job, info *placement.Info) bool {
	j.PlacementTries++
	res, fail := c.place(j, info)
	if fail != nil {
		if c.skipTry {
			c.skipEvent()
		} else {
			c.emit(Event{Kind: EvPlacementTry, Job: j.ID, Key: j.Opts.Key, Try: j.PlacementTries})
		}
		c.noteWhy(j, fail)
		if m := c.cfg.MaxPlacementTries; m > 0 && j.PlacementTries >= m {
			c.fail(j, "placement failed "+itoa(j.PlacementTries)+" times (max_placement_tries)")
		}
		return false
	}
	sites := c.assign(j, res, info)
	j.Placements++
	j.TotalPlacementTime += c.now.Sub(j.queuedAt)
	j.JPT, j.FTT = c.now, res.FTT
	j.JST = c.now.Add(res.FTT)
	if j.OrigJST.IsZero() {
		j.OrigJST = j.JST
	}
	j.State = Claiming
	j.JCT = c.now.Add(scaled(res.FTT, j.L))
	c.emit(Event{Kind: EvPlaced, Job: j.ID, Key: j.Opts.Key, Sites: sites, Policy: c.policyName(j), FTT: res.FTT, JST: j.JST, JCT: j.JCT, Try: j.PlacementTries})
	jct := j.JCT
	j.claimTimer = c.at(jct, func() { c.claimTry(j) })
	return true
}

// assign puts a job's components where a placement put them, on their
// sites' soft reservations, and takes them from info for the rest of the
// scan. It returns the sites, in the order of the assignments.
func (c *Core) assign(j *Job, res placement.Result, info *placement.Info) []string {
	j.Why, j.whyGen = c.emptyWhy(j), 0
	if j.request.Flexible {
		// The policy chose the components of a flexible job.
		j.Components = j.Components[:0]
		for _, a := range res.Assignments {
			j.Components = append(j.Components, Component{Size: a.Size})
		}
	}
	sites := make([]string, 0, len(res.Assignments))
	for _, a := range res.Assignments {
		comp := &j.Components[a.Index]
		comp.Site, comp.FileSites, comp.Transfer = a.Site, a.FileSites, a.Transfer
		comp.Claimed, comp.Executing, comp.Done, comp.OK = false, false, false, false
		cl := c.byName[a.Site]
		c.account(cl)
		cl.soft += a.Size
		for k := range info.Sites {
			if info.Sites[k].Name == a.Site {
				info.Sites[k].Idle -= a.Size
			}
		}
		c.infoGen++ // the view changed: reasons found with the old one are stale
		c.infoSeen = c.infoSeen[:0]
		sites = append(sites, a.Site)
	}
	return sites
}

// place runs the job's policy, after cheap checks that spare the policy most
// hopeless tries when the grid is full (a scan over thousands of queued jobs
// must stay fast). The reasons of a hopeless job are written to a buffer
// of the core's, valid until the next try.
func (c *Core) place(j *Job, info *placement.Info) (placement.Result, *placement.Failure) {
	maxIdle, total := c.idleOf(j, info)
	switch {
	case !j.flexible && int(j.reqLargest) > maxIdle:
		return placement.Result{}, c.hopeless(j, info, int(j.reqAt))
	case j.reqNeed > total:
		return placement.Result{}, c.hopeless(j, info, placement.Total)
	}
	pol, _ := c.policy(j.Opts.Policy)
	return pol.Place(&j.request, info)
}

// hopeless explains why component (or the job's placement.Total) fits no
// site, in the core's buffer. The cheap checks are a function of the job's
// request and the information service's view alone: when the job's reasons
// were found with the view at hand (the same infoGen), they stand, and
// hopeless says so (reasonsStand) without finding them again. So a scan of
// thousands of hopeless jobs through an unchanged grid costs what it did
// before placements said why.
//
// The reasons are a function of the view and of what the job asks (the
// processors of the component or the total, the component's index, the
// sites it excludes): in a saturated grid thousands of queued jobs ask
// alike, so with the current view the reasons are found once for all the
// jobs that ask alike (jobs that exclude sites are explained one by one)
// and shared by them (whyEntry).
func (c *Core) hopeless(j *Job, info *placement.Info, component int) *placement.Failure {
	current := info == c.infoNow
	if current && j.whyGen == c.infoGen && reasonsCache {
		return reasonsStand
	}
	if current && !j.excludes() && reasonsCache {
		return c.sharedWhy(j, info, component)
	}
	c.hopelessWhy.Reasons = placement.Explain(c.hopelessWhy.Reasons[:0], &j.request, info, component)
	c.hopelessGen = 0
	if current {
		c.hopelessGen = c.infoGen
	}
	return &c.hopelessWhy
}

// whyEntry is the reasons the cheap checks found, with the current view,
// for the jobs that ask what key says. Its reasons are never written to
// once made: jobs share them as their Why.
type whyEntry struct {
	key  whyKey
	fail placement.Failure
	// class is the same for entries whose reasons are the Same
	// (placement.SameReasons): a job whose Why is one of them has the same
	// reasons as the others without comparing them.
	class uint64
	// cmpClass, cmpSame: whether the reasons of class cmpClass are the
	// Same as these (sameAs); cmpClass 0: not compared yet.
	cmpClass uint64
	cmpSame  bool
}

// whyKey is what hopeless reasons depend on besides the view: the
// processors asked (of the component, or the job's total) and the
// component's index in the job (or placement.Total).
type whyKey struct{ need, component int }

// sharedWhy is hopeless's answer for a job that excludes no site, with
// the current view: the reasons shared by the jobs that ask alike.
func (c *Core) sharedWhy(j *Job, info *placement.Info, component int) *placement.Failure {
	key := whyKey{need: j.reqNeed, component: placement.Total}
	if component != placement.Total {
		key = whyKey{need: int(j.reqLargest), component: component} // place's: the first of the largest (its Index is its position)
	}
	return &c.sharedWhyOf(&j.request, info, key).fail
}

// sharedWhyOf is sharedWhy's entry for the jobs that ask what key says,
// found with the current view.
func (c *Core) sharedWhyOf(req *placement.Request, info *placement.Info, key whyKey) *whyEntry {
	if c.whyGen != c.infoGen {
		c.whyGen = c.infoGen
		clear(c.whys)
		c.whys = c.whys[:0]
	}
	for _, e := range c.whys {
		if e.key == key {
			return e
		}
	}
	e := &whyEntry{key: key}
	e.fail.Reasons = placement.Explain(nil, req, info, key.component)
	if last := c.whyLast[key]; last != nil && placement.SameReasons(last.fail.Reasons, e.fail.Reasons) {
		e.class = last.class
	} else {
		c.whyClasses++
		e.class = c.whyClasses
	}
	if c.whyLast == nil {
		c.whyLast = map[whyKey]*whyEntry{}
	}
	c.whyLast[key] = e
	c.whys = append(c.whys, e)
	return e
}

// sharedEntry is the entry of sharedWhy whose reasons fail is, or nil.
func (c *Core) sharedEntry(fail *placement.Failure) *whyEntry {
	if fail == &c.hopelessWhy || c.whyGen != c.infoGen {
		return nil
	}
	for _, e := range c.whys {
		if fail == &e.fail {
			return e
		}
	}
	return nil
}

// emptyWhy empties a job's reasons: in place when they are its own, not
// when it shares them.
func (c *Core) emptyWhy(j *Job) []placement.Reason {
	if j.whyClass != 0 {
		j.whyClass = 0
		return nil
	}
	return j.Why[:0]
}

// idleOf is the cheap checks' view of the grid for a job: the most idle
// processors at one site and the idle processors in all, leaving out the
// sites the job excludes. For the jobs that exclude none (nearly all) it
// is worked out once per view.
func (c *Core) idleOf(j *Job, info *placement.Info) (maxIdle, total int) {
	if !j.excludes() && info == c.infoNow && c.idleGen == c.infoGen && c.idleGen != 0 {
		return c.idleMax, c.idleTotal
	}
	for _, s := range info.Sites {
		if !j.exclude[s.Name] {
			maxIdle = max(maxIdle, s.Idle)
			total += s.Idle
		}
	}
	if !j.excludes() && info == c.infoNow {
		c.idleGen, c.idleMax, c.idleTotal = c.infoGen, maxIdle, total
	}
	return maxIdle, total
}

// reasonsStand is hopeless's answer when the job's reasons are unchanged.
var reasonsStand = &placement.Failure{}

// reasonsCache lets hopeless answer reasonsStand; a test turns it off to
// check that doing so changes nothing.
var reasonsCache = true

// noteWhy keeps the reasons of a failed placement try on the job, and emits
// them when they are not the Same as the last try's: a job that waits for
// the same reasons scan after scan is reported once, with the counts of
// idle processors kept up to date on the job.
//
// Reasons shared by the jobs that ask alike (sharedWhy) become the job's
// Why as they are, not copied: they are never written to, and a job's own
// reasons are written to only when they are not shared.
func (c *Core) noteWhy(j *Job, fail *placement.Failure) {
	if fail == reasonsStand {
		return
	}
	j.whyGen = 0
	e := c.sharedEntry(fail)
	switch {
	case e != nil:
		j.whyGen = c.infoGen
	case fail == &c.hopelessWhy:
		j.whyGen = c.hopelessGen
	}
	var same bool
	if e != nil {
		same = c.sameAs(j, e)
	} else {
		same = placement.SameReasons(j.Why, fail.Reasons)
	}
	switch {
	case e != nil:
		j.Why, j.whyClass = fail.Reasons, e.class
	case same && j.whyClass == 0:
		copy(j.Why, fail.Reasons)
	default:
		j.Why = append(c.emptyWhy(j), fail.Reasons...)
	}
	if same {
		return
	}
	if c.skipWhy {
		c.skipEvent()
		return
	}
	c.emit(Event{Kind: EvPlacementFailed, Job: j.ID, Key: j.Opts.Key, Try: j.PlacementTries,
		Reasons: append([]placement.Reason(nil), fail.Reasons...)})
}

// requeue sends a job back to its placement queue after a missed start
// time, a restart or a pre-emption: every processor it held is released.
func (c *Core) requeue(j *Job, kind EventKind, reason string) {
	c.release(j, reason)
	c.resetComponents(j)
	j.Reason, j.whyGen = reason, 0 // its request, and what it excludes, may have changed
	c.emit(Event{Kind: kind, Job: j.ID, Key: j.Opts.Key, Reason: reason})
	if j.HasDeadline() {
		c.deadlineBack(j, reason)
		return
	}
	c.enqueue(j)
}

// resetComponents forgets where a job's components were placed.
func (c *Core) resetComponents(j *Job) {
	j.running = false
	if j.request.Flexible {
		c.initComponents(j)
		return
	}
	for i := range j.Components {
		j.Components[i] = Component{Size: j.Components[i].Size, Fixed: j.Components[i].Fixed}
	}
}

// release frees everything a job holds: soft reservations, claimed and
// executing components, timers; the controllers of real clusters cancel
// its submissions there (why: the reason they are given).
func (c *Core) release(j *Job, why string) {
	c.stop(j.claimTimer)
	j.claimTimer, j.settling = nil, false
	stopped := false
	defer func() {
		if stopped {
			c.exec.Stop(j)
		}
	}()
	for i := range j.Components {
		comp := &j.Components[i]
		c.stop(comp.endTimer)
		comp.endTimer = nil
		if comp.Site == "" || comp.Done {
			continue
		}
		cl := c.byName[comp.Site]
		c.account(cl)
		switch {
		case comp.Executing:
			cl.running -= comp.Size
			stopped = true
			c.endLRM(cl, comp.lrmID)
		case comp.Claimed, comp.Pending:
			cl.held -= comp.Size
			c.endLRM(cl, comp.lrmID)
		default:
			cl.soft -= comp.Size
		}
		if cl.ctl != nil && comp.Attempt != 0 {
			cl.ctl.Cancel(refOf(j, i), why)
			c.emit(Event{Kind: EvLRMCancel, Job: j.ID, Key: j.Opts.Key, Component: i, Cluster: cl.cfg.Name,
				Attempt: comp.Attempt, LRMID: comp.LRMID, Reason: why})
		}
		comp.Claimed, comp.Executing, comp.Pending = false, false, false
	}
}

// fail ends a job unsuccessfully.
func (c *Core) fail(j *Job, reason string) {
	c.release(j, reason)
	j.State, j.Reason, j.End = Failed, reason, c.now
	c.emit(Event{Kind: EvFailed, Job: j.ID, Key: j.Opts.Key, Reason: reason})
	c.ended(j)
}

// restart handles a job whose run was lost (soft error, cluster down): it is
// placed again, avoiding the site that failed it, unless it has been
// restarted too often.
func (c *Core) restart(j *Job, site, reason string) {
	j.Restarts++
	if site != "" && !isFixedOn(j, site) {
		j.exclude[site] = true
		j.excl = true
	}
	if m := *c.cfg.MaxRestarts; j.Restarts > m {
		c.fail(j, reason+"; restarted "+itoa(j.Restarts-1)+" times (max_restarts)")
		return
	}
	c.requeue(j, EvReplaced, reason)
}

func isFixedOn(j *Job, site string) bool {
	for _, comp := range j.Spec.Components {
		if comp.Site == site {
			return true
		}
	}
	return false
}

func itoa(n int) string { return strconv.Itoa(n) }
