package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/gmark/gmark/gwa"
	"github.com/gmark/gmark/internal/outfile"
	"github.com/urfave/cli/v2"
)

// gmark trace: Grid Workloads Archive and Parallel Workloads Archive traces,
// their analysis, selection and conversion. The work is done by package gwa;
// this file wires flags to it. docs/trace.md describes it all.
func init() {
	strict := &cli.BoolFlag{Name: "strict", Usage: "stop at the first malformed line (default: skip malformed lines, count them and report the count)"}
	quiet := &cli.BoolFlag{Name: "quiet", Aliases: []string{"q"}, Usage: "no progress bar"}
	format := &cli.StringFlag{Name: "input-format", Usage: "input format when it cannot be detected: swf, gwf or sqlite"}
	procs := &cli.IntFlag{Name: "procs", Usage: "system size (processors) for utilization; default the header's MaxProcs"}
	commands = append(commands, &cli.Command{
		Name:  "trace",
		Usage: "analyse, plot, select, convert and rank GWF, GWF-SQLite and SWF traces",
		Description: "Reads Grid Workloads Archive traces (GWF text, GWF-SQLite) and Parallel Workloads Archive\n" +
			"traces (SWF), gzip-compressed or not; the format is detected. See docs/trace.md.\n\n" +
			"Exit status: 0 on success, 2 on bad usage or a malformed trace under --strict, 1 on other errors.",
		Subcommands: []*cli.Command{
			{
				Name:      "stats",
				Usage:     "the GWA analysis of a trace: totals, utilization, arrivals, distributions, users, sites, status, ranking",
				ArgsUsage: "TRACE...",
				Flags: []cli.Flag{strict, quiet, format, procs,
					&cli.BoolFlag{Name: "json", Usage: "print the analysis as JSON (one object per trace; an array for several)"},
					&cli.BoolFlag{Name: "cdf", Usage: "with --json, include the CDF points of each distribution"},
					&cli.IntFlag{Name: "top", Value: 10, Usage: "how many top users to list"},
					&cli.IntFlag{Name: "reported-work", Value: -1, Usage: "publications using the trace, the sixth ranking category (not computable from a trace; left out by default)"},
				},
				Action: runTraceStats,
			},
			{
				Name:      "plot",
				Usage:     "draw the analysis figures of a trace as PNG and SVG",
				ArgsUsage: "TRACE",
				Flags: []cli.Flag{strict, quiet, format, procs,
					&cli.StringFlag{Name: "output", Aliases: []string{"o"}, Required: true, Usage: "directory for the figures"},
				},
				Action: runTracePlot,
			},
			{
				Name:      "select",
				Usage:     "filter, area-select, scale and mix traces; write the result as SWF, GWF or GWF-SQLite",
				ArgsUsage: "TRACE...",
				Description: "Several input traces are mixed into one, in submit order (each trace's start at offset 0;\n" +
					"--tag names them so their users and sites stay apart). The selection runs: filters, then the\n" +
					"representative area (--area-width and --target), then --first, then rebasing to the selection's\n" +
					"start (--rebase) and scaling. Times take units ms s m h d w; a bare number is seconds.",
				Flags:  append(selectionFlags(), strict, quiet, format, outputFlags()[0], outputFlags()[1], outputFlags()[2]),
				Action: runTraceSelect,
			},
			{
				Name:      "convert",
				Usage:     "convert a trace between SWF, GWF and GWF-SQLite (.gz compresses text output)",
				ArgsUsage: "IN OUT",
				Flags:     append([]cli.Flag{strict, quiet, format}, outputFlags()[1:]...),
				Action:    runTraceConvert,
			},
			{
				Name:      "bots",
				Usage:     "extract bags-of-tasks (batch submissions) and report their sizes, inter-arrival and run times",
				ArgsUsage: "TRACE",
				Flags: []cli.Flag{strict, quiet, format,
					&cli.StringSliceFlag{Name: "delta", Value: cli.NewStringSlice("120s"), Usage: "Δ: the largest submit gap inside a batch (several for a sensitivity table)"},
					&cli.BoolFlag{Name: "json", Usage: "print JSON"},
					&cli.IntFlag{Name: "list", Usage: "also print the first N batches (of the first Δ)"},
				},
				Action: runTraceBoTs,
			},
			{
				Name:      "rank",
				Usage:     "the GWA trace ranking: stars per category, each trace's value and the distances between traces",
				ArgsUsage: "TRACE...",
				Flags: []cli.Flag{strict, quiet, format, procs,
					&cli.StringFlag{Name: "categories", Value: "sites,cores,users,jobs,utilization", Usage: "the categories C (comma-separated; add reported_work with --reported-work)"},
					&cli.IntSliceFlag{Name: "reported-work", Usage: "publications using each trace, in argument order"},
					&cli.BoolFlag{Name: "json", Usage: "print JSON"},
				},
				Action: runTraceRank,
			},
		},
	})
}

