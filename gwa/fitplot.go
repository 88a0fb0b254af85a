package gwa

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/gmark/gmark/plots"
	"github.com/gmark/gmark/stats"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
)

// The size of the fit figures.
const (
	fitWidth  = 8 * vg.Inch
	fitHeight = 5 * vg.Inch
)

// PlotFits draws, for each trace and field of r, the empirical CDF of the
// fitted values (on the fitted scale) against the CDFs of the best four
// fits, into dir (made if missing) as TRACE_FIELD.png and .svg, and
// returns the files written.
func PlotFits(dir string, r *FitResult) ([]string, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	var files []string
	for _, tf := range r.Traces {
		for _, field := range r.Options.Fields {
			y := fittedValues(tf.Data[field], r.Options.Stats)
			if len(y) == 0 {
				continue
			}
			base := strings.TrimSuffix(filepath.Base(tf.Path), ".gz")
			name := strings.TrimSuffix(base, filepath.Ext(base))
			d, err := fitPlot(name, field, y, tf.Fits[field], r.Options.Stats.Log2)
			if err != nil {
				return nil, err
			}
			path := filepath.Join(dir, name+"_"+field)
			d.Saving(name+"_"+field, fitWidth, fitHeight)
			for _, ext := range []string{".png", ".svg"} {
				if err := SavePlot(d.Plot(), fitWidth, fitHeight, path+ext); err != nil {
					return nil, err
				}
				files = append(files, path+ext)
			}
		}
	}
	return files, nil
}

// fitPlot is the figure of one trace's field: y, the fitted values
// sorted, against the CDFs of its fits.
func fitPlot(name, field string, y []float64, fits []stats.Fit, log2 bool) (*plots.Drawing, error) {
	b := plots.NewBuilder(name+": "+field, fitAxis(field, log2), "fraction of the values (CDF)")
	p := b.Plot()
	// The empirical CDF of the fitted values among all fitted ones,
	// censored included (they lie above the last point).
	n := len(y)
	emp := make(plotter.XYs, 0, 2001)
	total := float64(max(n, fits[0].N))
	step := max(1, n/2000)
	for i := 0; i < n; i += step {
		emp = append(emp, plotter.XY{X: y[i], Y: float64(i+1) / total})
	}
	emp = append(emp, plotter.XY{X: y[n-1], Y: float64(n) / total})
	line, err := plotter.NewLine(emp)
	if err != nil {
		return nil, err
	}
	line.Width = vg.Points(2.5)
	line.Color = plots.Color(0)
	b.Add(line)
	p.Legend.Add("data", line)
	k := 0
	for i := range fits {
		f := &fits[i]
		if f.Err != nil || k == 4 {
			continue
		}
		k++
		pts := make(plotter.XYs, 0, 400)
		lo, hi := y[0], y[n-1]
		for s := 0; s <= 400; s++ {
			x := lo + (hi-lo)*float64(s)/400
			pts = append(pts, plotter.XY{X: x, Y: f.Model.CDF(x)})
		}
		l, err := plotter.NewLine(pts)
		if err != nil {
			return nil, err
		}
		l.Color = plots.Color(k)
		l.Dashes = []vg.Length{vg.Points(5), vg.Points(3)} // fits dashed, the data solid
		b.Add(l)
		p.Legend.Add(fmt.Sprintf("%s (D=%.3f)", f.Family, f.D), l)
	}
	p.Y.Min, p.Y.Max = 0, 1
	return b.Done(""), nil
}

// fitAxis labels the x axis of a fit of field with what it is and its
// unit ("run time (s)"), on the fitted scale ("log₂ of the run time (s)").
func fitAxis(field string, log2 bool) string {
	doc := field
	if f, ok := LookupFitField(field); ok {
		doc = f.Doc
	}
	if log2 {
		return "log₂ of the " + doc
	}
	return doc
}

// fittedValues are the values the fit used, on the fitted scale, sorted.
func fittedValues(x []float64, opts stats.FitOptions) []float64 {
	var y []float64
	for _, v := range x {
		if opts.CensorAt > 0 && v >= opts.CensorAt {
			continue
		}
		if opts.Log2 {
			if v <= 0 {
				continue
			}
			v = math.Log2(v)
		}
		if !opts.NoFloor && v <= opts.Floor {
			continue
		}
		y = append(y, v)
	}
	slices.Sort(y)
	return y
}
