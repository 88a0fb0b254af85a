// Package slurmlrm connects the bundled scheduler core to real Slurm
// clusters: the grid's clusters with lrm = "slurm". Each cluster is one
// controller, reached by running Slurm's commands with SLURM_CONF set to the
// cluster's slurm_conf. For the core (core.Controller) it submits
// components with sbatch, releases the ones that hold their processors and
// cancels with scancel; a poller per cluster asks the controller every poll
// for its processors (sinfo %C) and for the core's jobs (squeue --json) and
// reports to the core, through its driver, the processors the controller's
// other jobs take (the cluster's background load) and when each component
// was taken, started and ended. The worker and the poller, the submissions
// they follow, the release files and the out-of-service rule are
// koala/lrmkit's, shared with koala/celrm.
//
// Every Slurm job of a core is named gmark-<prefix>-<job>.c<component>.s<attempt>,
// the prefix naming the core's state (Prefix): a core that starts again on
// the same state finds the jobs its previous run left by their names and
// cancels them (the jobs they belonged to are placed again or failed, as
// core.Restore says), and any job of its prefix it did not submit.
//
// Components run gmark's applications with the sbatch printer's scripts (a
// one-component copy of the job), in Dir/<job>/, with the rank contract of
// apps/jobenv: GMARK_COMPONENT, GMARK_RANK_BASE, GMARK_SIZE (the whole
// job's), GMARK_JOB_ID (the job's current run, shared by its components) and,
// for the IRunner, GMARK_RENDEZVOUS: a rendezvous server this package runs
// for all the core's jobs.
package slurmlrm

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/gmark/gmark/apps/jobenv"
	"github.com/gmark/gmark/internal/slurmcli"
	"github.com/gmark/gmark/koala/core"
	"github.com/gmark/gmark/koala/grid"
	"github.com/gmark/gmark/koala/lrmkit"
	"github.com/gmark/gmark/printers"
	"github.com/gmark/gmark/workload"
)

// Options set up the controllers of a grid.
type Options struct {
	Gmark  string // the gmark binary the components run (the sbatch printer's Executable)
	Dir    string // each job works in Dir/<job id>/: scripts, outputs, release files
	Prefix string // names the core's Slurm jobs (Prefix(state))
	// CommandTimeout bounds every Slurm command. Default 60s.
	CommandTimeout time.Duration
	// UnreachableAfter is how long a controller may fail to answer before
	// its cluster is out of service for placement. Default 30s.
	UnreachableAfter time.Duration
	// Log gets one line per Slurm submission, start, end and cancellation
	// (nil: none).
	Log io.Writer
	// Rendezvous is where the IRunner's rendezvous server listens
	// (default 127.0.0.1:0: the Slurm nodes must reach it there).
	Rendezvous string
}

// Prefix names the Slurm jobs of the core whose state is the database at
// path: the same for every run of that core, different for another state.
func Prefix(state string) string {
	if abs, err := filepath.Abs(state); err == nil {
		state = abs
	}
	h := sha256.Sum256([]byte(state))
	return hex.EncodeToString(h[:4])
}

// Set is the controllers of one grid's Slurm clusters.
type Set struct {
	opts     Options
	clusters []*Cluster
	printer  printers.Printer
	kit      *lrmkit.Set
}

