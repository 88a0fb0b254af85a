// Package gram is the target for Globus GRAM5 gatekeepers (`gmark submit
// --target gram`): each job, or each component of a co-allocated job, is
// submitted as RSL (the rsl printer's PrintComponent) with `globusrun -b`
// to a gatekeeper's job manager (jobmanager-fork, -slurm, -sge), with the
// user's proxy. The gatekeepers are named in the [gram] section of a
// targets file, one per cluster, as the DAS had one gatekeeper per
// cluster; the planning, claiming and tracking are package ce's. GRAM5
// does not co-allocate (DUROC is gone): a co-allocated job is one GRAM job
// per component, held together by the release and rendezvous files, as
// KOALA's runners held theirs.
//
// What GRAM5 does not say the job says itself. Status is polled, one
// `globusrun -status` per job (GRAM has no batch query), a few at a time.
// A job manager forgets a job as soon as it ends and then calls it DONE
// whatever its end, so every request asks for a two-phase commit
// (two_phase, save_state), which makes the job manager keep the end state
// (DONE or FAILED) for two_phase seconds. Neither the fork nor the Slurm
// job manager reports an exit code or times: the component's script
// writes "gmark-job v1 started=T" and "gmark-job v1 status=S ended=T" to
// its standard error (printers' rsl PrintComponent), which the target
// reads from the work directory once GRAM says the job ended.
//
// A job's directory is jobs/ in the work directory, which the
// gatekeepers' mapped accounts must be able to write (it is made
// world-writable, sticky); the CEs' worker nodes must see the work
// directory at the same path. Each globusrun -b writes what it printed
// (the job contact) to jdf/<name>.submit: that file is how Find knows, after
// a crash, which submissions got through; a globusrun a killed submitter
// left running is waited for first.
package gram

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/gmark/gmark/internal/gramcli"
	"github.com/gmark/gmark/printers"
	"github.com/gmark/gmark/submitter"
	"github.com/gmark/gmark/submitter/ce"
	"github.com/gmark/gmark/submitter/target"
)

// CEConfig is one gatekeeper of the target: a cluster, by its name.
type CEConfig struct {
	Name string `toml:"name" json:"name"`
	// Contact is the job manager's resource manager contact,
	// host:port/jobmanager-LRM.
	Contact string `toml:"contact" json:"contact"`
	// Queue is the LRM's queue or partition; "" is its default.
	Queue string `toml:"queue" json:"queue,omitempty"`
}

// Config is the [gram] section of a targets file.
type Config struct {
	CEs []CEConfig `toml:"ce" json:"ces"`
	// Proxy and CADir are the user's proxy and the trusted CAs. Defaults
	// $X509_USER_PROXY (else /tmp/x509up_u<uid>) and $X509_CERT_DIR
	// (else /etc/grid-security/certificates).
	Proxy string `toml:"proxy" json:"proxy"`
	CADir string `toml:"ca_dir" json:"ca_dir"`
	// Poll is how often each job's state is asked. Default 3s.
	Poll time.Duration `toml:"poll" json:"poll_ns"`
	// Parallel is how many globusrun -status run at once per gatekeeper.
	// Default 4.
	Parallel int `toml:"parallel" json:"parallel"`
	// UnreachableAfter is how long a job manager may fail to answer
	// before its jobs are given up as lost. Default 2m.
	UnreachableAfter time.Duration `toml:"unreachable_after" json:"unreachable_after_ns"`
	ClaimRetry       time.Duration `toml:"claim_retry" json:"claim_retry_ns"`
	ClaimTries       int           `toml:"claim_tries" json:"claim_tries"`
	// TwoPhase is how long a job manager keeps an ended job's state (the
	// request's two_phase, seconds). Default 600s.
	TwoPhase time.Duration `toml:"two_phase" json:"two_phase_ns"`
	// WorkDir and Executable as for the other targets.
	WorkDir    string `toml:"workdir" json:"workdir"`
	Executable string `toml:"executable" json:"executable"`
	// CommandTimeout bounds every globusrun. Default 60s.
	CommandTimeout time.Duration `toml:"command_timeout" json:"command_timeout_ns"`
}

// Target is the GRAM target: package ce's engine over GRAM5 gatekeepers.
type Target struct {
	*ce.Target
	cfg Config
}

