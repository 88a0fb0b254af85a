package metaqueue

import (
	"context"
	"fmt"
	"sort"
	"time"

	"github.com/gmark/gmark/placeholder/site"
)

// GroupView is a group as the API shows it: the thesis's group view (jobs
// remaining) with the counts of jobs and placeholders per state.
type GroupView struct {
	Name         string         `json:"name"`
	Policy       string         `json:"policy"`
	Sites        []site.Spec    `json:"sites"`
	Created      time.Time      `json:"created"`
	Stopped      bool           `json:"stopped,omitempty"`
	Remaining    int            `json:"remaining"` // waiting + bound
	Jobs         map[string]int `json:"jobs"`
	Placeholders map[string]int `json:"placeholders"` // active, by state
}

func (s *state) view(g *Group) GroupView {
	v := GroupView{Name: g.Name, Policy: g.Policy, Sites: append([]site.Spec(nil), g.Sites...), Created: g.Created,
		Stopped: g.Stopped, Jobs: map[string]int{}, Placeholders: map[string]int{}}
	for k, n := range g.counts {
		if n != 0 {
			v.Jobs[k] = n
		}
	}
	v.Remaining = g.counts[Waiting] + g.counts[Bound]
	for _, p := range s.active {
		if p.Group == g.Name {
			v.Placeholders[p.State]++
		}
	}
	return v
}

// PutGroup creates a group or replaces its sites, and writes their
// placeholder scripts.
func (s *Server) PutGroup(ctx context.Context, gs GroupSpec) (GroupView, error) {
	v, err := s.do(ctx, func(now time.Time) (any, []task, error) {
		if err := gs.check(); err != nil {
			return nil, nil, bad("%v", err)
		}
		if g, ok := s.s.groups[gs.Name]; ok && g.Policy != gs.Policy {
			return nil, nil, conflict("group %s has policy %s; it cannot change to %s", g.Name, g.Policy, gs.Policy)
		}
		probe := &Group{Name: gs.Name, Sites: gs.Sites}
		if err := s.writeSites(probe); err != nil {
			return nil, nil, err
		}
		g, err := s.s.putGroup(now, gs)
		if err != nil {
			return nil, nil, err
		}
		return s.s.view(g), nil, nil
	})
	if err != nil {
		return GroupView{}, err
	}
	return v.(GroupView), nil
}

// Groups lists the groups.
func (s *Server) Groups(ctx context.Context) ([]GroupView, error) {
	v, err := s.do(ctx, func(time.Time) (any, []task, error) {
		out := []GroupView{}
		for _, g := range s.s.groups {
			out = append(out, s.s.view(g))
		}
		sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
		return out, nil, nil
	})
	if err != nil {
		return nil, err
	}
	return v.([]GroupView), nil
}

// Group shows one group.
func (s *Server) Group(ctx context.Context, name string) (GroupView, error) {
	v, err := s.do(ctx, func(time.Time) (any, []task, error) {
		g, err := s.s.group(name)
		if err != nil {
			return nil, nil, err
		}
		return s.s.view(g), nil, nil
	})
	if err != nil {
		return GroupView{}, err
	}
	return v.(GroupView), nil
}

// AddJobs adds jobs to a group's metaqueue, all or none, and returns their
// ids in order.
func (s *Server) AddJobs(ctx context.Context, group string, jobs []NewJob) ([]int64, error) {
	v, err := s.do(ctx, func(now time.Time) (any, []task, error) {
		ids, err := s.s.addJobs(now, group, jobs)
		return ids, nil, err
	})
	if err != nil {
		return nil, err
	}
	return v.([]int64), nil
}

// RemoveJob removes a waiting job.
func (s *Server) RemoveJob(ctx context.Context, group string, id int64) error {
	_, err := s.do(ctx, func(now time.Time) (any, []task, error) { return nil, nil, s.s.removeJob(now, group, id) })
	return err
}

