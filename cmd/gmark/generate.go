package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/gmark/gmark/examples"
	"github.com/gmark/gmark/generator"
	"github.com/gmark/gmark/gwa"
	"github.com/gmark/gmark/internal/names"
	"github.com/gmark/gmark/internal/progress"
	"github.com/gmark/gmark/printers"
	"github.com/gmark/gmark/wdl"
	"github.com/gmark/gmark/workload"
	"github.com/urfave/cli/v2"
)

func init() { makers = append(makers, generateCommand) }

func generateCommand() *cli.Command {
	o := &generateOptions{}
	return &cli.Command{
		Name:      "generate",
		Usage:     "generate a workload from a workload description (WDL)",
		ArgsUsage: "SPEC.wdl",
		Description: "Reads a GrenchMark text workload description and writes the workload directory:\n" +
			"DIR/workload.jsonl (one job per line, in submit order), DIR/manifest.json (provenance),\n" +
			"and on request job description files (--jdf) and traces (--format).\n" +
			"The same spec and seed always give byte-identical output. The WDL is described in docs/wdl.md.\n\n" +
			"Exit status: 0 on success, 2 when the spec is invalid (nothing is written), 1 on other errors.",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "output", Aliases: []string{"o"}, DefaultText: "the spec's name without extension", Destination: &o.dir.Out, Usage: "workload directory to write"},
			&cli.Uint64Flag{Name: "seed", Value: 1, Destination: &o.dir.Seed, Usage: "random seed; recorded in the manifest"},
			&cli.StringSliceFlag{Name: "jdf", Destination: &o.jdf, Usage: "also print job description files in these formats (comma-separated): " + strings.Join(printers.Names(), ", ")},
			&cli.BoolFlag{Name: "single-file", Destination: &o.dir.SingleFile, Usage: "with --jdf, write one stream per format (jdf/FORMAT.EXT) instead of one file per job"},
			&cli.StringSliceFlag{Name: "format", Destination: &o.traces, Usage: "also write the workload as a trace: gwf, swf, wf (GWF's workflow variant, workload.wf.gwf: composite jobs keep their dependencies), wfformat (workflows/: each composite job a WfCommons instance)"},
			&cli.BoolFlag{Name: "validate", Destination: &o.validate, Usage: "only check the spec; write nothing"},
			&cli.BoolFlag{Name: "force", Aliases: []string{"f"}, Destination: &o.dir.Replace, Usage: "replace the output directory if it exists"},
			&cli.StringFlag{Name: "executable", Value: "gmark", Destination: &o.dir.Print.Executable, Usage: "program the job description files run (it is given 'app NAME …')"},
			&cli.StringFlag{Name: "workdir", Value: ".", Destination: &o.dir.Print.WorkDir, Usage: "working directory written into the job description files"},
			&cli.IntFlag{Name: "retries", Destination: &o.dir.Print.Retries, Usage: "RETRY count per node in DAGMan files"},
			&cli.BoolFlag{Name: "quiet", Aliases: []string{"q"}, Destination: &o.quiet, Usage: "print no progress bar and no summary"},
		},
		Action: o.run,
	}
}

// generateOptions are the flags of `gmark generate`, bound to its fields
// (--jdf and --format: to jdf and traces, parsed into dir).
type generateOptions struct {
	spec            string
	validate, quiet bool
	dir             generator.DirOptions
	jdf, traces     cli.StringSlice
}

func splitList(values []string) []string {
	var out []string
	for _, v := range values {
		for _, s := range strings.Split(v, ",") {
			if s = strings.TrimSpace(s); s != "" {
				out = append(out, s)
			}
		}
	}
	return out
}

// parse checks the flags of `gmark generate`; every error is a usage error.
func (f *generateOptions) parse(c *cli.Context) (generateOptions, error) {
	if c.NArg() != 1 {
		return generateOptions{}, usageErrorf("generate takes one WDL file (see 'gmark generate --help')")
	}
	o := *f
	o.spec, o.dir.SpecPath = c.Args().First(), c.Args().First()
	o.dir.JDF, o.dir.Traces = splitList(f.jdf.Value()), splitList(f.traces.Value())
	for _, f := range o.dir.JDF {
		if _, err := printers.Lookup(f); err != nil {
			return o, usageError{err}
		}
	}
	for _, f := range o.dir.Traces {
		if !slices.Contains(gwa.TraceFormats, f) {
			return o, usageErrorf("unknown trace format %q (gwf, swf, wf or wfformat)", f)
		}
	}
	if o.dir.SingleFile && len(o.dir.JDF) == 0 {
		return o, usageErrorf("--single-file needs --jdf FORMAT")
	}
	if o.dir.Print.Retries < 0 {
		return o, usageErrorf("--retries must be >= 0")
	}
	if o.dir.Out == "" {
		o.dir.Out = strings.TrimSuffix(filepath.Base(o.spec), filepath.Ext(o.spec))
	}
	return o, nil
}

