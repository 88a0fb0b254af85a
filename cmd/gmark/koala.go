package main

import (
	"bufio"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/gmark/gmark/koala/persist"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/gmark/gmark/analyzer/store"
	"github.com/gmark/gmark/internal/outfile"
	"github.com/gmark/gmark/koala/core"
	"github.com/gmark/gmark/koala/grid"
	"github.com/gmark/gmark/koala/procexec"
	"github.com/gmark/gmark/koala/server"
	"github.com/gmark/gmark/submitter"
	"github.com/gmark/gmark/workload"
	"github.com/urfave/cli/v2"
)

func init() {
	commands = append(commands, &cli.Command{
		Name:  "koala",
		Usage: "the bundled multi-cluster co-allocating scheduler (in the style of KOALA)",
		Description: "The grid is described in a TOML file (see examples/das2.toml and docs/koala.md).\n" +
			"'serve' runs the scheduler with an HTTP API; 'jobs' lists a running scheduler's jobs and\n" +
			"why the queued ones wait; 'simulate' runs a generated workload through the same scheduler\n" +
			"in simulated time and prints what happened.",
		Subcommands: []*cli.Command{koalaServeCommand(), koalaJobsCommand(), koalaSimulateCommand()},
	})
}

func gridFlag() cli.Flag {
	return &cli.StringFlag{Name: "grid", Usage: "grid description (TOML)", Value: "examples/das2.toml"}
}

func loadGrid(c *cli.Context) (*grid.Grid, error) {
	g, err := grid.Load(c.String("grid"))
	if err != nil {
		return nil, usageError{err}
	}
	if c.IsSet("policy") {
		g.Scheduler.Policy = c.String("policy")
	}
	if c.IsSet("time-scale") {
		g.Scheduler.TimeScale = c.Float64("time-scale")
		if !(g.Scheduler.TimeScale > 0) {
			return nil, usageErrorf("--time-scale must be > 0")
		}
	}
	if c.IsSet("scan-interval") {
		g.Scheduler.ScanInterval.Duration = c.Duration("scan-interval")
		if g.Scheduler.ScanInterval.Duration <= 0 {
			return nil, usageErrorf("--scan-interval must be > 0")
		}
	}
	if err := g.Check(); err != nil { // the overrides meet the grid file's ranges too
		return nil, usageErrorf("%s with the command line's settings: %v", c.String("grid"), err)
	}
	return g, nil
}

func koalaServeCommand() *cli.Command {
	return &cli.Command{
		Name:  "serve",
		Usage: "run the scheduler with its HTTP API",
		Description: "Serves the API documented in docs/koala.md on 127.0.0.1:7070 by default. Every request\n" +
			"that changes state needs the token ('Authorization: Bearer TOKEN'); without --token one is\n" +
			"generated and written next to the state database (STATE.token). The state database keeps\n" +
			"every accepted job: after a crash, restarting with the same --state resumes.",
		Flags: []cli.Flag{
			gridFlag(),
			&cli.StringFlag{Name: "listen", Value: "127.0.0.1:7070", Usage: "address to serve on"},
			&cli.BoolFlag{Name: "allow-remote", Usage: "allow --listen on an address other than loopback"},
			&cli.StringFlag{Name: "state", Value: "koala-state.db", Usage: "SQLite database of the scheduler's state"},
			&cli.StringFlag{Name: "token", EnvVars: []string{"GMARK_KOALA_TOKEN"}, Usage: "token for state-changing requests (visible to other users in the process list: prefer --token-file or the environment variable)"},
			&cli.StringFlag{Name: "token-file", Usage: "file holding the token for state-changing requests"},
			&cli.StringFlag{Name: "policy", Usage: "default placement policy (WF, CF, CM, FCM); overrides the grid file"},
			&cli.Float64Flag{Name: "time-scale", Usage: "core seconds per wall second; overrides the grid file"},
			&cli.DurationFlag{Name: "scan-interval", Usage: "placement-queue scan interval; overrides the grid file"},
			&cli.StringFlag{Name: "execution", Usage: "emulated (timers) or process (real 'gmark app' processes); overrides the grid file"},
			&cli.StringFlag{Name: "workdir", Usage: "with process execution, where jobs run (default: STATE.jobs)"},
		},
		Action: runKoalaServe,
	}
}

