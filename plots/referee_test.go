package plots

import (
	"bytes"
	"encoding/csv"
	"fmt"
	"image/color"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/recorder"
)

// The details of a figure a referee catches: each test here failed on the
// figures gmark drew before they were fixed.

// loadSeries are six architectures at five load levels, every one at every
// level (as a sim experiment draws them).
func loadSeries() []Points {
	var out []Points
	for i, arch := range []string{"sep-c", "condor", "fcondor", "cern", "central", "dmm"} {
		p := Points{Label: arch}
		for _, load := range []float64{10, 30, 50, 70, 90} {
			y := load / 100 * (1 - 0.05*float64(i))
			p.X, p.Y = append(p.X, load), append(p.Y, y)
			p.Lo, p.Hi = append(p.Lo, y-0.9), append(p.Hi, y+0.9)
		}
		out = append(out, p)
	}
	return out
}

// drawnXs are the x values of every line, scatter and error bar of d, as
// drawn.
func drawnXs(d *Drawing) []float64 {
	var xs []float64
	for _, it := range d.plot.items {
		var pts plotter.XYs
		switch v := it.(type) {
		case *plotter.Line:
			pts = v.XYs
		case *plotter.Scatter:
			pts = v.XYs
		case *plotter.YErrorBars:
			pts = v.XYs
		}
		for _, p := range pts {
			xs = append(xs, p.X)
		}
	}
	return xs
}

// Every point of a figure against the load sits on its load level, with
// its bar: they were shifted sideways, up to 5 points off their levels.
func TestErrorLinesPointsOnTheirX(t *testing.T) {
	d, err := ErrorLines("U", "load (%)", "U", loadSeries())
	if err != nil {
		t.Fatal(err)
	}
	xs := drawnXs(d)
	if len(xs) == 0 {
		t.Fatal("nothing drawn")
	}
	for _, x := range xs {
		if !slices.Contains([]float64{10, 30, 50, 70, 90}, x) {
			t.Errorf("a point or bar drawn at x = %g, off the load levels", x)
		}
	}
	if strings.Contains(d.Note, "shifted") {
		t.Errorf("note %q", d.Note)
	}
}

// labels are the labelled ticks of ax over its range.
func labels(ax *plot.Axis) []string {
	var out []string
	for _, tk := range ax.Tick.Marker.Ticks(ax.Min, ax.Max) {
		if tk.Label != "" && tk.Value >= ax.Min && tk.Value <= ax.Max {
			out = append(out, tk.Label)
		}
	}
	return out
}

// The x axis is marked at the levels the points are at (and nowhere
// else); an axis of seeds, at whole numbers only, whatever their number.
func TestErrorLinesTicksAtLevels(t *testing.T) {
	seeds := func(n int) []Points {
		p := Points{Label: "WF"}
		for s := 1; s <= n; s++ {
			p.X, p.Y = append(p.X, float64(s)), append(p.Y, float64(40+s%3))
			p.Lo, p.Hi = append(p.Lo, float64(35+s%3)), append(p.Hi, float64(45+s%3))
		}
		return []Points{p}
	}
	for _, c := range []struct {
		name   string
		series []Points
		want   []string // nil: any whole numbers
	}{
		{"loads", loadSeries(), []string{"10", "30", "50", "70", "90"}},
		{"two loads", []Points{{Label: "dmm", X: []float64{100, 150}, Y: []float64{90, 85}, Lo: []float64{80, 80}, Hi: []float64{95, 90}}}, []string{"100", "150"}},
		{"three seeds", seeds(3), []string{"1", "2", "3"}},
		{"seven seeds", seeds(7), []string{"1", "2", "3", "4", "5", "6", "7"}},
		{"thirty seeds", seeds(30), nil},
		{"deadlines", []Points{{Label: "RPP", X: []float64{60, 600, 1800, 3600}, Y: []float64{0.5, 0.6, 0.7, 0.8}, Lo: []float64{0.4, 0.5, 0.6, 0.7}, Hi: []float64{0.6, 0.7, 0.8, 0.9}}},
			[]string{"60", "600", "1,800", "3,600"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			d, err := ErrorLines("m", "x", "y", c.series)
			if err != nil {
				t.Fatal(err)
			}
			got := labels(&d.plot.X)
			if c.want != nil && !slices.Equal(got, c.want) {
				t.Errorf("x ticks %q, want %q", got, c.want)
			}
			for _, l := range got {
				v, err := strconv.ParseFloat(strings.ReplaceAll(l, ",", ""), 64)
				if err != nil || v != math.Trunc(v) {
					t.Errorf("x tick %q: not a whole number, on an axis of whole levels", l)
				}
			}
			if len(got) < 2 {
				t.Errorf("x ticks %q", got)
			}
			for _, p := range d.Problems() {
				t.Error(p)
			}
		})
	}
}

