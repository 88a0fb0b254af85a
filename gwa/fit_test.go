package gwa

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/gmark/gmark/internal/testkit"
	"github.com/gmark/gmark/stats"
)

func readFields(t *testing.T, name, text string, o FieldOptions) (map[string][]float64, *Header) {
	t.Helper()
	r, err := NewReader(strings.NewReader(text), ReadOptions{Name: name, Strict: true})
	if err != nil {
		t.Fatal(err)
	}
	var calls []int64
	data, err := ReadFields(r, o, func(n int64) { calls = append(calls, n) })
	if err != nil {
		t.Fatal(err)
	}
	if len(calls) == 0 || calls[len(calls)-1] != int64(strings.Count(text, "\n")-strings.Count(text, ";")) {
		t.Errorf("progress calls %v", calls)
	}
	return data, r.Header()
}

// Each field takes the records' known, non-negative values; the gaps are
// between sorted submit times, within the peak hours of one day when asked.
func TestReadFields(t *testing.T) {
	// Submit times from 1200000000 = 2008-01-10 21:20 UTC: 10 h 40 min to the
	// next midnight; the peak hours 8-17 of the next day start at 38400 + 28800.
	const day2 = 38400
	swf := "; UnixStartTime: 1200000000\n; TimeZoneString: UTC\n" +
		"1 0 10 100 4 50 2000 4 600 -1 1 1 1 -1 -1 1 -1 -1\n" +
		"2 30 -1 -1 -1 -1 -1 2 -1 -1 1 1 1 -1 -1 1 -1 -1\n" +
		fmt.Sprintf("3 %d 0 0 1 -1 -1 1 60 -1 1 1 1 -1 -1 1 -1 -1\n", day2+28800+100) +
		fmt.Sprintf("4 %d 0 8 1 -1 -1 1 60 -1 1 1 1 -1 -1 1 -1 -1\n", day2+28800+200) +
		fmt.Sprintf("5 %d 0 9 1 -1 -1 1 60 -1 1 1 1 -1 -1 1 -1 -1\n", day2+17*3600+10)
	all := FieldOptions{Fields: FitFieldNames(), Delta: 120}
	data, _ := readFields(t, "t.swf", swf, all)
	want := map[string][]float64{
		"runtime":          {100, 0, 8, 9},
		"wait":             {10, 0, 0, 0},
		"size":             {4, 2, 1, 1, 1},
		"cputime":          {50},
		"memory":           {2000},
		"reqtime":          {600, 60, 60, 60},
		"interarrival":     {30, day2 + 28800 + 100 - 30, 100, 17*3600 + 10 - 28800 - 200},
		"bot-size":         {2, 2}, // jobs 1-2 and 3-4: bags of 2 or more only
		"bot-interarrival": {day2 + 28800 + 100},
		"bot-art":          {100, 4},
		"bot-rtv":          {0, 16},
	}
	for field, w := range want {
		got := slices.Clone(data[field])
		slices.Sort(got)
		slices.Sort(w)
		if !slices.Equal(got, w) {
			t.Errorf("%s = %v, want %v", field, data[field], w)
		}
	}
	peak := FieldOptions{Fields: []string{"interarrival"}, Peak: PeakHours{8, 17}}
	if data, _ := readFields(t, "t.swf", swf, peak); !slices.Equal(data["interarrival"], []float64{100}) {
		t.Errorf("peak-hour gaps %v, want [100]", data["interarrival"])
	}
	if data, _ := readFields(t, "t.swf", swf, FieldOptions{Fields: []string{"runtime"}}); len(data) != 1 {
		t.Errorf("asked for the run time only, got %v", data)
	}
}

func TestPeakFilterUsesTheTraceTimeZone(t *testing.T) {
	h := &Header{UnixStartTime: 1200000000, TimeZone: "Europe/Amsterdam"} // 22:20 there
	p := newPeakFilter(h, PeakHours{22, 24})
	cases := []struct {
		a, b float64
		keep bool
	}{
		{0, 600, true},       // 22:20 and 22:30
		{0, 6000, false},     // 22:20 and 00:00 the next day
		{-3600, 600, false},  // 21:20 is before the peak
		{3000, 3500, true},   // 23:10 and 23:18
		{86400, 86401, true}, // the next day at 22:20
	}
	for _, c := range cases {
		if got := p.keep(c.a, c.b); got != c.keep {
			t.Errorf("keep(%g, %g) = %v, want %v", c.a, c.b, got, c.keep)
		}
	}
	if newPeakFilter(h, PeakHours{}) != nil {
		t.Error("no peak hours gave a filter")
	}
}

func fitSynth(t *testing.T, name string, n int, seed uint64, o FitOptions) *TraceFit {
	t.Helper()
	data, h := readFields(t, name, testkit.SyntheticSWF(n, seed), o.FieldOptions)
	return FitTrace(name, h, data, o)
}

