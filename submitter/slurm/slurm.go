// Package slurm is the target for real Slurm clusters: jobs are submitted
// with `sbatch --parsable` using the sbatch printer's scripts, and their
// states and times are read from squeue, one call a cluster a poll for
// every job in its --Format columns (and, for jobs that have left squeue,
// from the filetxt job completion log).
//
// A target has one or more clusters, each reached through its own
// SLURM_CONF, named in the [slurm] section of a targets TOML file. A
// component that names a site goes to the cluster of that name; components
// that name none (*) go to the clusters in turn. A job whose components all
// go to one cluster is one Slurm job: a plain job, or a heterogeneous job
// when the cluster can start one (hetjob = true and its partition has a
// node per component). Otherwise, and for a job whose components go to
// several clusters (Slurm runs a heterogeneous job on one cluster), the
// components are co-allocated the way KOALA does without reservations
// (claim.go): each is claimed through its cluster's Slurm as a job of its
// own that holds its processors until a release file appears; once squeue
// says every component has started the target creates the file and the
// application starts everywhere at once. A component that has not started
// claim_retry after another began holding is cancelled and claimed again,
// up to claim_tries; then the job fails, naming it.
//
// Every Slurm job gmark submits is named
// gmark-<job id>[.c<component>[.t<try>]].a<attempt>-<run>, which makes the
// name its idempotency key: after a crash, Find and Track look the names up
// in squeue and the job completion log before anything is submitted again.
package slurm

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/gmark/gmark/apps/jobenv"
	"github.com/gmark/gmark/internal/slurmcli"
	"github.com/gmark/gmark/printers"
	"github.com/gmark/gmark/record"
	"github.com/gmark/gmark/submitter"
	"github.com/gmark/gmark/submitter/target"
	"github.com/gmark/gmark/workload"
)

// ClusterConfig is one cluster of the target.
type ClusterConfig struct {
	Name      string `toml:"name" json:"name"`
	Conf      string `toml:"conf" json:"conf"`                     // its slurm.conf (SLURM_CONF); "" = the environment's
	Partition string `toml:"partition" json:"partition,omitempty"` // --partition, if set
}

// Config is the [slurm] section of a targets file.
type Config struct {
	Clusters []ClusterConfig `toml:"clusters" json:"clusters"`
	// Poll is how often squeue is asked. Default 1s.
	Poll time.Duration `toml:"poll" json:"poll_ns"`
	// PollCPUFactor paces the polls by their cost: a poll whose squeue
	// took c of CPU is followed by the next no sooner than PollCPUFactor ×
	// c after it (and no later than MaxPollWait, or Poll when longer), as
	// squeue's cost grows with every job the controller keeps (pace.go).
	// Default 100 (polls take about 1% of a processor at most); 1 polls at
	// every Poll.
	PollCPUFactor int `toml:"poll_cpu_factor" json:"poll_cpu_factor"`
	// UnreachableAfter is how long a cluster may fail to answer before its
	// jobs are given up as lost (failed, with the reason). Default 2m.
	UnreachableAfter time.Duration `toml:"unreachable_after" json:"unreachable_after_ns"`
	// HetJob submits a multi-component job bound for one cluster as one
	// heterogeneous job when the cluster can start it (the default): Slurm
	// starts one only when each component can have a node of its own, so
	// a job of more components than the partition has nodes is claimed
	// component by component instead, as jobs spanning clusters are (said
	// once per cluster). false claims every such job component by
	// component.
	HetJob *bool `toml:"hetjob" json:"hetjob"`
	// ClaimRetry is how long a component of a co-allocated job may stay
	// pending while another component holds its processors before it is
	// cancelled and claimed again. Default 1m.
	ClaimRetry time.Duration `toml:"claim_retry" json:"claim_retry_ns"`
	// ClaimTries is how many times a component is claimed (the first time
	// included) before the job fails. Default 3.
	ClaimTries int `toml:"claim_tries" json:"claim_tries"`
	// WorkDir is where scripts are written and jobs run and write their
	// output; the batch hosts must see it at the same path. Default: the
	// run's directory.
	WorkDir string `toml:"workdir" json:"workdir"`
	// Executable is the gmark binary the jobs run. Default: this gmark.
	Executable string `toml:"executable" json:"executable"`
	// SbatchArgs are added to every sbatch command line.
	SbatchArgs []string `toml:"sbatch_args" json:"sbatch_args,omitempty"`
	// CommandTimeout bounds every Slurm command. Default 60s.
	CommandTimeout time.Duration `toml:"command_timeout" json:"command_timeout_ns"`
	// Dependencies says who waits for a composite job's dependencies:
	// "gmark" (the default: gmark's executor submits a task once its
	// predecessors have succeeded) or "slurm" (each task is submitted as
	// soon as its predecessors are, with --dependency=afterok on their job
	// ids and --kill-on-invalid-dep=yes, so that Slurm holds it and
	// cancels it when one fails).
	Dependencies string `toml:"dependencies" json:"dependencies,omitempty"`
}

// Target is the Slurm target.
type Target struct {
	cfg      Config
	clusters []*cluster
	byName   map[string]*cluster
	printer  printers.Printer
	pcfg     printers.Config

	mu   sync.Mutex
	rep  submitter.Reporter
	jobs map[string]*sjob   // tracked, by key
	memo map[string][]*part // parts of submissions not yet complete, by key
	rr   int
	// orphans are the sbatch commands a killed submitter left running.
	orphans target.Orphans
	polls   target.Pollers // one per cluster
	bg      sync.WaitGroup // scancel commands and new claiming tries under way

	// polled, when set (by tests, before Watch), is told of every poll
	// that asked squeue: its cluster, when it started, the CPU it cost.
	polled func(c *cluster, started time.Time, cpu time.Duration)
}

