package report

import (
	"os"
	"runtime/debug"

	"github.com/gmark/gmark/analyzer/store"
)

// GCPercent is the collector's goal for a large run's report (CollectOften):
// a heap 10% above what is live, where Go's default lets it double.
const GCPercent = 10

// CollectOftenJobs is the size of run (job rows) from which CollectOften
// lowers the goal: below it, the heap is a few tens of MB, and a goal 10%
// above it costs more collections (a tenth of a second at 100,000 jobs)
// than it saves memory.
const CollectOftenJobs = 200_000

// collectOften: CollectOften was called.
var collectOften bool

// CollectOften makes the reports of runs of CollectOftenJobs jobs or
// more collect at GCPercent, unless the user set GOGC. Most of what a
// report holds is its samples, slices of float64 the collector does not
// scan, so a collection costs little; the peak is then that of the live
// heap, not twice it (a million jobs of 'gmark koala simulate --db': 178
// → 142 MB at peak, for about the same CPU time; docs/performance.md). It
// is for a command's process, not for a library's caller.
func CollectOften() {
	collectOften = os.Getenv("GOGC") == ""
}

// collectFor lowers the collector's goal for reading a large run, once
// CollectOften was called.
func collectFor(st *store.Store, runID string) {
	if !collectOften {
		return
	}
	if n, err := st.CountJobs(runID); err == nil && n >= CollectOftenJobs {
		debug.SetGCPercent(GCPercent)
	}
}
