package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/gmark/gmark/analyzer/gate"
	"github.com/gmark/gmark/analyzer/metrics"
	"github.com/gmark/gmark/analyzer/report"
	"github.com/gmark/gmark/analyzer/store"
	"github.com/gmark/gmark/gwa"
	"github.com/gmark/gmark/internal/cliflag"
	"github.com/gmark/gmark/internal/filelock"
	"github.com/urfave/cli/v2"
)

func init() { makers = append(makers, reportCommand) }

func reportCommand() *cli.Command {
	o := &reportOptions{}
	g := &o.gateFlags
	return &cli.Command{
		Name:  "report",
		Usage: "report on runs in the results store: HTML page, text, JSON, CSV, or a regression gate",
		Description: "Reads runs from the results store (--db; every run unless --run names some) and writes\n" +
			"the metrics of docs/metrics.md: an HTML page with every table, figure and the provenance of\n" +
			"each run (--format html, into -o DIR: open DIR/index.html, no server needed), or text, JSON or\n" +
			"CSV on standard output.\n\n" +
			"With --baseline OLD.db it is a regression gate: the runs of --db are compared with those of\n" +
			"OLD.db, metric by metric (--metrics), and a change for the worse that is both statistically\n" +
			"significant (--alpha) and beyond --threshold is a regression. docs/report.md has the tests.\n\n" +
			"With --fidelity, each run of a wl:trace replay is compared with the original trace window\n" +
			"(Kolmogorov–Smirnov tests of wait, run and response times and of the utilization).\n\n" +
			"With --compare FIELD, the runs of one or several stores (--db repeated) side by side, grouped by\n" +
			"FIELD: run, scenario, target, policy, revision, seed, or any key of their provenance.\n\n" +
			"'gmark report sql QUERY' runs a read-only SQL query on the store.\n\n" +
			"Exit status: 0 ok (gate: no regression), 1 a regression or a failure, 2 bad usage.",
		Flags: append([]cli.Flag{
			&cliflag.Repeated{StringFlag: cli.StringFlag{Name: "db", Value: "results.db", Destination: &o.db, Usage: "results store (SQLite); several with --compare"}, All: &o.dbs},
			&cli.StringFlag{Name: "compare", Destination: &o.compare, Usage: "compare the runs grouped by this field (run, scenario, target, policy, revision, seed, …)"},
			&cli.StringSliceFlag{Name: "run", DefaultText: "every run of --db", Destination: &o.runFlag, Usage: "run to report on (repeat, or comma-separated)"},
			&cli.StringFlag{Name: "output", Aliases: []string{"o"}, Value: "report", Destination: &o.output, Usage: "directory of the HTML report"},
			&cli.DurationFlag{Name: "tau", Value: metrics.DefaultTau, Destination: &o.opts.Tau, Usage: "threshold τ of the bounded slowdown"},
			&cli.IntFlag{Name: "processors", DefaultText: "from the run's grid or processor budget", Destination: &o.opts.Processors, Usage: "system size for utilization"},
			&cli.BoolFlag{Name: "wall-time", Destination: &o.opts.WallTime, Usage: "report runs made with --speedup in wall time, as observed (without it: in workload time, durations × speedup, the wall makespan beside)"},
			&cli.BoolFlag{Name: "workload-time", Hidden: true, Destination: &o.workloadTime, Usage: "workload time, as without --wall-time; accepted for old scripts"},
			&cli.StringFlag{Name: "reproduce", Destination: &o.reproduce, Usage: "write run RUN's input files out of the store (into --to) and print the commands that regenerate and rerun it"},
			&cli.StringFlag{Name: "to", DefaultText: "reproduce-RUN", Destination: &o.to, Usage: "with --reproduce: the directory to write into"},
			&cli.IntFlag{Name: "bins", Value: 100, Destination: &o.opts.Bins, Usage: "intervals of the time series (utilization, goodput, throughput over time)"},
			&cli.BoolFlag{Name: "pdf", Destination: &o.opts.PDF, Usage: "with -o: each figure as PDF too, for a paper"},
			&cli.BoolFlag{Name: "fidelity", Destination: &o.opts.Fidelity, Usage: "compare each trace replay (wl:trace) with its original trace window (docs/report.md)"},
			&cli.BoolFlag{Name: "include-warm", Destination: &o.opts.IncludeWarm, Usage: "count the warm jobs of a trace replay's warm start like the others"},
			&cli.StringFlag{Name: "baseline", Destination: &g.DB, Usage: "regression gate: the baseline's results store"},
			&cli.StringSliceFlag{Name: "baseline-run", DefaultText: "every run of --baseline", Destination: &o.baselineRuns, Usage: "regression gate: baseline run"},
			&cli.StringFlag{Name: "metrics", DefaultText: strings.Join(gate.DefaultMetrics, ","), Destination: &o.metrics, Usage: "regression gate: metrics to compare, comma-separated (known: " +
				strings.Join(gate.Names(), ", ") + ")"},
			&cli.StringFlag{Name: "threshold", Value: "5%", Destination: &o.threshold, Usage: "regression gate: smallest relative change that counts (5% or 0.05)"},
			&cli.Float64Flag{Name: "alpha", Value: 0.01, Destination: &g.Config.Alpha, Usage: "regression gate: significance level over the metrics of a family (the jobs' outcome; their performance)"},
			&cli.BoolFlag{Name: "allow-different-workloads", Destination: &g.AllowDifferentWorkloads, Usage: "regression gate: compare sides whose workloads, specs or scenarios differ (refused otherwise, exit 2)"},
			&cli.StringFlag{Name: "test", Value: gate.BlockBootstrap, Destination: &g.Config.Test, Usage: "regression gate: " + gate.BlockBootstrap + " (blocks of consecutive jobs) or " + gate.IID + " (jobs as independent: Mann–Whitney U, Mood, Fisher); exact tests below 10 values a side"},
			&cli.BoolFlag{Name: "quiet", Aliases: []string{"q"}, Destination: &o.quiet, Usage: "no progress lines on standard error"},
		}, cliflag.Renamed(&cli.StringFlag{Name: "format", Value: "html", Destination: &o.format, Usage: "html, text, summary, json or csv"}, "f")...),
		Action: o.run,
		Subcommands: []*cli.Command{{
			Name:      "sql",
			Usage:     "run a read-only SQL query on the results store",
			ArgsUsage: "QUERY",
			Description: "Opens the store read-only and prints the query's rows (the schema is in docs/store.md):\n" +
				"  gmark report sql --db results.db \"SELECT state, count(*) FROM jobs GROUP BY state\"\n" +
				"Statements that would write are refused.",
			Flags: append([]cli.Flag{&cli.StringFlag{Name: "db", Value: "results.db", Destination: &o.sqlDB, Usage: "results store (SQLite)"}},
				cliflag.Renamed(&cli.StringFlag{Name: "format", Value: "text", Destination: &o.sqlFormat, Usage: "text, csv or json"}, "f")...),
			Action: o.sql,
		}},
	}
}

