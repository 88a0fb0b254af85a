package plots

import (
	"bytes"
	"encoding/csv"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
)

// The data of every kind of figure reads back as CSV: the header names the
// axes, each curve is named as in the legend, categories by their names,
// and the values are those drawn.
func TestPlotData(t *testing.T) {
	raw := plot.New() // a figure drawn with gonum alone, as the trace toolbox's are
	raw.X.Label.Text, raw.Y.Label.Text = "day", "jobs"
	l, _ := plotter.NewLine(plotter.XYs{{X: 0, Y: 1}, {X: 1, Y: 2.5}})
	raw.Add(l)
	empty := plot.New()
	bars := plot.New() // error bars alone: no series before them to belong to
	bars.Y.Label.Text = "jobs"
	eb, _ := plotter.NewYErrorBars(yErrors{plotter.XYs{{X: 0, Y: 1}}, plotter.YErrors{{Low: 0.5, High: 2}}})
	bars.Add(eb)
	nan := math.NaN()

	cases := []struct {
		name   string
		draw   func() (*Drawing, error)
		plot   *plot.Plot
		header string
		rows   int      // data rows
		want   []string // rows (joined by commas) that must be there
	}{
		{name: "CDF, two runs", draw: func() (*Drawing, error) {
			return CDF("c", "wait (s)", []Series{{"R1", []float64{1, 2}}, {"R2", []float64{3}}}, false)
		}, header: "series,wait (s),fraction of jobs (CDF),stat", rows: 5 + 3, // the steps drawn
			want: []string{"R1,1,0,", "R1,2,1,", "R2,3,1,"}},
		{name: "bars with categories", draw: func() (*Drawing, error) {
			return Bars("b", "success rate", []string{"R1", "R2"}, []float64{0.5, 1}, 1)
		}, rows: 2, want: []string{"success rate,R1,0.5,", "success rate,R2,1,"}},
		{name: "box per run", draw: func() (*Drawing, error) {
			return Box("w", "wait (s)", []Series{{"R1", []float64{1, 2, 3, 4, 5}}}, []float64{3})
		}, rows: 7 + 1, want: []string{"wait (s),R1,3,median", "wait (s),R1,1,min", "wait (s),R1,5,max", "mean,R1,3,"}},
		{name: "X-bar: a line and its points once, the limits", draw: func() (*Drawing, error) {
			return XBar("x", "delay (ms)", []string{"R1", "R2"}, []float64{1, 3}, 2, 0.5, "")
		}, rows: 2 + 3*2, want: []string{"mean per run,R1,1,", "mean per run,R2,3,", "μ = 2,-0.5,2,", "delay (ms),1.5,0.5,"}},
		{name: "lines with error bars: the bars' ends as their series' rows", draw: func() (*Drawing, error) {
			return ErrorLines("e", "seed", "mean wait (s)", []Points{{Label: "WF", X: []float64{1, 2}, Y: []float64{10, 20}, Lo: []float64{8, 15}, Hi: []float64{12, 25}},
				{Label: "CF", X: []float64{3}, Y: []float64{5}, Lo: []float64{nan}, Hi: []float64{nan}}})
		}, header: "series,seed,mean wait (s),stat", rows: 2 + 2*2 + 1,
			want: []string{"WF,1,10,", "WF,1,8,bar_low", "WF,1,12,bar_high", "WF,2,15,bar_low", "WF,2,25,bar_high", "CF,3,5,"}},
		{name: "lines with error bars drawn apart: each at its own x", draw: func() (*Drawing, error) {
			return ErrorLines("e", "U_l (%)", "success", []Points{{Label: "Wait-10", X: []float64{10, 70}, Y: []float64{0.9, 0.92}, Lo: []float64{0.8, 0.9}, Hi: []float64{1, 0.94}},
				{Label: "RPP", X: []float64{10, 70}, Y: []float64{0.85, 0.87}, Lo: []float64{0.8, 0.8}, Hi: []float64{0.9, 0.9}}})
		}, header: "series,U_l (%),success,stat", rows: 2 * (2 + 2*2),
			want: []string{"Wait-10,10,0.9,", "Wait-10,70,0.92,", "Wait-10,10,0.8,bar_low", "Wait-10,70,0.94,bar_high", "RPP,10,0.85,", "RPP,70,0.87,", "RPP,10,0.8,bar_low", "RPP,70,0.9,bar_high"}},
		{name: "error bars of no series", plot: bars, rows: 2, want: []string{"jobs,0,0.5,bar_low", "jobs,0,3,bar_high"}},
		{name: "a gonum plot with no legend", plot: raw, header: "series,day,jobs,stat", rows: 2, want: []string{"jobs,0,1,", "jobs,1,2.5,"}},
		{name: "an empty plot", plot: empty, header: "series,x,y,stat", rows: 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var rows [][]string
			var err error
			if c.draw != nil {
				d, err := c.draw()
				if err != nil {
					t.Fatal(err)
				}
				var b bytes.Buffer
				if err := d.WriteCSV(&b); err != nil {
					t.Fatal(err)
				}
				if rows, err = csv.NewReader(&b).ReadAll(); err != nil {
					t.Fatalf("not CSV: %v", err)
				}
			} else {
				rows, err = PlotData(c.plot)
			}
			if err != nil {
				t.Fatal(err)
			}
			lines := make([]string, len(rows))
			for i, r := range rows {
				lines[i] = strings.Join(r, ",")
			}
			if c.header != "" && lines[0] != c.header {
				t.Errorf("header %q, want %q", lines[0], c.header)
			}
			if len(rows)-1 != c.rows {
				t.Errorf("%d data rows, want %d:\n%s", len(rows)-1, c.rows, strings.Join(lines, "\n"))
			}
			for _, w := range c.want {
				if !slices.Contains(lines, w) {
					t.Errorf("no row %q in\n%s", w, strings.Join(lines, "\n"))
				}
			}
		})
	}
}

// Save writes the CSV beside the PNG and SVG, and names it in the Figure.
func TestSaveWritesData(t *testing.T) {
	dir := t.TempDir()
	d, err := Bars("b", "jobs", []string{"a"}, []float64{7}, 0)
	if err != nil {
		t.Fatal(err)
	}
	f, err := d.Save(dir, "bars")
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(dir, f.CSV))
	if f.CSV != "bars.csv" || err != nil || string(b) != "series,run,jobs,stat\njobs,a,7,\n" {
		t.Errorf("csv %q: %v %q", f.CSV, err, b)
	}
}