// JobView is a job with its attempts.
type JobView struct {
	Job
	Attempts []Attempt `json:"attempts,omitempty"`
}

// Jobs lists a group's jobs in insertion order: those in state ("" for
// all) with an id above after, at most limit.
func (s *Server) Jobs(ctx context.Context, group, state string, after int64, limit int, attempts bool) ([]JobView, error) {
	v, err := s.do(ctx, func(time.Time) (any, []task, error) {
		g, err := s.s.group(group)
		if err != nil {
			return nil, nil, err
		}
		i := sort.Search(len(g.jobs), func(i int) bool { return g.jobs[i] > after })
		out := []JobView{}
		for ; i < len(g.jobs) && len(out) < limit; i++ {
			j := s.s.jobs[g.jobs[i]]
			if state != "" && j.State != state {
				continue
			}
			jv := JobView{Job: *j}
			if attempts {
				for _, a := range j.attempts {
					jv.Attempts = append(jv.Attempts, *s.s.atts[a])
				}
			}
			out = append(out, jv)
		}
		return out, nil, nil
	})
	if err != nil {
		return nil, err
	}
	return v.([]JobView), nil
}

// Placeholders lists a group's placeholders: the active ones, or all.
func (s *Server) Placeholders(ctx context.Context, group string, all bool) ([]Placeholder, error) {
	v, err := s.do(ctx, func(time.Time) (any, []task, error) {
		if _, err := s.s.group(group); err != nil {
			return nil, nil, err
		}
		out := []Placeholder{}
		for _, p := range s.s.phs {
			if p.Group == group && (all || p.State != Ended) {
				out = append(out, *p)
			}
		}
		sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
		return out, nil, nil
	})
	if err != nil {
		return nil, err
	}
	return v.([]Placeholder), nil
}

// Pull is nextcmd.
func (s *Server) Pull(ctx context.Context, group string, req PullRequest) (PullReply, error) {
	s.pulls.Add(1)
	v, err := s.do(ctx, func(now time.Time) (any, []task, error) {
		r, err := s.s.pull(now, group, req, s.cfg.PullWait)
		return r, nil, err
	})
	if err != nil {
		return PullReply{}, err
	}
	r := v.(PullReply)
	if r.Order != nil {
		s.binds.Add(1)
	}
	return r, nil
}

// Done is donejob.
func (s *Server) Done(ctx context.Context, group string, req DoneRequest) error {
	if err := req.Ident.check(); err != nil {
		return err
	}
	_, err := s.do(ctx, func(now time.Time) (any, []task, error) { return nil, nil, s.s.done(now, group, req) })
	return err
}

// Dequeue is dequeue.
func (s *Server) Dequeue(ctx context.Context, group string, req DequeueRequest) error {
	_, err := s.do(ctx, func(now time.Time) (any, []task, error) { return nil, nil, s.s.dequeue(now, group, req) })
	return err
}

// MaxStart bounds the placeholders of one start request.
const MaxStart = 10000

// StartResult says which placeholders a start submitted; Count is how
// many it meant to, and Auto how an automatic count was chosen.
type StartResult struct {
	Placeholders []int64  `json:"placeholders"`
	Count        int      `json:"count"`
	Auto         string   `json:"auto,omitempty"`
	Errors       []string `json:"errors,omitempty"`
}

