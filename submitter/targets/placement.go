package targets

import (
	"fmt"
	"io"
	"strings"

	"github.com/gmark/gmark/koala/grid"
	"github.com/gmark/gmark/koala/placement"
	"github.com/gmark/gmark/workload"
)

// WarnPlacement writes to w, before a run of a workload on the bundled
// core of grid g starts, what the run's placement policy cannot do with
// it: nothing to act on (placement.NothingToActOn: a comparison with
// another policy would show no difference), or jobs that read files no
// site of g holds, which no policy can place. policy "" is the grid's; a
// nil g (no bundled core) writes nothing.
func WarnPlacement(w io.Writer, g *grid.Grid, policy string, scope workload.PlacementScope, files []string) {
	if g == nil {
		return
	}
	if policy == "" {
		policy = g.Scheduler.Policy
	}
	if why := placement.NothingToActOn(policy, scope); why != "" {
		name, _ := placement.Canonical(policy)
		fmt.Fprintf(w, "warning: policy %s has nothing to act on: %s\n", name, why)
	}
	if missing := placement.Unreplicated(files, g.Replicas); len(missing) > 0 {
		const most = 5
		names := strings.Join(missing[:min(len(missing), most)], ", ")
		if len(missing) > most {
			names += fmt.Sprintf(" and %d more", len(missing)-most)
		}
		fmt.Fprintf(w, "warning: grid %s holds no replica of %s, which jobs read: no policy can place those jobs "+
			"(a [[file]] table of the grid names the sites that hold a file)\n", g.Name, names)
	}
}
