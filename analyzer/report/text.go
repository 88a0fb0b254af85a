package report

import (
	"encoding/csv"
	"fmt"
	"io"
	"math"
	"strconv"
	"text/tabwriter"

	"github.com/gmark/gmark/analyzer/metrics"
	"github.com/gmark/gmark/stats/sampstat"
)

// WriteSummary prints a few lines per run: counts, rates, wait, run,
// response, bounded slowdown, submission delay, makespan, throughput,
// goodput and utilization.
func (r *Report) WriteSummary(w io.Writer) error {
	ew := &errWriter{w: w}
	for _, run := range r.Runs {
		m := run.Metrics
		ew.printf("run %s (%s) %s/%s, target %s, %s", m.RunID, run.Label, m.Project, m.Scenario, m.Target, m.Status)
		if m.Speedup != 1 || m.Clocks.JobScale > 0 && m.Clocks.JobScale != 1 {
			ew.printf(", speedup %s (%s time)", num(m.Speedup), m.TimeBase) // which figures: the clocks' note
		}
		ew.printf("\n")
		c := m.Jobs
		ew.printf("  jobs %d: %d succeeded, %d failed, %d cancelled, %d never started; success rate %s\n",
			c.Submitted, c.Succeeded, c.Failed, c.Cancelled, c.NeverStarted, pct(m.SuccessRate))
		if m.Tasks.Submitted > 0 {
			t := m.Tasks
			ew.printf("  tasks %d: %d succeeded, %d failed, %d cancelled, %d never started\n", t.Submitted, t.Succeeded, t.Failed, t.Cancelled, t.NeverStarted)
		}
		line := func(name, unit string, s sampstat.Summary) {
			if s.N == 0 {
				ew.printf("  %-17s –\n", name)
				return
			}
			ew.printf("  %-17s mean %s%s %s, median %s%s, p95 %s%s, max %s%s (n %d)\n", name, num(s.Mean), unit, ci(s.MeanCI),
				num(s.P50), unit, num(s.P95), unit, num(s.Max), unit, s.N)
		}
		line("wait", " s", m.Wait)
		line("run time", " s", m.Run)
		line("response time", " s", m.Response)
		line("bounded slowdown", "", m.BSlowdown)
		if m.Delay.N > 0 {
			ew.printf("  %-17s mean %s ms, p99 %s ms, max %s ms\n", "submission delay", num(m.Delay.Mean*1e3), num(m.Delay.P99*1e3), num(m.Delay.Max*1e3))
		}
		if c := m.Coallocation; c != nil {
			o := c.Overhead
			ew.printf("  %-17s mean %s s, p95 %s s, max %s s over %d co-allocated jobs (first to last component start)\n",
				"co-allocation", num(o.Mean), num(o.P95), num(o.Max), c.Jobs)
		}
		if m.NoSpan != "" {
			ew.printf("  %s: no makespan, throughput or utilization; goodput %s processor-h\n", m.NoSpan, num(m.Goodput/3600))
		} else {
			ew.printf("  makespan %s s", num(m.Makespan))
			if m.Clocks.Span == metrics.Workload {
				ew.printf(" (%s s wall)", num(m.WallSpan))
			}
			ew.printf(", throughput %s jobs/h, goodput %s processor-h, utilization %s", num(m.Throughput), num(m.Goodput/3600), pct(m.Utilization))
			if m.Processors > 0 {
				ew.printf(" of %d processors", m.Processors)
			}
			ew.printf("\n")
		}
		for i, f := range m.Failures {
			if i == 5 {
				ew.printf("  … %d more reasons\n", len(m.Failures)-5)
				break
			}
			ew.printf("  %s (%d): %s\n", f.State, f.Count, f.Reason)
		}
		for _, n := range m.Notes {
			ew.printf("  note: %s\n", n)
		}
		run.writeFidelity(ew)
	}
	return ew.err
}

