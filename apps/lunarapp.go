package apps

import (
	"runtime"
	"time"

	"github.com/gmark/gmark/apps/lunar"
)

func init() {
	register(&app{
		name:  "lunar",
		short: "state-space exploration of dimension S, reporting states explored and interesting states found",
		long: `Explores the placements of S non-attacking queens on an S×S board depth-first
(package apps/lunar): every partial placement visited is a state explored, every
complete one a solution, and the solutions that are canonical under the
board's 8 symmetries are the interesting states. The work grows about 5–6 times
per unit of S (S=12: 0.86 million states; S=14: 27 million; S=16: about
1.1 billion, some 10 s on one core). Flavour normal uses one worker; large uses
one per processor (GOMAXPROCS), with the same counts. Prints a "gmark-counter"
record every --report-interval and a final one.`,
		define: func(fs *flagSet) instance {
			var dim int64
			var flavour string
			var interval time.Duration
			fs.Int(&dim, "dimension", "S", 8, 1, lunar.MaxDimension, "dimension S of the state space")
			fs.Choice(&flavour, "flavour", "normal", []string{"normal", "large"}, "instance flavour: normal (one worker) or large (one worker per processor)")
			fs.Duration(&interval, "report-interval", time.Second, "time between counter records")
			return instance{run: func(r *runner) error {
				if interval <= 0 {
					return &UsageError{App: r.app, Msg: "--report-interval must be a duration > 0"}
				}
				return runLunar(r, int(dim), flavour, interval)
			}, work: func(int) Work { return lunarWork(int(dim)) }}
		},
	})
}

func runLunar(r *runner, dim int, flavour string, interval time.Duration) error {
	workers := 1
	if flavour == "large" {
		workers = runtime.GOMAXPROCS(0)
	}
	r.sum.Set("dimension", dim).Set("flavour", flavour).Set("workers", workers)
	r.logf("exploring dimension %d with %d worker(s)", dim, workers)
	var c lunar.Counts
	counter := func(final bool) {
		fin := int64(0)
		if final {
			fin = 1
		}
		r.out.Write(r.record("counter").
			Int("app.states_explored", c.States.Load()).
			Int("app.solutions", c.Solutions.Load()).
			Int("service.interesting_found", c.Interesting.Load()).
			Int("final", fin))
	}
	done := make(chan bool, 1)
	go func() { done <- lunar.Explore(dim, workers, &c, r.stop) }()
	tick := time.NewTicker(interval)
	defer tick.Stop()
	var complete bool
	for waiting := true; waiting; {
		select {
		case complete = <-done:
			waiting = false
		case <-tick.C:
			counter(false)
		}
	}
	counter(true)
	elapsed := r.since()
	r.sum.Set("states_explored", c.States.Load()).Set("solutions", c.Solutions.Load()).
		Set("interesting_found", c.Interesting.Load()).
		Set("states_per_s", float64(c.States.Load())/elapsed).
		Set("interesting_per_s", float64(c.Interesting.Load())/elapsed)
	if !complete {
		return stopped("after %d states", c.States.Load())
	}
	return nil
}