type cluster struct {
	name, conf, partition string
	env                   []string

	// Owned by the cluster's poller.
	reach      target.Reach
	lastStatus string
	pace       pacer

	mu           sync.Mutex // guards the job completion log's location and tail
	jobcomp      string
	jobcompKnown bool
	tail         compTail // what the poller has read of the log (jobcomp.go)

	// The nodes of its partition (0: not known yet) and whether the
	// fallback from heterogeneous jobs was said; guarded by Target.mu.
	nodes  int
	warned bool

	snapMu sync.Mutex // a recent squeue, for Track's look-ups by name
	snapAt time.Time
	snap   []slurmcli.Record
}

// part is one Slurm job: a whole gmark job, or one component of it.
type part struct {
	c         *cluster
	comp      int // -1: the whole job
	try       int // claiming try of a component, from 1
	id        int64
	name      string
	submitted time.Time
	rec       *slurmcli.Record
	het       []*slurmcli.Record // the other components of a heterogeneous job
	firstSub  int64              // Slurm's submit time when first seen (a requeue resets it)
	class     string             // queued, running, succeeded, failed, cancelled, lost
	reason    string
	missing   time.Time

	// Claiming (claim.go): since when it has waited while another
	// component held its processors, and whether a new try is under way.
	target.ClaimPart
}

type sjob struct {
	sub       submitter.Submission
	parts     []*part
	reported  submitter.State
	cancelled bool

	// The claiming of a job whose components are claimed one by one
	// (claim.go); nil for a job that is one Slurm job.
	claim *target.Claim
}

// New checks the configuration and returns the target.
func New(cfg Config) (*Target, error) {
	if len(cfg.Clusters) == 0 {
		cfg.Clusters = []ClusterConfig{{Name: "default", Conf: os.Getenv("SLURM_CONF")}}
	}
	if cfg.Poll <= 0 {
		cfg.Poll = time.Second
	}
	if cfg.UnreachableAfter <= 0 {
		cfg.UnreachableAfter = 2 * time.Minute
	}
	if cfg.PollCPUFactor <= 0 {
		cfg.PollCPUFactor = DefaultPollCPUFactor
	}
	if cfg.HetJob == nil {
		yes := true
		cfg.HetJob = &yes
	}
	if cfg.CommandTimeout <= 0 {
		cfg.CommandTimeout = time.Minute
	}
	if cfg.ClaimRetry <= 0 {
		cfg.ClaimRetry = target.DefaultClaimRetry
	}
	if cfg.ClaimTries <= 0 {
		cfg.ClaimTries = target.DefaultClaimTries
	}
	if err := cfg.Check(); err != nil {
		return nil, err
	}
	if cfg.Dependencies == "gmark" {
		cfg.Dependencies = ""
	}
	var err error
	if cfg.Executable, cfg.WorkDir, err = target.JobFiles("slurm", cfg.Executable, cfg.WorkDir, "scripts"); err != nil {
		return nil, err
	}
	if err := os.MkdirAll(filepath.Join(cfg.WorkDir, releaseDir), 0o755); err != nil {
		return nil, fmt.Errorf("slurm: %v", err)
	}
	p, err := printers.Lookup("sbatch")
	if err != nil {
		return nil, err
	}
	t := &Target{cfg: cfg, byName: map[string]*cluster{}, printer: p, jobs: map[string]*sjob{}, memo: map[string][]*part{},
		pcfg: printers.Config{Executable: cfg.Executable, WorkDir: cfg.WorkDir}}
	for _, cc := range cfg.Clusters {
		c := &cluster{name: cc.Name, conf: cc.Conf, partition: cc.Partition, env: os.Environ(),
			pace: pacer{poll: cfg.Poll, factor: cfg.PollCPUFactor}}
		if cc.Conf != "" {
			c.env = append(c.env, "SLURM_CONF="+cc.Conf)
		}
		t.clusters = append(t.clusters, c)
		t.byName[cc.Name] = c
	}
	return t, nil
}

// Check checks the configuration, writing nothing: its clusters each
// named once, and its slurm.conf there when it names one; who waits for
// dependencies.
func (cfg Config) Check() error {
	switch cfg.Dependencies {
	case "", "gmark", "slurm":
	default:
		return fmt.Errorf("slurm: dependencies = %q: gmark or slurm", cfg.Dependencies)
	}
	clusters := cfg.Clusters
	if len(clusters) == 0 { // New's default
		clusters = []ClusterConfig{{Name: "default", Conf: os.Getenv("SLURM_CONF")}}
	}
	seen := map[string]bool{}
	for _, cc := range clusters {
		if cc.Name == "" {
			return errors.New("slurm: a cluster has no name")
		}
		if seen[cc.Name] {
			return fmt.Errorf("slurm: cluster %s is named twice", cc.Name)
		}
		seen[cc.Name] = true
		if cc.Conf != "" {
			if _, err := os.Stat(cc.Conf); err != nil {
				return fmt.Errorf("slurm: cluster %s: %v", cc.Name, err)
			}
		}
	}
	return nil
}

// Config is the configuration in use, for provenance.
func (t *Target) Config() Config { return t.cfg }

func (t *Target) Name() string { return "slurm" }
func (t *Target) Caps() submitter.Caps {
	return submitter.Caps{Find: true, Cancel: true, CoAllocates: true, Dependencies: t.cfg.Dependencies == "slurm"}
}

// Watch checks that the Slurm commands exist and that every cluster can be
// used (preflight: how many nodes its partition has, which also tells
// whether it can start heterogeneous jobs), and starts one poller per
// cluster.
func (t *Target) Watch(ctx context.Context, r submitter.Reporter) error {
	for _, name := range []string{"sbatch", "squeue", "scancel", "scontrol", "sinfo"} {
		if _, err := exec.LookPath(name); err != nil {
			return fmt.Errorf("%s not found: is Slurm installed (apt-get install slurm-client)?", name)
		}
	}
	t.mu.Lock()
	t.rep = r
	t.mu.Unlock()
	for _, c := range t.clusters {
		n, err := t.preflight(ctx, c)
		if ce := (*target.CommandError)(nil); errors.As(err, &ce) {
			return fmt.Errorf("cluster %s cannot be used: %w", c.name, err)
		}
		// A partition sinfo does not show is asked again when a job
		// needs to know.
		if err == nil && *t.cfg.HetJob && n < 2 {
			t.mu.Lock()
			t.warnHet(c, n)
			t.mu.Unlock()
		}
	}
	for _, c := range t.clusters {
		t.skipOldLog(ctx, c)
		t.polls.Go(ctx, t.cfg.Poll, func(ctx context.Context) { t.poll(ctx, c) })
	}
	return nil
}

