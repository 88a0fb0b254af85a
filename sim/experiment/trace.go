package experiment

import (
	"context"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/gmark/gmark/generator"
	"github.com/gmark/gmark/sim/topology"
	"github.com/gmark/gmark/wdl"
	"github.com/gmark/gmark/workload"
)

// traceUnit is the part of a trace one grid replays (all of it, and every
// grid, without a site map).
type traceUnit struct {
	grid   int      // topology index of the grid's root; -1 for all grids
	sites  []string // trace sites of the grid, sorted
	target float64  // percent
	procs  int
}

// traceSource replays a trace (the generator's wl:trace) at the run's
// load: each grid's jobs (those of the trace sites mapped into it) with
// their submit times scaled so that their offered load is the grid's
// target, measured in a first pass over the trace as it is; at the level
// AsRecorded, unscaled (no first pass, but with --scale below 1, which
// needs the span). With --scale below 1, each grid's replay stops at that
// fraction of its span.
func traceSource(ctx context.Context, top *topology.Topology, w *RunWorkload) (*stream, error) {
	units := traceUnits(top, w)
	if len(units) == 0 {
		return nil, fmt.Errorf("trace %s: no trace site maps to a node of the topology", w.Trace)
	}
	ones := make([]float64, len(units))
	for i := range ones {
		ones[i] = 1
	}
	asRecorded := units[0].target == AsRecorded // every grid then (fixed_load and load_scale are refused with it)
	if asRecorded && w.Scale >= 1 {
		g, err := traceGenerator(w, units, ones)
		if err != nil {
			return nil, err
		}
		return newStream(ctx, g, func(*workload.Job) bool { return true }, top), nil
	}
	g, err := traceGenerator(w, units, ones)
	if err != nil {
		return nil, err
	}
	work, first, last := make([]float64, len(units)), make([]float64, len(units)), make([]float64, len(units))
	jobs := make([]int, len(units))
	if _, err := g.Generate(func(j *workload.Job) error {
		// The span is of the set of jobs: the earliest and latest
		// submissions, in whatever order the replay gives them.
		u, t := j.Unit-1, j.Submit.Seconds()
		if jobs[u] == 0 || t < first[u] {
			first[u] = t
		}
		if jobs[u] == 0 || t > last[u] {
			last[u] = t
		}
		jobs[u]++
		work[u] += workOf(j)
		return ctx.Err()
	}); err != nil {
		return nil, fmt.Errorf("trace %s: %w", w.Trace, err)
	}
	scales, cutoffs := make([]float64, len(units)), make([]float64, len(units))
	for i, u := range units {
		natural := offered(work[i], u.procs, last[i]-first[i])
		if asRecorded {
			scales[i], cutoffs[i] = 1, first[i]+w.Scale*(last[i]-first[i])
			continue
		}
		if jobs[i] < 2 || !(natural > 0) {
			return nil, fmt.Errorf("trace %s: the jobs of %s (%d) span no time or no work: they cannot be scaled to a load", w.Trace, unitName(top, u), jobs[i])
		}
		scales[i] = natural / u.target
		cutoffs[i] = (first[i] + w.Scale*(last[i]-first[i])) * scales[i]
	}
	if g, err = traceGenerator(w, units, scales); err != nil {
		return nil, err
	}
	// The replay's times are whole milliseconds (wdl.Limit.Duration rounds
	// them), so the job at the cut may lie up to half a millisecond past it.
	keep := func(j *workload.Job) bool { return j.Submit.Seconds() <= cutoffs[j.Unit-1]*(1+1e-12)+0.0005 }
	return newStream(ctx, g, keep, top), nil
}

func unitName(top *topology.Topology, u traceUnit) string {
	if u.grid < 0 {
		return "the trace"
	}
	return "grid " + top.Nodes[u.grid].Name
}

// traceUnits splits the trace by grid: with a site map, each grid with
// sites mapped into it replays those; without one, the whole trace goes to
// every cluster (the simulator draws a home cluster by size), at the load
// of the whole system.
func traceUnits(top *topology.Topology, w *RunWorkload) []traceUnit {
	targets := gridTargets(top, w.ClusterLoads)
	if len(w.Sites) == 0 {
		sum := 0.0
		for _, t := range targets {
			sum += t
		}
		return []traceUnit{{grid: -1, target: sum / float64(len(targets)), procs: top.Processors()}}
	}
	var units []traceUnit
	g := 0
	for i := range top.Nodes {
		if top.Nodes[i].Parent != -1 {
			continue
		}
		u := traceUnit{grid: i, target: targets[g]}
		g++
		for _, site := range mapKeys(w.Sites) {
			if n, ok := top.Index(w.Sites[site]); ok && top.Nodes[n].Grid == i {
				u.sites = append(u.sites, site)
			}
		}
		for _, c := range top.Subtree(i) {
			u.procs += top.Nodes[c].Processors
		}
		if len(u.sites) > 0 {
			units = append(units, u)
		}
	}
	return units
}

// traceGenerator writes the replay as a spec: one wl:trace unit per
// grid, its sites mapped onto the topology's nodes, its submit times
// scaled.
func traceGenerator(w *RunWorkload, units []traceUnit, scales []float64) (*generator.Generator, error) {
	path, err := filepath.Abs(w.TracePath)
	if err != nil {
		return nil, err
	}
	var b strings.Builder
	b.WriteString("# File-type: text/wl-spec\n# File-version: 1.0\n")
	for i, u := range units {
		opts := []string{"File=" + wdlQuote(path), "SubmitScale=" + strconv.FormatFloat(scales[i], 'g', -1, 64)}
		if w.Format != "" {
			opts = append(opts, "Format="+w.Format)
		}
		if w.From != nil {
			opts = append(opts, fmt.Sprintf("From=%gs", w.From.Seconds()))
		}
		if w.To != nil {
			opts = append(opts, fmt.Sprintf("To=%gs", w.To.Seconds()))
		}
		if len(u.sites) > 0 {
			var m []string
			for _, s := range u.sites {
				m = append(m, s+":"+w.Sites[s])
			}
			opts = append(opts, "TraceSites="+strings.Join(u.sites, ";"), "SiteMap="+strings.Join(m, ";"))
		}
		fmt.Fprintf(&b, "1\twl:trace\tsingle\t1\t*:?\t-\t%s\n", strings.Join(opts, ","))
	}
	spec, err := wdl.Parse("trace-replay.wdl", []byte(b.String()), nil)
	if err != nil {
		return nil, fmt.Errorf("trace %s: %w", w.Trace, err)
	}
	g, err := generator.New(spec, w.Seed)
	if err != nil {
		return nil, fmt.Errorf("trace %s: %w", w.Trace, err)
	}
	return g, nil
}

// wdlQuote quotes a WDL option value.
func wdlQuote(s string) string {
	return `"` + strings.NewReplacer(`\`, `\\`, `"`, `\"`).Replace(s) + `"`
}