// Two traces: the field one of them lacks is left out with a FieldError,
// the others are fitted in each and selected across them; the report, the
// records and the figures follow.
func TestFitTraces(t *testing.T) {
	o := FitOptions{FieldOptions: FieldOptions{Fields: []string{"runtime", "memory", "interarrival"}},
		Families: []string{"W", "LogNorm", "Gamma"}, Stats: stats.FitOptions{Log2: true}}
	a, b := fitSynth(t, "dir/a.swf", 3000, 1, o), fitSynth(t, "b.swf.gz", 2000, 2, o)
	res, skipped, err := CombineFits([]*TraceFit{a, b}, o)
	if err != nil {
		t.Fatal(err)
	}
	if len(skipped) != 2 || skipped[0].Error() != "dir/a.swf: memory: no values (the trace does not record memory)" {
		t.Errorf("skipped %v", skipped)
	}
	if !slices.Equal(res.Options.Fields, []string{"runtime", "interarrival"}) || len(res.Selection) != 2 || res.SelectionErrors() != nil {
		t.Fatalf("fields %v, selection %v, errors %v", res.Options.Fields, res.Selection, res.SelectionErrors())
	}
	if s := res.Selection["runtime"]; s.Family != "W" || math.Abs(s.Params[0]-2.5) > 0.2 {
		t.Errorf("runtime across the traces: %s", s.Describe())
	}
	var text bytes.Buffer
	res.WriteText(&text)
	for _, want := range []string{"a.swf: runtime, run time (s), fitted on log2\n  3000 values, 32 at or below the floor (1.07%, kept apart)",
		"  * W ", "best: W (lowest KS distance D", "runtime across 2 traces", "average system: W shape="} {
		if !strings.Contains(text.String(), want) {
			t.Errorf("the report lacks %q:\n%s", want, text.String())
		}
	}
	var js bytes.Buffer
	if err := res.WriteJSON(&js); err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Log2   bool `json:"log2"`
		Traces []struct {
			Trace  string `json:"trace"`
			Fields map[string]struct {
				Values int `json:"values"`
				Fits   []struct {
					Family string `json:"family"`
					Best   bool   `json:"best"`
				} `json:"fits"`
			} `json:"fields"`
		} `json:"traces"`
		Selection map[string]stats.FitRecord `json:"average_system"`
	}
	if err := json.Unmarshal(js.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	if !doc.Log2 || len(doc.Traces) != 2 || doc.Traces[1].Fields["runtime"].Values != 2000 || len(doc.Traces[0].Fields["interarrival"].Fits) != 3 || doc.Selection["runtime"].Traces != 2 {
		t.Errorf("JSON %s", js.String())
	}
	recs, err := res.Records()
	if err != nil {
		t.Fatal(err)
	}
	if r := recs["interarrival"]; r.Field != "interarrival" || r.Family != "W" || !slices.Equal(r.Source, []string{"a.swf", "b.swf.gz"}) || r.Traces != 2 {
		t.Errorf("record %+v", r)
	}
	dir := filepath.Join(t.TempDir(), "plots")
	checked := testkit.CheckFigures(t)
	files, err := PlotFits(dir, res)
	if checked() != 4 {
		t.Errorf("%d fit figures checked, want 4", checked())
	}
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"a_runtime.png", "a_runtime.svg", "a_interarrival.png", "a_interarrival.svg", "b_runtime.png", "b_runtime.svg", "b_interarrival.png", "b_interarrival.svg"}
	for i, f := range files {
		if st, err := os.Stat(f); err != nil || st.Size() == 0 || i >= len(want) || filepath.Base(f) != want[i] {
			t.Errorf("figure %s: %v", f, err)
		}
	}
	// Each figure passes the figure checks of plots.
	for _, tf := range res.Traces {
		for _, field := range res.Options.Fields {
			p, err := fitPlot("t", field, fittedValues(tf.Data[field], res.Options.Stats), tf.Fits[field], res.Options.Stats.Log2)
			if err != nil {
				t.Fatal(err)
			}
			for _, msg := range p.ProblemsAt(fitWidth, fitHeight) {
				t.Errorf("%s %s: %s", tf.Path, field, msg)
			}
			// The axis says what the values are and their unit (it said
			// "log2(runtime)").
			if x := p.Plot().X.Label.Text; !strings.HasSuffix(x, " (s)") || !strings.HasPrefix(x, "log₂ of the ") {
				t.Errorf("%s %s: x axis %q, without the field's unit", tf.Path, field, x)
			}
		}
	}
}

// One trace: its best fits are the records; no field at all is an error.
func TestFitOneTrace(t *testing.T) {
	o := FitOptions{FieldOptions: FieldOptions{Fields: []string{"runtime"}}, Families: []string{"W", "N"}}
	tf := fitSynth(t, "a.swf", 500, 3, o)
	res, skipped, err := CombineFits([]*TraceFit{tf}, o)
	if err != nil || skipped != nil || len(res.Selection) != 0 {
		t.Fatalf("%v %v %v", res, skipped, err)
	}
	recs, err := res.Records()
	if err != nil || recs["runtime"].Family != stats.Best(tf.Fits["runtime"]).Family || recs["runtime"].Traces != 0 {
		t.Errorf("records %+v, %v", recs, err)
	}
	o.Fields = []string{"memory"}
	_, skipped, err = CombineFits([]*TraceFit{fitSynth(t, "a.swf", 500, 3, o)}, o)
	if !errors.Is(err, ErrNothingToFit) || len(skipped) != 1 {
		t.Errorf("no field: %v, %v", skipped, err)
	}
}