// preflight asks cluster c how many nodes its partition has before
// anything is submitted, again while it answers "not now" (a controller
// restarting), for up to UnreachableAfter: a cluster whose commands fail
// (no controller answers, no configuration) fails the run at its start,
// rather than every one of its jobs over the run's span.
func (t *Target) preflight(ctx context.Context, c *cluster) (int, error) {
	deadline := time.Now().Add(t.cfg.UnreachableAfter)
	wait := time.Second
	for {
		n, err := t.clusterNodes(ctx, c)
		if err == nil || !target.IsTransient(err) || time.Now().Add(wait).After(deadline) {
			return n, err
		}
		select {
		case <-ctx.Done():
			return 0, err
		case <-time.After(wait):
		}
		wait = min(2*wait, 15*time.Second)
	}
}

// run runs a Slurm command against a cluster.
func (t *Target) run(ctx context.Context, c *cluster, name string, args ...string) ([]byte, error) {
	return target.Command{Timeout: t.cfg.CommandTimeout, Env: c.env, TransientMessages: slurmcli.TransientMessages}.Run(ctx, name, args...)
}

// planned is where one part of a job goes.
type planned struct {
	c    *cluster
	comp int  // -1: the whole job
	hold bool // a component claimed on its own: it holds until released
}

// plan decides where a job's components go: the whole job to one cluster
// (a plain or heterogeneous job), or each component claimed on its own.
func (t *Target) plan(ctx context.Context, j *workload.Job) ([]planned, error) {
	dest := make([]*cluster, len(j.Components))
	var named *cluster
	sameNamed := true
	for i, comp := range j.Components {
		if comp.Site == workload.AnySite || comp.Site == "" {
			continue
		}
		c := t.byName[comp.Site]
		if c == nil {
			if len(t.clusters) == 1 && t.clusters[0].name == "default" {
				c = t.clusters[0] // one unnamed cluster takes every site
			} else {
				return nil, fmt.Errorf("job %s asks for site %q, but the targets file names no such cluster (clusters: %s)", j.ID, comp.Site, t.names())
			}
		}
		dest[i] = c
		if named == nil {
			named = c
		} else if named != c {
			sameNamed = false
		}
	}
	t.mu.Lock()
	next := func() *cluster {
		c := t.clusters[t.rr%len(t.clusters)]
		t.rr++
		return c
	}
	whole := named
	if len(j.Components) == 1 || (sameNamed && *t.cfg.HetJob) {
		if whole == nil {
			whole = next()
		}
	} else {
		whole = nil
	}
	out := make([]planned, len(j.Components))
	for i := range j.Components {
		c := dest[i]
		if c == nil {
			c = next()
		}
		out[i] = planned{c: c, comp: i, hold: true}
	}
	t.mu.Unlock()
	if whole == nil {
		return out, nil
	}
	// One Slurm job, unless it would be a heterogeneous job the cluster
	// cannot start: then its components are claimed there one by one.
	if len(j.Components) == 1 || plainJob(j) || t.hetFits(ctx, whole, len(j.Components)) {
		return []planned{{c: whole, comp: -1}}, nil
	}
	for i := range out {
		out[i].c = whole
	}
	return out, nil
}

// plainJob reports whether the sbatch printer makes job j a plain job of
// its total processors: every component names the same site.
func plainJob(j *workload.Job) bool {
	for _, c := range j.Components {
		if c.Site == workload.AnySite || c.Site == "" || c.Site != j.Components[0].Site {
			return false
		}
	}
	return true
}

func (t *Target) names() string {
	var n []string
	for _, c := range t.clusters {
		n = append(n, c.name)
	}
	return strings.Join(n, ", ")
}

// partsOf names the Slurm jobs of submission s: the whole job's (a plain
// or heterogeneous job) or each component's at each claiming try, every
// name an idempotency key.
func partsOf(s *submitter.Submission) target.PartsOf {
	return target.PartsOf{Job: s.Job.ID, Attempt: s.Attempt, Run: s.RunID, Components: len(s.Job.Components)}
}

// Submit submits the job's parts that are not yet submitted.
func (t *Target) Submit(ctx context.Context, s *submitter.Submission) (submitter.Receipt, error) {
	plan, err := t.plan(ctx, s.Job)
	if err != nil {
		return submitter.Receipt{}, err
	}
	t.mu.Lock()
	have := t.memo[s.Key]
	t.mu.Unlock()
	done := map[int]*part{}
	for _, p := range have {
		done[p.comp] = p
	}
	var outputs []string
	for _, pl := range plan {
		if p := done[pl.comp]; p != nil {
			continue
		}
		p, out, err := t.submitPart(ctx, pl, s, 1)
		if out != "" {
			outputs = append(outputs, out)
		}
		if err != nil {
			if target.IsTransient(err) {
				return submitter.Receipt{Output: strings.Join(outputs, "\n")}, err
			}
			// Give up: cancel the parts that went in.
			t.mu.Lock()
			parts := t.memo[s.Key]
			delete(t.memo, s.Key)
			t.mu.Unlock()
			for _, p := range parts {
				t.run(context.WithoutCancel(ctx), p.c, "scancel", strconv.FormatInt(p.id, 10))
			}
			return submitter.Receipt{Output: strings.Join(outputs, "\n")}, err
		}
		t.mu.Lock()
		t.memo[s.Key] = append(t.memo[s.Key], p)
		t.mu.Unlock()
	}
	t.mu.Lock()
	parts := t.memo[s.Key]
	delete(t.memo, s.Key)
	sj := t.newJob(s, parts)
	t.jobs[s.Key] = sj
	t.report(submitter.Update{Key: s.Key, State: submitter.Queued, Time: time.Now()})
	t.mu.Unlock()
	zero := 0
	return submitter.Receipt{TargetID: targetID(sj.parts), Output: strings.Join(outputs, "\n"), ExitStatus: &zero, Sites: sites(sj.parts)}, nil
}

