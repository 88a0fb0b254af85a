package sim

import (
	"testing"
	"time"
)

// BenchmarkArch runs one day of the thesis's system (DAS-2 + Grid'5000, 20
// clusters, 3,152 processors) under grid-LF at 70% load per cluster, and
// reports events per second of one core and the jobs simulated per second.
func BenchmarkArch(b *testing.B) {
	jobs, top := cachedGridLF(b, "das2-g5k", 0.7, 24*time.Hour, 1)
	for _, arch := range []string{"central", "dmm", "cern", "sep-c", "condor", "fcondor", "hier"} {
		b.Run(arch, func(b *testing.B) {
			cfg := DefaultConfig(arch)
			var events, n int64
			start := time.Now()
			for b.Loop() {
				res, err := Run(cfg, top, &SliceSource{Jobs: jobs})
				if err != nil {
					b.Fatal(err)
				}
				events += res.Events
				n += int64(res.Jobs)
			}
			el := time.Since(start).Seconds()
			b.ReportMetric(float64(events)/el, "events/s")
			b.ReportMetric(float64(n)/el, "jobs/s")
		})
	}
}

// BenchmarkArchFailures is BenchmarkArch's day for central and dmm with
// the thesis's failures (docs/sim.md: dynamics) at their own rate.
func BenchmarkArchFailures(b *testing.B) {
	jobs, top := cachedGridLF(b, "das2-g5k", 0.7, 24*time.Hour, 1)
	for _, arch := range []string{"central", "dmm"} {
		b.Run(arch, func(b *testing.B) {
			cfg := DefaultConfig(arch)
			cfg.Failures = FailuresThesis
			var events int64
			restarts := 0
			start := time.Now()
			for b.Loop() {
				res, err := Run(cfg, top, &SliceSource{Jobs: jobs})
				if err != nil {
					b.Fatal(err)
				}
				events += res.Events
				restarts = res.Restarts
			}
			b.ReportMetric(float64(events)/time.Since(start).Seconds(), "events/s")
			b.ReportMetric(float64(restarts), "restarts")
		})
	}
}

// BenchmarkArchSeries is BenchmarkArch recording the run's Series (what
// gmark sim run does), for the cost of the series against BenchmarkArch.
func BenchmarkArchSeries(b *testing.B) {
	jobs, top := cachedGridLF(b, "das2-g5k", 0.7, 24*time.Hour, 1)
	for _, arch := range []string{"central", "dmm", "cern", "sep-c", "condor", "fcondor", "hier"} {
		b.Run(arch, func(b *testing.B) {
			cfg := DefaultConfig(arch)
			var events, n int64
			start := time.Now()
			for b.Loop() {
				res, _, err := RunWithSeries(cfg, top, &SliceSource{Jobs: jobs}, nil)
				if err != nil {
					b.Fatal(err)
				}
				events += res.Events
				n += int64(res.Jobs)
			}
			el := time.Since(start).Seconds()
			b.ReportMetric(float64(events)/el, "events/s")
			b.ReportMetric(float64(n)/el, "jobs/s")
		})
	}
}