// New prepares the controllers of g's Slurm clusters (none when it has
// none). It checks that the Slurm commands and each slurm_conf exist.
func New(g *grid.Grid, o Options) (*Set, error) {
	o.CommandTimeout = lrmkit.Or(o.CommandTimeout, lrmkit.DefaultTimeout)
	o.UnreachableAfter = lrmkit.Or(o.UnreachableAfter, lrmkit.DefaultUnreachableAfter)
	if err := lrmkit.CheckPrefix("slurmlrm", o.Prefix); err != nil {
		return nil, err
	}
	p, err := printers.Lookup("sbatch")
	if err != nil {
		return nil, err
	}
	s := &Set{opts: o, printer: p, kit: lrmkit.NewSet(o.Log, o.Rendezvous)}
	for i := range g.Clusters {
		gc := &g.Clusters[i]
		if !gc.Slurm() {
			continue
		}
		if len(s.clusters) == 0 {
			for _, cmd := range []string{"sbatch", "squeue", "scancel", "sinfo"} {
				if _, err := exec.LookPath(cmd); err != nil {
					return nil, fmt.Errorf("cluster %s has lrm = \"slurm\", but %s is not found: install Slurm's client commands (apt-get install slurm-client)", gc.Name, cmd)
				}
			}
		}
		if _, err := os.Stat(gc.SlurmConf); err != nil {
			return nil, fmt.Errorf("cluster %s: slurm_conf: %v", gc.Name, err)
		}
		c := &Cluster{set: s, name: gc.Name, conf: gc.SlurmConf, partition: gc.Partition,
			env: commandEnv(os.Environ(), gc.SlurmConf), known: map[string]bool{}}
		c.kit = lrmkit.NewCluster(s.kit, lrmkit.Config[int64]{Name: gc.Name, Controller: c, Dir: o.Dir, Prefix: o.Prefix,
			Job: "Slurm job", Submitting: "sbatch of", Every: gc.Poll.Duration, UnreachableAfter: o.UnreachableAfter,
			Send: c.sbatch, Poll: c.pollOnce,
			Kill: func(ctx context.Context, sb *sub, id int64, reason string) { c.scancel(ctx, sb.Name, id, reason) }})
		s.clusters = append(s.clusters, c)
	}
	return s, nil
}

// commandEnv is the environment of the Slurm commands, and so of the jobs
// (sbatch exports it): the core's, less its token, gmark's job variables
// and Slurm's own (a core that runs inside a Slurm job must not hand its
// job's variables on), with SLURM_CONF naming the cluster.
func commandEnv(env []string, conf string) []string {
	out := make([]string, 0, len(env)+1)
	for _, kv := range env {
		name, _, _ := strings.Cut(kv, "=")
		if name == "GMARK_KOALA_TOKEN" || strings.HasPrefix(name, "SLURM_") {
			continue
		}
		drop := false
		for _, v := range jobenv.Names {
			drop = drop || name == v
		}
		if !drop {
			out = append(out, kv)
		}
	}
	return append(out, "SLURM_CONF="+conf)
}

// Empty tells whether the grid has no Slurm cluster.
func (s *Set) Empty() bool { return s.kit.Empty() }

// Controllers are the core's controllers, by cluster name.
func (s *Set) Controllers() map[string]core.Controller { return s.kit.Controllers() }

// ResolveProcessors reads each Slurm cluster's processors (the CPUs of its
// partition; the default partition when the grid names none, which is then
// the one used) and fills them into the grid (grid.ResolveProcessors).
func (s *Set) ResolveProcessors(ctx context.Context, g *grid.Grid) error {
	by := map[string]*Cluster{}
	for _, c := range s.clusters {
		by[c.name] = c
	}
	return g.ResolveProcessors(func(gc *grid.Cluster) (int, error) {
		c := by[gc.Name]
		if c == nil {
			return 0, errors.New("no controller")
		}
		if c.partition == "" {
			p, err := c.defaultPartition(ctx)
			if err != nil {
				return 0, err
			}
			c.partition = p
		}
		cpus, err := c.cpus(ctx)
		return cpus.Total, err
	})
}

// Run polls every cluster and runs its commands until ctx ends
// (server.Agent).
func (s *Set) Run(ctx context.Context, do func(func(*core.Core)) bool) { s.kit.Run(ctx, do) }

// Cluster is the controller of one Slurm cluster (core.Controller).
type Cluster struct {
	set       *Set
	name      string
	conf      string
	partition string
	env       []string
	kit       *lrmkit.Cluster[int64]
	known     map[string]bool // names of this core's jobs it submitted, or is submitting (under kit.Lock)
}

