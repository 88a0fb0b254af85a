package batch

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/gmark/gmark/analyzer/store"
	"github.com/gmark/gmark/submitter"
	"github.com/gmark/gmark/workload"
)

// Outputs in the shapes HTCondor and Grid Engine print them.
const condorQ = `[
{"ClusterId": 12, "ProcId": 0, "JobStatus": 2, "GmarkName": "gmark-1-0.a1-r", "JobStartDate": 1700000010},
{"ClusterId": 13, "ProcId": 0, "JobStatus": 1, "GmarkName": "gmark-1-1.a1-r"}
]`

const condorHistory = `[
{"ClusterId": 11, "ProcId": 0, "JobStatus": 4, "GmarkName": "gmark-0-9.a1-r", "JobStartDate": 1700000001,
 "CompletionDate": 1700000005, "ExitCode": 3, "ExitBySignal": false}
]`

const qstatXML = `<?xml version='1.0'?>
<job_info  xmlns:xsd="http://arc.liv.ac.uk/repos/darcs/sge/source/dist/util/resources/schemas/qstat/qstat.xsd">
  <queue_info>
    <job_list state="running">
      <JB_job_number>41</JB_job_number>
      <JAT_prio>0.55500</JAT_prio>
      <JB_name>gmark-1-0.a1-r</JB_name>
      <JB_owner>root</JB_owner>
      <state>r</state>
      <JAT_start_time>2026-11-22T15:55:20</JAT_start_time>
      <queue_name>all.q@vm</queue_name>
      <slots>1</slots>
    </job_list>
  </queue_info>
  <job_info>
    <job_list state="pending">
      <JB_job_number>42</JB_job_number>
      <JB_name>gmark-1-1.a1-r</JB_name>
      <state>qw</state>
      <JB_submission_time>2026-11-22T15:55:21</JB_submission_time>
      <slots>1</slots>
    </job_list>
  </job_info>
</job_info>`

const qacctOut = `==============================================================
qname        all.q
hostname     vm
jobname      gmark-1-0.a1-r
jobnumber    41
start_time   Sun Nov 22 15:55:20 2026
end_time     Sun Nov 22 15:55:25 2026
failed       0
exit_status  0
`

func TestParseCondor(t *testing.T) {
	ads, err := parseCondorAds([]byte(condorQ))
	if err != nil || len(ads) != 2 {
		t.Fatalf("%v %v", ads, err)
	}
	if st := ads[0].status(); ads[0].id() != "12.0" || st.class != "running" || st.start != 1700000010 {
		t.Fatalf("%+v", st)
	}
	if st := ads[1].status(); st.class != "queued" {
		t.Fatalf("%+v", st)
	}
	ads, _ = parseCondorAds([]byte(condorHistory))
	if st := ads[0].status(); st.class != "failed" || *st.exit != 3 || st.end != 1700000005 {
		t.Fatalf("%+v", st)
	}
	if ads, err := parseCondorAds([]byte("\n")); err != nil || len(ads) != 0 {
		t.Fatalf("empty queue: %v %v", ads, err)
	}
}

func TestParseSGE(t *testing.T) {
	jobs, err := parseQstat([]byte(qstatXML))
	if err != nil || len(jobs) != 2 {
		t.Fatalf("%v %v", jobs, err)
	}
	if st := qstatStatus(jobs[0]); jobs[0].Number != "41" || st.class != "running" || st.start == 0 {
		t.Fatalf("%+v %+v", jobs[0], st)
	}
	if st := qstatStatus(jobs[1]); st.class != "queued" || jobs[1].Name != "gmark-1-1.a1-r" {
		t.Fatalf("%+v", st)
	}
	m := parseQacct([]byte(qacctOut))
	st := qacctStatus(m)
	if m["jobnumber"] != "41" || st.class != "succeeded" || st.end-st.start != 5 || *st.exit != 0 {
		t.Fatalf("%v %+v", m, st)
	}
}

// A live HTCondor run needs its commands and a working pool; without them
// the test says so and skips (Grid Engine's live test, TestLiveSGE, starts
// a cell of its own).
func TestLive(t *testing.T) {
	for _, sys := range []string{"condor"} {
		t.Run(sys, func(t *testing.T) {
			if m := Missing(sys); m != "" {
				t.Skipf("%s not installed (%s missing); the %s target is tested against parsed sample outputs only", sys, m, sys)
			}
			st, err := store.Open(filepath.Join(t.TempDir(), "results.db"))
			if err != nil {
				t.Fatal(err)
			}
			defer st.Close()
			cfg := Config{WorkDir: t.TempDir(), Poll: time.Second}
			var tg *Target
			if sys == "condor" {
				tg, err = NewCondor(cfg)
			} else {
				tg, err = NewSGE(cfg)
			}
			if err != nil {
				t.Fatal(err)
			}
			defer tg.Close()
			dir := t.TempDir()
			jobs := []workload.Job{
				{ID: "1-0", Unit: 1, Kind: workload.Unitary, Type: "hello", SiteType: workload.Single,
					App: workload.App{Name: "hello"}, Components: []workload.Component{{Site: "*", Count: 1}}},
			}
			f, _ := os.Create(filepath.Join(dir, workload.JobsFile))
			w := workload.NewWriter(f)
			w.Write(&jobs[0])
			w.Flush()
			f.Close()
			rc := submitter.Config{WorkloadDir: dir, Store: st, Target: tg}
			rc.Tail, rc.HasTail = 5*time.Minute, true
			sum, err := submitter.Run(context.Background(), rc)
			if err != nil {
				t.Fatal(err)
			}
			rows, _ := st.Jobs(sum.RunID)
			if len(rows) != 1 || rows[0].TargetID == "" {
				t.Fatalf("%+v", rows)
			}
			t.Logf("%s: job %s %s (%s)", sys, rows[0].TargetID, rows[0].State, rows[0].Reason)
		})
	}
}