func selectionFlags() []cli.Flag {
	return []cli.Flag{
		&cli.StringFlag{Name: "from", Usage: "keep jobs submitted at or after this offset from the trace's time base"},
		&cli.StringFlag{Name: "to", Usage: "keep jobs submitted before this offset"},
		&cli.Int64Flag{Name: "first", Usage: "keep the first N jobs (after the other filters and the area)"},
		&cli.StringSliceFlag{Name: "site", Usage: "keep jobs of these sites (ids or SWF partition names)"},
		&cli.StringSliceFlag{Name: "user", Usage: "keep jobs of these users"},
		&cli.StringSliceFlag{Name: "status", Usage: "keep jobs with these statuses: completed, failed, cancelled, partial, unknown or -1..5"},
		&cli.StringFlag{Name: "min-runtime", Usage: "keep jobs that ran at least this long"},
		&cli.StringFlag{Name: "max-runtime", Usage: "keep jobs that ran at most this long"},
		&cli.IntFlag{Name: "min-procs", Usage: "keep jobs of at least this many processors"},
		&cli.IntFlag{Name: "max-procs", Usage: "keep jobs of at most this many processors"},
		&cli.StringFlag{Name: "area-width", Usage: "select the representative window of this width (e.g. 3h)"},
		&cli.StringSliceFlag{Name: "target", Usage: "area target CHAR:VALUE or CHAR:pP, CHAR one of arrivals, work, runtime, procs, users, wait (default arrivals:p50)"},
		&cli.Float64Flag{Name: "submit-scale", Value: 1, Usage: "multiply submit offsets (0.1: ten times the arrival rate)"},
		&cli.Float64Flag{Name: "runtime-scale", Value: 1, Usage: "multiply run, requested and CPU times"},
		&cli.Float64Flag{Name: "proc-scale", Value: 1, Usage: "multiply processor counts (rounded, at least 1)"},
		&cli.BoolFlag{Name: "rebase", Usage: "make submit times offsets from the selection's start (implied by --area-width)"},
		&cli.StringSliceFlag{Name: "tag", Usage: "with several traces, a tag per trace prefixed to its ids (default: the file names, without .gz)"},
	}
}

func outputFlags() []cli.Flag {
	return []cli.Flag{
		&cli.StringFlag{Name: "output", Aliases: []string{"o"}, Required: true, Usage: "output file (.swf, .gwf, .db3/.sqlite; .gz compresses text)"},
		&cli.StringFlag{Name: "format", Usage: "output format when the name does not tell: swf, gwf or sqlite"},
		&cli.BoolFlag{Name: "force", Aliases: []string{"f"}, Usage: "replace the output file if it exists"},
	}
}

// readOptions builds the reader options of a command.
func readOptions(c *cli.Context) (gwa.ReadOptions, error) {
	o := gwa.ReadOptions{Strict: c.Bool("strict")}
	if s := c.String("input-format"); s != "" {
		f, ok := gwa.ParseFormat(s)
		if !ok {
			return o, usageErrorf("--input-format %q: swf, gwf or sqlite", s)
		}
		o.Format = f
	}
	return o, nil
}

// traceError classifies a read error: malformed input exits with 2.
func traceError(c *cli.Context, err error) error {
	var pe *gwa.ParseError
	var ne *gwa.NoRecordsError
	switch {
	case errors.As(err, &ne) || errors.Is(err, gwa.ErrOutOfRange):
		return usageError{err}
	case errors.As(err, &pe) && c.Bool("strict"):
		return usageError{fmt.Errorf("%v (without --strict, malformed lines are skipped and counted)", err)}
	case errors.As(err, &pe):
		return usageError{err}
	}
	if errors.Is(err, os.ErrNotExist) {
		return usageError{err}
	}
	return err
}