// sub is one submission; its id is Slurm's job id.
type sub = lrmkit.Sub[int64]

// jobName is the Slurm job name of a submission.
func (s *Set) jobName(ref core.Ref) string { return lrmkit.JobName(s.opts.Prefix, ref) }

// Submit implements core.Controller: the sbatch runs on the cluster's
// worker.
func (c *Cluster) Submit(s *core.Submission) {
	c.kit.Lock()
	c.known[c.set.jobName(s.Ref)] = true
	c.kit.Unlock()
	c.kit.Submit(s)
}

// Release implements core.Controller: it makes the release file the
// component's script waits for.
func (c *Cluster) Release(ref core.Ref) { c.kit.Release(ref) }

// Cancel implements core.Controller: scancel runs on the cluster's worker
// (once sbatch has answered).
func (c *Cluster) Cancel(ref core.Ref, reason string) { c.kit.Cancel(ref, reason) }

// Kill implements core.Controller: it cancels one of the controller's
// other jobs (by its Slurm job id) for a job with a start deadline under
// global priority (preempt_local).
func (c *Cluster) Kill(id string, reason string) {
	n, err := strconv.ParseInt(id, 10, 64)
	if err != nil || n < 1 || n > maxJobID {
		c.kit.Logf("not cancelling %q: not a Slurm job id", id)
		return
	}
	c.kit.Enqueue(func(ctx context.Context) { c.scancel(ctx, "another user's job", n, reason) })
}

// sbatch submits the component (lrmkit.Config.Send): one that failed is
// no longer a job this core knows.
func (c *Cluster) sbatch(ctx context.Context, sb *sub, s *core.Submission, base string) (int64, error) {
	id, err := c.submit(ctx, sb, s, base)
	if err != nil {
		// A submission whose outcome is open (a timeout) may still appear:
		// the poller then cancels it as a job of this core it does not know.
		c.kit.Lock()
		delete(c.known, sb.Name)
		c.kit.Unlock()
	}
	return id, err
}

// submit prints the component's script and submits it.
func (c *Cluster) submit(ctx context.Context, sb *sub, s *core.Submission, base string) (int64, error) {
	if err := os.MkdirAll(sb.Dir, 0o755); err != nil {
		return 0, err
	}
	one := s.Spec
	one.ID = s.Run
	one.Kind = workload.Unitary
	one.Components = []workload.Component{{Site: workload.AnySite, Count: s.Size}}
	one.WallTime = 0
	if !s.Hold && s.Limit > 0 {
		one.WallTime = s.Limit.Round(time.Second)
	}
	var buf bytes.Buffer
	cfg := printers.Config{Executable: c.set.opts.Gmark, WorkDir: sb.Dir, HoldUntil: sb.Release}
	if err := c.set.printer.Print(&buf, &one, cfg); err != nil {
		return 0, err
	}
	script := filepath.Join(sb.Dir, base+".sbatch")
	if err := os.WriteFile(script, buf.Bytes(), 0o644); err != nil {
		return 0, err
	}
	export := fmt.Sprintf("--export=ALL,%s=%d,%s=%d,%s=%d", jobenv.Component, s.Component, jobenv.RankBase, s.RankBase,
		jobenv.Size, s.JobSize)
	if s.Rendezvous {
		addr, err := c.set.kit.Rendezvous()
		if err != nil {
			return 0, err
		}
		export += "," + jobenv.Rendezvous + "=" + addr
	}
	args := []string{"--parsable", "--job-name=" + sb.Name, "--comment=gmark-koala:" + s.Ref.String(),
		"--chdir=" + sb.Dir, "--output=" + base + ".out", "--error=" + base + ".err", export}
	if c.partition != "" {
		args = append(args, "--partition="+c.partition)
	}
	out, err := c.run(ctx, "sbatch", append(args, script)...)
	if err != nil {
		return 0, err
	}
	return ParseJobID(out)
}

// maxJobID is the largest Slurm job id (32 bits).
const maxJobID = 1<<32 - 1