// barEnds are the bar_low and bar_high values of a drawing's data.
func barEnds(t *testing.T, d *Drawing) []float64 {
	t.Helper()
	var b bytes.Buffer
	if err := d.WriteCSV(&b); err != nil {
		t.Fatal(err)
	}
	rows, err := csv.NewReader(&b).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	var out []float64
	for _, r := range rows[1:] {
		if r[3] == "bar_low" || r[3] == "bar_high" {
			v, err := strconv.ParseFloat(r[2], 64)
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, v)
		}
	}
	return out
}

// No interval is drawn over fewer than three values, and the note says
// so; an interval is cut at its metric's bounds, and the note says how
// many were.
func TestErrorLinesIntervals(t *testing.T) {
	reps := func(n int) []Points {
		s := loadSeries()
		for i := range s {
			s[i].N = slices.Repeat([]int{n}, len(s[i].X))
		}
		return s
	}
	iv := Intervals{What: "95% confidence intervals of the mean", Of: "repetitions", Domain: Fraction}
	d, err := ErrorLines("U", "load (%)", "U", reps(2), iv)
	if err != nil {
		t.Fatal(err)
	}
	if ends := barEnds(t, d); len(ends) != 0 {
		t.Errorf("bars over 2 repetitions drawn: %v", ends)
	}
	if want := "no 95% confidence intervals of the mean: each point is over 2 repetitions, fewer than the 3 an interval needs"; d.Note != want {
		t.Errorf("note %q, want %q", d.Note, want)
	}
	d, err = ErrorLines("U", "load (%)", "U", reps(5), iv)
	if err != nil {
		t.Fatal(err)
	}
	ends := barEnds(t, d)
	if len(ends) != 2*30 {
		t.Errorf("%d bar ends, want 60", len(ends))
	}
	for _, v := range ends {
		if v < 0 || v > 1 {
			t.Errorf("a bar reaches %g, outside [0, 1]", v)
		}
	}
	if !strings.Contains(d.Note, "30 bars cut at the bounds of the metric's values, [0, 1]") {
		t.Errorf("note %q", d.Note)
	}
	// Some points of too few repetitions among others: those have none.
	s := reps(4)
	s[0].N[0] = 1
	d, err = ErrorLines("U", "load (%)", "U", s, iv)
	if err != nil {
		t.Fatal(err)
	}
	if len(barEnds(t, d)) != 2*29 || !strings.Contains(d.Note, "none at the 1 point over fewer than 3 repetitions") {
		t.Errorf("%d bar ends, note %q", len(barEnds(t, d)), d.Note)
	}
	if _, err := ErrorLines("U", "x", "y", []Points{{Label: "a", X: []float64{1}, Y: []float64{1}, Lo: []float64{0}, Hi: []float64{2}, N: []int{3, 4}}}); err == nil {
		t.Error("counts of another length accepted")
	}
}

