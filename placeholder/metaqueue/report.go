package metaqueue

import (
	"context"
	"fmt"
	"io"
	"sort"
	"strings"
	"time"
)

// Report says what became of a group's jobs: how many ran exactly once,
// which ran (or may have run) more than once and why, which failed, and
// which are not finished; and what the placeholders did per site.
type Report struct {
	Group      string         `json:"group"`
	Jobs       int            `json:"jobs"`
	States     map[string]int `json:"states"`
	Once       int            `json:"once"` // done, by exactly one attempt that reported
	NonZero    int            `json:"nonzero_exit"`
	Duplicate  []JobRuns      `json:"duplicated,omitempty"`       // two or more attempts reported running it
	Possible   []JobRuns      `json:"maybe_duplicated,omitempty"` // an attempt the watchdog gave up on may have run it too
	Failed     []JobRuns      `json:"failed,omitempty"`
	Unfinished []int64        `json:"unfinished,omitempty"` // waiting or bound
	Sites      []SiteReport   `json:"sites"`
}

// JobRuns is a job and its attempts, with why it is listed.
type JobRuns struct {
	Job      int64     `json:"job"`
	Key      string    `json:"key,omitempty"`
	Reason   string    `json:"reason"`
	Attempts []Attempt `json:"attempts"`
}

// SiteReport is a site's share: jobs done there, and its placeholders by
// how they ended (or their state, while active).
type SiteReport struct {
	Site         string         `json:"site"`
	Jobs         int            `json:"jobs"`
	Placeholders map[string]int `json:"placeholders"`
	LocalIDs     int            `json:"local_ids"` // distinct local ids (Slurm job ids, pids)
}

// Report builds the group's report.
func (s *Server) Report(ctx context.Context, group string) (*Report, error) {
	v, err := s.do(ctx, func(time.Time) (any, []task, error) {
		g, err := s.s.group(group)
		if err != nil {
			return nil, nil, err
		}
		return s.s.report(g), nil, nil
	})
	if err != nil {
		return nil, err
	}
	return v.(*Report), nil
}

func (s *state) report(g *Group) *Report {
	r := &Report{Group: g.Name, Jobs: len(g.jobs), States: map[string]int{}}
	sites := map[string]*SiteReport{}
	siteOf := func(name string) *SiteReport {
		if sr := sites[name]; sr != nil {
			return sr
		}
		sr := &SiteReport{Site: name, Placeholders: map[string]int{}}
		sites[name] = sr
		return sr
	}
	for _, sp := range g.Sites {
		siteOf(sp.Name)
	}
	for _, id := range g.jobs {
		j := s.jobs[id]
		r.States[j.State]++
		s.classify(r, j)
		if j.State == Done {
			if a := s.atts[j.Attempt]; a != nil {
				siteOf(a.Site).Jobs++
			}
		}
	}
	locals := map[[2]string]bool{}
	for _, p := range s.phs {
		if p.Group != g.Name {
			continue
		}
		k := p.End
		if p.State != Ended {
			k = p.State
		}
		siteOf(p.Site).Placeholders[k]++
		locals[[2]string{p.Site, p.LocalID}] = true
	}
	for k := range locals {
		siteOf(k[0]).LocalIDs++
	}
	for _, sr := range sites {
		r.Sites = append(r.Sites, *sr)
	}
	sort.Slice(r.Sites, func(i, j int) bool { return r.Sites[i].Site < r.Sites[j].Site })
	return r
}

// classify lists a job where it belongs in the report.
func (s *state) classify(r *Report, j *Job) {
	var atts []Attempt
	reported, abandoned := 0, 0
	for _, id := range j.attempts {
		a := *s.atts[id]
		atts = append(atts, a)
		switch {
		case !a.Ended.IsZero():
			reported++
		case a.Outcome == Abandoned:
			abandoned++
		}
	}
	runs := JobRuns{Job: j.ID, Key: j.Key, Attempts: atts}
	switch {
	case reported > 1:
		runs.Reason = fmt.Sprintf("%d attempts reported running it: %s", reported, reasons(atts))
		r.Duplicate = append(r.Duplicate, runs)
	case abandoned > 0 && reported+abandoned > 1:
		runs.Reason = fmt.Sprintf("%d attempts were given up on and may have run it: %s", abandoned, reasons(atts))
		r.Possible = append(r.Possible, runs)
	case j.State == Done && reported == 1:
		r.Once++
	}
	if j.State == Done && j.Exit != nil && *j.Exit != 0 {
		r.NonZero++
	}
	switch j.State {
	case Failed:
		r.Failed = append(r.Failed, JobRuns{Job: j.ID, Key: j.Key, Reason: j.Reason, Attempts: atts})
	case Waiting, Bound:
		r.Unfinished = append(r.Unfinished, j.ID)
	}
}

func reasons(atts []Attempt) string {
	var parts []string
	for _, a := range atts {
		p := fmt.Sprintf("attempt %d (placeholder %d, %s %s) %s", a.ID, a.Placeholder, a.Site, a.LocalID, a.Outcome)
		if a.Reason != "" {
			p += ": " + a.Reason
		}
		parts = append(parts, p)
	}
	return strings.Join(parts, "; ")
}

// WriteText prints the report for a person.
func (r *Report) WriteText(w io.Writer) {
	fmt.Fprintf(w, "group %s: %d jobs", r.Group, r.Jobs)
	var states []string
	for k := range r.States {
		states = append(states, k)
	}
	sort.Strings(states)
	for _, k := range states {
		fmt.Fprintf(w, ", %d %s", r.States[k], k)
	}
	fmt.Fprintf(w, "\n  run exactly once: %d; nonzero exit: %d; duplicated: %d; maybe duplicated: %d; failed: %d; unfinished: %d\n",
		r.Once, r.NonZero, len(r.Duplicate), len(r.Possible), len(r.Failed), len(r.Unfinished))
	for _, list := range []struct {
		name string
		runs []JobRuns
	}{{"duplicated", r.Duplicate}, {"maybe duplicated", r.Possible}, {"failed", r.Failed}} {
		for _, j := range list.runs {
			fmt.Fprintf(w, "  %s: job %d: %s\n", list.name, j.Job, j.Reason)
		}
	}
	for _, sr := range r.Sites {
		var ends []string
		for k, n := range sr.Placeholders {
			ends = append(ends, fmt.Sprintf("%s %d", k, n))
		}
		sort.Strings(ends)
		fmt.Fprintf(w, "  site %s: %d jobs; placeholders: %s\n", sr.Site, sr.Jobs, strings.Join(ends, ", "))
	}
}
