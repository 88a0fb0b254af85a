// Package slurm is the target for real Slurm clusters: jobs are submitted
// with `sbatch --parsable` using the sbatch printer's scripts, and their
// states and times are read from `squeue --json` (and, for jobs that have
// left squeue, the filetxt job completion log).
//
// A target has one or more clusters, each reached through its own
// SLURM_CONF, named in the [slurm] section of a targets TOML file. A
// component that names a site goes to the cluster of that name; components
// that name none (*) go to the clusters in turn. A job whose components all
// go to one cluster is one Slurm job (a heterogeneous job when it has
// several components, unless hetjob = false). A job whose components go
// to several clusters cannot be one Slurm job, since Slurm runs a
// heterogeneous job on one cluster: each component is submitted on its own
// to its cluster, with --comment=gmark:<id>.<component>, and the job is
// started when every component has started and ends when the last one
// ends; if one fails the others are cancelled and the job fails.
//
// Every Slurm job gmark submits is named gmark-<job id>[.c<component>].a<attempt>-<run>,
// which makes the name its idempotency key: after a crash, Find looks the
// name up in squeue and the job completion log before anything is
// submitted again.
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

	"github.com/gmark/gmark/internal/slurmcli"
	"github.com/gmark/gmark/printers"
	"github.com/gmark/gmark/submitter"
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
	// UnreachableAfter is how long a cluster may fail to answer before its
	// jobs are given up as lost (failed, with the reason). Default 2m.
	UnreachableAfter time.Duration `toml:"unreachable_after" json:"unreachable_after_ns"`
	// HetJob submits a multi-component job bound for one cluster as one
	// heterogeneous job (the default); false submits each component alone,
	// as for jobs spanning clusters. Single-node clusters need false: Slurm
	// will not place two components of a heterogeneous job on one node.
	HetJob *bool `toml:"hetjob" json:"hetjob"`
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
	orphans submitter.Orphans
	polls   submitter.Pollers // one per cluster
}

type cluster struct {
	name, conf, partition string
	env                   []string

	// Owned by the cluster's poller.
	failingSince time.Time
	lastStatus   string

	mu           sync.Mutex // guards the job completion log's location
	jobcomp      string
	jobcompKnown bool
}

// part is one Slurm job: a whole gmark job, or one component of it.
type part struct {
	c         *cluster
	comp      int // -1: the whole job
	id        int64
	name      string
	submitted time.Time
	rec       *slurmcli.Record
	firstSub  int64  // Slurm's submit time when first seen (a requeue resets it)
	class     string // queued, running, succeeded, failed, cancelled, lost
	reason    string
	missing   time.Time
}

type sjob struct {
	sub       submitter.Submission
	parts     []*part
	reported  submitter.State
	cancelled bool
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
	if cfg.HetJob == nil {
		yes := true
		cfg.HetJob = &yes
	}
	if cfg.CommandTimeout <= 0 {
		cfg.CommandTimeout = time.Minute
	}
	var err error
	if cfg.Executable, cfg.WorkDir, err = submitter.JobFiles("slurm", cfg.Executable, cfg.WorkDir, "scripts"); err != nil {
		return nil, err
	}
	p, err := printers.Lookup("sbatch")
	if err != nil {
		return nil, err
	}
	t := &Target{cfg: cfg, byName: map[string]*cluster{}, printer: p, jobs: map[string]*sjob{}, memo: map[string][]*part{},
		pcfg: printers.Config{Executable: cfg.Executable, WorkDir: cfg.WorkDir}}
	for _, cc := range cfg.Clusters {
		if cc.Name == "" {
			return nil, errors.New("slurm: a cluster has no name")
		}
		if _, dup := t.byName[cc.Name]; dup {
			return nil, fmt.Errorf("slurm: cluster %s is named twice", cc.Name)
		}
		c := &cluster{name: cc.Name, conf: cc.Conf, partition: cc.Partition, env: os.Environ()}
		if cc.Conf != "" {
			if _, err := os.Stat(cc.Conf); err != nil {
				return nil, fmt.Errorf("slurm: cluster %s: %v", cc.Name, err)
			}
			c.env = append(c.env, "SLURM_CONF="+cc.Conf)
		}
		t.clusters = append(t.clusters, c)
		t.byName[cc.Name] = c
	}
	return t, nil
}

