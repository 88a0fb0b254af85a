// Package procexec runs the scheduler core's jobs as real processes: the
// `gmark app` programs, one process per processor, all components of a job
// started together by the apps launcher. Time is scaled like the core's
// clock: a trace job of 200 s on a core running 100 times faster than the
// wall clock holds its processes for 2 s.
package procexec

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/gmark/gmark/apps"
	"github.com/gmark/gmark/apps/jobenv"
	"github.com/gmark/gmark/apps/launch"
	"github.com/gmark/gmark/apps/output"
	"github.com/gmark/gmark/koala/core"
	"github.com/gmark/gmark/koala/grid"
	"github.com/gmark/gmark/workload"
)

// Executor implements core.Executor with real processes.
//
// Each job is confined to its own directory, Dir/<job id>/, made afresh
// when it starts: its processes run there, a --workdir must be a relative
// path that stays inside it (no "..", no absolute path; the directory is
// new, so it holds no symbolic link the job did not make), and no file a
// process writes may grow beyond MaxOutput bytes (RLIMIT_FSIZE: the kernel
// stops the process with SIGXFSZ). Jobs that ask for more are refused at
// submission (Screen).
type Executor struct {
	Gmark     string  // the gmark binary the jobs run
	Dir       string  // each job works in Dir/<job id>/ (its output, its pid file)
	TimeScale float64 // core seconds per wall second
	MaxOutput int64   // the largest file a job's process may write, in bytes (the grid's max_output)
	// PlaceholderDirs are the absolute directories whose agent.json files
	// a placeholder job may name (the grid's placeholder_dirs): its agent
	// runs the commands of the metaqueue the file names.
	PlaceholderDirs []string
	// Exited reports the end of a job's component. It is called from the
	// executor's goroutines: it must hand the report to the core's driver.
	Exited func(jobID string, comp int, ok bool, reason string)

	mu   sync.Mutex
	jobs map[string]*launch.Job
}

// startedDir, under Dir, holds what the executor started: one file per
// running job (see started.go). It is outside every job's directory, so
// that no job can add a pid of its choosing for Cleanup to kill.
const startedDir = ".started"

// Start implements core.Executor. Runners: the IRunner's components find
// each other through a rendezvous service the executor runs for the job
// (the IRunner's per-job nameserver); the others get none, and a parallel
// application's rank 0 starts its own, as under a batch system.
func (e *Executor) Start(j *core.Job, sites []string, _ []float64) ([]time.Duration, error) {
	scale := e.TimeScale
	if scale <= 0 {
		scale = 1
	}
	if err := e.Screen(&j.Spec); err != nil { // a job restored from an older state was not screened
		return nil, err
	}
	dir, err := e.jobDir(j.ID)
	if err != nil {
		return nil, err
	}
	args := append([]string{"app", j.Spec.App.Name}, scaledArgs(&j.Spec, scale)...)
	comps := make([]int, len(j.Components))
	for i, c := range j.Components {
		comps[i] = c.Size
	}
	var files []*os.File
	var mu sync.Mutex
	spec := launch.Spec{
		JobID: j.ID, Executable: e.Gmark, Args: args, Components: comps, Dir: dir, Env: jobEnv(os.Environ()),
		NoRendezvous: j.Opts.Runner != core.IRunner, KillGrace: 2 * time.Second,
		Output: func(p launch.Proc) (io.Writer, io.Writer) {
			out, err1 := os.Create(filepath.Join(dir, fmt.Sprintf("rank-%d.out", p.Rank)))
			errf, err2 := os.Create(filepath.Join(dir, fmt.Sprintf("rank-%d.err", p.Rank)))
			if err1 != nil || err2 != nil {
				return io.Discard, io.Discard
			}
			mu.Lock()
			files = append(files, out, errf)
			mu.Unlock()
			return out, errf
		},
	}
	lj, err := launch.Start(spec)
	if err != nil {
		return nil, err
	}
	for _, p := range lj.Procs() {
		if err := e.limitFiles(p.Pid); err != nil {
			lj.Stop()
			return nil, fmt.Errorf("limiting the size of rank %d's files: %v", p.Rank, err)
		}
	}
	record := e.recordStarted(j.ID, lj.Procs())
	e.mu.Lock()
	if e.jobs == nil {
		e.jobs = map[string]*launch.Job{}
	}
	e.jobs[j.ID] = lj
	e.mu.Unlock()
	id := j.ID
	go func() {
		results, _ := lj.Wait(context.Background())
		mu.Lock()
		for _, f := range files {
			f.Close()
		}
		mu.Unlock()
		if record != "" {
			_ = os.Remove(record)
		}
		e.mu.Lock()
		delete(e.jobs, id)
		e.mu.Unlock()
		for comp := range comps {
			ok, reason := true, ""
			for _, r := range results {
				if r.Component != comp || r.Err == nil {
					continue
				}
				ok = false
				if reason == "" {
					reason = e.describe(dir, r)
				}
			}
			if e.Exited != nil {
				e.Exited(id, comp, ok, reason)
			}
		}
	}()
	return nil, nil
}

