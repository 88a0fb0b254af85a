package main

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/gmark/gmark/generator"
	"github.com/gmark/gmark/gwa"
	"github.com/gmark/gmark/internal/version"
	"github.com/gmark/gmark/printers"
	"github.com/gmark/gmark/wdl"
	"github.com/gmark/gmark/workload"
	"github.com/urfave/cli/v2"
)

func init() {
	commands = append(commands, &cli.Command{
		Name:      "generate",
		Usage:     "generate a workload from a workload description (WDL)",
		ArgsUsage: "SPEC.wdl",
		Description: "Reads a GrenchMark text workload description and writes the workload directory:\n" +
			"DIR/workload.jsonl (one job per line, in submit order), DIR/manifest.json (provenance),\n" +
			"and on request job description files (--jdf) and traces (--format).\n" +
			"The same spec and seed always give byte-identical output. The WDL is described in docs/wdl.md.\n\n" +
			"Exit status: 0 on success, 2 when the spec is invalid (nothing is written), 1 on other errors.",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "output", Aliases: []string{"o"}, Usage: "workload directory to write (default: the spec's name without extension)"},
			&cli.Uint64Flag{Name: "seed", Value: 1, Usage: "random seed; recorded in the manifest"},
			&cli.StringSliceFlag{Name: "jdf", Usage: "also print job description files in these formats (comma-separated): " + strings.Join(printers.Names(), ", ")},
			&cli.BoolFlag{Name: "single-file", Usage: "with --jdf, write one stream per format (jdf/FORMAT.EXT) instead of one file per job"},
			&cli.StringSliceFlag{Name: "format", Usage: "also write the workload as a trace: gwf, swf"},
			&cli.BoolFlag{Name: "validate", Usage: "only check the spec; write nothing"},
			&cli.BoolFlag{Name: "force", Aliases: []string{"f"}, Usage: "replace the output directory if it exists"},
			&cli.StringFlag{Name: "executable", Value: "gmark", Usage: "program the job description files run (it is given 'app NAME …')"},
			&cli.StringFlag{Name: "workdir", Value: ".", Usage: "working directory written into the job description files"},
			&cli.IntFlag{Name: "retries", Usage: "RETRY count per node in DAGMan files"},
			&cli.BoolFlag{Name: "quiet", Aliases: []string{"q"}, Usage: "print no progress bar and no summary"},
		},
		Action: runGenerate,
	})
}