// openTrace opens one trace for a command.
func openTrace(c *cli.Context, path string) (gwa.Reader, error) {
	o, err := readOptions(c)
	if err != nil {
		return nil, err
	}
	r, err := gwa.Open(path, o)
	if err != nil {
		return nil, traceError(c, err)
	}
	return r, nil
}

// reportSkipped prints the count of skipped malformed lines, with the first
// few, on stderr.
func reportSkipped(c *cli.Context, name string, s *gwa.ReadStats) {
	if s.Skipped == 0 {
		return
	}
	fmt.Fprintf(c.App.ErrWriter, "warning: %s: skipped %d malformed line(s) (--strict stops at the first)\n", name, s.Skipped)
	for _, e := range s.Errors {
		fmt.Fprintf(c.App.ErrWriter, "  %v\n", e)
	}
	if int64(len(s.Errors)) < s.Skipped {
		fmt.Fprintf(c.App.ErrWriter, "  … and %d more\n", s.Skipped-int64(len(s.Errors)))
	}
}

// recordProgress is a progress bar over records, sized by the header's
// MaxJobs when it has one.
func recordProgress(c *cli.Context, r gwa.Reader, desc string) (*progress, func(int64)) {
	total := int64(r.Header().MaxJobs)
	if total <= 0 {
		total = -1
	}
	bar := newProgress(total, desc, "jobs", c.Bool("quiet") || (total > 0 && total < 200000))
	last := int64(0)
	return bar, func(n int64) {
		bar.Add(int(n - last))
		last = n
	}
}

func analyse(c *cli.Context, path string) (*gwa.Analysis, error) {
	r, err := openTrace(c, path)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	opts := gwa.AnalysisOptions{Processors: c.Int("procs"), TopN: c.Int("top"), NoCDF: !c.Bool("cdf")}
	if c.Command.Name == "plot" {
		opts.NoCDF = false
	}
	if n := c.Int("reported-work"); n >= 0 && c.Command.Name == "stats" {
		opts.ReportedWork, opts.ReportedWorkKnown = n, true
	}
	if opts.Processors < 0 || opts.Processors > gwa.MaxProcs {
		return nil, usageErrorf("--procs must be from 1 to %d", gwa.MaxProcs)
	}
	bar, prog := recordProgress(c, r, "analysing "+filepath.Base(path))
	a, err := gwa.Analyze(r, opts, prog)
	bar.Done()
	if err != nil {
		return nil, traceError(c, err)
	}
	a.Trace.Name = filepath.Base(path)
	reportSkipped(c, path, r.Stats())
	return a, nil
}

func runTraceStats(c *cli.Context) error {
	if c.NArg() == 0 {
		return usageErrorf("trace stats takes one or more trace files (see 'gmark trace stats --help')")
	}
	var all []*gwa.Analysis
	for _, path := range c.Args().Slice() {
		a, err := analyse(c, path)
		if err != nil {
			return err
		}
		all = append(all, a)
		if !c.Bool("json") {
			printAnalysis(c.App.Writer, a)
		}
	}
	if c.Bool("json") {
		var v any = all
		if len(all) == 1 {
			v = all[0]
		}
		b, err := json.MarshalIndent(v, "", "  ")
		if err != nil {
			return err
		}
		_, err = c.App.Writer.Write(append(b, '\n'))
		return err
	}
	return nil
}

// human writes a time span as days and a Go duration, or n/a.
func human(span gwa.Stat) string {
	if !span.OK() {
		return "n/a"
	}
	secs := span.Value
	d := time.Duration(secs * float64(time.Second))
	if secs >= 86400 {
		days := int(secs / 86400)
		return fmt.Sprintf("%dd%s", days, (d - time.Duration(days)*24*time.Hour).Round(time.Second))
	}
	return d.Round(time.Second).String()
}

// percent writes a share as a percentage with prec decimals, or n/a.
func percent(share gwa.Stat, prec int) string {
	if !share.OK() {
		return "n/a"
	}
	return strconv.FormatFloat(100*share.Value, 'f', prec, 64) + "%"
}

// pct is the percentage a/b, n/a when b is 0.
func pct(a, b float64) string {
	if b == 0 {
		return "n/a"
	}
	return percent(gwa.Stat{Value: a / b}, 1)
}

