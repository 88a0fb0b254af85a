package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/gmark/gmark/sim/coresim"

	"github.com/gmark/gmark/analyzer/store"
)

// deadlineLiveSpeedup is the live run's --speedup: examples/deadlines/live.wdl
// spans about 3,900 s of workload time, about 65 s of wall time at 60.
const deadlineLiveSpeedup = 60

// deadlineOutcome is what became of one global job in a recorded run.
type deadlineOutcome struct {
	met    bool    // started at its deadline
	startS float64 // start − the job's scheduled submission, workload seconds (met jobs)
	reason string  // why it failed, its times left out
}

// deadlineFigures are the core's figures of a run (record.CoreDeadlines):
// the simulation's summary, or the koala-deadlines annotation of the live
// run.
type deadlineFigures struct {
	GlobalJobs    int     `json:"global_jobs"`
	GlobalStarted int     `json:"global_started"`
	LocalJobs     int     `json:"local_jobs"`
	LocalFinished int     `json:"local_finished"`
	LocalKilled   int     `json:"local_killed"`
	Lost          float64 `json:"lost_processor_s"`
	Wasted        float64 `json:"wasted_processor_s"`
	LocalResponse float64 `json:"local_response_s"`
	KillRate      float64 `json:"local_kill_rate"`
	Seconds       float64 `json:"seconds"`
}