func orderParts(parts []*part) []*part {
	return target.ByComponent(parts, func(p *part) int { return p.comp })
}

// targetID is "cluster:id" per part, comma-separated in component order.
func targetID(parts []*part) string {
	return target.JoinTargetID(parts, func(p *part) (string, string) { return p.c.name, strconv.FormatInt(p.id, 10) })
}

func sites(parts []*part) []string {
	return target.Sites(parts, func(p *part) string { return p.c.name })
}

// submitPart prints the script of a job or component (at claiming try
// try) and sbatches it.
func (t *Target) submitPart(ctx context.Context, pl planned, s *submitter.Submission, try int) (*part, string, error) {
	j := *s.Job
	comment := "gmark:" + j.ID
	pcfg := t.pcfg
	if pl.comp >= 0 {
		j.Components = []workload.Component{s.Job.Components[pl.comp]}
		comment += "." + strconv.Itoa(pl.comp)
	}
	if pl.hold {
		pcfg.HoldUntil = t.releasePath(s)
		if j.WallTime > 0 {
			j.WallTime += target.HoldBudget(t.cfg.ClaimTries, t.cfg.ClaimRetry)
		}
	}
	var buf bytes.Buffer
	if err := t.printer.Print(&buf, &j, pcfg); err != nil {
		return nil, "", err
	}
	script := stripClusters(buf.Bytes())
	suffix := partsOf(s).Suffix(pl.comp, try)
	path := filepath.Join(t.cfg.WorkDir, "scripts", suffix+".sbatch")
	if err := os.WriteFile(path, script, 0o644); err != nil {
		return nil, "", err
	}
	name := partsOf(s).Name(pl.comp, try)
	args := []string{"--parsable", "--comment=" + comment, "--job-name=" + name,
		"--output=" + suffix + ".out", "--error=" + suffix + ".err"}
	if pl.comp >= 0 {
		args = append(args, "--export="+componentEnv(s.Job, pl.comp))
	}
	if pl.c.partition != "" {
		args = append(args, "--partition="+pl.c.partition)
	}
	if len(s.After) > 0 {
		dep, err := afterOK(pl.c.name, s.After)
		if err != nil {
			return nil, "", err
		}
		args = append(args, dep, "--kill-on-invalid-dep=yes")
	}
	args = append(args, t.cfg.SbatchArgs...)
	args = append(args, path)
	now := time.Now()
	out, err := t.run(ctx, pl.c, "sbatch", args...)
	text := strings.TrimSpace(string(out))
	if err != nil && outcomeOpen(err) {
		if p := t.settle(ctx, pl.c, s, name, now); p != nil {
			p.submitted = now
			return p, fmt.Sprintf("%s: job %d, found by its name after: %v", pl.c.name, p.id, err), nil
		}
	}
	if err != nil {
		if pl.comp >= 0 {
			err = fmt.Errorf("component %d on %s: %w", pl.comp, pl.c.name, err)
		}
		return nil, text, err
	}
	idText, _, _ := strings.Cut(strings.SplitN(text, "\n", 2)[0], ";")
	id, perr := strconv.ParseInt(strings.TrimSpace(idText), 10, 64)
	if perr != nil {
		return nil, text, fmt.Errorf("sbatch on %s printed %q, not a job id", pl.c.name, text)
	}
	return &part{c: pl.c, comp: pl.comp, try: try, id: id, name: name, submitted: now, class: "queued"}, pl.c.name + ": " + text, nil
}

// afterOK is the --dependency option of a task that waits for the jobs
// after (target ids, "cluster:id" per part, comma-separated) on cluster
// c: a Slurm dependency names jobs of its own cluster.
func afterOK(c string, after []string) (string, error) {
	ids := []string{}
	for _, tid := range after {
		for _, p := range strings.Split(tid, ",") {
			name, id, ok := strings.Cut(p, ":")
			if !ok || name != c {
				return "", fmt.Errorf("a dependency on job %s, not of cluster %s: Slurm's dependencies name jobs of one cluster (dependencies = \"gmark\" waits across clusters)", p, c)
			}
			ids = append(ids, id)
		}
	}
	return "--dependency=afterok:" + strings.Join(ids, ":"), nil
}

// componentEnv is the environment sbatch gives component comp of job j
// (--export): its index, the global rank of its first process (the
// processors of the components before it) and the job's size, all
// components together. Each process's rank within the component comes
// from srun (SLURM_PROCID): apps/jobenv adds the two.
func componentEnv(j *workload.Job, comp int) string {
	base := 0
	for _, c := range j.Components[:comp] {
		base += c.Count
	}
	return "ALL," + jobenv.Component + "=" + strconv.Itoa(comp) + "," + jobenv.RankBase + "=" + strconv.Itoa(base) +
		"," + jobenv.Size + "=" + strconv.Itoa(j.Processors())
}

// stripClusters removes the printer's --clusters directive: here the
// cluster is chosen by SLURM_CONF, and --clusters needs slurmdbd.
func stripClusters(script []byte) []byte {
	var out []byte
	for _, line := range bytes.SplitAfter(script, []byte("\n")) {
		if bytes.HasPrefix(line, []byte("#SBATCH --clusters=")) {
			continue
		}
		out = append(out, line...)
	}
	return out
}

func (t *Target) report(u submitter.Update) {
	if t.rep != nil {
		t.rep.Report(u)
	}
}

func (t *Target) annotate(kind, key, value string) {
	t.mu.Lock()
	rep := t.rep
	t.mu.Unlock()
	if rep != nil {
		rep.Annotate(kind, key, value)
	}
}

