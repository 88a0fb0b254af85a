package generator

import (
	"strings"
	"testing"

	"github.com/gmark/gmark/workload"
)

// The summary (and the manifest) counts what the workload leaves a
// placement policy, and names the files its jobs read.
func TestSummaryPlacementScope(t *testing.T) {
	dir := t.TempDir()
	smallSWF(t, dir)
	for _, c := range []struct {
		other string
		want  workload.PlacementScope
		files string
	}{
		{"File=small.swf,Sites=fs0;fs1", workload.PlacementScope{Jobs: 10}, ""},
		{"File=small.swf,Sites=fs0;fs1,InputFile=d:1GB", workload.PlacementScope{Jobs: 10}, "d"},
		{"File=small.swf", workload.PlacementScope{Jobs: 10, Free: 10}, ""},
		{"File=small.swf,InputFilesWithWeights=b:1GB;a:2GB", workload.PlacementScope{Jobs: 10, Free: 10, Files: 10}, "a b"},
		{"File=small.swf,SiteMap=alpha:fs0,InputFile=d:1GB", workload.PlacementScope{Jobs: 10, Free: 7, Files: 7}, "d"},
	} {
		g, err := New(traceSpec(t, dir, "1", c.other), 1)
		if err != nil {
			t.Fatal(err)
		}
		sum, err := g.Generate(func(*workload.Job) error { return nil })
		if err != nil {
			t.Fatal(err)
		}
		if sum.Placement != c.want || strings.Join(sum.InputFiles, " ") != c.files {
			t.Errorf("%s: %+v %v; want %+v %q", c.other, sum.Placement, sum.InputFiles, c.want, c.files)
		}
	}
}