// WriteText prints the summary, then the distribution, failure, group,
// composite and breakdown tables of every run.
func (r *Report) WriteText(w io.Writer) error {
	if err := r.WriteSummary(w); err != nil {
		return err
	}
	for _, run := range r.Runs {
		if _, err := fmt.Fprintf(w, "\n%s %s\n\n", run.Label, run.Metrics.RunID); err != nil {
			return err
		}
		tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', tabwriter.AlignRight)
		if err := run.writeTables(tw); err != nil {
			return err
		}
		if err := tw.Flush(); err != nil {
			return err
		}
	}
	return nil
}

func (run *Run) writeTables(tw io.Writer) error {
	ew := &errWriter{w: tw}
	{
		m := run.Metrics
		ew.printf("metric\tn\tmean\tmean 95%% CI\tmin\tp25\tmedian\tp75\tp95\tp99\tmax\t\n")
		for _, d := range dists(m) {
			s := d.S
			ew.printf("%s\t%d\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t\n", d.Name, s.N, num(s.Mean), ci(s.MeanCI), num(s.Min), num(s.P25),
				num(s.P50), num(s.P75), num(s.P95), num(s.P99), num(s.Max))
		}
		for _, g := range []struct {
			name string
			rows []metrics.Group
		}{{"job type", m.ByType}, {"site", m.BySite}, {"user", m.ByUser}} {
			if len(g.rows) == 0 {
				continue
			}
			ew.printf("\n%s\tjobs\tsucceeded\tsuccess\tmean wait\tmedian wait\tp95 wait\tmean run\tmean bsld\t\n", g.name)
			for _, x := range g.rows {
				ew.printf("%s\t%d\t%d\t%s\t%s\t%s\t%s\t%s\t%s\t\n", x.Key, x.Jobs, x.Succeeded, pct(x.SuccessRate), num(x.MeanWait),
					num(x.P50Wait), num(x.P95Wait), num(x.MeanRun), num(x.MeanBSld))
			}
		}
		if c := m.Composite; c != nil {
			ew.printf("\ncomposite type\tjobs\tsucceeded\ttasks\tfailed tasks\tretries\tmean makespan\tp95 makespan\t\n")
			for _, g := range append(c.ByType, c.All) {
				ew.printf("%s\t%d\t%d\t%d\t%d\t%d\t%s\t%s\t\n", g.Type, g.Jobs, g.Succeeded, g.Tasks, g.FailedTasks, g.Retries, num(g.Makespan.Mean), num(g.Makespan.P95))
			}
		}
		if w := m.Workflows; w != nil {
			ew.printf("\nworkflows (%d)\tmean\tmedian\tp95\t\n", w.Workflows)
			for _, x := range []struct {
				name string
				s    sampstat.Summary
			}{{"response (s)", w.Response}, {"critical path (s)", w.CriticalPath}, {"slowdown vs critical path", w.Slowdown}, {"critical-path efficiency", w.Efficiency}} {
				ew.printf("%s\t%s\t%s\t%s\t\n", x.name, num(x.s.Mean), num(x.s.P50), num(x.s.P95))
			}
			for why, n := range w.LeftOut {
				ew.printf("left out: %d composite jobs (%s)\t\t\t\t\n", n, why)
			}
		}
		if len(m.Breakdown.Phases) > 0 {
			ew.printf("\nphase (mean, %d jobs)\ts\t\n", m.Breakdown.Jobs)
			for _, p := range m.Breakdown.Phases {
				ew.printf("%s\t%s\t\n", p.Name, seconds(p.Mean))
			}
		}
		if c := m.Core; c != nil {
			ew.printf("\ncore\tmean\tmedian\tp95\t\n")
			ew.printf("placement time (s)\t%s\t%s\t%s\t\n", num(c.Placement.Mean), num(c.Placement.P50), num(c.Placement.P95))
			ew.printf("transfer time (s)\t%s\t%s\t%s\t\n", num(c.Transfer.Mean), num(c.Transfer.P50), num(c.Transfer.P95))
			ew.printf("claiming tries\t%s\t%s\t%s\t\n", num(c.ClaimTries.Mean), num(c.ClaimTries.P50), num(c.ClaimTries.P95))
			ew.printf("wasted processor-s\t%s\t\t\t\n", num(c.WastedProcSeconds))
			if d := c.Deadlines; d != nil {
				ew.printf("\nstart deadlines and local jobs (the core's count)\t\t\n")
				ew.printf("global jobs started at their deadline\t%d of %d\t%s\t\n", d.GlobalStarted, d.GlobalJobs, pct(d.GlobalSuccess))
				ew.printf("local jobs killed (of those that ended)\t%d of %d\t%s\t\n", d.LocalKilled, d.LocalKilled+d.LocalFinished, pct(d.LocalKillRate))
				ew.printf("local jobs submitted; still queued or running at the end\t%d\t%d\t\n", d.LocalJobs, d.LocalJobs-d.LocalKilled-d.LocalFinished)
				ew.printf("local response time, mean (s)\t%s\t(%d finished)\t\n", num(d.LocalResponseS), d.LocalFinished)
				ew.printf("processor-s wasted (held idle) / lost (killed)\t%s\t%s\t\n", num(d.WastedProcessorS), num(d.LostProcessorS))
				ew.printf("utilization: total = local + global + wasted\t%s\t%s + %s + %s\t\n", pct(d.TotalUtil), pct(d.LocalUtil), pct(d.GlobalUtil), pct(d.WastedUtil))
			}
		}
	}
	return ew.err
}

