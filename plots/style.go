package plots

import (
	"bytes"
	"fmt"
	"image/color"
	"io"
	"math"
	"regexp"
	"strings"

	xfont "golang.org/x/image/font"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	_ "gonum.org/v1/plot/vg/vgpdf" // the "pdf" format of Render and WriteTo
)

// The style of every figure gmark draws, set here once: the report's, the
// trace toolbox's, the fits', the simulator's and the placeholders' (they
// all draw through this package, or through Style and WriteTo).

// Palette is the Okabe–Ito palette (Okabe and Ito, "Color universal
// design", 2008), distinguishable with the common colour-vision
// deficiencies, in the order series take it, then four dark colours of
// Paul Tol's muted scheme (indigo, olive, wine, brown), so that a figure
// of up to twelve series — the deadline studies draw ten — gives each its
// own colour: the i-th series of every figure has the i-th colour, so a
// run keeps its colour across figures. Yellow comes after the first
// seven: it is faint on white.
var Palette = []color.Color{
	color.RGBA{R: 0x00, G: 0x72, B: 0xb2, A: 0xff}, // blue
	color.RGBA{R: 0xd5, G: 0x5e, B: 0x00, A: 0xff}, // vermillion
	color.RGBA{R: 0x00, G: 0x9e, B: 0x73, A: 0xff}, // bluish green
	color.RGBA{R: 0xcc, G: 0x79, B: 0xa7, A: 0xff}, // reddish purple
	color.RGBA{R: 0xe6, G: 0x9f, B: 0x00, A: 0xff}, // orange
	color.RGBA{R: 0x56, G: 0xb4, B: 0xe9, A: 0xff}, // sky blue
	color.RGBA{R: 0x00, G: 0x00, B: 0x00, A: 0xff}, // black
	color.RGBA{R: 0xf0, G: 0xe4, B: 0x42, A: 0xff}, // yellow
	color.RGBA{R: 0x33, G: 0x22, B: 0x88, A: 0xff}, // indigo
	color.RGBA{R: 0x99, G: 0x99, B: 0x33, A: 0xff}, // olive
	color.RGBA{R: 0x88, G: 0x22, B: 0x55, A: 0xff}, // wine
	color.RGBA{R: 0x66, G: 0x11, B: 0x00, A: 0xff}, // brown
}

// Color is the i-th series colour: Palette, round and round (Dashes tells
// the rounds apart).
func Color(i int) color.Color { return Palette[((i%len(Palette))+len(Palette))%len(Palette)] }

// Dashes is the i-th series' dash pattern: solid for the first round of
// the palette, then dashed, dotted, dash-dotted.
func Dashes(i int) []vg.Length {
	switch (max(i, 0) / len(Palette)) % 4 {
	case 0:
		return nil
	case 1:
		return []vg.Length{vg.Points(6), vg.Points(3)}
	case 2:
		return []vg.Length{vg.Points(1.5), vg.Points(2)}
	}
	return []vg.Length{vg.Points(6), vg.Points(2), vg.Points(1.5), vg.Points(2)}
}

// glyphs are the marker shapes of the series' points, in the order series
// take them: where points of several series sit on one x (a load level),
// their shapes tell them apart beside their colours, in grey print too.
var glyphs = []draw.GlyphDrawer{draw.CircleGlyph{}, draw.BoxGlyph{}, draw.PyramidGlyph{}, draw.RingGlyph{},
	draw.SquareGlyph{}, draw.TriangleGlyph{}, draw.CrossGlyph{}, draw.PlusGlyph{}}

// Glyph is the i-th series' marker shape.
func Glyph(i int) draw.GlyphDrawer { return glyphs[((i%len(glyphs))+len(glyphs))%len(glyphs)] }

// Accent is the colour of reference lines (control limits, the
// cumulative share), Okabe–Ito's vermillion; Neutral is that of centre
// and ideal lines; BoxFill fills boxes.
var (
	Accent  color.Color = color.RGBA{R: 0xd5, G: 0x5e, B: 0x00, A: 0xff}
	Neutral color.Color = color.Gray{Y: 0x40}
	BoxFill color.Color = color.RGBA{R: 0xcc, G: 0xe3, B: 0xf0, A: 0xff}
)