func printAnalysis(w io.Writer, a *gwa.Analysis) {
	t := a.Totals
	fmt.Fprintf(w, "%s: %s, %d jobs", a.Trace.Name, strings.ToUpper(string(a.Trace.Format)), t.Jobs)
	if a.Trace.HeaderJobs > 0 {
		fmt.Fprintf(w, " (header MaxJobs %d)", a.Trace.HeaderJobs)
	}
	fmt.Fprintf(w, ", %d users, %d groups, %d sites, %d processors (%s)\n", t.Users, t.Groups, t.Sites, t.Processors, a.Utilization.ProcessorsSource)
	base := "none (times are relative)"
	if a.Trace.Start != "" {
		base = a.Trace.Start + " (" + a.Trace.TimeBase + ", " + a.Trace.TimeZone + ")"
	}
	fmt.Fprintf(w, "  time base:    %s\n", base)
	fmt.Fprintf(w, "  span:         %s (submits %g..%g s), last job ends at %g s\n", human(t.Span), t.FirstSubmit, t.LastSubmit, t.LastEnd)
	goodput := "n/a"
	if t.Goodput.OK() {
		goodput = fmt.Sprintf("%.1f CPU-years/year", t.Goodput.Value)
	}
	fmt.Fprintf(w, "  consumed:     %.2f CPU-years; goodput %s; utilization %s\n", t.CPUYears, goodput, percent(a.Utilization.Average, 2))
	s := a.Status
	fmt.Fprintf(w, "  status:       completed %d, failed %d, cancelled %d, partial %d, unknown %d\n", s.Completed, s.Failed, s.Cancelled, s.Partial, s.Unknown)
	z := a.Size
	fmt.Fprintf(w, "  size:         %d sequential (%s of CPU), %d parallel (%s of CPU), %d unknown\n",
		z.SequentialJobs, pct(z.SequentialCPU, z.SequentialCPU+z.ParallelCPU), z.ParallelJobs, pct(z.ParallelCPU, z.SequentialCPU+z.ParallelCPU), z.UnknownSize)
	fmt.Fprintf(w, "  distributions %8s %10s %10s %10s %10s %10s %10s\n", "count", "mean", "median", "p90", "p99", "max", "missing")
	d := a.Distributions
	for _, row := range []struct {
		name string
		s    *gwa.Summary
	}{{"inter-arrival s", d.InterArrival}, {"wait s", d.Wait}, {"run time s", d.RunTime}, {"processors", d.Parallelism}, {"memory KB", d.Memory}, {"CPU time s", d.CPUTime}} {
		if row.s.Count == 0 {
			fmt.Fprintf(w, "    %-15s %8d %10s (no values) %29s %10d\n", row.name, 0, "-", "", row.s.Missing)
			continue
		}
		fmt.Fprintf(w, "    %-15s %8d %10.4g %10.4g %10.4g %10.4g %10.4g %10d\n", row.name, row.s.Count, row.s.Mean, row.s.Median, row.s.P90, row.s.P99, row.s.Max, row.s.Missing)
	}
	peakHour, peakDay := 0, 0
	for i := range a.Arrivals.ByHour {
		if a.Arrivals.ByHour[i] > a.Arrivals.ByHour[peakHour] {
			peakHour = i
		}
	}
	for i := range a.Arrivals.ByWeekday {
		if a.Arrivals.ByWeekday[i] > a.Arrivals.ByWeekday[peakDay] {
			peakDay = i
		}
	}
	days := []string{"Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"}
	fmt.Fprintf(w, "  arrivals:     busiest hour of day %02d:00, busiest weekday %s, at most %d jobs in a day\n", peakHour, days[peakDay], a.Arrivals.PeakDay)
	u := a.Utilization
	peak := 0.0
	for _, v := range u.BusiestHourly {
		peak = math.Max(peak, v)
	}
	if u.BusiestMonth == "" {
		fmt.Fprintf(w, "  load:         busiest month n/a, spike %d jobs running in a day\n", u.Spike)
	} else {
		fmt.Fprintf(w, "  load:         busiest month %s (hourly peak %.1f%%), spike %d jobs running in a day\n", u.BusiestMonth, 100*peak, u.Spike)
	}
	printUsers := func(title string, us []gwa.UserShare) {
		var parts []string
		for _, x := range us {
			parts = append(parts, fmt.Sprintf("%s %s/%s", x.User, percent(x.JobShare, 1), percent(x.CPUShare, 1)))
		}
		fmt.Fprintf(w, "  %-13s %s\n", title, strings.Join(parts, ", "))
	}
	printUsers("top by jobs:", a.Users.TopByJob)
	printUsers("top by CPU:", a.Users.TopByCPU)
	fmt.Fprintf(w, "                (user jobs%%/CPU%%)\n")
	var sites []string
	for _, x := range a.Sites[:min(len(a.Sites), 5)] {
		n := x.Site
		if x.Name != "" {
			n = x.Name
		}
		sites = append(sites, fmt.Sprintf("%s %d", n, x.Jobs))
	}
	fmt.Fprintf(w, "  top sites:    %s\n", strings.Join(sites, ", "))
	fmt.Fprintf(w, "  ranking:      %s; value %.2f over %d categories\n", a.Ranking, a.Ranking.Value, len(a.Ranking.KnownCategories()))
	if r := a.Read; r != nil {
		o := r.Oddities
		fmt.Fprintf(w, "  read:         %d lines, %d records, %d skipped; oddities: absolute submit %d, negative wait %d, cancelled before start %d, late comments %d, trailing space %d, extra fields %d, out of order %d\n",
			r.Lines, r.Records, r.Skipped, o.AbsoluteSubmit, o.NegativeWait, o.CancelledBeforeStart, o.LateComments, o.TrailingSpace, o.ExtraFields, o.OutOfOrder)
	}
}

