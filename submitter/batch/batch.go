// Package batch holds the targets for batch systems driven by their command
// line tools, one job description file per job: HTCondor (condor_submit,
// with the classad printer's submit files) and Grid Engine (qsub, with the
// sge printer's scripts). Both poll the queue (condor_q -json, qstat -xml)
// and read finished jobs from the history (condor_history -json, qacct).
//
// Each job is named gmark-<job id>.a<attempt>-<run> (HTCondor: the job
// attribute GmarkName; Grid Engine: the job name), which is its idempotency
// key for Find after a crash. A co-allocated job is one batch job (the
// printers make it a parallel-universe job, or a script that starts all its
// processes with distinct ranks; docs/apps.md): these
// systems do not place components on different pools.
package batch

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/gmark/gmark/printers"
	"github.com/gmark/gmark/record"
	"github.com/gmark/gmark/submitter"
	"github.com/gmark/gmark/submitter/target"
)

// Config is the [condor] or [sge] section of a targets file.
type Config struct {
	// WorkDir is where job descriptions are written and jobs run; the
	// execute hosts must see it at the same path. Default: the run's
	// directory.
	WorkDir string `toml:"workdir" json:"workdir"`
	// Executable is the gmark binary jobs run. Default: this gmark.
	Executable string `toml:"executable" json:"executable"`
	// SubmitArgs are added to every condor_submit or qsub command line.
	SubmitArgs []string `toml:"submit_args" json:"submit_args,omitempty"`
	// Poll is how often the queue is asked. Default 2s.
	Poll time.Duration `toml:"poll" json:"poll_ns"`
	// UnreachableAfter is how long the system may fail to answer about a
	// job before it is given up as lost. Default 2m.
	UnreachableAfter time.Duration `toml:"unreachable_after" json:"unreachable_after_ns"`
	// CommandTimeout bounds every command. Default 60s.
	CommandTimeout time.Duration `toml:"command_timeout" json:"command_timeout_ns"`
}

// status is what a batch system says about one job.
type status struct {
	class      string // queued, running, succeeded, failed, cancelled
	submit     int64  // when the system accepted the job, Unix seconds, 0 unknown
	start, end int64  // Unix seconds, 0 unknown
	exit       *int
	reason     string
	raw        string // the system's own words, for the event payload
}

// system is what differs between HTCondor and Grid Engine.
type system interface {
	name() string
	printer() string
	commands() []string
	submit(ctx context.Context, t *Target, script, jobName string) (id, out string, err error)
	// queue returns the jobs in the queue, by id, and their names.
	queue(ctx context.Context, t *Target) (map[string]status, map[string]string, error)
	// history looks up a job that left the queue; ok is false when the
	// history does not (yet) have it.
	history(ctx context.Context, t *Target, id string) (st status, ok bool, err error)
	// historyByName finds a finished job by name.
	historyByName(ctx context.Context, t *Target, jobName string) (id string, ok bool, err error)
	cancel(ctx context.Context, t *Target, id string) error
}

// Target is a batch-system target.
type Target struct {
	cfg     Config
	sys     system
	printer printers.Printer
	pcfg    printers.Config

	mu    sync.Mutex
	rep   submitter.Reporter
	jobs  map[string]*bjob
	polls target.Pollers

	failingSince time.Time
	// orphans are the submit commands a killed submitter left running.
	orphans target.Orphans
}

type bjob struct {
	sub       submitter.Submission
	id        string
	submitted time.Time
	reported  submitter.State
	started   int64
	missing   time.Time
	cancelled bool
}

func newTarget(cfg Config, sys system) (*Target, error) {
	if cfg.Poll <= 0 {
		cfg.Poll = 2 * time.Second
	}
	if cfg.UnreachableAfter <= 0 {
		cfg.UnreachableAfter = 2 * time.Minute
	}
	if cfg.CommandTimeout <= 0 {
		cfg.CommandTimeout = time.Minute
	}
	var err error
	if cfg.Executable, cfg.WorkDir, err = target.JobFiles(sys.name(), cfg.Executable, cfg.WorkDir, "jdf"); err != nil {
		return nil, err
	}
	p, err := printers.Lookup(sys.printer())
	if err != nil {
		return nil, err
	}
	return &Target{cfg: cfg, sys: sys, printer: p, pcfg: printers.Config{Executable: cfg.Executable, WorkDir: cfg.WorkDir},
		jobs: map[string]*bjob{}}, nil
}