// Font sizes and margins of every figure.
var (
	TitleSize  = vg.Points(13)
	LabelSize  = vg.Points(11)
	TickSize   = vg.Points(9.5)
	LegendSize = vg.Points(10)
	// Margin is left blank around the figure, so that the title and the
	// outer tick labels keep off the edge.
	Margin = vg.Points(10)
	// LegendGap separates the plot from its legend, drawn to its right.
	LegendGap = vg.Points(12)
	// PadFraction of an axis's data range is added at each end of a linear
	// axis, so that lines and points at the extremes are not drawn on the
	// frame; a bar chart's value axis keeps its 0.
	PadFraction = 0.04
	// MinTicks is the fewest labelled ticks of a linear axis.
	MinTicks = 4
)

func sans(size vg.Length, bold bool) font.Font {
	f := font.Font{Typeface: "Liberation", Variant: "Sans", Size: size}
	if bold {
		f.Weight = xfont.WeightBold
	}
	return f
}

// Style gives p the style of gmark's figures: sans-serif fonts of readable
// sizes, a title clear of the plot, a light grid, enough ticks on each
// linear axis (Ticks); a log axis set later gets LogTicks from the caller.
func Style(p *plot.Plot) {
	p.Title.TextStyle.Font = sans(TitleSize, true)
	p.Title.Padding = vg.Points(8)
	for _, ax := range []*plot.Axis{&p.X, &p.Y} {
		ax.Label.TextStyle.Font = sans(LabelSize, false)
		ax.Label.Padding = vg.Points(4)
		ax.Tick.Label.Font = sans(TickSize, false)
		ax.Tick.Marker = Ticks{}
	}
	p.Legend.TextStyle.Font = sans(LegendSize, false)
	p.Legend.Top, p.Legend.Left = true, true
	p.Legend.Padding = vg.Points(3)
	g := plotter.NewGrid()
	g.Vertical.Color, g.Horizontal.Color = color.Gray{Y: 0xe0}, color.Gray{Y: 0xe0}
	p.Add(g)
}

// Ticks marks a linear axis with at least MinTicks labelled ticks at round
// values (1, 2, 2.5 or 5 times a power of ten) and unlabelled ones between.
type Ticks struct{}

// Ticks implements plot.Ticker.
func (Ticks) Ticks(lo, hi float64) []plot.Tick {
	if !(hi > lo) || math.IsInf(hi-lo, 0) {
		return []plot.Tick{{Value: lo, Label: Num(lo, 6)}}
	}
	step, minor := tickStep(lo, hi)
	var t []plot.Tick
	first := math.Ceil(lo/minor - 1e-9)
	for k := first; k*minor <= hi+1e-9*minor; k++ {
		v := k * minor
		label := ""
		if r := v / step; math.Abs(r-math.Round(r)) < 1e-6 {
			v = math.Round(r) * step
			label = Num(v, 10)
		}
		t = append(t, plot.Tick{Value: v, Label: label})
		if len(t) > 1000 || k+1 == k { // a range too narrow for its floats
			break
		}
	}
	return t
}

// WholeTicks marks an axis of whole numbers (ranks, counts): labelled ticks
// only at whole values, every 1, 2 or 5 times a power of ten (the largest
// such step with MinTicks labels, else every whole number), and no minor
// ticks, which would fall between two ranks.
type WholeTicks struct{}

// Ticks implements plot.Ticker.
func (WholeTicks) Ticks(lo, hi float64) []plot.Tick {
	if !(hi > lo) || math.IsInf(hi-lo, 0) || hi-lo > 1e15 {
		return Ticks{}.Ticks(lo, hi)
	}
	step := 1.0
	for s := 1.0; s <= hi-lo; s *= 10 {
		for _, m := range []float64{1, 2, 5} {
			if labelled(lo, hi, m*s) >= MinTicks {
				step = m * s
			}
		}
	}
	var t []plot.Tick
	for k := math.Ceil(lo/step - 1e-9); k*step <= hi+1e-9 && len(t) <= 1000; k++ {
		v := k * step
		t = append(t, plot.Tick{Value: v, Label: Num(v, 10)})
	}
	return t
}

