package plots

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"flag"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
)

var update = flag.Bool("update", false, "rewrite testdata/svg_structure.json from the figures drawn")

// fixedFigures draws every kind of figure from fixed data (a seeded
// generator): the report's figures with several runs, and the edges that
// used to cut bars or squeeze ticks (one bar, bars at both ends, a Pareto
// chart of many sites, a narrow range, zeros on a log axis, negatives).
func fixedFigures(t *testing.T) map[string]*Drawing {
	t.Helper()
	rng := rand.New(rand.NewPCG(18, 1))
	sample := func(n int, scale float64, zeros int) []float64 {
		v := make([]float64, n)
		for i := range v {
			if i >= zeros {
				v[i] = scale * rng.ExpFloat64()
			}
		}
		return v
	}
	wf, cf := sample(400, 300, 120), sample(300, 60, 0)
	runs := []Series{{Label: "WF", Values: wf}, {Label: "CF", Values: cf}, {Label: "one", Values: []float64{42}}}
	sites := make([]string, 60)
	counts := make([]int, 60)
	for i := range sites {
		sites[i], counts[i] = fmt.Sprintf("site%02d", i), 1000/(i+1)
	}
	ts := make([]float64, 100)
	util, tput := make([]float64, 100), make([]float64, 100)
	for i := range ts {
		ts[i] = float64(i) * 36
		util[i] = 100 * (0.5 + 0.5*math.Sin(float64(i)/10))
		tput[i] = 50 + 10*rng.Float64()
	}
	draws := map[string]func() (*Drawing, error){
		"cdf_log": func() (*Drawing, error) { return CDF("CDF of the wait", "wait (s)", runs, true) },
		"cdf_linear": func() (*Drawing, error) {
			return CDF("CDF", "wait (s)", []Series{{Label: "R", Values: []float64{1, 2, 3, 4.5}}}, true)
		},
		"box": func() (*Drawing, error) { return Box("Wait per run", "wait (s)", runs, []float64{180, 60, 42}) },
		"xbar": func() (*Drawing, error) {
			return XBar("X-bar", "mean delay (ms)", []string{"a", "b", "c", "d"}, []float64{1.2, 1.5, 0.9, 1.4}, 1.25, 0.1, "")
		},
		"scatter": func() (*Drawing, error) { return Scatter("wait vs run", "run (s)", "wait (s)", cf, wf[:300]) },
		"scatter_binned": func() (*Drawing, error) {
			x := sample(6000, 100, 0)
			return Scatter("binned", "run (s)", "wait (s)", x, sample(6000, 10, 500))
		},
		"pareto_few":  func() (*Drawing, error) { return Pareto("jobs per site", sites[:5], []int{50, 30, 10, 7, 3}) },
		"pareto_many": func() (*Drawing, error) { return Pareto("jobs per site", sites, counts) },
		"bihist":      func() (*Drawing, error) { return BiHistogram("wait by type", "wait (s)", runs[0], runs[1]) },
		"lines": func() (*Drawing, error) {
			return Lines("utilization", "time (s)", "utilization (%)", [][]float64{ts, ts}, []Series{{Label: "WF", Values: util}, {Label: "CF", Values: tput}}, 0)
		},
		"lines_narrow": func() (*Drawing, error) {
			return Lines("narrow", "time (s)", "jobs/h", [][]float64{ts[:3]}, []Series{{Label: "R", Values: []float64{10, 10.01, 10.02}}}, 10)
		},
		"bars_one": func() (*Drawing, error) {
			return Bars("success", "successful jobs (%)", []string{"R"}, []float64{97}, 100)
		},
		"bars": func() (*Drawing, error) {
			return Bars("success", "successful jobs (%)", []string{"a", "b", "c"}, []float64{97, 100, 12}, 100)
		},
		"stacked": func() (*Drawing, error) {
			return Stacked("phases", "s", []string{"a", "b"}, []Series{{Label: "wait", Values: []float64{3, 4}}, {Label: "run", Values: []float64{10, 2}}})
		},
		"grouped": func() (*Drawing, error) {
			return Grouped("jobs per site", "site", "jobs", []string{"A", "B", "C"}, []Series{{Label: "s", Values: []float64{17, 16, 17}}, {Label: "p", Values: []float64{22, 5, 9}}})
		},
		"grouped_undefined_series": func() (*Drawing, error) {
			nan := math.NaN()
			return Grouped("mean per user", "user", "mean (s)", []string{"A", "B"}, []Series{{Label: "wait", Values: []float64{nan, nan}}, {Label: "run", Values: []float64{40, 9}}})
		},
		"cdf_curves_split": func() (*Drawing, error) {
			return CDFCurves("CDF of the wait", "wait (s)", []Curve{
				{Label: "A", X: []float64{0, 3, 40, 900}, P: []float64{0.6, 0.7, 0.9, 1}},
				{Label: "B", X: []float64{0, 10, 5000}, P: []float64{0.2, 0.5, 1}},
				{Label: "C", X: []float64{2, 20}, P: []float64{0.5, 1}},
			}, true)
		},
		"builder_bars": func() (*Drawing, error) {
			b := NewBuilder("custom", "user", "jobs")
			bc, err := plotter.NewBarChart(plotter.Values{5, 9, 2}, 20)
			if err != nil {
				return nil, err
			}
			b.Add(bc)
			b.Plot().NominalX("u1", "u2", "u3")
			return b.Done(""), nil
		},
		"negatives": func() (*Drawing, error) {
			return Lines("delta", "run", "change (s)", [][]float64{{0, 1, 2}}, []Series{{Label: "R", Values: []float64{-5, 0, 3}}}, -5)
		},
	}
	out := map[string]*Drawing{}
	for name, draw := range draws {
		d, err := draw()
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		out[name] = d
	}
	return out
}

