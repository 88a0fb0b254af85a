// Package apps holds GrenchMark's synthetic applications, the programs
// generated jobs run as `gmark app NAME --flag value ...`:
//
//	sser    sequential: supersteps of computation on memory
//	sserio  sser with input files read and output files written
//	smpi    parallel: sser's work in every process plus an all-to-all exchange
//	        each superstep, over TCP, across all components of the job
//	lunar   a state-space exploration reporting application- and service-level counters
//	swf     replays a trace job: holds its processors for its (scaled) run time
//	hello   prints a line and exits, for overhead tests
//
// Their flags are the parameters the generator writes (generator/apps.go).
// Every application validates its flags (bad ones exit 2 with a message
// naming the flag), honours --walltime, prints record lines and ends its
// standard output with one JSON summary line (package output); docs/apps.md
// documents all of it. The work itself lives in small packages: kernel
// (computation on memory), lunar (the search), rendezvous and peer
// (finding and talking to the other processes), jobenv (the environment);
// launch starts the processes of a parallel job. RunTime (model.go) is each
// application's run-time model: how long it runs, from its flags.
package apps

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"
	"sync/atomic"
	"time"

	"github.com/gmark/gmark/apps/jobenv"
	"github.com/gmark/gmark/apps/output"
)

// UsageError is a bad flag, argument or environment variable: nothing ran.
// `gmark app` exits 2 on it.
type UsageError struct {
	App string
	Msg string
}

func (e *UsageError) Error() string {
	if e.App == "" {
		return e.Msg
	}
	return e.App + ": " + e.Msg
}

// Failure is an application that started and failed: `gmark app` exits 1.
// Its summary says ok:false with Reason.
type Failure struct {
	App    string
	Reason string // walltime, interrupted, peer-lost, peer-timeout, rendezvous, io, error
	Err    error
}

func (e *Failure) Error() string { return e.App + ": " + e.Err.Error() }
func (e *Failure) Unwrap() error { return e.Err }

// ExitCode is the exit status for the error Main returned: 0, 1 or 2.
func ExitCode(err error) int {
	var ue *UsageError
	switch {
	case err == nil:
		return 0
	case errors.As(err, &ue):
		return 2
	default:
		return 1
	}
}

// app is one application: its flags and its work.
type app struct {
	name    string
	aliases []string
	short   string
	long    string // the help text's description: what the parameters scale
	// define adds the app's own flags and returns what they give once
	// parsed: how to run the application and the work it will do.
	define func(fs *flagSet) instance
}

// instance is an application with its flags parsed: run does the work,
// work counts it for the run-time model (model.go) without doing it.
type instance struct {
	run  func(r *runner) error
	work func(procs int) Work
}

var registry = map[string]*app{}

func register(a *app) {
	for _, n := range append([]string{a.name}, a.aliases...) {
		if _, dup := registry[n]; dup {
			panic("apps: registered twice: " + n)
		}
		registry[n] = a
	}
}

// Names lists the applications (not their aliases), sorted.
func Names() []string {
	var names []string
	for n, a := range registry {
		if n == a.name {
			names = append(names, n)
		}
	}
	sort.Strings(names)
	return names
}

// common are the flags every application takes.
type common struct {
	walltime time.Duration
	workdir  string
	quiet    bool
}

func defineCommon(fs *flagSet, c *common) {
	fs.Duration(&c.walltime, "walltime", 0, "stop with ok:false, reason walltime, exit 1 after this long (0: no limit)")
	fs.Path(&c.workdir, "workdir", "DIR", ".", "directory for the files the application reads and writes")
	fs.Bool(&c.quiet, "quiet", "print no progress on standard error (records and the summary are always printed)")
}

// runner is what an application's work sees.
type runner struct {
	ctx    context.Context // ends at the walltime or on a signal
	stop   *atomic.Bool    // becomes true when ctx ends, for tight loops
	out    *output.Writer
	sum    *output.Summary
	env    jobenv.Env
	start  time.Time
	getenv func(string) string
	common
	app    string
	stderr io.Writer
}

// logf writes a progress line on standard error unless --quiet.
func (r *runner) logf(format string, args ...any) {
	if !r.quiet {
		fmt.Fprintf(r.stderr, "gmark app %s: rank %d: %s\n", r.app, r.env.Rank, fmt.Sprintf(format, args...))
	}
}

// since is the time since the application started, in seconds.
func (r *runner) since() float64 { return time.Since(r.start).Seconds() }

// record starts a record line with the fields every record has.
func (r *runner) record(kind string) *output.Record {
	return output.NewRecord(kind).Str("app", r.app).Int("rank", int64(r.env.Rank)).Float("t", r.since())
}

// errStopped is what work returns when it noticed ctx ending; Main turns it
// into the walltime or interrupted reason.
var errStopped = errors.New("stopped")

// stopped wraps errStopped with where the work was.
func stopped(format string, args ...any) error {
	return fmt.Errorf("%w %s", errStopped, fmt.Sprintf(format, args...))
}

