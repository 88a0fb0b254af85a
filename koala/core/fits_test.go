package core

import (
	"strings"
	"testing"

	"github.com/gmark/gmark/koala/grid"
	"github.com/gmark/gmark/workload"
)

// Fits says why a job can never run on a grid, as Submit refuses it; a
// cluster whose size is not known yet takes any job.
func TestFits(t *testing.T) {
	g := &grid.Grid{Clusters: []grid.Cluster{{Name: "a", Processors: 8}, {Name: "b", Processors: 4}}}
	comp := func(site string, n int) workload.Component { return workload.Component{Site: site, Count: n} }
	for _, tc := range []struct {
		name  string
		sites workload.SiteType
		comps []workload.Component
		want  string
	}{
		{"fits", workload.Unordered, []workload.Component{comp("*", 8), comp("b", 4)}, ""},
		{"unknown site", workload.Ordered, []workload.Component{comp("c", 1)}, `unknown site "c" (sites: [a b])`},
		{"too large for its site", workload.Ordered, []workload.Component{comp("b", 5)}, "cannot fit site b (4 processors)"},
		{"fits no site", workload.Unordered, []workload.Component{comp("*", 9)}, "fits no site (the largest has 8)"},
		{"flexible spreads", workload.Flexible, []workload.Component{comp("*", 12)}, ""},
		{"larger than the grid", workload.Flexible, []workload.Component{comp("*", 13)}, "asks for 13 processors; the grid has 12"},
		{"no components", workload.Unordered, nil, ""},
	} {
		err := Fits(g, &workload.Job{ID: "j", SiteType: tc.sites, Components: tc.comps})
		if tc.want == "" && err != nil || tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)) {
			t.Errorf("%s: %v, want %q", tc.name, err, tc.want)
		}
	}
	unknown := &grid.Grid{Clusters: []grid.Cluster{{Name: "s", Processors: 0}}}
	if err := Fits(unknown, &workload.Job{Components: []workload.Component{comp("s", 1000)}}); err != nil {
		t.Errorf("a cluster of unknown size: %v", err)
	}
}
