// Package agent is the placeholder itself: the life cycle of the thesis's
// Figs. 3.4 and 4.4. On start it asks the metaqueue for a command (nextcmd,
// with its site and local job id); on refusal it says so (dequeue) and
// exits 111; otherwise it runs the command, resubmits itself to the same
// local queue, reports the job done with its successor's local id
// (donejob), and exits. That is the classic mode: one job per local job.
// The pilot mode, an extension and labelled so in every record, pulls again
// after each job until its wall time runs out.
package agent

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"strconv"
	"syscall"
	"time"

	"github.com/gmark/gmark/internal/httpapi"
	"github.com/gmark/gmark/placeholder/metaqueue"
	"github.com/gmark/gmark/placeholder/site"
)

// ExitRefused is the placeholder's exit status when the metaqueue has no
// job for it (the thesis's 111).
const ExitRefused = 111

// Options run one placeholder.
type Options struct {
	Config *site.AgentConfig
	// LocalID is the placeholder's id in its local queue; default
	// $SLURM_JOB_ID on a Slurm site, the pid on a zinf site.
	LocalID string
	Host    string // default os.Hostname
	// Output receives the jobs' output and the placeholder's log (default
	// standard output, which the script sends to Placeholder.oID).
	Output io.Writer
	Now    func() time.Time
}

type agent struct {
	opts   Options
	cfg    *site.AgentConfig
	client *metaqueue.Client
	ident  metaqueue.Ident
	seq    int64
	start  time.Time
	// regulate is the self-regulation decision of the last pull.
	regulate string
}

// Run runs the life cycle and returns the exit status: 0 after a job (or,
// for a pilot, at its wall time), ExitRefused when refused.
func Run(ctx context.Context, opts Options) (int, error) {
	a, err := newAgent(opts)
	if err != nil {
		return 1, err
	}
	if a.cfg.Site.Mode == site.Pilot {
		return a.pilot(ctx)
	}
	return a.classic(ctx)
}

func newAgent(opts Options) (*agent, error) {
	cfg := opts.Config
	if cfg == nil {
		return nil, errors.New("agent: no configuration")
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.Output == nil {
		opts.Output = os.Stdout
	}
	if opts.Host == "" {
		opts.Host, _ = os.Hostname()
	}
	if opts.LocalID == "" {
		switch cfg.Site.Kind {
		case site.Slurm:
			opts.LocalID = os.Getenv("SLURM_JOB_ID")
			if opts.LocalID == "" {
				return nil, errors.New("agent: a Slurm placeholder runs as a batch job ($SLURM_JOB_ID is not set)")
			}
		case site.Koala:
			// The core's job id, which its process execution hands over.
			opts.LocalID = os.Getenv("GMARK_JOB_ID")
			if opts.LocalID == "" {
				return nil, errors.New("agent: a koala placeholder runs as a job of the core ($GMARK_JOB_ID is not set)")
			}
		default:
			opts.LocalID = strconv.Itoa(os.Getpid())
		}
	}
	token := ""
	if cfg.TokenFile != "" {
		t, err := httpapi.ReadTokenFile(cfg.TokenFile)
		if err != nil {
			return nil, fmt.Errorf("agent: %v", err)
		}
		token = t
	}
	a := &agent{opts: opts, cfg: cfg, start: opts.Now(),
		ident: metaqueue.Ident{Site: cfg.Site.Name, Host: opts.Host, LocalID: opts.LocalID}}
	a.client = &metaqueue.Client{URL: cfg.Server, Token: token, Retries: cfg.Retries, Wait: time.Duration(cfg.RetryWait),
		HTTP: &http.Client{Timeout: 2 * time.Minute},
		OnRetry: func(err error) {
			a.logf("the metaqueue did not answer (%v); trying again in %v", err, time.Duration(cfg.RetryWait))
		}}
	return a, nil
}

func (a *agent) logf(format string, args ...any) {
	fmt.Fprintf(a.opts.Output, "placeholder %s/%s %s: %s\n", a.cfg.Group, a.cfg.Site.Name, a.opts.LocalID, fmt.Sprintf(format, args...))
}

// next pulls until it gets a job (nil: refused, the placeholder must
// leave). A DAG group may answer "wait": then it pulls again.
func (a *agent) next(ctx context.Context) (*metaqueue.Order, error) {
	for {
		a.seq++
		r, err := a.client.Pull(ctx, a.cfg.Group, metaqueue.PullRequest{Ident: a.ident, Mode: a.cfg.Site.Mode, Seq: a.seq, Submitted: site.Submitted()})
		switch {
		case err != nil && metaqueue.Refused(err):
			a.logf("refused: %v", err)
			return nil, nil
		case err != nil:
			// The thesis's placeholder, its retries spent, takes the
			// silence for "no work" and stops.
			a.logf("%v: stopping", err)
			return nil, nil
		case r.Order != nil:
			a.regulate = r.Regulate
			return r.Order, nil
		case r.Stop != "":
			a.logf("no job: %s", r.Stop)
			return nil, nil
		}
		wait := time.Duration(r.Wait * float64(time.Second))
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(max(wait, 100*time.Millisecond)):
		}
	}
}

