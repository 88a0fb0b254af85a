package slurmlrm

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/gmark/gmark/internal/slurmcli"
	"github.com/gmark/gmark/koala/core"
	"github.com/gmark/gmark/koala/lrmkit"
)

// missingPolls is how many polls in a row a submitted job may be absent
// from squeue before the core is told it ended, its outcome unknown (Slurm
// keeps finished jobs MinJobAge, 300 s by default).
const missingPolls = 3

// pollOnce reads the controller and returns what to tell the core (nil:
// nothing).
func (c *Cluster) pollOnce(ctx context.Context) func(*core.Core) {
	// squeue first: a job that starts between the two commands is then
	// counted busy by sinfo and not yet ours, a moment of load too many
	// rather than too few.
	recs, others, err := c.squeue(ctx)
	var cpus slurmcli.CPUs
	if err == nil {
		cpus, err = c.cpus(ctx)
	}
	if err != nil {
		return c.kit.Unanswered(ctx, err)
	}
	c.kit.Answered()
	reports, ours, orphans := c.compare(recs)
	for _, r := range orphans {
		c.kit.Logf("cancelling Slurm job %d (%s): a job of this core's state it did not submit (left by an earlier run?)", r.ID, r.Name)
		id, name := r.ID, r.Name
		c.kit.Enqueue(func(ctx context.Context) { c.scancel(ctx, name, id, "not submitted by this run of the core") })
	}
	idle := cpus.Idle
	local := LocalJobs(others, c.partition)
	return func(k *core.Core) {
		_ = k.ObserveCluster(c.name, idle, ours, local...)
		for _, r := range reports {
			r(k)
		}
	}
}

// squeue is the controller's jobs of this core (by their names), and the
// others.
func (c *Cluster) squeue(ctx context.Context) (mine, others []slurmcli.Record, err error) {
	out, err := c.run(ctx, "squeue", "--json")
	if err != nil {
		return nil, nil, err
	}
	recs, err := slurmcli.ParseSqueue(out)
	if err != nil {
		return nil, nil, err
	}
	prefix := lrmkit.NamePrefix(c.set.opts.Prefix)
	for _, r := range recs {
		if strings.HasPrefix(r.Name, prefix) {
			mine = append(mine, r)
		} else {
			others = append(others, r)
		}
	}
	return mine, others, nil
}

// LocalJobs are the jobs of a controller's squeue that the core may kill
// under global priority on a cluster with preempt_local: those in state
// RUNNING (not completing or suspended) in the partition (any, when it is
// ""), with their processors known, that are not gmark's — neither named
// gmark-… nor with a comment gmark… (the components of this or another
// core, the jobs of gmark's Slurm submitter) — and not components of a
// heterogeneous job (a scancel of one would end the others).
func LocalJobs(recs []slurmcli.Record, partition string) []core.LocalJob {
	var out []core.LocalJob
	for _, r := range recs {
		switch {
		case r.State != "RUNNING", r.CPUs <= 0, r.HetJobID != 0,
			partition != "" && r.Partition != partition,
			strings.HasPrefix(r.Name, "gmark-"), strings.HasPrefix(r.Comment, "gmark"):
			continue
		}
		out = append(out, core.LocalJob{ID: strconv.FormatInt(r.ID, 10), Size: int(r.CPUs), Start: unix(r.Start)})
	}
	return out
}

// compare matches the controller's jobs with the submissions: it returns
// the reports of what changed, in order, the processors the core's running
// components hold, and the jobs of this core's prefix it did not submit
// (still to end).
func (c *Cluster) compare(recs []slurmcli.Record) (reports []func(*core.Core), ours int, orphans []slurmcli.Record) {
	byID := map[int64]*slurmcli.Record{}
	for i := range recs {
		byID[recs[i].ID] = &recs[i]
	}
	c.kit.Lock()
	defer c.kit.Unlock()
	seen := map[int64]bool{}
	for ref, sb := range c.kit.Subs {
		if sb.ID != 0 {
			seen[sb.ID] = true
		}
		if r := c.follow(sb, byID[sb.ID]); r != nil {
			reports = append(reports, r...)
		}
		if rec := byID[sb.ID]; rec != nil && sb.Cancel == "" && rec.Class() == "running" {
			ours += sb.Size
		}
		if forget(sb, byID[sb.ID]) {
			delete(c.kit.Subs, ref)
		}
	}
	for i := range recs {
		r := &recs[i]
		if !seen[r.ID] && !c.known[r.Name] && !final(r) {
			orphans = append(orphans, *r)
		}
	}
	return reports, ours, orphans
}

