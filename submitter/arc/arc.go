// Package arc is the target for ARC compute elements (`gmark submit
// --target arc`): each job, or each component of a co-allocated job, is
// submitted as xRSL (the xrsl printer's PrintComponent) to a CE's REST
// interface, with the user's proxy certificate as the client's. The CEs
// are named in the [arc] section of a targets file, one per cluster; the
// planning, claiming and tracking are package ce's.
//
// Per CE and poll, one status call asks about every job the target has
// there (A-REX answers many jobs at once); the jobs whose state moved on
// to running or to an end are then asked for their records, in one more
// call, for the LRM's start and end times, its exit code and A-REX's
// failure text. An ended job's standard output and error are copied from
// its session directory into the work directory (<name>.out, .err) before
// its end is reported, and the CE is told to clean the jobs that ended
// when the target closes. sserio's input files are staged through the
// CE: the request lists them as input files the client uploads, and the
// target puts the same deterministic content (apps.StageInput) into the
// job's session directory right after the submission.
//
// State mapping (A-REX's REST states): ACCEPTING, ACCEPTED, PREPARING,
// PREPARED, SUBMITTING, QUEUING, HELD and OTHER are queued; RUNNING,
// EXITINGLRMS, EXECUTED, FINISHING and KILLING running; FINISHED succeeded
// (failed with a non-zero exit code); FAILED failed; KILLED cancelled;
// WIPED failed. A polled state lags the job by up to the CE's information
// provider period (docs/grid.md).
package arc

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/gmark/gmark/apps"
	"github.com/gmark/gmark/internal/arcrest"
	"github.com/gmark/gmark/printers"
	"github.com/gmark/gmark/submitter/ce"
	"github.com/gmark/gmark/submitter/target"
	"github.com/gmark/gmark/workload"
)

// CEConfig is one CE of the target: a cluster, by its name.
type CEConfig struct {
	Name string `toml:"name" json:"name"`
	// URL is the CE's A-REX endpoint, https://host:port/arex.
	URL string `toml:"url" json:"url"`
	// Queue is the CE's queue (its share, the LRM's partition); "" is the
	// CE's default.
	Queue string `toml:"queue" json:"queue,omitempty"`
}

// Config is the [arc] section of a targets file.
type Config struct {
	CEs []CEConfig `toml:"ce" json:"ces"`
	// Proxy is the proxy certificate. Default $X509_USER_PROXY, else
	// /tmp/x509up_u<uid> (where arcproxy and grid-proxy-init write it).
	Proxy string `toml:"proxy" json:"proxy"`
	// CADir is the trusted-CA directory. Default $X509_CERT_DIR, else
	// /etc/grid-security/certificates.
	CADir string `toml:"ca_dir" json:"ca_dir"`
	// Poll is how often each CE is asked. Default 2s.
	Poll time.Duration `toml:"poll" json:"poll_ns"`
	// UnreachableAfter is how long a CE may fail to answer before its
	// jobs are given up as lost. Default 2m.
	UnreachableAfter time.Duration `toml:"unreachable_after" json:"unreachable_after_ns"`
	// ClaimRetry and ClaimTries claim the components of co-allocated jobs
	// as the Slurm target does. Defaults 1m and 3.
	ClaimRetry time.Duration `toml:"claim_retry" json:"claim_retry_ns"`
	ClaimTries int           `toml:"claim_tries" json:"claim_tries"`
	// WorkDir holds the release and rendezvous files and the jobs' output;
	// the CEs' worker nodes must see it at the same path, and the CEs'
	// mapped accounts must be able to reach it. Default: the run's
	// directory.
	WorkDir string `toml:"workdir" json:"workdir"`
	// Executable is the gmark binary the jobs run, on the worker nodes.
	// Default: this gmark.
	Executable string `toml:"executable" json:"executable"`
	// RequestTimeout bounds every call to a CE. Default 60s.
	RequestTimeout time.Duration `toml:"request_timeout" json:"request_timeout_ns"`
	// Keep leaves the jobs on the CEs when the target closes (by default
	// the ended ones are cleaned).
	Keep bool `toml:"keep" json:"keep"`
}

// Target is the ARC target: package ce's engine over ARC CEs.
type Target struct {
	*ce.Target
	cfg      Config
	backends []*backend
}

