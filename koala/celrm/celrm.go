// Package celrm connects the bundled scheduler core to clusters behind
// compute elements: the grid's clusters with lrm = "arc" (an ARC CE,
// through its REST interface) or "gram" (a GRAM5 gatekeeper, through
// globusrun), as koala/slurmlrm connects it to Slurm clusters. For the core
// (core.Controller) it submits each component as a CE job of its own (the
// xrsl or rsl printer's PrintComponent of a one-component copy of the
// job), releases the ones that hold their processors (a release file the
// component's script waits for) and cancels; a poller per cluster asks
// the CE about the core's jobs (ARC: one status call for all; GRAM: one
// globusrun -status each, with the job's own report of its start and exit
// status) and reports to the core when each was taken, started and ended.
// A CE says nothing of its cluster's other users: the core sees no local
// load there (ObserveCluster with every processor not its own idle).
// The worker and poller of each cluster, the submissions they follow, the
// release files and the out-of-service rule are koala/lrmkit's, shared
// with koala/slurmlrm.
//
// Every CE job of a core is named gmark-<prefix>-<job>.c<component>.s<attempt>
// (the prefix naming the core's state, as slurmlrm's), in Dir/<job>/ with
// its request, its release file, its rendezvous file (the processes of a
// co-allocated job meet there: the CEs' jobs do not share a working
// directory) and, for GRAM, its output. Dir must be on a file system the
// CEs' worker nodes see at the same path, and reachable by the CEs' mapped
// accounts (Dir/<job>/ is made world-writable).
//
// A core restarted on the same state cancels the CE jobs of its previous
// run, at each cluster's first poll (sweep.go: ARC's by their names, GRAM's
// by the contacts in their .submit files); the jobs they belonged to are
// placed again or failed as core.Restore says, as with slurmlrm.
package celrm

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"time"

	"github.com/gmark/gmark/apps/jobenv"
	"github.com/gmark/gmark/internal/arcrest"
	"github.com/gmark/gmark/internal/gramcli"
	"github.com/gmark/gmark/koala/core"
	"github.com/gmark/gmark/koala/grid"
	"github.com/gmark/gmark/koala/lrmkit"
	"github.com/gmark/gmark/koala/server"
	"github.com/gmark/gmark/koala/slurmlrm"
	"github.com/gmark/gmark/printers"
	"github.com/gmark/gmark/workload"
)

// Options set up the controllers of a grid's CE clusters.
type Options struct {
	Gmark  string // the gmark binary the components run
	Dir    string // each job works in Dir/<job id>/
	Prefix string // names the core's CE jobs (slurmlrm.Prefix of the state)
	// Proxy and CADir are the user's credentials; defaults
	// $X509_USER_PROXY (else /tmp/x509up_u<uid>) and $X509_CERT_DIR (else
	// /etc/grid-security/certificates).
	Proxy, CADir string
	// Timeout bounds every call to a CE. Default 60s.
	Timeout time.Duration
	// UnreachableAfter is how long a CE may fail to answer before its
	// cluster is out of service for placement. Default 30s.
	UnreachableAfter time.Duration
	// TwoPhase is how long a GRAM job manager keeps an ended job's state.
	// Default 10m.
	TwoPhase time.Duration
	// Log gets one line per submission, start, end and cancellation.
	Log io.Writer
	// Rendezvous is where the IRunner's rendezvous server listens
	// (default 127.0.0.1:0).
	Rendezvous string
}

// Set is the controllers of one grid's CE clusters.
type Set struct {
	opts Options
	xrsl printers.ComponentPrinter
	rsl  printers.ComponentPrinter
	kit  *lrmkit.Set

	gramMu    sync.Mutex // the GRAM sweep (sweep.go), once for the grid
	gramSwept bool
}

