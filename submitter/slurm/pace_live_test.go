package slurm

import (
	"context"
	"fmt"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/gmark/gmark/analyzer/store"
	"github.com/gmark/gmark/internal/testkit"
	"github.com/gmark/gmark/submitter"
	"github.com/gmark/gmark/submitter/slurm/slurmtest"
	"github.com/gmark/gmark/workload"
)

// On a real cluster each poll's cost is squeue's CPU (more than nothing),
// and with poll_cpu_factor 1000 the polls are spaced by it, not by the
// 200 ms ticks: each starts no sooner than 1000 times the last one's CPU
// after it (less the half tick a tick may come early). The jobs' states
// and Slurm's times are recorded all the same.
func TestLivePollPacing(t *testing.T) {
	e := slurmtest.Start(t, slurmtest.Options{}, "pace")
	tg := newTarget(t, e, t.TempDir())
	tg.cfg.Poll, tg.cfg.PollCPUFactor = 200*time.Millisecond, 1000
	for _, c := range tg.clusters {
		c.pace = pacer{poll: tg.cfg.Poll, factor: tg.cfg.PollCPUFactor}
	}
	type note struct {
		started time.Time
		cpu     time.Duration
	}
	var mu sync.Mutex
	var notes []note
	tg.polled = func(_ *cluster, started time.Time, cpu time.Duration) {
		mu.Lock()
		notes = append(notes, note{started, cpu})
		mu.Unlock()
	}
	var jobs []workload.Job
	for i := 0; i < 4; i++ {
		j := mkjob(fmt.Sprintf("1-%d", i), time.Duration(i)*300*time.Millisecond, "6", "*")
		j.Index = i
		jobs = append(jobs, j)
	}
	st, err := store.Open(filepath.Join(t.TempDir(), "results.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	sum, err := submitter.Run(context.Background(), submitter.Config{WorkloadDir: testkit.WriteWorkload(t, jobs...), Store: st, Target: tg})
	tg.Close()
	if err != nil {
		t.Fatal(err)
	}
	if sum.Jobs[store.Succeeded] != len(jobs) {
		t.Fatalf("summary %+v", sum)
	}
	rows, _ := st.Jobs(sum.RunID)
	slurm := slurmJobs(t, e)
	for _, r := range rows {
		found := false
		for _, s := range slurm {
			if fmt.Sprintf("pace:%d", s.ID) == r.TargetID {
				found = true
				if r.StartNS != s.Start*1e9 || r.EndNS != s.End*1e9 || r.TargetSubmitNS != s.Submit*1e9 {
					t.Errorf("%s: submit/start/end %d/%d/%d in the store, %d/%d/%d in Slurm", r.JobID,
						r.TargetSubmitNS, r.StartNS, r.EndNS, s.Submit*1e9, s.Start*1e9, s.End*1e9)
				}
			}
		}
		if !found {
			t.Errorf("%s (%s): not in Slurm", r.JobID, r.TargetID)
		}
	}
	mu.Lock()
	defer mu.Unlock()
	if len(notes) < 3 {
		t.Fatalf("%d polls: want at least 3 (queued, running, final)", len(notes))
	}
	p := pacer{poll: tg.cfg.Poll, factor: tg.cfg.PollCPUFactor}
	for i, n := range notes {
		if n.cpu <= 0 {
			t.Errorf("poll %d: squeue's CPU %v, want more than 0", i, n.cpu)
		}
		if i == 0 {
			continue
		}
		prev := notes[i-1]
		if gap, least := n.started.Sub(prev.started), p.wait(prev.cpu)-p.poll/2; gap < least {
			t.Errorf("poll %d came %v after the one before, which cost %v: want at least %v", i, gap, prev.cpu, least)
		}
	}
	t.Logf("%d polls; squeue's CPU of the first %v", len(notes), notes[0].cpu)
}