func runTracePlot(c *cli.Context) error {
	if c.NArg() != 1 {
		return usageErrorf("trace plot takes one trace file and -o DIR")
	}
	if err := checkFigureDir(c.String("output")); err != nil {
		return err
	}
	a, err := analyse(c, c.Args().First())
	if err != nil {
		return err
	}
	files, err := gwa.PlotAnalysis(a, c.String("output"))
	if err != nil {
		return err
	}
	if !c.Bool("quiet") {
		fmt.Fprintf(c.App.Writer, "wrote %d figures (%d files, PNG and SVG) to %s\n", len(files)/2, len(files), c.String("output"))
	}
	return nil
}

// parseSelection reads the selection flags.
func parseSelection(c *cli.Context) (gwa.Selection, error) {
	var s gwa.Selection
	f := &s.Filter
	dur := func(name string, r *gwa.Range, min bool) error {
		v := c.String(name)
		if v == "" {
			return nil
		}
		d, err := gwa.ParseDurationSeconds(v)
		if err != nil {
			return usageErrorf("--%s: %v", name, err)
		}
		if min {
			r.Min, r.HasMin = d, true
		} else {
			r.Max, r.HasMax = d, true
		}
		return nil
	}
	for _, x := range []struct {
		name string
		r    *gwa.Range
		min  bool
	}{{"from", &f.Submit, true}, {"to", &f.Submit, false}, {"min-runtime", &f.RunTime, true}, {"max-runtime", &f.RunTime, false}} {
		if err := dur(x.name, x.r, x.min); err != nil {
			return s, err
		}
	}
	if c.IsSet("min-procs") {
		f.Procs.Min, f.Procs.HasMin = float64(c.Int("min-procs")), true
	}
	if c.IsSet("max-procs") {
		f.Procs.Max, f.Procs.HasMax = float64(c.Int("max-procs")), true
	}
	if c.Int64("first") < 0 {
		return s, usageErrorf("--first must be >= 0")
	}
	f.FirstN = c.Int64("first")
	f.Sites = splitList(c.StringSlice("site"))
	f.Users = splitList(c.StringSlice("user"))
	for _, st := range splitList(c.StringSlice("status")) {
		v, err := gwa.ParseStatus(st)
		if err != nil {
			return s, usageError{err}
		}
		f.Status = append(f.Status, v...)
	}
	if w := c.String("area-width"); w != "" {
		d, err := gwa.ParseDurationSeconds(w)
		if err != nil || d <= 0 {
			return s, usageErrorf("--area-width %q must be a duration > 0, e.g. 3h", w)
		}
		s.AreaWidth = d
		s.Rebase = true
	}
	for _, t := range splitList(c.StringSlice("target")) {
		tg, err := gwa.ParseTarget(t)
		if err != nil {
			return s, usageError{err}
		}
		s.AreaTargets = append(s.AreaTargets, tg)
	}
	if len(s.AreaTargets) > 0 && s.AreaWidth == 0 {
		return s, usageErrorf("--target needs --area-width")
	}
	for _, n := range []string{"submit-scale", "runtime-scale", "proc-scale"} {
		if v := c.Float64(n); !(v > 0) || math.IsInf(v, 0) {
			return s, usageErrorf("--%s must be a finite number > 0", n)
		}
	}
	s.Scale = gwa.Scale{Submit: c.Float64("submit-scale"), RunTime: c.Float64("runtime-scale"), Procs: c.Float64("proc-scale")}
	s.Rebase = s.Rebase || c.Bool("rebase")
	return s, nil
}

