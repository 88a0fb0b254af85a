package plots

import (
	"bytes"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// groupFigures draws the comparison's figures from fixed data: box plots
// per group, and metric against seed or load with intervals, including
// the edges (one point, points without an interval, series of one x).
func groupFigures(t *testing.T) map[string]*Drawing {
	t.Helper()
	nan := math.NaN()
	groups := []Series{{Label: "WF", Values: []float64{0, 3, 5, 8, 13, 40, 41, 300}}, {Label: "CF", Values: []float64{1, 2, 2, 3, 9, 12}},
		{Label: "empty"}, {Label: "FCM", Values: []float64{7}}}
	draws := map[string]func() (*Drawing, error){
		"group_box": func() (*Drawing, error) {
			return GroupBox("wait per policy", "policy", "wait (s)", groups, []float64{51, 4.8, nan, 7})
		},
		"errorlines_seed": func() (*Drawing, error) {
			return ErrorLines("mean wait against the seed", "seed", "mean wait (s)", []Points{
				{Label: "WF", X: []float64{1, 2, 3}, Y: []float64{50.6, 52.7, 50.5}, Lo: []float64{45.2, 45.8, 44.6}, Hi: []float64{56.9, 60.7, 57.2}},
				{Label: "CF", X: []float64{3, 1, 2}, Y: []float64{37.5, 33.3, 34.6}, Lo: []float64{31.5, 27.8, 28.7}, Hi: []float64{44.2, 39.5, 41.4}},
			})
		},
		"errorlines_load": func() (*Drawing, error) {
			return ErrorLines("mean wait against the load", "load (%)", "mean wait (s)", []Points{
				{Label: "WF", X: []float64{27.6, 46.1}, Y: []float64{51, 120}, Lo: []float64{48, nan}, Hi: []float64{54, nan}},
				{Label: "CF", X: []float64{27.8}, Y: []float64{35}, Lo: []float64{30}, Hi: []float64{40}},
			})
		},
		"errorlines_one": func() (*Drawing, error) {
			return ErrorLines("one point", "seed", "mean", []Points{{Label: "R", X: []float64{1}, Y: []float64{5}, Lo: []float64{5}, Hi: []float64{5}}})
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

// The comparison's figures pass the style's checks, keep each group's
// colour (the i-th series in the i-th colour of the palette), and have the
// SVG structure recorded in testdata/svg_groups.json (-update rewrites it).
func TestGroupFigures(t *testing.T) {
	figs := groupFigures(t)
	got := map[string]svgStructure{}
	for name, d := range figs {
		for _, p := range d.Problems() {
			t.Errorf("%s: %s", name, p)
		}
		got[name] = structureOf(t, d)
		var svg bytes.Buffer
		if err := d.Render(&svg, "svg"); err != nil {
			t.Fatal(err)
		}
		for i := range 2 {
			if name != "errorlines_one" && !strings.Contains(strings.ToLower(svg.String()), "stroke:"+Hex(i)) {
				t.Errorf("%s: no series in colour %d (%s)", name, i, Hex(i))
			}
		}
	}
	if n := figs["errorlines_load"].Note; !strings.Contains(n, "1 point without an interval") || strings.Contains(n, "shifted") {
		t.Errorf("errorlines_load note %q", n)
	}
	if n := figs["errorlines_seed"].Note; n != "bars: 95% confidence intervals" {
		t.Errorf("errorlines_seed note %q", n)
	}
	golden := filepath.Join("testdata", "svg_groups.json")
	if *update {
		b, err := json.MarshalIndent(got, "", " ")
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(golden, append(b, '\n'), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	b, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (go test -run GroupFigures -update writes it)", err)
	}
	var want map[string]svgStructure
	if err := json.Unmarshal(b, &want); err != nil {
		t.Fatal(err)
	}
	for name, g := range got {
		w := want[name]
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

// Bad input: no series or only empty ones is no data; lengths that do not
// match are an error; undefined points are left out and counted.
func TestGroupFiguresEdges(t *testing.T) {
	if _, err := GroupBox("t", "g", "y", []Series{{Label: "a"}}, nil); !NoData(err) {
		t.Errorf("empty box: %v", err)
	}
	if _, err := ErrorLines("t", "x", "y", nil); !NoData(err) {
		t.Errorf("no series: %v", err)
	}
	if _, err := ErrorLines("t", "x", "y", []Points{{Label: "a", X: []float64{1}, Y: []float64{1, 2}, Lo: []float64{0}, Hi: []float64{2}}}); err == nil || NoData(err) {
		t.Errorf("lengths: %v", err)
	}
	nan := math.NaN()
	d, err := ErrorLines("t", "x", "y", []Points{{Label: "a", X: []float64{1, nan, 3}, Y: []float64{1, 2, math.Inf(1)}, Lo: []float64{0, 0, 0}, Hi: []float64{2, 3, 4}}})
	if err != nil || !strings.Contains(d.Note, "2 undefined") {
		t.Fatalf("undefined points: %v, note %q", err, d.Note)
	}
	for _, p := range d.Problems() {
		t.Errorf("undefined points: %s", p)
	}
	if _, err := ErrorLines("t", "x", "y", []Points{{Label: "a", X: []float64{nan}, Y: []float64{1}, Lo: []float64{0}, Hi: []float64{2}}}); !NoData(err) {
		t.Errorf("no drawable point: %v", err)
	}
}
