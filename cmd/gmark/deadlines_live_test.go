package main

import (
	"bytes"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/gmark/gmark/analyzer/store"
)

// deadlineLiveSpeedup is the live run's --speedup: examples/deadlines/live.wdl
// spans about 3,900 s of workload time, about 65 s of wall time at 60.
const deadlineLiveSpeedup = "60"

// deadlineOutcome is what became of one global job in a recorded run.
type deadlineOutcome struct {
	met    bool    // started at its deadline
	startS float64 // start − submission, workload seconds (met jobs)
	reason string
	heldS  float64 // claimed → started, workload seconds (live only)
	procs  int
}

// examples/deadlines/ simulated and live (docs/deadlines.md, "A live run
// beside the simulated one"): the same generated workload through 'gmark
// koala simulate --db' and through 'gmark run --grid --speedup 60' on the
// bundled core in wall-clock time. Must be identical: the workload (the run
// regenerates it byte for byte), and in both runs every global job either
// starts exactly at its deadline or fails at it with the deadline reason.
// May differ: which jobs meet their deadline, the kills and the wasted
// time, because the live core's local workload starts when its process
// starts, a fraction of a wall second (× 60 in core time) before the first
// submission, and its events land where the wall clock puts them; the
// figures are logged side by side, and the success rates must stay within
// a quarter of each other (a sanity bound, not a tolerance the design
// promises).
func TestDeadlinesLiveBesideSimulated(t *testing.T) {
	if testing.Short() {
		t.Skip("a live run of about 65 s")
	}
	dir := t.TempDir()
	wdl, grid := abs(t, "../../examples/deadlines/live.wdl"), abs(t, "../../examples/deadlines/grid.toml")
	if _, stderr, code := run(t, dir, "generate", wdl, "-o", "w", "-q"); code != 0 {
		t.Fatal(stderr)
	}
	out, stderr, code := run(t, dir, "koala", "simulate", "--grid", grid, "--json", "--db", "sim.db", "--run-id", "sim", "w")
	if code != 0 {
		t.Fatalf("simulate: exit %d\n%s", code, stderr)
	}
	var sum struct {
		Deadlines struct {
			GlobalJobs    int     `json:"global_jobs"`
			GlobalStarted int     `json:"global_started"`
			LocalKilled   int     `json:"local_killed"`
			Lost          float64 `json:"lost_processor_s"`
			Wasted        float64 `json:"wasted_processor_s"`
			LocalResponse float64 `json:"local_response_s"`
			KillRate      float64 `json:"local_kill_rate"`
		} `json:"deadlines"`
	}
	if err := json.Unmarshal([]byte(out), &sum); err != nil {
		t.Fatalf("simulate --json: %v\n%s", err, out)
	}
	if _, stderr, code := run(t, dir, "run", wdl, "--grid", grid, "--speedup", deadlineLiveSpeedup, "-o", "live", "-q"); code != 0 {
		t.Fatalf("live run: exit %d\n%s", code, stderr)
	}
	gen, err := os.ReadFile(filepath.Join(dir, "w", "workload.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	regen, _ := filepath.Glob(filepath.Join(dir, "live", "workloads", "*", "workload.jsonl"))
	if len(regen) != 1 {
		t.Fatalf("live workloads %v", regen)
	}
	if b, _ := os.ReadFile(regen[0]); !bytes.Equal(b, gen) {
		t.Fatal("the live run's workload differs from the generated one")
	}
	sim := deadlineOutcomes(t, filepath.Join(dir, "sim.db"), 1)
	live := deadlineOutcomes(t, filepath.Join(dir, "live", "results.db"), 60)
	if len(sim) != sum.Deadlines.GlobalJobs || len(live) != len(sim) || len(sim) == 0 {
		t.Fatalf("%d simulated, %d live outcomes, %d global jobs", len(sim), len(live), sum.Deadlines.GlobalJobs)
	}
	deadlines := workloadDeadlines(t, gen)
	var simMet, liveMet, wasted float64
	var differ []string
	for id, s := range sim {
		l, ok := live[id]
		if !ok {
			t.Fatalf("job %s not in the live run", id)
		}
		for _, o := range []struct {
			run string
			o   deadlineOutcome
		}{{"simulated", s}, {"live", l}} {
			if o.o.met && math.Abs(o.o.startS-deadlines[id]) > 1e-3 {
				t.Errorf("%s: job %s started %.6f s after its submission, its deadline is %.6f s", o.run, id, o.o.startS, deadlines[id])
			}
			if !o.o.met && !strings.Contains(o.o.reason, "start deadline") {
				t.Errorf("%s: job %s neither started at its deadline nor failed at it: %q", o.run, id, o.o.reason)
			}
		}
		if s.met {
			simMet++
		}
		if l.met {
			liveMet++
			wasted += float64(l.procs) * l.heldS
		}
		if s.met != l.met {
			differ = append(differ, id)
		}
	}
	if int(simMet) != sum.Deadlines.GlobalStarted {
		t.Errorf("the simulated run recorded %v jobs started, its summary says %d", simMet, sum.Deadlines.GlobalStarted)
	}
	kills, lost := liveKills(t, filepath.Join(dir, "live", "results.db"))
	sort.Strings(differ)
	n := float64(len(sim))
	t.Logf("global success: simulated %.3f (%v of %v), live %.3f (%v); outcome differs for %v", simMet/n, simMet, n, liveMet/n, liveMet, differ)
	t.Logf("local jobs killed: simulated %d, live %d; processor-s lost: simulated %.1f, live %.1f",
		sum.Deadlines.LocalKilled, kills, sum.Deadlines.Lost, lost)
	t.Logf("wasted processor-s: simulated %.1f, live %.1f; simulated local response %.1f s, kill rate %.4f (live: not recorded)",
		sum.Deadlines.Wasted, wasted, sum.Deadlines.LocalResponse, sum.Deadlines.KillRate)
	if math.Abs(simMet-liveMet)/n > 0.25 {
		t.Errorf("global success %.3f simulated, %.3f live: more than a quarter apart", simMet/n, liveMet/n)
	}
}

// deadlineOutcomes reads the recorded run of the store at path (its only
// run): per job, whether it started, when (workload seconds after its
// submission, at speedup), and, from the core's events the koala target
// recorded, how long its processors were held idle before its start.
func deadlineOutcomes(t *testing.T, path string, speedup float64) map[string]deadlineOutcome {
	t.Helper()
	st, err := store.OpenReadOnly(path)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	rows, err := st.DB().Query(`SELECT job_id, state, reason, processors, COALESCE(submit_ns, scheduled_ns, 0), COALESCE(start_ns, 0) FROM jobs`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	out, starts := map[string]deadlineOutcome{}, map[string]int64{}
	for rows.Next() {
		var id, state, reason string
		var procs int
		var submit, start int64
		if err := rows.Scan(&id, &state, &reason, &procs, &submit, &start); err != nil {
			t.Fatal(err)
		}
		o := deadlineOutcome{met: state == store.Succeeded && start != 0, reason: reason, procs: procs}
		if o.met {
			o.startS = float64(start-submit) / 1e9 * speedup
		}
		out[id] = o
		starts[id] = start
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	for id, claimed := range claimTimes(t, st) {
		if o, ok := out[id]; ok && o.met {
			o.heldS = float64(starts[id]-claimed) / 1e9 * speedup
			out[id] = o
		}
	}
	return out
}

// claimTimes returns, per job id, when the koala target heard of the core's
// "claimed" event (wall-clock ns: the annotation's time): the live run's
// jobs claim their processors at a successful RPP try and hold them idle
// until their start. A simulated run records no such annotation.
func claimTimes(t *testing.T, st *store.Store) map[string]int64 {
	t.Helper()
	rows, err := st.DB().Query(`SELECT key, time_ns, value FROM annotations WHERE kind = 'koala-event'`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	out := map[string]int64{}
	for rows.Next() {
		var key, value string
		var at int64
		if err := rows.Scan(&key, &at, &value); err != nil {
			t.Fatal(err)
		}
		var e struct {
			Kind string `json:"kind"`
		}
		parts := strings.Split(key, "/") // RUN/JOB/ATTEMPT
		if json.Unmarshal([]byte(value), &e) == nil && e.Kind == "claimed" && len(parts) >= 2 {
			out[parts[1]] = at
		}
	}
	return out
}

// liveKills counts the local jobs the live core killed (its local_killed
// events, recorded by the koala target) and the processor time they lost.
func liveKills(t *testing.T, path string) (int, float64) {
	t.Helper()
	st, err := store.OpenReadOnly(path)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	rows, err := st.DB().Query(`SELECT value FROM annotations WHERE kind = 'koala-event'`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	killed := map[string]bool{}
	lost := 0.0
	for rows.Next() {
		var value string
		if err := rows.Scan(&value); err != nil {
			t.Fatal(err)
		}
		var e struct {
			Kind  string  `json:"kind"`
			LRMID string  `json:"lrm_id"`
			Lost  float64 `json:"processor_s"`
		}
		if json.Unmarshal([]byte(value), &e) == nil && e.Kind == "local_killed" && !killed[e.LRMID] {
			killed[e.LRMID] = true
			lost += e.Lost
		}
	}
	return len(killed), lost
}

// workloadDeadlines is each job's deadline less its submission, seconds.
func workloadDeadlines(t *testing.T, jsonl []byte) map[string]float64 {
	t.Helper()
	out := map[string]float64{}
	for _, line := range bytes.Split(bytes.TrimSpace(jsonl), []byte("\n")) {
		var j struct {
			ID       string  `json:"id"`
			Submit   float64 `json:"submit"`
			Deadline float64 `json:"deadline"`
		}
		if err := json.Unmarshal(line, &j); err != nil {
			t.Fatal(err)
		}
		out[j.ID] = j.Deadline - j.Submit
	}
	return out
}
