package report_test

import (
	"bytes"
	"context"
	"encoding/json"
	"math"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gmark/gmark/analyzer/report"
	"github.com/gmark/gmark/analyzer/report/reporttest"
	"github.com/gmark/gmark/analyzer/store"
)

type nullsDoc struct {
	Nulls []report.Null `json:"nulls"`
}

func reasons(t *testing.T, b []byte) map[string]string {
	t.Helper()
	var d nullsDoc
	if err := json.Unmarshal(b, &d); err != nil {
		t.Fatalf("%v:\n%s", err, b)
	}
	m := map[string]string{}
	for _, n := range d.Nulls {
		m[n.Path] = n.Reason
	}
	return m
}

// The JSON form never carries NaN or Inf (encoding/json
// fails on them); each is null, listed in "nulls" with the reason.
func TestMarshalJSONNulls(t *testing.T) {
	type inner struct {
		X  float64    `json:"x"`
		CI [2]float64 `json:"ci"`
	}
	type doc struct {
		S     string  `json:"s"`
		F     float64 `json:"f"`
		G     float64 `json:"-"`
		In    *inner  `json:"in"`
		List  []inner `json:"list"`
		inner         // its fields are promoted
	}
	nan, inf := math.NaN(), math.Inf(1)
	cases := []struct {
		name string
		v    any
		want string            // the encoding contains it
		nuls map[string]string // path → the start of its reason
	}{
		{"finite", &doc{S: "a", F: 1}, `"f": 1`, map[string]string{}},
		{"NaN and infinities", &doc{F: nan, In: &inner{X: inf, CI: [2]float64{math.Inf(-1), 2}}, List: []inner{{X: nan}}}, `"f": null`,
			map[string]string{"f": "NaN: undefined", "in.x": "+Inf: infinite", "in.ci[0]": "-Inf: infinite", "list[0].x": "NaN: undefined"}},
		{"a struct by value", doc{F: nan}, `"f": null`, map[string]string{"f": "NaN"}},
		// The stand-in number of the encoder, inside a string, stays.
		{"the stand-in in a string", &doc{S: "-1.234567890123e+300", F: nan}, `"s": "-1.234567890123e+300"`, map[string]string{"f": "NaN"}},
		{"the stand-in as a number", &doc{F: -1.234567890123e300, In: &inner{X: nan}}, `"f": -1.234567890123e+300`, map[string]string{"in.x": "NaN"}},
		{"not an object", []float64{1, nan}, `null`, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			b, err := report.MarshalJSON(c.v)
			if err != nil {
				t.Fatal(err)
			}
			if !json.Valid(b) || !strings.Contains(string(b), c.want) {
				t.Fatalf("want %s in:\n%s", c.want, b)
			}
			if c.nuls == nil {
				return
			}
			got := reasons(t, b)
			if len(got) != len(c.nuls) {
				t.Errorf("nulls %v, want %v", got, c.nuls)
			}
			for p, r := range c.nuls {
				if !strings.HasPrefix(got[p], r) {
					t.Errorf("null %s: %q, want %q…", p, got[p], r)
				}
			}
		})
	}
	// A NaN MarshalJSON cannot replace is an error, not a NaN written.
	if b, err := report.MarshalJSON(&doc{inner: inner{X: nan}}); err == nil {
		t.Errorf("NaN in an unexported embedded struct: no error:\n%s", b)
	}
	// v keeps its numbers.
	d := &doc{F: nan, In: &inner{X: inf}}
	if _, err := report.MarshalJSON(d); err != nil || !math.IsNaN(d.F) || !math.IsInf(d.In.X, 1) {
		t.Errorf("MarshalJSON changed its argument: %+v %+v (%v)", d, d.In, err)
	}
}

// A report of a run with no jobs and of a run whose system size is unknown:
// the nulls say why, in the metrics' own words.
func TestReportJSONNullReasons(t *testing.T) {
	db := filepath.Join(t.TempDir(), "r.db")
	reporttest.WriteRuns(t, db, reporttest.Run{ID: "empty", Ended: true},
		reporttest.Run{ID: "nosize", Ended: true, TargetConfig: "{}", Jobs: reporttest.Jobs(12, store.Succeeded, reporttest.Constant(1), reporttest.Constant(2))})
	rep, err := report.Build(context.Background(), db, nil, report.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := rep.WriteJSON(&b); err != nil {
		t.Fatal(err)
	}
	got := reasons(t, b.Bytes())
	for p, want := range map[string]string{
		"runs[0].metrics.wait_s":           "no values (n = 0)",
		"runs[0].metrics.success_rate":     "NaN: the run has no jobs",
		"runs[0].metrics.throughput_per_h": "NaN: the run has no jobs",
		"runs[0].metrics.makespan_s":       "NaN: the run has no jobs",
		"runs[1].metrics.utilization":      "NaN: the system size is unknown: pass --processors N",
	} {
		if !strings.HasPrefix(got[p], want) {
			t.Errorf("null %s: %q, want %q", p, got[p], want)
		}
	}
	if _, ok := got["runs[0].metrics.wait_s.mean"]; ok {
		t.Error("an empty summary's statistics are listed one by one")
	}
	if !math.IsNaN(rep.Runs[0].Metrics.SuccessRate) {
		t.Error("WriteJSON changed the report")
	}
}
