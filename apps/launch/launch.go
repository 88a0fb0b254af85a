// Package launch starts the processes of one job on this machine, as real
// operating-system processes, with the environment of package jobenv, and
// waits for them. It is what the local target and the bundled scheduler
// core's runner use to run a (co-allocated) job: P processes numbered 0..P−1
// through the components in order, all sharing one rendezvous.
//
// By default the launcher starts a rendezvous server for the job in its own
// process (package rendezvous) and passes its address in GMARK_RENDEZVOUS; a
// caller that runs one server for many jobs passes its address instead, and
// NoRendezvous passes none, so that the job's rank 0 starts its own (as under
// a batch system that knows nothing of gmark).
package launch

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/gmark/gmark/apps/jobenv"
	"github.com/gmark/gmark/apps/output"
	"github.com/gmark/gmark/apps/rendezvous"
)

// Spec describes one job to launch.
type Spec struct {
	JobID      string   // GMARK_JOB_ID
	Executable string   // the gmark binary
	Args       []string // its arguments, e.g. "app", "smpi", "--supersteps", "5"
	Components []int    // processes per component, each >= 1
	Dir        string   // working directory; "" is the current one
	Env        []string // base environment; nil means os.Environ(). GMARK_ variables in it are replaced.

	Rendezvous   string // address of a rendezvous server the caller runs; "" starts one for this job
	NoRendezvous bool   // pass no rendezvous at all: rank 0 of the job starts its own

	// Output gives each process's standard output and error; nil captures
	// them in Result.Stdout and Result.Stderr.
	Output func(p Proc) (stdout, stderr io.Writer)
	// KillGrace is the time between SIGTERM and SIGKILL when the job is
	// stopped; 0 means 5 s.
	KillGrace time.Duration
}

// Proc is one process of the job.
type Proc struct {
	Rank      int
	Component int
	Pid       int
}

// Result is how one process ended.
type Result struct {
	Proc
	ExitCode int   // -1 when killed by a signal or never waited for
	Err      error // nil when the process exited 0
	Stdout   []byte
	Stderr   []byte // captured output, when Spec.Output is nil
}

// Summary reads the process's JSON summary line from its captured output.
func (r Result) Summary() (map[string]any, error) { return output.ParseSummary(r.Stdout) }

// Job is a launched job.
type Job struct {
	spec    Spec
	procs   []*proc
	srv     *rendezvous.Server
	done    chan struct{}
	results []Result

	stopOnce sync.Once
}

type proc struct {
	Proc
	cmd            *exec.Cmd
	stdout, stderr *bytes.Buffer
	exited         chan struct{}
}

// Start starts every process of the job. On error, the processes already
// started are killed.
func Start(spec Spec) (*Job, error) {
	size := 0
	for i, n := range spec.Components {
		if n < 1 {
			return nil, fmt.Errorf("launch: component %d has %d processes", i, n)
		}
		size += n
	}
	if size == 0 {
		return nil, errors.New("launch: the job has no components")
	}
	if spec.Executable == "" {
		return nil, errors.New("launch: no executable")
	}
	if spec.KillGrace == 0 {
		spec.KillGrace = 5 * time.Second
	}
	j := &Job{spec: spec, done: make(chan struct{})}
	rdv := spec.Rendezvous
	if rdv == "" && !spec.NoRendezvous && size > 1 {
		srv, err := rendezvous.Start("")
		if err != nil {
			return nil, err
		}
		j.srv, rdv = srv, srv.Addr()
	}
	if spec.NoRendezvous {
		rdv = ""
	}
	base := spec.Env
	if base == nil {
		base = os.Environ()
	}
	base = withoutJobVars(base)

	rank := 0
	for comp, n := range spec.Components {
		for range n {
			p := &proc{Proc: Proc{Rank: rank, Component: comp}, exited: make(chan struct{})}
			cmd := exec.Command(spec.Executable, spec.Args...)
			cmd.Dir = spec.Dir
			cmd.Env = append(append([]string(nil), base...), jobenv.Vars(spec.JobID, rank, size, comp, rdv)...)
			if spec.Output != nil {
				cmd.Stdout, cmd.Stderr = spec.Output(p.Proc)
			} else {
				p.stdout, p.stderr = new(bytes.Buffer), new(bytes.Buffer)
				cmd.Stdout, cmd.Stderr = p.stdout, p.stderr
			}
			if err := cmd.Start(); err != nil {
				j.kill()
				j.wait()
				if j.srv != nil {
					j.srv.Close()
				}
				return nil, fmt.Errorf("launch: starting rank %d: %w", rank, err)
			}
			p.cmd, p.Pid = cmd, cmd.Process.Pid
			j.procs = append(j.procs, p)
			rank++
		}
	}
	go func() {
		j.wait()
		if j.srv != nil {
			j.srv.Close()
		}
		close(j.done)
	}()
	return j, nil
}