// New prepares the controllers of g's CE clusters (none when it has none)
// and reads the credentials.
func New(g *grid.Grid, o Options) (*Set, error) {
	o.Timeout = lrmkit.Or(o.Timeout, lrmkit.DefaultTimeout)
	o.UnreachableAfter = lrmkit.Or(o.UnreachableAfter, lrmkit.DefaultUnreachableAfter)
	if o.TwoPhase <= 0 {
		o.TwoPhase = 10 * time.Minute
	}
	if o.Proxy == "" {
		o.Proxy = envOr("X509_USER_PROXY", "/tmp/x509up_u"+strconv.Itoa(os.Getuid()))
	}
	if o.CADir == "" {
		o.CADir = envOr("X509_CERT_DIR", "/etc/grid-security/certificates")
	}
	if err := lrmkit.CheckPrefix("celrm", o.Prefix); err != nil {
		return nil, err
	}
	x, err := printers.Lookup("xrsl")
	if err != nil {
		return nil, err
	}
	r, err := printers.Lookup("rsl")
	if err != nil {
		return nil, err
	}
	s := &Set{opts: o, xrsl: x.(printers.ComponentPrinter), rsl: r.(printers.ComponentPrinter),
		kit: lrmkit.NewSet(o.Log, o.Rendezvous)}
	for i := range g.Clusters {
		gc := &g.Clusters[i]
		if !gc.ThroughCE() {
			continue
		}
		c := &Cluster{set: s, name: gc.Name, kind: gc.LRM, ce: gc.CE, queue: gc.Partition, processors: gc.Processors}
		c.kit = lrmkit.NewCluster(s.kit, lrmkit.Config[string]{Name: gc.Name, Controller: c, Dir: o.Dir, Prefix: o.Prefix,
			Job: "CE job", Submitting: "submitting", Every: gc.Poll.Duration, UnreachableAfter: o.UnreachableAfter,
			Send: c.send, Kill: c.kill, Poll: c.pollOnce})
		switch gc.LRM {
		case grid.LRMARC:
			if c.arc, err = arcrest.New(arcrest.Options{Endpoint: gc.CE, Proxy: o.Proxy, CADir: o.CADir, Timeout: o.Timeout}); err != nil {
				return nil, fmt.Errorf("cluster %s: %v", gc.Name, err)
			}
		case grid.LRMGRAM:
			if _, err := os.Stat(o.Proxy); err != nil {
				return nil, fmt.Errorf("cluster %s: proxy: %v (make one with grid-proxy-init)", gc.Name, err)
			}
			c.gram = gramcli.New(o.Proxy, o.CADir, o.Timeout)
		}
	}
	return s, nil
}

func envOr(name, def string) string {
	if v := os.Getenv(name); v != "" {
		return v
	}
	return def
}

// Empty tells whether the grid has no CE cluster.
func (s *Set) Empty() bool { return s.kit.Empty() }

// Controllers are the core's controllers, by cluster name.
func (s *Set) Controllers() map[string]core.Controller { return s.kit.Controllers() }

// Run polls every cluster and runs its calls until ctx ends (server.Agent).
func (s *Set) Run(ctx context.Context, do func(func(*core.Core)) bool) { s.kit.Run(ctx, do) }

// Cluster is the controller of one cluster behind a CE (core.Controller).
type Cluster struct {
	set            *Set
	name, kind, ce string
	queue          string
	processors     int
	arc            *arcrest.Client
	gram           gramcli.Client
	kit            *lrmkit.Cluster[string]
	swept          bool // the earlier runs' CE jobs were looked for (owned by the poller)
}

// sub is one submission; its id is the CE's.
type sub = lrmkit.Sub[string]

// Submit implements core.Controller: the submission runs on the
// cluster's worker.
func (c *Cluster) Submit(s *core.Submission) { c.kit.Submit(s) }

// Release implements core.Controller: it makes the release file.
func (c *Cluster) Release(ref core.Ref) { c.kit.Release(ref) }

// Cancel implements core.Controller: the CE is asked on the cluster's
// worker (once it has taken the job).
func (c *Cluster) Cancel(ref core.Ref, reason string) { c.kit.Cancel(ref, reason) }

// Kill implements core.Controller: a CE does not list its cluster's other
// jobs, so there is none to kill (grid refuses preempt_local here).
func (c *Cluster) Kill(id, reason string) {
	c.kit.Logf("not killing %q: a CE's cluster's other jobs are not the core's to kill", id)
}