func isLoopback(addr string) bool {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return false
	}
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// serveToken is the token given to serve: from --token-file, which wins,
// or --token (or $GMARK_KOALA_TOKEN); "" when none is given (one is
// generated). The token itself is never printed: errors name where it came
// from.
func serveToken(c *cli.Context) (string, error) {
	file := c.String("token-file")
	if file == "" {
		return c.String("token"), nil
	}
	b, err := os.ReadFile(file)
	if err != nil {
		return "", usageErrorf("--token-file: %v", err)
	}
	token := strings.TrimSpace(string(b))
	if token == "" || strings.ContainsAny(token, " \t\r\n") {
		return "", usageErrorf("--token-file %s: the file must hold one token (one word)", file)
	}
	return token, nil
}

func runKoalaServe(c *cli.Context) error {
	g, err := loadGrid(c)
	if err != nil {
		return err
	}
	addr := c.String("listen")
	if !isLoopback(addr) && !c.Bool("allow-remote") {
		return usageErrorf("--listen %s is not a loopback address; add --allow-remote to serve beyond this machine", addr)
	}
	state := c.String("state")
	token, err := serveToken(c)
	if err != nil {
		return err
	}
	tokenFile := ""
	if token == "" {
		tokenFile = state + ".token"
		if b, err := os.ReadFile(tokenFile); err == nil && len(strings.TrimSpace(string(b))) > 0 {
			token = strings.TrimSpace(string(b))
		} else {
			buf := make([]byte, 16)
			if _, err := rand.Read(buf); err != nil {
				return err
			}
			token = hex.EncodeToString(buf)
			if err := os.WriteFile(tokenFile, []byte(token+"\n"), 0o600); err != nil {
				return fmt.Errorf("writing the token: %v", err)
			}
		}
	}
	if c.IsSet("execution") {
		g.Scheduler.Execution = c.String("execution")
		if g.Scheduler.Execution != "emulated" && g.Scheduler.Execution != "process" {
			return usageErrorf("--execution must be emulated or process")
		}
	}
	var px *procexec.Executor
	if g.Scheduler.Execution == "process" {
		exe, err := os.Executable()
		if err != nil {
			return err
		}
		dir := c.String("workdir")
		if dir == "" {
			dir = state + ".jobs"
		}
		if n := procexec.Cleanup(dir); n > 0 {
			fmt.Fprintf(c.App.ErrWriter, "gmark koala: killed %d processes left by the previous run\n", n)
		}
		px = &procexec.Executor{Gmark: exe, Dir: dir, TimeScale: g.Scheduler.TimeScale, MaxOutput: int64(g.Scheduler.MaxOutput)}
	}
	cfg := server.Config{Grid: g, State: state, Token: token}
	if px != nil {
		cfg.Executor = px
	}
	srv, err := server.New(cfg)
	if errors.Is(err, persist.ErrInUse) {
		return usageError{err}
	}
	if err != nil {
		return err
	}
	ln, err := srv.Listen(addr)
	if err != nil {
		return err
	}
	watchInterrupts()
	ctx, stop := context.WithCancel(c.Context)
	defer stop()
	if px != nil {
		px.Exited = func(id string, comp int, ok bool, reason string) {
			_, _ = srv.Do(ctx, func() (any, error) {
				srv.Core().ComponentExited(id, comp, ok, reason)
				return nil, nil
			})
		}
	}
	httpSrv := srv.HTTPServer()
	errc := make(chan error, 2)
	go func() { errc <- srv.Run(ctx) }()
	go func() {
		if err := httpSrv.Serve(ln); !errors.Is(err, http.ErrServerClosed) {
			errc <- err
		}
	}()
	fmt.Fprintf(c.App.Writer, "gmark koala: grid %q (%d clusters, %d processors), policy %s, time scale %g, %s execution\n",
		g.Name, len(g.Clusters), g.TotalProcessors(), g.Scheduler.Policy, g.Scheduler.TimeScale, g.Scheduler.Execution)
	fmt.Fprintf(c.App.Writer, "gmark koala: serving http://%s/v1/ (state %s", ln.Addr(), state)
	if tokenFile != "" {
		fmt.Fprintf(c.App.Writer, ", token in %s", tokenFile)
	}
	fmt.Fprintln(c.App.Writer, ")")
	var runErr error
	select {
	case <-ctx.Done():
	case runErr = <-errc:
		stop()
	}
	shutCtx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_ = httpSrv.Shutdown(shutCtx)
	if runErr == nil {
		runErr = <-errc // the driver's final commit
	}
	if runErr != nil && !errors.Is(runErr, context.Canceled) {
		return runErr
	}
	return nil
}

