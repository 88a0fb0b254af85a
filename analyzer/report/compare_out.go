package report

import (
	"bytes"
	"context"
	"encoding/csv"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/gmark/gmark/analyzer/metrics"
	"github.com/gmark/gmark/internal/outfile"
	"github.com/gmark/gmark/plots"
)

// WriteComparison compares the runs of o.DBs grouped by o.By, in o.Format:
// an HTML page into o.Dir (and a line saying where on w), or text, JSON or
// CSV on w. Bad usage found before the work (a format, a directory, a
// store, a run or a field the runs do not have) is a *StoreError.
func WriteComparison(ctx context.Context, w io.Writer, o CompareOptions) error {
	if !slices.Contains(CompareFormats, o.Format) {
		return &StoreError{fmt.Sprintf("--format %q: with --compare, want %s", o.Format, strings.Join(CompareFormats, ", "))}
	}
	if o.Format == "html" {
		if err := CheckDir(o.Dir); err != nil {
			return &StoreError{"-o: " + err.Error()}
		}
	} else {
		o.Log = nil
	}
	start := time.Now()
	c, err := BuildComparison(ctx, o)
	if err != nil {
		return err
	}
	switch o.Format {
	case "text":
		return c.WriteText(w)
	case "json":
		return c.WriteJSON(w)
	case "csv":
		return c.WriteCSV(w)
	}
	index, err := c.WriteHTML(ctx, o.Dir, o.Options)
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(w, "comparison written to %s (%s)\n", index, time.Since(start).Round(time.Millisecond))
	return err
}

// value formats a group's value with its interval.
func (c *Comparison) value(m CompareMetric, v GroupValue) string {
	if ci := c.interval(m, v); ci != "" {
		return c.number(m, v) + " " + ci
	}
	return c.number(m, v)
}

// number formats a group's value.
func (c *Comparison) number(m CompareMetric, v GroupValue) string {
	if m.Percent {
		return pct(v.Value)
	}
	return num(v.Value)
}

// interval formats a group's interval, "[lo, hi]", or "" for none or one
// of no width (the value is the same in every run).
func (c *Comparison) interval(m CompareMetric, v GroupValue) string {
	if v.CIMethod == "" || math.IsNaN(v.CI[0]) || v.CI[1]-v.CI[0] <= 1e-9*math.Abs(v.Value) {
		return ""
	}
	f := num
	if m.Percent {
		f = pct
	}
	return "[" + f(v.CI[0]) + ", " + f(v.CI[1]) + "]"
}

// header is a metric's column heading, with its unit.
func (c *Comparison) header(m CompareMetric) string {
	switch m.Unit {
	case "":
		return m.Title
	case "s":
		return m.Title + " (" + c.Unit + ")"
	}
	return m.Title + " (" + m.Unit + ")"
}

// runValue is a run's value of the i-th metric, as its report shows it.
func (c *Comparison) runValue(r *CompareRun, i int) GroupValue {
	m := compareMetrics()[i]
	return groupValue(m, oneRun(r))
}

// oneRun is r's metrics, as the runs of a group of one.
func oneRun(r *CompareRun) []*metrics.RunMetrics { return []*metrics.RunMetrics{r.Run.Metrics} }