// generateOptions are the parsed flags of `gmark generate`.
type generateOptions struct {
	spec       string
	out        string
	seed       uint64
	jdf        []string
	singleFile bool
	traces     []string
	force      bool
	quiet      bool
	printCfg   printers.Config
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

func runGenerate(c *cli.Context) error {
	if c.NArg() != 1 {
		return usageErrorf("generate takes one WDL file (see 'gmark generate --help')")
	}
	o := generateOptions{
		spec:       c.Args().First(),
		out:        c.String("output"),
		seed:       c.Uint64("seed"),
		jdf:        splitList(c.StringSlice("jdf")),
		singleFile: c.Bool("single-file"),
		traces:     splitList(c.StringSlice("format")),
		force:      c.Bool("force"),
		quiet:      c.Bool("quiet"),
		printCfg:   printers.Config{Executable: c.String("executable"), WorkDir: c.String("workdir"), Retries: c.Int("retries")},
	}
	for _, f := range o.jdf {
		if _, err := printers.Lookup(f); err != nil {
			return usageError{err}
		}
	}
	for _, f := range o.traces {
		if f != "gwf" && f != "swf" {
			return usageErrorf("unknown trace format %q (gwf or swf)", f)
		}
	}
	if o.singleFile && len(o.jdf) == 0 {
		return usageErrorf("--single-file needs --jdf FORMAT")
	}
	if c.Int("retries") < 0 {
		return usageErrorf("--retries must be >= 0")
	}

	spec, err := wdl.ParseFile(o.spec)
	if err != nil {
		return usageError{err}
	}
	gen, err := generator.New(spec, o.seed)
	if err != nil {
		return usageError{err}
	}
	for _, w := range gen.Warnings {
		fmt.Fprintln(c.App.ErrWriter, "warning:", w)
	}
	planned := 0
	for _, u := range spec.Units {
		if !u.Workload {
			planned += u.NTimes
		}
	}
	if c.Bool("validate") {
		fmt.Fprintf(c.App.Writer, "%s: valid (%s layout, %d units, %d jobs from job units)\n", o.spec, spec.Version, len(spec.Units), planned)
		return nil
	}
	if o.out == "" {
		o.out = strings.TrimSuffix(filepath.Base(o.spec), filepath.Ext(o.spec))
	}
	// Before generating: the output must be a directory gmark may write.
	out, err := workload.ResolveOutputDir(o.out)
	if err == nil {
		err = workload.CheckOutput(out, o.force)
	}
	if err != nil {
		return usageError{err}
	}
	start := time.Now()
	sum, err := writeWorkload(spec, gen, o, planned)
	if err != nil {
		return specError(err)
	}
	if !o.quiet {
		printSummary(c.App.Writer, spec, sum, o, time.Since(start))
	}
	return nil
}

// specError makes an error of the spec that only generation finds (a draw
// out of range, arrivals past the limit: a *wdl.Error at the unit's line) a
// usage error, exit 2, like those found before generating.
func specError(err error) error {
	var we *wdl.Error
	if errors.As(err, &we) {
		return usageError{err}
	}
	return err
}

// writeWorkload generates into a staging directory beside the output and
// renames it into place at the end (workload.Stage), so a failed or
// interrupted run leaves no half-written workload behind, and the next run
// removes what a killed one left.
func writeWorkload(spec *wdl.Spec, gen *generator.Generator, o generateOptions, planned int) (*generator.Summary, error) {
	out, err := workload.ResolveOutputDir(o.out)
	if err != nil {
		return nil, usageError{err}
	}
	st, err := workload.Stage(out)
	if err != nil {
		return nil, err
	}
	defer st.Abort() // nothing to do after Commit
	sum, err := writeStaged(st.Dir, spec, gen, o, planned)
	if err != nil {
		return nil, err
	}
	if err := st.Commit(o.force); errors.Is(err, workload.ErrOutputExists) || errors.Is(err, workload.ErrNotWorkload) {
		return nil, usageError{err}
	} else if err != nil {
		return nil, err
	}
	return sum, nil
}

// writeStaged writes the workload's files into the directory tmp.
func writeStaged(tmp string, spec *wdl.Spec, gen *generator.Generator, o generateOptions, planned int) (*generator.Summary, error) {
	jobsFile, err := os.Create(filepath.Join(tmp, workload.JobsFile))
	if err != nil {
		return nil, err
	}
	defer jobsFile.Close()
	jw := workload.NewWriter(jobsFile)
	var sink *printers.Sink
	if len(o.jdf) > 0 {
		if sink, err = printers.NewSink(tmp, o.jdf, o.singleFile, o.printCfg); err != nil {
			return nil, err
		}
	}
	tw, err := newTraceWriters(tmp, o.traces, o.spec, o.seed)
	if err != nil {
		return nil, err
	}
	bar := newProgress(int64(planned), "generating", "jobs", o.quiet || planned < 200000)
	sum, err := gen.Generate(func(j *workload.Job) error {
		if err := jw.Write(j); err != nil {
			return err
		}
		if sink != nil {
			if err := sink.Write(j); err != nil {
				return err
			}
		}
		if err := tw.write(j); err != nil {
			return unitTraceError(spec, j, err)
		}
		bar.Add(1)
		return nil
	})
	bar.Done()
	if err != nil {
		return nil, err
	}
	if err := jw.Flush(); err != nil {
		return nil, err
	}
	if err := jobsFile.Close(); err != nil {
		return nil, err
	}
	if sink != nil {
		if err := sink.Close(); err != nil {
			return nil, err
		}
	}
	if err := tw.close(); err != nil {
		return nil, err
	}
	m, err := manifest(spec, o, sum)
	if err != nil {
		return nil, err
	}
	d := jw.Digest()
	m.JobsFile = &d
	if d.Jobs != m.Jobs {
		return nil, fmt.Errorf("internal error: wrote %d job lines for %d jobs", d.Jobs, m.Jobs)
	}
	mf, err := os.Create(filepath.Join(tmp, workload.ManifestFile))
	if err != nil {
		return nil, err
	}
	if err := workload.WriteManifest(mf, m); err != nil {
		mf.Close()
		return nil, err
	}
	if err := mf.Close(); err != nil {
		return nil, err
	}
	return sum, nil
}

func fileDigest(path string) (workload.FileDigest, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return workload.FileDigest{}, err
	}
	s := sha256.Sum256(b)
	return workload.FileDigest{Path: path, SHA256: hex.EncodeToString(s[:])}, nil
}