// titleLines are the lines of d's title as drawn at width by height, and
// the extent of each: the FillString of its text, from its left to its
// right end.
func titleLines(t *testing.T, d *Drawing, width, height vg.Length) (lines []string, left, right []vg.Length) {
	t.Helper()
	rec := &recorder.Canvas{}
	c := draw.Canvas{Canvas: rec, Rectangle: vg.Rectangle{Max: vg.Point{X: width, Y: height}}}
	drawLaidOut(d.plot.Plot, c)
	sty := d.plot.Title.TextStyle
	for _, a := range rec.Actions {
		fs, ok := a.(*recorder.FillString)
		if !ok || fs.Font.Weight != sty.Font.Weight || !strings.Contains(d.Title, fs.String) || len(fs.String) < 4 {
			continue
		}
		lines = append(lines, fs.String)
		left, right = append(left, fs.Point.X), append(right, fs.Point.X+sty.Width(fs.String))
	}
	return lines, left, right
}

// A long title beside a legend is wrapped within the figure: the sim
// report's messages-over-time titles ran off both edges.
func TestTitlesFit(t *testing.T) {
	title := "sweep, scenario balanced, central at load 10% (mean of 2 runs): messages over time"
	xs := []float64{0, 1, 2}
	d, err := Lines(title, "time (h)", "messages per 500 s", [][]float64{xs, xs},
		[]Series{{Label: "NotifyBroker", Values: []float64{1, 2, 3}}, {Label: "JobDataExchange", Values: []float64{3, 2, 1}}}, 0)
	if err != nil {
		t.Fatal(err)
	}
	lines, left, right := titleLines(t, d, Width, Height)
	if len(lines) == 0 || strings.Join(lines, " ") != title {
		t.Fatalf("title drawn as %q", lines)
	}
	for i := range lines {
		if left[i] < Margin || right[i] > Width-Margin {
			t.Errorf("title line %q drawn from %.1f to %.1f pt, off the figure (width %.0f pt, margin %.0f)", lines[i], left[i], right[i], Width, Margin)
		}
	}
	for _, p := range d.Problems() {
		t.Error(p)
	}
	// A title that cannot be wrapped (one word) is a problem the checks report.
	d, err = Lines(strings.Repeat("x", 200), "t", "y", [][]float64{xs}, []Series{{Label: "a", Values: xs}}, 0)
	if err != nil {
		t.Fatal(err)
	}
	if p := strings.Join(d.Problems(), "; "); !strings.Contains(p, "the title") {
		t.Errorf("an unwrappable title passes the checks: %q", p)
	}
}

// An axis of one value, 0 (every wait zero), shows no negative half: it
// was drawn from −0.5 to 0.5.
func TestAllZeroAxes(t *testing.T) {
	zeros := []Series{{Label: "R1", Values: []float64{0, 0, 0}}}
	x := []float64{1, 2, 3}
	for _, c := range []struct {
		name string
		draw func() (*Drawing, error)
		ax   func(*Drawing) *plot.Axis
	}{
		{"CDF of waits", func() (*Drawing, error) { return CDF("c", "wait (s)", zeros, true) }, func(d *Drawing) *plot.Axis { return &d.plot.X }},
		{"box of waits", func() (*Drawing, error) { return Box("b", "wait (s)", zeros, []float64{0}) }, func(d *Drawing) *plot.Axis { return &d.plot.Y }},
		{"waits in arrival order", func() (*Drawing, error) { return Lines("l", "job", "wait (s)", [][]float64{x}, zeros, 0) }, func(d *Drawing) *plot.Axis { return &d.plot.Y }},
		{"bars of zero", func() (*Drawing, error) { return Bars("b", "jobs", []string{"a", "b"}, []float64{0, 0}, 0) }, func(d *Drawing) *plot.Axis { return &d.plot.Y }},
	} {
		t.Run(c.name, func(t *testing.T) {
			d, err := c.draw()
			if err != nil {
				t.Fatal(err)
			}
			ax := c.ax(d)
			if ax.Min < -0.05 || ax.Max < 1 {
				t.Errorf("axis [%g, %g]: want it from about 0 to at least 1", ax.Min, ax.Max)
			}
			for _, l := range labels(ax) {
				if strings.HasPrefix(l, "-") {
					t.Errorf("a negative tick %q on an axis of zeros", l)
				}
			}
			for _, p := range d.Problems() {
				t.Error(p)
			}
		})
	}
}