// maxBins bounds --bins: a figure cannot show more points than it has pixels.
const maxBins = 10000

// checkDB is report.CheckStore, its refusals as usage errors.
//
// A store with more than one name (hard links) is refused first: SQLite
// finds its write-ahead log by the name it was given, so under another
// name the rows a writer has not yet checkpointed are not there (a live
// run's store reads as empty), and a writer's lock is taken by name.
func checkDB(path string, runs []string, reporting bool) error {
	if _, err := filelock.RealPath(path); errors.Is(err, filelock.ErrLinked) {
		return usageError{err}
	}
	return storeUsage(report.CheckStore(path, runs, reporting))
}

// storeUsage makes a *report.StoreError a usage error.
func storeUsage(err error) error {
	if se := (*report.StoreError)(nil); errors.As(err, &se) {
		return usageError{err}
	}
	return err
}

// reportOptions are the flags of `gmark report` and 'report sql'.
type reportOptions struct {
	db     string
	dbs    []string // every --db (several only with compare)
	runs   []string
	output string // the HTML report's directory
	// compare is the field of --compare: a comparison of the runs.
	compare string
	format  string
	opts    report.Options
	gate    *report.GateOptions // a regression gate, with --baseline
	// reproduce is the run to reproduce into the directory to.
	reproduce, to string
	// The flags' values that the fields above are made of; report sql's own.
	runFlag, baselineRuns                cli.StringSlice
	quiet, workloadTime                  bool
	gateFlags                            report.GateOptions
	metrics, threshold, sqlDB, sqlFormat string
}

