package experiment

import (
	"bytes"
	"context"
	"path/filepath"
	"strings"
	"testing"
)

// The offered load of a run, of the whole and by grid; a grid with no
// job credited is "-", not a load of 0.
func TestOfferedText(t *testing.T) {
	for _, tc := range []struct {
		name string
		w    *WorkloadSummary
		want string
	}{
		{"not finished", nil, "-"},
		{"one grid", &WorkloadSummary{OfferedLoad: 69.34, Grids: []GridLoad{{Jobs: 5, OfferedLoad: 69.34}}}, "69.3"},
		{"two grids", &WorkloadSummary{OfferedLoad: 69.34, Grids: []GridLoad{{Jobs: 5, OfferedLoad: 69.4}, {Jobs: 2, OfferedLoad: 69.26}}}, "69.3 (69.4 69.3)"},
		{"no grid credited", &WorkloadSummary{OfferedLoad: 70, Grids: []GridLoad{{}, {}}}, "70.0 (- -)"},
		{"one grid credited", &WorkloadSummary{OfferedLoad: 35, Grids: []GridLoad{{}, {Jobs: 1}}}, "35.0 (- 0.0)"},
		{"no grid", &WorkloadSummary{OfferedLoad: 1}, "1.0"},
	} {
		if got := offeredText(tc.w); got != tc.want {
			t.Errorf("%s: %q, want %q", tc.name, got, tc.want)
		}
	}
}

// A trace without a site map on two grids: the text report says "-" for
// each grid, whose jobs the simulator places.
func TestOfferedTextTraceWithoutSites(t *testing.T) {
	dir := t.TempDir()
	writeTrace(t, dir, 300)
	e := load(t, dir, "name = \"w\"\ntopology = \"das2-g5k\"\narchitectures = [\"cern\"]\nloads = [40]\n[workload]\nkind = \"trace\"\ntrace = \"t.swf\"\n")
	db := filepath.Join(dir, "r.db")
	if _, err := Execute(context.Background(), e, RunOptions{DB: db, Parallel: 1}); err != nil {
		t.Fatal(err)
	}
	rep, err := ReadReport(db, nil)
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := rep.WriteText(&b); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "40.0 (- -)") || strings.Contains(b.String(), "(0.0 0.0)") {
		t.Errorf("the offered load of a trace without sites:\n%s", b.String())
	}
}