// secretVars are variables of the server's environment that its jobs must
// not see: with the token, a job could change the scheduler's state.
var secretVars = []string{"GMARK_KOALA_TOKEN"}

// jobEnv is the server's environment less its secrets.
func jobEnv(env []string) []string {
	out := make([]string, 0, len(env))
	for _, kv := range env {
		name, _, _ := strings.Cut(kv, "=")
		if !slices.Contains(secretVars, name) {
			out = append(out, kv)
		}
	}
	return out
}

// jobDir makes the job's directory afresh under Dir: whatever an earlier
// run left there (a job id is never reused, but a state directory may be)
// is removed, symbolic links included, without following them.
func (e *Executor) jobDir(id string) (string, error) {
	if err := os.MkdirAll(e.Dir, 0o755); err != nil {
		return "", err
	}
	dir := filepath.Join(e.Dir, jobenv.Safe(id))
	if err := os.RemoveAll(dir); err != nil {
		return "", err
	}
	return dir, os.Mkdir(dir, 0o755)
}

// Screen implements core.Screener: it refuses a job that process
// execution could not run as it asks, or not confined to its directory. Its
// program must be a gmark application with flags the application takes
// (anything else would exit 2 at its start: the pseudo-application exec of
// a JDF naming another program, an unknown flag); the command line is read
// by the application's own flag parser (apps.Paths), so every path it would
// open is screened: each must be a relative path that stays inside the
// job's directory, except a placeholder's --config, which must be the
// agent.json of a site under one of PlaceholderDirs (a placeholder runs the
// commands its metaqueue hands out: only a metaqueue the grid's operator
// trusts); and no file size may exceed MaxOutput.
func (e *Executor) Screen(spec *workload.Job) error {
	args := spec.App.Args()
	paths, err := apps.Paths(spec.App.Name, args)
	if err != nil {
		return fmt.Errorf("process execution runs gmark's applications with the flags they take (docs/apps.md): %v", err)
	}
	for _, p := range paths {
		if err := e.screenPath(spec.App.Name, p); err != nil {
			return err
		}
	}
	for i := 0; i < len(args); i++ {
		if !strings.HasPrefix(args[i], "-") {
			continue
		}
		name, value, inline := strings.Cut(strings.TrimLeft(args[i], "-"), "=")
		if !inline {
			if i+1 >= len(args) {
				break
			}
			value = args[i+1]
		}
		if e.MaxOutput > 0 && isFileSizeFlag(name) {
			kb, err := strconv.ParseInt(value, 10, 64)
			if err == nil && (kb < 0 || kb > e.MaxOutput/1024) {
				return fmt.Errorf("--%s %s KB is larger than the grid's max_output (%d KB)", name, value, e.MaxOutput/1024)
			}
		}
	}
	return nil
}

// screenPath refuses a path flag's value that leads out of the job's
// directory.
func (e *Executor) screenPath(app string, p apps.PathArg) error {
	if app == placeholderApp && p.Flag == "config" {
		if e.trustedAgentConfig(p.Value) {
			return nil
		}
		trusted := "none"
		if len(e.PlaceholderDirs) > 0 {
			trusted = strings.Join(e.PlaceholderDirs, ", ")
		}
		return fmt.Errorf("--config %q is not the agent.json of a placeholder site the grid trusts (scheduler.placeholder_dirs: %s): a placeholder runs whatever its metaqueue hands out", p.Value, trusted)
	}
	if p.Value != "." && !filepath.IsLocal(p.Value) {
		return fmt.Errorf("--%s %q leaves the job's directory: give a relative path without '..' (process execution confines each job to a directory of its own)", p.Flag, p.Value)
	}
	return nil
}

// placeholderApp is the application that runs a placeholder's agent.
const placeholderApp = "placeholder"

