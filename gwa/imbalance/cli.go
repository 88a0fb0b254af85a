package imbalance

import (
	"encoding/json"
	"errors"
	"path/filepath"
	"strings"

	"github.com/gmark/gmark/gwa"
	"github.com/urfave/cli/v2"
)

// exitUsage is gmark's exit status for bad input.
const exitUsage = 2

// Command is 'gmark trace imbalance' (docs/trace.md): input are the trace
// commands' input flags, parse reads them from a command's context into an
// input, and open opens a trace with it (the trace commands' own reading
// of those flags and their errors). Bad input — flags, a trace that is not
// one, a malformed line under --strict — exits with 2.
func Command[In any](input []cli.Flag, parse func(*cli.Context) (In, error), open func(In, string) (gwa.Reader, error)) *cli.Command {
	f := &flags{}
	return &cli.Command{
		Name:      "imbalance",
		Usage:     "the load imbalance between sites, partitions or traces: overall, by the day, and by the hour (the DMM thesis, Sec. 8.2.2)",
		ArgsUsage: "TRACE...",
		Description: "A job of n processors counts n arrivals (--jobs: one). Overall imbalance: the ratio of the largest to the\n" +
			"smallest cumulative arrivals per processor at the end (and at each day's end, in the JSON); temporary\n" +
			"imbalance: the largest ratio of two groups' arrivals within an hour of the clock, over the hours in\n" +
			"which both had some. Sizes: --sizes NAME=PROCESSORS, else the peak of processors a group's jobs had in use.",
		Flags: append(append([]cli.Flag(nil), input...),
			&cli.StringFlag{Name: "by", Value: BySite, Destination: &f.opts.By, Usage: "what a group is: site, partition, or trace (each file)"},
			&cli.StringSliceFlag{Name: "sizes", Destination: &f.sizes, Usage: "NAME=PROCESSORS of a group (repeatable, or comma-separated)"},
			&cli.BoolFlag{Name: "jobs", Destination: &f.opts.NoSplit, Usage: "count jobs, not processors"},
			&cli.BoolFlag{Name: "json", Destination: &f.json, Usage: "print the analysis as JSON, with the series by day and by hour"}),
		Action: func(c *cli.Context) error {
			in, err := parse(c)
			if err != nil {
				return err
			}
			return f.action(c, func(path string) (gwa.Reader, error) { return open(in, path) })
		},
	}
}

// flags are the values of the command's own flags, bound to them.
type flags struct {
	opts  Options // but Sizes
	sizes cli.StringSlice
	json  bool
}

func (f *flags) action(c *cli.Context, open func(string) (gwa.Reader, error)) error {
	sizes, err := ParseSizes(f.sizes.Value())
	if err == nil && c.NArg() == 0 {
		err = errors.New("trace imbalance takes one or more trace files")
	}
	opts := f.opts
	opts.Sizes = sizes
	if err == nil {
		_, err = New(opts, 0)
	}
	if err != nil {
		return cli.Exit(err.Error(), exitUsage)
	}
	var traces []Trace
	for _, path := range c.Args().Slice() {
		r, err := open(path)
		if err != nil {
			return err
		}
		defer r.Close()
		traces = append(traces, Trace{Name: strings.TrimSuffix(filepath.Base(path), ".gz"), Reader: r})
	}
	res, _, err := Analyze(traces, opts)
	var pe *gwa.ParseError
	switch {
	case errors.As(err, &pe):
		return cli.Exit(err.Error(), exitUsage)
	case err != nil:
		return err
	}
	for _, tr := range traces {
		gwa.WriteSkipped(c.App.ErrWriter, tr.Name, tr.Reader.Stats())
	}
	if f.json {
		return json.NewEncoder(c.App.Writer).Encode(res)
	}
	WriteText(c.App.Writer, res)
	return nil
}