// send prints and submits one component: a copy of the job whose
// component s.Component has s.Size processors, named after the core's
// run of the job (its rendezvous key).
func (c *Cluster) send(ctx context.Context, sb *sub, s *core.Submission, _ string) (string, error) {
	if err := os.MkdirAll(sb.Dir, 0o755); err != nil {
		return "", err
	}
	if err := os.Chmod(sb.Dir, 0o1777); err != nil { // the mapped accounts write here
		return "", err
	}
	one := s.Spec
	one.ID, one.Kind, one.Tasks, one.Deps = s.Run, workload.Unitary, nil, nil
	one.Components = append([]workload.Component(nil), s.Spec.Components...)
	if s.Component < len(one.Components) {
		one.Components[s.Component].Count = s.Size
	}
	one.WallTime = 0
	if !s.Hold && s.Limit > 0 {
		one.WallTime = s.Limit.Round(time.Second)
	}
	cfg := printers.Config{Executable: c.set.opts.Gmark, WorkDir: sb.Dir, Name: sb.Name, Queue: c.queue, HoldUntil: sb.Release,
		Env: []string{jobenv.RendezvousFile + "=" + filepath.Join(sb.Dir, ".gmark-rendezvous-"+jobenv.Safe(s.Run))}}
	if s.Rendezvous {
		addr, err := c.set.kit.Rendezvous()
		if err != nil {
			return "", err
		}
		cfg.Env = []string{jobenv.Rendezvous + "=" + addr}
	}
	var buf bytes.Buffer
	if c.arc != nil {
		if err := c.set.xrsl.PrintComponent(&buf, &one, s.Component, cfg); err != nil {
			return "", err
		}
		jobs, err := c.arc.Submit(ctx, buf.Bytes())
		if err != nil {
			return "", err
		}
		if len(jobs) != 1 || !jobs[0].OK() {
			return "", fmt.Errorf("A-REX refused the job: %+v", jobs)
		}
		return jobs[0].ID, nil
	}
	if err := c.set.rsl.PrintComponent(&buf, &one, s.Component, cfg); err != nil {
		return "", err
	}
	req := bytes.TrimSuffix(buf.Bytes(), []byte("\n"))
	req = append(req, fmt.Sprintf("\n  (two_phase=%d)\n  (save_state=yes)\n", int(c.set.opts.TwoPhase/time.Second))...)
	path := filepath.Join(sb.Dir, sb.Name+".rsl")
	if err := os.WriteFile(path, req, 0o644); err != nil {
		return "", err
	}
	job, _, err := c.gram.Submit(ctx, c.ce, path, filepath.Join(sb.Dir, sb.Name+".submit"))
	return job, err
}

func (c *Cluster) kill(ctx context.Context, sb *sub, id, reason string) {
	var err error
	if c.arc != nil {
		_, err = c.arc.Kill(ctx, []string{id})
	} else {
		err = c.gram.Cancel(ctx, id)
	}
	if err != nil {
		c.kit.Logf("cancelling CE job %s (%s) failed: %v", id, sb.Name, err)
		return
	}
	c.kit.Logf("cancelled CE job %s (%s): %s", id, sb.Name, reason)
}

// Connect sets up the controllers of g's CE clusters for a core whose
// state is the database state and whose jobs work under dir (default
// STATE.jobs): the controllers and the agent that polls them (server.Config's
// Controllers and Agents). A grid without CE clusters gets nil, nil.
func Connect(g *grid.Grid, state, dir, prefix string, log io.Writer) (map[string]core.Controller, *Set, error) {
	if !g.HasCE() {
		return nil, nil, nil
	}
	exe, dir, err := lrmkit.Paths(state, dir)
	if err != nil {
		return nil, nil, err
	}
	s, err := New(g, Options{Gmark: exe, Dir: dir, Prefix: prefix, Log: log})
	if err != nil {
		return nil, nil, err
	}
	return s.Controllers(), s, nil
}

// Clusters connects the core to every real cluster of g: the Slurm
// clusters (koala/slurmlrm) and those behind CEs; it returns their
// controllers, by cluster name, and the agents that poll them
// (server.Config's Controllers and Agents).
func Clusters(ctx context.Context, g *grid.Grid, state, dir string, log io.Writer) (map[string]core.Controller, []server.Agent, error) {
	ctls, lrms, err := slurmlrm.Connect(ctx, g, state, dir, log)
	if err != nil {
		return nil, nil, err
	}
	var agents []server.Agent
	if lrms != nil {
		agents = append(agents, lrms)
	}
	ces, set, err := Connect(g, state, dir, slurmlrm.Prefix(state), log)
	if err != nil || set == nil {
		return ctls, agents, err
	}
	if ctls == nil {
		ctls = map[string]core.Controller{}
	}
	for name, c := range ces {
		ctls[name] = c
	}
	return ctls, append(agents, set), nil
}
