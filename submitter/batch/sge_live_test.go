package batch

import (
	"bufio"
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gmark/gmark/analyzer/store"
	"github.com/gmark/gmark/internal/testkit"
	"github.com/gmark/gmark/submitter"
	"github.com/gmark/gmark/submitter/batch/sgetest"
	"github.com/gmark/gmark/workload"
)

// Stand-ins for the programs an sge script runs: gmark sleeps --runtime
// seconds and exits with --exit (the real applications run end to end in
// cmd/gmark's tests); mpiexec checks that Grid Engine granted the slots
// of the parallel environment "mpi" it is asked to start, then runs the
// program once.
var sgeStandIns = map[string]string{
	"gmark": `#!/bin/sh
shift; name=$1; shift
rt=0; code=0
while [ $# -gt 0 ]; do case $1 in --runtime) rt=$2; shift;; --exit) code=$2; shift;; esac; shift; done
echo "gmark-$name job=$GMARK_JOB_ID"
sleep $rt
exit $code
`,
	"mpiexec": `#!/bin/sh
[ "$1" = -n ] && [ "$2" = "$NSLOTS" ] && [ "$PE" = mpi ] || {
  echo "mpiexec stand-in: asked for $1 $2, Grid Engine granted $NSLOTS slots of PE '$PE'" >&2; exit 90; }
shift 2
exec "$@"
`,
}

func sgeJob(id, runtime string, procs int, site string) workload.Job {
	j := workload.Job{ID: id, Unit: 1, Kind: workload.Unitary, Type: "swf", SiteType: workload.Single,
		App:        workload.App{Name: "swf", Params: []workload.Param{{Key: "runtime", Value: runtime}}},
		Components: []workload.Component{{Site: site, Count: procs}}}
	return j
}

// qacctRecord is what Grid Engine's accounting says about one job, read
// here independently of the target's parser.
type qacctRecord struct {
	fields             map[string]string
	submit, start, end int64
}

func qacctJob(t *testing.T, c *sgetest.Cell, id string) qacctRecord {
	t.Helper()
	out, err := c.Cmd("qacct", "-j", id).CombinedOutput()
	if err != nil {
		t.Fatalf("qacct -j %s: %v: %s", id, err, out)
	}
	r := qacctRecord{fields: map[string]string{}}
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		if f := strings.Fields(sc.Text()); len(f) >= 2 {
			r.fields[f[0]] = strings.Join(f[1:], " ")
		}
	}
	for key, to := range map[string]*int64{"qsub_time": &r.submit, "start_time": &r.start, "end_time": &r.end} {
		tm, err := time.ParseInLocation("Mon Jan 2 15:04:05 2006", r.fields[key], time.Local)
		if err != nil {
			t.Fatalf("qacct -j %s: %s: %v", id, key, err)
		}
		*to = tm.UnixNano()
	}
	return r
}

// The sge target against a real Grid Engine cell: a serial job, a parallel
// one (-pe mpi 4, on the queue its site names), one with a wall time and
// one that fails run through the real qmaster and execd; what the store
// records (state, exit status, submit/start/end times) is what Grid
// Engine's accounting says, and the parallel job got its 4 slots.
func TestLiveSGE(t *testing.T) {
	cell := sgetest.Start(t, sgetest.Options{Slots: 8, Queues: []string{"all.q", "fs0"}})
	cell.Setenv(t)
	bin := t.TempDir()
	for name, body := range sgeStandIns {
		if err := os.WriteFile(filepath.Join(bin, name), []byte(body), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	timed := sgeJob("1-3", "0.1", 1, "all.q")
	timed.WallTime = time.Minute
	bad := sgeJob("1-2", "0", 1, "*")
	bad.App.Params = append(bad.App.Params, workload.Param{Key: "exit", Value: "3"})
	jobs := []workload.Job{sgeJob("1-0", "0.2", 1, "*"), sgeJob("1-1", "0.2", 4, "fs0"), bad, timed}

	st, err := store.Open(filepath.Join(t.TempDir(), "results.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	work := t.TempDir()
	tg, err := NewSGE(Config{WorkDir: work, Executable: filepath.Join(bin, "gmark"), Poll: 300 * time.Millisecond,
		SubmitArgs: []string{"-v", "PATH=" + bin + ":/usr/bin:/bin"}})
	if err != nil {
		t.Fatal(err)
	}
	defer tg.Close()
	rc := submitter.Config{WorkloadDir: testkit.WriteWorkload(t, jobs...), Store: st, Target: tg}
	rc.Tail, rc.HasTail = time.Minute, true
	sum, err := submitter.Run(context.Background(), rc)
	if err != nil {
		t.Fatalf("%v\n%s", err, cell.Logs())
	}
	rows, err := st.Jobs(sum.RunID)
	if err != nil || len(rows) != len(jobs) {
		t.Fatalf("%d rows, %v", len(rows), err)
	}
	want := map[string]struct {
		state, queue, slots string
		exit                int
	}{
		"1-0": {store.Succeeded, "all.q", "1", 0},
		"1-1": {store.Succeeded, "fs0", "4", 0},
		"1-2": {store.Failed, "all.q", "1", 3},
		"1-3": {store.Succeeded, "all.q", "1", 0},
	}
	for _, r := range rows {
		w := want[r.JobID]
		id, ok := strings.CutPrefix(r.TargetID, "sge:")
		if !ok {
			t.Errorf("%s: target id %q", r.JobID, r.TargetID)
			continue
		}
		if r.State != w.state || r.ExitStatus == nil || *r.ExitStatus != w.exit {
			stderr, _ := os.ReadFile(filepath.Join(work, r.JobID+".err"))
			t.Errorf("%s: %s (%s), exit %s; want %s, exit %d; its stderr:\n%s", r.JobID, r.State, r.Reason,
				exitString(r.ExitStatus), w.state, w.exit, stderr)
		}
		acct := qacctJob(t, cell, id)
		if got := acct.fields["jobname"]; !strings.HasPrefix(got, "gmark-"+r.JobID+".a1-") {
			t.Errorf("%s: Grid Engine job %s is named %q", r.JobID, id, got)
		}
		if acct.fields["qname"] != w.queue || acct.fields["slots"] != w.slots || acct.fields["exit_status"] != strconv.Itoa(w.exit) {
			t.Errorf("%s: qacct says queue %s, %s slots, exit %s; want %s, %s, %d", r.JobID,
				acct.fields["qname"], acct.fields["slots"], acct.fields["exit_status"], w.queue, w.slots, w.exit)
		}
		if r.TargetSubmitNS != acct.submit || r.StartNS != acct.start || r.EndNS != acct.end {
			t.Errorf("%s: submit/start/end %d/%d/%d in the store, %d/%d/%d in qacct", r.JobID,
				r.TargetSubmitNS, r.StartNS, r.EndNS, acct.submit, acct.start, acct.end)
		}
		if r.JobID == "1-1" && acct.fields["granted_pe"] != "mpi" {
			t.Errorf("1-1: granted PE %q, want mpi", acct.fields["granted_pe"])
		}
		if r.JobID == "1-3" && !strings.Contains(acct.fields["category"], "h_rt=60") {
			t.Errorf("1-3: category %q has no h_rt=60", acct.fields["category"])
		}
	}
}

func exitString(p *int) string {
	if p == nil {
		return "none"
	}
	return strconv.Itoa(*p)
}
