package experiment

import (
	"math"
	"sort"
	"time"

	"github.com/gmark/gmark/placeholder/metaqueue"
)

// Outage is a transient server outage: over [From, To) seconds every call
// of a placeholder to the metaqueue fails, and the placeholder tries again
// RetryWait seconds later, up to Retries times.
type Outage struct {
	From float64 `toml:"from" json:"from"`
	To   float64 `toml:"to" json:"to"`
}

// WatchdogSpec is the watchdog of the run (Fig. 4.8), in seconds; absent
// keys take the thesis's values (12 h, 24 h, 3 retries) and a run every
// 60 s. A zero exec_failure or queue_failure turns that check off.
type WatchdogSpec struct {
	ExecFailure  *float64 `toml:"exec_failure" json:"exec_failure"`
	QueueFailure *float64 `toml:"queue_failure" json:"queue_failure"`
	MaxRetries   *int     `toml:"max_retries" json:"max_retries"`
	Interval     float64  `toml:"interval" json:"interval"`
	Probe        bool     `toml:"probe" json:"probe"`
}

// The thesis's transport retries: 5 more tries, 10 minutes apart.
const (
	DefaultRetries   = 5
	DefaultRetryWait = 600
)

// Faults is what the injected faults did to a run, and what became of
// every job: run exactly once, or listed with the reason.
type Faults struct {
	Once       int      `json:"once"`     // done, by exactly one attempt that reported
	Requeued   int      `json:"requeued"` // times the watchdog put a job back
	Duplicated []Listed `json:"duplicated,omitempty"`
	Maybe      []Listed `json:"maybe_duplicated,omitempty"`
	Failed     []Listed `json:"failed,omitempty"`
	Unfinished []int    `json:"unfinished,omitempty"` // jobs neither done nor failed when the run stopped
	// Lost are the executions cut short: the placeholder vanished, its site
	// stopped, or the watchdog killed it (End is when).
	Lost     []JobRun `json:"lost_runs,omitempty"`
	Killed   int      `json:"killed"`   // placeholders the watchdog killed
	Replaced int      `json:"replaced"` // placeholders the watchdog submitted (replacements and revivals)
	Retried  int      `json:"retried"`  // calls that failed at least once and got through on a retry
	GaveUp   int      `json:"gave_up"`  // placeholders that stopped, their retries spent
}

// Listed is a job in one of the report's lists: its index in the
// workload, why, and how many of its executions completed.
type Listed struct {
	Job    int    `json:"job"`
	Reason string `json:"reason"`
	Runs   int    `json:"runs"`
}

// faulty tells whether the spec injects any fault.
func (sp *Spec) faulty() bool {
	if len(sp.Outages) > 0 {
		return true
	}
	for _, st := range sp.Sites {
		if st.StopAt != nil || len(st.Lost) > 0 || st.LossRate > 0 {
			return true
		}
	}
	return false
}

// watchdog is the run's watchdog.
func (sp *Spec) watchdog() metaqueue.Watchdog {
	w := metaqueue.DefaultWatchdog
	ws := sp.Watchdog
	if ws == nil {
		return w
	}
	sec := func(x float64) time.Duration { return time.Duration(math.Round(x * 1e9)) }
	if ws.ExecFailure != nil {
		w.ExecFailure = sec(*ws.ExecFailure)
	}
	if ws.QueueFailure != nil {
		w.QueueFailure = sec(*ws.QueueFailure)
	}
	if ws.MaxRetries != nil {
		w.MaxRetries = *ws.MaxRetries
	}
	if ws.Interval > 0 {
		w.Interval = sec(ws.Interval)
	}
	w.Probe = ws.Probe
	return w
}