// Main runs `gmark app ARGS...`: args[0] is the application's name, the rest
// its flags. It writes records and the summary to stdout and progress to
// stderr, reads the environment through getenv, and stops when ctx ends
// (the caller cancels it on SIGINT and SIGTERM). It returns nil on success
// (and after printing help), a *UsageError for bad usage and a *Failure
// when the work failed; ExitCode maps them to 0, 2 and 1.
func Main(ctx context.Context, args []string, stdout, stderr io.Writer, getenv func(string) string) error {
	if len(args) == 0 {
		return &UsageError{Msg: "which application? " + listApps() + " (see 'gmark app --help')"}
	}
	name := args[0]
	if name == "-h" || name == "-help" || name == "--help" || name == "help" {
		printOverview(stdout)
		return nil
	}
	a := registry[name]
	if a == nil {
		return &UsageError{Msg: fmt.Sprintf("unknown application %q: %s", name, listApps())}
	}
	fs := newFlagSet(a.name)
	run := a.define(fs).run
	var c common
	defineCommon(fs, &c)
	if err := fs.parse(args[1:]); err != nil {
		if errors.Is(err, errHelp) {
			printHelp(stdout, a, fs)
			return nil
		}
		return err
	}
	env, err := jobenv.Read(getenv)
	if err != nil {
		return &UsageError{App: a.name, Msg: err.Error()}
	}
	if st, err := os.Stat(c.workdir); err != nil || !st.IsDir() {
		return &UsageError{App: a.name, Msg: fmt.Sprintf("--workdir %q is not a directory", c.workdir)}
	}

	r := &runner{
		out: output.NewWriter(stdout), sum: output.NewSummary(a.name), env: env, start: time.Now(),
		getenv: getenv, common: c, app: a.name, stderr: stderr,
	}
	r.sum.Set("job_id", env.JobID).Set("rank", env.Rank).Set("size", env.Size).Set("component", env.Component)

	// The walltime is a context deadline of its own, so its expiry can be
	// told apart from the caller's cancellation (a signal).
	workCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	var wallHit atomic.Bool
	if c.walltime > 0 {
		t := time.AfterFunc(c.walltime, func() { wallHit.Store(true); cancel() })
		defer t.Stop()
	}
	var stop atomic.Bool
	defer context.AfterFunc(workCtx, func() { stop.Store(true) })()
	r.ctx, r.stop = workCtx, &stop

	werr := run(r)
	var ue *UsageError
	if errors.As(werr, &ue) {
		return ue // found before any work: no summary, as for bad flags
	}

	r.sum.Set("elapsed_s", r.since())
	user, sys, rss := usage()
	r.sum.Set("cpu_s", user+sys).Set("max_rss_kb", rss)
	var fail *Failure
	switch {
	case werr == nil:
	case wallHit.Load():
		fail = &Failure{App: a.name, Reason: "walltime", Err: fmt.Errorf("walltime of %v reached (%v)", c.walltime, werr)}
	case ctx.Err() != nil:
		fail = &Failure{App: a.name, Reason: "interrupted", Err: fmt.Errorf("interrupted (%v)", werr)}
	case errors.As(werr, &fail):
	default:
		fail = &Failure{App: a.name, Reason: "error", Err: werr}
	}
	if fail != nil {
		r.sum.Set("ok", false).Set("reason", fail.Reason).Set("error", fail.Err.Error())
	}
	if err := r.out.WriteSummary(r.sum); err != nil && fail == nil {
		return &Failure{App: a.name, Reason: "io", Err: fmt.Errorf("writing the summary: %w", err)}
	}
	if fail != nil {
		return fail
	}
	return nil
}

func listApps() string {
	return "the applications are " + strings.Join(Names(), ", ")
}

func printOverview(w io.Writer) {
	fmt.Fprintln(w, "usage: gmark app NAME [flags]")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "Runs one of GrenchMark's synthetic applications, as generated jobs do.")
	fmt.Fprintln(w, "Standard output carries record lines and ends with one JSON summary line;")
	fmt.Fprintln(w, "exit status 0 on success, 1 on failure, 2 on bad flags. See docs/apps.md.")
	fmt.Fprintln(w)
	for _, n := range Names() {
		a := registry[n]
		name := n
		if len(a.aliases) > 0 {
			name += " (" + strings.Join(a.aliases, ", ") + ")"
		}
		fmt.Fprintf(w, "  %-14s %s\n", name, a.short)
	}
	fmt.Fprintln(w)
	fmt.Fprintln(w, "Run 'gmark app NAME --help' for an application's flags.")
}

func printHelp(w io.Writer, a *app, fs *flagSet) {
	fmt.Fprintf(w, "usage: gmark app %s [flags]\n\n%s\n\n", a.name, a.short)
	if a.long != "" {
		fmt.Fprintf(w, "%s\n\n", strings.TrimSpace(a.long))
	}
	fmt.Fprintln(w, "flags:")
	fs.printDefaults(w)
	fmt.Fprintln(w)
	fmt.Fprintln(w, "Exit status: 0 success; 1 failure (walltime, lost peer, I/O error); 2 bad flags.")
}