// parseReportFlags checks the flags of `gmark report`; every error is a
// usage error.
func parseReportFlags(c *cli.Context, o *reportOptions) (reportOptions, error) {
	o.runs, o.opts.Command, o.opts.ReadWindow = splitList(o.runFlag.Value()), os.Args, gwa.ReadReplayedWindow
	if c.NArg() > 0 {
		return *o, usageErrorf("report takes no arguments (did you mean 'gmark report sql QUERY'?)")
	}
	if o.opts.Tau < 0 || o.opts.Processors < 0 || o.opts.Bins < 1 || o.opts.Bins > maxBins {
		return *o, usageErrorf("--tau and --processors must be >= 0, --bins from 1 to %d", maxBins)
	}
	if !o.quiet {
		o.opts.Log = report.PrefixLog(c.App.ErrWriter, "gmark report: ")
	}
	if o.opts.WallTime && o.workloadTime {
		return *o, usageErrorf("--wall-time and --workload-time exclude each other")
	}
	if o.to != "" && o.reproduce == "" {
		return *o, usageErrorf("--to goes with --reproduce RUN")
	}
	if len(o.dbs) > 1 && o.compare == "" {
		o.compare = report.DefaultCompareBy // several stores: their runs side by side
	}
	if o.compare != "" && (o.gateFlags.DB != "" || o.reproduce != "" || o.opts.Fidelity) {
		return *o, usageErrorf("--compare (or several --db) goes without --baseline, --reproduce and --fidelity")
	}
	if o.gateFlags.DB == "" {
		if o.compare != "" {
			return *o, nil
		}
		if !slices.Contains([]string{"html", "text", "summary", "json", "csv"}, o.format) {
			return *o, usageErrorf("--format %q: want html, text, summary, json or csv", o.format)
		}
		return *o, nil
	}
	g, err := o.parseGateFlags(c)
	o.gate = g
	return *o, err
}

func (o *reportOptions) parseGateFlags(c *cli.Context) (*report.GateOptions, error) {
	g := &o.gateFlags
	g.Runs, g.Format, g.Config.Metrics = splitList(o.baselineRuns.Value()), "text", splitList([]string{o.metrics})
	threshold, err := gate.ParseThreshold(o.threshold)
	if err != nil {
		return g, usageError{err}
	}
	g.Config.Threshold = threshold
	if !(g.Config.Alpha > 0 && g.Config.Alpha < 1) {
		return g, usageErrorf("--alpha must be between 0 and 1")
	}
	for _, n := range g.Config.Metrics {
		if gate.Metrics[n] == nil {
			return g, usageErrorf("--metrics: unknown metric %q (known: %s)", n, strings.Join(gate.Names(), ", "))
		}
	}
	if g.Config.Test != gate.BlockBootstrap && g.Config.Test != gate.IID {
		return g, usageErrorf("--test %q: want %s or %s", g.Config.Test, gate.BlockBootstrap, gate.IID)
	}
	if cliflag.Given(c, &o.format) {
		if f := o.format; f != "text" && f != "json" {
			return g, usageErrorf("with --baseline, --format is text or json")
		}
		g.Format = o.format
	}
	return g, nil
}