// Check checks what New checks without making anything: a gatekeeper
// named, each with a job manager's contact, globusrun installed and the
// proxy there.
func (cfg Config) Check() error {
	if len(cfg.CEs) == 0 {
		return errors.New("gram: no gatekeeper: name one in the [gram] section ([[gram.ce]] name, contact)")
	}
	if _, err := exec.LookPath("globusrun"); err != nil {
		return errors.New("gram: globusrun not found: install globus-gram-client-tools")
	}
	if cfg.Proxy == "" {
		cfg.Proxy = defaultEnv("X509_USER_PROXY", "/tmp/x509up_u"+strconv.Itoa(os.Getuid()))
	}
	if _, err := os.Stat(cfg.Proxy); err != nil {
		return fmt.Errorf("gram: proxy: %v (make one with grid-proxy-init)", err)
	}
	for _, c := range cfg.CEs {
		if c.Contact == "" || strings.ContainsAny(c.Contact, " \t\n") {
			return fmt.Errorf("gram: gatekeeper %s: contact %q is not host:port/jobmanager-LRM", c.Name, c.Contact)
		}
	}
	return nil
}

// New checks the configuration and the proxy.
func New(cfg Config) (*Target, error) {
	if len(cfg.CEs) == 0 {
		return nil, errors.New("gram: no gatekeeper: name one in the [gram] section ([[gram.ce]] name, contact)")
	}
	if _, err := exec.LookPath("globusrun"); err != nil {
		return nil, errors.New("gram: globusrun not found: install globus-gram-client-tools")
	}
	if cfg.Proxy == "" {
		cfg.Proxy = defaultEnv("X509_USER_PROXY", "/tmp/x509up_u"+strconv.Itoa(os.Getuid()))
	}
	if cfg.CADir == "" {
		cfg.CADir = defaultEnv("X509_CERT_DIR", "/etc/grid-security/certificates")
	}
	if _, err := os.Stat(cfg.Proxy); err != nil {
		return nil, fmt.Errorf("gram: proxy: %v (make one with grid-proxy-init)", err)
	}
	if cfg.Poll <= 0 {
		cfg.Poll = 3 * time.Second
	}
	if cfg.Parallel <= 0 {
		cfg.Parallel = 4
	}
	if cfg.TwoPhase <= 0 {
		cfg.TwoPhase = 10 * time.Minute
	}
	if cfg.CommandTimeout <= 0 {
		cfg.CommandTimeout = time.Minute
	}
	var err error
	if cfg.Executable, cfg.WorkDir, err = target.JobFiles("gram", cfg.Executable, cfg.WorkDir, "jdf"); err != nil {
		return nil, err
	}
	jobs := filepath.Join(cfg.WorkDir, "jobs")
	if err := os.MkdirAll(jobs, 0o755); err != nil {
		return nil, fmt.Errorf("gram: %v", err)
	}
	if err := os.Chmod(jobs, 0o1777); err != nil {
		return nil, fmt.Errorf("gram: %v", err)
	}
	p, err := printers.Lookup("rsl")
	if err != nil {
		return nil, err
	}
	client := gramcli.New(cfg.Proxy, cfg.CADir, cfg.CommandTimeout)
	orphans := &target.Orphans{}
	ccfg := ce.Config{Kind: "gram", WorkDir: cfg.WorkDir, Poll: cfg.Poll, UnreachableAfter: cfg.UnreachableAfter,
		ClaimRetry: cfg.ClaimRetry, ClaimTries: cfg.ClaimTries,
		Wait: func(ctx context.Context, name string) error { return orphans.Wait(ctx, name, cfg.CommandTimeout) }}
	for _, c := range cfg.CEs {
		if c.Contact == "" || strings.ContainsAny(c.Contact, " \t\n") {
			return nil, fmt.Errorf("gram: gatekeeper %s: contact %q is not host:port/jobmanager-LRM", c.Name, c.Contact)
		}
		if err := os.MkdirAll(filepath.Join(cfg.WorkDir, "jdf", c.Name), 0o755); err != nil {
			return nil, fmt.Errorf("gram: %v", err)
		}
		b := &backend{name: c.Name, contact: c.Contact, queue: c.Queue, cfg: cfg, client: client, printer: p.(printers.ComponentPrinter),
			jobs: jobs, cancelled: map[string]bool{}}
		ccfg.CEs = append(ccfg.CEs, ce.CE{Name: c.Name, Backend: b})
	}
	t := &Target{cfg: cfg}
	if t.Target, err = ce.New(ccfg); err != nil {
		return nil, err
	}
	return t, nil
}