func koalaSimulateCommand() *cli.Command {
	return &cli.Command{
		Name:      "simulate",
		Usage:     "run a generated workload through the scheduler in simulated time",
		ArgsUsage: "WORKLOAD_DIR",
		Description: "Submits every job of a workload directory (from 'gmark generate') at its submit time to the\n" +
			"scheduler, with emulated execution, in simulated time (a two-hour workload takes a fraction of a\n" +
			"second), and prints per-job statistics and utilization. Composite jobs are not supported here.",
		Flags: []cli.Flag{
			gridFlag(),
			&cli.StringFlag{Name: "policy", Usage: "placement policy (WF, CF, CM, FCM); overrides the grid file"},
			&cli.StringFlag{Name: "priority", Value: "high", Usage: "priority of every job"},
			&cli.StringFlag{Name: "runner", Value: "krunner", Usage: "runner of every job: krunner, drunner, irunner"},
			&cli.DurationFlag{Name: "warmup", Value: 30 * time.Minute, Usage: "background load runs this long before the first job"},
			&cli.DurationFlag{Name: "limit", Value: 7 * 24 * time.Hour, Usage: "stop the simulation after this much simulated time"},
			&cli.DurationFlag{Name: "scan-interval", Usage: "placement-queue scan interval; overrides the grid file"},
			&cli.Uint64Flag{Name: "seed", Value: 1, Usage: "seed of background load and failures"},
			&cli.StringFlag{Name: "events", Usage: "write every event as JSON lines to this file"},
			&cli.BoolFlag{Name: "json", Usage: "print the summary as JSON"},
			&cli.StringFlag{Name: "db", Usage: "also record the simulated run in this results store (for 'gmark report')"},
			&cli.StringFlag{Name: "project", Value: "default", Usage: "with --db: project of the run"},
			&cli.StringFlag{Name: "scenario", Usage: "with --db: scenario of the run (default: the workload directory's name)"},
			&cli.StringFlag{Name: "run-id", Usage: "with --db: id of the run (default: time and random digits)"},
		},
		Action: runKoalaSimulate,
	}
}

// eventWriter writes events as JSON lines.
type eventWriter struct {
	enc *json.Encoder
	err error
}

func (e *eventWriter) Event(ev *core.Event) {
	if e.err == nil {
		e.err = e.enc.Encode(ev)
	}
}

// simSummary is what `koala simulate` reports.
type simSummary struct {
	Jobs            int                     `json:"jobs"`
	Finished        int                     `json:"finished"`
	Failed          int                     `json:"failed"`
	Refused         int                     `json:"refused"`
	Ended           int                     `json:"ended"` // jobs that ended before the limit: MakespanS is 0 without one
	LastArrivalS    float64                 `json:"last_arrival_s"`
	MakespanS       float64                 `json:"makespan_s"`
	MeanWaitS       float64                 `json:"mean_wait_s"`
	MeanFTTS        float64                 `json:"mean_ftt_s"`
	MeanPlacementS  float64                 `json:"mean_placement_s"`
	MeanClaimTries  float64                 `json:"mean_claim_tries"`
	CoAllocatedJobs int                     `json:"coallocated_jobs"`
	Utilization     core.UtilizationSummary `json:"utilization"`
	FailureReasons  map[string]int          `json:"failure_reasons,omitempty"`
}

