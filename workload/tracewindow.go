package workload

// TraceWindow is what a trace says of a window a run replayed, read again
// from the trace as recorded (unscaled). The trace readers fill it
// (gwa.ReadReplayedWindow) and the analysis of a replay's fidelity compares
// the run with it: the job model is where the two meet, so that neither
// imports the other.
type TraceWindow struct {
	Jobs                int       // trace jobs of the window
	Wait, Run, Response []float64 // seconds, of the jobs that give them
	Busy                []float64 // processor-seconds per bin of the window, trace time
	BinS                float64   // a bin's width, trace seconds
	Processors          int       // the trace's MaxProcs; 0 when unknown
	InFlight            int       // jobs in flight at the window's start
	UnknownInFlight     int       // jobs before the window that may have been in flight
	Unplaced            int       // jobs of the window or in flight with no wait or run time
	Placed              int       // jobs whose busy time is known
	SubmitScale         float64   // the recorded selection's submit scale (1 when it has none)
	// Scaled describes the recorded selection when it scales the trace
	// (its times or sizes), and is empty when it does not.
	Scaled string
}

// SpreadBusy adds p processors busy over [s, e) to the bins of width w
// that cover [0, len(bins)·w), clipping what lies outside. Both sides of a
// replay's comparison bin their busy time with it, so that they are binned
// alike.
func SpreadBusy(bins []float64, w, s, e, p float64) {
	n := len(bins)
	if !(w > 0) || n == 0 {
		return
	}
	s, e = max(s, 0), min(e, w*float64(n))
	if !(e > s) {
		return
	}
	first, last := int(s/w), min(int(e/w), n-1)
	for k := first; k <= last; k++ {
		lo, hi := max(s, float64(k)*w), min(e, float64(k+1)*w)
		if hi > lo {
			bins[k] += p * (hi - lo)
		}
	}
}