func defaultEnv(name, def string) string {
	if v := os.Getenv(name); v != "" {
		return v
	}
	return def
}

// Config is the configuration in use, for provenance.
func (t *Target) Config() Config { return t.cfg }

// backend is one gatekeeper's job manager.
type backend struct {
	name, contact, queue string
	cfg                  Config
	client               gramcli.Client
	printer              printers.ComponentPrinter
	jobs                 string // the jobs' directory

	mu        sync.Mutex
	cancelled map[string]bool // the jobs gmark cancelled, which GRAM calls FAILED
}

// dir is where the gatekeeper's requests and globusrun -b's outputs are
// kept: jdf/<gatekeeper>/.
func (b *backend) dir() string { return filepath.Join(b.cfg.WorkDir, "jdf", b.name) }

// submitFile is where globusrun -b's output for a part is kept.
func (b *backend) submitFile(name string) string { return filepath.Join(b.dir(), name+".submit") }

// Submit prints the part's request, with a two-phase commit, and submits
// it with globusrun -b, its output kept in the part's .submit file.
//
// A component of more than one process is refused on jobmanager-sge: its
// Perl module makes a (jobType=single)(count=N) request an SGE job array
// of N one-slot tasks, each running the component's launch script, which
// starts N processes (N×N in all, N slots asked for none), where the other
// job managers ask for N processors and start the script once.
func (b *backend) Submit(ctx context.Context, r *ce.Request) (ce.Submitted, error) {
	if n := r.Job.Components[r.Component].Count; n > 1 && strings.HasSuffix(b.contact, "/jobmanager-sge") {
		return ce.Submitted{}, fmt.Errorf("gram: gatekeeper %s: a component of %d processes through jobmanager-sge would be a job array of %d tasks, each starting all %d (the job manager has no single job of several slots without an mpirun)",
			b.name, n, n, n)
	}
	cfg := printers.Config{Executable: b.cfg.Executable, WorkDir: b.jobs, Name: r.Name, Queue: b.queue, HoldUntil: r.Hold, Env: r.Env}
	var buf bytes.Buffer
	if err := b.printer.PrintComponent(&buf, r.Job, r.Component, cfg); err != nil {
		return ce.Submitted{}, err
	}
	req := bytes.TrimSuffix(buf.Bytes(), []byte("\n"))
	req = append(req, fmt.Sprintf("\n  (two_phase=%d)\n  (save_state=yes)\n", int(b.cfg.TwoPhase/time.Second))...)
	rsl := filepath.Join(b.dir(), r.Name+".rsl")
	if err := os.WriteFile(rsl, req, 0o644); err != nil {
		return ce.Submitted{}, err
	}
	contact, text, err := b.client.Submit(ctx, b.contact, rsl, b.submitFile(r.Name))
	if err != nil {
		return ce.Submitted{Output: text}, wrap(err)
	}
	return ce.Submitted{ID: contact, Output: "job " + contact}, nil
}

// Cancel cancels jobs (globusrun -k), one by one.
func (b *backend) Cancel(ctx context.Context, ids []string) error {
	var errs []error
	for _, id := range ids {
		b.mu.Lock()
		b.cancelled[id] = true
		b.mu.Unlock()
		if err := b.client.Cancel(ctx, id); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// Lookup finds the submissions that got through by their .submit files:
// each names its job's contact.
func (b *backend) Lookup(ctx context.Context, match func(string) bool) ([]ce.Found, error) {
	files, err := filepath.Glob(filepath.Join(b.dir(), "*.submit"))
	if err != nil {
		return nil, err
	}
	var out []ce.Found
	for _, f := range files {
		name := strings.TrimSuffix(filepath.Base(f), ".submit")
		if !match(name) {
			continue
		}
		text, err := os.ReadFile(f)
		if err != nil {
			continue
		}
		contact := gramcli.ParseContact(text)
		if contact == "" {
			continue
		}
		out = append(out, ce.Found{Name: name, ID: contact, Status: ce.Status{State: submitter.Queued}})
	}
	return out, nil
}

// wrap marks the errors of a gatekeeper or job manager that did not answer
// transient.
func wrap(err error) error {
	var ge *gramcli.Error
	if errors.As(err, &ge) && ge.Transient {
		return target.Transient(err)
	}
	return err
}
