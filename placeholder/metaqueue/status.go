package metaqueue

import (
	"context"
	"sort"
	"time"
)

// Status is what the status page shows of a group (TrellisWeb's monitoring
// page, Fig. 4.7, with counts and throughput): its jobs per state, its
// placeholders per site and state, the jobs done per interval over the
// last hour and overall, and its active placeholders.
type Status struct {
	Group     string    `json:"group"`
	Policy    string    `json:"policy"`
	Stopped   bool      `json:"stopped,omitempty"`
	Now       time.Time `json:"now"`
	Jobs      int       `json:"jobs"`
	Remaining int       `json:"remaining"` // waiting + running: TrellisWeb's "command lines remaining"
	Waiting   int       `json:"waiting"`
	Running   int       `json:"running"` // bound to a placeholder
	Done      int       `json:"done"`
	Failed    int       `json:"failed"`
	Removed   int       `json:"removed"`

	Sites []SiteStatus `json:"sites"`

	// Recent counts the jobs done per Interval over the last hour, oldest
	// first: Recent[i] covers [Now-1h+i*Interval, Now-1h+(i+1)*Interval),
	// the last one also the jobs that ended after Now (another clock).
	IntervalSeconds int   `json:"interval_seconds"`
	Recent          []int `json:"recent"`
	LastHour        int   `json:"last_hour"`
	// Overall is Done per hour over the span from the first job bound to
	// the last job ended (0 while that span is empty).
	Overall   float64   `json:"overall_per_hour"`
	FirstBind time.Time `json:"first_bind,omitzero"`
	LastEnd   time.Time `json:"last_end,omitzero"`

	// Placeholders are the active ones, by id, at most MaxStatusRows;
	// MorePlaceholders counts those left out.
	Placeholders     []StatusRow `json:"placeholders"`
	MorePlaceholders int         `json:"more_placeholders,omitempty"`
}

// SiteStatus is a site's placeholders per state (ended ones counted
// together), and the jobs done there.
type SiteStatus struct {
	Site      string `json:"site"`
	Queued    int    `json:"queued"`
	Executing int    `json:"executing"`
	Idle      int    `json:"idle"`
	Ended     int    `json:"ended"`
	Done      int    `json:"done"`
	LastHour  int    `json:"last_hour"`
}

// StatusRow is an active placeholder as TrellisWeb listed it (metaqueue id,
// host, local id, time started), with the job it runs.
type StatusRow struct {
	ID        int64     `json:"id"`
	Site      string    `json:"site"`
	State     string    `json:"state"`
	Host      string    `json:"host,omitempty"`
	LocalID   string    `json:"local_id"`
	Submitted time.Time `json:"submitted,omitzero"`
	Started   time.Time `json:"started,omitzero"`
	Job       int64     `json:"job,omitempty"`
	Key       string    `json:"key,omitempty"`
	Command   string    `json:"command,omitempty"` // cut after MaxStatusCommand bytes (at a character), then "…"
}

// The status's bounds: rows of placeholders per group, bytes of a command
// shown, and the throughput interval.
const (
	MaxStatusRows    = 200
	MaxStatusCommand = 200
	StatusInterval   = 5 * time.Minute
)

// Status builds a group's status.
func (s *Server) Status(ctx context.Context, group string) (*Status, error) {
	v, err := s.do(ctx, func(now time.Time) (any, []task, error) {
		g, err := s.s.group(group)
		if err != nil {
			return nil, nil, err
		}
		return s.s.status(g, now), nil, nil
	})
	if err != nil {
		return nil, err
	}
	return v.(*Status), nil
}

// Statuses builds every group's status, by name.
func (s *Server) Statuses(ctx context.Context) ([]*Status, error) {
	v, err := s.do(ctx, func(now time.Time) (any, []task, error) {
		out := []*Status{}
		for _, g := range s.s.groups {
			out = append(out, s.s.status(g, now))
		}
		sort.Slice(out, func(i, j int) bool { return out[i].Group < out[j].Group })
		return out, nil, nil
	})
	if err != nil {
		return nil, err
	}
	return v.([]*Status), nil
}