// Cancel scancels every part of the job still in Slurm.
func (t *Target) Cancel(ctx context.Context, s *submitter.Submission) error {
	t.mu.Lock()
	sj := t.jobs[s.Key]
	var parts []*part
	if sj != nil {
		sj.cancelled = true
		for _, p := range sj.parts {
			if !final(p.class) {
				parts = append(parts, p)
			}
		}
	}
	t.mu.Unlock()
	var errs []error
	for _, p := range parts {
		if _, err := t.run(ctx, p.c, "scancel", strconv.FormatInt(p.id, 10)); err != nil {
			errs = append(errs, fmt.Errorf("%s:%d: %w", p.c.name, p.id, err))
		}
	}
	return errors.Join(errs...)
}

func final(class string) bool {
	return class == "succeeded" || class == "failed" || class == "cancelled" || class == "lost"
}

// Find looks for the parts of a submission by their names, in squeue and
// the job completion log of every cluster (the latest claiming try of each
// component; older tries still pending are cancelled). It reports found
// only when every part is there; the parts of a partial submission are
// remembered, so Submit sends only the missing ones.
func (t *Target) Find(ctx context.Context, s *submitter.Submission) (submitter.Receipt, bool, error) {
	// An sbatch of this submission that a killed submitter left running
	// may still be submitting it: wait for it, then look.
	for _, name := range partsOf(s).Names(t.cfg.ClaimTries) {
		if err := t.orphans.Wait(ctx, name, t.cfg.CommandTimeout); err != nil {
			return submitter.Receipt{}, false, err
		}
	}
	var found []*part
	for _, c := range t.clusters {
		parts, err := t.partsOf(ctx, c, s, false)
		if err != nil {
			return submitter.Receipt{}, false, err
		}
		found = append(found, parts...)
	}
	found = t.latestTries(found)
	if len(found) == 0 {
		return submitter.Receipt{}, false, nil
	}
	complete := false
	for _, p := range found {
		if p.comp == -1 {
			found, complete = []*part{p}, true
			break
		}
	}
	if !complete && len(found) == len(s.Job.Components) {
		complete = true
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if !complete {
		t.memo[s.Key] = found
		return submitter.Receipt{}, false, nil
	}
	sj := t.newJob(s, found)
	t.jobs[s.Key] = sj
	zero := 0
	return submitter.Receipt{TargetID: targetID(sj.parts), Output: "found in Slurm by job name", ExitStatus: &zero, Sites: sites(sj.parts)}, true, nil
}

// partsOf finds the Slurm jobs of cluster c that are parts of s (by name),
// in squeue (a snapshot up to a second old when recent is true) and the
// job completion log. Each part carries the record it was found by.
func (t *Target) partsOf(ctx context.Context, c *cluster, s *submitter.Submission, recent bool) ([]*part, error) {
	return t.partsMatching(ctx, c, recent, partsOf(s).Parse)
}

func (t *Target) partsMatching(ctx context.Context, c *cluster, recent bool, match func(string) (comp, try int, ok bool)) ([]*part, error) {
	var recs []slurmcli.Record
	var err error
	if recent {
		recs, err = t.squeueSnapshot(ctx, c)
	} else {
		recs, err = t.squeue(ctx, c)
	}
	if err != nil {
		return nil, err
	}
	if comp, ok := t.jobComp(ctx, c); ok {
		recs = append(recs, comp...)
	}
	var found []*part
	seen := map[int64]bool{}
	for i := range recs {
		r := recs[i]
		comp, try, ok := match(r.Name)
		if !ok || seen[r.ID] || (r.HetJobID != 0 && r.HetOff != 0) {
			continue
		}
		seen[r.ID] = true
		found = append(found, &part{c: c, comp: comp, try: try, id: r.ID, name: r.Name, submitted: time.Unix(r.Submit, 0),
			class: "queued", rec: &r})
	}
	return found, nil
}

// squeueSnapshot is the cluster's squeue, asked at most once a second: a
// resumed run tracks many jobs at once.
func (t *Target) squeueSnapshot(ctx context.Context, c *cluster) ([]slurmcli.Record, error) {
	c.snapMu.Lock()
	defer c.snapMu.Unlock()
	if time.Since(c.snapAt) < time.Second {
		return c.snap, nil
	}
	recs, err := t.squeue(ctx, c)
	if err != nil {
		return nil, err
	}
	c.snap, c.snapAt = recs, time.Now()
	return recs, nil
}

// latestTries keeps, of the parts found, the latest claiming try of each
// component (or the whole job), and cancels the older tries that have not
// ended: a submitter killed while it claimed a component again may have
// left both.
func (t *Target) latestTries(found []*part) []*part {
	latest, older := target.LatestTries(found, func(p *part) int { return p.comp },
		func(p, q *part) bool { return p.try > q.try || (p.try == q.try && p.id > q.id) })
	for _, p := range older {
		if p.rec != nil && !final(p.rec.Class()) {
			t.scancelLater(p)
		}
	}
	return latest
}

// SubmitSettle is how long the target looks for a job by its name after an
// sbatch that failed in a way that leaves the outcome open (it timed out,
// the connection broke): the controller may have received the request and
// create the job a moment later, and submitting it again would run it
// twice. Twice Slurm's default MessageTimeout.
const SubmitSettle = 20 * time.Second

// outcomeOpen reports whether a failed sbatch may have reached the
// controller: a timeout or a broken connection, not a refused one.
func outcomeOpen(err error) bool {
	msg := err.Error()
	for _, m := range []string{"timed out", "Zero Bytes were transmitted", "Connection reset"} {
		if strings.Contains(msg, m) {
			return true
		}
	}
	return false
}

// settle looks for the job named name (a part of s) on c until it appears
// or SubmitSettle has passed since the sbatch (nil then).
func (t *Target) settle(ctx context.Context, c *cluster, s *submitter.Submission, name string, since time.Time) *part {
	tick := time.NewTicker(500 * time.Millisecond)
	defer tick.Stop()
	match := func(n string) (int, int, bool) {
		if n != name {
			return 0, 0, false
		}
		return partsOf(s).Parse(n)
	}
	for {
		if parts, err := t.partsMatching(ctx, c, false, match); err == nil && len(parts) > 0 {
			return parts[0]
		}
		if time.Since(since) > SubmitSettle {
			return nil
		}
		select {
		case <-tick.C:
		case <-ctx.Done():
			return nil
		}
	}
}

// Track resumes tracking a job from its target id ("alpha:12,beta:7"). The
// parts of a job claimed component by component are looked up by name on
// their clusters, since a component claimed again since the id was
// recorded is another Slurm job.
func (t *Target) Track(ctx context.Context, s *submitter.Submission, r submitter.Receipt) error {
	var parts []*part
	entries, ok := target.SplitTargetID(r.TargetID)
	for _, e := range entries {
		c := t.byName[e.Site]
		id, err := strconv.ParseInt(e.ID, 10, 64)
		if c == nil || err != nil {
			ok = false
			break
		}
		parts = append(parts, &part{c: c, comp: e.Comp, try: 1, id: id, name: partsOf(s).Name(e.Comp, 1), class: "queued"})
	}
	if !ok {
		return fmt.Errorf("target id %q: not a job of this target's clusters (%s)", r.TargetID, t.names())
	}
	if len(parts) > 1 {
		var err error
		if parts, err = t.rediscover(ctx, s, parts); err != nil {
			return target.Transient(err)
		}
	}
	t.mu.Lock()
	t.jobs[s.Key] = t.newJob(s, parts)
	t.mu.Unlock()
	return nil
}

// rediscover replaces each component of parts by its latest claiming try
// that Slurm knows by name on the component's cluster.
func (t *Target) rediscover(ctx context.Context, s *submitter.Submission, parts []*part) ([]*part, error) {
	var found []*part
	asked := map[*cluster]bool{}
	for _, p := range parts {
		if asked[p.c] {
			continue
		}
		asked[p.c] = true
		got, err := t.partsOf(ctx, p.c, s, true)
		if err != nil {
			return nil, err
		}
		found = append(found, got...)
	}
	byComp := map[int]*part{}
	for _, p := range t.latestTries(found) {
		if p.comp >= 0 {
			byComp[p.comp] = p
		}
	}
	out := make([]*part, len(parts))
	for i, p := range parts {
		out[i] = p
		if q := byComp[p.comp]; q != nil && q.try >= p.try {
			q.rec = nil // the poller reads its state afresh
			out[i] = q
		}
	}
	return out, nil
}

// Close stops the pollers and waits for the scancel commands and claiming
// tries under way.
func (t *Target) Close() error {
	t.polls.Close()
	t.bg.Wait()
	return nil
}

// scancelLater cancels part p in the background (Close waits for it).
func (t *Target) scancelLater(p *part) {
	t.bg.Add(1)
	go func() {
		defer t.bg.Done()
		t.run(context.Background(), p.c, "scancel", strconv.FormatInt(p.id, 10))
	}()
}

// squeue lists every job the cluster still keeps, in every state, in one
// call in squeue's --Format (slurmcli.SqueueFormat): squeue --json costs
// 10 to 20 times the CPU for the same jobs, in squeue and in decoding it.
// squeue prints times in its time zone, here UTC, which has no hour that
// comes twice.
func (t *Target) squeue(ctx context.Context, c *cluster, sel ...string) ([]slurmcli.Record, error) {
	return t.squeueCost(ctx, c, nil, sel...)
}

// squeueCost is squeue that adds the CPU time it took to *cpu (when not
// nil).
func (t *Target) squeueCost(ctx context.Context, c *cluster, cpu *time.Duration, sel ...string) ([]slurmcli.Record, error) {
	var used time.Duration
	cmd := target.Command{Timeout: t.cfg.CommandTimeout, Env: append(c.env[:len(c.env):len(c.env)], "TZ=UTC"),
		TransientMessages: slurmcli.TransientMessages, CPU: &used}
	if cpu != nil {
		defer func() { *cpu += used }()
	}
	if len(sel) == 0 {
		sel = []string{"-t", "all"}
	}
	out, err := cmd.Run(ctx, "squeue", append(append([]string{"-h", "-a"}, sel...), "-O", slurmcli.SqueueFormat)...)
	if err != nil {
		return nil, err
	}
	recs, err := slurmcli.ParseSqueueFormat(out, time.UTC)
	if err != nil {
		return nil, target.Transient(err)
	}
	return recs, nil
}

// jobComp reads the cluster's job completion log, when it is a local text
// file, whole (Find's look-ups by name; the poller reads it on from where
// it stopped, jobCompTail).
func (t *Target) jobComp(ctx context.Context, c *cluster) ([]slurmcli.Record, bool) {
	path, ok := t.jobCompPath(ctx, c)
	if !ok {
		return nil, false
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, false
	}
	defer f.Close()
	recs, _ := slurmcli.ParseJobComp(f, time.Local)
	return recs, true
}

// poll asks cluster c for the state of the parts of jobs it runs, and
// reports the jobs whose state changed; it skips the ticks its pacer says
// are too soon after the last poll. A cluster without a job completion log
// is polled at every tick: a job that left its list (MinJobAge) before a
// poll saw it end would be lost, and a paced wait grows at load past a
// short MinJobAge (TestLiveJobsLeaveTheList, without one, lost 12 of 13
// jobs at load 50).
func (t *Target) poll(ctx context.Context, c *cluster) {
	started := time.Now()
	if _, logged := t.jobCompPath(ctx, c); logged && !c.pace.due(started) {
		return
	}
	mine := t.partsOn(c)
	if len(mine) == 0 {
		return
	}
	var cpu time.Duration
	defer func() {
		c.pace.done(started, cpu)
		if t.polled != nil {
			t.polled(c, started, cpu)
		}
	}()
	// Only the jobs not final: a list of every job the controller keeps
	// grows with the jobs it has run (MinJobAge), and so did the cost of
	// every poll; the parts that left it are looked up in the job
	// completion log, read on from where the last poll stopped, and the
	// others by their ids (matchParts).
	recs, err := t.squeueCost(ctx, c, &cpu, "-t", activeStates)
	if err != nil {
		t.squeueFailed(c, mine, started, err)
		return
	}
	c.reach.Answered(c.name, t.annotate)
	byID, het := t.clusterStatus(c, recs)
	t.mu.Lock()
	defer t.mu.Unlock()
	t.matchParts(ctx, c, mine, byID, het, started, &cpu)
	t.aggregateAll()
}

// partsOn lists the parts on cluster c that are not final.
func (t *Target) partsOn(c *cluster) []*part {
	t.mu.Lock()
	defer t.mu.Unlock()
	var mine []*part
	for _, sj := range t.jobs {
		for _, p := range sj.parts {
			if p.c == c && !final(p.class) {
				mine = append(mine, p)
			}
		}
	}
	return mine
}

// squeueFailed notes that cluster c did not answer (at started); once it
// has not answered for UnreachableAfter its parts are lost.
func (t *Target) squeueFailed(c *cluster, mine []*part, started time.Time, err error) {
	if down := c.reach.Failed(c.name, started, err, t.annotate); down > t.cfg.UnreachableAfter {
		reason := fmt.Sprintf("lost: cluster %s unreachable for %s: %v", c.name, down.Round(time.Second), err)
		t.mu.Lock()
		for _, p := range mine {
			p.class, p.reason = "lost", reason
		}
		t.aggregateAll()
		t.mu.Unlock()
	}
}

// clusterStatus annotates the cluster's pending and running counts when
// they change, and indexes squeue's records by job id (a heterogeneous job
// by its leader, with its other components).
func (t *Target) clusterStatus(c *cluster, recs []slurmcli.Record) (map[int64]*slurmcli.Record, map[int64][]*slurmcli.Record) {
	pending, running := 0, 0
	for i := range recs {
		switch recs[i].Class() {
		case "queued":
			pending++
		case "running":
			running++
		}
	}
	if status := fmt.Sprintf("pending=%d running=%d", pending, running); status != c.lastStatus {
		c.lastStatus = status
		t.annotate(record.AnnotationClusterStatus, c.name, status)
	}
	return indexRecords(recs)
}

// indexRecords indexes squeue's records by job id (a heterogeneous job by
// its leader, with its other components).
func indexRecords(recs []slurmcli.Record) (map[int64]*slurmcli.Record, map[int64][]*slurmcli.Record) {
	byID := make(map[int64]*slurmcli.Record, len(recs))
	het := map[int64][]*slurmcli.Record{}
	for i := range recs {
		r := &recs[i]
		if r.HetJobID != 0 && r.HetOff != 0 {
			het[r.HetJobID] = append(het[r.HetJobID], r) // a heterogeneous job is followed by its leader
			continue
		}
		byID[r.ID] = r
	}
	return byID, het
}

// matchParts gives each part its record: the record of squeue's list of
// jobs not final; for a part that left it, the job completion log's (read
// on from where the last poll stopped), or else squeue's of the job by its
// id (one squeue for all such parts); a part in none for UnreachableAfter
// is lost. t.mu is held (and released while the log and squeue are read).
// The CPU time of that squeue is added to *cpu.
func (t *Target) matchParts(ctx context.Context, c *cluster, mine []*part, byID map[int64]*slurmcli.Record, het map[int64][]*slurmcli.Record, started time.Time, cpu *time.Duration) {
	var gone []*part
	for _, p := range mine {
		if r := byID[p.id]; r != nil {
			p.setRecord(r, het[r.ID])
			continue
		}
		if p.submitted.Before(started) { // else submitted after squeue answered
			gone = append(gone, p)
		}
	}
	if len(gone) == 0 {
		return
	}
	ours := make(map[int64]bool, len(mine))
	for _, p := range mine {
		ours[p.id] = true
	}
	t.mu.Unlock()
	comp, hetComp := t.jobCompTail(ctx, c, ours)
	var ids []string
	for _, p := range gone {
		if r := comp[p.id]; r == nil || r.Name != p.name {
			ids = append(ids, strconv.FormatInt(p.id, 10))
		}
	}
	var left map[int64]*slurmcli.Record
	var leftHet map[int64][]*slurmcli.Record
	if len(ids) > 0 {
		recs, _ := t.squeueCost(ctx, c, cpu, "-t", "all", "-j", strings.Join(ids, ","))
		left, leftHet = indexRecords(recs)
	}
	t.mu.Lock()
	for _, p := range gone {
		if r := comp[p.id]; r != nil && r.Name == p.name {
			p.setRecord(r, hetComp[r.ID])
			c.tail.forget(p.id)
			continue
		}
		if r := left[p.id]; r != nil && r.Name == p.name {
			p.setRecord(r, leftHet[r.ID])
			if final(p.class) {
				c.tail.forget(p.id)
			}
			continue
		}
		if p.missing.IsZero() {
			p.missing = time.Now()
		} else if time.Since(p.missing) > t.cfg.UnreachableAfter {
			p.class, p.reason = "lost", fmt.Sprintf("lost: job %d left squeue and is not in the job completion log", p.id)
		}
	}
}

// setRecord takes what a record says of the part (het: the other
// components of a heterogeneous job it leads).
func (p *part) setRecord(r *slurmcli.Record, het []*slurmcli.Record) {
	p.rec, p.class, p.missing = r, r.Class(), time.Time{}
	if r.HetJobID == r.ID {
		p.het = het
	}
	if p.firstSub == 0 {
		p.firstSub = r.Submit
	}
}

// aggregateAll reports the jobs whose state changed. t.mu is held.
func (t *Target) aggregateAll() {
	for key, sj := range t.jobs {
		if t.aggregate(sj) {
			delete(t.jobs, key)
		}
	}
}

// partsState is what the parts of a job say together.
type partsState struct {
	allFinal, allStarted, anyFailed, anyCancelled bool
	failReason                                    string // the first failed part's
	startMax, endMax, submitMin                   int64  // Unix seconds
	exit                                          *int   // the first non-zero, else 0; nil unknown
}

// combineParts sums up the parts of a job.
func combineParts(parts []*part) partsState {
	ps := partsState{allFinal: true, allStarted: true}
	for _, p := range parts {
		if p.firstSub != 0 && (ps.submitMin == 0 || p.firstSub < ps.submitMin) {
			ps.submitMin = p.firstSub
		}
		switch p.class {
		case "failed", "lost":
			ps.anyFailed = true
			if ps.failReason == "" {
				ps.failReason = partReason(p)
			}
		case "cancelled":
			ps.anyCancelled = true
		}
		if !final(p.class) {
			ps.allFinal = false
		}
		started := p.rec != nil && p.rec.Start > 0 && (p.class == "running" || (final(p.class) && p.rec.Nodes != ""))
		if !started {
			ps.allStarted = false
		} else if p.rec.Start > ps.startMax {
			ps.startMax = p.rec.Start
		}
		if p.rec != nil && final(p.class) && p.rec.End > ps.endMax {
			ps.endMax = p.rec.End
		}
		if p.rec != nil && final(p.class) && p.class != "lost" {
			e := p.rec.Exit
			if p.rec.Signal != 0 {
				e = 128 + p.rec.Signal
			}
			if ps.exit == nil || (*ps.exit == 0 && e != 0) {
				ps.exit = &e
			}
		}
	}
	return ps
}

// state is the job's state: failed when a part failed, cancelled or
// succeeded when every part is final, running when every part started.
func (ps partsState) state() submitter.State {
	switch {
	case ps.anyFailed:
		return submitter.Failed
	case ps.allFinal && ps.anyCancelled:
		return submitter.Cancelled
	case ps.allFinal:
		return submitter.Succeeded
	case ps.allStarted:
		return submitter.Running
	}
	return submitter.Queued
}

// aggregate combines a job's parts into its state and reports a change; it
// returns true once the job is final.
func (t *Target) aggregate(sj *sjob) bool {
	claiming := sj.claim != nil && !sj.claim.Released
	if claiming {
		t.claimStep(sj)
		claiming = !sj.claim.Released
	}
	ps := combineParts(sj.parts)
	st := ps.state()
	if claiming {
		var reason string
		if st, reason = claimState(sj); reason != "" {
			ps.failReason = reason
		}
	}
	if st == sj.reported {
		return false
	}
	if st == submitter.Queued && sj.reported == submitter.Running {
		return false // a requeued job: keep it running
	}
	sj.reported = st
	u := submitter.Update{Key: sj.sub.Key, State: st, Time: time.Now(), Sites: sites(sj.parts)}
	if sj.claim != nil {
		u.TargetID = targetID(sj.parts) // a component claimed again is another Slurm job
	}
	if ps.submitMin != 0 {
		u.Submitted = time.Unix(ps.submitMin, 0)
	}
	if ps.allStarted && ps.startMax > 0 {
		u.Start = time.Unix(ps.startMax, 0)
	}
	if st.Final() {
		if ps.endMax > 0 {
			u.End = time.Unix(ps.endMax, 0)
		}
		u.ExitStatus = ps.exit
		switch st {
		case submitter.Failed:
			u.Reason = ps.failReason
			// A co-allocated job has failed: stop its other components.
			for _, p := range sj.parts {
				if !final(p.class) {
					t.scancelLater(p)
					p.class = "cancelled"
				}
			}
		case submitter.Cancelled:
			if sj.cancelled {
				u.Reason = "cancelled by gmark"
			} else {
				u.Reason = "cancelled in Slurm"
			}
		}
		u.Detail = partsDetail(sj.parts)
		t.recordComponentStarts(sj)
	}
	t.report(u)
	return st.Final()
}

// slurmClock is whose time the Slurm target's component starts are.
const slurmClock = "Slurm's start_time of each component's Slurm job (whole seconds)"

// recordComponentStarts writes a component-start record of each component
// of co-allocated job sj that started, from the Slurm records of its final
// event (the components in the order of its parts, a heterogeneous job's
// leader then its other components). t.mu is held.
func (t *Target) recordComponentStarts(sj *sjob) {
	if sj.sub.Job == nil || len(sj.sub.Job.Components) < 2 {
		return
	}
	n := 0
	add := func(site string, start int64) {
		if start > 0 {
			c := record.NewComponentStart(sj.sub.Job.ID, sj.sub.Attempt, n, site, time.Unix(start, 0), slurmClock)
			t.annotateLocked(record.AnnotationComponentStart, sj.sub.Key, c.Value())
		}
		n++
	}
	for _, p := range sj.parts {
		if p.rec == nil {
			add("", 0)
			continue
		}
		add(p.c.name, p.rec.Start)
		for _, h := range p.het {
			add(p.c.name, h.Start)
		}
	}
}

func partReason(p *part) string {
	if p.class == "lost" {
		return p.reason
	}
	r := fmt.Sprintf("%s:%d %s", p.c.name, p.id, p.rec.State)
	if p.rec.Reason != "" && p.rec.Reason != "None" {
		r += " (" + p.rec.Reason + ")"
	}
	if p.rec.Exit != 0 {
		r += fmt.Sprintf(", exit status %d", p.rec.Exit)
	}
	if p.rec.Signal != 0 {
		r += fmt.Sprintf(", signal %d", p.rec.Signal)
	}
	return r
}

// partsDetail is what Slurm said about each part, for the event payload.
func partsDetail(parts []*part) json.RawMessage {
	type pd struct {
		Component int              `json:"component"`
		Cluster   string           `json:"cluster"`
		ID        int64            `json:"job_id"`
		Try       int              `json:"try,omitempty"`
		Class     string           `json:"class"`
		Record    *slurmcli.Record `json:"record,omitempty"`
		// The other components of a heterogeneous job.
		Het []*slurmcli.Record `json:"het,omitempty"`
	}
	var out []pd
	for _, p := range parts {
		out = append(out, pd{p.comp, p.c.name, p.id, p.try, p.class, p.rec, p.het})
	}
	b, _ := json.Marshal(map[string]any{"slurm": out})
	return b
}

var _ submitter.Target = (*Target)(nil)
