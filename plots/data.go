package plots

import (
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"

	"github.com/gmark/gmark/internal/outfile"
	"gonum.org/v1/plot"
)

// The data a figure draws, as CSV, so that a reader can redraw or check it
// without the store: one row per drawn point, bar or box statistic, in
// the columns
//
//	series, <x axis label>, <y axis label>, stat
//
// series is the legend's name of the curve (the y axis label, numbered
// when there are several, for a curve with no legend entry); x is the
// category's name on an axis of categories (runs, sites, job types: bars,
// boxes, the X-bar chart's points); stat names a box's statistic (min,
// whisker_low, q1, median, q3, whisker_high, max) or an error bar's ends
// (bar_low, bar_high: rows of the series the bars belong to, the one drawn
// just before them, when they have no legend entry of their own; the
// figure's note says what the bars are) and is empty otherwise.
// Numbers are written in full ('g', shortest exact form): this is data,
// not a page. The values are those drawn: a reduced sample (a CDF's
// quantiles, a binned scatter's bubble centres, without their counts) as
// reduced, with the figure's note saying how; an error bar cut at its
// metric's bounds as cut (ErrorLines). A line drawn with its points
// (plotter.NewLinePoints) is listed once.
//
// gonum/plot keeps a plot's plotters and legend entries private, so they
// are read by reflection, values only (nothing is called or changed).
// That reads any gonum figure the same way — the report's and the trace
// toolbox's now — with no change to how each is drawn. A gonum version
// that renames those fields makes PlotData return an error (the
// plotters) or lose the legend's names or a plotter's rows (the rest);
// TestPlotData fails in each case.

// ErrNoDataView is returned when gonum's plot no longer has the fields
// read: the figure is still drawn, without its CSV.
var ErrNoDataView = errors.New("cannot read the figure's data (gonum/plot's Plot changed)")

// PlotData is the data p draws, as CSV records with a header row.
func PlotData(p *plot.Plot) ([][]string, error) {
	pv := reflect.ValueOf(p).Elem()
	items := pv.FieldByName("plotters")
	if !items.IsValid() || items.Kind() != reflect.Slice {
		return nil, ErrNoDataView
	}
	names := legendNames(pv)
	cats := categories(p)
	rows := [][]string{{"series", axisName(p.X.Label.Text, "x"), axisName(p.Y.Label.Text, "y"), "stat"}}
	unnamed := 0
	prev := "" // the name of the last series that is not error bars
	var last [][]string
	for i := range items.Len() {
		it := items.Index(i)
		if it.Kind() == reflect.Interface {
			it = it.Elem()
		}
		if !it.IsValid() || it.Kind() != reflect.Pointer || it.IsNil() {
			continue
		}
		name, ok := names[it.Pointer()]
		r := plotterRows(it.Elem(), "", cats)
		if len(r) == 0 { // a grid, labels: no data
			continue
		}
		if !ok && isErrorBars(r) && prev != "" { // a series' bars, added after it with no legend entry of their own
			name, ok = prev, true
		}
		if !ok {
			unnamed++
			name = axisName(p.Y.Label.Text, "y")
			if unnamed > 1 {
				name += " " + strconv.Itoa(unnamed)
			}
		}
		for _, row := range r {
			row[0] = name
		}
		if !isErrorBars(r) {
			prev = name
		}
		if !slices.EqualFunc(r, last, slices.Equal) { // a line and its points (plotter.NewLinePoints) once
			rows = append(rows, r...)
		}
		last = r
	}
	return rows, nil
}

// WriteCSV writes the drawing's data (PlotData) to w.
func (d *Drawing) WriteCSV(w io.Writer) error {
	rows, err := PlotData(d.plot.Plot)
	if err != nil {
		return err
	}
	cw := csv.NewWriter(w)
	if err := cw.WriteAll(rows); err != nil {
		return err
	}
	return cw.Error()
}

// SavePlotData writes the data of p to path as CSV, through
// internal/outfile (a complete file or none); ErrNoDataView, and no file,
// when the data cannot be read.
func SavePlotData(p *plot.Plot, path string) error {
	rows, err := PlotData(p)
	if err != nil {
		return err
	}
	return saveRows(rows, path)
}

func saveRows(rows [][]string, path string) error {
	out, err := outfile.Create(path)
	if err != nil {
		return err
	}
	defer out.Close()
	cw := csv.NewWriter(out)
	if err := cw.WriteAll(rows); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return out.Commit()
}

// CSVName is the file beside a figure's PNG and SVG that holds its data.
func CSVName(name string) string { return name + ".csv" }

// saveData writes the figure's data as dir/CSVName(name) and returns the
// file's name: "" when the data cannot be read (ErrNoDataView), which
// costs the CSV, not the figure.
func saveData(f *figure, dir, name string) (string, error) {
	file := CSVName(name)
	rows, err := PlotData(f.Plot)
	if errors.Is(err, ErrNoDataView) {
		return "", nil
	}
	if err == nil {
		err = saveRows(rows, filepath.Join(dir, file))
	}
	return file, err
}