func (s *state) status(g *Group, now time.Time) *Status {
	st := &Status{Group: g.Name, Policy: g.Policy, Stopped: g.Stopped, Now: now, Jobs: len(g.jobs),
		Waiting: g.counts[Waiting], Running: g.counts[Bound], Done: g.counts[Done], Failed: g.counts[Failed],
		Removed: g.counts[Removed], IntervalSeconds: int(StatusInterval / time.Second),
		Recent: make([]int, int(time.Hour/StatusInterval)), Placeholders: []StatusRow{}}
	st.Remaining = st.Waiting + st.Running
	sites := map[string]*SiteStatus{}
	siteOf := func(name string) *SiteStatus {
		if ss := sites[name]; ss != nil {
			return ss
		}
		ss := &SiteStatus{Site: name}
		sites[name] = ss
		return ss
	}
	for _, sp := range g.Sites {
		siteOf(sp.Name)
	}
	s.throughput(g, st, siteOf)
	s.placeholderRows(g, st, siteOf)
	for _, ss := range sites {
		st.Sites = append(st.Sites, *ss)
	}
	sort.Slice(st.Sites, func(i, j int) bool { return st.Sites[i].Site < st.Sites[j].Site })
	return st
}

// throughput counts the jobs done per interval and per site, from the end
// times their placeholders reported, and the overall rate.
func (s *state) throughput(g *Group, st *Status, siteOf func(string) *SiteStatus) {
	hourAgo := st.Now.Add(-time.Hour)
	for _, id := range g.jobs {
		j := s.jobs[id]
		for _, aid := range j.attempts {
			if b := s.atts[aid].Bound; !b.IsZero() && (st.FirstBind.IsZero() || b.Before(st.FirstBind)) {
				st.FirstBind = b
			}
		}
		if j.State != Done {
			continue
		}
		a := s.atts[j.Attempt]
		if a == nil {
			continue
		}
		ss := siteOf(a.Site)
		ss.Done++
		end := a.Ended
		if end.IsZero() || end.Before(hourAgo) {
			if end.After(st.LastEnd) {
				st.LastEnd = end
			}
			continue
		}
		if end.After(st.LastEnd) {
			st.LastEnd = end
		}
		i := int(end.Sub(hourAgo) / StatusInterval)
		if i >= len(st.Recent) {
			i = len(st.Recent) - 1
		}
		st.Recent[i]++
		st.LastHour++
		ss.LastHour++
	}
	if span := st.LastEnd.Sub(st.FirstBind); !st.FirstBind.IsZero() && span > 0 {
		st.Overall = float64(st.Done) / span.Hours()
	}
}

// placeholderRows counts the group's placeholders per site and state, and
// lists the active ones.
func (s *state) placeholderRows(g *Group, st *Status, siteOf func(string) *SiteStatus) {
	for _, p := range s.phs {
		if p.Group != g.Name {
			continue
		}
		ss := siteOf(p.Site)
		switch p.State {
		case Queued:
			ss.Queued++
		case Executing:
			ss.Executing++
		case Idle:
			ss.Idle++
		default:
			ss.Ended++
			continue
		}
		row := StatusRow{ID: p.ID, Site: p.Site, State: p.State, Host: p.Host, LocalID: p.LocalID,
			Submitted: p.Submitted, Started: p.Started}
		if a := s.atts[p.Attempt]; a != nil && p.Attempt != 0 {
			if j := s.jobs[a.Job]; j != nil {
				row.Job, row.Key, row.Command = j.ID, j.Key, cut(j.Command, MaxStatusCommand)
			}
		}
		st.Placeholders = append(st.Placeholders, row)
	}
	sort.Slice(st.Placeholders, func(i, j int) bool { return st.Placeholders[i].ID < st.Placeholders[j].ID })
	if n := len(st.Placeholders); n > MaxStatusRows {
		st.MorePlaceholders = n - MaxStatusRows
		st.Placeholders = st.Placeholders[:MaxStatusRows]
	}
}

// cut shortens s to at most n bytes, at a character boundary, marking the
// cut with "…".
func cut(s string, n int) string {
	if len(s) <= n {
		return s
	}
	i := n
	for i > 0 && s[i]&0xC0 == 0x80 {
		i--
	}
	return s[:i] + "…"
}