// Every figure passes the style's checks: no data on or past the plot
// area's edge, enough ticks, the legend clear of the data, the title off
// the edge.
func TestFigureChecks(t *testing.T) {
	for name, d := range fixedFigures(t) {
		for _, p := range d.Problems() {
			t.Errorf("%s: %s", name, p)
		}
	}
}

// The checks catch what they are for: a figure left as gonum draws it
// (unpadded, default ticks, the legend over the data) fails them.
func TestFigureChecksFail(t *testing.T) {
	d, err := Pareto("jobs per site", []string{"a", "b", "c"}, []int{5, 3, 1})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name  string
		spoil func(*Drawing)
		want  string
	}{
		{"unpadded", func(d *Drawing) { d.plot.X.Min, d.plot.X.Max = 0, 2 }, "on or beyond the x axis's range"},
		{"data past the top", func(d *Drawing) { d.plot.Y.Max = 50 }, "on or beyond the y axis's range"},
		{"few ticks", func(d *Drawing) {
			d.plot.Y.Tick.Marker = plot.TickerFunc(func(float64, float64) []plot.Tick {
				return []plot.Tick{{Value: 0, Label: "0"}, {Value: 100, Label: "100"}}
			})
		}, "2 labelled ticks"},
		{"log axis without its decades", func(d *Drawing) {
			// The Pareto's cumulative line starts at 0: a log axis of
			// other data (gonum cannot place 0 on one).
			l, err := Lines("l", "x", "y", [][]float64{{0, 1, 2}}, []Series{{Label: "s", Values: []float64{2, 20, 200}}}, 1)
			if err != nil {
				t.Fatal(err)
			}
			*d = *l
			d.plot.Y.Scale, d.plot.Y.Min, d.plot.Y.Max = plot.LogScale{}, 1, 1e4
			d.plot.Y.Tick.Marker = LogTicksEvery100{}
		}, "labelled ticks on a log axis spanning 5 powers of ten"},
		{"a legend taller than the figure", func(d *Drawing) {
			for i := range 60 {
				d.plot.Legend.Add(fmt.Sprint("entry ", i))
			}
		}, "does not fit its area"},
		{"the title on the edge", func(d *Drawing) { d.plot.Title.Text = "" }, ""},
	} {
		cp := *d.plot.Plot
		cp.Legend = plot.NewLegend()
		f := &Drawing{Title: d.Title, plot: &figure{Plot: &cp, items: d.plot.items}}
		c.spoil(f)
		got := strings.Join(f.Problems(), "\n")
		if c.want == "" { // a spoiling the checks must not mind
			if got != "" {
				t.Errorf("%s: %s", c.name, got)
			}
			continue
		}
		if !strings.Contains(got, c.want) {
			t.Errorf("%s: problems %q, want one with %q", c.name, got, c.want)
		}
	}
}

// svgStructure is what a figure's SVG holds, not its bytes: the number of
// elements of each kind and every text drawn (title, labels, ticks, legend).
type svgStructure struct {
	Elements map[string]int `json:"elements"`
	Texts    []string       `json:"texts"`
}

func structureOf(t *testing.T, d *Drawing) svgStructure {
	t.Helper()
	var b bytes.Buffer
	if err := d.Render(&b, "svg"); err != nil {
		t.Fatal(err)
	}
	s := svgStructure{Elements: map[string]int{}}
	dec := xml.NewDecoder(&b)
	inText := false
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("%s: the SVG does not parse: %v", d.Title, err)
		}
		switch e := tok.(type) {
		case xml.StartElement:
			s.Elements[e.Name.Local]++
			inText = e.Name.Local == "text"
		case xml.EndElement:
			inText = false
		case xml.CharData:
			if txt := strings.TrimSpace(string(e)); inText && txt != "" {
				s.Texts = append(s.Texts, txt)
			}
		}
	}
	slices.Sort(s.Texts)
	return s
}