func axisName(label, fallback string) string {
	if s := strings.TrimSpace(label); s != "" {
		return s
	}
	return fallback
}

// legendNames maps each plotter shown in the legend (by its pointer) to the
// legend's text for it; the first entry naming a plotter wins.
func legendNames(pv reflect.Value) map[uintptr]string {
	names := map[uintptr]string{}
	entries := pv.FieldByName("Legend").FieldByName("entries")
	if !entries.IsValid() || entries.Kind() != reflect.Slice {
		return names
	}
	for i := range entries.Len() {
		e := entries.Index(i)
		text, thumbs := e.FieldByName("text"), e.FieldByName("thumbs")
		if text.Kind() != reflect.String || thumbs.Kind() != reflect.Slice {
			continue
		}
		for j := range thumbs.Len() {
			t := thumbs.Index(j)
			if t.Kind() == reflect.Interface {
				t = t.Elem()
			}
			if t.IsValid() && t.Kind() == reflect.Pointer {
				if _, seen := names[t.Pointer()]; !seen {
					names[t.Pointer()] = text.String()
				}
			}
		}
	}
	return names
}

// categories are the names of the x axis's categories, when it has them
// (plot.NominalX, or a figure's own constant ticks).
func categories(p *plot.Plot) map[float64]string {
	ticks, ok := p.X.Tick.Marker.(plot.ConstantTicks)
	if !ok {
		return nil
	}
	m := map[float64]string{}
	for _, t := range ticks {
		if t.Label != "" {
			m[t.Value] = t.Label
		}
	}
	return m
}

func fnum(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }

func category(cats map[float64]string, x float64) string {
	if c, ok := cats[x]; ok {
		return c
	}
	return fnum(x)
}

// plotterRows are the rows of one plotter (a struct value): points of
// anything built on plotter.XYs (lines, scatters), bars, or a box's
// statistics; other plotters (grids, labels) hold no data and give none.
func plotterRows(v reflect.Value, name string, cats map[float64]string) [][]string {
	if v.Kind() != reflect.Struct {
		return nil
	}
	var rows [][]string
	if xys := v.FieldByName("XYs"); xys.IsValid() && xys.Kind() == reflect.Slice {
		if errs := v.FieldByName("YErrors"); errs.IsValid() && errs.Kind() == reflect.Slice && errs.Len() == xys.Len() {
			return errorBarRows(xys, errs, name, cats)
		}
		for i := range xys.Len() {
			pt := xys.Index(i)
			rows = append(rows, []string{name, category(cats, pt.FieldByName("X").Float()), fnum(pt.FieldByName("Y").Float()), ""})
		}
		return rows
	}
	if box := v.FieldByName("Quartile1"); box.IsValid() {
		at := category(cats, v.FieldByName("Location").Float())
		for _, s := range []struct{ field, stat string }{{"Min", "min"}, {"AdjLow", "whisker_low"}, {"Quartile1", "q1"},
			{"Median", "median"}, {"Quartile3", "q3"}, {"AdjHigh", "whisker_high"}, {"Max", "max"}} {
			if f := v.FieldByName(s.field); f.IsValid() && f.Kind() == reflect.Float64 {
				rows = append(rows, []string{name, at, fnum(f.Float()), s.stat})
			}
		}
		return rows
	}
	vals, xmin := v.FieldByName("Values"), v.FieldByName("XMin")
	if vals.IsValid() && vals.Kind() == reflect.Slice && xmin.IsValid() && xmin.Kind() == reflect.Float64 {
		for i := range vals.Len() {
			rows = append(rows, []string{name, category(cats, xmin.Float()+float64(i)), fnum(vals.Index(i).Float()), ""})
		}
	}
	return rows
}

// errorBarRows are the rows of vertical error bars (plotter.YErrorBars):
// for each point, the bar's two ends, stats bar_low and bar_high (the
// point itself is its line's or scatter's row).
func errorBarRows(xys, errs reflect.Value, name string, cats map[float64]string) [][]string {
	var rows [][]string
	for i := range xys.Len() {
		pt, e := xys.Index(i), errs.Index(i)
		low, high := e.FieldByName("Low"), e.FieldByName("High")
		if low.Kind() != reflect.Float64 || high.Kind() != reflect.Float64 {
			return nil
		}
		x, y := category(cats, pt.FieldByName("X").Float()), pt.FieldByName("Y").Float()
		rows = append(rows, []string{name, x, fnum(y - low.Float()), "bar_low"}, []string{name, x, fnum(y + high.Float()), "bar_high"})
	}
	return rows
}

func isErrorBars(rows [][]string) bool { return len(rows) > 0 && rows[0][3] == "bar_low" }
