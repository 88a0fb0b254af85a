package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/gmark/gmark/analyzer/store"
	"github.com/gmark/gmark/internal/testkit"
	"github.com/gmark/gmark/workload"
)

// koalaProc is a `gmark koala serve` process.
type koalaProc struct {
	cmd    *exec.Cmd
	base   string
	mu     sync.Mutex
	stdout strings.Builder // every line the server printed
	stderr *bytes.Buffer   // read only after the process ended
}

// output is what the server printed; call it after the process ended.
func (k *koalaProc) output() string {
	k.mu.Lock()
	defer k.mu.Unlock()
	return k.stdout.String() + k.stderr.String()
}

var servingRE = regexp.MustCompile(`serving http://([0-9.:]+)/v1/`)

// startKoala starts the server as a real process and waits for its address.
// The test's cleanup stops it by pid.
func startKoala(t *testing.T, args ...string) *koalaProc {
	t.Helper()
	return startKoalaEnv(t, nil, args...)
}

// startKoalaEnv starts the server with these variables added to the
// environment.
func startKoalaEnv(t *testing.T, env []string, args ...string) *koalaProc {
	t.Helper()
	cmd := exec.Command(buildGmark(t), append([]string{"koala", "serve", "--listen", "127.0.0.1:0"}, args...)...)
	cmd.Dir = abs(t, "../..")
	cmd.Env = append(os.Environ(), env...)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	k := &koalaProc{cmd: cmd, stderr: &stderr}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if cmd.ProcessState == nil {
			_ = syscall.Kill(cmd.Process.Pid, syscall.SIGKILL)
			_ = cmd.Wait()
		}
	})
	addr := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			k.mu.Lock()
			k.stdout.WriteString(sc.Text() + "\n")
			k.mu.Unlock()
			if m := servingRE.FindStringSubmatch(sc.Text()); m != nil {
				addr <- m[1]
			}
		}
		close(addr)
	}()
	select {
	case a, ok := <-addr:
		if !ok {
			_ = cmd.Wait()
			t.Fatalf("the server exited: %s", stderr.String())
		}
		k.base = "http://" + a
		return k
	case <-time.After(30 * time.Second):
		t.Fatalf("the server did not start: %s", stderr.String())
	}
	return nil
}

func (k *koalaProc) do(t *testing.T, method, path, body string) (int, []byte) {
	t.Helper()
	req, _ := http.NewRequest(method, k.base+path, strings.NewReader(body))
	req.Header.Set("Authorization", "Bearer tok")
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, b
}

type apiJob struct {
	ID     string `json:"id"`
	Key    string `json:"key"`
	State  string `json:"state"`
	Reason string `json:"reason"`
}

// kill9 stops the server at once, by pid, and reaps it.
func (k *koalaProc) kill9(t *testing.T) {
	t.Helper()
	if err := k.cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_ = k.cmd.Wait()
}

// listJobs is the server's job list.
func (k *koalaProc) listJobs(t *testing.T, query string) []apiJob {
	t.Helper()
	code, body := k.do(t, "GET", "/v1/jobs"+query, "")
	if code != http.StatusOK {
		t.Fatalf("list: %d %s", code, body)
	}
	var jobs []apiJob
	if err := json.Unmarshal(body, &jobs); err != nil {
		t.Fatal(err)
	}
	return jobs
}