// The SVG of each fixed figure has the structure recorded in
// testdata/svg_structure.json (go test -run SVGStructure -update rewrites
// it after a deliberate change of style).
func TestSVGStructure(t *testing.T) {
	got := map[string]svgStructure{}
	for name, d := range fixedFigures(t) {
		got[name] = structureOf(t, d)
		if got[name].Elements["svg"] != 1 || got[name].Elements["path"] == 0 || !slices.Contains(got[name].Texts, d.Title) {
			t.Errorf("%s: %+v", name, got[name])
		}
	}
	golden := filepath.Join("testdata", "svg_structure.json")
	if *update {
		b, err := json.MarshalIndent(got, "", " ")
		if err != nil {
			t.Fatal(err)
		}
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(golden, append(b, '\n'), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	b, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (go test -run SVGStructure -update writes it)", err)
	}
	var want map[string]svgStructure
	if err := json.Unmarshal(b, &want); err != nil {
		t.Fatal(err)
	}
	for name, g := range got {
		w, ok := want[name]
		if !ok {
			t.Errorf("%s: not in %s", name, golden)
			continue
		}
		for el, n := range w.Elements {
			if g.Elements[el] != n {
				t.Errorf("%s: %d <%s> elements, want %d", name, g.Elements[el], el, n)
			}
		}
		if !slices.Equal(g.Texts, w.Texts) {
			t.Errorf("%s: texts\n%q\nwant\n%q", name, g.Texts, w.Texts)
		}
	}
}

// Linear ticks: at least MinTicks labelled, at round values, over ranges
// wide and narrow, negative, tiny, and huge; log ticks label each decade.
func TestTicks(t *testing.T) {
	for _, r := range [][2]float64{{0, 1}, {-0.04, 1.04}, {0, 100}, {0, 104}, {-5.3, 3.3}, {0.9, 2.1}, {10, 10.02},
		{1e-6, 3e-6}, {0, 1e14}, {-1e15, 1e15}, {1e15, 1e15 + 1}, {0, 7}, {0, 3}, {17, 18}} {
		ticks := Ticks{}.Ticks(r[0], r[1])
		n := 0
		for _, tk := range ticks {
			if tk.Value < r[0] || tk.Value > r[1] {
				t.Errorf("%v: tick %g outside", r, tk.Value)
			}
			if tk.Label != "" {
				n++
			}
		}
		if n < MinTicks && r[1]-r[0] > 1e-9*math.Abs(r[0]) {
			t.Errorf("%v: %d labelled ticks", r, n)
		}
	}
	for _, c := range []struct {
		lo, hi float64
		want   []string
		floor  float64
	}{
		{0.05, 1250, []string{"0.1", "1", "10", "100", "1,000"}, 0},
		{0.5, 40, []string{"0.5", "1", "2", "5", "10", "20"}, 0},
		{1, 1e9, []string{"1", "10", "100", "1,000", "10,000", "100,000", "1e6", "1e7", "1e8", "1e9"}, 0},
		{0.05, 200, []string{"≤ 0.1", "1", "10", "100"}, 0.1},
		{0.5, 40, []string{"0.5", "1", "2", "5", "10", "20"}, 0.1}, // the floor off the axis
	} {
		var got []string
		minor := 0
		for _, tk := range (LogTicks{Floor: c.floor}).Ticks(c.lo, c.hi) {
			if tk.Label != "" {
				got = append(got, tk.Label)
			} else {
				minor++
			}
		}
		if !slices.Equal(got, c.want) || minor == 0 {
			t.Errorf("log ticks over [%g, %g]: %q and %d minor, want %q", c.lo, c.hi, got, minor, c.want)
		}
	}
}

// Colours: the Okabe–Ito palette in order, the same series index the same
// colour in every figure, dashes telling the rounds apart.
func TestPalette(t *testing.T) {
	seen := map[string]bool{}
	for i := range Palette {
		k := fmt.Sprint(Color(i))
		if seen[k] {
			t.Errorf("colour %d repeats %s", i, k)
		}
		seen[k] = true
		if Dashes(i) != nil {
			t.Errorf("series %d dashed", i)
		}
	}
	if fmt.Sprint(Color(len(Palette))) != fmt.Sprint(Color(0)) || Dashes(len(Palette)) == nil {
		t.Error("the ninth series is not the first colour, dashed")
	}
	if fmt.Sprint(Color(-1)) == "" {
		t.Error("a negative index has no colour")
	}
}

// PDF renders (for papers).
func TestPDF(t *testing.T) {
	d := fixedFigures(t)["cdf_log"]
	dir := t.TempDir()
	file, err := d.SavePDF(dir, "cdf")
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(dir, file))
	if err != nil || !bytes.HasPrefix(b, []byte("%PDF-")) {
		t.Errorf("%s: %v, %.20q", file, err, b)
	}
}

// LogTicksEvery100 labels every other power of ten only, as a log axis
// must not.
type LogTicksEvery100 struct{}

func (LogTicksEvery100) Ticks(lo, hi float64) []plot.Tick {
	var t []plot.Tick
	for _, tk := range (LogTicks{}).Ticks(lo, hi) {
		if tk.Label != "" && math.Mod(math.Round(math.Log10(tk.Value)), 2) != 0 {
			tk.Label = ""
		}
		t = append(t, tk)
	}
	return t
}