// Check checks what New checks without making anything: a CE named, each
// an A-REX endpoint, and the credentials readable (the proxy not expired).
func (cfg Config) Check() error {
	if len(cfg.CEs) == 0 {
		return errors.New("arc: no CE: name one in the [arc] section ([[arc.ce]] name, url)")
	}
	if cfg.Proxy == "" {
		cfg.Proxy = DefaultProxy()
	}
	if cfg.CADir == "" {
		cfg.CADir = DefaultCADir()
	}
	if _, err := arcrest.TLSConfig(cfg.Proxy, cfg.CADir); err != nil {
		return fmt.Errorf("arc: %v", err)
	}
	for _, c := range cfg.CEs {
		if _, err := arcrest.New(arcrest.Options{Endpoint: c.URL, Proxy: cfg.Proxy, CADir: cfg.CADir}); err != nil {
			return fmt.Errorf("arc: CE %s: %v", c.Name, err)
		}
	}
	return nil
}

// New checks the configuration and reads the credentials.
func New(cfg Config) (*Target, error) {
	if len(cfg.CEs) == 0 {
		return nil, errors.New("arc: no CE: name one in the [arc] section ([[arc.ce]] name, url)")
	}
	if cfg.Proxy == "" {
		cfg.Proxy = DefaultProxy()
	}
	if cfg.CADir == "" {
		cfg.CADir = DefaultCADir()
	}
	if cfg.RequestTimeout <= 0 {
		cfg.RequestTimeout = time.Minute
	}
	var err error
	if cfg.Executable, cfg.WorkDir, err = target.JobFiles("arc", cfg.Executable, cfg.WorkDir, "jdf"); err != nil {
		return nil, err
	}
	p, err := printers.Lookup("xrsl")
	if err != nil {
		return nil, err
	}
	t := &Target{cfg: cfg}
	ccfg := ce.Config{Kind: "arc", WorkDir: cfg.WorkDir, Poll: cfg.Poll, UnreachableAfter: cfg.UnreachableAfter,
		ClaimRetry: cfg.ClaimRetry, ClaimTries: cfg.ClaimTries}
	for _, c := range cfg.CEs {
		client, err := arcrest.New(arcrest.Options{Endpoint: c.URL, Proxy: cfg.Proxy, CADir: cfg.CADir, Timeout: cfg.RequestTimeout})
		if err != nil {
			return nil, fmt.Errorf("arc: CE %s: %v", c.Name, err)
		}
		b := &backend{name: c.Name, queue: c.Queue, client: client, printer: p.(printers.ComponentPrinter),
			exe: cfg.Executable, dir: cfg.WorkDir, ended: map[string]bool{}}
		t.backends = append(t.backends, b)
		ccfg.CEs = append(ccfg.CEs, ce.CE{Name: c.Name, Backend: b})
	}
	if t.Target, err = ce.New(ccfg); err != nil {
		return nil, err
	}
	return t, nil
}

// DefaultProxy is where the grid clients keep the user's proxy.
func DefaultProxy() string {
	if p := os.Getenv("X509_USER_PROXY"); p != "" {
		return p
	}
	return "/tmp/x509up_u" + strconv.Itoa(os.Getuid())
}

// DefaultCADir is where the grid clients find the trusted CAs.
func DefaultCADir() string {
	if d := os.Getenv("X509_CERT_DIR"); d != "" {
		return d
	}
	return "/etc/grid-security/certificates"
}

// Config is the configuration in use, for provenance.
func (t *Target) Config() Config { return t.cfg }

// Close stops the target and, unless Keep, cleans the jobs that ended off
// their CEs (their records and session directories).
func (t *Target) Close() error {
	err := t.Target.Close()
	if t.cfg.Keep {
		return err
	}
	for _, b := range t.backends {
		b.cleanEnded()
	}
	return err
}

// backend is one CE.
type backend struct {
	name, queue string
	client      *arcrest.Client
	printer     printers.ComponentPrinter
	exe, dir    string

	mu    sync.Mutex
	known map[string]*known // what the last records said, by id
	ended map[string]bool   // the jobs whose end was reported, to clean
	snap  []ce.Found        // the CE's jobs by name, for Lookup
	snapT time.Time
}

// known is what the target keeps of a job's record between polls.
type known struct {
	info     *arcrest.Info
	noOutput time.Time // when its output was first found missing after it ended
	noExit   time.Time // when it was first found FINISHED without an exit code
}

