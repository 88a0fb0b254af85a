package grid

import (
	"os"
	"strings"
	"testing"
)

// FuzzParse: any input is either a valid grid or an error naming the file;
// never a panic. A valid grid satisfies what the scheduler relies on.
func FuzzParse(f *testing.F) {
	for _, path := range []string{"../../examples/das2.toml", "../../examples/das2-replicated.toml"} {
		if b, err := os.ReadFile(path); err == nil {
			f.Add(b)
		}
	}
	f.Add([]byte("[[cluster]]\nname = \"a\"\nprocessors = 8\n[cluster.background]\nlow = 0.1\nhigh = 0.2\n"))
	f.Fuzz(func(t *testing.T, src []byte) {
		g, err := Parse("g.toml", src)
		if err != nil {
			if !strings.HasPrefix(err.Error(), "g.toml") {
				t.Fatalf("error without the file name: %v", err)
			}
			return
		}
		if len(g.Clusters) == 0 || g.TotalProcessors() < 1 || g.Scheduler.ScanInterval.Duration <= 0 {
			t.Fatalf("accepted an unusable grid: %+v", g)
		}
		for _, c := range g.Clusters {
			if c.Processors < 1 || !(c.Speed > 0) {
				t.Fatalf("accepted cluster %+v", c)
			}
		}
	})
}
