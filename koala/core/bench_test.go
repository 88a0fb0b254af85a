package core

import (
	"fmt"
	"testing"
	"time"

	"github.com/gmark/gmark/koala/grid"
	"github.com/gmark/gmark/workload"
)

// BenchmarkScan10000 measures one placement-queue scan over 10,000 queued
// jobs on the DAS-2 grid with the clusters nearly full, so that almost every
// try fails, as in a saturated system (the target: <= 20 ms).
func BenchmarkScan10000(b *testing.B) {
	for _, policy := range []string{"WF", "CF"} {
		b.Run(policy, func(b *testing.B) {
			g, err := grid.Load("../../examples/das2.toml")
			if err != nil {
				b.Fatal(err)
			}
			g.Scheduler.Policy = policy
			for i := range g.Clusters {
				g.Clusters[i].Background = grid.Background{} // no background controller
			}
			f := false
			g.Scheduler.PlaceOnSubmit = &f
			c, err := New(g, t0, nil, nil)
			if err != nil {
				b.Fatal(err)
			}
			// Leave 6 idle processors per cluster: jobs of 8 and 16 never fit,
			// jobs of 4 fit until the idle processors are reserved.
			for _, cl := range c.clusters {
				if err := c.SubmitLocalJob(cl.cfg.Name, cl.cfg.Processors-6, 24*time.Hour); err != nil {
					b.Fatal(err)
				}
			}
			sizes := []int{4, 8, 16, 8}
			for i := 0; i < 10000; i++ {
				n := 1 + i%4
				var comps []workload.Component
				for k := 0; k < n; k++ {
					comps = append(comps, workload.Component{Site: workload.AnySite, Count: sizes[(i+k)%len(sizes)]})
				}
				j := workload.Job{ID: fmt.Sprint(i), Kind: workload.Unitary, Type: "swf", SiteType: workload.Unordered,
					App: workload.App{Name: "swf"}, Components: comps, RunTime: time.Minute,
					Files: []workload.File{{Name: "file-2g", Size: 2 << 30}}}
				if _, err := c.Submit(j, Options{Priority: High}); err != nil {
					b.Fatal(err)
				}
			}
			b.ResetTimer()
			start := time.Now()
			for i := 0; i < b.N; i++ {
				c.scan(High)
			}
			b.ReportMetric(float64(time.Since(start).Milliseconds())/float64(b.N), "ms/scan")
			b.ReportMetric(float64(c.QueueLength()), "queued")
		})
	}
}