// LevelTicks marks an axis of a few levels (the loads an experiment ran
// at, its seeds): a labelled tick at each level, and no other tick, so
// that every point sits on a labelled tick and no tick falls between two
// levels where no point can be.
type LevelTicks []float64

// MaxLevels is the most levels an axis is marked at (LevelTicks); more
// are marked with round (or whole) values, as any axis.
const MaxLevels = 12

// levelTicker is how ErrorLines marks an x axis of the values xs (each
// once, sorted): at each value when there are at most MaxLevels and no two
// are closer than a twentieth of their range (their labels would run
// together); else at round values, whole ones (WholeTicks) when every
// value is whole (seeds, counts); nil (Ticks) otherwise.
func levelTicker(xs []float64) plot.Ticker {
	if len(xs) == 0 {
		return nil
	}
	whole := true
	for _, x := range xs {
		whole = whole && x == math.Trunc(x)
	}
	span := xs[len(xs)-1] - xs[0]
	crowded := false
	for i := 1; i < len(xs); i++ {
		crowded = crowded || xs[i]-xs[i-1] < span/20
	}
	switch {
	case len(xs) <= MaxLevels && !crowded:
		return LevelTicks(xs)
	case whole:
		return WholeTicks{}
	}
	return nil
}

// Ticks implements plot.Ticker.
func (l LevelTicks) Ticks(lo, hi float64) []plot.Tick {
	var t []plot.Tick
	for _, v := range l {
		if v >= lo && v <= hi {
			t = append(t, plot.Tick{Value: v, Label: Num(v, 4)})
		}
	}
	return t
}

// tickStep is the largest round step that puts MinTicks labelled ticks in
// [lo, hi], and the step of the minor ticks between them.
func tickStep(lo, hi float64) (step, minor float64) {
	span := hi - lo
	p := math.Pow(10, math.Floor(math.Log10(span)))
	for _, m := range []struct{ step, minor float64 }{{5, 1}, {2.5, 0.5}, {2, 0.5}, {1, 0.2}, {0.5, 0.1}, {0.25, 0.05}, {0.2, 0.05}, {0.1, 0.02}} {
		s := m.step * p
		if labelled(lo, hi, s) >= MinTicks {
			return s, m.minor * p
		}
	}
	return 0.05 * p, 0.01 * p
}

// labelled counts the multiples of step in [lo, hi].
func labelled(lo, hi, step float64) int {
	return int(math.Floor(hi/step+1e-9) - math.Ceil(lo/step-1e-9) + 1)
}

// LogTicks marks a log axis with a labelled tick at each power of ten and
// unlabelled ones at 2…9 times it; when the axis spans fewer than
// MinTicks powers of ten, the 2s and 5s are labelled too.
//
// Floor, when set, is where the figure draws the positive values below it:
// its tick is labelled "≤ Floor", so that they read as what they are.
//
// Zero, when set, is where a split axis draws the values ≤ 0, left of (below)
// a break: its tick is labelled ZeroLabel ("= 0"), and no tick is drawn
// between it and the log range, which starts at 4 × Zero.
type LogTicks struct {
	Floor     float64
	Zero      float64
	ZeroLabel string
}