// checkFaults validates the fault settings and fills their defaults.
func (sp *Spec) checkFaults() error {
	if sp.Retries == nil {
		r := DefaultRetries
		sp.Retries = &r
	}
	if *sp.Retries < 0 || *sp.Retries > 1000 {
		return failf("retries", -1, "retries %d must be from 0 to 1000", *sp.Retries)
	}
	if sp.RetryWait == nil {
		w := float64(DefaultRetryWait)
		sp.RetryWait = &w
	}
	if !(*sp.RetryWait >= 0) || *sp.RetryWait > 1e9 {
		return failf("retry_wait", -1, "retry_wait %v must be from 0 to 1e9 seconds", *sp.RetryWait)
	}
	sort.SliceStable(sp.Outages, func(a, b int) bool { return sp.Outages[a].From < sp.Outages[b].From })
	for k, o := range sp.Outages {
		if !(o.From >= 0) || !(o.To > o.From) || o.To > 1e12 {
			return failf("outages", -1, "outage [%v, %v): need 0 <= from < to <= 1e12", o.From, o.To)
		}
		if k > 0 && o.From < sp.Outages[k-1].To {
			return failf("outages", -1, "outages [%v, %v) and [%v, %v) overlap", sp.Outages[k-1].From, sp.Outages[k-1].To, o.From, o.To)
		}
	}
	if ws := sp.Watchdog; ws != nil {
		for _, f := range []struct {
			key string
			v   *float64
		}{{"exec_failure", ws.ExecFailure}, {"queue_failure", ws.QueueFailure}} {
			if f.v != nil && (!(*f.v >= 0) || *f.v > 1e9) {
				return failf(f.key, inWatchdog, "watchdog %s %v must be from 0 (off) to 1e9 seconds", f.key, *f.v)
			}
		}
		if ws.MaxRetries != nil && (*ws.MaxRetries < 0 || *ws.MaxRetries > 1000) {
			return failf("max_retries", inWatchdog, "watchdog max_retries %d must be from 0 to 1000", *ws.MaxRetries)
		}
		if ws.Interval == 0 {
			ws.Interval = DefaultWatchdogInterval
		}
		if !(ws.Interval >= 1e-3) || ws.Interval > 1e9 {
			return failf("interval", inWatchdog, "watchdog interval %v must be from 0.001 to 1e9 seconds", ws.Interval)
		}
	}
	return nil
}

// DefaultWatchdogInterval is how often the watchdog runs, in seconds (the
// thesis does not say).
const DefaultWatchdogInterval = 60

// checkSiteFaults validates a site's stop_at, lost and loss_rate.
func (s *Site) checkSiteFaults(i int) error {
	if s.StopAt != nil && (!(*s.StopAt >= 0) || *s.StopAt > 1e12) {
		return failf("stop_at", i, "site %s: stop_at %v must be from 0 to 1e12 seconds", s.Name, *s.StopAt)
	}
	if len(s.Lost) > MaxJobs {
		return failf("lost", i, "site %s: more than %d lost times", s.Name, MaxJobs)
	}
	for _, t := range s.Lost {
		if !(t >= 0) || t > 1e12 {
			return failf("lost", i, "site %s: lost time %v must be from 0 to 1e12 seconds", s.Name, t)
		}
	}
	sort.Float64s(s.Lost)
	if !(s.LossRate >= 0) || s.LossRate > 1e3 {
		return failf("loss_rate", i, "site %s: loss_rate %v must be from 0 to 1000 losses per second of a running job", s.Name, s.LossRate)
	}
	return nil
}

// reach is when a call first made at t gets through (ok false: its
// retries ran out in an outage, at the time given). retried tells whether
// it needed a retry.
func (sp *Spec) reach(t float64) (when float64, ok, retried bool) {
	w := *sp.RetryWait
	for k := 0; k <= *sp.Retries; k++ {
		try := t + float64(k)*w
		if !sp.down(try) {
			return try, true, k > 0
		}
	}
	return t + float64(*sp.Retries)*w, false, true
}

// down tells whether the server is out at t.
func (sp *Spec) down(t float64) bool {
	i := sort.Search(len(sp.Outages), func(i int) bool { return sp.Outages[i].To > t })
	return i < len(sp.Outages) && sp.Outages[i].From <= t
}

// cut is when a job started at t, due to end at f, is cut short at site i
// (ok false: it is not): at the site's stop, at the first pending lost time
// before f (taken then: a lost time is one placeholder), or at a draw of
// the site's loss rate.
func (s *sim) cut(i int, t, f float64) (float64, bool) {
	st := &s.sp.Sites[i]
	c := math.Inf(1)
	if st.StopAt != nil {
		c = *st.StopAt
	}
	if st.LossRate > 0 {
		c = min(c, t+s.rng[i].ExpFloat64()/st.LossRate)
	}
	if q := s.pendingLoss[i]; len(q) > 0 && q[0] < f && max(q[0], t) <= c {
		c = max(q[0], t)
		s.pendingLoss[i] = q[1:]
	}
	if c < f {
		return max(c, t), true
	}
	return 0, false
}

// stopped tells whether site i has stopped executing by t.
func (s *sim) stopped(i int, t float64) bool {
	st := s.sp.Sites[i].StopAt
	return st != nil && t >= *st
}
