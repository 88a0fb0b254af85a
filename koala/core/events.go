package core

import (
	"container/heap"
	"time"

	"github.com/gmark/gmark/koala/placement"
)

// EventKind names a state change of a job or a cluster.
type EventKind string

// The events the core emits. Every state change of a job is one event, so
// the event stream alone gives each job's timeline.
const (
	EvSubmitted      EventKind = "submitted"       // accepted; Detail: policy, priority, runner
	EvPlacementTry   EventKind = "placement_try"   // a placement try failed; Try counts them
	EvPlaced         EventKind = "placed"          // Sites, FTT, JST, JCT, Policy
	EvClaimTry       EventKind = "claim_try"       // Try, Claimed components, OK
	EvClaimed        EventKind = "claimed"         // every component holds its processors
	EvStarted        EventKind = "started"         // the job began executing (first component)
	EvComponentStart EventKind = "component_start" // Component, Site
	EvComponentEnd   EventKind = "component_end"   // Component, Site, OK
	EvFinished       EventKind = "finished"        // every component succeeded
	EvFailed         EventKind = "failed"          // Reason
	EvCancelled      EventKind = "cancelled"
	EvReplaced       EventKind = "replaced"     // back to the placement queue; Reason
	EvPreempted      EventKind = "preempted"    // by a higher-priority job (Detail: by)
	EvPromoted       EventKind = "promoted"     // aged into a higher queue
	EvSoftError      EventKind = "soft_error"   // Cluster, Component
	EvClusterDown    EventKind = "cluster_down" // Cluster, Reason
	EvClusterUp      EventKind = "cluster_up"   // Cluster
	EvAlert          EventKind = "alert"        // for the administrator: Cluster, Reason
	EvUtilization    EventKind = "utilization"  // Cluster; Util
	EvQueueLength    EventKind = "queue_length" // Count: jobs in the placement queues

	// A component on a cluster with a real local resource manager (lrm =
	// "slurm"): the core asked the controller to start it (lrm_submit,
	// Attempt names the submission), the controller took it (lrm_submitted,
	// LRMID its job id) or refused it (lrm_failed, Reason), started it
	// (lrm_started: the claim; LRMTime is the controller's start time), or
	// the core cancelled it (lrm_cancel, Reason). The program's start and
	// end are component_start and component_end, with LRMID (and, for the
	// end, the controller's LRMTime).
	EvLRMSubmit    EventKind = "lrm_submit"
	EvLRMSubmitted EventKind = "lrm_submitted"
	EvLRMFailed    EventKind = "lrm_failed"
	EvLRMStarted   EventKind = "lrm_started"
	EvLRMCancel    EventKind = "lrm_cancel"

	// A local job was killed to make room for a global job at its start
	// deadline (global priority): Cluster, Count its processors, LRMID
	// names it ("local-N"; on a Slurm cluster, its Slurm job id), ProcessorS the processor time it had used
	// (lost); Job is the global job.
	EvLocalKilled EventKind = "local_killed"

	// A placement try failed, and its Reasons (per site) are not the Same
	// as those of the job's last failed try, or it is the first since the
	// job was queued: a job waiting for one reason is reported once.
	EvPlacementFailed EventKind = "placement_failed"
)

// eventKinds lists every kind (for sinks that take only some: KindFilter).
var eventKinds = []EventKind{EvSubmitted, EvPlacementTry, EvPlaced, EvClaimTry, EvClaimed, EvStarted, EvComponentStart,
	EvComponentEnd, EvFinished, EvFailed, EvCancelled, EvReplaced, EvPreempted, EvPromoted, EvSoftError, EvClusterDown,
	EvClusterUp, EvAlert, EvUtilization, EvQueueLength, EvLRMSubmit, EvLRMSubmitted, EvLRMFailed, EvLRMStarted,
	EvLRMCancel, EvLocalKilled, EvPlacementFailed}

