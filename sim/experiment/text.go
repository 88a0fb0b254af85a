package experiment

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"
)

// WriteText writes the report as tables: for each experiment, every run,
// then the means over repetitions (± the sample standard deviation of the
// wait and of the goodput).
func (r *Report) WriteText(w io.Writer) error {
	if len(r.Experiments) == 0 {
		_, err := fmt.Fprintln(w, "no experiment in the store (run one with: gmark sim run EXPERIMENT.toml --db DB)")
		return err
	}
	for i := range r.Experiments {
		if i > 0 {
			fmt.Fprintln(w)
		}
		if err := r.Experiments[i].writeText(w); err != nil {
			return err
		}
	}
	return nil
}

func (e *ExperimentReport) writeText(w io.Writer) error {
	fmt.Fprintf(w, "experiment %s (definition %.12s; topology %s, %d processors; seed %d", e.Name, e.Digest, e.Topology, e.Processors, e.Seed)
	if e.Scale != 1 {
		fmt.Fprintf(w, ", scale %g", e.Scale)
	}
	fmt.Fprintf(w, "): %d of %d runs finished\n", e.Finished, e.Planned)
	if len(e.Builds) > 0 {
		fmt.Fprintf(w, "computed by gmark %s\n", strings.Join(e.Builds, "; "))
	}
	if len(e.Builds) > 1 {
		fmt.Fprintln(w, "note: the runs were computed by more than one gmark build; a release computes its own (docs/sim.md)")
	}
	if e.Definitions > 1 {
		fmt.Fprintf(w, "note: the store holds %d definitions of %s; this is the latest\n", e.Definitions, e.Name)
	}
	tau := ""
	for _, r := range e.Runs {
		if r.Metrics != nil {
			tau = fmt.Sprintf(" (τ = %gs)", r.Metrics.ASDTau)
			break
		}
	}
	fmt.Fprintln(w, "\nruns:")
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(tw, "run\tscenario\tarch\tload %%\trep\toffered %% (by grid)\tjobs\tU\tAWT s\tART s\tASD%s\tgoodput CPU-y\tJF %%\tdeleg./job\thops/deleg.\tWM msgs\tDMM msgs\tKeepAlive\t\n", tau)
	for _, r := range e.Runs {
		fmt.Fprintf(tw, "%d\t%s\t%s\t%s\t%d\t", r.Index+1, r.Scenario, r.Arch, loadNum(r.Load), r.Rep)
		m := r.Metrics
		if m == nil {
			fmt.Fprintln(tw, "not finished\t\t\t\t\t\t\t\t\t\t\t\t\t")
			continue
		}
		fmt.Fprintf(tw, "%s\t", offeredText(r.Workload))
		fmt.Fprintf(tw, "%d\t%.3f\t%.0f\t%.0f\t%.1f\t%.4f\t%.1f\t%.2f\t%.2f\t%d\t%d\t%d\t\n", m.Jobs, m.Utilization, m.AWT, m.ART, m.ASD,
			m.Goodput, m.JF, m.DelegationsPerJob, m.HopsPerDelegated, m.WorkloadMessages, m.Messages["DMM"], m.Messages["KeepAlive"])
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintln(w, "\nmeans over repetitions (± sample standard deviation):")
	tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "scenario\tarch\tload %\treps\tU\tAWT s\tART s\tASD\tgoodput CPU-y\tJF %\tdeleg./job\thops/deleg.\tWM msgs\tDMM msgs\tKeepAlive\t")
	for _, a := range e.Aggregates {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%d/%d\t", a.Scenario, a.Arch, loadNum(a.Load), a.Runs, a.Planned)
		if a.Runs == 0 {
			fmt.Fprintln(tw, "\t\t\t\t\t\t\t\t\t\t\t")
			continue
		}
		s := a.Stats
		fmt.Fprintf(tw, "%.3f\t%.0f ± %.0f\t%.0f\t%.1f\t%.4f ± %.4f\t%.1f\t%.2f\t%.2f\t%.0f\t%.0f\t%.0f\t\n", s["utilization"].Mean,
			s["awt_s"].Mean, s["awt_s"].SD, s["art_s"].Mean, s["asd"].Mean, s["goodput_cpu_years"].Mean, s["goodput_cpu_years"].SD,
			s["jf_percent"].Mean, s["delegations_per_job"].Mean, s["hops_per_delegated"].Mean, s["workload_management_messages"].Mean, s["messages.DMM"].Mean,
			s["messages.KeepAlive"].Mean)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if err := e.writeRestarts(w); err != nil {
		return err
	}
	if err := e.writeWorkflows(w); err != nil {
		return err
	}
	return e.writeDeadlines(w)
}

// offeredText is a run's offered load, of the whole and of each grid
// (docs/sim.md: each over its own jobs' span): "69.3 (69.4 69.3)". A grid
// no job was credited to is "-": the jobs of a trace without a site map
// get their home cluster from the simulator, so no grid is credited with
// them (and the whole's load is the one to read): "70.0 (- -)".
func offeredText(w *WorkloadSummary) string {
	if w == nil {
		return "-"
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%.1f", w.OfferedLoad)
	if len(w.Grids) > 1 {
		b.WriteString(" (")
		for i, g := range w.Grids {
			if i > 0 {
				b.WriteByte(' ')
			}
			if g.Jobs == 0 {
				b.WriteByte('-')
				continue
			}
			fmt.Fprintf(&b, "%.1f", g.OfferedLoad)
		}
		b.WriteByte(')')
	}
	return b.String()
}

func num(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }

// loadNum is a load level in a table's "load %" column.
func loadNum(l float64) string {
	if l == AsRecorded {
		return AsRecordedName
	}
	return num(l)
}

// writeRestarts is the table of the runs killed by failures or expired
// leases, when any aggregate has one.
func (e *ExperimentReport) writeRestarts(w io.Writer) error {
	any := false
	for _, a := range e.Aggregates {
		any = any || a.Stats["restarts"].Max > 0
	}
	if !any {
		return nil
	}
	fmt.Fprintln(w, "\nruns killed by failures or expired leases (means over repetitions):")
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "scenario\tarch\tload %\treps\trestarts\twasted CPU-y\t")
	for _, a := range e.Aggregates {
		if a.Runs > 0 {
			fmt.Fprintf(tw, "%s\t%s\t%s\t%d/%d\t%.1f\t%.4f\t\n", a.Scenario, a.Arch, num(a.Load), a.Runs, a.Planned,
				a.Stats["restarts"].Mean, a.Stats["wasted_cpu_years"].Mean)
		}
	}
	return tw.Flush()
}
