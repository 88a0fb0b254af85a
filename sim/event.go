package sim

import "time"

// evKind is what an event does. The engine's own kinds come first; an
// architecture's events are evArch, told apart by their code.
type evKind uint8

const (
	evEnd     evKind = iota // a job's run ends (j; n = the job's generation)
	evDown                  // a cluster fails (a)
	evUp                    // a cluster comes back (a)
	evInfo                  // a delayed view of one cluster becomes visible (a, n = idle, v = version)
	evRefresh               // the monitoring service takes a snapshot
	evSnap                  // a snapshot becomes visible (n = its number)
	evArch                  // the architecture's own (code, a, j, n)
	evDyn                   // a generated failure or join (dynamics.go: code = its kind, a, n = processors, v = duration)
	evRepair                // failed processors come back (a, n = how many)
	evRelease               // a workflow's task whose parents have ended arrives (j; workflow.go)
)

// event is one entry of the heap. The total order is (at, seq): two events
// at the same time run in the order they were scheduled, so a run depends
// on nothing but its inputs and seed.
type event struct {
	at   time.Duration
	seq  uint64
	j    *Job
	n    int64
	v    uint64
	a    int32
	kind evKind
	code uint8
}

func (e *event) before(o *event) bool {
	return e.at < o.at || (e.at == o.at && e.seq < o.seq)
}

// eventHeap is a binary min-heap of events by value: no interface boxing
// and no allocation per event once the slice has grown.
type eventHeap []event

func (h *eventHeap) push(e event) {
	*h = append(*h, e)
	a := *h
	i := len(a) - 1
	for i > 0 {
		p := (i - 1) / 2
		if !a[i].before(&a[p]) {
			break
		}
		a[i], a[p] = a[p], a[i]
		i = p
	}
}

func (h *eventHeap) pop() event {
	a := *h
	top := a[0]
	last := len(a) - 1
	a[0] = a[last]
	a[last] = event{}
	a = a[:last]
	*h = a
	i := 0
	for {
		l := 2*i + 1
		if l >= len(a) {
			break
		}
		m := l
		if r := l + 1; r < len(a) && a[r].before(&a[l]) {
			m = r
		}
		if !a[m].before(&a[i]) {
			break
		}
		a[i], a[m] = a[m], a[i]
		i = m
	}
	return top
}