func manifest(spec *wdl.Spec, o generateOptions, sum *generator.Summary) (*workload.Manifest, error) {
	d, err := fileDigest(o.spec)
	if err != nil {
		return nil, err
	}
	m := &workload.Manifest{
		GmarkVersion: version.String(),
		Spec:         d,
		Seed:         o.seed,
		Jobs:         sum.Jobs,
		Tasks:        sum.Tasks,
		Processors:   int(sum.Processors),
		FirstSubmit:  workload.Seconds(sum.First),
		LastSubmit:   workload.Seconds(sum.Last),
		JDF:          o.jdf,
		SingleFile:   o.singleFile,
		Traces:       o.traces,
	}
	for _, inc := range spec.Includes {
		d, err := fileDigest(inc)
		if err != nil {
			return nil, err
		}
		m.Includes = append(m.Includes, d)
	}
	for i, u := range spec.Units {
		m.Units = append(m.Units, workload.UnitInfo{ID: u.ID, Type: u.FullType(), Line: u.Pos.Line, Jobs: sum.PerUnit[i]})
	}
	return m, nil
}

// traceWriters write the workload as GWF and/or SWF traces.
type traceWriters struct {
	files []*os.File
	gwf   *gwa.GWFWriter
	swf   *gwa.SWFWriter
}

func newTraceWriters(dir string, formats []string, spec string, seed uint64) (*traceWriters, error) {
	t := &traceWriters{}
	note := fmt.Sprintf("Generated by gmark %s from %s with seed %d; not yet run: wait, allocation and status are -1", version.String(), filepath.Base(spec), seed)
	for _, f := range formats {
		file, err := os.Create(filepath.Join(dir, "workload."+f))
		if err != nil {
			return nil, err
		}
		t.files = append(t.files, file)
		if f == "gwf" {
			t.gwf, _ = gwa.NewGWFWriter(file, note)
		} else {
			t.swf, _ = gwa.NewSWFWriter(file, "Note: "+note)
		}
	}
	return t, nil
}

func (t *traceWriters) write(j *workload.Job) error {
	if t.gwf == nil && t.swf == nil {
		return nil
	}
	for _, r := range gwa.JobRecords(j) {
		if t.gwf != nil {
			if err := t.gwf.Write(&r); err != nil {
				return err
			}
		}
		if t.swf != nil {
			if err := t.swf.Write(&r); err != nil {
				return err
			}
		}
	}
	return nil
}

// unitTraceError places a job the trace formats cannot hold (a submit offset
// beyond what GWF and SWF can tell from an absolute time) at the line of
// the unit that made it: an error of the spec for this output, exit 2.
func unitTraceError(spec *wdl.Spec, j *workload.Job, err error) error {
	if !errors.Is(err, gwa.ErrOutOfRange) {
		return err
	}
	for _, u := range spec.Units {
		if u.ID == j.Unit {
			return wdl.Errorf(u.Pos, "cannot be written as a trace (--format): %v", err)
		}
	}
	return err
}

func (t *traceWriters) close() error {
	if t.gwf != nil {
		if err := t.gwf.Flush(); err != nil {
			return err
		}
	}
	if t.swf != nil {
		if err := t.swf.Flush(); err != nil {
			return err
		}
	}
	for _, f := range t.files {
		if err := f.Close(); err != nil {
			return err
		}
	}
	return nil
}

func printSummary(w io.Writer, spec *wdl.Spec, sum *generator.Summary, o generateOptions, took time.Duration) {
	rate := float64(sum.Jobs) / took.Seconds()
	fmt.Fprintf(w, "generated %d jobs", sum.Jobs)
	if sum.Tasks > 0 {
		fmt.Fprintf(w, " (%d composite tasks)", sum.Tasks)
	}
	fmt.Fprintf(w, " from %d units in %s (%.0f jobs/s), seed %d\n", len(spec.Units), took.Round(time.Millisecond), rate, o.seed)
	if sum.Jobs == 0 {
		fmt.Fprintf(w, "  output:      %s\n", o.out)
		return
	}
	fmt.Fprintf(w, "  processors:  %d in all, %.2f per job\n", sum.Processors, float64(sum.Processors)/float64(sum.Jobs))
	fmt.Fprintf(w, "  submissions: from %s to %s (span %s)\n", sum.First, sum.Last, sum.Span())
	if sum.Span() > 0 {
		fmt.Fprintf(w, "  arrivals:    %.2f jobs/h on average\n", float64(sum.Jobs-1)/sum.Span().Hours())
	}
	fmt.Fprintf(w, "  output:      %s/%s", o.out, workload.JobsFile)
	if len(o.jdf) > 0 {
		fmt.Fprintf(w, ", %s/%s/{%s}", o.out, workload.JDFDir, strings.Join(o.jdf, ","))
	}
	for _, t := range o.traces {
		fmt.Fprintf(w, ", %s/workload.%s", o.out, t)
	}
	fmt.Fprintln(w)
}