// Config is the configuration in use, for provenance.
func (t *Target) Config() Config { return t.cfg }

func (t *Target) Name() string { return t.sys.name() }
func (t *Target) Caps() submitter.Caps {
	return submitter.Caps{Find: true, Cancel: true}
}

// Missing says which of the system's commands are not installed ("" when
// none is missing): tests skip with it.
func Missing(sys string) string {
	var s system = condor{}
	if sys == "sge" {
		s = sge{}
	}
	var missing []string
	for _, c := range s.commands() {
		if _, err := exec.LookPath(c); err != nil {
			missing = append(missing, c)
		}
	}
	return strings.Join(missing, ", ")
}

func (t *Target) Watch(ctx context.Context, r submitter.Reporter) error {
	if m := Missing(t.sys.name()); m != "" {
		return fmt.Errorf("%s not found: is %s installed?", m, t.sys.name())
	}
	t.mu.Lock()
	t.rep = r
	t.mu.Unlock()
	t.polls.Go(ctx, t.cfg.Poll, t.poll)
	return nil
}

func jobName(s *submitter.Submission) string {
	return "gmark-" + s.Job.ID + ".a" + strconv.Itoa(s.Attempt) + "-" + s.RunID
}

// transientMessages are the batch systems' ways of saying "not now".
var transientMessages = []string{"Failed to connect", "Connection refused", "timed out", "temporarily",
	"unable to contact qmaster", "unable to send message to qmaster", "Can't find address of local schedd",
	"failed receiving gdi request", "Connection reset"}

func (t *Target) run(ctx context.Context, name string, args ...string) ([]byte, error) {
	return target.Command{Timeout: t.cfg.CommandTimeout, TransientMessages: transientMessages}.Run(ctx, name, args...)
}

// Submit prints the job's description and submits it.
func (t *Target) Submit(ctx context.Context, s *submitter.Submission) (submitter.Receipt, error) {
	var buf bytes.Buffer
	if err := t.printer.Print(&buf, s.Job, t.pcfg); err != nil {
		return submitter.Receipt{}, err
	}
	name := jobName(s)
	path := filepath.Join(t.cfg.WorkDir, "jdf", name+"."+t.printer.Ext())
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		return submitter.Receipt{}, err
	}
	now := time.Now()
	id, out, err := t.sys.submit(ctx, t, path, name)
	if err != nil {
		return submitter.Receipt{Output: out}, err
	}
	t.track(s, id, now)
	zero := 0
	return submitter.Receipt{TargetID: t.sys.name() + ":" + id, Output: out, ExitStatus: &zero}, nil
}

func (t *Target) track(s *submitter.Submission, id string, at time.Time) {
	t.mu.Lock()
	t.jobs[s.Key] = &bjob{sub: *s, id: id, submitted: at}
	if t.rep != nil {
		t.rep.Report(submitter.Update{Key: s.Key, State: submitter.Queued, Time: time.Now()})
	}
	t.mu.Unlock()
}

// Find looks for the job by name in the queue, then in the history.
func (t *Target) Find(ctx context.Context, s *submitter.Submission) (submitter.Receipt, bool, error) {
	name := jobName(s)
	// A submit command of this submission that a killed submitter left
	// running may still be submitting it: wait for it, then look.
	if err := t.orphans.Wait(ctx, name, t.cfg.CommandTimeout); err != nil {
		return submitter.Receipt{}, false, err
	}
	_, names, err := t.sys.queue(ctx, t)
	if err != nil {
		return submitter.Receipt{}, false, err
	}
	for id, n := range names {
		if n == name {
			t.track(s, id, time.Now())
			return submitter.Receipt{TargetID: t.sys.name() + ":" + id, Output: "found in the queue by name"}, true, nil
		}
	}
	id, ok, err := t.sys.historyByName(ctx, t, name)
	if err != nil || !ok {
		return submitter.Receipt{}, false, err
	}
	t.track(s, id, time.Now())
	return submitter.Receipt{TargetID: t.sys.name() + ":" + id, Output: "found in the history by name"}, true, nil
}