// Event is one entry of the event stream.
type Event struct {
	Seq       uint64        `json:"seq"`
	Time      time.Time     `json:"time"`
	Kind      EventKind     `json:"kind"`
	Job       string        `json:"job,omitempty"`
	Key       string        `json:"key,omitempty"` // the job's idempotency key
	Cluster   string        `json:"cluster,omitempty"`
	Component int           `json:"component,omitempty"`
	Sites     []string      `json:"sites,omitempty"`
	Policy    string        `json:"policy,omitempty"`
	Try       int           `json:"try,omitempty"`
	Count     int           `json:"count,omitempty"`
	OK        bool          `json:"ok,omitempty"`
	FTT       time.Duration `json:"ftt_ns,omitempty"`
	JST       time.Time     `json:"jst,omitzero"`
	JCT       time.Time     `json:"jct,omitzero"`
	Reason    string        `json:"reason,omitempty"`
	Util      *Utilization  `json:"util,omitempty"`
	// RunTime and RunTimeSource: an emulated job's run time at speed 1 and
	// where it came from (started).
	RunTime       time.Duration `json:"runtime_ns,omitempty"`
	RunTimeSource RunTimeSource `json:"runtime_source,omitempty"`
	// Reasons say why a placement failed, per site (placement_failed).
	Reasons []placement.Reason `json:"reasons,omitempty"`
	// Components on real clusters: the submission (Attempt), the
	// controller's job id (LRMID) and its time of the start or end
	// (LRMTime, the controller's clock, to the second for Slurm).
	// ProcessorS: the processor-seconds a killed local job had used
	// (local_killed).
	ProcessorS float64   `json:"processor_s,omitempty"`
	Attempt    uint64    `json:"attempt,omitempty"`
	LRMID      string    `json:"lrm_id,omitempty"`
	LRMTime    time.Time `json:"lrm_time,omitzero"`
}

// Utilization is the use of a cluster's processors over a sample period, as
// fractions of its capacity: the thesis's split into background load, the
// grid jobs' work, processors claimed but idle until the start time (wasted,
// PWT) and processors placed on but not yet claimed (gained, PGT: free for
// local jobs).
type Utilization struct {
	Background float64 `json:"background"`
	Grid       float64 `json:"grid"`
	Wasted     float64 `json:"wasted"`
	Gained     float64 `json:"gained"`
	Up         bool    `json:"up"`
}

// Sink receives every event, in order, as it happens. It runs inside the
// core's step and must be quick: the persistence layer and the event stream
// buffer what they get. The event is the core's, valid for the call only
// (it is reused for the next one): a sink copies what it keeps.
type Sink interface {
	Event(e *Event)
}

// A KindFilter is a Sink that takes only some kinds of events (a
// simulation's driver follows starts and ends, not the placement tries):
// the core does not build the events of the other kinds, which in a
// saturated grid are nearly all of them (a failed placement try per queued
// job per scan). It still numbers them, so the events a filtering sink gets
// carry the sequence numbers they would have in the full stream. Takes is
// asked once, when the core is made.
type KindFilter interface {
	Sink
	Takes(kind EventKind) bool
}

// Takes tells whether a sink takes events of a kind (every sink that is
// not a KindFilter takes them all).
func Takes(s Sink, kind EventKind) bool {
	f, ok := s.(KindFilter)
	return !ok || f.Takes(kind)
}

// timer is an entry of the core's event queue.
type timer struct {
	at    time.Time
	seq   uint64
	fn    func()
	index int
}

type timerHeap []*timer

func (h timerHeap) Len() int { return len(h) }
func (h timerHeap) Less(a, b int) bool {
	if !h[a].at.Equal(h[b].at) {
		return h[a].at.Before(h[b].at)
	}
	return h[a].seq < h[b].seq
}
func (h timerHeap) Swap(a, b int) {
	h[a], h[b] = h[b], h[a]
	h[a].index, h[b].index = a, b
}
func (h *timerHeap) Push(x any) {
	t := x.(*timer)
	t.index = len(*h)
	*h = append(*h, t)
}
func (h *timerHeap) Pop() any {
	old := *h
	t := old[len(old)-1]
	old[len(old)-1] = nil
	*h = old[:len(old)-1]
	t.index = -1
	return t
}

// at schedules fn at time t (never before now).
func (c *Core) at(t time.Time, fn func()) *timer {
	if t.Before(c.now) {
		t = c.now
	}
	c.timerSeq++
	tm := &timer{at: t, seq: c.timerSeq, fn: fn}
	heap.Push(&c.timers, tm)
	return tm
}

// stop cancels a timer; stopping nil or a fired timer is a no-op.
func (c *Core) stop(t *timer) {
	if t != nil && t.index >= 0 {
		heap.Remove(&c.timers, t.index)
	}
}