// checkOutputFile reads --format and checks the output path (see
// checkOutput) before any input is read.
func checkOutputFile(c *cli.Context, path string) (gwa.Format, error) {
	var f gwa.Format
	if s := c.String("format"); s != "" {
		var ok bool
		if f, ok = gwa.ParseFormat(s); !ok {
			return f, usageErrorf("--format %q: swf, gwf or sqlite", s)
		}
	}
	if f == "" {
		if f = gwa.FormatFromName(path); f == "" {
			return f, usageErrorf("%s: cannot tell the output format from the name; use .swf, .gwf, .db3 or --format", path)
		}
	}
	return f, checkOutput(c, path, f == gwa.SQLite)
}

// checkOutput checks an output file's path the way internal/outfile will
// write it, so that a bad path is a usage error before any work: a
// directory, a socket or a missing directory is refused; a regular file
// (at the end of any symbolic links) is replaced only with --force; a FIFO
// or a device is written through, which replaces nothing, unless the
// writer needs a regular file (GWF-SQLite).
func checkOutput(c *cli.Context, path string, needRegular bool) error {
	final, through, err := outfile.Resolve(path)
	if err != nil {
		return usageError{err}
	}
	if through {
		if needRegular {
			return usageErrorf("%s is not a regular file; a GWF-SQLite database must be written to a file", path)
		}
		return nil
	}
	if fi, err := os.Stat(filepath.Dir(final)); err != nil || !fi.IsDir() {
		return usageErrorf("%s: the directory %s does not exist", path, filepath.Dir(final))
	}
	if _, err := os.Stat(final); err == nil && !c.Bool("force") {
		return usageErrorf("%s exists; use --force to replace it", path)
	}
	return nil
}

// checkFigureDir checks a directory of figures: made if missing, refused
// if something else is at the path.
func checkFigureDir(path string) error {
	if fi, err := os.Stat(path); err == nil && !fi.IsDir() {
		return usageErrorf("%s is not a directory; give a directory for the figures", path)
	}
	return nil
}

// writeTrace writes r to path as an output of internal/outfile (see
// gwa.WriteTrace): a failure leaves no half-written file.
func writeTrace(c *cli.Context, r gwa.Reader, path string, f gwa.Format, h *gwa.Header) (int64, error) {
	bar, prog := recordProgress(c, r, "writing "+filepath.Base(path))
	n, err := gwa.WriteTrace(path, f, h, r, prog)
	bar.Done()
	if err != nil {
		return n, traceError(c, err)
	}
	return n, nil
}