// WriteJSON writes the whole report as JSON (unknown values as null).
func (r *Report) WriteJSON(w io.Writer) error {
	b, err := MarshalJSON(r)
	if err != nil {
		return err
	}
	_, err = w.Write(append(b, '\n'))
	return err
}

// WriteCSV writes the metrics in long form, one value per row:
// run_id,label,section,key,metric,value. Sections: jobs, tasks, rates,
// scalars, the distributions (wait_s, run_s, …), failures, by_type,
// by_site, by_user, composite, breakdown, core, fidelity.
func (r *Report) WriteCSV(w io.Writer) error {
	cw := csv.NewWriter(w)
	_ = cw.Write([]string{"run_id", "label", "section", "key", "metric", "value"})
	f := func(v float64) string {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return ""
		}
		return strconv.FormatFloat(v, 'g', 10, 64)
	}
	for _, run := range r.Runs {
		m := run.Metrics
		row := func(section, key, metric, value string) {
			_ = cw.Write([]string{m.RunID, run.Label, section, key, metric, value})
		}
		for _, c := range []struct {
			name string
			c    metrics.Counts
		}{{"jobs", m.Jobs}, {"tasks", m.Tasks}} {
			row(c.name, "", "submitted", strconv.Itoa(c.c.Submitted))
			row(c.name, "", "succeeded", strconv.Itoa(c.c.Succeeded))
			row(c.name, "", "failed", strconv.Itoa(c.c.Failed))
			row(c.name, "", "cancelled", strconv.Itoa(c.c.Cancelled))
			row(c.name, "", "never_started", strconv.Itoa(c.c.NeverStarted))
		}
		row("rates", "", "success_rate", f(m.SuccessRate))
		row("rates", "", "failure_rate", f(m.FailureRate))
		row("scalars", "", "makespan_s", f(m.Makespan))
		row("scalars", "", "throughput_per_h", f(m.Throughput))
		row("scalars", "", "goodput_processor_s", f(m.Goodput))
		row("scalars", "", "utilization", f(m.Utilization))
		row("scalars", "", "processors", strconv.Itoa(m.Processors))
		row("scalars", "", "coallocated", strconv.Itoa(m.CoAllocated))
		dists := []struct {
			name string
			s    sampstat.Summary
		}{{"wait_s", m.Wait}, {"run_s", m.Run}, {"response_s", m.Response}, {"slowdown", m.Slowdown}, {"bounded_slowdown", m.BSlowdown}, {"submission_delay_s", m.Delay}}
		if c := m.Coallocation; c != nil {
			dists = append(dists, struct {
				name string
				s    sampstat.Summary
			}{"coallocation_overhead_s", c.Overhead})
		}
		for _, d := range dists {
			s := d.s
			row(d.name, "", "n", strconv.Itoa(s.N))
			for _, kv := range []struct {
				k string
				v float64
			}{{"mean", s.Mean}, {"mean_ci_low", s.MeanCI[0]}, {"mean_ci_high", s.MeanCI[1]}, {"std", s.Std}, {"min", s.Min}, {"p25", s.P25},
				{"p50", s.P50}, {"p50_ci_low", s.MedianCI[0]}, {"p50_ci_high", s.MedianCI[1]}, {"p75", s.P75}, {"p90", s.P90}, {"p95", s.P95}, {"p99", s.P99}, {"max", s.Max}} {
				row(d.name, "", kv.k, f(kv.v))
			}
		}
		for _, x := range m.Failures {
			row("failures", x.State+": "+x.Reason, "jobs", strconv.Itoa(x.Count))
		}
		for _, g := range []struct {
			name string
			rows []metrics.Group
		}{{"by_type", m.ByType}, {"by_site", m.BySite}, {"by_user", m.ByUser}} {
			for _, x := range g.rows {
				row(g.name, x.Key, "jobs", strconv.Itoa(x.Jobs))
				row(g.name, x.Key, "succeeded", strconv.Itoa(x.Succeeded))
				row(g.name, x.Key, "mean_wait_s", f(x.MeanWait))
				row(g.name, x.Key, "p50_wait_s", f(x.P50Wait))
				row(g.name, x.Key, "p95_wait_s", f(x.P95Wait))
				row(g.name, x.Key, "mean_run_s", f(x.MeanRun))
				row(g.name, x.Key, "mean_bounded_slowdown", f(x.MeanBSld))
			}
		}
		if c := m.Composite; c != nil {
			for _, g := range append(c.ByType, c.All) {
				row("composite", g.Type, "jobs", strconv.Itoa(g.Jobs))
				row("composite", g.Type, "succeeded", strconv.Itoa(g.Succeeded))
				row("composite", g.Type, "tasks", strconv.Itoa(g.Tasks))
				row("composite", g.Type, "failed_tasks", strconv.Itoa(g.FailedTasks))
				row("composite", g.Type, "retries", strconv.Itoa(g.Retries))
				row("composite", g.Type, "mean_makespan_s", f(g.Makespan.Mean))
			}
		}
		if w := m.Workflows; w != nil {
			row("workflows", "", "workflows", strconv.Itoa(w.Workflows))
			row("workflows", "", "mean_response_s", f(w.Response.Mean))
			row("workflows", "", "mean_critical_path_s", f(w.CriticalPath.Mean))
			row("workflows", "", "mean_slowdown", f(w.Slowdown.Mean))
			row("workflows", "", "p95_slowdown", f(w.Slowdown.P95))
			row("workflows", "", "mean_critical_path_efficiency", f(w.Efficiency.Mean))
		}
		for _, p := range m.Breakdown.Phases {
			row("breakdown", p.Name, "mean_s", f(p.Mean))
		}
		if c := m.Core; c != nil {
			row("core", "", "mean_placement_s", f(c.Placement.Mean))
			row("core", "", "mean_transfer_s", f(c.Transfer.Mean))
			row("core", "", "mean_claim_tries", f(c.ClaimTries.Mean))
			row("core", "", "wasted_processor_s", f(c.WastedProcSeconds))
			if d := c.Deadlines; d != nil {
				row("deadlines", "global", "success_rate", f(d.GlobalSuccess))
				row("deadlines", "local", "kill_rate", f(d.LocalKillRate))
				row("deadlines", "local", "mean_response_s", f(d.LocalResponseS))
				row("deadlines", "", "wasted_processor_s", f(d.WastedProcessorS))
				row("deadlines", "", "lost_processor_s", f(d.LostProcessorS))
				row("deadlines", "", "total_utilization", f(d.TotalUtil))
				row("deadlines", "local", "utilization", f(d.LocalUtil))
				row("deadlines", "global", "utilization", f(d.GlobalUtil))
				row("deadlines", "", "wasted_utilization", f(d.WastedUtil))
			}
		}
		run.fidelityRows(row, f)
	}
	cw.Flush()
	return cw.Error()
}

type errWriter struct {
	w   io.Writer
	err error
}

func (e *errWriter) printf(format string, args ...any) {
	if e.err == nil {
		_, e.err = fmt.Fprintf(e.w, format, args...)
	}
}