// Submit prints the part's xRSL, posts it, and uploads its staged inputs.
func (b *backend) Submit(ctx context.Context, r *ce.Request) (ce.Submitted, error) {
	cfg := printers.Config{Executable: b.exe, WorkDir: b.dir, Name: r.Name, Queue: b.queue, HoldUntil: r.Hold, Env: r.Env}
	var buf bytes.Buffer
	if err := b.printer.PrintComponent(&buf, r.Job, r.Component, cfg); err != nil {
		return ce.Submitted{}, err
	}
	if err := os.WriteFile(filepath.Join(b.dir, "jdf", r.Name+".xrsl"), buf.Bytes(), 0o644); err != nil {
		return ce.Submitted{}, err
	}
	jobs, err := b.client.Submit(ctx, buf.Bytes())
	if err != nil {
		if arcrest.Temporary(err) {
			return ce.Submitted{}, target.Transient(err)
		}
		return ce.Submitted{}, err
	}
	if len(jobs) != 1 {
		return ce.Submitted{}, fmt.Errorf("A-REX made %d jobs of one request", len(jobs))
	}
	j := jobs[0]
	if !j.OK() {
		return ce.Submitted{Output: j.Code + " " + j.Reason}, fmt.Errorf("A-REX refused the job: %s %s", j.Code, j.Reason)
	}
	out := fmt.Sprintf("job %s, %s", j.ID, j.State)
	if err := b.stage(ctx, j.ID, r.Job); err != nil {
		b.client.Kill(context.WithoutCancel(ctx), []string{j.ID})
		return ce.Submitted{Output: out}, fmt.Errorf("staging the inputs of job %s: %v (the job was killed)", j.ID, err)
	}
	return ce.Submitted{ID: j.ID, Output: out}, nil
}

// stage uploads the job's staged inputs into its session directory, made
// once in the work directory's inputs/.
func (b *backend) stage(ctx context.Context, id string, j *workload.Job) error {
	names := printers.StagedInputs(j)
	if len(names) == 0 {
		return nil
	}
	dir := filepath.Join(b.dir, "inputs")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	for i, name := range names {
		path := filepath.Join(dir, name)
		if _, err := os.Stat(path); err != nil {
			n, kb := inputIndex(name)
			if n == 0 {
				return fmt.Errorf("input %s: not an sserio input name", name)
			}
			if err := apps.StageInput(path, n, kb*1024); err != nil {
				return err
			}
		}
		var err error
		for try := 0; try < 3; try++ {
			if err = b.put(ctx, id, name, path); err == nil || !arcrest.Temporary(err) {
				break
			}
			time.Sleep(time.Duration(try+1) * time.Second)
		}
		if err != nil {
			return fmt.Errorf("input %d (%s): %w", i+1, name, err)
		}
	}
	return nil
}

func (b *backend) put(ctx context.Context, id, name, path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	return b.client.Put(ctx, id, name, f)
}

// inputIndex reads gmark-input<i>-<KB>KB.dat.
func inputIndex(name string) (int, int64) {
	rest, ok := strings.CutPrefix(name, "gmark-input")
	rest, ok2 := strings.CutSuffix(rest, "KB.dat")
	i, kbText, ok3 := strings.Cut(rest, "-")
	n, err := strconv.Atoi(i)
	kb, err2 := strconv.ParseInt(kbText, 10, 64)
	if !ok || !ok2 || !ok3 || err != nil || err2 != nil || n < 1 || n > 2 || kb < 1 {
		return 0, 0
	}
	return n, kb
}

// Cancel kills jobs; a job the CE no longer has, or that ended, is no
// error.
func (b *backend) Cancel(ctx context.Context, ids []string) error {
	jobs, err := b.client.Kill(ctx, ids)
	if err != nil {
		return err
	}
	var errs []error
	for i, j := range jobs {
		if !j.OK() && j.Code != "404" && j.Code != "409" {
			errs = append(errs, fmt.Errorf("kill %s: %s %s", ids[i], j.Code, j.Reason))
		}
	}
	return errors.Join(errs...)
}

// cleanEnded cleans the jobs whose end was reported off the CE.
func (b *backend) cleanEnded() {
	b.mu.Lock()
	var ids []string
	for id := range b.ended {
		ids = append(ids, id)
	}
	b.ended = map[string]bool{}
	b.mu.Unlock()
	for len(ids) > 0 {
		n := min(len(ids), 500)
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		b.client.Clean(ctx, ids[:n])
		cancel()
		ids = ids[n:]
	}
}
