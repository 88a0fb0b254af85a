package submitter

import (
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/gmark/gmark/record"
)

// countFromStore counts the final states of the run's jobs and tasks as
// recorded, over every process that worked on the run (in SQL: a run of
// any length is counted without reading its rows into memory).
func (r *Runner) countFromStore() {
	c, err := r.st.CountRun(r.runID)
	if err != nil {
		return
	}
	r.summary.Submitted, r.summary.SubmitFailed = c.Submitted, c.SubmitFailed
	r.summary.Jobs, r.summary.Tasks = c.Jobs, c.Tasks
}

// summaryJSON is the run's summary as recorded (run_ends.summary, the
// "interrupted" event).
func (r *Runner) summaryJSON() map[string]any {
	return record.SummaryRecord(&r.summary, r.retries.Load(), time.Since(r.started))
}

func (r *Runner) progress() {
	if r.cfg.Progress == nil {
		return
	}
	p := r.counts
	p.LastDelay = r.lastDelay
	p.TopDone = r.finalTops
	p.InTail = r.inTail
	if r.inTail {
		p.TailLeft = time.Until(r.tailAt)
		if p.TailLeft < 0 {
			p.TailLeft = 0
		}
	}
	p.Elapsed = time.Since(r.started)
	p.Interrupted = r.interrupted
	r.cfg.Progress(p)
}

// noteFailure counts a failure reason for the summary (the job's id
// replaced by JOB, so that one cause is counted once; other numbers are
// kept, as they are usually the point: an exit status, a cluster).
func (r *Runner) noteFailure(reason string) {
	reason = noteText(reason)
	r.failMu.Lock()
	if r.failReasons == nil {
		r.failReasons = map[string]int{}
	}
	r.failReasons[reason]++
	r.failMu.Unlock()
}

// Bounds of a failure reason in the summary's notes.
const (
	noteLines    = 4   // lines kept of a longer reason: the first ones and the last
	noteLineSize = 300 // characters of a line
)

// noteText is a failure reason as the summary notes it: whole lines (a
// resource manager's message is often several, "sbatch: error: …" lines
// ending with the "fatal:" that matters), at most noteLines of them, the
// first ones and the last, with how many were left out between; a line
// longer than noteLineSize is cut at a character, never inside one.
func noteText(reason string) string {
	var lines []string
	for _, l := range strings.Split(reason, "\n") {
		if l = strings.TrimRight(l, " \t\r"); l != "" {
			if r := []rune(l); len(r) > noteLineSize {
				l = string(r[:noteLineSize]) + "…"
			}
			lines = append(lines, l)
		}
	}
	if n := len(lines); n > noteLines {
		left := fmt.Sprintf("… (%d more lines)", n-noteLines+1)
		lines = append(append(lines[:noteLines-2:noteLines-2], left), lines[n-1])
	}
	return strings.Join(lines, "\n")
}

// notes summarises what went wrong, for the user.
func (r *Runner) notes() {
	if n := r.retries.Load(); n > 0 {
		r.summary.Notes = append(r.summary.Notes, fmt.Sprintf("%d submit calls were retried after transient target errors", n))
	}
	r.failMu.Lock()
	defer r.failMu.Unlock()
	if len(r.failReasons) > 0 {
		type kv struct {
			k string
			n int
		}
		var list []kv
		for k, n := range r.failReasons {
			list = append(list, kv{k, n})
		}
		sort.Slice(list, func(i, j int) bool { return list[i].n > list[j].n || (list[i].n == list[j].n && list[i].k < list[j].k) })
		for i, x := range list {
			if i == 5 {
				r.summary.Notes = append(r.summary.Notes, fmt.Sprintf("… and %d other failure reasons", len(list)-5))
				break
			}
			r.summary.Notes = append(r.summary.Notes, fmt.Sprintf("%d failed: %s", x.n, x.k))
		}
	}
}