// Start submits count placeholders to a site of a group (the thesis's
// dispatch, "Number to Start"), and lifts a stop-all. Count 0 is automatic
// (an extension; the thesis leaves the count to the user): see autoCount.
func (s *Server) Start(ctx context.Context, group, siteName string, count int) (StartResult, error) {
	if count < 0 || count > MaxStart {
		return StartResult{}, bad("count must be from 1 to %d, or 0 (automatic)", MaxStart)
	}
	_, err := s.do(ctx, func(now time.Time) (any, []task, error) {
		g, err := s.s.group(group)
		if err != nil {
			return nil, nil, err
		}
		if _, ok := g.Site(siteName); !ok {
			return nil, nil, notFound("group %s has no site %q", group, siteName)
		}
		if g.Stopped {
			g.Stopped = false
			s.s.dirtyGroups[group] = true
		}
		return nil, nil, nil
	})
	if err != nil {
		return StartResult{}, err
	}
	st := s.site(group, siteName)
	if st == nil {
		return StartResult{}, conflict("the scripts of site %s are not written yet: the server has no address", siteName)
	}
	res := StartResult{Placeholders: []int64{}, Count: count}
	if count == 0 {
		if res.Count, res.Auto, err = s.autoCount(ctx, st, group, siteName); err != nil {
			return StartResult{}, err
		}
		count = res.Count
	}
	for i := 0; i < count; i++ {
		id, err := s.submit(ctx, st, group, siteName, "started")
		if err != nil {
			res.Errors = append(res.Errors, err.Error())
			if len(res.Errors) >= 3 {
				res.Errors = append(res.Errors, fmt.Sprintf("stopped after %d failures; %d of %d submitted", len(res.Errors), len(res.Placeholders), count))
				break
			}
			continue
		}
		res.Placeholders = append(res.Placeholders, id)
	}
	return res, nil
}

// autoCount is an automatic start's count: one placeholder per free
// processor of the site (over its cpus per placeholder), less its
// placeholders of the group already queued there (each will take one when
// it starts), at least 1 (a queued placeholder costs little, §2.7) and at
// most the site's max_count (default 64). The choice is recorded.
func (s *Server) autoCount(ctx context.Context, st site.Site, group, siteName string) (int, string, error) {
	free, err := st.Free(ctx)
	if err != nil {
		return 0, "", conflict("site %s: its free processors: %v", siteName, err)
	}
	v, err := s.do(ctx, func(now time.Time) (any, []task, error) {
		g, err := s.s.group(group)
		if err != nil {
			return nil, nil, err
		}
		sp, _ := g.Site(siteName)
		cpus, limit := max(sp.CPUs, 1), 64
		if sp.MaxCount > 0 {
			limit = sp.MaxCount
		}
		queued := 0
		for _, p := range s.s.active {
			if p.Group == group && p.Site == siteName && p.State == Queued {
				queued++
			}
		}
		n := min(max(free/cpus-queued, 1), limit, MaxStart)
		why := fmt.Sprintf("auto count %d: %d free processors / %d per placeholder, %d queued already, at least 1, at most %d", n, free, cpus, queued, limit)
		s.s.act(now, Action{Group: group, Site: siteName, Action: "auto-count", Detail: why})
		return [2]any{n, why}, nil, nil
	})
	if err != nil {
		return 0, "", err
	}
	r := v.([2]any)
	return r[0].(int), r[1].(string), nil
}

// Stop stops one placeholder (id), a site's (siteName) or a whole group's.
func (s *Server) Stop(ctx context.Context, group, siteName string, id int64) (int, error) {
	v, err := s.do(ctx, func(now time.Time) (any, []task, error) {
		tasks, err := s.s.stop(now, group, siteName, id)
		return len(tasks), tasks, err
	})
	if err != nil {
		return 0, err
	}
	return v.(int), nil
}

// Actions reads a group's recorded actions after seq.
func (s *Server) Actions(ctx context.Context, group string, after int64, limit int) ([]Action, error) {
	if _, err := s.Group(ctx, group); err != nil {
		return nil, err
	}
	return s.st.actionsAfter(group, after, limit)
}

// Stats are the server's counters since it started.
type Stats struct {
	Pulls uint64 `json:"pulls"`
	Binds uint64 `json:"binds"`
}

// Stats reads the counters.
func (s *Server) Stats() Stats { return Stats{Pulls: s.pulls.Load(), Binds: s.binds.Load()} }
