package plots

import (
	"fmt"
	"math"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/recorder"
)

// Problems lists what breaks gmark's figure style in p laid out at width
// by height (as WriteTo lays it out): an axis with too few labelled ticks
// (fewer than MinTicks on a linear axis, other than one of categories; on
// a log axis, a decade without a labelled tick, or no minor ticks), a
// legend that reaches into the plot area or off the figure, a title on
// the figure's edge. None is a figure that passes.
func Problems(p *plot.Plot, width, height vg.Length) []string {
	var out []string
	for _, a := range []struct {
		name string
		ax   *plot.Axis
	}{{"x", &p.X}, {"y", &p.Y}} {
		if msg := tickProblem(a.ax); msg != "" {
			out = append(out, a.name+" axis: "+msg)
		}
	}
	c := draw.Canvas{Canvas: &recorder.Canvas{}, Rectangle: vg.Rectangle{Max: vg.Point{X: width, Y: height}}}
	plotC, legendC, title := layout(p, c)
	text := p.Title.Text
	p.Title.Text = title
	data := p.DataCanvas(plotC)
	p.Title.Text = text
	if w := p.Title.TextStyle.Rectangle(title).Size().X; title != "" && w > plotC.Size().X {
		out = append(out, fmt.Sprintf("the title (%.0f pt wide on its longest line) does not fit the plot's width (%.0f pt)", float64(w), float64(plotC.Size().X)))
	}
	if legendC.Size().Y > 0 {
		if legendC.Min.X < data.Max.X {
			out = append(out, fmt.Sprintf("the legend (from x = %.1f pt) reaches into the plot area (to x = %.1f pt)", float64(legendC.Min.X), float64(data.Max.X)))
		}
		size := p.Legend.Rectangle(legendC).Size()
		if size.Y > legendC.Size().Y || legendC.Max.X > c.Max.X {
			out = append(out, fmt.Sprintf("the legend (%.0f × %.0f pt) does not fit its area (%.0f × %.0f pt)",
				float64(size.X), float64(size.Y), float64(legendC.Size().X), float64(legendC.Size().Y)))
		}
	}
	if plotC.Max.Y > c.Max.Y-Margin/2 {
		out = append(out, "the title touches the top edge")
	}
	return out
}

// tickProblem says what is wrong with ax's ticks over its range, if
// anything.
func tickProblem(ax *plot.Axis) string {
	lo, hi := ax.Min, ax.Max
	if !(hi > lo) {
		return fmt.Sprintf("an empty range [%g, %g]", lo, hi)
	}
	ticks := ax.Tick.Marker.Ticks(lo, hi)
	labelled, minor := 0, 0
	for _, t := range ticks {
		if t.Value < lo || t.Value > hi {
			continue
		}
		if t.Label != "" {
			labelled++
		} else {
			minor++
		}
	}
	if _, log := ax.Scale.(plot.LogScale); log {
		decades := int(math.Floor(math.Log10(hi))-math.Ceil(math.Log10(lo))) + 1
		if labelled < max(decades, 1) || labelled < 2 {
			return fmt.Sprintf("%d labelled ticks on a log axis spanning %d powers of ten", labelled, decades)
		}
		if minor == 0 {
			return "no minor ticks on a log axis"
		}
		return ""
	}
	if levels, ok := ax.Tick.Marker.(LevelTicks); ok { // a label at each level, none between
		if labelled < len(levels) {
			return fmt.Sprintf("%d of %d levels within the axis's range [%g, %g]", labelled, len(levels), lo, hi)
		}
		return ""
	}
	if _, categories := ax.Tick.Marker.(plot.ConstantTicks); categories { // NominalX: one label each
		if labelled == 0 {
			return "no category labelled"
		}
		return ""
	}
	if labelled < MinTicks {
		return fmt.Sprintf("%d labelled ticks over [%g, %g], fewer than %d", labelled, lo, hi, MinTicks)
	}
	return ""
}

// Problems lists what breaks gmark's figure style in d (the plot's
// Problems at Width by Height) and any data drawn on or beyond the plot
// area's edge: a value at an end of an axis that has not been padded
// (a bar chart's 0 excepted), or past it.
func (d *Drawing) Problems() []string { return d.ProblemsAt(Width, Height) }

// ProblemsAt is Problems for the drawing laid out at width by height.
func (d *Drawing) ProblemsAt(width, height vg.Length) []string {
	p := d.plot
	out := Problems(p.Plot, width, height)
	for i, it := range p.items {
		r, ok := it.(plot.DataRanger)
		if !ok {
			continue
		}
		xmin, xmax, ymin, ymax := r.DataRange()
		if lo, hi, ok := categorySpan(it); ok {
			xmin, xmax = lo, hi
		}
		if math.IsInf(xmin, 0) || math.IsInf(ymin, 0) { // a grid
			continue
		}
		_, bars := it.(interface{ BarHeight(int) float64 })
		for _, e := range []struct {
			axis      string
			v, lo, hi float64
			zeroOK    bool
		}{
			{"x", xmin, p.X.Min, p.X.Max, false}, {"x", xmax, p.X.Min, p.X.Max, false},
			{"y", ymin, p.Y.Min, p.Y.Max, bars && ymin == 0}, {"y", ymax, p.Y.Min, p.Y.Max, bars && ymax == 0},
		} {
			inside := e.v > e.lo && e.v < e.hi || e.zeroOK && e.v == e.lo
			if !inside {
				out = append(out, fmt.Sprintf("plotter %d (%T): %s = %g on or beyond the %s axis's range [%g, %g]", i, it, e.axis, e.v, e.axis, e.lo, e.hi))
			}
		}
	}
	return out
}