func runKoalaSimulate(c *cli.Context) error {
	if c.NArg() != 1 {
		return usageErrorf("simulate takes one workload directory (from 'gmark generate')")
	}
	g, err := loadGrid(c)
	if err != nil {
		return err
	}
	g.Scheduler.Seed = c.Uint64("seed")
	prio, err := core.ParsePriority(c.String("priority"))
	if err != nil {
		return usageError{err}
	}
	runner, err := core.ParseRunner(c.String("runner"))
	if err != nil {
		return usageError{err}
	}
	// As submit does: nothing runs from a workload.jsonl that is not the
	// file its manifest was written with.
	dir := c.Args().First()
	if warning, err := workload.Check(dir); err != nil {
		return usageError{err}
	} else if warning != "" {
		fmt.Fprintln(c.App.ErrWriter, "warning:", warning)
	}
	jobs, err := workload.ReadAll(dir)
	if err != nil {
		return usageError{err}
	}
	var sink core.Sink
	saveEvents := func() error { return nil }
	if path := c.String("events"); path != "" {
		f, err := outfile.Create(path)
		if err != nil {
			return err
		}
		defer f.Close()
		bw := bufio.NewWriter(f)
		ew := &eventWriter{enc: json.NewEncoder(bw)}
		sink = ew
		saveEvents = func() error {
			err := ew.err
			if err == nil {
				err = bw.Flush()
			}
			if err == nil {
				err = f.Commit()
			}
			if err != nil {
				return fmt.Errorf("writing the events to %s: %v", path, err)
			}
			return nil
		}
	}
	start := time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC)
	k, err := core.New(g, start, sink, nil)
	if err != nil {
		return usageError{err}
	}
	first := start.Add(c.Duration("warmup"))
	arrivals := make([]core.Arrival, 0, len(jobs))
	for _, j := range jobs {
		if j.Kind == workload.Composite {
			return usageErrorf("%s: job %s is composite; simulate takes unitary jobs", filepath.Join(c.Args().First(), workload.JobsFile), j.ID)
		}
		arrivals = append(arrivals, core.Arrival{At: first.Add(j.Submit), Job: j, Opts: core.Options{Priority: prio, Runner: runner}})
	}
	k.MeasureFrom(first)
	errs := k.Simulate(arrivals, first.Add(c.Duration("limit")))
	if err := saveEvents(); err != nil {
		return err
	}
	sum := simSummary{Jobs: len(arrivals), Refused: len(errs), FailureReasons: map[string]int{}}
	for _, e := range errs {
		fmt.Fprintln(c.App.ErrWriter, "refused:", e)
	}
	var end time.Time
	var wait, ftt, placement time.Duration
	tries, started := 0, 0
	for _, j := range k.Jobs() {
		switch j.State {
		case core.Finished:
			sum.Finished++
		case core.Failed:
			sum.Failed++
			sum.FailureReasons[j.Reason]++
		}
		if !j.End.IsZero() {
			sum.Ended++
			if j.End.After(end) {
				end = j.End
			}
		}
		if !j.Start.IsZero() {
			started++
			wait += j.Start.Sub(j.Submitted)
		}
		ftt += j.FTT
		placement += j.TotalPlacementTime
		tries += j.ClaimTries
		if j.CoAllocated() {
			sum.CoAllocatedJobs++
		}
	}
	if started > 0 { // a job that never started has no wait
		sum.MeanWaitS = wait.Seconds() / float64(started)
	}
	if n := len(k.Jobs()); n > 0 {
		sum.MeanFTTS = ftt.Seconds() / float64(n)
		sum.MeanPlacementS = placement.Seconds() / float64(n)
		sum.MeanClaimTries = float64(tries) / float64(n)
	}
	if len(arrivals) > 0 {
		sum.LastArrivalS = arrivals[len(arrivals)-1].At.Sub(first).Seconds()
	}
	if sum.Ended > 0 {
		sum.MakespanS = end.Sub(first).Seconds()
	}
	sum.Utilization = k.Utilization()
	if db := c.String("db"); db != "" {
		runID, err := recordSimulation(c, g, k, arrivals)
		if err != nil {
			return err
		}
		if !c.Bool("json") {
			fmt.Fprintf(c.App.Writer, "run %s recorded in %s\n", runID, db)
		}
	}
	if c.Bool("json") {
		enc := json.NewEncoder(c.App.Writer)
		enc.SetIndent("", "  ")
		return enc.Encode(sum)
	}
	printSimSummary(c.App.Writer, g, sum)
	return nil
}

