package main

import (
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/gmark/gmark/analyzer/gate"
	"github.com/gmark/gmark/analyzer/metrics"
	"github.com/gmark/gmark/analyzer/report"
	"github.com/gmark/gmark/analyzer/store"
	"github.com/urfave/cli/v2"
)

func init() {
	commands = append(commands, &cli.Command{
		Name:  "report",
		Usage: "report on runs in the results store: HTML page, text, JSON, CSV, or a regression gate",
		Description: "Reads runs from the results store (--db; every run unless --run names some) and writes\n" +
			"the metrics of docs/metrics.md: an HTML page with every table, figure and the provenance of\n" +
			"each run (--format html, into -o DIR: open DIR/index.html, no server needed), or text, JSON or\n" +
			"CSV on standard output.\n\n" +
			"With --baseline OLD.db it is a regression gate: the runs of --db are compared with those of\n" +
			"OLD.db, metric by metric (--metrics), and a change for the worse that is both statistically\n" +
			"significant (--alpha) and beyond --threshold is a regression. docs/report.md has the tests.\n\n" +
			"'gmark report sql QUERY' runs a read-only SQL query on the store.\n\n" +
			"Exit status: 0 ok (gate: no regression), 1 a regression or a failure, 2 bad usage.",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "db", Value: "results.db", Usage: "results store (SQLite)"},
			&cli.StringSliceFlag{Name: "run", Usage: "run to report on (repeat, or comma-separated; default: every run of --db)"},
			&cli.StringFlag{Name: "output", Aliases: []string{"o"}, Value: "report", Usage: "directory of the HTML report"},
			&cli.StringFlag{Name: "format", Aliases: []string{"f"}, Value: "html", Usage: "html, text, summary, json or csv"},
			&cli.DurationFlag{Name: "tau", Value: metrics.DefaultTau, Usage: "threshold τ of the bounded slowdown"},
			&cli.IntFlag{Name: "processors", Usage: "system size for utilization (default: from the run's grid or processor budget)"},
			&cli.BoolFlag{Name: "workload-time", Usage: "report runs made with --speedup in workload time (durations × speedup)"},
			&cli.IntFlag{Name: "bins", Value: 100, Usage: "intervals of the time series (utilization, goodput, throughput over time)"},
			&cli.StringFlag{Name: "baseline", Usage: "regression gate: the baseline's results store"},
			&cli.StringSliceFlag{Name: "baseline-run", Usage: "regression gate: baseline run (default: every run of --baseline)"},
			&cli.StringFlag{Name: "metrics", Usage: "regression gate: metrics to compare, comma-separated (default " +
				strings.Join(gate.DefaultMetrics, ",") + "; known: " + strings.Join(gate.Names(), ", ") + ")"},
			&cli.StringFlag{Name: "threshold", Value: "5%", Usage: "regression gate: smallest relative change that counts (5% or 0.05)"},
			&cli.Float64Flag{Name: "alpha", Value: 0.01, Usage: "regression gate: significance level over all the metrics compared"},
			&cli.StringFlag{Name: "test", Value: gate.BlockBootstrap, Usage: "regression gate: " + gate.BlockBootstrap + " (blocks of consecutive jobs) or " + gate.IID + " (jobs as independent: Mann–Whitney U, Mood, z)"},
			&cli.BoolFlag{Name: "quiet", Aliases: []string{"q"}, Usage: "no progress lines on standard error"},
		},
		Action: runReport,
		Subcommands: []*cli.Command{{
			Name:      "sql",
			Usage:     "run a read-only SQL query on the results store",
			ArgsUsage: "QUERY",
			Description: "Opens the store read-only and prints the query's rows (the schema is in docs/store.md):\n" +
				"  gmark report sql --db results.db \"SELECT state, count(*) FROM jobs GROUP BY state\"\n" +
				"Statements that would write are refused.",
			Flags: []cli.Flag{
				&cli.StringFlag{Name: "db", Value: "results.db", Usage: "results store (SQLite)"},
				&cli.StringFlag{Name: "format", Aliases: []string{"f"}, Value: "text", Usage: "text, csv or json"},
			},
			Action: runReportSQL,
		}},
	})
}

// maxBins bounds --bins: the time series take a few numbers per bin and
// run, and a figure cannot show more points than it has pixels anyway.
const maxBins = 10000

// parseThreshold reads "5%" or "0.05".
func parseThreshold(s string) (float64, error) {
	s = strings.TrimSpace(s)
	pc := strings.HasSuffix(s, "%")
	v, err := strconv.ParseFloat(strings.TrimSuffix(s, "%"), 64)
	if err != nil || !(v >= 0) || math.IsInf(v, 0) {
		return 0, fmt.Errorf("--threshold %q: want a percentage (5%%) or a fraction (0.05), 0 or more", s)
	}
	if pc {
		v /= 100
	}
	return v, nil
}

// checkDB fails with a usage error when the store does not exist, and
// checks that the named runs are in it, or (none named, reporting) that it
// holds a run.
func checkDB(path string, runs []string, reporting bool) error {
	if _, err := os.Stat(path); err != nil {
		return usageErrorf("results store %s: %v", path, errors.Unwrap(err))
	}
	st, err := store.OpenReadOnly(path)
	if err != nil {
		return usageError{err}
	}
	defer st.Close()
	if len(runs) == 0 && reporting {
		all, err := st.Runs()
		if err != nil {
			return err
		}
		if len(all) == 0 {
			return usageErrorf("results store %s holds no run: record one with 'gmark submit' or 'gmark koala simulate --db %s'", path, path)
		}
	}
	for _, r := range runs {
		ok, err := st.RunExists(r)
		if err != nil {
			return err
		}
		if !ok {
			return usageErrorf("run %s is not in %s (list the runs with: gmark report sql --db %s \"SELECT id, created_ns, target FROM runs\")", r, path, path)
		}
	}
	return nil
}

