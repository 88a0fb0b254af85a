package experiment

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
)

// WriteJSON writes the report as indented JSON.
func (r *Report) WriteJSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(r)
}

// WriteText writes the report as tables: per run, the sites' shares, the
// work per interval and the hourly table.
func (r *Report) WriteText(w io.Writer) error {
	var b strings.Builder
	if r.Name != "" {
		fmt.Fprintf(&b, "experiment %s\n", r.Name)
	}
	for _, res := range r.Runs {
		fmt.Fprintf(&b, "\n%s: makespan %.0f s, load imbalance %.1f%% (idle from %.0f s to %.0f s), %d jobs, %.2f units, %.4f units/s\n",
			res.Mode, res.Makespan, 100*res.Imbalance, res.FirstIdle, res.LastIdle, res.Jobs, res.Units, res.Throughput)
		fmt.Fprintf(&b, "  %-16s %6s %10s %10s %12s %12s\n", "site", "jobs", "units", "idle at", "busy", "idle")
		for _, s := range res.Sites {
			fmt.Fprintf(&b, "  %-16s %6d %10.2f %10.0f %12.0f %12.0f\n", s.Site, s.Jobs, s.Units, s.IdleAt, s.Busy, s.Idle)
		}
		fmt.Fprintf(&b, "  units completed per interval:\n  %-17s", "interval (s)")
		for _, s := range res.Sites {
			fmt.Fprintf(&b, " %10s", s.Site)
		}
		fmt.Fprintf(&b, " %10s %10s\n", "total", "units/s")
		for _, iv := range res.Intervals {
			fmt.Fprintf(&b, "  %8.0f-%-8.0f", iv.Start, iv.End)
			for _, u := range iv.Units {
				fmt.Fprintf(&b, " %10.2f", u)
			}
			fmt.Fprintf(&b, " %10.2f %10.4f\n", iv.Total, iv.Throughput)
		}
		h := res.Hourly
		fmt.Fprintf(&b, "  jobs per %.0f s from %.0f s to %.0f s (partial jobs counted proportionally):\n", h.Hour, h.From, h.To)
		fmt.Fprintf(&b, "  %6s %9s %9s %9s\n", "row", "complete", "partial", "total")
		for _, row := range h.Rows {
			fmt.Fprintf(&b, "  %6d %9d %9.2f %9.2f\n", row.Row, row.Complete, row.Partial, row.Total)
		}
		fmt.Fprintf(&b, "  %6s %9d %9.2f %9.2f\n  %6s %29.2f\n", fmt.Sprintf(">%d", len(h.Rows)), 0, h.After.Partial, h.After.Total, "sum", h.Sum)
		writeWindow(&b, h)
		if res.Faults != nil {
			res.Faults.writeText(&b)
		}
	}
	if r.Ratio > 0 {
		fmt.Fprintf(&b, "\nmakespan static / placeholder: %.2f\n", r.Ratio)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func (f *Faults) writeText(b *strings.Builder) {
	fmt.Fprintf(b, "  faults: %d jobs run exactly once; %d duplicated, %d maybe duplicated, %d failed, %d unfinished\n",
		f.Once, len(f.Duplicated), len(f.Maybe), len(f.Failed), len(f.Unfinished))
	fmt.Fprintf(b, "  %d requeued by the watchdog; %d placeholders killed, %d submitted by it; %d executions cut short; %d calls retried, %d placeholders gave up\n",
		f.Requeued, f.Killed, f.Replaced, len(f.Lost), f.Retried, f.GaveUp)
	for _, l := range []struct {
		name string
		jobs []Listed
	}{{"duplicated", f.Duplicated}, {"maybe duplicated", f.Maybe}, {"failed", f.Failed}} {
		for _, j := range l.jobs {
			fmt.Fprintf(b, "  %s: job %d (%d completed runs): %s\n", l.name, j.Job, j.Runs, j.Reason)
		}
	}
	for _, r := range f.Lost {
		fmt.Fprintf(b, "  cut short: job %d at %s, %.0f s to %.0f s\n", r.Job, r.Site, r.Start, r.End)
	}
	if len(f.Unfinished) > 0 {
		fmt.Fprintf(b, "  unfinished: jobs %v\n", f.Unfinished)
	}
}

// writeWindow writes each site's share of the hourly table's window, as
// CISS-1's Table 5.5 (busy time in hours).
func writeWindow(b *strings.Builder, h Hourly) {
	fmt.Fprintf(b, "  per site in the window (partial jobs counted proportionally):\n  %-16s %10s %8s %12s %10s\n", "site", "jobs", "share", "busy (h)", "mean (s)")
	jobs, busy := 0.0, 0.0
	for _, s := range h.Sites {
		fmt.Fprintf(b, "  %-16s %10.2f %7.1f%% %12.2f %10.0f\n", s.Site, s.Jobs, 100*s.Share, s.Busy/3600, s.Mean)
		jobs += s.Jobs
		busy += s.Busy
	}
	mean := 0.0
	if jobs > 0 {
		mean = busy / jobs
	}
	fmt.Fprintf(b, "  %-16s %10.2f %7.1f%% %12.2f %10.0f\n", "all", jobs, 100.0, busy/3600, mean)
}