// WriteText writes the comparison as text: the groups (one row each, a
// mean over several runs with its 95% interval in brackets) and the runs.
func (c *Comparison) WriteText(w io.Writer) error {
	ew := &errWriter{w: w}
	ew.printf("comparison by %s of %d runs in %d groups (%s)\n", c.By, len(c.Runs), len(c.Groups), strings.Join(c.DBs, ", "))
	for _, n := range c.Notes {
		ew.printf("note: %s\n", n)
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	head := []string{c.By, "runs"}
	for _, m := range c.Metrics {
		head = append(head, c.header(m))
	}
	fmt.Fprintln(tw, strings.Join(head, "\t"))
	for _, g := range c.Groups {
		row := []string{g.Key, fmt.Sprint(len(g.Runs))}
		for i, m := range c.Metrics {
			row = append(row, c.value(m, g.Values[i]))
		}
		fmt.Fprintln(tw, strings.Join(row, "\t"))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	ew.printf("\nruns\n")
	tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "run\tstore\t"+c.By+"\tseed\t"+strings.Join(head[2:], "\t"))
	for _, r := range c.Runs {
		row := []string{r.Name, r.DB, r.Group, or(r.Seed, "–")}
		for i := range c.Metrics {
			row = append(row, c.value(c.Metrics[i], c.runValue(r, i)))
		}
		fmt.Fprintln(tw, strings.Join(row, "\t"))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	ew.printf("\nWith several runs, a group's value is the mean of its runs' values, with the 95%% Student t interval over\n" +
		"the runs in brackets; with one run, the run's value, with the 95%% interval over its jobs for a mean or a median.\n" +
		"No brackets: the value is the same in every run, or there is no interval.\n")
	return ew.err
}

func or(s, alt string) string {
	if s == "" {
		return alt
	}
	return s
}

// WriteJSON writes the comparison as JSON (unknown values as null).
func (c *Comparison) WriteJSON(w io.Writer) error {
	b, err := MarshalJSON(c)
	if err != nil {
		return err
	}
	_, err = w.Write(append(b, '\n'))
	return err
}

// WriteCSV writes the groups' and the runs' values in long form:
// kind,name,group,metric,value,ci_low,ci_high,ci_method,runs.
func (c *Comparison) WriteCSV(w io.Writer) error {
	cw := csv.NewWriter(w)
	_ = cw.Write([]string{"kind", "name", "group", "metric", "value", "ci_low", "ci_high", "ci_method", "runs"})
	f := func(v float64) string { return plots.Num(v, 10) }
	row := func(kind, name, group string, v GroupValue) {
		_ = cw.Write([]string{kind, name, group, v.Metric, f(v.Value), f(v.CI[0]), f(v.CI[1]), v.CIMethod, fmt.Sprint(v.Runs)})
	}
	for _, g := range c.Groups {
		for _, v := range g.Values {
			row("group", g.Key, g.Key, v)
		}
	}
	for _, r := range c.Runs {
		for _, m := range compareMetrics() {
			row("run", r.Name, r.Group, groupValue(m, oneRun(r)))
		}
	}
	cw.Flush()
	return cw.Error()
}

// WriteHTML writes the comparison's page (index.html) and figures into
// dir, as Report.WriteHTML does a report's.
func (c *Comparison) WriteHTML(ctx context.Context, dir string, opts Options) (string, error) {
	figDir := filepath.Join(dir, FiguresDir)
	for _, d := range []string{dir, figDir} {
		if err := CheckDir(d); err != nil {
			return "", err
		}
	}
	if err := os.MkdirAll(figDir, 0o755); err != nil {
		return "", err
	}
	opts.logf("drawing the figures")
	figs, err := CompareFigures(ctx, c, figDir, opts.PDF)
	if err != nil {
		return "", err
	}
	var page bytes.Buffer
	if err := c.html(&page, figs); err != nil {
		return "", err
	}
	index := filepath.Join(dir, "index.html")
	return index, outfile.WriteFile(index, page.Bytes())
}

// Header is a metric's column heading (for the page).
func (c *Comparison) Header(m CompareMetric) string { return c.header(m) }

// Number formats a value (for the page).
func (c *Comparison) Number(m CompareMetric, v GroupValue) string { return c.number(m, v) }

// Interval formats a value's interval, or "" (for the page).
func (c *Comparison) Interval(m CompareMetric, v GroupValue) string { return c.interval(m, v) }

// RunValue is a run's value of the i-th metric (for the page).
func (c *Comparison) RunValue(r *CompareRun, i int) GroupValue { return c.runValue(r, i) }