// trustedAgentConfig tells whether name is a file agent.json inside one of
// PlaceholderDirs (at any depth: a metaqueue keeps each site's in a
// directory of its own), as an absolute path without "..".
func (e *Executor) trustedAgentConfig(name string) bool {
	if !filepath.IsAbs(name) || filepath.Clean(name) != name || filepath.Base(name) != "agent.json" {
		return false
	}
	for _, d := range e.PlaceholderDirs {
		if rel, err := filepath.Rel(d, name); err == nil && filepath.IsLocal(rel) {
			return true
		}
	}
	return false
}

// isFileSizeFlag tells the flags that size a file in KB (sserio's
// --input1, --output3, ...).
func isFileSizeFlag(name string) bool {
	for _, prefix := range []string{"input", "output"} {
		if n, ok := strings.CutPrefix(name, prefix); ok && n != "" && strings.Trim(n, "0123456789") == "" {
			return true
		}
	}
	return false
}

// describe explains a failed process from its summary line, or from the
// size limit its output ran into (then there is no summary).
func (e *Executor) describe(dir string, r launch.Result) string {
	name := filepath.Join(dir, fmt.Sprintf("rank-%d.out", r.Rank))
	if fi, err := os.Stat(name); err == nil && e.MaxOutput > 0 && fi.Size() >= e.MaxOutput {
		return fmt.Sprintf("rank %d: stopped at the grid's max_output: its output reached %d bytes (%v)", r.Rank, e.MaxOutput, r.Err)
	}
	b, _ := os.ReadFile(name)
	if s, err := output.ParseSummary(b); err == nil {
		if msg, _ := s["error"].(string); msg != "" {
			return fmt.Sprintf("rank %d: %s", r.Rank, msg)
		}
		if reason, _ := s["reason"].(string); reason != "" {
			return fmt.Sprintf("rank %d: %s", r.Rank, reason)
		}
	}
	return fmt.Sprintf("rank %d: %v", r.Rank, r.Err)
}

// scaledArgs are the application's arguments with time scaled to the
// core's clock: the swf application's run-time scale is divided by the
// time scale, and every application gets the job's wall time, scaled, as
// --walltime.
func scaledArgs(j *workload.Job, scale float64) []string {
	app := j.App
	params := make([]workload.Param, 0, len(app.Params)+1)
	for _, p := range app.Params {
		if app.Name == "swf" && p.Key == "scale" {
			f, err := strconv.ParseFloat(p.Value, 64)
			if err != nil || f <= 0 {
				f = 1
			}
			p.Value = strconv.FormatFloat(f/scale, 'g', -1, 64)
		}
		params = append(params, p)
	}
	if app.Name == "swf" {
		if _, ok := app.Param("scale"); !ok {
			params = append(params, workload.Param{Key: "scale", Value: strconv.FormatFloat(1/scale, 'g', -1, 64)})
		}
	}
	if j.WallTime > 0 {
		params = append(params, workload.Param{Key: "walltime", Value: time.Duration(float64(j.WallTime) / scale).String()})
	}
	return workload.App{Name: app.Name, Params: params}.Args()
}

// Stop implements core.Executor: SIGTERM to the job's processes, SIGKILL
// after a grace period. Stopping a job twice, or one that ended, is a no-op.
func (e *Executor) Stop(j *core.Job) {
	e.mu.Lock()
	lj := e.jobs[j.ID]
	e.mu.Unlock()
	if lj != nil {
		lj.Stop()
	}
}

// ForGrid is the executor of real 'gmark app' processes when the grid runs
// jobs as processes (nil for emulated execution), its jobs in dir (default
// STATE.jobs), after killing those a previous run left (said on stderr).
func ForGrid(g *grid.Grid, state, dir string, stderr io.Writer) (*Executor, error) {
	if g.Scheduler.Execution != "process" {
		return nil, nil
	}
	exe, err := os.Executable()
	if err != nil {
		return nil, err
	}
	if dir == "" {
		dir = state + ".jobs"
	}
	if n := Cleanup(dir); n > 0 {
		fmt.Fprintf(stderr, "gmark koala: killed %d processes left by the previous run\n", n)
	}
	var trusted []string
	for _, d := range g.Scheduler.PlaceholderDirs {
		abs, err := filepath.Abs(d)
		if err != nil {
			return nil, err
		}
		trusted = append(trusted, abs)
	}
	return &Executor{Gmark: exe, Dir: dir, TimeScale: g.Scheduler.TimeScale, MaxOutput: int64(g.Scheduler.MaxOutput),
		PlaceholderDirs: trusted}, nil
}
