package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gmark/gmark/analyzer/store"
	"github.com/gmark/gmark/internal/testkit"
)

// A failed job's reason is the event that ended it. Two hours of the LCG
// trace replayed on DAS-2 (15-minute run-time limit) send some jobs back to
// their queue once ("missed its start time") before they run and are
// killed at the limit: the store, the report's failure table and the
// simulation's summary give the limit, never the re-queue.
func TestKoalaSimulateLCGFailureReasons(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	spec := filepath.Join(dir, "lcg.wdl")
	if err := os.WriteFile(spec, []byte("1 wl:trace single 1 *:? - File="+testkit.LCG(t)+",From=40h,To=42h\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, stderr, code := run(t, dir, "generate", spec, "-o", "w", "-q"); code != 0 {
		t.Fatal(stderr)
	}
	stdout, stderr, code := run(t, dir, "koala", "simulate", "--grid", abs(t, "../../examples/das2.toml"), "--json", "--db", "k.db", "--run-id", "lcg", "w")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var sum struct {
		Failed         int            `json:"failed"`
		FailureReasons map[string]int `json:"failure_reasons"`
	}
	if err := json.Unmarshal([]byte(stdout), &sum); err != nil {
		t.Fatalf("%v: %s", err, stdout)
	}
	for reason, n := range sum.FailureReasons {
		if strings.Contains(reason, "missed its start time") {
			t.Errorf("summary: %d jobs failed with the re-queue's reason %q", n, reason)
		}
	}
	st, err := store.OpenReadOnly(filepath.Join(dir, "k.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	jobs, err := st.Jobs("lcg")
	if err != nil {
		t.Fatal(err)
	}
	killed, requeued := 0, 0
	for _, j := range jobs {
		if j.State != store.Failed {
			continue
		}
		atLimit := j.StartNS != 0 && j.EndNS-j.StartNS == 15*60*1e9
		byLimit := strings.Contains(j.Reason, "killed after its run-time limit of 15m0s")
		if atLimit != byLimit {
			t.Errorf("job %s ran %.0f s and failed with %q", j.JobID, float64(j.EndNS-j.StartNS)/1e9, j.Reason)
		}
		if byLimit {
			killed++
		}
		if strings.Contains(j.Reason, "missed its start time") {
			requeued++
		}
	}
	if killed == 0 || killed != sum.Failed {
		t.Errorf("%d jobs killed at the limit, %d failed in the summary", killed, sum.Failed)
	}
	if requeued > 0 {
		t.Errorf("%d failed jobs carry the re-queue's reason", requeued)
	}
	rep, stderr, code := run(t, dir, "report", "--db", "k.db", "--format", "json")
	if code != 0 || !strings.Contains(rep, "killed after its run-time limit") || strings.Contains(rep, "missed its start time") {
		t.Errorf("report (exit %d, %s): the failure table names the re-queue, or not the limit", code, stderr)
	}
}
