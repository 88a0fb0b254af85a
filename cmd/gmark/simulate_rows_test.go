package main

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/gmark/gmark/analyzer/store"
	"github.com/gmark/gmark/internal/testkit"
	"github.com/gmark/gmark/submitter"
	"github.com/gmark/gmark/workload"
)

// A run simulated by the bundled core ('gmark koala simulate
// --db') is recorded through the same submitter path as a run submitted to
// it ('gmark submit --target koala'), so its job rows have the same columns,
// the same JSON shapes and, where timing does not enter, the same values.
//
// The workload leaves no placement to timing: with one worker the core gets
// the jobs in the workload's order (so it numbers them, koala:k1…, the same
// way), and each job arrives on an idle grid or next to jobs far from their
// end, so worst-fit puts it on the same clusters live and simulated.
func TestSimulatedRowsAsSubmitted(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	// Three 2-processor jobs 2 s apart, and one of two 4-processor
	// components; each runs 1 s.
	spec := "# File-type: text/wl-spec\n" +
		"3\tswf\tsingle\t2\t*:?\tC(2s)\tRunTime=1s,RunTimeInMinutes=1\n" +
		"1\tswf\tunordered\t8\t-\tC(2s)\tNSites=2,RunTime=1s,RunTimeInMinutes=1\n"
	grid := "name = \"pair\"\n[scheduler]\npolicy = \"WF\"\nscan_interval = \"1s\"\n" +
		"[[cluster]]\nname = \"A\"\nprocessors = 8\n[[cluster]]\nname = \"B\"\nprocessors = 8\n"
	if err := os.WriteFile(filepath.Join(dir, "small.wdl"), []byte(spec), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "grid.toml"), []byte(grid), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, stderr, code := run(t, dir, "generate", "small.wdl", "-o", "w", "-q"); code != 0 {
		t.Fatal(stderr)
	}
	if out, stderr, code := run(t, dir, "submit", "w", "--target", "koala", "--grid", "grid.toml", "--workers", "1",
		"--db", "live.db", "--run-id", "live-1", "-q"); code != 0 {
		t.Fatalf("submit: exit %d\n%s\n%s", code, out, stderr)
	}
	if out, stderr, code := run(t, dir, "koala", "simulate", "--grid", "grid.toml", "--warmup", "0s",
		"--db", "sim.db", "--run-id", "sim-1", "w"); code != 0 {
		t.Fatalf("simulate: exit %d\n%s\n%s", code, out, stderr)
	}
	liveCols, live := jobRows(t, filepath.Join(dir, "live.db"), "live-1")
	simCols, sim := jobRows(t, filepath.Join(dir, "sim.db"), "sim-1")
	if !reflect.DeepEqual(liveCols, simCols) {
		t.Fatalf("columns differ:\nsubmit   %v\nsimulate %v", liveCols, simCols)
	}
	if len(live) != 4 || len(sim) != len(live) {
		t.Fatalf("%d rows submitted, %d simulated", len(live), len(sim))
	}

	// The columns whose values may differ, and why. Everything else must be
	// equal, NULL where the other is NULL.
	timing := map[string]string{
		// The run's own id.
		"run_id": "",
		// Times: the live run's are Unix times of the wall clock, the
		// simulation's are on its own clock, which starts at 2000-01-01.
		// Their NULLs agree and the schedule's spacing is the same (below).
		"scheduled_ns": "", "submit_ns": "", "start_ns": "", "end_ns": "",
		// The submitter's delay: how late the submit call was on the wall
		// clock; a simulation submits at the instant, with delay 0.
		"delay_ns": "",
		// When the row was written.
		"recorded_ns": "",
		// What the submit call answered: live, the core's HTTP API answers
		// the POST with the job as it stands at that instant (a JSON
		// object, its state and times of the moment); the simulation
		// submits in-process, with no call and no answer to record.
		"submit_output": "",
	}
	firstSched := map[string]int64{}
	for _, rows := range []map[string]map[string]any{live, sim} {
		for _, r := range rows {
			if s := r["scheduled_ns"].(int64); firstSched[r["run_id"].(string)] == 0 || s < firstSched[r["run_id"].(string)] {
				firstSched[r["run_id"].(string)] = s
			}
		}
	}
	for id, l := range live {
		s, ok := sim[id]
		if !ok {
			t.Errorf("job %s was not simulated", id)
			continue
		}
		for _, col := range liveCols {
			lv, sv := l[col], s[col]
			if (lv == nil) != (sv == nil) {
				t.Errorf("job %s: %s is %v submitted, %v simulated (NULL in one only)", id, col, lv, sv)
				continue
			}
			if _, ok := timing[col]; ok {
				continue
			}
			if !reflect.DeepEqual(lv, sv) {
				t.Errorf("job %s: %s is %v submitted, %v simulated", id, col, lv, sv)
			}
		}
		// The schedule is the same: offsets from the run's start.
		if a, b := l["scheduled_ns"].(int64)-firstSched["live-1"], s["scheduled_ns"].(int64)-firstSched["sim-1"]; a != b {
			t.Errorf("job %s: due %d ns after the first submitted, %d ns simulated", id, a, b)
		}
		if out, _ := l["submit_output"].(string); !strings.Contains(out, `"key":"live-1/`+id+`/1"`) || s["submit_output"] != "" {
			t.Errorf("job %s: submit output %q submitted, %q simulated", id, out, s["submit_output"])
		}
		// The JSON shape of the components (the bug: simulated
		// runs had {"Site","Count"}).
		for _, r := range []map[string]any{l, s} {
			var comps []map[string]any
			if err := json.Unmarshal([]byte(r["components"].(string)), &comps); err != nil || len(comps) == 0 {
				t.Fatalf("job %s: components %v (%v)", id, r["components"], err)
			}
			for _, c := range comps {
				if _, ok := c["count"]; !ok || len(c) != 2 {
					t.Errorf("run %s, job %s: components %v", r["run_id"], id, r["components"])
				}
			}
		}
	}
	// json_extract of the first component's count works on both.
	for _, db := range []string{"live.db", "sim.db"} {
		var n int
		if err := queryRow(t, filepath.Join(dir, db), `SELECT count(*) FROM jobs WHERE json_extract(components, '$[0].count') IS NULL`, &n); err != nil || n != 0 {
			t.Errorf("%s: %d rows without $[0].count (%v)", db, n, err)
		}
	}
	// The runs' ends: the same status and the same summary fields.
	liveEnd, simEnd := runEnd(t, filepath.Join(dir, "live.db"), "live-1"), runEnd(t, filepath.Join(dir, "sim.db"), "sim-1")
	if liveEnd.Status != store.RunCompleted || simEnd.Status != liveEnd.Status {
		t.Errorf("run status %s submitted, %s simulated", liveEnd.Status, simEnd.Status)
	}
	if a, b := jsonKeys(t, liveEnd.Summary), jsonKeys(t, simEnd.Summary); !reflect.DeepEqual(a, b) {
		t.Errorf("run summaries of different shapes:\n%s\n%s", liveEnd.Summary, simEnd.Summary)
	}
}

