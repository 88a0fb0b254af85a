package main

import (
	"database/sql"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/gmark/gmark/analyzer/store"
)

var runLineRE = regexp.MustCompile(`(?m)^run (\S+)$`)

// End to end against the bundled core: `gmark submit --target koala`
// starts the core in-process, a co-allocated workload runs to completion,
// and every job's start and end in the results store are those of the
// core's own event log.
//
// Slow: 23 s at load 4–30, 26 s at load 20–40 (2 cores, whole package run):
// the core's schedule in real time.
func TestSubmitToBundledCore(t *testing.T) {
	t.Parallel() // waits on the core in real time: runs beside the others
	dir := t.TempDir()
	spec := filepath.Join(dir, "coalloc.wdl")
	// 16 jobs of two 4-processor components on any cluster, 3 s each, one
	// every 0.5 s on average; 4 single-processor jobs.
	if err := os.WriteFile(spec, []byte("# File-type: text/wl-spec\n"+
		"16\tswf\tunordered\t8\t-\tPoisson(500ms)\tNSites=2,RunTime=3s,RunTimeInMinutes=1\n"+
		"4\tswf\tsingle\t1\t*:?\tC(1s)\tRunTime=2s,RunTimeInMinutes=1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	grid := filepath.Join(dir, "grid.toml")
	if err := os.WriteFile(grid, []byte("name = \"three\"\n[scheduler]\npolicy = \"WF\"\nscan_interval = \"2s\"\n"+
		"[[cluster]]\nname = \"A\"\nprocessors = 8\n[[cluster]]\nname = \"B\"\nprocessors = 8\n[[cluster]]\nname = \"C\"\nprocessors = 8\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, stderr, code := run(t, dir, "generate", spec, "-o", "w", "-q"); code != 0 {
		t.Fatal(stderr)
	}
	stdout, stderr, code := run(t, dir, "submit", "w", "--target", "koala", "--grid", grid, "--db", "results.db", "-q")
	if code != 0 {
		t.Fatalf("submit: exit %d\n%s\n%s", code, stdout, stderr)
	}
	m := runLineRE.FindStringSubmatch(stdout)
	if m == nil {
		t.Fatalf("no run id in %q", stdout)
	}
	runID := m[1]
	st, err := store.OpenReadOnly(filepath.Join(dir, "results.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	jobs, err := st.Jobs(runID)
	if err != nil {
		t.Fatal(err)
	}
	if len(jobs) != 20 {
		t.Fatalf("%d jobs in the store, want 20", len(jobs))
	}
	// The core's own log: its state database in the run directory.
	core, err := sql.Open("sqlite", "file:"+filepath.Join(dir, "runs", runID, "koala.db")+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	defer core.Close()
	type times struct{ start, end int64 }
	coreTimes := map[string]*times{} // by submission key
	rows, err := core.Query(`SELECT kind, data FROM events WHERE kind IN ('started','finished') ORDER BY seq`)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var kind, data string
		if err := rows.Scan(&kind, &data); err != nil {
			t.Fatal(err)
		}
		var e struct {
			Key  string `json:"key"`
			Time string `json:"time"`
		}
		if err := json.Unmarshal([]byte(data), &e); err != nil {
			t.Fatal(err)
		}
		when, err := time.Parse(time.RFC3339Nano, e.Time)
		if err != nil {
			t.Fatal(err)
		}
		ts := coreTimes[e.Key]
		if ts == nil {
			ts = &times{}
			coreTimes[e.Key] = ts
		}
		if kind == "started" {
			ts.start = when.UnixNano()
		} else {
			ts.end = when.UnixNano()
		}
	}
	rows.Close()
	coalloc := 0
	for _, j := range jobs {
		if j.State != "succeeded" {
			t.Errorf("job %s: %s (%s)", j.JobID, j.State, j.Reason)
			continue
		}
		key := runID + "/" + j.JobID + "/1"
		ct := coreTimes[key]
		if ct == nil {
			t.Errorf("job %s (key %s) is not in the core's event log", j.JobID, key)
			continue
		}
		if j.StartNS != ct.start || j.EndNS != ct.end {
			t.Errorf("job %s: store start %d end %d, core %d %d", j.JobID, j.StartNS, j.EndNS, ct.start, ct.end)
		}
		if strings.Contains(j.Sites, ",") {
			coalloc++
		}
		if j.StartNS < j.SubmitNS {
			t.Errorf("job %s started before it was submitted", j.JobID)
		}
	}
	if coalloc == 0 {
		t.Error("no job ran co-allocated on two clusters")
	}
	// The core's placements and claims are in the store as annotations.
	notes, err := st.Annotations(runID, "koala-event")
	if err != nil || len(notes) < 20 {
		t.Errorf("%d koala-event annotations (%v)", len(notes), err)
	}
	sameCoallocation(t, dir, "results.db", coalloc)
}

// sameCoallocation holds the report's co-allocation figures of the only run
// of store db in dir, from its component-start records, against those the
// report makes of a copy of it without them (read as a run recorded before
// them, from the core's component_start events): the same, to the bit, over
// at least jobs co-allocated jobs.
func sameCoallocation(t *testing.T, dir, db string, jobs int) {
	t.Helper()
	report := func(db string) string {
		js, stderr, code := run(t, dir, "report", "--db", db, "--format", "json")
		var rep struct {
			Runs []struct {
				Metrics struct {
					Coallocation json.RawMessage `json:"coallocation"`
				} `json:"metrics"`
			} `json:"runs"`
		}
		if code != 0 || json.Unmarshal([]byte(js), &rep) != nil || len(rep.Runs) != 1 {
			t.Fatalf("report --db %s --format json: exit %d\n%s\n%s", db, code, js, stderr)
		}
		return string(rep.Runs[0].Metrics.Coallocation)
	}
	b, err := os.ReadFile(filepath.Join(dir, db))
	if err != nil {
		t.Fatal(err)
	}
	old := "before-" + db
	if err := os.WriteFile(filepath.Join(dir, old), b, 0o644); err != nil {
		t.Fatal(err)
	}
	w, err := sql.Open("sqlite", filepath.Join(dir, old))
	if err != nil {
		t.Fatal(err)
	}
	// The store keeps its rows append-only; the copy stands for one
	// written before the records.
	_, err = w.Exec(`DROP TRIGGER annotations_no_delete`)
	if err != nil {
		t.Fatal(err)
	}
	res, err := w.Exec(`DELETE FROM annotations WHERE kind = 'component-start'`)
	w.Close()
	if err != nil {
		t.Fatal(err)
	}
	if n, _ := res.RowsAffected(); n < int64(2*jobs) {
		t.Fatalf("%d component-start records taken out, want 2 of each of %d co-allocated jobs at least", n, jobs)
	}
	type figures struct {
		Jobs     int             `json:"jobs"`
		Overhead json.RawMessage `json:"overhead_s"`
		Source   string          `json:"source"`
	}
	var got, want figures
	gotJS, wantJS := report(db), report(old)
	if json.Unmarshal([]byte(gotJS), &got) != nil || json.Unmarshal([]byte(wantJS), &want) != nil || got.Jobs < jobs ||
		got.Jobs != want.Jobs || string(got.Overhead) != string(want.Overhead) || !strings.Contains(got.Source, "component-start") || got.Source == want.Source {
		t.Errorf("co-allocation from the component-start records %s; from the core's events %s", gotJS, wantJS)
	}
	t.Logf("co-allocation of %d jobs, overhead %s", got.Jobs, got.Overhead)
}
