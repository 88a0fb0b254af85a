package placeholder

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/gmark/gmark/placeholder/metaqueue"
)

const twoSites = `
[[group]]
name = "g"
[[group.site]]
name = "a"
kind = "zinf"
[[group.site]]
name = "b"
kind = "zinf"
`

// stopSite makes zinf site a of group g stop executing, as Exp. 2's site A
// did when its account ran out of CPU quota: from now on a placeholder
// that starts there hangs without calling the metaqueue (its script is
// replaced), and every process of the site (placeholders and the jobs
// they run) is killed. Three sweeps catch a successor forked while the
// script was being replaced.
func stopSite(t *testing.T, l *live) {
	t.Helper()
	dir := filepath.Join(l.dir, "mq.db.sites", "g", "a")
	script := filepath.Join(dir, "placeholder.zinf")
	if _, err := os.Stat(script); err != nil {
		t.Fatal(err)
	}
	tmp := script + ".new"
	if err := os.WriteFile(tmp, []byte("#!/bin/sh\n# the site stopped executing\nsleep 3600\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, script); err != nil {
		t.Fatal(err)
	}
	for range 3 {
		for _, pid := range pidsIn(dir) {
			if err := syscall.Kill(-pid, syscall.SIGKILL); errors.Is(err, syscall.ESRCH) {
				_ = syscall.Kill(pid, syscall.SIGKILL)
			}
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// A site stopped at time T, on real processes: two zinf sites, the first
// job to run at site a blocks (so that a job is running there when it
// stops), and site a stops either mid-run (a third of the jobs done) or at
// the end (every other job done, site b's placeholders gone: only the
// watchdog's revival of site b can run the job put back). The workload
// still completes; every job ran exactly once, or is reported maybe
// duplicated with its reason; none bound at site a after it stopped ran
// to its end.
func TestZinfSiteStoppedMidRun(t *testing.T) {
	t.Parallel() // a live server in a directory of its own, waiting in real time: runs beside the others
	const jobs = 40
	for _, tc := range []struct {
		name  string
		ready func(l *live) bool
	}{
		{"mid-run", func(l *live) bool { return len(l.runs()) >= jobs/3 }},
		{"at the end", func(l *live) bool {
			g, err := l.client.Group(context.Background(), "g")
			if err != nil || g.Remaining != 1 {
				return false
			}
			phs, err := l.client.Placeholders(context.Background(), "g", false)
			if err != nil {
				return false
			}
			for _, p := range phs {
				if p.Site == "b" {
					return false
				}
			}
			return true
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			l := startLive(t, twoSites, "--probe", "--exec-failure", "0")
			gate := filepath.Join(l.dir, "gate")
			l.addJobs("g", jobs, `if [ "$GMARK_PLACEHOLDER_SITE" = a ] && mkdir `+gate+` 2>/dev/null; then sleep 3600; fi; sleep 0.05; `)
			l.startPH("g", "a", 2)
			l.startPH("g", "b", 2)
			deadline := time.Now().Add(2 * time.Minute)
			for !tc.ready(l) || len(pidsIn(gate)) == 0 {
				if time.Now().After(deadline) {
					t.Fatalf("not ready: %d jobs ran", len(l.runs()))
				}
				time.Sleep(50 * time.Millisecond)
			}
			ranBefore := len(l.runs())
			stopSite(t, l)
			stoppedAt := time.Now()
			r := l.waitDone("g", 3*time.Minute)
			listed := l.checkOnce(r, jobs)
			if len(r.Possible) < 1 || !strings.Contains(r.Possible[0].Reason, metaqueue.EndLost) {
				t.Errorf("the job cut short at site a is not reported: %+v", r.Possible)
			}
			js, err := l.client.Jobs(context.Background(), "g", "", 0, 1000)
			if err != nil {
				t.Fatal(err)
			}
			for _, j := range js {
				for _, a := range j.Attempts {
					if a.Site == "a" && a.Bound.After(stoppedAt) && a.Outcome == metaqueue.Finished {
						t.Errorf("job %d: attempt %d bound at site a after it stopped ran to its end", j.ID, a.ID)
					}
				}
			}
			acts, err := l.client.Actions(context.Background(), "g", 0, 100000)
			if err != nil {
				t.Fatal(err)
			}
			revived := 0
			for _, a := range acts {
				if a.Action == "submit" && strings.Contains(a.Detail, "revive") {
					revived++
					if a.Site != "b" {
						t.Errorf("revived site %s", a.Site)
					}
				}
			}
			if tc.name == "at the end" && revived == 0 {
				t.Error("site b was not revived: the job put back had no placeholder to run it")
			}
			t.Logf("site a stopped after %d of %d jobs ran: %d once, %d listed (maybe) duplicated, %d revivals of site b",
				ranBefore, jobs, r.Once, listed, revived)
		})
	}
}
