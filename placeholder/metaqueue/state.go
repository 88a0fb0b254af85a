package metaqueue

import (
	"fmt"
	"strconv"
	"time"

	"github.com/gmark/gmark/internal/names"
	"github.com/gmark/gmark/placeholder/site"
)

// state is the metaqueue in memory. Only the server's driver goroutine
// touches it; every change marks what it touched dirty, and the driver
// commits the dirty rows and the new actions before it answers anyone.
type state struct {
	groups  map[string]*Group
	jobs    map[int64]*Job
	atts    map[int64]*Attempt
	phs     map[int64]*Placeholder
	latest  map[phKey]int64 // the newest placeholder of each (group, site, local id)
	active  map[int64]*Placeholder
	nextJob int64
	nextAtt int64
	nextPH  int64
	nextAct int64

	dirtyGroups map[string]bool
	dirtyJobs   map[int64]bool
	dirtyAtts   map[int64]bool
	dirtyPHs    map[int64]bool
	actions     []Action
}

type phKey struct{ group, site, local string }

func newState() *state {
	s := &state{groups: map[string]*Group{}, jobs: map[int64]*Job{}, atts: map[int64]*Attempt{},
		phs: map[int64]*Placeholder{}, latest: map[phKey]int64{}, active: map[int64]*Placeholder{},
		nextJob: 1, nextAtt: 1, nextPH: 1, nextAct: 1}
	s.clean()
	return s
}

func (s *state) clean() {
	s.dirtyGroups, s.dirtyJobs, s.dirtyAtts, s.dirtyPHs = map[string]bool{}, map[int64]bool{}, map[int64]bool{}, map[int64]bool{}
	s.actions = nil
}

// errNotFound is answered 404, errConflict 409, errBad 400.
type (
	errNotFound struct{ msg string }
	errConflict struct{ msg string }
	errBad      struct{ msg string }
)

func (e errNotFound) Error() string { return e.msg }
func (e errConflict) Error() string { return e.msg }
func (e errBad) Error() string      { return e.msg }

func notFound(f string, a ...any) error { return errNotFound{fmt.Sprintf(f, a...)} }
func conflict(f string, a ...any) error { return errConflict{fmt.Sprintf(f, a...)} }
func bad(f string, a ...any) error      { return errBad{fmt.Sprintf(f, a...)} }

func (s *state) act(now time.Time, a Action) {
	a.Seq, a.Time = s.nextAct, now
	s.nextAct++
	s.actions = append(s.actions, a)
}

func (s *state) phAct(now time.Time, p *Placeholder, action string, job, att int64, detail string) {
	s.act(now, Action{Group: p.Group, Site: p.Site, Placeholder: p.ID, LocalID: p.LocalID, Host: p.Host,
		Action: action, Job: job, Attempt: att, Detail: detail})
}

func (s *state) group(name string) (*Group, error) {
	g, ok := s.groups[name]
	if !ok {
		return nil, notFound("no group %q", name)
	}
	return g, nil
}

func (s *state) setJob(g *Group, j *Job, st string) {
	g.counts[j.State]--
	j.State = st
	g.counts[st]++
	s.dirtyJobs[j.ID] = true
}

// GroupSpec creates or updates a group.
type GroupSpec struct {
	Name   string      `toml:"name" json:"name"`
	Policy string      `toml:"policy" json:"policy,omitempty"`
	Sites  []site.Spec `toml:"site" json:"sites"`
}

// check validates the spec and fills its defaults.
func (gs *GroupSpec) check() error {
	if err := checkName("group", gs.Name); err != nil {
		return err
	}
	if gs.Policy == "" {
		gs.Policy = FCFS
	}
	if !policyKnown(gs.Policy) {
		return fmt.Errorf("group %s: policy %q is not one of %v", gs.Name, gs.Policy, Policies)
	}
	seen := map[string]bool{}
	for i := range gs.Sites {
		sp := &gs.Sites[i]
		if err := checkName("site", sp.Name); err != nil {
			return fmt.Errorf("group %s: %v", gs.Name, err)
		}
		if err := sp.Check(); err != nil {
			return fmt.Errorf("group %s: %v", gs.Name, err)
		}
		if seen[sp.Name] {
			return fmt.Errorf("group %s: site %s given twice", gs.Name, sp.Name)
		}
		seen[sp.Name] = true
	}
	return nil
}

// putGroup creates a group, or replaces an existing group's sites (its
// policy stays: the queue is ordered by it).
func (s *state) putGroup(now time.Time, gs GroupSpec) (*Group, error) {
	if err := gs.check(); err != nil {
		return nil, bad("%v", err)
	}
	g, ok := s.groups[gs.Name]
	if ok {
		if g.Policy != gs.Policy {
			return nil, conflict("group %s has policy %s; it cannot change to %s", g.Name, g.Policy, gs.Policy)
		}
		g.Sites = gs.Sites
	} else {
		g = s.newGroup(gs.Name, gs.Policy, gs.Sites, now)
		s.act(now, Action{Group: g.Name, Action: "group", Detail: "created, policy " + g.Policy})
	}
	s.dirtyGroups[g.Name] = true
	return g, nil
}

func (s *state) newGroup(name, policy string, sites []site.Spec, created time.Time) *Group {
	g := &Group{Name: name, Policy: policy, Sites: sites, Created: created, keys: map[string]int64{}, counts: map[string]int{},
		queues: map[string]*jobHeap{}}
	s.groups[name] = g
	return g
}