// Ticks implements plot.Ticker.
func (lt LogTicks) Ticks(lo, hi float64) []plot.Tick {
	if !(lo > 0) || !(hi > lo) {
		return nil
	}
	k0, k1 := int(math.Floor(math.Log10(lo))), int(math.Ceil(math.Log10(hi)))
	decades := 0
	for k := k0; k <= k1; k++ {
		if v := math.Pow(10, float64(k)); v >= lo*(1-1e-9) && v <= hi*(1+1e-9) {
			decades++
		}
	}
	var t []plot.Tick
	if lt.Zero > 0 {
		t = append(t, plot.Tick{Value: lt.Zero, Label: lt.ZeroLabel})
		lo = max(lo, 4*lt.Zero)
	}
	for k := k0; k <= k1; k++ {
		d := math.Pow(10, float64(k))
		for m := 1; m < 10; m++ {
			v := float64(m) * d
			if v < lo*(1-1e-9) || v > hi*(1+1e-9) {
				continue
			}
			label := ""
			if m == 1 || decades < MinTicks && (m == 2 || m == 5) {
				label = logLabel(v, k)
			}
			if lt.Floor > 0 && math.Abs(v-lt.Floor) <= 1e-9*lt.Floor {
				label = "≤ " + logLabel(v, k)
			}
			t = append(t, plot.Tick{Value: v, Label: label})
		}
	}
	return t
}

// logLabel labels the tick at v = m × 10^k: in full from 0.001 to
// 999,999 ("0.1", "1,000"), as "1e6" or "2e-5" beyond.
func logLabel(v float64, k int) string {
	if k >= -3 && k < 6 {
		return Num(v, 3)
	}
	return fmt.Sprintf("%.0fe%d", v/math.Pow(10, float64(k)), k)
}

// PadAxes widens p's linear axes by PadFraction of their range at each end,
// leaving a value axis at 0 where bars start (keepZeroY). An axis of a
// single value v is drawn over v ± 5% of it; one of the single value 0
// (every wait zero, say) over [0, 1], padded below as a range of 1 is,
// so that it shows no negative half that no value can fall in.
func PadAxes(p *plot.Plot, keepZeroY bool) {
	padAxis(&p.X, false)
	padAxis(&p.Y, keepZeroY)
}

func padAxis(ax *plot.Axis, keepZero bool) {
	if _, log := ax.Scale.(plot.LogScale); log {
		return
	}
	lo, hi := ax.Min, ax.Max
	if math.IsInf(lo, 0) || math.IsInf(hi, 0) || math.IsNaN(lo) || math.IsNaN(hi) {
		return
	}
	if !(hi > lo) { // a single value
		if d := 0.05 * math.Abs(lo); d > 0 && lo+d != lo {
			ax.Min, ax.Max = lo-d, hi+d
			if keepZero && lo == 0 {
				ax.Min = 0
			}
			return
		}
		hi = lo + 1
	}
	d := PadFraction * (hi - lo)
	if !(keepZero && lo == 0) {
		ax.Min = lo - d
	}
	ax.Max = hi + d
}

// WriteTo draws p, width by height, in format ("png", "svg", "pdf", …) to
// w, with gmark's layout: a blank Margin around, the title wrapped onto
// lines that fit the plot's width, and the legend (when p has one)
// outside the plot, to its right, top-aligned with the plot area, so it
// never hides data. An SVG names fallback font families after the one it
// was drawn with (SVGFonts).
func WriteTo(w io.Writer, p *plot.Plot, width, height vg.Length, format string) error {
	c, err := draw.NewFormattedCanvas(width, height, format)
	if err != nil {
		return err
	}
	if format == "pdf" && p.Title.TextStyle.Font.Weight != xfont.WeightNormal {
		// gonum/plot's PDF canvas embeds a bold font as regular and then
		// cannot find it ("undefined font: liberationsans-bold B"): the
		// PDF's title is regular.
		title := p.Title.TextStyle
		defer func() { p.Title.TextStyle = title }()
		p.Title.TextStyle.Font.Weight = xfont.WeightNormal
	}
	drawLaidOut(p, draw.New(c))
	if format != "svg" {
		_, err = c.WriteTo(w)
		return err
	}
	var svg bytes.Buffer
	if _, err := c.WriteTo(&svg); err != nil {
		return err
	}
	_, err = w.Write(SVGFonts(svg.Bytes()))
	return err
}

// svgFamily is the font family of a text element in gonum's SVG: the
// font's name alone, which a viewer without that font replaces with its
// default (a serif, in most browsers).
var svgFamily = regexp.MustCompile(`style="font-family:([^;"']+);`)