func runTraceSelect(c *cli.Context) error {
	if c.NArg() == 0 {
		return usageErrorf("trace select takes one or more trace files and -o OUT (see 'gmark trace select --help')")
	}
	sel, err := parseSelection(c)
	if err != nil {
		return err
	}
	out := c.String("output")
	format, err := checkOutputFile(c, out)
	if err != nil {
		return err
	}
	paths := c.Args().Slice()
	tags := splitList(c.StringSlice("tag"))
	if len(tags) > 0 && len(tags) != len(paths) {
		return usageErrorf("--tag: %d tags for %d traces", len(tags), len(paths))
	}
	if len(tags) == 0 && len(paths) > 1 {
		seen := map[string]bool{}
		for i, p := range paths {
			b := strings.TrimSuffix(filepath.Base(p), ".gz")
			if seen[b] {
				b += "#" + strconv.Itoa(i+1)
			}
			seen[b] = true
			tags = append(tags, b)
		}
	}
	var readers []gwa.Reader
	open := func() (gwa.Reader, error) {
		if len(paths) == 1 {
			r, err := openTrace(c, paths[0])
			if err == nil {
				readers = append(readers, r)
			}
			return r, err
		}
		var ins []gwa.MixInput
		for i, p := range paths {
			r, err := openTrace(c, p)
			if err != nil {
				for _, in := range ins {
					in.Reader.Close()
				}
				return nil, err
			}
			readers = append(readers, r)
			ins = append(ins, gwa.MixInput{Reader: r, Tag: tags[i]})
		}
		return gwa.Mix(ins), nil
	}
	r, area, err := gwa.Select(open, sel)
	if err != nil {
		return traceError(c, err)
	}
	defer r.Close()
	h := *r.Header()
	h.Lines = append(append([]string(nil), h.Lines...), "Note: selected by gmark from "+strings.Join(paths, ", ")+": "+sel.Describe())
	n, err := writeTrace(c, r, out, format, &h)
	if err != nil {
		return err
	}
	for i, rd := range readers[max(0, len(readers)-len(paths)):] {
		reportSkipped(c, paths[i], rd.Stats())
	}
	if !c.Bool("quiet") {
		fmt.Fprintf(c.App.Writer, "selected %d jobs (%s) into %s\n", n, sel.Describe(), out)
		if area != nil {
			fmt.Fprintf(c.App.Writer, "  area: window %d of %d, [%g, %g) s; targets", area.Best.Index+1, len(area.Windows), area.Best.Start, area.Best.End)
			for i, t := range area.Targets {
				fmt.Fprintf(c.App.Writer, " %s=%g (window: %g)", t.Char, area.Resolved[i], area.Values[i])
			}
			fmt.Fprintf(c.App.Writer, "; distance %.4g\n", area.Distance)
		}
	}
	return nil
}

func runTraceConvert(c *cli.Context) error {
	if c.NArg() != 2 {
		return usageErrorf("trace convert takes IN and OUT (see 'gmark trace convert --help')")
	}
	in, out := c.Args().Get(0), c.Args().Get(1)
	format, err := checkOutputFile(c, out)
	if err != nil {
		return err
	}
	r, err := openTrace(c, in)
	if err != nil {
		return err
	}
	defer r.Close()
	n, err := writeTrace(c, r, out, format, r.Header())
	if err != nil {
		return err
	}
	reportSkipped(c, in, r.Stats())
	if !c.Bool("quiet") {
		fmt.Fprintf(c.App.Writer, "converted %d jobs from %s (%s) to %s\n", n, in, r.Header().Format, out)
	}
	return nil
}

func runTraceBoTs(c *cli.Context) error {
	if c.NArg() != 1 {
		return usageErrorf("trace bots takes one trace file")
	}
	var deltas []float64
	for _, d := range splitList(c.StringSlice("delta")) {
		v, err := gwa.ParseDurationSeconds(d)
		if err != nil || v < 0 {
			return usageErrorf("--delta %q must be a duration >= 0", d)
		}
		deltas = append(deltas, v)
	}
	r, err := openTrace(c, c.Args().First())
	if err != nil {
		return err
	}
	defer r.Close()
	list := c.Int("list")
	var listed []gwa.Batch
	res, err := gwa.AnalyzeBoTs(r, deltas, func(b *gwa.Batch) {
		if len(listed) < list {
			listed = append(listed, *b)
		}
	})
	if err != nil {
		return traceError(c, err)
	}
	reportSkipped(c, c.Args().First(), r.Stats())
	w := c.App.Writer
	if c.Bool("json") {
		b, err := json.MarshalIndent(map[string]any{"trace": c.Args().First(), "bots": res}, "", "  ")
		if err != nil {
			return err
		}
		_, err = w.Write(append(b, '\n'))
		return err
	}
	fmt.Fprintf(w, "%s: bags-of-tasks (a user's jobs with submit gaps <= Δ)\n", c.Args().First())
	fmt.Fprintf(w, "  %8s %8s %8s %8s %8s %9s %9s %10s %10s\n", "Δ (s)", "batches", "jobs%", "CPU%", "max", "mean size", "IAT p50", "ART p50", "RTV p50")
	for _, s := range res {
		fmt.Fprintf(w, "  %8g %8d %8s %8s %8d %9.2f %9.4g %10.4g %10.4g\n", s.Delta, s.Batches, percent(s.JobShare, 1), percent(s.CPUShare, 1), s.MaxSize,
			s.Size.Mean, s.InterArrival.Median, s.MeanRunTime.Median, s.RunTimeStd.Median)
	}
	fmt.Fprintf(w, "  size classes (Δ = %gs):", res[0].Delta)
	for i, cl := range gwa.BoTSizeClasses {
		label := fmt.Sprintf("%d-%d", cl.Min, cl.Max)
		if i == len(gwa.BoTSizeClasses)-1 {
			label = fmt.Sprintf(">=%d", cl.Min)
		}
		fmt.Fprintf(w, " %s:%d", label, res[0].SizeClasses[i])
	}
	fmt.Fprintln(w)
	for _, b := range listed {
		fmt.Fprintf(w, "  batch user %s: %d jobs %s..%s, submitted %g..%g s, ends %g s, mean run %.4g s\n", b.User, b.Size, b.FirstJob, b.LastJob, b.Start, b.LastSubmit, b.End, b.MeanRunTime())
	}
	return nil
}

