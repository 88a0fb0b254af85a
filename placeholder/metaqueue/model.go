package metaqueue

import (
	"container/heap"
	"fmt"
	"time"

	"github.com/gmark/gmark/placeholder/site"
)

// Job states.
const (
	Waiting = "waiting" // in the metaqueue (eligible, or waiting on its prerequisites)
	Bound   = "bound"   // given to a placeholder, which runs it
	Done    = "done"    // reported done (Exit says how it ended)
	Failed  = "failed"  // on the failed list: the watchdog gave up on it
	Removed = "removed" // removed by the user before it ran
)

// Placeholder states. TrellisWeb shows queued and executing; idle is a
// placeholder that has started and holds no job (a pilot between jobs, or
// one whose pull is being answered); ended placeholders say why in End.
const (
	Queued    = "queued"
	Executing = "executing"
	Idle      = "idle"
	Ended     = "ended"
)

// Why a placeholder ended.
const (
	EndDone         = "done"          // classic: ran its job and handed over to its successor
	EndRefused      = "refused"       // the metaqueue had no job for it (exit 111)
	EndWallTime     = "walltime"      // pilot: stopped pulling at its wall time
	EndExecFailure  = "exec-failure"  // watchdog: executing for longer than EXEC-FAILURE
	EndQueueFailure = "queue-failure" // watchdog: queued for longer than QUEUE-FAILURE
	EndLost         = "lost"          // watchdog probe: gone from its site
	EndStopped      = "stopped"       // stopped by the user
)

// Attempt outcomes.
const (
	Running   = "running"   // bound, not reported yet
	Finished  = "done"      // reported done, and the job counts it
	Abandoned = "abandoned" // the watchdog gave up on it (it may have run)
	Duplicate = "duplicate" // reported done while another attempt held or had finished the job
)

// Policies choose the next job of a group.
const (
	FCFS        = "fcfs"         // insertion order (the thesis's)
	Priority    = "priority"     // highest priority first, then insertion order
	DAG         = "dag"          // insertion order among the jobs whose prerequisites are done
	DAGPriority = "dag-priority" // priority among the jobs whose prerequisites are done
)

// Policies lists the policy names.
var Policies = []string{FCFS, Priority, DAG, DAGPriority}

func policyKnown(p string) bool {
	for _, q := range Policies {
		if p == q {
			return true
		}
	}
	return false
}

func hasDeps(policy string) bool { return policy == DAG || policy == DAGPriority }

// Job is one command line of a group's metaqueue.
type Job struct {
	ID       int64   `json:"id"`
	Group    string  `json:"group"`
	Key      string  `json:"key,omitempty"`
	Command  string  `json:"command"`
	Priority int     `json:"priority,omitempty"`
	After    []int64 `json:"after,omitempty"`
	// Site pins the job to one site of the group (the static-partitioning
	// baseline: each site runs its own list); empty: any site.
	Site    string    `json:"site,omitempty"`
	State   string    `json:"state"`
	Retries int       `json:"retries,omitempty"`
	Added   time.Time `json:"added"`
	Attempt int64     `json:"attempt,omitempty"` // the attempt holding it, or that finished it
	Exit    *int      `json:"exit,omitempty"`
	Reason  string    `json:"reason,omitempty"`

	attempts   []int64 // every attempt, in order
	waitingOn  int     // prerequisites not done
	dependents []int64
	queued     bool // in the group's eligible heap
}

// Attempt is one binding of a job to a placeholder: the job's bind time,
// and the start and end the placeholder reports.
type Attempt struct {
	ID          int64     `json:"id"`
	Job         int64     `json:"job"`
	Placeholder int64     `json:"placeholder"`
	Group       string    `json:"group"`
	Site        string    `json:"site"`
	Host        string    `json:"host,omitempty"`
	LocalID     string    `json:"local_id"`
	Mode        string    `json:"mode"`
	Bound       time.Time `json:"bound"`
	Started     time.Time `json:"started,omitzero"`
	Ended       time.Time `json:"ended,omitzero"`
	Exit        *int      `json:"exit,omitempty"`
	Outcome     string    `json:"outcome"`
	Reason      string    `json:"reason,omitempty"`
}

// Placeholder is one local job (or process) standing for a unit of
// potential work: its submit and start times, and the job it runs.
type Placeholder struct {
	ID        int64     `json:"id"` // the metaqueue id
	Group     string    `json:"group"`
	Site      string    `json:"site"`
	Mode      string    `json:"mode"`
	Host      string    `json:"host,omitempty"`
	LocalID   string    `json:"local_id"` // the local scheduler's id (pid on a zinf site)
	State     string    `json:"state"`
	End       string    `json:"end,omitempty"`
	Submitted time.Time `json:"submitted,omitzero"`
	Started   time.Time `json:"started,omitzero"`
	Ended     time.Time `json:"ended,omitzero"`
	Attempt   int64     `json:"attempt,omitempty"` // the attempt it runs now
	Pred      int64     `json:"pred,omitempty"`    // the placeholder that submitted it (0: the server)
	Seq       int64     `json:"seq,omitempty"`     // its last pull
	Jobs      int       `json:"jobs"`              // jobs it reported done

	// extraPending: told to increase, it has not yet reported the extra
	// placeholder it submits, nor has an unknown placeholder of its site
	// called since; the extra counts toward the site's bound from the
	// decision on (see regulate). Not persisted: after a restart the extra
	// counts once it calls.
	extraPending bool
}

