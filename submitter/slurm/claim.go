package slurm

import (
	"context"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/gmark/gmark/internal/slurmcli"
	"github.com/gmark/gmark/record"
	"github.com/gmark/gmark/submitter"
	"github.com/gmark/gmark/submitter/target"
)

// Co-allocation without reservations, as KOALA does it (its claiming and
// its DUROC runner's barrier; the steps are submitter/target's Claim,
// which the grid middleware's targets share): the components of a job
// that cannot be one Slurm job are each claimed through their cluster's
// Slurm, as jobs whose script holds the processors it was given until a
// release file exists; the target polls squeue and, once every component
// has started, creates the file, and the application starts in every
// component at once (its processes then meet through the rendezvous). A
// component that has not started ClaimRetry after another component began
// holding is cancelled and claimed again while the others keep holding
// (KOALA's Incremental Claiming Policy keeps what it claimed), up to
// ClaimTries; then the job fails, naming the component, and the held
// components are cancelled.
//
// Everything the barrier needs outlives the submitter: the release file
// is in the work directory, and each try of a component is a Slurm job
// named after it (gmark-<job>.c<component>[.t<try>].a<attempt>-<run>), so a
// restarted submitter finds the held components by name (Find, Track),
// releases them or claims the missing ones again.

// releaseDir is the directory of the release files, in the work directory.
const releaseDir = "release"

// releasePath is the release file of submission s: one per job attempt.
func (t *Target) releasePath(s *submitter.Submission) string {
	return filepath.Join(t.cfg.WorkDir, releaseDir, s.Job.ID+".a"+strconv.Itoa(s.Attempt)+"-"+s.RunID)
}

// newJob makes the tracked job of s from its parts: a job of several parts
// is claimed component by component (released already when its release
// file exists).
func (t *Target) newJob(s *submitter.Submission, parts []*part) *sjob {
	sj := &sjob{sub: *s, parts: orderParts(parts)}
	if len(parts) > 1 {
		sj.claim = target.NewClaim(t.releasePath(s))
	}
	return sj
}

// clusterNodes is the number of nodes of cluster c's partition (its
// configured one, else the default), asked of sinfo once.
func (t *Target) clusterNodes(ctx context.Context, c *cluster) (int, error) {
	t.mu.Lock()
	n := c.nodes
	t.mu.Unlock()
	if n > 0 {
		return n, nil
	}
	out, err := t.run(ctx, c, "sinfo", "-h", "-o", slurmcli.NodesFormat)
	if err != nil {
		return 0, err
	}
	parts, err := slurmcli.ParseNodes(out)
	if err != nil {
		return 0, fmt.Errorf("cluster %s: %v", c.name, err)
	}
	n, ok := slurmcli.PartitionNodes(parts, c.partition)
	if !ok || n == 0 {
		what := "no default partition"
		if c.partition != "" {
			what = "no partition " + c.partition
		}
		return 0, fmt.Errorf("cluster %s: sinfo shows %s with nodes", c.name, what)
	}
	t.mu.Lock()
	c.nodes = n
	t.mu.Unlock()
	return n, nil
}