// NewJob is a job to add: a command line, with an optional key (adding a
// key the group has returns the existing job: a retried request adds
// nothing twice), a priority, and the jobs it must wait for (keys or ids
// of the group, given before it).
type NewJob struct {
	Key      string   `json:"key,omitempty"`
	Command  string   `json:"command"`
	Priority int      `json:"priority,omitempty"`
	After    []string `json:"after,omitempty"`
	// Site pins the job to a site of the group (empty: any).
	Site string `json:"site,omitempty"`
}

// Limits of what is added.
const (
	MaxCommand   = 64 << 10
	MaxKey       = names.MaxKeyLen
	MaxAfter     = 1000
	MaxJobsAdded = 100000 // in one request
)

// addJobs adds jobs in order; all or none.
func (s *state) addJobs(now time.Time, group string, in []NewJob) ([]int64, error) {
	g, err := s.group(group)
	if err != nil {
		return nil, err
	}
	if len(in) > MaxJobsAdded {
		return nil, bad("%d jobs in one request; at most %d", len(in), MaxJobsAdded)
	}
	ids, fresh, after, err := s.checkNewJobs(g, in)
	if err != nil {
		return nil, err
	}
	for i, nj := range in {
		if !fresh[i] {
			continue
		}
		j := &Job{ID: ids[i], Group: g.Name, Key: nj.Key, Command: nj.Command, Priority: nj.Priority,
			After: after[i], Site: nj.Site, State: Waiting, Added: now}
		s.nextJob = j.ID + 1
		s.jobs[j.ID] = j
		g.jobs = append(g.jobs, j.ID)
		g.counts[Waiting]++
		if j.Key != "" {
			g.keys[j.Key] = j.ID
		}
		s.link(j)
		g.push(j)
		s.dirtyJobs[j.ID] = true
	}
	return ids, nil
}

// checkNewJobs validates a request and gives each job its id: the existing
// job's for a key the group knows (fresh false), else the next ones in
// order; after[i] are the prerequisites' ids.
func (s *state) checkNewJobs(g *Group, in []NewJob) (ids []int64, fresh []bool, after [][]int64, err error) {
	ids, fresh, after = make([]int64, len(in)), make([]bool, len(in)), make([][]int64, len(in))
	batch := map[string]int64{}
	next := s.nextJob
	for i, nj := range in {
		switch {
		case nj.Command == "" || len(nj.Command) > MaxCommand:
			return nil, nil, nil, bad("job %d: the command must have 1 to %d bytes", i+1, MaxCommand)
		case nj.Key != "" && names.CheckKey(nj.Key) != nil:
			return nil, nil, nil, bad("job %d: %v", i+1, names.CheckKey(nj.Key))
		case len(nj.After) > MaxAfter:
			return nil, nil, nil, bad("job %d: more than %d prerequisites", i+1, MaxAfter)
		case nj.Site != "" && !g.hasSite(nj.Site):
			return nil, nil, nil, bad("job %d: group %s has no site %q", i+1, g.Name, nj.Site)
		case len(nj.After) > 0 && !hasDeps(g.Policy):
			return nil, nil, nil, bad("job %d has prerequisites, but group %s has policy %s: give the group policy dag or dag-priority", i+1, g.Name, g.Policy)
		}
		if id, ok := g.keys[nj.Key]; ok && nj.Key != "" {
			ids[i] = id
			continue
		}
		if _, ok := batch[nj.Key]; ok && nj.Key != "" {
			return nil, nil, nil, bad("job %d: key %q given twice", i+1, nj.Key)
		}
		for _, ref := range nj.After {
			id, err := s.resolve(g, ref, batch)
			if err != nil {
				return nil, nil, nil, bad("job %d: %v", i+1, err)
			}
			after[i] = append(after[i], id)
		}
		ids[i], fresh[i] = next, true
		next++
		if nj.Key != "" {
			batch[nj.Key] = ids[i]
		}
	}
	return ids, fresh, after, nil
}

// resolve finds a prerequisite by key or id: a job of the group, or one
// earlier in the batch.
func (s *state) resolve(g *Group, ref string, batch map[string]int64) (int64, error) {
	if id, ok := g.keys[ref]; ok {
		return id, nil
	}
	if id, ok := batch[ref]; ok {
		return id, nil
	}
	if id, err := strconv.ParseInt(ref, 10, 64); err == nil {
		if j, ok := s.jobs[id]; ok && j.Group == g.Name {
			return id, nil
		}
	}
	return 0, fmt.Errorf("prerequisite %q is no job of group %s (give a key or id of a job added before)", ref, g.Name)
}

// link counts a new job's unfinished prerequisites and registers it with
// them.
func (s *state) link(j *Job) {
	for _, p := range j.After {
		pj := s.jobs[p]
		if pj == nil {
			continue
		}
		pj.dependents = append(pj.dependents, j.ID)
		if pj.State != Done {
			j.waitingOn++
		}
	}
}

// finish marks a job done and makes the jobs waiting on it eligible.
func (s *state) finish(g *Group, j *Job) {
	s.setJob(g, j, Done)
	for _, d := range j.dependents {
		if dj := s.jobs[d]; dj != nil {
			dj.waitingOn--
			g.push(dj)
		}
	}
}

// removeJob removes a waiting job (the thesis's selective removal).
func (s *state) removeJob(now time.Time, group string, id int64) error {
	g, err := s.group(group)
	if err != nil {
		return err
	}
	j, ok := s.jobs[id]
	if !ok || j.Group != group {
		return notFound("no job %d in group %s", id, group)
	}
	if j.State != Waiting {
		return conflict("job %d is %s: only waiting jobs can be removed", id, j.State)
	}
	s.setJob(g, j, Removed)
	s.act(now, Action{Group: group, Action: "remove", Job: id})
	return nil
}