func runTraceRank(c *cli.Context) error {
	if c.NArg() == 0 {
		return usageErrorf("trace rank takes one or more trace files")
	}
	var cats []gwa.Category
	for _, s := range splitList([]string{c.String("categories")}) {
		cat, err := gwa.ParseCategory(s)
		if err != nil {
			return usageError{err}
		}
		cats = append(cats, cat)
	}
	works := c.IntSlice("reported-work")
	if len(works) > 0 && len(works) != c.NArg() {
		return usageErrorf("--reported-work: %d values for %d traces", len(works), c.NArg())
	}
	type ranked struct {
		Trace     string         `json:"trace"`
		Signature gwa.Signature  `json:"signature"`
		Value     float64        `json:"value"`
		Distances map[string]any `json:"distances,omitempty"`
	}
	var out []ranked
	for i, path := range c.Args().Slice() {
		a, err := analyse(c, path)
		if err != nil {
			return err
		}
		sig := a.Ranking
		if len(works) > 0 {
			sig = gwa.Classify(a.Facts(works[i]))
		}
		var unknown []string
		for _, cat := range cats {
			if !sig.Known[cat] {
				unknown = append(unknown, cat.String())
			}
		}
		if len(unknown) > 0 {
			return usageErrorf("%s: the ranking categories %s are unknown for this trace (reported_work needs --reported-work; cores and utilization need a system size, --procs, and jobs that ran); leave them out of --categories",
				path, strings.Join(unknown, ", "))
		}
		v, err := gwa.Distance(cats, sig, gwa.Signature{Known: sig.Known})
		if err != nil {
			return usageErrorf("%s: %v", path, err)
		}
		out = append(out, ranked{Trace: path, Signature: sig, Value: v})
	}
	for i := range out {
		out[i].Distances = map[string]any{}
		for j := range out {
			d, _ := gwa.Distance(cats, out[i].Signature, out[j].Signature)
			out[i].Distances[out[j].Trace] = d
		}
	}
	w := c.App.Writer
	if c.Bool("json") {
		b, err := json.MarshalIndent(out, "", "  ")
		if err != nil {
			return err
		}
		_, err = w.Write(append(b, '\n'))
		return err
	}
	var names []string
	for _, cat := range cats {
		names = append(names, cat.String())
	}
	fmt.Fprintf(w, "categories C = {%s}; value = D(C, trace, all-zero sample)\n", strings.Join(names, ", "))
	for _, r := range out {
		var stars []string
		for _, cat := range cats {
			stars = append(stars, fmt.Sprintf("%s %d", cat, r.Signature.Stars[cat]))
		}
		fmt.Fprintf(w, "  %-30s value %.3f   %s\n", r.Trace, r.Value, strings.Join(stars, ", "))
	}
	if len(out) > 1 {
		fmt.Fprintf(w, "distances D(C, row, column):\n")
		for _, r := range out {
			fmt.Fprintf(w, "  %-30s", r.Trace)
			for _, o := range out {
				fmt.Fprintf(w, " %6.3f", r.Distances[o.Trace])
			}
			fmt.Fprintln(w)
		}
	}
	return nil
}
