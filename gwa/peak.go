package gwa

// peakLoad finds the most processors in use at one instant: a sweep over
// the jobs' starts and ends, streamed. Records come in submit order and a
// job starts at or after its submission, so when a record submitted at s
// arrives, no later record can start or end before s: every event before s
// is final and is swept. What stays is one start per queued job and one
// end per running job, never the whole trace.
//
// The peak is a lower bound on the system size (the system had at least
// that many processors busy at once), so a utilization computed on it never
// exceeds 100%. Two cases keep it a lower bound rather than the exact peak:
// an out-of-order record's interval is cut at the time already swept, and
// past maxInFlight pending events the earliest is swept early, so a later
// record's interval may be cut the same way. Cutting an interval only lowers
// the load at any instant.
type peakLoad struct {
	ev     eventHeap
	load   float64 // processors in use at time at
	at     float64 // everything before at has been swept
	swept  bool    // at is set
	peak   float64
	peakAt float64 // when the peak was first reached
	limit  int     // most pending events; 0: maxInFlight
}

// maxInFlight bounds the pending events (16 bytes each): 2 MiB.
const maxInFlight = 1 << 17

type loadEvent struct {
	t, delta float64 // delta < 0: an end
}

// eventHeap is a binary min-heap of events, typed (container/heap boxes
// every event in an interface, an allocation per push).
type eventHeap []loadEvent

func (h eventHeap) Len() int { return len(h) }

// before orders events by time; intervals are half-open, so at one instant
// ends come before starts.
func (h eventHeap) before(i, j int) bool {
	return h[i].t < h[j].t || (h[i].t == h[j].t && h[i].delta < h[j].delta)
}

func (h *eventHeap) push(e loadEvent) {
	*h = append(*h, e)
	s := *h
	for i := len(s) - 1; i > 0; {
		p := (i - 1) / 2
		if !s.before(i, p) {
			break
		}
		s[i], s[p] = s[p], s[i]
		i = p
	}
}

func (h *eventHeap) pop() loadEvent {
	s := *h
	top := s[0]
	n := len(s) - 1
	s[0] = s[n]
	s = s[:n]
	for i := 0; ; {
		m, l, r := i, 2*i+1, 2*i+2
		if l < n && s.before(l, m) {
			m = l
		}
		if r < n && s.before(r, m) {
			m = r
		}
		if m == i {
			break
		}
		s[i], s[m] = s[m], s[i]
		i = m
	}
	*h = s
	return top
}

// add counts a job of p processors busy over [s, e), submitted at submit.
func (pl *peakLoad) add(submit, s, e, p float64) {
	pl.sweep(submit)
	if pl.swept && s < pl.at {
		s = pl.at
	}
	if e <= s || p <= 0 {
		return
	}
	if s == submit {
		// A job that starts when it is submitted (most do) starts now:
		// sweep what comes before a start at s (the ends at s), and count
		// it without a trip through the heap. No later record can end at
		// s: it starts at or after s and runs for some time.
		for pl.ev.Len() > 0 && (pl.ev[0].t < s || pl.ev[0].t == s && pl.ev[0].delta < 0) {
			pl.pop()
		}
		pl.load += p
		pl.at, pl.swept = s, true
		pl.note()
	} else {
		pl.ev.push(loadEvent{s, p})
	}
	pl.ev.push(loadEvent{e, -p})
	limit := pl.limit
	if limit == 0 {
		limit = maxInFlight
	}
	for pl.ev.Len() > limit {
		pl.pop()
	}
}

// sweep applies every event before t.
func (pl *peakLoad) sweep(t float64) {
	for pl.ev.Len() > 0 && pl.ev[0].t < t {
		pl.pop()
	}
}

func (pl *peakLoad) pop() {
	e := pl.ev.pop()
	pl.load += e.delta
	pl.at, pl.swept = e.t, true
	pl.note()
}

// note keeps the load at pl.at when it is a new peak.
func (pl *peakLoad) note() {
	if pl.load > pl.peak {
		pl.peak, pl.peakAt = pl.load, pl.at
	}
}

// result is the peak over every job added so far, and when it was
// reached; the sweep itself is left as it is, so more jobs may come.
func (pl *peakLoad) result() (peak, at float64) {
	rest := peakLoad{ev: append(eventHeap(nil), pl.ev...), load: pl.load, peak: pl.peak, peakAt: pl.peakAt}
	for rest.ev.Len() > 0 {
		rest.pop()
	}
	return rest.peak, rest.peakAt
}
