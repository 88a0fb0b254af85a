// Package xval cross-validates the simulator against the bundled core
// (DGSim's Table 6.1 on DAS-3): one workload directory
// and one koala grid file go through sim's `central` architecture on the
// equivalent topology and through the bundled core in simulated time
// (coresim.Simulate, what `gmark koala simulate` runs), and the two
// give the same four figures: completion ratio, AWT, ART and makespan.
package xval

import (
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/gmark/gmark/koala/core"
	"github.com/gmark/gmark/koala/grid"
	"github.com/gmark/gmark/sim"
	"github.com/gmark/gmark/sim/coresim"
	"github.com/gmark/gmark/sim/topology"
	"github.com/gmark/gmark/workload"
)

// Topology is the sim topology of grid g: one grid root named after g,
// with every cluster of g below it (processors, speed, local scheduler).
// Unmapped lists what of g the simulator does not model, one line each:
// the core honours it, the simulation does not, so the two may differ by
// it.
func Topology(g *grid.Grid) (top *topology.Topology, unmapped []string, err error) {
	root := g.Name
	if root == "" {
		root = "grid"
	}
	spec := &topology.Spec{Name: g.Name, Sites: []topology.SiteSpec{{Name: root}}}
	for i := range g.Clusters {
		c := &g.Clusters[i]
		speed := c.Speed
		if speed == 0 {
			speed = 1
		}
		if c.Name == root {
			return nil, nil, fmt.Errorf("cluster %s has the grid's name: the simulator's root site would clash with it", c.Name)
		}
		spec.Clusters = append(spec.Clusters, topology.ClusterSpec{Name: c.Name, Parent: root, Processors: c.Processors,
			Speed: &speed, Scheduler: c.LocalScheduler})
		if c.Background.Enabled() {
			unmapped = append(unmapped, fmt.Sprintf("cluster %s: background load %.0f–%.0f%% (the simulator has no local load)",
				c.Name, 100*c.Background.Low, 100*c.Background.High))
		}
		if c.Local.Enabled() {
			unmapped = append(unmapped, fmt.Sprintf("cluster %s: local users' workload", c.Name))
		}
		if c.FailureRate > 0 {
			unmapped = append(unmapped, fmt.Sprintf("cluster %s: failure_rate %g (soft errors)", c.Name, c.FailureRate))
		}
		if c.Slurm() {
			unmapped = append(unmapped, fmt.Sprintf("cluster %s: a real Slurm cluster (simulated as emulated)", c.Name))
		}
	}
	if len(g.Files) > 0 {
		unmapped = append(unmapped, fmt.Sprintf("%d files: transfers and claiming before the estimated start (the simulator starts a job when it is placed)", len(g.Files)))
	}
	if len(g.Events) > 0 {
		unmapped = append(unmapped, fmt.Sprintf("%d cluster up/down events", len(g.Events)))
	}
	if p := g.Scheduler.Policy; p == "CF" {
		unmapped = append(unmapped, "policy CF: the simulator has no files, so CF places as WF")
	}
	if g.Scheduler.MaxRuntime.Duration > 0 {
		unmapped = append(unmapped, fmt.Sprintf("max_runtime %v: the simulator never kills a job", g.Scheduler.MaxRuntime.Duration))
	}
	top, err = topology.Build(spec)
	return top, unmapped, err
}

// Metrics are DGSim's Table 6.1 figures of one run, times in seconds:
// Completion is finished / arrived; AWT and ART are over the finished
// jobs; Makespan is the last end from the workload's time 0.
type Metrics struct {
	Jobs, Finished int
	Completion     float64
	AWT, ART       float64
	Makespan       float64
}

// Row is one run of a comparison.
type Row struct {
	Name string
	Metrics
}

// Comparison is the same workload through each model.
type Comparison struct {
	Rows     []Row
	Unmapped []string
}

// Options set a comparison's runs.
type Options struct {
	Seed  uint64        // of the simulator (homes, cycle phases) and of the core (background load)
	Limit time.Duration // of the core's simulated time (0: 7 days, as gmark koala simulate)
}

// The rows of a comparison, in order.
const (
	RowCore      = "core (koala simulate)"
	RowSimScan   = "sim central, P = scan interval"
	RowSimLive   = "sim central, P = 0 (live)"
	defaultLimit = 7 * 24 * time.Hour
)

// Compare runs the workload in dir (from gmark generate) through the
// bundled core on grid g in simulated time, and through sim's central
// twice: with the information service reporting every scan interval of
// the core (P = scan, δ = 0: placements at the core's scan times) and
// with live information (P = 0: a job is placed the moment processors
// free up, eagerer than the core).
func Compare(dir string, g *grid.Grid, o Options) (*Comparison, error) {
	top, unmapped, err := Topology(g)
	if err != nil {
		return nil, err
	}
	notes, err := workloadNotes(dir)
	if err != nil {
		return nil, err
	}
	cmp := &Comparison{Unmapped: append(unmapped, notes...)}
	coreM, err := runCore(dir, g, o)
	if err != nil {
		return nil, err
	}
	cmp.Rows = append(cmp.Rows, Row{RowCore, coreM})
	for _, v := range []struct {
		name   string
		period time.Duration
	}{{RowSimScan, g.Scheduler.ScanInterval.Duration}, {RowSimLive, 0}} {
		m, err := runSim(dir, g, top, v.period, o.Seed)
		if err != nil {
			return nil, err
		}
		cmp.Rows = append(cmp.Rows, Row{v.name, m})
	}
	return cmp, nil
}

