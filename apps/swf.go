package apps

import (
	"fmt"
	"math"
	"sync/atomic"
	"time"
)

func init() {
	register(&app{
		name:  "swf",
		short: "replays a trace job: holds its processors for its run time",
		long: `Holds its processor for --runtime × --scale seconds, then exits: with --mode
sleep it sleeps, with --mode cpu it keeps one processor busy with arithmetic.
One process stands for one processor: a job of --procs processors is --procs
processes (srun, or the launcher, starts them), each holding one. --procs is
recorded in the summary, and a mismatch with GMARK_SIZE is reported on
standard error.`,
		define: func(fs *flagSet) instance {
			var runtime, scale float64
			var procs int64
			var mode string
			fs.Float(&runtime, "runtime", "SECONDS", 0, 0, false, "the trace job's run time in seconds (may be fractional)")
			fs.Int(&procs, "procs", "P", 1, 1, maxParam, "the trace job's processors")
			fs.Float(&scale, "scale", "FACTOR", 1, 0, true, "factor applied to the run time")
			fs.Choice(&mode, "mode", "sleep", []string{"sleep", "cpu"}, "sleep, or cpu to keep the processor busy")
			return instance{run: func(r *runner) error {
				hold := runtime * scale
				if hold*float64(time.Second) > math.MaxInt64 {
					return &UsageError{App: r.app, Msg: fmt.Sprintf("--runtime %g × --scale %g is too long to hold", runtime, scale)}
				}
				return runSWF(r, time.Duration(hold*float64(time.Second)), runtime, scale, procs, mode)
			}, work: func(int) Work { return Work{Held: runtime * scale} }}
		},
	})
}

func runSWF(r *runner, hold time.Duration, runtime, scale float64, procs int64, mode string) error {
	r.sum.Set("runtime_s", runtime).Set("scale", scale).Set("hold_s", hold.Seconds()).
		Set("procs", procs).Set("mode", mode)
	if r.env.Size > 1 && int64(r.env.Size) != procs {
		fmt.Fprintf(r.stderr, "gmark app swf: rank %d: warning: --procs %d but the job runs %d processes\n", r.env.Rank, procs, r.env.Size)
	}
	r.logf("holding for %v (%s)", hold, mode)
	until := r.start.Add(hold)
	if mode == "cpu" {
		ops := spin(until, r.stop)
		r.sum.Set("spin_ops", ops)
		if time.Now().Before(until) {
			return stopped("after %.3f s of %.3f s", r.since(), hold.Seconds())
		}
		return nil
	}
	t := time.NewTimer(time.Until(until))
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-r.ctx.Done():
		return stopped("after %.3f s of %.3f s", r.since(), hold.Seconds())
	}
}

// spin keeps one processor busy until the deadline or stop, and returns
// the arithmetic operations done. The result feeds a global so the loop
// cannot be optimised away.
func spin(until time.Time, stop *atomic.Bool) int64 {
	var ops int64
	x := 1.0
	for time.Now().Before(until) && !stop.Load() {
		for range 1 << 14 {
			x = x*0.999999 + 1e-6
		}
		ops += 1 << 14
	}
	spinSink.Store(math.Float64bits(x))
	return ops
}

var spinSink atomic.Uint64