// Config is the configuration in use, for provenance.
func (t *Target) Config() Config { return t.cfg }

func (t *Target) Name() string { return "slurm" }
func (t *Target) Caps() submitter.Caps {
	return submitter.Caps{Find: true, Cancel: true, CoAllocates: true}
}

// Watch checks that the Slurm commands exist and starts one poller per
// cluster.
func (t *Target) Watch(ctx context.Context, r submitter.Reporter) error {
	for _, name := range []string{"sbatch", "squeue", "scancel", "scontrol"} {
		if _, err := exec.LookPath(name); err != nil {
			return fmt.Errorf("%s not found: is Slurm installed (apt-get install slurm-client)?", name)
		}
	}
	t.mu.Lock()
	t.rep = r
	t.mu.Unlock()
	for _, c := range t.clusters {
		t.polls.Go(ctx, t.cfg.Poll, func(ctx context.Context) { t.poll(ctx, c) })
	}
	return nil
}

// run runs a Slurm command against a cluster.
func (t *Target) run(ctx context.Context, c *cluster, name string, args ...string) ([]byte, error) {
	return submitter.Command{Timeout: t.cfg.CommandTimeout, Env: c.env, TransientMessages: slurmcli.TransientMessages}.Run(ctx, name, args...)
}

// planned is where one part of a job goes.
type planned struct {
	c    *cluster
	comp int // -1: the whole job
}

// plan decides where a job's components go.
func (t *Target) plan(j *workload.Job) ([]planned, error) {
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
	defer t.mu.Unlock()
	if len(j.Components) == 1 || (sameNamed && *t.cfg.HetJob) {
		c := named
		if c == nil {
			c = next()
		}
		return []planned{{c: c, comp: -1}}, nil
	}
	out := make([]planned, len(j.Components))
	for i := range j.Components {
		c := dest[i]
		if c == nil {
			c = next()
		}
		out[i] = planned{c: c, comp: i}
	}
	return out, nil
}

func (t *Target) names() string {
	var n []string
	for _, c := range t.clusters {
		n = append(n, c.name)
	}
	return strings.Join(n, ", ")
}

// jobName is the Slurm job name of a part: its idempotency key.
func jobName(s *submitter.Submission, comp int) string {
	return "gmark-" + partSuffix(s, comp) + "-" + s.RunID
}

func partSuffix(s *submitter.Submission, comp int) string {
	suffix := s.Job.ID
	if comp >= 0 {
		suffix += ".c" + strconv.Itoa(comp)
	}
	return suffix + ".a" + strconv.Itoa(s.Attempt)
}

