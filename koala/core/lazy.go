package core

import "github.com/gmark/gmark/koala/placement"

// Tries in bulk. In a saturated grid a scan reaches, soon after its head,
// a view with no idle processor left: every job after that point fails
// its try, with the reasons the jobs that ask alike share (sharedWhy).
// Those tries change nothing but each job's try count, its reasons and
// the count of events the core numbers; yet walking tens of thousands of
// queued jobs (a cache miss each) was most of a simulated run's time.
//
// So in a simulation's core (Forget; a sink that takes neither placement
// tries nor failed placements; no try limit; no aging in the queue) a job
// tried the fast way past that point is left lazy: the queue's later
// scans that reach such a view again make its tries in bulk, counting
// them by the key its reasons are shared under, without touching it. A
// lazy job is brought up to date (wake) before anything else reads or
// changes it: a scan that reaches it before such a view, its removal from
// the queue (dequeue, Cancel), and Job, JobByKey and Jobs (which wake
// every lazy job: a driver that asks for jobs as it runs, which the
// simulators do not, gets the plain tries' cost back). Its state is
// Queued throughout: only the fields a failed try changes are lazy
// (PlacementTries, Why and what goes with them). A sink must not ask for
// jobs from inside a scan (no event a simulation's sink takes is emitted
// there).

// qent is a placement queue's entry: the job, and whether it is lazy.
type qent struct {
	j    *Job
	lazy bool
}

// lazyQueue is what one queue's lazy jobs have in common.
type lazyQueue struct {
	// bulks counts the scans that tried the queue's lazy jobs in bulk; a
	// lazy job owes the tries of bulks - Job.lazyMark.
	bulks uint64
	// gen is the view (infoGen) of the last of them, with which the lazy
	// jobs' reasons were found.
	gen  uint64
	keys []*lazyKey
	n    int // lazy jobs
}

// lazyKey is the lazy jobs of a queue that ask alike.
type lazyKey struct {
	key   whyKey
	n     int       // lazy jobs that ask so (added this scan among them)
	added int       // made lazy by this scan (tried one by one)
	e     *whyEntry // their reasons, since the last bulk
	req   placement.Request
}

// bulkable tells whether a scan of queue p may leave jobs lazy.
func (c *Core) bulkable(p Priority, fast bool) bool {
	return fast && lazyTries && c.forget && (c.cfg.AgingPeriod == 0 || p == SuperHigh || p == SuperLow)
}

// lazyTries lets scans try jobs in bulk; a test turns it off to check
// that doing so changes nothing.
var lazyTries = true

// noneIdle tells whether the current view leaves no idle processor to a
// job that excludes no site: then every such job fails its try (each
// asks for at least one processor).
func (c *Core) noneIdle(info *placement.Info) bool {
	if info != c.infoNow {
		return false
	}
	if c.idleGen != c.infoGen || c.idleGen == 0 {
		maxIdle, total := 0, 0
		for _, s := range info.Sites {
			maxIdle = max(maxIdle, s.Idle)
			total += s.Idle
		}
		c.idleGen, c.idleMax, c.idleTotal = c.infoGen, maxIdle, total
	}
	return c.idleTotal == 0
}

// keyOf is the key a job's reasons are shared under when no processor
// is idle (tryHopeless's).
func keyOf(j *Job) whyKey {
	if !j.flexible && j.reqLargest > 0 {
		return whyKey{need: int(j.reqLargest), component: int(j.reqAt)}
	}
	return whyKey{need: j.reqNeed, component: placement.Total}
}

// makeLazy leaves a job this scan tried the fast way, in bulk mode, lazy
// (its try is counted; it owes none).
func (c *Core) makeLazy(j *Job, lz *lazyQueue) {
	k := keyOf(j)
	var lk *lazyKey
	for _, x := range lz.keys {
		if x.key == k {
			lk = x
			break
		}
	}
	if lk == nil {
		lk = &lazyKey{key: k, req: requestOf(k)}
		lz.keys = append(lz.keys, lk)
	}
	lk.n++
	lk.added++
	lz.n++
	c.lazyN++
	j.lazyMark, j.lazyKey = lz.bulks+1, lk // the bulk at the end of this scan is its own try's
}

// requestOf is a request that asks what k says, for Explain (which reads
// only that of it, and the sites it excludes: none).
func requestOf(k whyKey) placement.Request {
	if k.component == placement.Total {
		return placement.Request{Components: []placement.Component{{Size: k.need}}}
	}
	comps := make([]placement.Component, k.component+1)
	comps[k.component] = placement.Component{Index: k.component, Size: k.need}
	return placement.Request{Components: comps}
}

// bulkTry makes the try of every lazy job of the queue that this scan
// skipped, with the current view (no processor idle), and counts the
// events they would have numbered: a placement_try each, and a
// placement_failed each whose reasons are not the Same as its last.
func (c *Core) bulkTry(lz *lazyQueue, info *placement.Info) {
	stand := lz.gen == c.infoGen
	for _, lk := range lz.keys {
		old := uint64(lk.n - lk.added)
		lk.added = 0
		if lk.n == 0 {
			continue
		}
		c.eventSeq += old // the placement_try of each
		c.bulkTries += old
		// With the same view as the last bulk their reasons stand
		// (hopeless's reasonsStand), and the entry is the same.
		e := c.sharedWhyOf(&lk.req, info, lk.key)
		if !stand && old > 0 && !c.sameClass(lk.e.class, lk.e.fail.Reasons, e) {
			c.eventSeq += old // the placement_failed of each
		}
		lk.e = e
	}
	lz.gen = c.infoGen
	lz.bulks++
}

// wake brings a lazy job up to date, and makes it a queued job like the
// others.
func (c *Core) wake(j *Job, lz *lazyQueue) {
	lk := j.lazyKey
	if owed := lz.bulks - j.lazyMark; owed > 0 {
		j.PlacementTries += int(owed)
		j.Why, j.whyClass, j.whyGen = lk.e.fail.Reasons, lk.e.class, lz.gen
	}
	lk.n--
	lz.n--
	c.lazyN--
	j.lazyKey = nil
}

// wakeAll brings every lazy job up to date, before the jobs are read.
func (c *Core) wakeAll() {
	if c.lazyN == 0 {
		return
	}
	for p := range c.queues {
		q := c.queues[p]
		for i := range q {
			if q[i].lazy {
				c.wake(q[i].j, &c.lazy[p])
				q[i].lazy = false
			}
		}
	}
}