// workloadNotes lists what of the workload in dir the simulator runs
// otherwise than the core: jobs of several components (central runs them
// as one job of the summed size on one cluster, the core co-allocates
// them), jobs that name a cluster (central places them anywhere) and jobs
// with a start deadline (central ignores it).
func workloadNotes(dir string) ([]string, error) {
	f, err := workload.OpenJobs(dir)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	r := workload.NewReader(f, f.Name())
	multi, fixed, deadline := 0, 0, 0
	for {
		j, err := r.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, err
		}
		if len(j.Components) > 1 {
			multi++
		}
		for _, c := range j.Components {
			if c.Site != "" && c.Site != workload.AnySite {
				fixed++
				break
			}
		}
		if j.Deadline > 0 {
			deadline++
		}
	}
	var notes []string
	for _, n := range []struct {
		count int
		what  string
	}{
		{multi, "of several components: the core co-allocates them, central runs each as one job of the summed size on one cluster"},
		{fixed, "name a cluster: the core keeps them there, central places them anywhere"},
		{deadline, "have a start deadline: central ignores it"},
	} {
		if n.count > 0 {
			notes = append(notes, fmt.Sprintf("%d jobs %s", n.count, n.what))
		}
	}
	return notes, nil
}

// runSim runs central on top with the information period P, until every
// job has ended.
func runSim(dir string, g *grid.Grid, top *topology.Topology, period time.Duration, seed uint64) (Metrics, error) {
	cfg := sim.DefaultConfig("central")
	cfg.Seed, cfg.CoolDown, cfg.InfoPeriod, cfg.InfoDelay = seed, true, period, 0
	if p := g.Scheduler.Policy; p != "" && p != "CF" {
		cfg.Placement = p
	}
	f, err := workload.OpenJobs(dir)
	if err != nil {
		return Metrics{}, err
	}
	defer f.Close()
	res, err := sim.Run(cfg, top, jobReader{workload.NewReader(f, f.Name())})
	if err != nil {
		return Metrics{}, err
	}
	return Metrics{Jobs: res.Jobs, Finished: res.Finished, Completion: res.JF / 100, AWT: res.AWT, ART: res.ART,
		Makespan: res.End}, nil
}

// jobReader is a sim.Source over a workload.jsonl, one job at a time.
type jobReader struct{ r *workload.Reader }

func (r jobReader) Next(j *workload.Job) (bool, error) {
	next, err := r.r.Next()
	if errors.Is(err, io.EOF) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	*j = next
	return true, nil
}

// runCore runs the workload through the bundled core in simulated time,
// without warm-up, every job at high priority under krunner.
func runCore(dir string, g *grid.Grid, o Options) (Metrics, error) {
	gc := *g
	gc.Scheduler.Seed = o.Seed
	limit := o.Limit
	if limit <= 0 {
		limit = defaultLimit
	}
	s, err := coresim.Simulate(&gc, dir, coresim.Options{Priority: core.High, Runner: core.KRunner, Limit: limit, Records: true})
	if err != nil {
		return Metrics{}, err
	}
	return coreMetrics(s), nil
}

// coreMetrics are the figures of a core simulation, as the simulator
// measures them: waits and responses of the finished jobs, the last end.
func coreMetrics(s *coresim.Simulation) Metrics {
	m := Metrics{Jobs: s.Summary().Jobs}
	var wait, resp time.Duration
	var last time.Time
	for _, j := range s.Jobs {
		if !j.End.IsZero() && j.End.After(last) {
			last = j.End
		}
		if j.State != core.Finished {
			continue
		}
		m.Finished++
		wait += j.Start.Sub(j.Submitted)
		resp += j.End.Sub(j.Submitted)
	}
	if m.Jobs > 0 {
		m.Completion = float64(m.Finished) / float64(m.Jobs)
	}
	if m.Finished > 0 {
		m.AWT = wait.Seconds() / float64(m.Finished)
		m.ART = resp.Seconds() / float64(m.Finished)
	}
	if !last.IsZero() {
		m.Makespan = last.Sub(s.First).Seconds()
	}
	return m
}

// WriteMarkdown prints the comparison as a Markdown table, each row's
// differences from the first (the core) beside it.
func (c *Comparison) WriteMarkdown(w io.Writer) {
	fmt.Fprintln(w, "| run | jobs | completion | AWT (s) | ART (s) | makespan (s) |")
	fmt.Fprintln(w, "|---|---|---|---|---|---|")
	for i, r := range c.Rows {
		if i == 0 {
			fmt.Fprintf(w, "| %s | %d | %.1f%% | %.1f | %.1f | %.0f |\n", r.Name, r.Jobs, 100*r.Completion, r.AWT, r.ART, r.Makespan)
			continue
		}
		b := c.Rows[0]
		fmt.Fprintf(w, "| %s | %d | %.1f%% (%+.1f) | %.1f (%+.1f) | %.1f (%+.1f) | %.0f (%+.0f) |\n", r.Name, r.Jobs,
			100*r.Completion, 100*(r.Completion-b.Completion), r.AWT, r.AWT-b.AWT, r.ART, r.ART-b.ART, r.Makespan, r.Makespan-b.Makespan)
	}
}