// forget tells whether a submission needs following no more: the core
// heard its end or its failure, or it was cancelled and is gone.
func forget(sb *sub, rec *slurmcli.Record) bool {
	switch {
	case sb.ReportedEnd, sb.Failed != "" && sb.ReportedSubmit:
		return true
	case sb.Cancel == "":
		return false
	case sb.Failed != "", final(rec):
		return true
	case sb.ID != 0 && rec == nil:
		sb.Missing++
		return sb.Missing >= missingPolls
	}
	return false
}

func final(r *slurmcli.Record) bool {
	if r == nil {
		return false
	}
	switch r.Class() {
	case "succeeded", "failed", "cancelled":
		return true
	}
	return false
}

// follow returns the reports of one submission's news since the last poll.
func (c *Cluster) follow(sb *sub, rec *slurmcli.Record) []func(*core.Core) {
	var out []func(*core.Core)
	ref, id := sb.Ref, sb.ID
	lrmID := fmt.Sprint(id)
	switch {
	case sb.Cancel != "":
		return nil // the core gave it up: nothing it says matters
	case sb.Failed != "" && !sb.ReportedSubmit:
		sb.ReportedSubmit = true
		reason := sb.Failed
		return append(out, func(k *core.Core) { k.LRMFailed(ref, reason) })
	case id == 0:
		return nil // sbatch has not answered
	}
	if !sb.ReportedSubmit {
		sb.ReportedSubmit = true
		out = append(out, func(k *core.Core) { k.LRMSubmitted(ref, lrmID) })
	}
	if rec == nil {
		if sb.Missing++; sb.Missing >= missingPolls && !sb.ReportedEnd {
			sb.ReportedEnd = true
			c.kit.Logf("Slurm job %d (%s) left the controller's queue unseen", id, sb.Name)
			out = append(out, func(k *core.Core) {
				k.LRMEnded(ref, lrmID, false, "Slurm job "+lrmID+" left the controller's queue; its end is unknown", time.Now())
			})
		}
		return out
	}
	sb.Missing = 0
	class := rec.Class()
	if class == "queued" {
		return out
	}
	if !sb.ReportedStart && (class == "running" || rec.Start > 0) {
		sb.ReportedStart = true
		at := unix(rec.Start)
		c.kit.Logf("Slurm job %d (%s) started at %s", id, sb.Name, at.Format(time.RFC3339))
		out = append(out, func(k *core.Core) { k.LRMStarted(ref, lrmID, at) })
	}
	if final(rec) && !sb.ReportedEnd {
		sb.ReportedEnd = true
		ok := class == "succeeded"
		reason := ""
		if !ok {
			reason = describe(rec)
		}
		at := unix(rec.End)
		c.kit.Logf("Slurm job %d (%s) ended at %s: %s", id, sb.Name, at.Format(time.RFC3339), rec.State)
		out = append(out, func(k *core.Core) { k.LRMEnded(ref, lrmID, ok, reason, at) })
	}
	return out
}

func unix(s int64) time.Time {
	if s <= 0 {
		return time.Time{}
	}
	return time.Unix(s, 0)
}

// describe says how a Slurm job that did not succeed ended.
func describe(r *slurmcli.Record) string {
	msg := fmt.Sprintf("Slurm job %d %s", r.ID, r.State)
	switch {
	case r.Signal != 0:
		msg += fmt.Sprintf(" (signal %d)", r.Signal)
	case r.Exit != 0:
		msg += fmt.Sprintf(" (exit %d)", r.Exit)
	}
	if r.Reason != "" && r.Reason != "None" {
		msg += ": " + r.Reason
	}
	return msg
}