// SVGFonts gives every font family of an SVG drawn by gonum/plot its
// fallbacks: the metric-compatible Arial and Helvetica, then the generic
// family (sans-serif; serif or monospace for such fonts), so that a
// viewer without Liberation Sans still draws the figure in a sans-serif.
func SVGFonts(svg []byte) []byte {
	return svgFamily.ReplaceAllFunc(svg, func(m []byte) []byte {
		name := string(svgFamily.FindSubmatch(m)[1])
		generic := "Arial,Helvetica,sans-serif"
		switch lower := strings.ToLower(name); {
		case strings.Contains(lower, "mono"):
			generic = "monospace"
		case strings.Contains(lower, "serif") && !strings.Contains(lower, "sans"):
			generic = "serif"
		}
		return []byte(`style="font-family:'` + name + `',` + generic + ";")
	})
}

// MaxTitleLines is the most lines a title is wrapped onto.
const MaxTitleLines = 3

// layout is where the parts of a figure go on canvas c: the plot (title,
// axes and data), the legend's area (empty when there is no legend), and
// the title as it fits the plot's width (wrapTitle).
func layout(p *plot.Plot, c draw.Canvas) (plotC draw.Canvas, legendC draw.Canvas, title string) {
	c = draw.Crop(c, Margin, -Margin, Margin, -Margin)
	size := p.Legend.Rectangle(c).Size()
	if size.Y == 0 {
		return c, draw.Canvas{Canvas: c.Canvas, Rectangle: vg.Rectangle{Min: c.Max, Max: c.Max}}, wrapTitle(p.Title.TextStyle, p.Title.Text, c.Size().X)
	}
	lw := min(size.X+vg.Points(6), c.Size().X/3)
	plotC = draw.Crop(c, 0, -(lw + LegendGap), 0, 0)
	title = wrapTitle(p.Title.TextStyle, p.Title.Text, plotC.Size().X)
	top := vg.Length(0)
	if title != "" {
		top = p.Title.TextStyle.Rectangle(title).Size().Y + p.Title.Padding
	}
	legendC = draw.Crop(c, c.Size().X-lw, 0, 0, -top)
	return plotC, legendC, title
}

// wrapTitle breaks a title that is wider than width onto lines that fit
// it, at spaces, on as few lines as fit (at most MaxTitleLines), those
// lines as even as they can be (the narrowest width that wraps it onto
// that many), so that no line is a lone word; a title that fits is left
// as it is. A word wider than width stays whole (Problems reports the
// title).
func wrapTitle(sty text.Style, title string, width vg.Length) string {
	if title == "" || strings.Contains(title, "\n") || sty.Width(title) <= width {
		return title
	}
	words := strings.Fields(title)
	n := len(greedyLines(sty, words, width, MaxTitleLines))
	lo, hi := vg.Length(0), width
	for range 24 {
		if mid := (lo + hi) / 2; len(greedyLines(sty, words, mid, len(words))) <= n {
			hi = mid
		} else {
			lo = mid
		}
	}
	return strings.Join(greedyLines(sty, words, hi, n), "\n")
}

// greedyLines fills lines of at most width with words, each as full as it
// can be, on at most most lines (the last takes the rest).
func greedyLines(sty text.Style, words []string, width vg.Length, most int) []string {
	var lines []string
	line := ""
	for _, word := range words {
		switch {
		case line == "":
			line = word
		case sty.Width(line+" "+word) <= width || len(lines) == most-1:
			line += " " + word
		default:
			lines = append(lines, line)
			line = word
		}
	}
	return append(lines, line)
}

// drawLaidOut draws p on c as layout places it.
func drawLaidOut(p *plot.Plot, c draw.Canvas) {
	plotC, legendC, title := layout(p, c)
	leg, text := p.Legend, p.Title.Text
	p.Legend, p.Title.Text = plot.NewLegend(), title
	defer func() { p.Legend, p.Title.Text = leg, text }()
	p.Draw(plotC)
	if legendC.Size().Y > 0 {
		leg.Top, leg.Left, leg.XOffs, leg.YOffs = true, true, 0, 0
		leg.Draw(legendC)
	}
}
