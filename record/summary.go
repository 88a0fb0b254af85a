package record

import (
	"fmt"
	"io"
	"sort"
	"strings"
	"time"

	"github.com/gmark/gmark/analyzer/store"
)

// Summary is what a finished (or interrupted) run reports.
type Summary struct {
	RunID   string
	Resumed bool
	Status  string         // store.RunCompleted, or "interrupted"
	Jobs    map[string]int // final states of top-level jobs
	Tasks   map[string]int // final states of composite jobs' tasks
	// Submitted counts the submissions the target accepted, over the whole
	// run (every process that worked on it); SubmitFailed those it did not.
	Submitted, SubmitFailed int
	Delay                   DelayStats // of this process's scheduled submissions
	Retries                 int        // submit calls retried after transient errors
	Recovered               int        // submissions found at the target on resume
	Elapsed                 time.Duration
	Notes                   []string // what happened that the user should know
}

// SummaryRecord is summary s as the store records it, for runs the submitter
// makes and for those recorded without it (RecordRun, RunRecording).
func SummaryRecord(s *Summary, retries int64, elapsed time.Duration) map[string]any {
	st := s.Delay
	return map[string]any{"jobs": s.Jobs, "tasks": s.Tasks, "retries": retries,
		"submitted": s.Submitted, "submit_failed": s.SubmitFailed,
		"recovered": s.Recovered, "elapsed_ns": elapsed.Nanoseconds(),
		"delay": map[string]any{"n": st.N, "mean_ns": st.Mean.Nanoseconds(), "p50_ns": st.P50.Nanoseconds(),
			"p75_ns": st.P75.Nanoseconds(), "p99_ns": st.P99.Nanoseconds(), "max_ns": st.Max.Nanoseconds(),
			"drift_ns": st.Drift.Nanoseconds()}}
}

// WriteText prints the summary for the user, naming the store db; a nil
// summary prints nothing.
func (s *Summary) WriteText(w io.Writer, db string) {
	if s == nil {
		return
	}
	fmt.Fprintf(w, "run %s %s in %s\n", s.RunID, s.Status, s.Elapsed.Round(time.Millisecond))
	fmt.Fprintf(w, "  submitted: %d", s.Submitted)
	if s.SubmitFailed > 0 {
		fmt.Fprintf(w, ", %d submissions failed", s.SubmitFailed)
	}
	if s.Retries > 0 {
		fmt.Fprintf(w, " (%d submit calls retried)", s.Retries)
	}
	fmt.Fprintln(w)
	fmt.Fprintf(w, "  jobs:  %s\n", stateCounts(s.Jobs))
	if len(s.Tasks) > 0 {
		fmt.Fprintf(w, "  tasks: %s\n", stateCounts(s.Tasks))
	}
	if s.Delay.N > 0 {
		fmt.Fprintf(w, "  submission delay: %s\n", s.Delay)
	}
	if s.Recovered > 0 {
		fmt.Fprintf(w, "  recovered after the restart: %d submissions found at the target\n", s.Recovered)
	}
	for _, n := range s.Notes {
		// A note of several lines (a resource manager's message) goes on
		// lines of its own, under its first.
		fmt.Fprintf(w, "  note: %s\n", strings.ReplaceAll(n, "\n", "\n        "))
	}
	fmt.Fprintf(w, "  store: %s\n", db)
}

// stateCounts is "N (n1 succeeded, n2 failed, …)", the states in that order.
func stateCounts(m map[string]int) string {
	total := 0
	var keys []string
	for k, n := range m {
		total += n
		keys = append(keys, k)
	}
	order := map[string]int{store.Succeeded: 0, store.Failed: 1, store.Cancelled: 2, store.NeverStarted: 3}
	sort.Slice(keys, func(i, j int) bool { return order[keys[i]] < order[keys[j]] })
	parts := make([]string, 0, len(keys))
	for _, k := range keys {
		parts = append(parts, fmt.Sprintf("%d %s", m[k], k))
	}
	if len(parts) == 0 {
		return "0"
	}
	return fmt.Sprintf("%d (%s)", total, strings.Join(parts, ", "))
}