// leave tells the metaqueue the placeholder goes (dequeue).
func (a *agent) leave(ctx context.Context, reason, newID string, at time.Time) {
	err := a.client.Dequeue(ctx, a.cfg.Group, metaqueue.DequeueRequest{Ident: a.ident, Reason: reason, NewID: newID, Resubmitted: at})
	if err != nil {
		a.logf("dequeue: %v", err)
	}
}

func (a *agent) classic(ctx context.Context) (int, error) {
	order, err := a.next(ctx)
	if err != nil {
		return 1, err
	}
	if order == nil {
		a.leave(ctx, "refused", "", time.Time{})
		return ExitRefused, nil
	}
	var extra string
	if a.regulate == metaqueue.Increase {
		// Fig. 3.7: the extra placeholder is submitted before the job runs.
		extra, _, _ = a.resubmit(ctx)
	}
	started, exit, ended := a.run(ctx, order)
	var newID, resubErr string
	var at time.Time
	if a.regulate != metaqueue.Reduce {
		newID, at, resubErr = a.resubmit(ctx)
	}
	err = a.client.Done(ctx, a.cfg.Group, metaqueue.DoneRequest{Ident: a.ident, Attempt: order.Attempt, Exit: exit,
		Started: started, Ended: ended, NewID: newID, Resubmitted: at, ExtraID: extra, ResubmitError: resubErr})
	if err != nil {
		return 1, fmt.Errorf("reporting job %d done: %w", order.Job, err)
	}
	return 0, nil
}

// pilot pulls jobs until refused, or until what is left of its wall time
// is shorter than the longest job it has run (then it resubmits itself and
// leaves).
func (a *agent) pilot(ctx context.Context) (int, error) {
	wall, _ := a.cfg.Site.Wall()
	var longest time.Duration
	for {
		if wall > 0 && a.opts.Now().Add(longest).After(a.start.Add(wall)) {
			newID, at, _ := a.resubmit(ctx)
			a.leave(ctx, metaqueue.EndWallTime, newID, at)
			return 0, nil
		}
		order, err := a.next(ctx)
		if err != nil {
			return 1, err
		}
		if order == nil {
			a.leave(ctx, "refused", "", time.Time{})
			return ExitRefused, nil
		}
		started, exit, ended := a.run(ctx, order)
		longest = max(longest, ended.Sub(started))
		err = a.client.Done(ctx, a.cfg.Group, metaqueue.DoneRequest{Ident: a.ident, Attempt: order.Attempt, Exit: exit,
			Started: started, Ended: ended})
		if err != nil {
			return 1, fmt.Errorf("reporting job %d done: %w", order.Job, err)
		}
	}
}

// run runs a job's command line with /bin/sh (the thesis's eval) and
// returns its start, exit status and end.
func (a *agent) run(ctx context.Context, o *metaqueue.Order) (time.Time, int, time.Time) {
	cmd := exec.CommandContext(ctx, "/bin/sh", "-c", o.Command)
	cmd.Stdout, cmd.Stderr = a.opts.Output, a.opts.Output
	cmd.Env = append(os.Environ(),
		"GMARK_PLACEHOLDER_JOB="+strconv.FormatInt(o.Job, 10),
		"GMARK_PLACEHOLDER_ATTEMPT="+strconv.FormatInt(o.Attempt, 10),
		"GMARK_PLACEHOLDER_SITE="+a.cfg.Site.Name,
		"GMARK_PLACEHOLDER_LOCAL_ID="+a.opts.LocalID)
	started := a.opts.Now()
	err := cmd.Run()
	ended := a.opts.Now()
	return started, exitStatus(err), ended
}

func exitStatus(err error) int {
	if err == nil {
		return 0
	}
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			return 128 + int(ws.Signal())
		}
		return ee.ExitCode()
	}
	return 127
}

// resubmit submits the placeholder script again to the same local queue.
func (a *agent) resubmit(ctx context.Context) (newID string, at time.Time, errText string) {
	st, err := site.New(a.cfg.Site, a.cfg.Script)
	if err == nil {
		at = a.opts.Now()
		newID, err = st.Submit(ctx)
	}
	if err != nil {
		a.logf("resubmitting: %v", err)
		return "", time.Time{}, err.Error()
	}
	return newID, at, ""
}