// hetFits reports whether cluster c can start a heterogeneous job of k
// components: Slurm's backfill scheduler, the only one that starts such
// jobs, needs a node of its own for each component before it starts any
// (even where the components would fit on one node). When it cannot, or
// its node count is unknown, the job is claimed component by component,
// and the first time this is said.
func (t *Target) hetFits(ctx context.Context, c *cluster, k int) bool {
	n, err := t.clusterNodes(ctx, c)
	if err == nil && n >= k {
		return true
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if err != nil {
		if !c.warned {
			c.warned = true
			t.annotateLocked(record.AnnotationTargetWarning, c.name, fmt.Sprintf("does not say how many nodes it has (%v): jobs of several components bound for it are claimed component by component, held until all have started", err))
		}
		return false
	}
	t.warnHet(c, n)
	return false
}

// warnHet says, once per cluster, that jobs of more than n components
// bound for cluster c are not heterogeneous jobs there. t.mu is held.
func (t *Target) warnHet(c *cluster, n int) {
	if c.warned {
		return
	}
	c.warned = true
	nodes := "1 node"
	if n != 1 {
		nodes = strconv.Itoa(n) + " nodes"
	}
	t.annotateLocked(record.AnnotationTargetWarning, c.name, fmt.Sprintf("has %s in its partition, and Slurm starts a heterogeneous job only when each component can have a node of its own: "+
		"a job of more components than that is claimed component by component instead (each a Slurm job holding its processors until all have started)", nodes))
}

// annotateLocked is annotate with t.mu held.
func (t *Target) annotateLocked(kind, key, value string) {
	if t.rep != nil {
		t.rep.Annotate(kind, key, value)
	}
}

// partStarted reports whether a part got its processors: it runs, or it
// ended after it started.
func partStarted(p *part) bool {
	return p.rec != nil && p.rec.Start > 0 && (p.class == "running" || (final(p.class) && p.rec.Nodes != ""))
}

// claimViews are the parts of sj as the claiming sees them: one that
// failed ended before the release; one that started is holding, whether
// it runs or, having succeeded, has ended (the CEs' target counts such a
// part ended).
func claimViews(sj *sjob) []target.ClaimView {
	views := make([]target.ClaimView, len(sj.parts))
	for i, p := range sj.parts {
		v := target.ClaimView{Part: &p.ClaimPart, State: target.Waiting, Final: final(p.class)}
		switch {
		case p.class == "cancelled":
			v.State = target.Cancelled
		case p.class == "lost":
			v.State, v.Lost = target.Lost, p.reason
		case p.class == "failed":
			v.State = target.Ended
		case partStarted(p):
			v.State = target.Holding
		}
		views[i] = v
	}
	return views
}

// claimStep advances the claiming of job sj (target.Claim.Step): it
// releases the components once every one has started, claims again a
// component that has not started ClaimRetry after another began holding
// (or that ended before the release), and gives up after ClaimTries. A
// component cancelled by someone else cancels the job. t.mu is held.
func (t *Target) claimStep(sj *sjob) {
	if sj.claim == nil || sj.cancelled {
		return
	}
	sj.claim.Step(time.Now(), t.cfg.ClaimRetry, claimViews(sj), target.ClaimSteps{
		CancelParts: func() { t.cancelParts(sj) },
		Again:       func(i int, why string) { t.claimAgain(sj, sj.parts[i], why) },
		Release:     func() { t.releaseJob(sj) },
		Ended:       func(i int) string { return partReason(sj.parts[i]) },
		Waiting: func(i int) string {
			if r := sj.parts[i].rec; r != nil && r.Reason != "" && r.Reason != "None" {
				return " (Slurm: " + r.State + ", " + r.Reason + ")"
			}
			return ""
		},
	})
}

// claimAgain cancels component p of sj and claims it again, or gives the
// job up when p had its last try. t.mu is held.
func (t *Target) claimAgain(sj *sjob, p *part, why string) {
	what := fmt.Sprintf("component %d (%s:%d, try %d of %d)", p.comp, p.c.name, p.id, p.try, t.cfg.ClaimTries)
	if !sj.claim.Again(&p.ClaimPart, p.try, t.cfg.ClaimTries, what, why) {
		return
	}
	t.annotateLocked(record.ClaimAnnotation("slurm"), sj.sub.Key, what+" "+why+": claimed again")
	t.bg.Add(1)
	go t.reclaim(sj, p)
}

// reclaim submits the next try of component old of sj, then cancels old
// (in this order, so a crash between the two leaves both, and Find or
// Track keep the newer). The new part replaces old in the job; if the job
// ended meanwhile, the new part is cancelled.
func (t *Target) reclaim(sj *sjob, old *part) {
	defer t.bg.Done()
	ctx := context.Background()
	np, _, err := t.submitPart(ctx, planned{c: old.c, comp: old.comp, hold: true}, &sj.sub, old.try+1)
	if err == nil {
		t.run(ctx, old.c, "scancel", strconv.FormatInt(old.id, 10))
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if !sj.claim.Claimed(&old.ClaimPart, old.comp, old.c.name, err, t.cfg.ClaimRetry, t.annotateLocked) {
		return // tried again at the next poll, or given up
	}
	if sj.cancelled || t.jobs[sj.sub.Key] != sj {
		t.scancelLater(np)
		return
	}
	for i, p := range sj.parts {
		if p == old {
			sj.parts[i] = np
		}
	}
	old.class = "cancelled"
	t.report(submitter.Update{Key: sj.sub.Key, State: submitter.Queued, Time: time.Now(), TargetID: targetID(sj.parts)})
}

// releaseJob creates the release file: every component has started, and
// its application starts. t.mu is held.
func (t *Target) releaseJob(sj *sjob) {
	if !sj.claim.ReleaseNow(time.Now()) {
		return
	}
	var first, last int64
	var ids []string
	for _, p := range sj.parts {
		if first == 0 || p.rec.Start < first {
			first = p.rec.Start
		}
		last = max(last, p.rec.Start)
		ids = append(ids, fmt.Sprintf("%s:%d", p.c.name, p.id))
	}
	t.annotateLocked(record.ClaimAnnotation("slurm"), sj.sub.Key, fmt.Sprintf("released %s: every component started (Slurm's start times %d s apart)", strings.Join(ids, ","), last-first))
}

// cancelParts cancels the parts of sj that have not ended: one was
// cancelled before the release, so the job is. t.mu is held.
func (t *Target) cancelParts(sj *sjob) {
	for _, p := range sj.parts {
		if !final(p.class) {
			t.scancelLater(p)
			p.class = "cancelled"
		}
	}
}

// claimState is the state of a job whose components are still being
// claimed, and the reason when it failed: failed when claiming gave up or
// a part was lost, cancelled when someone cancelled a part and every part
// has ended, queued otherwise.
func claimState(sj *sjob) (submitter.State, string) {
	failed, cancelled := sj.claim.Outcome(claimViews(sj))
	switch {
	case failed != "":
		return submitter.Failed, failed
	case cancelled:
		return submitter.Cancelled, ""
	}
	return submitter.Queued, ""
}
