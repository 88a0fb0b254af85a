package placeholder

import (
	"context"
	"runtime"
	"strings"
	"testing"
	"time"
)

// An automatic start (count 0) on a zinf host: one placeholder per
// processor of the host, at most the site's max_count, the choice recorded
// with its inputs; the jobs run exactly once.
//
// Slow: 103 s at load 33–72 (2 cores, whole package run, its tests one at a
// time), most of it building the gmark binary (the first test of the package
// to ask for it pays for the build).
func TestZinfAutoCount(t *testing.T) {
	t.Parallel() // a live server in a directory of its own, waiting in real time: runs beside the others
	for _, tc := range []struct {
		name, extra string
		want        int
	}{
		{"processors", "", min(runtime.NumCPU(), 64)},
		{"max_count", "max_count = 1\n", 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			l := startLive(t, "[[group]]\nname = \"g\"\n[[group.site]]\nname = \"h\"\nkind = \"zinf\"\n"+tc.extra)
			const jobs = 12
			l.addJobs("g", jobs, "sleep 0.05; ")
			res, err := l.client.Start(context.Background(), "g", "h", 0)
			if err != nil || res.Count != tc.want || len(res.Placeholders) != tc.want || !strings.Contains(res.Auto, "free processors") {
				t.Fatalf("auto start: %+v %v; want %d placeholders", res, err, tc.want)
			}
			r := l.waitDone("g", 2*time.Minute)
			l.checkOnce(r, jobs)
			acts, err := l.client.Actions(context.Background(), "g", 0, 10000)
			if err != nil {
				t.Fatal(err)
			}
			found := false
			for _, a := range acts {
				if a.Action == "auto-count" && a.Detail == res.Auto {
					found = true
				}
			}
			if !found {
				t.Errorf("the choice %q is not recorded", res.Auto)
			}
		})
	}
}