// jobRows reads the jobs table of a run as SQLite has it: the columns in
// order, and per job id its values (NULL as nil).
func jobRows(t *testing.T, path, runID string) ([]string, map[string]map[string]any) {
	t.Helper()
	db, err := sql.Open("sqlite", "file:"+path+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	rows, err := db.Query(`SELECT * FROM jobs WHERE run_id = ?`, runID)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	cols, err := rows.Columns()
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]map[string]any{}
	for rows.Next() {
		vals := make([]any, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			t.Fatal(err)
		}
		m := map[string]any{}
		for i, c := range cols {
			m[c] = vals[i]
		}
		out[m["job_id"].(string)] = m
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return cols, out
}

func queryRow(t *testing.T, path, query string, dest ...any) error {
	t.Helper()
	db, err := sql.Open("sqlite", "file:"+path+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	return db.QueryRow(query).Scan(dest...)
}

func runEnd(t *testing.T, path, runID string) store.RunEnd {
	t.Helper()
	st, err := store.OpenReadOnly(path)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	e, ok, err := st.RunEnd(runID)
	if err != nil || !ok {
		t.Fatalf("%s: no end of run %s (%v)", path, runID, err)
	}
	return e
}

// jsonKeys lists the keys of a JSON object, nested objects' as "a.b".
func jsonKeys(t *testing.T, js string) []string {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal([]byte(js), &m); err != nil {
		t.Fatalf("%s: %v", js, err)
	}
	var keys []string
	var walk func(prefix string, m map[string]any)
	walk = func(prefix string, m map[string]any) {
		for k, v := range m {
			keys = append(keys, prefix+k)
			if sub, ok := v.(map[string]any); ok && k != "jobs" && k != "tasks" { // counts by state: values differ
				walk(prefix+k+".", sub)
			}
		}
	}
	walk("", m)
	sort.Strings(keys)
	return keys
}

// The commands run in-process: gmark submit and gmark koala simulate are
// functions of their options.
func TestSubmitAndSimulateInProcess(t *testing.T) {
	dir := t.TempDir()
	w := testkit.WriteWorkload(t,
		workload.Job{ID: "1-0", Kind: workload.Unitary, Type: "swf", SiteType: workload.Single, RunTime: time.Minute,
			App: workload.App{Name: "swf"}, Components: []workload.Component{{Site: "*", Count: 2}}},
		workload.Job{ID: "1-1", Kind: workload.Unitary, Type: "swf", SiteType: workload.Single, Submit: time.Second,
			RunTime: time.Minute, App: workload.App{Name: "swf"}, Components: []workload.Component{{Site: "*", Count: 4}}})
	var out, errb bytes.Buffer
	o := submitOptions{dir: w, target: "dryrun", db: filepath.Join(dir, "r.db"), project: "p", runID: "ip-1", quiet: true,
		settings: submitter.Settings{Workers: 2, Speedup: 100}}
	if err := submit(context.Background(), o, &out, &errb); err != nil {
		t.Fatalf("submit: %v\n%s", err, errb.String())
	}
	if !strings.Contains(out.String(), "run ip-1 completed") || !strings.Contains(out.String(), "2 (2 succeeded)") {
		t.Errorf("submit printed:\n%s", out.String())
	}
	out.Reset()
	so := simulateOptions{dir: w, grid: gridOptions{path: abs(t, "../../examples/das2.toml")}, seed: 1, priority: "high",
		runner: "krunner", limit: time.Hour, db: filepath.Join(dir, "r.db"), project: "p", runID: "ip-2"}
	if err := koalaSimulate(context.Background(), so, &out, &errb); err != nil {
		t.Fatalf("simulate: %v\n%s", err, errb.String())
	}
	if !strings.Contains(out.String(), "run ip-2 recorded in") || !strings.Contains(out.String(), "2 jobs, 2 finished") {
		t.Errorf("simulate printed:\n%s", out.String())
	}
	so.priority = "urgent"
	var ue usageError
	if err := koalaSimulate(context.Background(), so, &out, &errb); !errors.As(err, &ue) {
		t.Errorf("a bad priority: %v, want a usage error", err)
	}
}
