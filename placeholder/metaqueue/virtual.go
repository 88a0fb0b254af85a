package metaqueue

import (
	"sort"
	"time"
)

// Virtual is the metaqueue's state machine alone: no store, no server, no
// clock. The caller gives every call its time, so it runs in simulated time
// (package placeholder/experiment), with the same groups, policies, pinned
// jobs (the static split), atomic pop and placeholder life cycle as the
// server. Nothing is written anywhere; the recorded actions are dropped.
type Virtual struct {
	s    *state
	acts map[string]int
}

// NewVirtual makes an empty metaqueue.
func NewVirtual() *Virtual { return &Virtual{s: newState()} }

// PutGroup creates a group, or replaces the sites of one.
func (v *Virtual) PutGroup(now time.Time, gs GroupSpec) error {
	defer v.flush()
	_, err := v.s.putGroup(now, gs)
	return err
}

// AddJobs adds jobs to a group, in order; all or none.
func (v *Virtual) AddJobs(now time.Time, group string, jobs []NewJob) ([]int64, error) {
	defer v.flush()
	return v.s.addJobs(now, group, jobs)
}

// Pull is nextcmd (no DAG wait: the Wait of a reply is 10 s).
func (v *Virtual) Pull(now time.Time, group string, req PullRequest) (PullReply, error) {
	defer v.flush()
	return v.s.pull(now, group, req, 10*time.Second)
}

// Done is donejob.
func (v *Virtual) Done(now time.Time, group string, req DoneRequest) error {
	defer v.flush()
	return v.s.done(now, group, req)
}

// Dequeue is a placeholder leaving.
func (v *Virtual) Dequeue(now time.Time, group string, req DequeueRequest) error {
	defer v.flush()
	return v.s.dequeue(now, group, req)
}

// Report is the group's report: jobs per state, run once, duplicated.
func (v *Virtual) Report(group string) (*Report, error) {
	g, err := v.s.group(group)
	if err != nil {
		return nil, err
	}
	return v.s.report(g), nil
}

// Task is work the watchdog asks of a site: kill a placeholder (Kill, a
// local id; empty: none), then submit a fresh one (Submit).
type Task struct {
	Site   string
	Kill   string
	Submit bool
	Reason string
}

// Watch is one run of the watchdog (Fig. 4.8) at now: the stale
// placeholders' jobs go back (or to the failed list), and the tasks say
// which to kill and where to submit. The caller registers what it submits
// (Register). Tasks come sorted by site and local id.
func (v *Virtual) Watch(now time.Time, w Watchdog) []Task {
	defer v.flush()
	return exportTasks(v.s.watchdog(now, w))
}

// Probe is the watchdog's probe (an extension): every active placeholder
// its site no longer has (alive false) is taken for lost.
func (v *Virtual) Probe(now time.Time, w Watchdog, alive func(site, local string) bool) []Task {
	defer v.flush()
	var tasks []task
	snap := v.s.snapshot()
	keys := make([][2]string, 0, len(snap))
	for k := range snap {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		return keys[i][0] < keys[j][0] || keys[i][0] == keys[j][0] && keys[i][1] < keys[j][1]
	})
	for _, k := range keys {
		entries := snap[k]
		sort.Slice(entries, func(i, j int) bool { return entries[i].id < entries[j].id })
		live := map[string]bool{}
		for _, e := range entries {
			if alive(k[1], e.local) {
				live[e.local] = true
			}
		}
		tasks = append(tasks, v.s.lost(now, entries, live, w)...)
	}
	return exportTasks(tasks)
}

func exportTasks(ts []task) []Task {
	out := make([]Task, len(ts))
	for i, t := range ts {
		out[i] = Task{Site: t.site, Kill: t.kill, Submit: t.submit, Reason: t.reason}
	}
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].Site != out[j].Site {
			return out[i].Site < out[j].Site
		}
		if len(out[i].Kill) != len(out[j].Kill) {
			return len(out[i].Kill) < len(out[j].Kill)
		}
		return out[i].Kill < out[j].Kill
	})
	return out
}

// Register records a placeholder submitted to a site's queue at `at` (a
// watchdog's replacement).
func (v *Virtual) Register(now time.Time, group, site, local, why string, at time.Time) {
	defer v.flush()
	v.s.register(now, group, site, local, why, at)
}

// Remaining is how many of the group's jobs wait and how many are bound.
func (v *Virtual) Remaining(group string) (waiting, bound int) {
	g, err := v.s.group(group)
	if err != nil {
		return 0, 0
	}
	return g.counts[Waiting], g.counts[Bound]
}

// Actions counts the actions recorded so far by kind (requeue, fail,
// kill, duplicate, late, …): Virtual keeps no other record of them.
func (v *Virtual) Actions() map[string]int {
	v.count()
	out := map[string]int{}
	for k, n := range v.acts {
		out[k] = n
	}
	return out
}

// flush counts the actions of a call and cleans the state.
func (v *Virtual) flush() {
	v.count()
	v.s.clean()
}

// count adds the actions not yet counted.
func (v *Virtual) count() {
	if v.acts == nil {
		v.acts = map[string]int{}
	}
	for _, a := range v.s.actions {
		v.acts[a.Action]++
	}
	v.s.actions = nil
}