// roundStep tells whether step is 1, 2, 2.5 or 5 times a power of ten.
func roundStep(step float64) bool {
	if !(step > 0) {
		return false
	}
	m := step / math.Pow(10, math.Floor(math.Log10(step)+1e-9))
	for _, r := range []float64{1, 2, 2.5, 5, 10} {
		if math.Abs(m-r) < 1e-6 {
			return true
		}
	}
	return false
}

// roundTicks says what is not round about tick labels: they must be
// evenly spaced by a round step (roundStep), each a multiple of it.
func roundTicks(labels []string) string {
	var v []float64
	for _, l := range labels {
		x, err := strconv.ParseFloat(strings.ReplaceAll(l, ",", ""), 64)
		if err != nil {
			return fmt.Sprintf("label %q is not a number", l)
		}
		v = append(v, x)
	}
	if len(v) < 2 {
		return "fewer than two labels"
	}
	step := v[1] - v[0]
	if !roundStep(step) {
		return fmt.Sprintf("a step of %g", step)
	}
	for i, x := range v {
		if i > 0 && math.Abs(x-v[i-1]-step) > 1e-6*step {
			return fmt.Sprintf("uneven steps (%g after %g)", x, v[i-1])
		}
		if r := x / step; math.Abs(r-math.Round(r)) > 1e-6 {
			return fmt.Sprintf("%g is not a multiple of the step %g", x, step)
		}
	}
	return ""
}

// A histogram's axis is marked at round values (its bins were labelled at
// their edges: 2.86, 5.73, …) and its bins have a round width.
func TestHistogramTicksRound(t *testing.T) {
	for _, c := range []struct {
		name     string
		up, down []float64
	}{
		{"quickstart waits", append(slices.Repeat([]float64{0}, 40), slices.Repeat([]float64{17.18}, 8)...), []float64{0, 0, 0, 0}},
		{"spread", []float64{3.3, 8.1, 19.7, 44.4, 61.2, 95.5, 130}, []float64{12.5, 33.3, 77.7}},
		{"one value", []float64{5, 5}, []float64{5}},
		{"large", []float64{1234, 56789, 98765}, []float64{4321, 87654}},
	} {
		t.Run(c.name, func(t *testing.T) {
			d, err := BiHistogram("h", "wait (s)", Series{Label: "a", Values: c.up}, Series{Label: "b", Values: c.down})
			if err != nil {
				t.Fatal(err)
			}
			got := labels(&d.plot.X)
			if len(got) < MinTicks {
				t.Errorf("x ticks %q", got)
			}
			if why := roundTicks(got); why != "" {
				t.Errorf("x ticks %q not at round values: %s", got, why)
			}
			width := "none"
			if m := regexp.MustCompile(`bins? of (\S+) from`).FindStringSubmatch(d.Note); m != nil {
				width = strings.ReplaceAll(m[1], ",", "")
			}
			w, err := strconv.ParseFloat(width, 64)
			if err != nil || !roundStep(w) {
				t.Errorf("note %q: the bins' width (%s) is not round", d.Note, width)
			}
			// The data are each bin's middle, in the values' unit, and its
			// count (the bars were at category positions 0, 1, 2 …).
			var b bytes.Buffer
			if err := d.WriteCSV(&b); err != nil {
				t.Fatal(err)
			}
			rows, _ := csv.NewReader(&b).ReadAll()
			up := 0.0
			for _, r := range rows[1:] {
				x, _ := strconv.ParseFloat(r[1], 64)
				y, _ := strconv.ParseFloat(r[2], 64)
				if k := x/w - 0.5; math.Abs(k-math.Round(k)) > 1e-6 {
					t.Errorf("row %q: x = %g is not the middle of a bin of %g", r, x, w)
				}
				if strings.HasPrefix(r[0], "a ") {
					up += y
				}
			}
			all := slices.Sorted(slices.Values(append(slices.Clone(c.up), c.down...)))
			p99 := all[int(0.99*float64(len(all)-1))]
			want := 0
			for _, v := range c.up {
				if v <= p99 {
					want++
				}
			}
			if up != float64(want) {
				t.Errorf("the upward bins hold %g jobs, want %d (those up to the 99th percentile, %g)", up, want, p99)
			}
			for _, p := range d.Problems() {
				t.Error(p)
			}
		})
	}
}

