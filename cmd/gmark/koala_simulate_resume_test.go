package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/gmark/gmark/analyzer/store"
)

// A 'gmark koala simulate --db' killed with SIGKILL mid-run, then killed
// again while resuming, is finished by '--resume RUN': the store then
// holds the rows of an uninterrupted run of the same workload (all but the
// times they were recorded, and the resumption's own provenance records
// and events), and the report's summary is the same. Without --resume the
// same --run-id is refused with the hint, exit 2; so is a resume while
// another process records the run, and a resume with another policy.
//
// Slow: 93 s at load 20–40 (2 cores, whole package run): simulations of
// 40,000 jobs, killed and resumed, and one uninterrupted.
func TestKoalaSimulateResumesAfterKill9(t *testing.T) {
	t.Parallel() // kills and resumes processes and waits on them: runs beside the others
	if testing.Short() {
		t.Skip("two simulations of 40,000 jobs, killed: not with -short")
	}
	const jobs = 40_000
	dir := t.TempDir()
	spec := fmt.Sprintf("# File-type: text/wl-spec\n# File-version: 1.1\n1\tunitary\t%d\tswf\tsingle\t?\t*:?\tPoisson(1.2s)\tTotalCPUsWithWeights=1;2;4;8,RunTime=U(5s,200s),RunTimeInMinutes=5\n", jobs)
	must(t, os.WriteFile(filepath.Join(dir, "big.wdl"), []byte(spec), 0o644))
	if _, stderr, code := run(t, dir, "generate", "big.wdl", "-o", "wl", "-q"); code != 0 {
		t.Fatalf("generate: exit %d: %s", code, stderr)
	}
	args := func(db string, more ...string) []string {
		a := []string{"koala", "simulate", "--grid", abs(t, "../../examples/das2.toml"), "--policy", "WF", "--limit", "87600h", "--json", "--db", db}
		return append(append(a, more...), "wl")
	}
	if _, stderr, code := run(t, dir, args("ref.db", "--run-id", "r")...); code != 0 {
		t.Fatalf("the uninterrupted run: exit %d: %s", code, stderr)
	}
	// Killed once with a quarter of the jobs recorded, once more while
	// resuming with 60%.
	killWhenRecorded(t, dir, args("cut.db", "--run-id", "r"), filepath.Join(dir, "cut.db"), jobs/4, nil)
	killWhenRecorded(t, dir, args("cut.db", "--resume", "r"), filepath.Join(dir, "cut.db"), jobs*6/10, func() {
		if _, stderr, code := run(t, dir, args("cut.db", "--resume", "r")...); code != 2 || !strings.Contains(stderr, "run r: the run is being recorded by another process") {
			t.Errorf("a second resume while the first runs: exit %d: %s", code, stderr)
		}
	})
	if _, stderr, code := run(t, dir, args("cut.db", "--run-id", "r")...); code != 2 || !strings.Contains(stderr, "run r: a run of this id is already in the store (--resume continues") {
		t.Errorf("the same --run-id again: exit %d: %s", code, stderr)
	}
	other := args("cut.db", "--resume", "r")
	other[5] = "CF" // --policy
	if _, stderr, code := run(t, dir, other...); code != 2 || !strings.Contains(stderr, `"policy":"WF"`) {
		t.Errorf("resumed with another policy: exit %d: %s", code, stderr)
	}
	if _, stderr, code := run(t, dir, args("cut.db", "--resume", "r")...); code != 0 {
		t.Fatalf("the resume: exit %d: %s", code, stderr)
	}
	for _, q := range []string{
		`SELECT job_id, state, submit_ns, start_ns, end_ns, delay_ns, summary FROM jobs WHERE run_id = 'r' ORDER BY job_id`,
		`SELECT job_id, attempt, time_ns, kind, payload FROM events WHERE run_id = 'r' AND kind != 'run-resume' ORDER BY job_id, kind, time_ns, payload`,
		`SELECT key, ok, submit_ns, delay_ns, done_ns, target_id, error FROM submission_results WHERE run_id = 'r' ORDER BY key`,
		`SELECT end_ns, status, summary FROM run_ends WHERE run_id = 'r'`,
		`SELECT kind, key, value FROM annotations WHERE run_id = 'r' ORDER BY kind, key`,
	} {
		want, got := queryRows(t, filepath.Join(dir, "ref.db"), q), queryRows(t, filepath.Join(dir, "cut.db"), q)
		if got != want || len(want) == 0 {
			t.Errorf("%s:\nresumed  %.300s\nuninterrupted %.300s", q, got, want)
		}
	}
	if n := strings.Count(queryRows(t, filepath.Join(dir, "cut.db"), `SELECT seq FROM provenance WHERE run_id = 'r'`), "\n"); n != 3 {
		t.Errorf("%d provenance records, want 3 (the run, two resumptions)", n)
	}
	ref, _, _ := run(t, dir, "report", "--db", "ref.db", "-f", "summary")
	cut, _, _ := run(t, dir, "report", "--db", "cut.db", "-f", "summary")
	if ref != cut || !strings.Contains(ref, fmt.Sprintf("jobs %d: %d succeeded", jobs, jobs)) {
		t.Errorf("report of the resumed run:\n%s\nof the uninterrupted one:\n%s", cut, ref)
	}
}

// killWhenRecorded starts gmark with args in dir and kills it (SIGKILL)
// once the store at db holds at least n job rows of run r, after calling
// stopped (when not nil) with the process stopped (SIGSTOP); the run must
// be unfinished then.
func killWhenRecorded(t *testing.T, dir string, args []string, db string, n int, stopped func()) {
	t.Helper()
	cmd := exec.Command(buildGmark(t), args...)
	cmd.Dir = dir
	must(t, cmd.Start())
	defer func() {
		if cmd.ProcessState == nil {
			cmd.Process.Signal(syscall.SIGKILL)
			cmd.Wait()
		}
	}()
	recorded := 0
	for deadline := time.Now().Add(5 * time.Minute); recorded < n; time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("%d of %d jobs recorded after 5 minutes", recorded, n)
		}
		if st, err := store.OpenReadOnly(db); err == nil {
			recorded, _ = st.CountJobs("r")
			st.Close()
		}
	}
	if stopped != nil {
		must(t, cmd.Process.Signal(syscall.SIGSTOP))
		stopped()
	}
	must(t, cmd.Process.Signal(syscall.SIGKILL))
	cmd.Wait()
	st, err := store.OpenReadOnly(db)
	must(t, err)
	defer st.Close()
	if _, ended, err := st.RunEnd("r"); err != nil || ended {
		t.Fatalf("run r ended before the kill (%d jobs recorded): the workload is too small to cut; %v", recorded, err)
	}
}

// queryRows is the rows of a read-only query of the store at db, a line
// each.
func queryRows(t *testing.T, db, q string) string {
	t.Helper()
	st, err := store.OpenReadOnly(db)
	must(t, err)
	defer st.Close()
	rows, err := st.DB().Query(q)
	must(t, err)
	defer rows.Close()
	cols, _ := rows.Columns()
	var b strings.Builder
	vals := make([]any, len(cols))
	ptrs := make([]any, len(cols))
	for i := range vals {
		ptrs[i] = &vals[i]
	}
	for rows.Next() {
		must(t, rows.Scan(ptrs...))
		fmt.Fprintln(&b, vals...)
	}
	must(t, rows.Err())
	return b.String()
}
