package celrm

import (
	"context"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/gmark/gmark/internal/arcrest"
	"github.com/gmark/gmark/internal/gramcli"
	"github.com/gmark/gmark/koala/core"
)

// missingPolls is how many polls in a row a CE may not know a submitted
// job before the core is told it ended, its outcome unknown.
const missingPolls = 5

// seen is what a CE says of one job at a poll.
type seen struct {
	known   bool
	running bool // the LRM started it (it may have ended since)
	ended   bool
	ok      bool
	reason  string
	start   time.Time
	end     time.Time
}

// pollOnce asks about the submissions the CE took, and returns what to
// tell the core (nil: nothing).
func (c *Cluster) pollOnce(ctx context.Context) func(*core.Core) {
	if !c.swept {
		if err := c.sweep(ctx); err != nil {
			c.kit.Logf("looking for the CE jobs an earlier run left (again at the next poll): %v", err)
		} else {
			c.swept = true
		}
	}
	c.kit.Lock()
	var subs []*sub
	for ref, sb := range c.kit.Subs {
		switch {
		case sb.ReportedEnd, sb.Failed != "" && sb.ReportedSubmit:
			delete(c.kit.Subs, ref)
		case sb.ID != "" || sb.Failed != "":
			subs = append(subs, sb)
		}
	}
	c.kit.Unlock()
	got, err := c.ask(ctx, subs)
	if err != nil {
		return c.kit.Unanswered(ctx, err)
	}
	c.kit.Answered()
	var reports []func(*core.Core)
	ours := 0
	c.kit.Lock()
	for _, sb := range subs {
		st := got[sb.ID]
		reports = append(reports, c.follow(sb, st)...)
		if st.running && !st.ended && sb.Cancel == "" {
			ours += sb.Size
		}
	}
	c.kit.Unlock()
	idle := max(c.processors-ours, 0)
	return func(k *core.Core) {
		_ = k.ObserveCluster(c.name, idle, ours)
		for _, r := range reports {
			r(k)
		}
	}
}

// ask is the CE's word on every submission it took, by id.
func (c *Cluster) ask(ctx context.Context, subs []*sub) (map[string]seen, error) {
	var ids []string
	for _, sb := range subs {
		if sb.ID != "" {
			ids = append(ids, sb.ID)
		}
	}
	out := map[string]seen{}
	if len(ids) == 0 {
		return out, nil
	}
	if c.arc != nil {
		return c.askARC(ctx, ids)
	}
	var mu sync.Mutex
	var lastErr error
	sem := make(chan struct{}, 4)
	var wg sync.WaitGroup
	for _, sb := range subs {
		if sb.ID == "" {
			continue
		}
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			word, err := c.gram.Status(ctx, sb.ID)
			mu.Lock()
			defer mu.Unlock()
			if err != nil {
				lastErr = err
				return
			}
			out[sb.ID] = gramSeen(word, gramcli.ReadReport(filepath.Join(sb.Dir, sb.Name+".err")))
		}()
	}
	wg.Wait()
	if len(out) == 0 && lastErr != nil {
		return nil, lastErr
	}
	return out, nil
}

// gramSeen is a GRAM job's state with its script's report.
func gramSeen(word string, rep gramcli.Report) seen {
	s := seen{known: true, start: rep.Started}
	switch word {
	case "ACTIVE", "STAGE_OUT", "SUSPENDED":
		s.running = true
	case "DONE", "FAILED":
		s.running, s.ended, s.end = !rep.Started.IsZero(), true, rep.Ended
		s.ok = rep.Status != nil && *rep.Status == 0
		if !s.ok {
			s.reason = "GRAM: " + word
		}
	}
	if !rep.Started.IsZero() {
		s.running = true
	}
	return s
}

// askARC asks A-REX the state of every job in one call, and the records
// of those that run or ended (their start and end times, exit codes).
func (c *Cluster) askARC(ctx context.Context, ids []string) (map[string]seen, error) {
	jobs, err := c.arc.Status(ctx, ids)
	if err != nil {
		return nil, err
	}
	out := map[string]seen{}
	var more []string
	for i, j := range jobs {
		if !j.OK() {
			continue
		}
		switch j.State {
		case "ACCEPTING", "ACCEPTED", "PREPARING", "PREPARED", "SUBMITTING", "QUEUING", "HELD", "OTHER":
			out[ids[i]] = seen{known: true}
		default:
			more = append(more, ids[i])
		}
	}
	if len(more) == 0 {
		return out, nil
	}
	infos, err := c.arc.Info(ctx, more)
	if err != nil {
		return nil, err
	}
	for i, j := range infos {
		if j.Info != nil {
			out[more[i]] = arcSeen(j.Info)
		}
	}
	return out, nil
}

// arcSeen is an ARC job's record as the core hears it.
func arcSeen(in *arcrest.Info) seen {
	s := seen{known: true, running: true, start: in.Start, end: in.LRMEnd}
	switch in.State {
	case "FINISHED", "FAILED", "KILLED", "WIPED":
		s.ended = true
		s.running = !in.Start.IsZero()
		s.ok = in.State == "FINISHED" && (in.ExitCode == nil || *in.ExitCode == 0)
		if !s.ok {
			s.reason = "A-REX: " + in.State
			if len(in.Errors) > 0 {
				s.reason += ": " + strings.Join(in.Errors, "; ")
			}
		}
	case "RUNNING", "EXITINGLRMS", "EXECUTED", "FINISHING", "KILLING":
	default:
		s.running = false
	}
	return s
}

// follow returns the reports of one submission's news since the last poll.
// c.kit is locked.
func (c *Cluster) follow(sb *sub, st seen) []func(*core.Core) {
	var out []func(*core.Core)
	ref, id := sb.Ref, sb.ID
	switch {
	case sb.Cancel != "":
		if st.ended || !st.known {
			sb.ReportedEnd = true // gone: nothing it says matters
		}
		return nil
	case sb.Failed != "" && !sb.ReportedSubmit:
		sb.ReportedSubmit = true
		reason := sb.Failed
		return append(out, func(k *core.Core) { k.LRMFailed(ref, reason) })
	case id == "":
		return nil
	}
	if !sb.ReportedSubmit {
		sb.ReportedSubmit = true
		out = append(out, func(k *core.Core) { k.LRMSubmitted(ref, id) })
	}
	if !st.known {
		if sb.Missing++; sb.Missing >= missingPolls && !sb.ReportedEnd {
			sb.ReportedEnd = true
			c.kit.Logf("the CE no longer knows job %s (%s)", id, sb.Name)
			out = append(out, func(k *core.Core) { k.LRMEnded(ref, id, false, "the CE no longer knows job "+id, time.Now()) })
		}
		return out
	}
	sb.Missing = 0
	if st.running && !sb.ReportedStart {
		sb.ReportedStart = true
		at := st.start
		if at.IsZero() {
			at = time.Now()
		}
		sb.Start = at
		c.kit.Logf("CE job %s (%s) started at %s", id, sb.Name, at.Format(time.RFC3339))
		out = append(out, func(k *core.Core) { k.LRMStarted(ref, id, at) })
	}
	if st.ended && !sb.ReportedEnd {
		sb.ReportedEnd = true
		at := st.end
		if at.IsZero() || at.Before(sb.Start) {
			at = time.Now()
		}
		ok, reason := st.ok, st.reason
		c.kit.Logf("CE job %s (%s) ended at %s (ok %v %s)", id, sb.Name, at.Format(time.RFC3339), ok, reason)
		out = append(out, func(k *core.Core) { k.LRMEnded(ref, id, ok, reason, at) })
	}
	return out
}