// Track resumes tracking a job by its target id.
func (t *Target) Track(ctx context.Context, s *submitter.Submission, r submitter.Receipt) error {
	id, ok := strings.CutPrefix(r.TargetID, t.sys.name()+":")
	if !ok || id == "" {
		return fmt.Errorf("target id %q is not a %s job", r.TargetID, t.sys.name())
	}
	t.track(s, id, time.Time{})
	return nil
}

func (t *Target) Cancel(ctx context.Context, s *submitter.Submission) error {
	t.mu.Lock()
	j := t.jobs[s.Key]
	if j != nil {
		j.cancelled = true
	}
	t.mu.Unlock()
	if j == nil {
		return nil
	}
	return t.sys.cancel(ctx, t, j.id)
}

// Close stops the poller.
func (t *Target) Close() error {
	t.polls.Close()
	return nil
}

func (t *Target) poll(ctx context.Context) {
	t.mu.Lock()
	jobs := make([]*bjob, 0, len(t.jobs))
	for _, j := range t.jobs {
		jobs = append(jobs, j)
	}
	rep := t.rep
	t.mu.Unlock()
	if len(jobs) == 0 {
		return
	}
	asked := time.Now()
	q, _, err := t.sys.queue(ctx, t)
	if err != nil {
		if t.failingSince.IsZero() {
			t.failingSince = asked
			rep.Annotate(record.AnnotationTargetError, t.sys.name(), err.Error())
		}
		if down := time.Since(t.failingSince); down > t.cfg.UnreachableAfter {
			for _, j := range jobs {
				t.report(j, status{class: "failed", reason: fmt.Sprintf("lost: %s unreachable for %s: %v", t.sys.name(), down.Round(time.Second), err)})
			}
		}
		return
	}
	if !t.failingSince.IsZero() {
		rep.Annotate(record.AnnotationTargetRecovered, t.sys.name(), "answering again")
		t.failingSince = time.Time{}
	}
	for _, j := range jobs {
		if st, ok := q[j.id]; ok {
			j.missing = time.Time{}
			t.report(j, st)
			continue
		}
		if j.submitted.After(asked) {
			continue
		}
		st, ok, err := t.sys.history(ctx, t, j.id)
		if err == nil && ok {
			t.report(j, st)
			continue
		}
		if j.missing.IsZero() {
			j.missing = time.Now()
		} else if time.Since(j.missing) > t.cfg.UnreachableAfter {
			t.report(j, status{class: "failed", reason: fmt.Sprintf("lost: job %s left the queue and is not in the history", j.id)})
		}
	}
}

// report turns a status into an update when the state changed.
func (t *Target) report(j *bjob, st status) {
	var s submitter.State
	switch st.class {
	case "running":
		s = submitter.Running
	case "succeeded":
		s = submitter.Succeeded
	case "failed":
		s = submitter.Failed
	case "cancelled":
		s = submitter.Cancelled
	default:
		s = submitter.Queued
	}
	if s == j.reported || (s == submitter.Queued && j.reported == submitter.Running) {
		return
	}
	j.reported = s
	u := submitter.Update{Key: j.sub.Key, State: s, Time: time.Now(), Reason: st.reason, ExitStatus: st.exit}
	if st.start > 0 {
		u.Start = time.Unix(st.start, 0)
	}
	if st.submit > 0 {
		u.Submitted = time.Unix(st.submit, 0)
	}
	if s.Final() {
		if st.end > 0 {
			u.End = time.Unix(st.end, 0)
		}
		if s == submitter.Cancelled && u.Reason == "" {
			u.Reason = "cancelled in " + t.sys.name()
			if j.cancelled {
				u.Reason = "cancelled by gmark"
			}
		}
		if st.raw != "" {
			u.Detail = []byte(st.raw)
		}
		t.mu.Lock()
		delete(t.jobs, j.sub.Key)
		t.mu.Unlock()
	}
	t.mu.Lock()
	rep := t.rep
	t.mu.Unlock()
	rep.Report(u)
}

var _ submitter.Target = (*Target)(nil)
