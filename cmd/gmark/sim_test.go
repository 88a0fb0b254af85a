package main

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/gmark/gmark/analyzer/store"
	"github.com/gmark/gmark/internal/filelock"
)

// simSmall is an experiment of 8 short runs.
const simSmall = `name = "small"
seed = 5
topology = "das2"
architectures = ["sep-c", "dmm"]
loads = [40, 80]
repetitions = 2
[workload]
span = "6h"
`

// simSweep is an experiment of 18 runs of a few tenths of a second each
// (two days of grid-LF on DAS-2 + Grid'5000): long enough to be killed in
// the middle.
const simSweep = `name = "sweep"
seed = 11
topology = "das2-g5k"
architectures = ["sep-c", "dmm", "central"]
loads = [50, 80]
repetitions = 3
[workload]
span = "2d"
`

func simFile(t *testing.T, dir, name, text string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// simCounts reads what the store holds of the runs: each result's digest,
// and the attempts of each run (started runs).
func simCounts(t *testing.T, db string) (results map[string]bool, attempts map[string]int) {
	t.Helper()
	results, attempts = map[string]bool{}, map[string]int{}
	st, err := store.OpenReadOnly(db)
	if err != nil {
		return results, attempts // not created yet
	}
	defer st.Close()
	rows, err := st.DB().Query(`SELECT digest FROM sim_results`)
	if err != nil {
		return results, attempts // not migrated yet
	}
	for rows.Next() {
		var d string
		if err := rows.Scan(&d); err != nil {
			t.Fatal(err)
		}
		results[d] = true
	}
	rows.Close()
	rows, err = st.DB().Query(`SELECT digest, count(*) FROM sim_attempts GROUP BY digest`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	for rows.Next() {
		var d string
		var n int
		if err := rows.Scan(&d, &n); err != nil {
			t.Fatal(err)
		}
		attempts[d] = n
	}
	return results, attempts
}

// The whole loop through the real binary into a real SQLite file: the run,
// the report (text, JSON, a directory with figures and a page) and the
// numbers of the report against the store's.
func TestSimRunReportEndToEnd(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	exp := simFile(t, dir, "small.toml", simSmall)
	stdout, stderr, code := run(t, dir, "sim", "run", exp, "--db", "r.db", "--parallel", "2")
	if code != 0 || !strings.Contains(stdout, "experiment small: 8 runs, 0 already in r.db, 8 to run") || !strings.Contains(stdout, "ran 8 runs") {
		t.Fatalf("exit %d\n%s\n%s", code, stdout, stderr)
	}
	stdout, _, code = run(t, dir, "sim", "run", exp, "--db", "r.db")
	if code != 0 || !strings.Contains(stdout, "8 already in r.db, 0 to run") {
		t.Fatalf("second run: exit %d\n%s", code, stdout)
	}
	js, stderr, code := run(t, dir, "sim", "report", "--db", "r.db", "--format", "json", "small")
	if code != 0 {
		t.Fatalf("report: exit %d: %s", code, stderr)
	}
	var rep struct {
		Experiments []struct {
			Name     string `json:"name"`
			Finished int    `json:"finished_runs"`
			Runs     []struct {
				Arch, Digest string
				Load         float64 `json:"load_percent"`
				Metrics      map[string]any
			} `json:"runs"`
		} `json:"experiments"`
	}
	if err := json.Unmarshal([]byte(js), &rep); err != nil || len(rep.Experiments) != 1 || rep.Experiments[0].Finished != 8 {
		t.Fatalf("%v\n%s", err, js)
	}
	st, err := store.OpenReadOnly(filepath.Join(dir, "r.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	for _, r := range rep.Experiments[0].Runs {
		var awt, asd, goodput, jf, dpj float64
		var jobs int
		if err := st.DB().QueryRow(`SELECT awt_s, asd, goodput_cpu_years, jf_percent, delegations_per_job, jobs FROM sim_results WHERE digest = ?`,
			r.Digest).Scan(&awt, &asd, &goodput, &jf, &dpj, &jobs); err != nil {
			t.Fatal(err)
		}
		m := r.Metrics
		if m["awt_s"] != awt || m["asd"] != asd || m["goodput_cpu_years"] != goodput || m["jf_percent"] != jf ||
			m["delegations_per_job"] != dpj || m["jobs"] != float64(jobs) {
			t.Errorf("%s %g: report %v; store awt %g asd %g goodput %g jf %g deleg %g jobs %d", r.Arch, r.Load, m, awt, asd, goodput, jf, dpj, jobs)
		}
	}
	text, _, code := run(t, dir, "sim", "report", "--db", "r.db")
	if code != 0 || !strings.Contains(text, "experiment small") || !strings.Contains(text, "8 of 8 runs finished") || strings.Count(text, " default ") < 8+4 {
		t.Errorf("text report: exit %d\n%s", code, text)
	}
	out, _, code := run(t, dir, "sim", "report", "--db", "r.db", "-o", "rep")
	if code != 0 || !strings.Contains(out, "index.html") {
		t.Fatalf("report -o: exit %d: %s", code, out)
	}
	saved, err := os.ReadFile(filepath.Join(dir, "rep", "report.json"))
	if err != nil || string(saved) != js {
		t.Errorf("report.json differs from --format json (%v)", err)
	}
	page, err := os.ReadFile(filepath.Join(dir, "rep", "index.html"))
	if err != nil || !strings.Contains(string(page), "small_default_awt_s.png") {
		t.Errorf("index.html: %v\n%s", err, page)
	}
	if _, err := os.Stat(filepath.Join(dir, "rep", "small_default_goodput_cpu_years.svg")); err != nil {
		t.Error(err)
	}
}

// Kill -9 of gmark sim run at a random point
// of a sweep, then again at a random point of the recovery, then the same
// command to the end. No run that had finished is done again (its only
// attempt is the first), and the report equals, byte for byte, that of a
// sweep in one go.
//
// Slow: 20 s at load 4–30, 162 s at load 20–40 (2 cores, whole package run):
// simulation (CPU), a sweep killed twice and one in one go; the load
// stretches it most.
func TestSimKillResume(t *testing.T) {
	t.Parallel() // kills and resumes processes and waits on them: runs beside the others
	dir := t.TempDir()
	exp := simFile(t, dir, "sweep.toml", simSweep)
	db := filepath.Join(dir, "killed.db")
	args := []string{"sim", "run", exp, "--db", db, "--parallel", "2"}
	const planned = 18
	seed := uint64(time.Now().UnixNano())
	rng := rand.New(rand.NewPCG(seed, 1))
	t.Logf("kill points drawn with seed %d", seed)
	var before map[string]bool // results when the last kill struck
	var beforeAttempts map[string]int
	finishedAtKills := []int{}
	for k := 0; k < 2; k++ {
		done, _ := simCounts(t, db)
		// Anywhere but the last few runs (the process must still be at
		// work when the kill strikes).
		target := len(done) + 1 + rng.IntN(max(1, planned-len(done)-5))
		p := startGmark(t, dir, args...)
		simWaitFor(t, p, db, func(results int) bool { return results >= target })
		p.kill()
		if ws, ok := p.cmd.ProcessState.Sys().(syscall.WaitStatus); !ok || !ws.Signaled() {
			t.Fatalf("kill %d: the process ended by itself first:\n%s", k+1, p.out.String())
		}
		if k > 0 && !strings.Contains(p.out.String(), fmt.Sprintf("%d already in", len(before))) {
			t.Errorf("the recovery did not find the %d finished runs:\n%s", len(before), p.out.String())
		}
		before, beforeAttempts = simCounts(t, db)
		finishedAtKills = append(finishedAtKills, len(before))
		if len(before) >= planned {
			t.Fatalf("kill %d struck after the last run", k+1)
		}
	}
	p := startGmark(t, dir, args...)
	p.waitOK(t, "the last gmark sim run")
	if !strings.Contains(p.out.String(), fmt.Sprintf("%d already in", len(before))) {
		t.Errorf("the last run did not find the %d finished runs:\n%s", len(before), p.out.String())
	}
	results, attempts := simCounts(t, db)
	if len(results) != planned {
		t.Fatalf("%d results of %d", len(results), planned)
	}
	redone, total := 0, 0
	for d, n := range attempts {
		total += n
		if before[d] && n != beforeAttempts[d] {
			t.Errorf("run %.12s had finished before the last kill, and was started again (%d attempts, %d then)", d, n, beforeAttempts[d])
		}
		if n > 1 {
			redone++
		}
	}
	t.Logf("runs finished at the kills: %v of %d; after: %d attempts for %d runs, %d runs started more than once (those in progress at a kill)",
		finishedAtKills, planned, total, len(attempts), redone)
	if redone > 2*2 { // at most --parallel runs are in progress at each of the two kills
		t.Errorf("%d runs redone: more than the 2 × 2 that can have been in progress at the kills", redone)
	}
	whole := filepath.Join(dir, "whole.db")
	if _, stderr, code := run(t, dir, "sim", "run", exp, "--db", whole, "--parallel", "2", "-q"); code != 0 {
		t.Fatalf("the sweep in one go: exit %d: %s", code, stderr)
	}
	a, _, codeA := run(t, dir, "sim", "report", "--db", db, "--format", "json")
	b, _, codeB := run(t, dir, "sim", "report", "--db", whole, "--format", "json")
	if codeA != 0 || codeB != 0 || a != b || !strings.Contains(a, `"finished_runs": 18`) {
		t.Errorf("reports differ (exit %d, %d)\nkilled and resumed:\n%.3000s\nin one go:\n%.3000s", codeA, codeB, a, b)
	}
}

// Interrupted (SIGINT), gmark sim run stops its runs in progress, records
// none of them, exits 1 saying how to continue; the same command does the
// rest.
func TestSimInterrupt(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	exp := simFile(t, dir, "sweep.toml", simSweep)
	db := filepath.Join(dir, "r.db")
	p := startGmark(t, dir, "sim", "run", exp, "--db", db, "--parallel", "2")
	simWaitFor(t, p, db, func(results int) bool { return results >= 2 })
	if err := p.cmd.Process.Signal(os.Interrupt); err != nil {
		t.Fatal(err)
	}
	select {
	case <-p.done:
	case <-time.After(time.Minute):
		t.Fatal("gmark sim run still at work a minute after SIGINT")
	}
	if code := p.cmd.ProcessState.ExitCode(); code != 1 || !strings.Contains(p.out.String(), "interrupted:") ||
		!strings.Contains(p.out.String(), "run the same command again to continue") {
		t.Fatalf("exit %d:\n%s", code, p.out.String())
	}
	results, attempts := simCounts(t, db)
	if len(results) >= 18 || len(attempts) > len(results)+2 {
		t.Fatalf("%d results, %d runs started", len(results), len(attempts))
	}
	stdout, stderr, code := run(t, dir, "sim", "run", exp, "--db", db)
	if code != 0 || !strings.Contains(stdout, fmt.Sprintf("%d already in", len(results))) {
		t.Fatalf("continued: exit %d\n%s%s", code, stdout, stderr)
	}
	if results, _ := simCounts(t, db); len(results) != 18 {
		t.Errorf("%d results after the continuation", len(results))
	}
}

// simWaitFor polls the store until cond holds of its results, failing if
// the process ends first.
func simWaitFor(t *testing.T, p *gmarkProc, db string, cond func(results int) bool) {
	t.Helper()
	deadline := time.Now().Add(3 * time.Minute)
	for {
		results, _ := simCounts(t, db)
		if cond(len(results)) {
			return
		}
		select {
		case <-p.done:
			t.Fatalf("gmark sim run ended before the kill point (%d results):\n%s", len(results), p.out.String())
		case <-time.After(10 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			t.Fatalf("no progress in 3 minutes:\n%s", p.out.String())
		}
	}
}

// One process at a time works on a store: a second one refuses with a
// message naming the first, and no run is done twice, whether they start
// together or one while the lock is held.
func TestSimOneProcessPerStore(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	exp := simFile(t, dir, "sweep.toml", simSweep)
	db := filepath.Join(dir, "r.db")
	release, err := filelock.TryLock(db + ".sim.lock")
	if err != nil {
		t.Fatal(err)
	}
	_, stderr, code := run(t, dir, "sim", "run", exp, "--db", db)
	release()
	if code != 1 || !strings.Contains(stderr, "another gmark sim run is working on this results store (pid "+strconv.Itoa(os.Getpid())) {
		t.Fatalf("with the lock held: exit %d: %s", code, stderr)
	}
	a := startGmark(t, dir, "sim", "run", exp, "--db", db, "-q")
	b := startGmark(t, dir, "sim", "run", exp, "--db", db, "-q")
	<-a.done
	<-b.done
	refused := 0
	for _, p := range []*gmarkProc{a, b} {
		switch code := p.cmd.ProcessState.ExitCode(); {
		case code == 1 && regexp.MustCompile(`another gmark sim run is working on this results store \(pid \d+ holds .*r\.db\.sim\.lock\)`).MatchString(p.out.String()):
			refused++
		case code != 0:
			t.Errorf("exit %d:\n%s", code, p.out.String())
		}
	}
	results, attempts := simCounts(t, db)
	if refused > 1 || len(results) != 18 || len(attempts) != 18 {
		t.Fatalf("%d refused, %d results, %d runs attempted", refused, len(results), len(attempts))
	}
	for d, n := range attempts {
		if n != 1 {
			t.Errorf("run %.12s started %d times", d, n)
		}
	}
	t.Logf("started together: %d of 2 refused", refused)
}

// Bad input: exit 2 and a message that says what is wrong and where;
// nothing is recorded.
func TestSimBadInput(t *testing.T) {
	dir := t.TempDir()
	good := simFile(t, dir, "good.toml", simSmall)
	bad := func(name, from, to string) string {
		return simFile(t, dir, name, strings.Replace(simSmall, from, to, 1))
	}
	noTop := bad("notop.toml", `"das2"`, `"das2-missing.toml"`)
	cases := []struct {
		name string
		args []string
		want string
	}{
		{"no file", []string{"sim", "run"}, "sim run takes one experiment file"},
		{"missing file", []string{"sim", "run", filepath.Join(dir, "none.toml")}, "none.toml: no such file"},
		{"missing topology file", []string{"sim", "run", noTop}, noTop + ":3: topology \"das2-missing.toml\" is neither a preset (das2, das2-g5k, t1) nor a file"},
		{"unknown architecture", []string{"sim", "run", bad("arch.toml", `"dmm"`, `"dmn"`)}, "arch.toml:4: architecture \"dmn\" is unknown"},
		{"zero runs", []string{"sim", "run", bad("zero.toml", `"sep-c", "dmm"`, ``)}, "zero.toml:4: architectures is empty: the experiment would have no run"},
		{"load 0", []string{"sim", "run", bad("load0.toml", `40, 80`, `0`)}, "load0.toml:5: load 0: a load level must be above 0%"},
		{"setting twice", []string{"sim", "run", bad("twice.toml", "[workload]", "[settings]\ndttl = 3\n[settings.dmm]\ndttl = 4\n[workload]")},
			"twice.toml:10: dttl is given twice: here, in [settings.dmm], and at line 8, in [settings]: give it once"},
		{"section of no architecture", []string{"sim", "run", bad("sect.toml", "[workload]", "[settings.dmn]\ndttl = 4\n[workload]")},
			`sect.toml:7: [settings.dmn]: unknown architecture "dmn" (known: central, cern, condor, dmm, fcondor, hier, sep-c)`},
		{"parallel 0", []string{"sim", "run", good, "--parallel", "0"}, "--parallel 0"},
		{"scale 0", []string{"sim", "run", good, "--scale", "0"}, "--scale 0: a fraction in (0, 1]"},
		{"scale 2", []string{"sim", "run", good, "--scale", "2"}, "--scale 2"},
		{"report of no store", []string{"sim", "report", "--db", filepath.Join(dir, "none.db")}, "results store"},
		{"store a directory", []string{"sim", "run", good, "--db", dir}, "is a directory"},
		{"store not a database", []string{"sim", "run", good, "--db", good}, "damaged store"},
		{"report of a directory", []string{"sim", "report", "--db", dir}, "is a directory"},
		{"report format", []string{"sim", "report", "--format", "csv"}, "--format \"csv\": text or json"},
		{"unknown subcommand", []string{"sim", "walk"}, "\"walk\" is not a command of gmark sim"},
		{"on where", []string{"sim", "run", good, "--on", "cloud"}, `--on "cloud": local or slurm`},
		{"slurm flag locally", []string{"sim", "run", good, "--array-limit", "2"}, "are --on slurm's"},
		{"parallel on slurm", []string{"sim", "run", good, "--on", "slurm", "--parallel", "2"}, "--parallel is for --on local"},
		{"array limit", []string{"sim", "run", good, "--on", "slurm", "--array-limit", "-1"}, "--array-limit -1"},
		{"retries", []string{"sim", "run", good, "--on", "slurm", "--retries", "1000"}, "--retries 1000: from 0 to 100"},
		{"targets and confs", []string{"sim", "run", good, "--on", "slurm", "--targets", good, "--slurm-conf", good}, "give one"},
		{"targets not toml of targets", []string{"sim", "run", good, "--on", "slurm", "--targets", good}, "good.toml"},
		{"slurm conf missing", []string{"sim", "run", good, "--on", "slurm", "--slurm-conf", "none.conf"}, "none.conf: no such file"},
		{"task without index", []string{"sim", "task", good}, "sim task takes a manifest and a task index"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, stderr, code := run(t, dir, tc.args...)
			if code != 2 || !strings.Contains(stderr, tc.want) {
				t.Errorf("exit %d, want 2 with %q:\n%s", code, tc.want, stderr)
			}
		})
	}
	if _, err := os.Stat(filepath.Join(dir, "results.db")); err == nil {
		t.Error("a refused experiment created the store")
	}
	// A store without the experiment named.
	if _, stderr, code := run(t, dir, "sim", "run", good, "--db", "r.db", "-q"); code != 0 {
		t.Fatal(stderr)
	}
	if _, stderr, code := run(t, dir, "sim", "report", "--db", "r.db", "-o", good); code != 2 || !strings.Contains(stderr, "is not a directory") {
		t.Errorf("-o a file: exit %d: %s", code, stderr)
	}
	if _, stderr, code := run(t, dir, "sim", "report", "--db", "r.db", "nothing"); code != 2 || !strings.Contains(stderr, `no such experiment "nothing"`) || !strings.Contains(stderr, "experiments: small") {
		t.Errorf("unknown experiment: exit %d: %s", code, stderr)
	}
}