// examples/deadlines/ simulated and live (docs/deadlines.md, "A live run
// beside the simulated one"): the same generated workload through 'gmark
// koala simulate' and through 'gmark run --grid --speedup 60' on the
// bundled core in wall-clock time. The live run declares its origin to the
// core, which starts its local workloads there and counts the start
// deadlines from it, as the simulation does (with no warm-up, the local
// workloads start at the simulated origin). So the two runs must agree job
// for job: the same global jobs start at their deadlines (to the
// microsecond) and the same fail, for the same reason; the same local jobs
// are killed, at the same times, with the same lost processor time; the
// same processor time is wasted. The wall clock moves only the live
// submissions (a global job's submission is not what its tries count
// from, under Wait-10) and the end of the measured period: the live core
// is asked for its figures when the submitter has seen every outcome, a
// fraction of a wall second after the last (× 60 in core time), so the
// local jobs counted may differ by the few that arrive or end meanwhile.
//
// Slow: 66 s at load 4–30, 75 s at load 20–40 (2 cores, whole package run):
// the live run in real time.
func TestDeadlinesLiveBesideSimulated(t *testing.T) {
	t.Parallel() // a live run in real time, little CPU: runs beside the others
	if testing.Short() {
		t.Skip("a live run of about 65 s")
	}
	dir := t.TempDir()
	wdl, grid := abs(t, "../../examples/deadlines/live.wdl"), abs(t, "../../examples/deadlines/grid.toml")
	if _, stderr, code := run(t, dir, "generate", wdl, "-o", "w", "-q"); code != 0 {
		t.Fatal(stderr)
	}
	simEvents := filepath.Join(dir, "sim-events.jsonl")
	out, stderr, code := run(t, dir, "koala", "simulate", "--grid", grid, "--json", "--events", simEvents,
		"--db", "sim.db", "--run-id", "sim", "w")
	if code != 0 {
		t.Fatalf("simulate: exit %d\n%s", code, stderr)
	}
	var sum struct {
		Deadlines deadlineFigures `json:"deadlines"`
	}
	if err := json.Unmarshal([]byte(out), &sum); err != nil {
		t.Fatalf("simulate --json: %v\n%s", err, out)
	}
	if _, stderr, code := run(t, dir, "run", wdl, "--grid", grid, "--speedup", fmt.Sprint(deadlineLiveSpeedup), "-o", "live", "-q"); code != 0 {
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
	liveDB := filepath.Join(dir, "live", "results.db")
	deadlines := workloadDeadlines(t, gen)
	sim := deadlineOutcomes(t, filepath.Join(dir, "sim.db"), 1)
	live := deadlineOutcomes(t, liveDB, deadlineLiveSpeedup)
	if len(sim) != sum.Deadlines.GlobalJobs || len(live) != len(sim) || len(sim) != len(deadlines) || len(sim) == 0 {
		t.Fatalf("%d simulated, %d live outcomes, %d global jobs, %d in the workload", len(sim), len(live), sum.Deadlines.GlobalJobs, len(deadlines))
	}
	met := 0
	for id, s := range sim {
		l := live[id]
		for _, o := range []struct {
			run string
			o   deadlineOutcome
		}{{"simulated", s}, {"live", l}} {
			if o.o.met && math.Abs(o.o.startS-deadlines[id]) > 1e-6 {
				t.Errorf("%s: job %s started %.9f s after its submission, its deadline is %.9f s", o.run, id, o.o.startS, deadlines[id])
			}
			if !o.o.met && !strings.Contains(o.o.reason, "start deadline") {
				t.Errorf("%s: job %s neither started at its deadline nor failed at it: %q", o.run, id, o.o.reason)
			}
		}
		if s.met != l.met || s.reason != l.reason {
			t.Errorf("job %s: simulated met %v %q, live met %v %q", id, s.met, s.reason, l.met, l.reason)
		}
		if s.met {
			met++
		}
	}
	if met != sum.Deadlines.GlobalStarted {
		t.Errorf("the simulated run recorded %d jobs started, its summary says %d", met, sum.Deadlines.GlobalStarted)
	}
	simKills, liveKills := kills(t, simEvents, ""), kills(t, "", liveDB)
	if len(simKills) == 0 {
		t.Error("no local job killed: the runs are compared on less than the example shows")
	}
	if strings.Join(simKills, "\n") != strings.Join(liveKills, "\n") {
		t.Errorf("local jobs killed (after the origin, cluster, job, processors, processor-s lost):\nsimulated\n%s\nlive\n%s",
			strings.Join(simKills, "\n"), strings.Join(liveKills, "\n"))
	}
	lf := liveFigures(t, liveDB)
	compareFigures(t, sum.Deadlines, lf)
	// The report shows the live run's figures as it shows a simulated run's.
	rep, stderr, code := run(t, dir, "report", "--db", liveDB, "--format", "text")
	want := fmt.Sprintf("global jobs started at their deadline\t%d of %d", lf.GlobalStarted, lf.GlobalJobs)
	if code != 0 || !strings.Contains(strings.Join(strings.Fields(rep), "\t"), strings.Join(strings.Fields(want), "\t")) {
		t.Errorf("gmark report on the live run (exit %d, %s): no %q in\n%s", code, stderr, want, rep)
	}
}

// compareFigures checks the core's figures of the two runs: the same but
// for the local jobs that arrived or ended between the simulation's end
// and the live core's answer (its measured period is longer by the lag).
func compareFigures(t *testing.T, s, l deadlineFigures) {
	t.Helper()
	t.Logf("simulated: %+v", s)
	t.Logf("live:      %+v", l)
	if s.GlobalJobs != l.GlobalJobs || s.GlobalStarted != l.GlobalStarted || s.LocalKilled != l.LocalKilled ||
		math.Abs(s.Lost-l.Lost) > 1e-6 || math.Abs(s.Wasted-l.Wasted) > 1e-6 {
		t.Errorf("global jobs, started, local jobs killed, processor-s lost and wasted differ")
	}
	lag := l.Seconds - s.Seconds
	// Local jobs arrive at about 0.055 /s on the grid (4 clusters at 30%
	// of 32 processors, jobs of mean size 6.95 and run time 100 s);
	// allow three times the lag's share, and two more.
	slack := 2 + int(math.Ceil(3*0.055*lag))
	if lag < 0 || l.LocalJobs < s.LocalJobs || l.LocalJobs-s.LocalJobs > slack ||
		l.LocalFinished < s.LocalFinished || l.LocalFinished-s.LocalFinished > slack {
		t.Errorf("the live core measured %.3f s more and counted %d local jobs (%d finished), the simulation %d (%d): more apart than the lag explains (%d)",
			lag, l.LocalJobs, l.LocalFinished, s.LocalJobs, s.LocalFinished, slack)
	}
}

// liveFigures reads the core's figures the live run recorded.
func liveFigures(t *testing.T, path string) deadlineFigures {
	t.Helper()
	st, err := store.OpenReadOnly(path)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	var v string
	if err := st.DB().QueryRow(`SELECT value FROM annotations WHERE kind = 'koala-deadlines'`).Scan(&v); err != nil {
		t.Fatalf("the live run's deadline figures: %v", err)
	}
	var d deadlineFigures
	if err := json.Unmarshal([]byte(v), &d); err != nil {
		t.Fatal(err)
	}
	return d
}

var rfc3339 = regexp.MustCompile(`\d{4}-\d\d-\d\dT[0-9:.]+Z`)

// deadlineOutcomes reads the recorded run of the store at path (its only
// run): per job, whether it started, and when, in workload seconds after
// its scheduled submission (the submitter's schedule, which the wall
// clock's jitter does not move, at the speedup).
func deadlineOutcomes(t *testing.T, path string, speedup float64) map[string]deadlineOutcome {
	t.Helper()
	st, err := store.OpenReadOnly(path)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	rows, err := st.DB().Query(`SELECT job_id, state, reason, scheduled_ns, COALESCE(start_ns, 0) FROM jobs`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	out := map[string]deadlineOutcome{}
	for rows.Next() {
		var id, state, reason string
		var scheduled, start int64
		if err := rows.Scan(&id, &state, &reason, &scheduled, &start); err != nil {
			t.Fatal(err)
		}
		o := deadlineOutcome{met: state == store.Succeeded && start != 0}
		if o.met {
			o.startS = float64(start-scheduled) / 1e9 * speedup
		} else {
			o.reason = rfc3339.ReplaceAllString(reason, "T")
		}
		out[id] = o
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// kills lists the local jobs a run's core killed: from the simulation's
// event file, or from the live run's store (its local_killed events, which
// the koala target records), each as its time after the run's origin
// (seconds, to the millisecond: a kill is at a global job's deadline),
// cluster, local job, processors and the processor time it lost, in time
// order.
func kills(t *testing.T, events, db string) []string {
	t.Helper()
	var lines []string
	var origin time.Time
	if events != "" {
		f, err := os.Open(events)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		sc := bufio.NewScanner(f)
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			lines = append(lines, sc.Text())
		}
		origin = coresim.Start.Add(30 * time.Minute) // the first job's time: coresim.Start plus the default --warmup
	} else {
		st, err := store.OpenReadOnly(db)
		if err != nil {
			t.Fatal(err)
		}
		defer st.Close()
		var v string
		if err := st.DB().QueryRow(`SELECT value FROM annotations WHERE kind = 'koala' AND key = 'origin'`).Scan(&v); err != nil {
			t.Fatalf("the live run's origin: %v", err)
		}
		var o struct {
			Origin  time.Time `json:"origin"`
			Aligned bool      `json:"aligned"`
		}
		if err := json.Unmarshal([]byte(v), &o); err != nil || !o.Aligned {
			t.Fatalf("the live run's origin %s (%v): want aligned", v, err)
		}
		origin = o.Origin
		rows, err := st.DB().Query(`SELECT value FROM annotations WHERE kind = 'koala-event' ORDER BY id`)
		if err != nil {
			t.Fatal(err)
		}
		defer rows.Close()
		for rows.Next() {
			if err := rows.Scan(&v); err != nil {
				t.Fatal(err)
			}
			lines = append(lines, v)
		}
	}
	var out []string
	seen := map[string]bool{}
	for _, line := range lines {
		var e struct {
			Time    time.Time `json:"time"`
			Kind    string    `json:"kind"`
			Cluster string    `json:"cluster"`
			LRMID   string    `json:"lrm_id"`
			Count   int       `json:"count"`
			Lost    float64   `json:"processor_s"`
		}
		if json.Unmarshal([]byte(line), &e) != nil || e.Kind != "local_killed" || seen[e.LRMID] {
			continue
		}
		seen[e.LRMID] = true
		out = append(out, fmt.Sprintf("%12.3f %s %s %d %.6f", e.Time.Sub(origin).Seconds(), e.Cluster, e.LRMID, e.Count, e.Lost))
	}
	sort.Strings(out)
	return out
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