// Ten series (the deadline studies' lines) get ten colours: the palette
// had eight, and the ninth and tenth series took the first two again.
func TestTenSeriesTenColours(t *testing.T) {
	var series []Points
	var lines []Series
	var xs [][]float64
	for i := range 10 {
		series = append(series, Points{Label: fmt.Sprint("line ", i), X: []float64{1, 2}, Y: []float64{float64(i), float64(i + 1)},
			Lo: []float64{math.NaN(), math.NaN()}, Hi: []float64{math.NaN(), math.NaN()}})
		lines = append(lines, Series{Label: fmt.Sprint("line ", i), Values: []float64{float64(i), float64(i + 1)}})
		xs = append(xs, []float64{1, 2})
	}
	el, err := ErrorLines("e", "x", "y", series)
	if err != nil {
		t.Fatal(err)
	}
	ln, err := Lines("l", "x", "y", xs, lines, 0)
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range []*Drawing{el, ln} {
		seen := map[color.RGBA]int{}
		for i, it := range d.plot.items {
			l, ok := it.(*plotter.Line)
			if !ok {
				continue
			}
			r, g, b, a := l.Color.RGBA()
			c := color.RGBA{R: uint8(r >> 8), G: uint8(g >> 8), B: uint8(b >> 8), A: uint8(a >> 8)}
			if j, dup := seen[c]; dup {
				t.Errorf("%s: lines %d and %d in one colour %v", d.Title, j, i, c)
			}
			seen[c] = i
		}
		if len(seen) != 10 {
			t.Errorf("%s: %d colours for 10 lines", d.Title, len(seen))
		}
	}
}

// An axis's labels group thousands one way: "5000" stood beside "10,000"
// on the throughput axis.
func TestThousandsOneWay(t *testing.T) {
	xs := []float64{0, 1, 2, 3}
	d, err := Lines("throughput", "minutes", "jobs per hour", [][]float64{xs}, []Series{{Label: "R1", Values: []float64{0, 5000, 11000, 17000}}}, 0)
	if err != nil {
		t.Fatal(err)
	}
	got := labels(&d.plot.Y)
	if !slices.Contains(got, "5,000") || !slices.Contains(got, "10,000") {
		t.Errorf("y ticks %q", got)
	}
	for _, l := range got {
		if v, err := strconv.ParseFloat(l, 64); err == nil && v >= 1000 {
			t.Errorf("y tick %q without its thousands separator (ticks %q)", l, got)
		}
	}
}

// An SVG names a generic family after Liberation Sans, so that a viewer
// without it draws a sans-serif, not its default serif.
func TestSVGFontFallback(t *testing.T) {
	d, err := Bars("b", "jobs", []string{"a"}, []float64{1}, 0)
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := d.Render(&b, "svg"); err != nil {
		t.Fatal(err)
	}
	families := regexp.MustCompile(`font-family:([^;"]+)`).FindAllStringSubmatch(b.String(), -1)
	if len(families) == 0 {
		t.Fatal("no font-family in the SVG")
	}
	for _, f := range families {
		if !strings.HasSuffix(f[1], ",sans-serif") || !strings.Contains(f[1], "Liberation Sans") {
			t.Errorf("font-family %q: no generic fallback", f[1])
		}
	}
	if got := string(SVGFonts([]byte(`<text style="font-family:DejaVu Sans Mono;font-size:9px">a</text>`))); got != `<text style="font-family:'DejaVu Sans Mono',monospace;font-size:9px">a</text>` {
		t.Errorf("monospace: %s", got)
	}
}