// withoutJobVars drops inherited GMARK_ job variables, so that a launcher
// running inside a job does not leak its own rank into the job it starts.
func withoutJobVars(env []string) []string {
	out := make([]string, 0, len(env))
outer:
	for _, kv := range env {
		for _, n := range jobenv.Names {
			if strings.HasPrefix(kv, n+"=") {
				continue outer
			}
		}
		out = append(out, kv)
	}
	return out
}

// wait waits for every started process and records the results.
func (j *Job) wait() {
	results := make([]Result, len(j.procs))
	var wg sync.WaitGroup
	for i, p := range j.procs {
		wg.Go(func() {
			err := p.cmd.Wait()
			close(p.exited)
			res := Result{Proc: p.Proc, ExitCode: p.cmd.ProcessState.ExitCode(), Err: err}
			if p.stdout != nil {
				res.Stdout, res.Stderr = p.stdout.Bytes(), p.stderr.Bytes()
			}
			results[i] = res
		})
	}
	wg.Wait()
	j.results = results
}

// Procs lists the processes, by rank.
func (j *Job) Procs() []Proc {
	out := make([]Proc, len(j.procs))
	for i, p := range j.procs {
		out[i] = p.Proc
	}
	return out
}

// Rendezvous is the address passed in GMARK_RENDEZVOUS ("" for none).
func (j *Job) Rendezvous() string {
	if j.srv != nil {
		return j.srv.Addr()
	}
	if j.spec.NoRendezvous {
		return ""
	}
	return j.spec.Rendezvous
}

// Signal sends sig to the process of the given rank, if it still runs.
func (j *Job) Signal(rank int, sig os.Signal) error {
	if rank < 0 || rank >= len(j.procs) {
		return fmt.Errorf("launch: no rank %d", rank)
	}
	p := j.procs[rank]
	select {
	case <-p.exited:
		return fmt.Errorf("launch: rank %d has exited", rank)
	default:
	}
	return p.cmd.Process.Signal(sig)
}

// Done is closed when every process has exited.
func (j *Job) Done() <-chan struct{} { return j.done }

// Stop asks every running process to stop (SIGTERM, so the applications
// print their summaries) and kills those still running after KillGrace.
func (j *Job) Stop() {
	j.stopOnce.Do(func() {
		for _, p := range j.procs {
			select {
			case <-p.exited:
			default:
				p.cmd.Process.Signal(syscall.SIGTERM)
			}
		}
		select {
		case <-j.done:
		case <-time.After(j.spec.KillGrace):
			j.kill()
		}
	})
}

func (j *Job) kill() {
	for _, p := range j.procs {
		select {
		case <-p.exited:
		default:
			p.cmd.Process.Kill()
		}
	}
}

// Wait waits until every process has exited, or stops the job when ctx
// ends first. It returns the results by rank and an error naming the
// processes that failed.
func (j *Job) Wait(ctx context.Context) ([]Result, error) {
	select {
	case <-j.done:
	case <-ctx.Done():
		j.Stop()
		<-j.done
	}
	var failed []string
	for _, r := range j.results {
		if r.Err != nil {
			failed = append(failed, fmt.Sprintf("rank %d: %v", r.Rank, r.Err))
		}
	}
	if len(failed) > 0 {
		return j.results, fmt.Errorf("launch: job %s: %s", j.spec.JobID, strings.Join(failed, "; "))
	}
	return j.results, nil
}

// Run starts the job and waits for it.
func Run(ctx context.Context, spec Spec) ([]Result, error) {
	j, err := Start(spec)
	if err != nil {
		return nil, err
	}
	return j.Wait(ctx)
}