// Submit submits the job's parts that are not yet submitted.
func (t *Target) Submit(ctx context.Context, s *submitter.Submission) (submitter.Receipt, error) {
	plan, err := t.plan(s.Job)
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
		p, out, err := t.submitPart(ctx, pl, s)
		if out != "" {
			outputs = append(outputs, out)
		}
		if err != nil {
			if submitter.IsTransient(err) {
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
	sj := &sjob{sub: *s, parts: orderParts(parts)}
	t.jobs[s.Key] = sj
	t.report(submitter.Update{Key: s.Key, State: submitter.Queued, Time: time.Now()})
	t.mu.Unlock()
	zero := 0
	return submitter.Receipt{TargetID: targetID(sj.parts), Output: strings.Join(outputs, "\n"), ExitStatus: &zero, Sites: sites(sj.parts)}, nil
}

func orderParts(parts []*part) []*part {
	out := append([]*part(nil), parts...)
	for i := 1; i < len(out); i++ {
		for k := i; k > 0 && out[k].comp < out[k-1].comp; k-- {
			out[k], out[k-1] = out[k-1], out[k]
		}
	}
	return out
}

// targetID is "cluster:id" per part, comma-separated in component order.
func targetID(parts []*part) string {
	ids := make([]string, len(parts))
	for i, p := range parts {
		ids[i] = p.c.name + ":" + strconv.FormatInt(p.id, 10)
	}
	return strings.Join(ids, ",")
}

func sites(parts []*part) []string {
	var out []string
	seen := map[string]bool{}
	for _, p := range parts {
		if !seen[p.c.name] {
			seen[p.c.name] = true
			out = append(out, p.c.name)
		}
	}
	return out
}

// submitPart prints the script of a job or component and sbatches it.
func (t *Target) submitPart(ctx context.Context, pl planned, s *submitter.Submission) (*part, string, error) {
	j := *s.Job
	comment := "gmark:" + j.ID
	if pl.comp >= 0 {
		j.Components = []workload.Component{s.Job.Components[pl.comp]}
		comment += "." + strconv.Itoa(pl.comp)
	}
	var buf bytes.Buffer
	if err := t.printer.Print(&buf, &j, t.pcfg); err != nil {
		return nil, "", err
	}
	script := stripClusters(buf.Bytes())
	suffix := partSuffix(s, pl.comp)
	path := filepath.Join(t.cfg.WorkDir, "scripts", suffix+".sbatch")
	if err := os.WriteFile(path, script, 0o644); err != nil {
		return nil, "", err
	}
	name := jobName(s, pl.comp)
	args := []string{"--parsable", "--comment=" + comment, "--job-name=" + name,
		"--output=" + suffix + ".out", "--error=" + suffix + ".err"}
	if pl.comp >= 0 {
		n := strconv.Itoa(len(s.Job.Components))
		c := strconv.Itoa(pl.comp)
		args = append(args, "--export=ALL,GMARK_COMPONENT="+c+",GMARK_RANK="+c+",GMARK_SIZE="+n)
	}
	if pl.c.partition != "" {
		args = append(args, "--partition="+pl.c.partition)
	}
	args = append(args, t.cfg.SbatchArgs...)
	args = append(args, path)
	now := time.Now()
	out, err := t.run(ctx, pl.c, "sbatch", args...)
	text := strings.TrimSpace(string(out))
	if err != nil && outcomeOpen(err) {
		if p := t.settle(ctx, pl.c, name, pl.comp, now); p != nil {
			p.submitted = now
			return p, fmt.Sprintf("%s: job %d, found by its name after: %v", pl.c.name, p.id, err), nil
		}
	}
	if err != nil {
		return nil, text, err
	}
	idText, _, _ := strings.Cut(strings.SplitN(text, "\n", 2)[0], ";")
	id, perr := strconv.ParseInt(strings.TrimSpace(idText), 10, 64)
	if perr != nil {
		return nil, text, fmt.Errorf("sbatch on %s printed %q, not a job id", pl.c.name, text)
	}
	return &part{c: pl.c, comp: pl.comp, id: id, name: name, submitted: now, class: "queued"}, pl.c.name + ": " + text, nil
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
// the job completion log of every cluster. It reports found only when
// every part is there; the parts of a partial submission are remembered,
// so Submit sends only the missing ones.
func (t *Target) Find(ctx context.Context, s *submitter.Submission) (submitter.Receipt, bool, error) {
	wantWhole := jobName(s, -1)
	wantComp := map[string]int{}
	for i := range s.Job.Components {
		wantComp[jobName(s, i)] = i
	}
	// An sbatch of this submission that a killed submitter left running
	// may still be submitting it: wait for it, then look.
	if err := t.orphans.Wait(ctx, wantWhole, t.cfg.CommandTimeout); err != nil {
		return submitter.Receipt{}, false, err
	}
	for name := range wantComp {
		if err := t.orphans.Wait(ctx, name, t.cfg.CommandTimeout); err != nil {
			return submitter.Receipt{}, false, err
		}
	}
	wantComp[wantWhole] = -1
	var found []*part
	for _, c := range t.clusters {
		parts, err := t.partsNamed(ctx, c, wantComp)
		if err != nil {
			return submitter.Receipt{}, false, err
		}
		found = append(found, parts...)
	}
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
	sj := &sjob{sub: *s, parts: orderParts(found)}
	t.jobs[s.Key] = sj
	zero := 0
	return submitter.Receipt{TargetID: targetID(sj.parts), Output: "found in Slurm by job name", ExitStatus: &zero, Sites: sites(sj.parts)}, true, nil
}

// partsNamed finds the jobs of cluster c whose names are in want (name →
// component, -1 for a whole job), in squeue and the job completion log.
func (t *Target) partsNamed(ctx context.Context, c *cluster, want map[string]int) ([]*part, error) {
	recs, err := t.squeue(ctx, c)
	if err != nil {
		return nil, err
	}
	if comp, ok := t.jobComp(ctx, c); ok {
		recs = append(recs, comp...)
	}
	var found []*part
	seen := map[int64]bool{}
	for i := range recs {
		r := &recs[i]
		comp, ok := want[r.Name]
		if !ok || seen[r.ID] || (r.HetJobID != 0 && r.HetOff != 0) {
			continue
		}
		seen[r.ID] = true
		found = append(found, &part{c: c, comp: comp, id: r.ID, name: r.Name, submitted: time.Unix(r.Submit, 0), class: "queued"})
	}
	return found, nil
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

// settle looks for the job named name on c until it appears or
// SubmitSettle has passed since the sbatch (nil then).
func (t *Target) settle(ctx context.Context, c *cluster, name string, comp int, since time.Time) *part {
	tick := time.NewTicker(500 * time.Millisecond)
	defer tick.Stop()
	for {
		if parts, err := t.partsNamed(ctx, c, map[string]int{name: comp}); err == nil && len(parts) > 0 {
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

// Track resumes tracking a job from its target id ("alpha:12,beta:7").
func (t *Target) Track(ctx context.Context, s *submitter.Submission, r submitter.Receipt) error {
	var parts []*part
	entries := strings.Split(r.TargetID, ",")
	for i, e := range entries {
		name, idText, ok := strings.Cut(e, ":")
		c := t.byName[name]
		id, err := strconv.ParseInt(idText, 10, 64)
		if !ok || c == nil || err != nil {
			return fmt.Errorf("target id %q: not a job of this target's clusters (%s)", r.TargetID, t.names())
		}
		comp := -1
		if len(entries) > 1 {
			comp = i
		}
		parts = append(parts, &part{c: c, comp: comp, id: id, name: jobName(s, comp), class: "queued"})
	}
	t.mu.Lock()
	t.jobs[s.Key] = &sjob{sub: *s, parts: parts}
	t.mu.Unlock()
	return nil
}

// Close stops the pollers.
func (t *Target) Close() error {
	t.polls.Close()
	return nil
}

func (t *Target) squeue(ctx context.Context, c *cluster) ([]slurmcli.Record, error) {
	out, err := t.run(ctx, c, "squeue", "--json")
	if err != nil {
		return nil, err
	}
	recs, err := slurmcli.ParseSqueue(out)
	if err != nil {
		return nil, submitter.Transient(err)
	}
	return recs, nil
}

// jobComp reads the cluster's job completion log, when it is a local text
// file.
func (t *Target) jobComp(ctx context.Context, c *cluster) ([]slurmcli.Record, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.jobcompKnown {
		out, err := t.run(ctx, c, "scontrol", "show", "config")
		if err != nil {
			return nil, false
		}
		conf := slurmcli.ParseConfig(out)
		if conf["JobCompType"] == "jobcomp/filetxt" {
			c.jobcomp = conf["JobCompLoc"]
		}
		c.jobcompKnown = true
	}
	if c.jobcomp == "" {
		return nil, false
	}
	f, err := os.Open(c.jobcomp)
	if err != nil {
		return nil, false
	}
	defer f.Close()
	recs, _ := slurmcli.ParseJobComp(f, time.Local)
	return recs, true
}

// poll asks cluster c for the state of the parts of jobs it runs, and
// reports the jobs whose state changed.
func (t *Target) poll(ctx context.Context, c *cluster) {
	mine := t.partsOn(c)
	if len(mine) == 0 {
		return
	}
	started := time.Now()
	recs, err := t.squeue(ctx, c)
	if err != nil {
		t.squeueFailed(c, mine, started, err)
		return
	}
	if !c.failingSince.IsZero() {
		t.annotate("target-recovered", c.name, fmt.Sprintf("answering again after %s", time.Since(c.failingSince).Round(time.Millisecond)))
		c.failingSince = time.Time{}
	}
	byID := t.clusterStatus(c, recs)
	t.mu.Lock()
	defer t.mu.Unlock()
	t.matchParts(ctx, c, mine, byID, started)
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
	if c.failingSince.IsZero() {
		c.failingSince = started
		t.annotate("target-error", c.name, err.Error())
	}
	if down := time.Since(c.failingSince); down > t.cfg.UnreachableAfter {
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
// by its leader).
func (t *Target) clusterStatus(c *cluster, recs []slurmcli.Record) map[int64]*slurmcli.Record {
	byID := make(map[int64]*slurmcli.Record, len(recs))
	pending, running := 0, 0
	for i := range recs {
		r := &recs[i]
		switch r.Class() {
		case "queued":
			pending++
		case "running":
			running++
		}
		if r.HetJobID != 0 && r.HetOff != 0 {
			continue // a heterogeneous job is followed by its leader
		}
		byID[r.ID] = r
	}
	if status := fmt.Sprintf("pending=%d running=%d", pending, running); status != c.lastStatus {
		c.lastStatus = status
		t.annotate("cluster-status", c.name, status)
	}
	return byID
}

// matchParts gives each part its record: squeue's, or for a part that left
// squeue the job completion log's; a part in neither for UnreachableAfter
// is lost. t.mu is held (and released while the log is read).
func (t *Target) matchParts(ctx context.Context, c *cluster, mine []*part, byID map[int64]*slurmcli.Record, started time.Time) {
	var comp map[int64]*slurmcli.Record
	for _, p := range mine {
		if r := byID[p.id]; r != nil {
			p.rec, p.class, p.missing = r, r.Class(), time.Time{}
			if p.firstSub == 0 {
				p.firstSub = r.Submit
			}
			continue
		}
		if !p.submitted.Before(started) {
			continue // submitted after squeue answered
		}
		if comp == nil {
			comp = map[int64]*slurmcli.Record{}
			t.mu.Unlock()
			recs, _ := t.jobComp(ctx, c)
			t.mu.Lock()
			for i := range recs {
				if recs[i].HetJobID == 0 || recs[i].HetOff == 0 {
					comp[recs[i].ID] = &recs[i]
				}
			}
		}
		if r := comp[p.id]; r != nil && r.Name == p.name {
			p.rec, p.class = r, r.Class()
			if p.firstSub == 0 {
				p.firstSub = r.Submit
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
	ps := combineParts(sj.parts)
	st := ps.state()
	if st == sj.reported {
		return false
	}
	if st == submitter.Queued && sj.reported == submitter.Running {
		return false // a requeued job: keep it running
	}
	sj.reported = st
	u := submitter.Update{Key: sj.sub.Key, State: st, Time: time.Now(), Sites: sites(sj.parts)}
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
					go t.run(context.Background(), p.c, "scancel", strconv.FormatInt(p.id, 10))
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
	}
	t.report(u)
	return st.Final()
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
		Class     string           `json:"class"`
		Record    *slurmcli.Record `json:"record,omitempty"`
	}
	var out []pd
	for _, p := range parts {
		out = append(out, pd{p.comp, p.c.name, p.id, p.class, p.rec})
	}
	b, _ := json.Marshal(map[string]any{"slurm": out})
	return b
}

var _ submitter.Target = (*Target)(nil)
