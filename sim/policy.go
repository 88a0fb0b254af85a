package sim

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// The policies of DGSim's job scheduling model and of DMM (Sec. 8.3.3),
// each a small interface with implementations named in the Config.

// Selection is the job selection policy: which part of a queue is the
// eligible set a scheduler looks at (DGSim, Sec. 6.3.2). Queues are looked
// at from their head.
type Selection interface {
	Name() string
	Eligible(queued int) int // how many jobs from the head are eligible
}

type selectAll struct{}

func (selectAll) Name() string            { return "all" }
func (selectAll) Eligible(queued int) int { return queued }

type selectWindow struct{ k int }

func (w selectWindow) Name() string            { return "window:" + strconv.Itoa(w.k) }
func (w selectWindow) Eligible(queued int) int { return min(queued, w.k) }

// NewSelection: "all" (the whole queue), or "window:N" (the first N jobs).
func NewSelection(name string) (Selection, error) {
	if name == "" || name == "all" {
		return selectAll{}, nil
	}
	if n, ok := strings.CutPrefix(name, "window:"); ok {
		if k, err := strconv.Atoi(n); err == nil && k >= 1 && k <= 1<<20 {
			return selectWindow{k}, nil
		}
	}
	return nil, fmt.Errorf("job selection %q: use \"all\" or \"window:N\" (N from 1 to %d)", name, 1<<20)
}

// Dispatch is the local dispatching policy of a matchmaking site manager:
// the queue is visited in FCFS order, and either the first job that does
// not fit stops the cycle (FCFS without backfilling, the thesis's cluster
// model), or jobs that cannot be served are bypassed by jobs that can (as
// fcondor does, Table 8.1).
type Dispatch interface {
	Name() string
	Blocking() bool
}

type dispatchFCFS struct{}

func (dispatchFCFS) Name() string   { return "fcfs" }
func (dispatchFCFS) Blocking() bool { return true }

type dispatchBypass struct{}

func (dispatchBypass) Name() string   { return "fcfs-bypass" }
func (dispatchBypass) Blocking() bool { return false }

// NewDispatch: "fcfs" or "fcfs-bypass" (also "first-fit").
func NewDispatch(name string) (Dispatch, error) {
	switch name {
	case "fcfs":
		return dispatchFCFS{}, nil
	case "fcfs-bypass", "first-fit":
		return dispatchBypass{}, nil
	}
	return nil, fmt.Errorf("local dispatch %q: use \"fcfs\" or \"fcfs-bypass\"", name)
}

// DelegationOrder is DMM's delegation policy: the order in which a site
// over its threshold delegates its waiting requests.
type DelegationOrder interface {
	Name() string
	Compare(a, b *Job) int
}

type delegationOrder struct {
	name string
	cmp  func(a, b *Job) int
}

func (d delegationOrder) Name() string          { return d.name }
func (d delegationOrder) Compare(a, b *Job) int { return d.cmp(a, b) }

var delegationOrders = []delegationOrder{
	{"fcfs", func(a, b *Job) int { return cmp.Compare(a.Seq, b.Seq) }},
	{"lifo", func(a, b *Job) int { return cmp.Compare(b.Seq, a.Seq) }},
	{"largest", func(a, b *Job) int { return cmp.Or(cmp.Compare(b.Procs, a.Procs), cmp.Compare(a.Seq, b.Seq)) }},
	{"smallest", func(a, b *Job) int { return cmp.Or(cmp.Compare(a.Procs, b.Procs), cmp.Compare(a.Seq, b.Seq)) }},
}

// NewDelegationOrder: "fcfs" (oldest first, the thesis's setting), "lifo",
// "largest" or "smallest" first.
func NewDelegationOrder(name string) (DelegationOrder, error) {
	for _, d := range delegationOrders {
		if d.name == name {
			return d, nil
		}
	}
	return nil, fmt.Errorf("delegation order %q: use fcfs, lifo, largest or smallest", name)
}

// Target is a neighbour a request may be delegated to, with what the
// information service says of it.
type Target struct {
	Node  int // topology node
	Group int // 0 a child, 1 a sibling, 2 the parent
	Pos   int // position in the neighbour list: children, siblings, parent
	Free  int // spare processors of the best cluster at or below it: idle as seen, less the demand waiting there; UnknownFree when not known
}

// UnknownFree is the Free of a target whose room is not known: below any
// request, so the orders put it after the targets known to have room.
const UnknownFree = -1 << 40

// TargetOrder is DMM's target site ordering policy.
type TargetOrder interface {
	Name() string
	Order(t []Target, procs int)
}

type targetMostFree struct{}

func (targetMostFree) Name() string { return "most-free" }
func (targetMostFree) Order(t []Target, procs int) {
	slices.SortStableFunc(t, func(a, b Target) int { return cmp.Or(cmp.Compare(b.Free, a.Free), cmp.Compare(a.Pos, b.Pos)) })
}

type targetKeepLocal struct{}

func (targetKeepLocal) Name() string { return "keep-local" }
func (targetKeepLocal) Order(t []Target, procs int) {
	slices.SortStableFunc(t, func(a, b Target) int {
		af, bf := a.Free >= procs, b.Free >= procs
		switch {
		case af && !bf:
			return -1
		case bf && !af:
			return 1
		}
		return cmp.Or(cmp.Compare(a.Group, b.Group), cmp.Compare(b.Free, a.Free), cmp.Compare(a.Pos, b.Pos))
	})
}

type targetBestFit struct{}

func (targetBestFit) Name() string { return "best-fit" }
func (targetBestFit) Order(t []Target, procs int) {
	slices.SortStableFunc(t, func(a, b Target) int {
		af, bf := a.Free >= procs, b.Free >= procs
		switch {
		case af && !bf:
			return -1
		case bf && !af:
			return 1
		case af: // both fit: the tightest first
			return cmp.Or(cmp.Compare(a.Free, b.Free), cmp.Compare(a.Pos, b.Pos))
		}
		return cmp.Or(cmp.Compare(b.Free, a.Free), cmp.Compare(a.Pos, b.Pos))
	})
}

type targetFixed struct{}

func (targetFixed) Name() string { return "fixed" }
func (targetFixed) Order(t []Target, procs int) {
	slices.SortStableFunc(t, func(a, b Target) int { return cmp.Compare(a.Pos, b.Pos) })
}

// NewTargetOrder: "keep-local" (the default: neighbours where the request
// fits now first; within each part children, then siblings, then the
// parent, the most idle first: load stays low in the tree and in its
// grid), "most-free" (the most idle first), "best-fit" (the tightest that
// fits first) or "fixed" (children, siblings, parent, in topology order).
func NewTargetOrder(name string) (TargetOrder, error) {
	switch name {
	case "keep-local":
		return targetKeepLocal{}, nil
	case "most-free":
		return targetMostFree{}, nil
	case "best-fit":
		return targetBestFit{}, nil
	case "fixed":
		return targetFixed{}, nil
	}
	return nil, fmt.Errorf("target order %q: use keep-local, most-free, best-fit or fixed", name)
}