func (f *generateOptions) run(c *cli.Context) error {
	o, err := f.parse(c)
	if err != nil {
		return err
	}
	return generate(c.App.Writer, c.App.ErrWriter, o)
}

// generate parses the spec, checks the output and writes the workload.
// Errors of the spec, including those only generation finds (a draw out of
// range: a *wdl.Error at the unit's line), and an output in the way are
// usage errors, exit 2.
func generate(stdout, stderr io.Writer, o generateOptions) error {
	// Outside the repository, a shipped example named as the repository
	// does is read from the built-in copy (in the user's cache, with the
	// files it reads beside it), as gmark run reads it.
	var err error
	if o.spec, _, err = examples.Cached(o.spec); err != nil {
		return err
	}
	o.dir.SpecPath = o.spec
	spec, gen, planned, err := prepareGeneration(o.spec, o.dir.Seed, stderr)
	if err != nil {
		return err
	}
	if o.validate {
		fmt.Fprintf(stdout, "%s: valid (%s layout, %s, %s from job units)\n", o.spec, spec.Version, names.Count(len(spec.Units), "unit"), names.Count(planned, "job"))
		return nil
	}
	// Before generating: the output must be a directory gmark may write.
	out, err := workload.ResolveOutputDir(o.dir.Out)
	if err == nil {
		err = workload.CheckOutput(out, o.dir.Replace)
	}
	if err != nil {
		return usageError{err}
	}
	start := time.Now()
	sum, err := writeWorkload(spec, gen, o.dir, planned, o.quiet)
	if err == nil && !o.quiet {
		printSummary(stdout, spec, sum, o.dir, time.Since(start))
	}
	return err
}

// prepareGeneration parses a spec and makes its generator, printing its
// warnings, with the jobs its job units will give; errors are the spec's,
// usage errors.
func prepareGeneration(path string, seed uint64, stderr io.Writer) (*wdl.Spec, *generator.Generator, int, error) {
	spec, err := wdl.ParseFile(path)
	if err != nil {
		return nil, nil, 0, usageError{err}
	}
	gen, err := generator.New(spec, seed)
	if err != nil {
		return nil, nil, 0, usageError{err}
	}
	for _, w := range gen.Warnings {
		fmt.Fprintln(stderr, "warning:", w)
	}
	planned := 0
	for _, u := range spec.Units {
		if !u.Workload {
			planned += u.NTimes
		}
	}
	return spec, gen, planned, nil
}

// writeWorkload writes the workload directory, with a progress bar for a
// large one. Errors only generation finds (a draw out of range: a
// *wdl.Error at the unit's line) and an output in the way are usage errors.
func writeWorkload(spec *wdl.Spec, gen *generator.Generator, o generator.DirOptions, planned int, quiet bool) (*generator.Summary, error) {
	bar := progress.New(os.Stderr, progress.Options{Total: int64(planned), Desc: "generating", Unit: "jobs", Quiet: quiet || planned < 200000})
	o.Progress = func() { bar.Add(1) }
	sum, err := generator.WriteDir(spec, gen, o)
	bar.Done()
	var we *wdl.Error
	if errors.As(err, &we) || workload.IsOutputConflict(err) {
		return nil, usageError{err}
	}
	return sum, err
}

func printSummary(w io.Writer, spec *wdl.Spec, sum *generator.Summary, o generator.DirOptions, took time.Duration) {
	rate := float64(sum.Jobs) / took.Seconds()
	fmt.Fprintf(w, "generated %s", names.Count(sum.Jobs, "job"))
	if sum.Tasks > 0 {
		fmt.Fprintf(w, " (%s)", names.Count(sum.Tasks, "composite task"))
	}
	fmt.Fprintf(w, " from %s in %s (%.0f jobs/s), seed %d\n", names.Count(len(spec.Units), "unit"), took.Round(time.Millisecond), rate, o.Seed)
	if sum.Jobs == 0 {
		fmt.Fprintf(w, "  output:      %s\n", o.Out)
		return
	}
	fmt.Fprintf(w, "  processors:  %d in all, %.2f per job\n", sum.Processors, float64(sum.Processors)/float64(sum.Jobs))
	fmt.Fprintf(w, "  submissions: from %s to %s (span %s)\n", sum.First, sum.Last, sum.Span())
	if sum.Span() > 0 {
		fmt.Fprintf(w, "  arrivals:    %.2f jobs/h on average\n", float64(sum.Jobs-1)/sum.Span().Hours())
	}
	fmt.Fprintf(w, "  output:      %s/%s", o.Out, workload.JobsFile)
	if len(o.JDF) > 0 {
		fmt.Fprintf(w, ", %s/%s/{%s}", o.Out, workload.JDFDir, strings.Join(o.JDF, ","))
	}
	for _, t := range o.Traces {
		fmt.Fprintf(w, ", %s/workload.%s", o.Out, t)
	}
	fmt.Fprintln(w)
}