// Group is a placeholder group (the thesis's overlay metacomputer): its
// sites and its metaqueue.
type Group struct {
	Name    string      `json:"name"`
	Policy  string      `json:"policy"`
	Sites   []site.Spec `json:"sites"`
	Created time.Time   `json:"created"`
	Stopped bool        `json:"stopped,omitempty"` // stop-all: pulls are refused until the next start

	jobs   []int64 // every job, in insertion order
	keys   map[string]int64
	queues map[string]*jobHeap // eligible jobs: "" for any site, else pinned to that site
	counts map[string]int      // jobs per state
}

func (g *Group) hasSite(name string) bool { _, ok := g.Site(name); return ok }

// Site returns the group's site named name.
func (g *Group) Site(name string) (site.Spec, bool) {
	for _, s := range g.Sites {
		if s.Name == name {
			return s, true
		}
	}
	return site.Spec{}, false
}

// Action is one record of what a placeholder, the watchdog or the user did,
// for analysis after the run.
type Action struct {
	Seq         int64     `json:"seq"`
	Time        time.Time `json:"time"`
	Group       string    `json:"group"`
	Site        string    `json:"site,omitempty"`
	Placeholder int64     `json:"placeholder,omitempty"`
	LocalID     string    `json:"local_id,omitempty"`
	Host        string    `json:"host,omitempty"`
	Action      string    `json:"action"`
	Job         int64     `json:"job,omitempty"`
	Attempt     int64     `json:"attempt,omitempty"`
	Detail      string    `json:"detail,omitempty"`
}

// jobHeap holds a group's eligible jobs in the policy's order.
type jobHeap struct {
	jobs     []*Job
	priority bool
}

func (h *jobHeap) Len() int           { return len(h.jobs) }
func (h *jobHeap) Less(i, j int) bool { return h.less(h.jobs[i], h.jobs[j]) }
func (h *jobHeap) less(a, b *Job) bool {
	if h.priority && a.Priority != b.Priority {
		return a.Priority > b.Priority
	}
	return a.ID < b.ID
}
func (h *jobHeap) Swap(i, j int) { h.jobs[i], h.jobs[j] = h.jobs[j], h.jobs[i] }
func (h *jobHeap) Push(x any)    { h.jobs = append(h.jobs, x.(*Job)) }
func (h *jobHeap) Pop() any {
	n := len(h.jobs)
	j := h.jobs[n-1]
	h.jobs[n-1] = nil
	h.jobs = h.jobs[:n-1]
	return j
}

// push makes a waiting job with no prerequisites left eligible.
func (g *Group) push(j *Job) {
	if j.State != Waiting || j.waitingOn != 0 || j.queued {
		return
	}
	q := g.queues[j.Site]
	if q == nil {
		q = &jobHeap{priority: g.Policy == Priority || g.Policy == DAGPriority}
		g.queues[j.Site] = q
	}
	j.queued = true
	heap.Push(q, j)
}

// pop takes the next eligible job for a placeholder of site: the first, in
// the policy's order, of the jobs for any site and those pinned to it. Jobs
// that left the waiting state while queued (removed, or done by a late
// report) are dropped on the way.
func (g *Group) pop(site string) *Job {
	var best *jobHeap
	for _, k := range []string{"", site} {
		q := g.queues[k]
		for q != nil && q.Len() > 0 && !(q.jobs[0].State == Waiting && q.jobs[0].waitingOn == 0) {
			heap.Pop(q).(*Job).queued = false
		}
		if q != nil && q.Len() > 0 && (best == nil || q.less(q.jobs[0], best.jobs[0])) {
			best = q
		}
		if site == "" {
			break
		}
	}
	if best == nil {
		return nil
	}
	j := heap.Pop(best).(*Job)
	j.queued = false
	return j
}

// checkName checks a group name: it becomes part of paths and URLs.
func checkName(kind, name string) error {
	if name == "" || len(name) > 64 {
		return fmt.Errorf("%s name %q: 1 to 64 characters", kind, name)
	}
	for _, r := range name {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_' || r == '.') || name == "." || name == ".." {
			return fmt.Errorf("%s name %q: letters, digits, '-', '_' and '.' only", kind, name)
		}
	}
	return nil
}