func printSimSummary(w io.Writer, g *grid.Grid, s simSummary) {
	u := s.Utilization
	fmt.Fprintf(w, "grid %s, policy %s: %d jobs, %d finished, %d failed, %d refused\n", g.Name, g.Scheduler.Policy, s.Jobs, s.Finished, s.Failed, s.Refused)
	if s.Ended > 0 {
		fmt.Fprintf(w, "  last arrival %.0fs, last end %.0fs after the first arrival\n", s.LastArrivalS, s.MakespanS)
	} else {
		fmt.Fprintf(w, "  last arrival %.0fs; no job ended before the limit\n", s.LastArrivalS)
	}
	fmt.Fprintf(w, "  mean wait %.1fs, placement time %.1fs, file transfer %.1fs, claiming tries %.2f; %d co-allocated jobs\n",
		s.MeanWaitS, s.MeanPlacementS, s.MeanFTTS, s.MeanClaimTries, s.CoAllocatedJobs)
	fmt.Fprintf(w, "  utilization: background %.1f%%, grid jobs %.1f%%, wasted (PWT) %.2f%%, gained (PGT) %.2f%%; in use %.1f%%, stacked %.1f%%\n",
		100*u.Background, 100*u.Grid, 100*u.Wasted, 100*u.Gained, 100*u.Total, 100*u.Stacked)
	reasons := make([]string, 0, len(s.FailureReasons))
	for r := range s.FailureReasons {
		reasons = append(reasons, r)
	}
	sort.Strings(reasons)
	for _, r := range reasons {
		fmt.Fprintf(w, "  failed (%d): %s\n", s.FailureReasons[r], r)
	}
}