// waitJobs polls the job list until done says so, for at most a minute.
func (k *koalaProc) waitJobs(t *testing.T, what string, done func([]apiJob) bool) []apiJob {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for {
		jobs := k.listJobs(t, "")
		if done(jobs) {
			return jobs
		}
		if time.Now().After(deadline) {
			t.Fatalf("after a minute, still not %s", what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func terminal(state string) bool {
	return state == "finished" || state == "failed" || state == "cancelled"
}

// submitAll submits the jobs of these keys from four clients at once, as a
// submitter would: 201 and 409 (the key was taken before: an earlier
// submission whose answer was lost) both mean accepted. It stops at the
// first connection error (the server was killed) and returns the keys
// accepted. onAccept is called after each acceptance.
func submitAll(k *koalaProc, keys []string, bodyOf func(string) string, onAccept func(int)) map[string]bool {
	var mu sync.Mutex
	accepted := map[string]bool{}
	next := make(chan string)
	var wg sync.WaitGroup
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for key := range next {
				req, _ := http.NewRequest("POST", k.base+"/v1/jobs", strings.NewReader(bodyOf(key)))
				req.Header.Set("Authorization", "Bearer tok")
				req.Header.Set("Content-Type", "application/json")
				resp, err := http.DefaultClient.Do(req)
				if err != nil {
					continue // killed: the key stays unconfirmed and is sent again
				}
				_, _ = io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				if resp.StatusCode == http.StatusCreated || resp.StatusCode == http.StatusConflict {
					mu.Lock()
					accepted[key] = true
					n := len(accepted)
					mu.Unlock()
					if onAccept != nil {
						onAccept(n)
					}
				}
			}
		}()
	}
	for _, key := range keys {
		next <- key
	}
	close(next)
	wg.Wait()
	return accepted
}

// Kill -9 of the server at several points — while jobs
// are being submitted, while jobs are queued and running, and during its
// own recovery right after a restart — each time restarted on the same
// state. Every accepted job ends terminal, none is lost, none starts
// twice, and idempotency keys stay taken.
//
// Slow: 29 s at load 4–30, 32 s at load 20–40 (2 cores, whole package run):
// the core's schedule in real time (×300), through three kills and restarts.
func TestKoalaSurvivesKill9(t *testing.T) {
	t.Parallel() // waits on the core in real time: runs beside the others
	state := filepath.Join(t.TempDir(), "koala.db")
	args := []string{"--grid", "examples/das2.toml", "--state", state, "--token", "tok", "--time-scale", "300", "--scan-interval", "10s"}
	const n = 80
	keys := make([]string, n)
	for i := range keys {
		keys[i] = fmt.Sprintf("run/1-%d", i)
	}
	bodyOf := func(key string) string {
		var i int
		fmt.Sscanf(key, "run/1-%d", &i)
		// Large jobs: a few run at once, the others wait in the queues.
		j := workload.Job{ID: fmt.Sprintf("1-%d", i), Kind: workload.Unitary, Type: "swf", SiteType: workload.Unordered,
			RunTime: time.Duration(60+i*5) * time.Second, App: workload.App{Name: "swf"},
			Components: []workload.Component{{Site: "*", Count: 32 + i%4*8}, {Site: "*", Count: 32}}}
		return fmt.Sprintf(`{"job":%s,"key":%q,"policy":"WF"}`, j.AppendJSON(nil), key)
	}
	accepted := map[string]bool{}
	pending := func() []string {
		var out []string
		for _, k := range keys {
			if !accepted[k] {
				out = append(out, k)
			}
		}
		return out
	}
	kills := 0

	// 1. Killed while clients submit: once a quarter is accepted.
	k := startKoala(t, args...)
	var once sync.Once
	got := submitAll(k, keys, bodyOf, func(n int) {
		if n >= len(keys)/4 {
			once.Do(func() { _ = k.cmd.Process.Signal(syscall.SIGKILL) })
		}
	})
	_ = k.cmd.Wait()
	kills++
	for key := range got {
		accepted[key] = true
	}
	t.Logf("kill %d during submission: %d accepted before it", kills, len(accepted))

	// 2. Restarted: the rest is submitted (the unanswered ones again, by
	// key); killed once jobs are running and others queued.
	k = startKoala(t, args...)
	for key := range submitAll(k, pending(), bodyOf, nil) {
		accepted[key] = true
	}
	if left := pending(); len(left) > 0 {
		t.Fatalf("%d submissions refused by a running server", len(left))
	}
	k.waitJobs(t, "running with a queue", func(jobs []apiJob) bool {
		running, queued := 0, 0
		for _, j := range jobs {
			switch j.State {
			case "running":
				running++
			case "queued", "claiming":
				queued++
			}
		}
		return running > 0 && queued > 0
	})
	k.kill9(t)
	kills++

	// 3. Killed during its own recovery: the restore and its commit come
	// before the server listens; the kills land at several points of it.
	for _, delay := range []time.Duration{0, 5 * time.Millisecond, 20 * time.Millisecond, 50 * time.Millisecond, 150 * time.Millisecond} {
		cmd := exec.Command(buildGmark(t), append([]string{"koala", "serve", "--listen", "127.0.0.1:0"}, args...)...)
		cmd.Dir = abs(t, "../..")
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		<-time.After(delay)
		_ = cmd.Process.Signal(syscall.SIGKILL)
		_ = cmd.Wait()
		kills++
	}

	// 4. Restarted once more and killed while jobs run, if any still do.
	k = startKoala(t, args...)
	if jobs := k.listJobs(t, ""); slices.ContainsFunc(jobs, func(j apiJob) bool { return !terminal(j.State) }) {
		k.waitJobs(t, "running", func(jobs []apiJob) bool {
			return slices.ContainsFunc(jobs, func(j apiJob) bool { return j.State == "running" }) ||
				!slices.ContainsFunc(jobs, func(j apiJob) bool { return !terminal(j.State) })
		})
	}
	k.kill9(t)
	kills++

	// The last restart: every job ends.
	k2 := startKoala(t, args...)
	jobs := k2.waitJobs(t, "every job terminal", func(jobs []apiJob) bool {
		return !slices.ContainsFunc(jobs, func(j apiJob) bool { return !terminal(j.State) })
	})
	seen := map[string]bool{}
	failedByRestart, finished := 0, 0
	for _, j := range jobs {
		if seen[j.Key] {
			t.Errorf("key %s appears twice", j.Key)
		}
		seen[j.Key] = true
		switch j.State {
		case "failed":
			if !strings.Contains(j.Reason, "the core restarted while the job ran") {
				t.Errorf("job %s failed: %s", j.ID, j.Reason)
			}
			failedByRestart++
		case "finished":
			finished++
		}
	}
	lost := 0
	for key := range accepted {
		if !seen[key] {
			t.Errorf("accepted job %s was lost", key)
			lost++
		}
	}
	// No job started twice: count "started" events per job in the whole log.
	code, body := k2.do(t, "GET", "/v1/events?since=0&follow=false", "")
	if code != http.StatusOK {
		t.Fatalf("events: %d", code)
	}
	started := map[string]int{}
	sc := bufio.NewScanner(bytes.NewReader(body))
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		if data, ok := strings.CutPrefix(sc.Text(), "data: "); ok {
			var e struct{ Kind, Job string }
			if err := json.Unmarshal([]byte(data), &e); err == nil && e.Kind == "started" {
				started[e.Job]++
			}
		}
	}
	twice := 0
	for id, n := range started {
		if n > 1 {
			t.Errorf("job %s started %d times", id, n)
			twice++
		}
	}
	// Keys stay taken across the restarts.
	if code, _ := k2.do(t, "POST", "/v1/jobs", bodyOf(keys[0])); code != http.StatusConflict {
		t.Errorf("resubmitting a key after the restarts: %d", code)
	}
	t.Logf("%d kills -9 (1 during submission, 2 with jobs running and queued, %d during recovery); %d jobs accepted, "+
		"%d lost, %d started twice; %d finished, %d failed because they ran at a kill",
		kills, kills-3, len(accepted), lost, twice, finished, failedByRestart)
	if err := k2.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	if err := k2.cmd.Wait(); err != nil {
		t.Errorf("the server did not stop cleanly on SIGTERM: %v", err)
	}
}

func TestKoalaServeRefusesRemoteListen(t *testing.T) {
	dir := t.TempDir()
	_, stderr, code := run(t, dir, "koala", "serve", "--grid", abs(t, "../../examples/das2.toml"), "--listen", "0.0.0.0:0", "--state", filepath.Join(dir, "s.db"))
	if code != 2 || !strings.Contains(stderr, "--allow-remote") {
		t.Errorf("exit %d: %s", code, stderr)
	}
	if _, err := os.Stat(filepath.Join(dir, "s.db")); err == nil {
		t.Error("the state database was created for a refused listen address")
	}
}

func TestKoalaSimulateW30(t *testing.T) {
	dir := t.TempDir()
	if _, stderr, code := run(t, dir, "generate", abs(t, "../../examples/koala-w30.wdl"), "-o", "w30", "-q"); code != 0 {
		t.Fatal(stderr)
	}
	stdout, stderr, code := run(t, dir, "koala", "simulate", "--grid", abs(t, "../../examples/das2.toml"), "--json", "w30")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var s struct {
		Jobs, Finished int
		MaxQueue       int `json:"max_queue"`
		Utilization    struct{ Grid, Wasted, Background, Total float64 }
	}
	if err := json.Unmarshal([]byte(stdout), &s); err != nil {
		t.Fatal(err)
	}
	u := s.Utilization
	if s.Jobs != 200 || s.Finished != 200 || s.MaxQueue < 1 || u.Grid < 0.2 || u.Total < 0.55 ||
		math.Abs(u.Total-(u.Background+u.Grid+u.Wasted)) > 1e-9 {
		t.Errorf("summary %s", stdout)
	}
	// --db records the simulated run in the results store.
	stdout, stderr, code = run(t, dir, "koala", "simulate", "--grid", abs(t, "../../examples/das2.toml"), "--db", "sim.db", "--run-id", "sim-1", "w30")
	if code != 0 || !strings.Contains(stdout, "run sim-1 recorded in sim.db") {
		t.Fatalf("exit %d: %s %s", code, stdout, stderr)
	}
	st, err := store.OpenReadOnly(filepath.Join(dir, "sim.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	jobs, err := st.Jobs("sim-1")
	if err != nil || len(jobs) != 200 {
		t.Fatalf("%d jobs recorded (%v)", len(jobs), err)
	}
	for _, j := range jobs {
		if j.State != "succeeded" || j.StartNS < j.SubmitNS || j.EndNS <= j.StartNS || j.Sites == "" {
			t.Fatalf("recorded job %+v", j)
		}
	}
	if err := st.VerifyProvenance("sim-1"); err != nil {
		t.Errorf("provenance: %v", err)
	}
}

// smpi with 2 components of 2 processes each completes through the
// bundled core's co-allocation, as real processes: the components land on two
// clusters and all four ranks exchange their elements.
func TestKoalaRunsCoAllocatedSmpi(t *testing.T) {
	for _, runner := range []string{"krunner", "irunner"} {
		t.Run(runner, func(t *testing.T) {
			dir := t.TempDir()
			gridFile := filepath.Join(dir, "grid.toml")
			if err := os.WriteFile(gridFile, []byte("name = \"pair\"\n[scheduler]\nexecution = \"process\"\npolicy = \"WF\"\n"+
				"[[cluster]]\nname = \"A\"\nprocessors = 2\n[[cluster]]\nname = \"B\"\nprocessors = 2\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			k := startKoala(t, "--grid", gridFile, "--state", filepath.Join(dir, "s.db"), "--token", "tok", "--workdir", filepath.Join(dir, "jobs"))
			j := workload.Job{ID: "smpi-1", Kind: workload.Unitary, Type: "smpi", SiteType: workload.Unordered, WallTime: 2 * time.Minute,
				App: workload.App{Name: "smpi", Params: []workload.Param{{Key: "supersteps", Value: "3"}, {Key: "memory", Value: "1"},
					{Key: "elements", Value: "10"}, {Key: "compute", Value: "2"}, {Key: "exchange", Value: "100"}}},
				Components: []workload.Component{{Site: "*", Count: 2}, {Site: "*", Count: 2}}}
			code, body := k.do(t, "POST", "/v1/jobs", fmt.Sprintf(`{"job":%s,"runner":%q}`, j.AppendJSON(nil), runner))
			if code != http.StatusCreated {
				t.Fatalf("submit: %d %s", code, body)
			}
			var v struct {
				ID, State, Reason string
				Sites             []string
				Coallocated       bool
			}
			_ = json.Unmarshal(body, &v)
			deadline := time.Now().Add(60 * time.Second)
			for {
				_, body = k.do(t, "GET", "/v1/jobs/"+v.ID, "")
				_ = json.Unmarshal(body, &v)
				if v.State == "finished" || v.State == "failed" {
					break
				}
				if time.Now().After(deadline) {
					t.Fatalf("job still %s: %s", v.State, body)
				}
				time.Sleep(100 * time.Millisecond)
			}
			if v.State != "finished" || !v.Coallocated || len(v.Sites) != 2 {
				t.Fatalf("job %s on %v (coallocated %v): %s", v.State, v.Sites, v.Coallocated, v.Reason)
			}
			for rank := 0; rank < 4; rank++ {
				out, err := os.ReadFile(filepath.Join(dir, "jobs", v.ID, fmt.Sprintf("rank-%d.out", rank)))
				if err != nil {
					t.Fatal(err)
				}
				lines := strings.Split(strings.TrimSpace(string(out)), "\n")
				var sum struct {
					OK       bool  `json:"ok"`
					Size     int   `json:"size"`
					Sent     int64 `json:"sent_elements"`
					Received int64 `json:"received_elements"`
				}
				if err := json.Unmarshal([]byte(lines[len(lines)-1]), &sum); err != nil {
					t.Fatalf("rank %d summary %q: %v", rank, lines[len(lines)-1], err)
				}
				// 3 supersteps x 100 elements x 3 peers.
				if !sum.OK || sum.Size != 4 || sum.Sent != 900 || sum.Received != 900 {
					t.Errorf("rank %d: %+v", rank, sum)
				}
			}
		})
	}
}

// When no job ends (every job refused, none submitted
// before the limit, or still running at it) the summary says so instead of
// "last end -9223372037s".
func TestKoalaSimulateSummaryWhenNoJobEnds(t *testing.T) {
	unit := func(id string, submit, runtime time.Duration, procs int) workload.Job {
		return workload.Job{ID: id, Kind: workload.Unitary, Type: "swf", SiteType: workload.Single, Submit: submit,
			RunTime: runtime, App: workload.App{Name: "swf"}, Components: []workload.Component{{Site: "*", Count: procs}}}
	}
	cases := []struct {
		name  string
		jobs  []workload.Job
		flags []string
		text  string
	}{
		{"every job refused", []workload.Job{unit("1-0", 0, time.Minute, 100000), unit("1-1", time.Second, time.Minute, 100000)}, nil, "2 refused"},
		{"none submitted before the limit", []workload.Job{unit("1-0", time.Hour, time.Minute, 1)}, []string{"--limit", "10m"}, "0 finished"},
		{"still running at the limit", []workload.Job{unit("1-0", 0, 10*time.Minute, 1)}, []string{"--limit", "5m"}, "0 finished"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			w := testkit.WriteWorkload(t, tc.jobs...)
			args := append([]string{"koala", "simulate", "--grid", abs(t, "../../examples/das2.toml"), "--warmup", "0s"}, tc.flags...)
			stdout, stderr, code := run(t, filepath.Dir(w), append(args, w)...)
			if code != 0 {
				t.Fatalf("exit %d: %s", code, stderr)
			}
			if !strings.Contains(stdout, tc.text) || !strings.Contains(stdout, "no job ended") || strings.Contains(stdout, "-9223372037") {
				t.Errorf("summary:\n%s", stdout)
			}
			stdout, stderr, code = run(t, filepath.Dir(w), append(args, "--json", w)...)
			var s struct {
				MakespanS, MeanWaitS float64
				Ended                int
			}
			if err := json.Unmarshal([]byte(stdout), &s); code != 0 || err != nil {
				t.Fatalf("exit %d (%v): %s %s", code, err, stdout, stderr)
			}
			if s.MakespanS != 0 || s.Ended != 0 || s.MeanWaitS < 0 {
				t.Errorf("summary %s", stdout)
			}
		})
	}
}

// Secrets (server side): the token comes from --token-file, the
// environment or the generated STATE.token; it works for requests and is
// never printed.
func TestKoalaServeTokenSources(t *testing.T) {
	dir := t.TempDir()
	tokenFile := filepath.Join(dir, "token")
	if err := os.WriteFile(tokenFile, []byte("file-secret-1\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name  string
		env   []string
		args  []string
		token string // "" : read from STATE.token
	}{
		{"token file", nil, []string{"--token-file", tokenFile}, "file-secret-1"},
		{"environment", []string{"GMARK_KOALA_TOKEN=env-secret-2"}, nil, "env-secret-2"},
		{"generated", nil, nil, ""},
	}
	for i, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			state := filepath.Join(dir, fmt.Sprintf("s%d.db", i))
			k := startKoalaEnv(t, tc.env, append([]string{"--grid", "examples/das2.toml", "--state", state}, tc.args...)...)
			token := tc.token
			if token == "" {
				b, err := os.ReadFile(state + ".token")
				if err != nil {
					t.Fatal(err)
				}
				if fi, _ := os.Stat(state + ".token"); fi.Mode().Perm() != 0o600 {
					t.Errorf("STATE.token has mode %v", fi.Mode().Perm())
				}
				token = strings.TrimSpace(string(b))
			}
			for _, c := range []struct {
				token string
				want  int
			}{{token, http.StatusOK}, {"wrong", http.StatusForbidden}} {
				req, _ := http.NewRequest("POST", k.base+"/v1/clusters/fs0/up", nil)
				req.Header.Set("Authorization", "Bearer "+c.token)
				resp, err := http.DefaultClient.Do(req)
				if err != nil {
					t.Fatal(err)
				}
				resp.Body.Close()
				if resp.StatusCode != c.want {
					t.Errorf("token %q: %d, want %d", c.token, resp.StatusCode, c.want)
				}
			}
			if err := k.cmd.Process.Signal(syscall.SIGTERM); err != nil {
				t.Fatal(err)
			}
			_ = k.cmd.Wait()
			if out := k.output(); strings.Contains(out, token) {
				t.Errorf("the server printed its token:\n%s", out)
			}
		})
	}
	// Bad token sources are usage errors, and nothing is created.
	empty := filepath.Join(dir, "empty")
	if err := os.WriteFile(empty, []byte(" \n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		{"--token-file", empty},
		{"--token-file", filepath.Join(dir, "missing")},
	} {
		state := filepath.Join(dir, "bad.db")
		_, stderr, code := run(t, dir, append([]string{"koala", "serve", "--grid", abs(t, "../../examples/das2.toml"), "--listen", "127.0.0.1:0", "--state", state}, args...)...)
		if code != 2 || !strings.Contains(stderr, "token") || strings.Contains(stderr, "file-secret-1") {
			t.Errorf("%v: exit %d: %s", args, code, stderr)
		}
		if _, err := os.Stat(state); err == nil {
			t.Errorf("%v: the state database was created", args)
		}
	}
}

// Through the API: with process execution, a JDF whose
// arguments point --workdir out of the job's directory, ask for an output
// over max_output, name a placeholder agent.json the grid does not trust or
// another program than gmark's applications is refused with the reason;
// nothing is written outside.
func TestKoalaProcessJobsAreConfined(t *testing.T) {
	dir := t.TempDir()
	gridFile := filepath.Join(dir, "grid.toml")
	if err := os.WriteFile(gridFile, []byte("[scheduler]\nexecution = \"process\"\nmax_output = \"1MB\"\n"+
		"[[cluster]]\nname = \"A\"\nprocessors = 2\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	outside := filepath.Join(dir, "outside")
	k := startKoala(t, "--grid", gridFile, "--state", filepath.Join(dir, "s.db"), "--token", "tok")
	jdf := func(args string) string {
		return `&(count=1)(executable="gmark")(arguments="app" "sserio" ` + args + `)(maxWallTime=5)`
	}
	cases := []struct{ name, jdf, want string }{
		{"absolute workdir", jdf(`"--workdir" "` + outside + `" "--output1" "4"`), "leaves the job's directory"},
		{"dot-dot workdir", jdf(`"--workdir" "../../outside"`), "leaves the job's directory"},
		{"inline workdir", jdf(`"--workdir=` + outside + `"`), "leaves the job's directory"},
		{"1 TiB output", jdf(`"--output1" "1073741824"`), "max_output"},
		// A placeholder's agent runs what its metaqueue hands out: one
		// named by an agent.json the grid does not trust is refused.
		{"placeholder of an outside agent.json", `&(count=1)(executable="gmark")(arguments="app" "placeholder" "--config" "` +
			filepath.Join(outside, "agent.json") + `")(maxWallTime=5)`, "not the agent.json of a placeholder site the grid trusts"},
		// Not a gmark application: it could never run.
		{"a JDF naming /bin/sh", `&(count=1)(executable="/bin/sh")(arguments="-c" "touch ` + outside + `")(maxWallTime=5)`,
			`"exec": not a gmark application`},
	}
	for _, tc := range cases {
		req, _ := http.NewRequest("POST", k.base+"/v1/jobs", strings.NewReader(tc.jdf))
		req.Header.Set("Authorization", "Bearer tok")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		var e struct{ Error string }
		_ = json.NewDecoder(resp.Body).Decode(&e)
		resp.Body.Close()
		if resp.StatusCode != http.StatusBadRequest || !strings.Contains(e.Error, tc.want) {
			t.Errorf("%s: %d %s", tc.name, resp.StatusCode, e.Error)
		}
	}
	if _, err := os.Stat(outside); err == nil {
		t.Error("a job wrote outside its directory")
	}
	if jobs := k.listJobs(t, ""); len(jobs) != 0 {
		t.Errorf("refused jobs were kept: %+v", jobs)
	}
}

// Two schedulers on one state would both restore and run its jobs: a second
// 'koala serve' on a state in use exits 2 naming the holder's pid, and the
// first serves on. Once the first is killed (kill -9), a new one starts.
func TestKoalaServeStateInUse(t *testing.T) {
	dir := t.TempDir()
	state := filepath.Join(dir, "s.db")
	grid := abs(t, "../../examples/das2.toml")
	first := startKoala(t, "--grid", grid, "--state", state)
	_, stderr, code := runBounded(t, time.Minute, dir, "koala", "serve", "--listen", "127.0.0.1:0", "--grid", grid, "--state", state)
	if code != 2 || !strings.Contains(stderr, "in use by another scheduler (pid "+strconv.Itoa(first.cmd.Process.Pid)+")") {
		t.Fatalf("second serve: exit %d, stderr %q", code, stderr)
	}
	if resp, err := http.Get(first.base + "/v1/health"); err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("the first server stopped serving: %v", err)
	} else {
		resp.Body.Close()
	}
	if err := syscall.Kill(first.cmd.Process.Pid, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_ = first.cmd.Wait()
	second := startKoala(t, "--grid", grid, "--state", state)
	if resp, err := http.Get(second.base + "/v1/health"); err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("no server after the first was killed: %v", err)
	} else {
		resp.Body.Close()
	}
}
