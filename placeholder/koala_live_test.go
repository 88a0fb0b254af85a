package placeholder

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/gmark/gmark/placeholder/metaqueue"
	"github.com/gmark/gmark/placeholder/site"
)

// koalaCore is a `gmark koala serve` process with process execution: its
// address, token file and directory.
type koalaCore struct {
	cmd       *exec.Cmd
	url       string
	tokenFile string
	dir       string
}

var koalaServing = regexp.MustCompile(`serving (http://[0-9.:]+)/v1/`)

// startKoalaCore starts the core on loopback with a grid of the given
// clusters (name: processors), jobs run as real processes, placeholders
// of the test's metaqueues trusted; the test's cleanup stops it by pid.
func startKoalaCore(t *testing.T, clusters [][2]any) *koalaCore {
	t.Helper()
	dir := t.TempDir()
	var g strings.Builder
	g.WriteString("name = \"ph\"\n[scheduler]\nexecution = \"process\"\nscan_interval = \"1s\"\npolicy = \"WF\"\n")
	// The core runs the placeholders of the metaqueues this test starts:
	// their sites' agent.json files are in the test's other temporary
	// directories, beside this one.
	fmt.Fprintf(&g, "placeholder_dirs = [%q]\n", filepath.Dir(dir))
	for _, c := range clusters {
		fmt.Fprintf(&g, "[[cluster]]\nname = %q\nprocessors = %d\n", c[0], c[1])
	}
	grid := filepath.Join(dir, "grid.toml")
	k := &koalaCore{dir: dir, tokenFile: filepath.Join(dir, "koala.token")}
	if err := os.WriteFile(grid, []byte(g.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(k.tokenFile, []byte("koala-secret\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	k.cmd = exec.Command(gmarkBin.Path(t), "koala", "serve", "--listen", "127.0.0.1:0", "--grid", grid,
		"--state", filepath.Join(dir, "koala.db"), "--token-file", k.tokenFile, "--workdir", filepath.Join(dir, "jobs"))
	stdout, err := k.cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	log, err := os.Create(filepath.Join(dir, "koala.log"))
	if err != nil {
		t.Fatal(err)
	}
	k.cmd.Stderr = log
	if err := k.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { k.stop(t); log.Close() })
	addr := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stdout)
		sent := false
		for sc.Scan() {
			fmt.Fprintln(log, sc.Text())
			if m := koalaServing.FindStringSubmatch(sc.Text()); m != nil && !sent {
				addr <- m[1]
				sent = true
			}
		}
		if !sent {
			close(addr)
		}
	}()
	select {
	case a, ok := <-addr:
		if !ok {
			b, _ := os.ReadFile(filepath.Join(dir, "koala.log"))
			t.Fatalf("the core exited:\n%s", b)
		}
		k.url = a
	case <-time.After(60 * time.Second):
		t.Fatal("the core did not start")
	}
	return k
}

// stop ends the core (SIGTERM, then SIGKILL) and every process left that
// names its directory, by pid.
func (k *koalaCore) stop(t *testing.T) {
	if k.cmd.ProcessState == nil {
		_ = k.cmd.Process.Signal(syscall.SIGTERM)
		done := make(chan struct{})
		go func() { _ = k.cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(20 * time.Second):
			_ = k.cmd.Process.Kill()
			<-done
		}
	}
	for _, pid := range pidsIn(k.dir) {
		_ = syscall.Kill(pid, syscall.SIGKILL)
	}
}

// coreJob is a job as the core's API lists it.
type coreJob struct {
	ID    string   `json:"id"`
	Name  string   `json:"name"`
	State string   `json:"state"`
	Sites []string `json:"sites"`
}

func (k *koalaCore) jobs(t *testing.T) []coreJob {
	t.Helper()
	resp, err := http.Get(k.url + "/v1/jobs")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var out []coreJob
	if err := json.NewDecoder(resp.Body).Decode(&out); err != nil {
		t.Fatal(err)
	}
	return out
}

