package koalatarget

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/gmark/gmark/internal/testkit"
	"github.com/gmark/gmark/koala/core"
	"github.com/gmark/gmark/koala/grid"
	"github.com/gmark/gmark/workload"
)

// countingSink counts the events it is passed.
type countingSink struct{ n int }

func (c *countingSink) Event(*core.Event) { c.n++ }

// The summary reports the longest placement queue left after a scan (the
// thesis's W50 "placement queue up to 30"): on one cluster of 10
// processors, n jobs of 10 processors arriving together run one at a time,
// so the first scan leaves n-1 of them queued. The events still reach the
// caller's sink.
func TestSimulateReportsTheLongestQueue(t *testing.T) {
	g, err := grid.Parse("one.toml", []byte("[scheduler]\nscan_interval = \"1m\"\n[[cluster]]\nname = \"A\"\nprocessors = 10\n"))
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range []int{1, 2, 5} {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			var jobs []workload.Job
			for i := 0; i < n; i++ {
				jobs = append(jobs, workload.Job{ID: fmt.Sprintf("1-%d", i), Kind: workload.Unitary, Type: "swf",
					SiteType: workload.Single, RunTime: 10 * time.Minute, App: workload.App{Name: "swf"},
					Components: []workload.Component{{Site: workload.AnySite, Count: 10}}})
			}
			events := &countingSink{}
			sim, err := Simulate(g, testkit.WriteWorkload(t, jobs...), SimOptions{Priority: core.High, Limit: 24 * time.Hour, Events: events})
			if err != nil {
				t.Fatal(err)
			}
			sum := sim.Summary()
			if sum.Finished != n || sum.MaxQueue != n-1 || sim.MaxQueue != n-1 {
				t.Errorf("%d finished, longest queue %d (simulation %d); want %d and %d", sum.Finished, sum.MaxQueue, sim.MaxQueue, n, n-1)
			}
			if events.n == 0 {
				t.Error("no event reached the caller's sink")
			}
			var text bytes.Buffer
			sum.WriteText(&text, "one", "CF")
			if want := fmt.Sprintf("placement queue at most %d jobs", n-1); !strings.Contains(text.String(), want) {
				t.Errorf("summary %q does not say %q", text.String(), want)
			}
		})
	}
}
