package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/gmark/gmark/analyzer/store"
)

// smpi with 2 components of 2 processes each completes through the
// local target, as real `gmark app smpi` processes exchanging their elements.
func TestSmpiThroughLocalTarget(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	spec := filepath.Join(dir, "smpi.wdl")
	if err := os.WriteFile(spec, []byte("# File-type: text/wl-spec\n"+
		"2\tsmpi\tunordered\t4\t-\tC(1s)\tNSites=2,RandomWorkload=false,Supersteps=3,Memory=1,Elements=10,Compute=2,Exchange=100,RunTimeInMinutes=2\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, stderr, code := run(t, dir, "generate", spec, "-o", "w", "-q"); code != 0 {
		t.Fatal(stderr)
	}
	stdout, stderr, code := run(t, dir, "submit", "w", "--target", "local", "--processors", "8", "--db", "r.db", "--gmark", buildGmark(t), "-q")
	if code != 0 {
		t.Fatalf("exit %d:\n%s\n%s", code, stdout, stderr)
	}
	m := runLineRE.FindStringSubmatch(stdout)
	if m == nil {
		t.Fatalf("no run id in %q", stdout)
	}
	st, err := store.OpenReadOnly(filepath.Join(dir, "r.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	jobs, err := st.Jobs(m[1])
	if err != nil || len(jobs) != 2 {
		t.Fatalf("%d jobs (%v)", len(jobs), err)
	}
	for _, j := range jobs {
		if j.State != "succeeded" {
			t.Errorf("job %s: %s (%s)", j.JobID, j.State, j.Reason)
			continue
		}
		var sum struct {
			OK       bool  `json:"ok"`
			Size     int   `json:"size"`
			Sent     int64 `json:"sent_elements"`
			Received int64 `json:"received_elements"`
		}
		if err := json.Unmarshal([]byte(j.Summary), &sum); err != nil {
			t.Fatalf("job %s summary %q: %v", j.JobID, j.Summary, err)
		}
		// 4 processes; each sends 100 elements to 3 peers in each of 3 supersteps.
		if !sum.OK || sum.Size != 4 || sum.Sent != 900 || sum.Received != 900 {
			t.Errorf("job %s: %+v", j.JobID, sum)
		}
	}
}