// Placeholders on two clusters of the bundled core: each is a core job
// fixed on its cluster, waits in the core's queue for a processor, runs as
// a process of the core (`gmark app placeholder`), pulls one job, resubmits
// itself to the core and reports done. 40 jobs complete, each exactly
// once, at both clusters; every placeholder's local id is a core job of
// its cluster that finished.
func TestKoalaClusters(t *testing.T) {
	t.Parallel() // a live server in a directory of its own, waiting in real time: runs beside the others
	core := startKoalaCore(t, [][2]any{{"A", 2}, {"B", 2}})
	groups := fmt.Sprintf(`
[[group]]
name = "g"
[[group.site]]
name = "ka"
kind = "koala"
koala = %q
koala_token_file = %q
cluster = "A"
wall_time = "10m"
[[group.site]]
name = "kb"
kind = "koala"
koala = %q
koala_token_file = %q
cluster = "B"
`, core.url, core.tokenFile, core.url, core.tokenFile)
	l := startLive(t, groups, "--probe")
	const n = 40
	l.addJobs("g", n, "")
	// Three at A, which has two processors: one waits in the core's queue.
	l.startPH("g", "ka", 3)
	l.startPH("g", "kb", 2)
	r := l.waitDone("g", 4*time.Minute)
	if dup := l.checkOnce(r, n); dup != 0 || r.Once != n {
		t.Errorf("%d jobs listed as duplicated, %d of %d once", dup, r.Once, n)
	}
	phs, err := l.client.Placeholders(context.Background(), "g", true)
	if err != nil {
		t.Fatal(err)
	}
	byID := map[string]coreJob{}
	for _, j := range core.jobs(t) {
		byID[j.ID] = j
	}
	ran := map[string]int{}
	for _, p := range phs {
		if p.Jobs == 0 {
			continue
		}
		ran[p.Site] += p.Jobs
		cj, ok := byID[p.LocalID]
		want := map[string]string{"ka": "A", "kb": "B"}[p.Site]
		if !ok || len(cj.Sites) != 1 || cj.Sites[0] != want || cj.Name != "placeholder-"+p.Site {
			t.Errorf("placeholder %d at %s: local id %q is not a core job on %s: %+v", p.ID, p.Site, p.LocalID, want, cj)
		}
		if p.Jobs > 1 {
			t.Errorf("classic placeholder %d ran %d jobs", p.ID, p.Jobs)
		}
	}
	if ran["ka"] == 0 || ran["kb"] == 0 || ran["ka"]+ran["kb"] != n {
		t.Errorf("jobs run per site %v; want both sites, %d in all", ran, n)
	}
	// Every placeholder job the core ran ended: finished (ran a job, or
	// was refused: exit 111 is a normal end), none failed.
	deadline := time.Now().Add(time.Minute)
	for {
		active, failed := 0, 0
		for _, j := range core.jobs(t) {
			switch j.State {
			case "queued", "claiming", "running":
				active++
			case "failed":
				failed++
			}
		}
		if failed > 0 {
			t.Errorf("%d placeholder jobs failed in the core", failed)
		}
		if active == 0 || failed > 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Errorf("%d placeholder jobs still active in the core a minute after the workload ended", active)
			break
		}
		time.Sleep(200 * time.Millisecond)
	}
	t.Logf("jobs per site %v; %d placeholder records; %d core jobs", ran, len(phs), len(core.jobs(t)))
	checkKoalaSite(t, core, phs)
}

// checkKoalaSite asks the core, through the site, what the server's
// watchdog and automatic counts ask: free processors, which placeholders
// live; and kills nothing that does not exist.
func checkKoalaSite(t *testing.T, core *koalaCore, phs []metaqueue.Placeholder) {
	ctx := context.Background()
	spec := site.Spec{Name: "ka", Kind: site.Koala, Koala: core.url, KoalaTokenFile: core.tokenFile, Cluster: "A"}
	if err := spec.Check(); err != nil {
		t.Fatal(err)
	}
	st, err := site.New(spec, filepath.Join(t.TempDir(), "placeholder.koala"))
	if err != nil {
		t.Fatal(err)
	}
	if free, err := st.Free(ctx); err != nil || free != 2 {
		t.Errorf("free processors of A after the run: %d %v; want 2", free, err)
	}
	var ids []string
	for _, p := range phs {
		ids = append(ids, p.LocalID)
	}
	if alive, err := st.Alive(ctx, append(ids, "no-such-job")); err != nil || len(alive) != 0 {
		t.Errorf("alive after the run: %v %v; want none", alive, err)
	}
	if err := st.Kill(ctx, "no-such-job"); err == nil {
		t.Error("killing a job the core does not know: no error")
	}
	spec.Cluster = "Z"
	if st, _ := site.New(spec, "x/placeholder.koala"); st != nil {
		if _, err := st.Free(ctx); err == nil || !strings.Contains(err.Error(), "no cluster") {
			t.Errorf("free processors of a cluster the core lacks: %v", err)
		}
	}
}
