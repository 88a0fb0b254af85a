package slurm

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/gmark/gmark/analyzer/store"
	"github.com/gmark/gmark/internal/testkit"
	"github.com/gmark/gmark/submitter"
	"github.com/gmark/gmark/submitter/slurm/slurmtest"
	"github.com/gmark/gmark/workload"
)

func compLine(id int64, name, state string) string {
	return fmt.Sprintf("JobId=%d UserId=root(0) GroupId=root(0) Name=%s JobState=%s Partition=debug TimeLimit=UNLIMITED "+
		"StartTime=2026-01-01T00:00:01 EndTime=2026-01-01T00:00:02 NodeList=n1 NodeCnt=1 ProcCnt=1 WorkDir=/ ReservationName= "+
		"Tres=cpu=1 Account= QOS= WcKey= Cluster=c SubmitTime=2026-01-01T00:00:00 EligibleTime=2026-01-01T00:00:00 "+
		"DerivedExitCode=0:0 ExitCode=0:0\n", id, name, state)
}

// The poller reads the job completion log on from where it stopped, a
// line being written the next time, keeps only its own jobs' records (the
// last of a job's lines), and reads a log replaced or cut short from its
// start.
func TestJobCompTail(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "jobcomp.log")
	c := &cluster{name: "c", jobcomp: path, jobcompKnown: true}
	tg := &Target{}
	ctx := context.Background()
	ids := func(ours ...int64) map[int64]bool {
		m := map[int64]bool{}
		for _, id := range ours {
			m[id] = true
		}
		return m
	}
	got := func(ours map[int64]bool) []string {
		recs, _ := tg.jobCompTail(ctx, c, ours)
		var out []string
		for id, r := range recs {
			out = append(out, fmt.Sprintf("%d %s", id, r.State))
		}
		slices.Sort(out)
		return out
	}
	write := func(flag int, s string) {
		f, err := os.OpenFile(path, flag|os.O_WRONLY|os.O_CREATE, 0o644)
		if err != nil {
			t.Fatal(err)
		}
		f.WriteString(s)
		f.Close()
	}
	if g := got(ids(1)); len(g) != 0 {
		t.Fatalf("no log yet: %v", g)
	}
	write(os.O_TRUNC, compLine(1, "a", "FAILED")+compLine(2, "other", "COMPLETED"))
	full := compLine(3, "c", "COMPLETED")
	write(os.O_APPEND, full[:40]) // being written
	if g := got(ids(1, 3)); !slices.Equal(g, []string{"1 FAILED"}) {
		t.Errorf("first read: %v", g)
	}
	write(os.O_APPEND, full[40:]+compLine(1, "a", "COMPLETED"))
	if g := got(ids(1, 3)); !slices.Equal(g, []string{"1 COMPLETED", "3 COMPLETED"}) {
		t.Errorf("after the line was finished: %v", g)
	}
	c.tail.forget(1)
	c.tail.forget(3)
	// Replaced (rotated): read from its start.
	os.Rename(path, path+".1")
	write(os.O_TRUNC, compLine(4, "d", "CANCELLED"))
	if g := got(ids(4)); !slices.Equal(g, []string{"4 CANCELLED"}) {
		t.Errorf("after rotation: %v", g)
	}
	// Cut short in place: read again from its start.
	write(os.O_TRUNC, compLine(5, "e", "TIMEOUT"))
	if g := got(ids(4, 5)); !slices.Equal(g, []string{"4 CANCELLED", "5 TIMEOUT"}) {
		t.Errorf("after truncation: %v", g)
	}
	// skipOldLog: what the log holds when the run starts is not read.
	c2 := &cluster{name: "c2", jobcomp: path, jobcompKnown: true}
	tg.skipOldLog(ctx, c2)
	write(os.O_APPEND, compLine(6, "f", "COMPLETED"))
	if recs, _ := tg.jobCompTail(ctx, c2, ids(5, 6)); len(recs) != 1 || recs[6] == nil {
		t.Errorf("after skipping the old log: %v", recs)
	}
}

// Jobs that leave the controller's list soon after they end (MinJobAge
// 2 s): the poller, which asks squeue for the jobs not final only, finds
// their ends in the job completion log, and on a cluster without one by
// asking squeue for those jobs by id; either way every job's record is
// Slurm's.
func TestLiveJobsLeaveTheList(t *testing.T) {
	t.Parallel() // Slurm clusters of its own, waited on in real time: runs beside the others
	for _, tc := range []struct {
		name, extra string
	}{{"with a job completion log", ""}, {"without one", "JobCompType=jobcomp/none\n"}} {
		t.Run(tc.name, func(t *testing.T) {
			e := slurmtest.Start(t, slurmtest.Options{MinJobAge: 2, Extra: tc.extra}, "leave")
			var jobs []workload.Job
			for i := 0; i < 12; i++ {
				jobs = append(jobs, mkjob(fmt.Sprintf("1-%d", i), time.Duration(i)*150*time.Millisecond, "0.1", "*"))
			}
			bad := mkjob("2-0", 0, "0", "*")
			bad.App.Params = append(bad.App.Params, workload.Param{Key: "exit", Value: "3"})
			jobs = append(jobs, bad)
			st, err := store.Open(filepath.Join(t.TempDir(), "results.db"))
			if err != nil {
				t.Fatal(err)
			}
			defer st.Close()
			tg := newTarget(t, e, t.TempDir())
			defer tg.Close()
			sum, err := submitter.Run(context.Background(), submitter.Config{WorkloadDir: testkit.WriteWorkload(t, jobs...), Store: st, Target: tg})
			if err != nil {
				t.Fatal(err)
			}
			if sum.Jobs[store.Succeeded] != 12 || sum.Jobs[store.Failed] != 1 {
				t.Fatalf("summary %+v", sum.Jobs)
			}
			rows, _ := st.Jobs(sum.RunID)
			for _, r := range rows {
				if r.StartNS == 0 || r.EndNS < r.StartNS || r.StartNS%1e9 != 0 {
					t.Errorf("%s: start %d, end %d (Slurm's, in whole seconds)", r.JobID, r.StartNS, r.EndNS)
				}
				if r.JobID == "2-0" && (r.ExitStatus == nil || *r.ExitStatus != 3 || !strings.Contains(r.Reason, "FAILED")) {
					t.Errorf("the failing job: %+v", r)
				}
			}
		})
	}
}