// ParseJobID reads what sbatch --parsable prints: "ID" or "ID;CLUSTER" on
// its first line.
func ParseJobID(out []byte) (int64, error) {
	text := strings.TrimSpace(string(out))
	idText, _, _ := strings.Cut(strings.SplitN(text, "\n", 2)[0], ";")
	id, err := strconv.ParseInt(strings.TrimSpace(idText), 10, 64)
	if err != nil || id < 1 || id > maxJobID {
		if len(text) > 200 {
			text = text[:200] + "..."
		}
		return 0, fmt.Errorf("sbatch printed %q, not a job id", text)
	}
	return id, nil
}

func (c *Cluster) scancel(ctx context.Context, name string, id int64, reason string) {
	if _, err := c.run(ctx, "scancel", strconv.FormatInt(id, 10)); err != nil {
		c.kit.Logf("scancel of Slurm job %d (%s) failed: %v", id, name, err)
		return
	}
	c.kit.Logf("cancelled Slurm job %d (%s): %s", id, name, reason)
}

// run runs a Slurm command against the cluster; a failure carries what it
// printed on standard error.
func (c *Cluster) run(ctx context.Context, name string, args ...string) ([]byte, error) {
	ctx, cancel := context.WithTimeout(ctx, c.set.opts.CommandTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Env = c.env
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		msg := strings.TrimSpace(stderr.String())
		if ctx.Err() != nil {
			msg = "timed out after " + c.set.opts.CommandTimeout.String() + " " + msg
		}
		if len(msg) > 500 {
			msg = msg[:500]
		}
		return out, fmt.Errorf("%s: %v: %s", name, err, msg)
	}
	return out, nil
}

// defaultPartition is the controller's default partition (sinfo marks it
// with '*').
func (c *Cluster) defaultPartition(ctx context.Context) (string, error) {
	out, err := c.run(ctx, "sinfo", "-h", "-o", "%P")
	if err != nil {
		return "", err
	}
	return DefaultPartition(out)
}

// DefaultPartition reads the default partition from what `sinfo -h -o %P`
// prints (the partitions, the default marked with '*').
func DefaultPartition(out []byte) (string, error) {
	for _, word := range strings.Fields(string(out)) {
		if p, ok := strings.CutSuffix(word, "*"); ok && p != "" {
			return p, nil
		}
	}
	list := strings.Join(strings.Fields(string(out)), " ")
	if len(list) > 200 {
		list = list[:200] + "..."
	}
	return "", fmt.Errorf("the controller has no default partition (sinfo lists %q): name one with partition = \"...\"", list)
}

// cpus is the processors of the cluster's partition.
func (c *Cluster) cpus(ctx context.Context) (slurmcli.CPUs, error) {
	args := []string{"-h", "-o", "%C"}
	if c.partition != "" {
		args = append(args, "-p", c.partition)
	}
	out, err := c.run(ctx, "sinfo", args...)
	if err != nil {
		return slurmcli.CPUs{}, err
	}
	return slurmcli.ParseCPUs(out)
}

// Connect sets up the controllers of g's Slurm clusters for a core whose
// state is the database state and whose jobs work under dir (default
// STATE.jobs, as for process execution): each cluster's processors are
// read into g, and the controllers are returned with the agent that polls
// them (server.Config's Controllers and Agents). A grid without Slurm
// clusters gets nil, nil.
func Connect(ctx context.Context, g *grid.Grid, state, dir string, log io.Writer) (map[string]core.Controller, *Set, error) {
	if !g.HasSlurm() {
		return nil, nil, nil
	}
	exe, dir, err := lrmkit.Paths(state, dir)
	if err != nil {
		return nil, nil, err
	}
	s, err := New(g, Options{Gmark: exe, Dir: dir, Prefix: Prefix(state), Log: log})
	if err != nil {
		return nil, nil, err
	}
	if err := s.ResolveProcessors(ctx, g); err != nil {
		return nil, nil, err
	}
	return s.Controllers(), s, nil
}