func (f *reportOptions) run(c *cli.Context) error {
	o, err := parseReportFlags(c, f)
	if err != nil {
		return err
	}
	report.CollectOften()
	if o.reproduce != "" {
		return reproduce(o, c.App.Writer)
	} else if o.compare != "" {
		co := report.CompareOptions{Options: o.opts, By: o.compare, DBs: o.dbs, Runs: o.runs, Format: o.format, Dir: o.output}
		return storeUsage(report.WriteComparison(c.Context, c.App.Writer, co))
	}
	if err := checkDB(o.db, o.runs, true); err != nil {
		return err
	}
	if o.gate != nil {
		return runGate(c.Context, o, c.App.Writer)
	}
	return writeReport(c.Context, o, c.App.Writer)
}

// reproduce writes the inputs of run o.reproduce out of the store and
// prints the commands that regenerate and rerun it.
func reproduce(o reportOptions, w io.Writer) error {
	if err := checkDB(o.db, []string{o.reproduce}, false); err != nil {
		return err
	}
	if o.to == "" {
		o.to = "reproduce-" + o.reproduce
	}
	r, err := report.Reproduce(o.db, o.reproduce, o.to)
	if err != nil {
		return err
	}
	return r.WriteText(w)
}

// writeReport writes the report of the runs in its format.
func writeReport(ctx context.Context, o reportOptions, w io.Writer) error {
	if o.format == "html" {
		// Before reading the store: a report that cannot be written is
		// bad usage, not a failure after the work.
		if err := report.CheckDir(o.output); err != nil {
			return usageErrorf("-o: %v", err)
		}
		start := time.Now()
		index, err := report.Write(ctx, o.db, o.runs, o.output, o.opts)
		if err != nil {
			return err
		}
		fmt.Fprintf(w, "report written to %s (%s)\n", index, time.Since(start).Round(time.Millisecond))
		return nil
	}
	o.opts.Log = nil
	rep, err := report.Build(ctx, o.db, o.runs, o.opts)
	if err != nil {
		return err
	}
	switch o.format {
	case "text":
		return rep.WriteText(w)
	case "summary":
		return rep.WriteSummary(w)
	case "json":
		return rep.WriteJSON(w)
	}
	return rep.WriteCSV(w)
}

// runGate compares the runs of --db with those of --baseline.
func runGate(ctx context.Context, o reportOptions, w io.Writer) error {
	res, err := report.Gate(ctx, w, o.db, o.runs, *o.gate, o.opts)
	if err == nil && res.Failed() {
		return cli.Exit(res.Verdict(), exitFailure)
	}
	return storeUsage(err)
}

func (o *reportOptions) sql(c *cli.Context) error {
	if c.NArg() != 1 {
		return usageErrorf("report sql takes one query, quoted: gmark report sql --db results.db \"SELECT …\"")
	}
	q := c.Args().First()
	if err := store.CheckReadQuery(q); err != nil {
		return usageErrorf("report sql: %v", err)
	}
	format := cliflag.Inherited(c, &o.sqlFormat, &o.format)
	if !slices.Contains(report.RowFormats, format) {
		return usageErrorf("--format %q: want text, csv or json", format)
	}
	db := cliflag.Inherited(c, &o.sqlDB, &o.db) // also 'gmark report --db F sql QUERY'
	if err := checkDB(db, nil, false); err != nil {
		return err
	}
	st, err := store.OpenReadOnly(db)
	if err != nil {
		return err
	}
	defer st.Close()
	rows, err := st.Query(c.Context, q)
	var qe *store.QueryError
	if errors.As(err, &qe) {
		return usageErrorf("report sql: %v", err)
	} else if err != nil {
		return err
	}
	return report.WriteRows(c.App.Writer, format, rows)
}