// recordSimulation writes a simulated run into the results store as if it
// had been submitted: every job submitted at its arrival with no delay, its
// start and end those of the simulation, on the simulation's clock (which
// starts at 2000-01-01, so simulated runs stand apart from real ones), and
// the core's events as annotations.
func recordSimulation(c *cli.Context, g *grid.Grid, k *core.Core, arrivals []core.Arrival) (string, error) {
	st, err := openStore(c.String("db"))
	if err != nil {
		return "", err
	}
	defer st.Close()
	runID := c.String("run-id")
	if runID == "" {
		runID = submitter.NewRunID()
	}
	cfg := map[string]any{"grid": c.String("grid"), "policy": g.Scheduler.Policy, "seed": g.Scheduler.Seed,
		"warmup": c.Duration("warmup").String(), "simulated": true}
	rec, err := submitter.DescribeRun(runID, c.Args().First(), "koala-sim", cfg, map[string]any{"simulated": true}, os.Args)
	if err != nil {
		return "", err
	}
	scenario := c.String("scenario")
	if scenario == "" {
		abs, _ := filepath.Abs(c.Args().First())
		scenario = filepath.Base(abs)
	}
	byName := map[string]*core.Job{}
	for _, j := range k.Jobs() {
		byName[j.Spec.ID] = j
	}
	ns := func(t time.Time) int64 {
		if t.IsZero() {
			return 0
		}
		return t.UnixNano()
	}
	end := k.Now()
	err = st.Write(c.Context, func(tx *store.Tx) error {
		now := time.Now().UnixNano()
		pid, err := tx.EnsureProject(c.String("project"), "", now)
		if err != nil {
			return err
		}
		sid, err := tx.EnsureScenario(pid, scenario, "", now)
		if err != nil {
			return err
		}
		rec.Run.ScenarioID = sid
		if err := tx.InsertRun(rec.Run); err != nil {
			return err
		}
		if err := tx.InsertProvenance(rec.Provenance); err != nil {
			return err
		}
		for _, a := range arrivals {
			spec := a.Job
			key := runID + "/" + spec.ID + "/1"
			sched := a.At.UnixNano()
			if err := tx.InsertSubmission(store.Submission{Key: key, RunID: runID, JobID: spec.ID, Attempt: 1, ScheduledNS: sched, IntentNS: sched}); err != nil {
				return err
			}
			comps, _ := json.Marshal(spec.Components)
			row := store.Job{RunID: runID, JobID: spec.ID, Unit: spec.Unit, Index: spec.Index, Kind: string(spec.Kind),
				Type: spec.Type, App: spec.App.Name, SiteType: string(spec.SiteType), Processors: spec.Processors(),
				Components: string(comps), WallTimeNS: int64(spec.WallTime), RunTimeNS: int64(spec.RunTime),
				OffsetNS: int64(spec.Submit), ScheduledNS: sched, Attempts: 1, RecordedNS: now}
			j, ok := byName[spec.ID]
			if !ok { // refused by the core
				row.State, row.Reason = store.Failed, "refused by the scheduler"
				if err := tx.InsertResult(store.Result{Key: key, RunID: runID, OK: false, DoneNS: sched, Tries: 1, Error: row.Reason}); err != nil {
					return err
				}
				if err := tx.InsertJob(row); err != nil {
					return err
				}
				continue
			}
			if err := tx.InsertResult(store.Result{Key: key, RunID: runID, OK: true, SubmitNS: sched, DoneNS: sched,
				TargetID: "koala:" + j.ID, Tries: 1}); err != nil {
				return err
			}
			row.SubmitNS, row.TargetSubmitNS, row.TargetID = sched, ns(j.Submitted), "koala:"+j.ID
			row.StartNS, row.EndNS, row.Sites = ns(j.Start), ns(j.End), strings.Join(j.Sites(), ",")
			row.Reason = j.Reason
			switch j.State {
			case core.Finished:
				row.State = store.Succeeded
			case core.Failed:
				row.State = store.Failed
			case core.Cancelled:
				row.State = store.Cancelled
			default: // the simulation stopped first
				row.State, row.Reason = store.NeverStarted, "the simulation ended before the job did"
				if !j.Start.IsZero() {
					row.State, row.EndNS = store.Cancelled, end.UnixNano()
				}
			}
			for _, ev := range []struct {
				kind string
				t    time.Time
			}{{"submitted", a.At}, {"started", j.Start}, {row.State, j.End}} {
				if ev.t.IsZero() || ev.kind == store.NeverStarted {
					continue
				}
				payload, _ := json.Marshal(map[string]any{"start_ns": row.StartNS, "end_ns": row.EndNS, "reason": row.Reason,
					"placement_tries": j.PlacementTries, "claim_tries": j.ClaimTries, "ftt_ns": int64(j.FTT),
					"placement_ns": int64(j.TotalPlacementTime), "restarts": j.Restarts})
				if err := tx.InsertEvent(store.Event{RunID: runID, JobID: spec.ID, Attempt: 1, TimeNS: ev.t.UnixNano(), Kind: ev.kind, Payload: string(payload)}); err != nil {
					return err
				}
			}
			if err := tx.InsertJob(row); err != nil {
				return err
			}
		}
		u, _ := json.Marshal(k.Utilization())
		if err := tx.InsertAnnotation(store.Annotation{RunID: runID, TimeNS: end.UnixNano(), Kind: "koala-utilization", Key: "summary", Value: string(u), Source: "koala simulate"}); err != nil {
			return err
		}
		return tx.InsertRunEnd(store.RunEnd{RunID: runID, EndNS: end.UnixNano(), Status: "completed", Summary: "{}"})
	})
	return runID, err
}
