package report

import (
	"os"
	"runtime/debug"
)

// GCPercent is the collector's goal CollectOften sets: a heap 10% above
// what is live, where Go's default lets it double.
const GCPercent = 10

// CollectOften lets the heap grow only GCPercent above what is live
// before a collection, unless the user set GOGC. Most of what a report
// holds is its samples, slices of float64 the collector does not scan, so
// a collection costs little; the peak is then that of the live heap, not
// twice it (a million jobs of 'gmark koala simulate --db': 178 → 142 MB
// at peak, for about the same CPU time; docs/performance.md). It is for a command's process, not for a
// library's caller.
func CollectOften() {
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(GCPercent)
	}
}