func runReport(c *cli.Context) error {
	if c.NArg() > 0 {
		return usageErrorf("report takes no arguments (did you mean 'gmark report sql QUERY'?)")
	}
	if c.Duration("tau") < 0 || c.Int("processors") < 0 || c.Int("bins") < 1 || c.Int("bins") > maxBins {
		return usageErrorf("--tau and --processors must be >= 0, --bins from 1 to %d", maxBins)
	}
	db := c.String("db")
	runs := splitList(c.StringSlice("run"))
	if err := checkDB(db, runs, true); err != nil {
		return err
	}
	opts := report.Options{Tau: c.Duration("tau"), Processors: c.Int("processors"), WorkloadTime: c.Bool("workload-time"),
		Bins: c.Int("bins"), Command: os.Args}
	if !c.Bool("quiet") {
		opts.Log = prefixWriter{w: c.App.ErrWriter, prefix: "gmark report: "}
	}
	if c.String("baseline") != "" {
		return runGate(c, db, runs, opts)
	}
	format := c.String("format")
	switch format {
	case "html":
		// Before reading the store: a report that cannot be written is
		// bad usage, not a failure after the work.
		if err := report.CheckDir(c.String("output")); err != nil {
			return usageErrorf("-o: %v", err)
		}
		start := time.Now()
		index, err := report.Write(c.Context, db, runs, c.String("output"), opts)
		if err != nil {
			return err
		}
		fmt.Fprintf(c.App.Writer, "report written to %s (%s)\n", index, time.Since(start).Round(time.Millisecond))
		return nil
	case "text", "summary", "json", "csv":
		opts.Log = nil
		rep, err := report.Build(c.Context, db, runs, opts)
		if err != nil {
			return err
		}
		switch format {
		case "text":
			return rep.WriteText(c.App.Writer)
		case "summary":
			return rep.WriteSummary(c.App.Writer)
		case "json":
			return rep.WriteJSON(c.App.Writer)
		default:
			return rep.WriteCSV(c.App.Writer)
		}
	}
	return usageErrorf("--format %q: want html, text, summary, json or csv", format)
}

// runGate compares the runs of --db with those of --baseline.
func runGate(c *cli.Context, db string, runs []string, opts report.Options) error {
	threshold, err := parseThreshold(c.String("threshold"))
	if err != nil {
		return usageError{err}
	}
	alpha := c.Float64("alpha")
	if !(alpha > 0 && alpha < 1) {
		return usageErrorf("--alpha must be between 0 and 1")
	}
	names := splitList([]string{c.String("metrics")})
	for _, n := range names {
		if gate.Metrics[n] == nil {
			return usageErrorf("--metrics: unknown metric %q (known: %s)", n, strings.Join(gate.Names(), ", "))
		}
	}
	test := c.String("test")
	if test != gate.BlockBootstrap && test != gate.IID {
		return usageErrorf("--test %q: want %s or %s", test, gate.BlockBootstrap, gate.IID)
	}
	format := c.String("format")
	if c.IsSet("format") && format != "text" && format != "json" {
		return usageErrorf("with --baseline, --format is text or json")
	}
	baseDB := c.String("baseline")
	baseRuns := splitList(c.StringSlice("baseline-run"))
	if err := checkDB(baseDB, baseRuns, true); err != nil {
		return err
	}
	opts.Log = nil
	base, err := report.Build(c.Context, baseDB, baseRuns, opts)
	if err != nil {
		return err
	}
	cur, err := report.Build(c.Context, db, runs, opts)
	if err != nil {
		return err
	}
	res, err := gate.Compare(runMetrics(base), runMetrics(cur), gate.Config{Metrics: names, Threshold: threshold, Alpha: alpha, Test: test})
	if err != nil {
		return usageError{err}
	}
	if format == "json" {
		b, err := report.MarshalJSON(res)
		if err != nil {
			return err
		}
		if _, err := c.App.Writer.Write(append(b, '\n')); err != nil {
			return err
		}
	} else if err := res.WriteText(c.App.Writer); err != nil {
		return err
	}
	if len(res.Regressed) > 0 {
		return cli.Exit("regression in "+strings.Join(res.Regressed, ", "), exitFailure)
	}
	return nil
}

func runMetrics(r *report.Report) []*metrics.RunMetrics {
	out := make([]*metrics.RunMetrics, len(r.Runs))
	for i, run := range r.Runs {
		out[i] = run.Metrics
	}
	return out
}

type prefixWriter struct {
	w      io.Writer
	prefix string
}

func (p prefixWriter) Write(b []byte) (int, error) {
	if _, err := io.WriteString(p.w, p.prefix); err != nil {
		return 0, err
	}
	return p.w.Write(b)
}

func runReportSQL(c *cli.Context) error {
	if c.NArg() != 1 {
		return usageErrorf("report sql takes one query, quoted: gmark report sql --db results.db \"SELECT …\"")
	}
	q := c.Args().First()
	if err := store.CheckReadQuery(q); err != nil {
		return usageErrorf("report sql: %v", err)
	}
	format := c.String("format")
	if !slices.Contains(report.RowFormats, format) {
		return usageErrorf("--format %q: want text, csv or json", format)
	}
	db := c.String("db")
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
