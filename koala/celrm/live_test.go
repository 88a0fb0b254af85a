package celrm

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gmark/gmark/analyzer/store"
	"github.com/gmark/gmark/internal/testbin"
	"github.com/gmark/gmark/submitter/arc/arctest"
	"github.com/gmark/gmark/submitter/gram/gramtest"
	"github.com/gmark/gmark/submitter/gridtest"
)

var gmarkBin testbin.Lazy

func TestMain(m *testing.M) { testbin.MainLazy(m, &gmarkBin) }

// w30Shaped is W30's shape (examples/koala-w30.wdl) made small: non-fixed
// jobs of 1 or 2 components of 8 or 16 processors, each reading one input
// file, arriving every 3 s on average, running 4 to 8 s.
const w30Shaped = "1\tunitary\t10\tswf\tunordered\t?\t-\tPoisson(3s)\tNComponentsWithWeights=1;2,ComponentSizeWithWeights=8;16," +
	"RunTime=U(4s,8s),RunTimeInMinutes=5,InputFilesWithWeights=file-a:100MB\n"

// ceGrid is a grid of two clusters behind CEs, an ARC CE (fs0) and a GRAM5
// gatekeeper (fs1), both on fork, the input file on fs0 only.
const ceGrid = `name = "two-ces"
[scheduler]
policy = "WF"
scan_interval = "2s"
[network]
default_bandwidth = "10Gbit/s"
[[cluster]]
name = "fs0"
lrm = "arc"
ce = %q
partition = "fork"
processors = 256
poll = "1s"
start_timeout = "1m"
[[cluster]]
name = "fs1"
lrm = "gram"
ce = %q
processors = 256
poll = "1s"
start_timeout = "1m"
[[file]]
name = "file-a"
size = "100MB"
sites = ["fs0"]
`

// event is a koala-event annotation of the store.
type event struct {
	Kind      string   `json:"kind"`
	Job       string   `json:"job"`
	Cluster   string   `json:"cluster"`
	Component int      `json:"component"`
	LRMID     string   `json:"lrm_id"`
	Sites     []string `json:"sites"`
}

// The bundled core places W30-shaped co-allocated jobs over an ARC CE
// and a GRAM5 gatekeeper, under Worst-Fit (with the DRunner: components
// hold their processors until all have started, then are released) and
// under Close-to-Files (the KRunner). Every job succeeds; every component
// the core started is a CE job of the cluster it placed it on (its id
// in the store's events); under CF every component goes where the input
// file is, fs0; under WF they spread over both, some jobs spanning both
// CEs. About 3 minutes on an idle machine.
func TestLiveCoreOverCEs(t *testing.T) {
	e := startCEs(t, "runs the bundled core over two CEs for minutes")
	dir, ce, gk, creds, bin := e.dir, e.ce, e.gk, e.creds, e.bin
	gridFile := filepath.Join(dir, "grid.toml")
	if err := os.WriteFile(gridFile, []byte(fmt.Sprintf(ceGrid, ce.URL, gk.Resource("fork"))), 0o644); err != nil {
		t.Fatal(err)
	}
	spec := filepath.Join(dir, "w30.wdl")
	if err := os.WriteFile(spec, []byte(w30Shaped), 0o644); err != nil {
		t.Fatal(err)
	}
	env := append(os.Environ(), "X509_USER_PROXY="+ce.Proxy, "X509_CERT_DIR="+creds.CADir)
	for _, c := range []struct{ policy, runner string }{{"WF", "drunner"}, {"CF", "krunner"}} {
		out := filepath.Join(dir, c.policy)
		cmd := exec.Command(bin, "run", spec, "--grid", gridFile, "--policy", c.policy, "--runner", c.runner, "-o", out, "-q")
		cmd.Dir, cmd.Env = dir, env
		if b, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("%s: %v\n%s", c.policy, err, b)
		}
		events := checkCoreRun(t, filepath.Join(out, "results.db"), c.policy)
		placedOn, spanning := map[string]int{}, 0
		for _, e := range events {
			if e.Kind == "component_start" {
				placedOn[e.Cluster]++
			}
			if e.Kind == "placed" && len(e.Sites) > 1 && e.Sites[0] != e.Sites[1] {
				spanning++
			}
		}
		t.Logf("%s: components started per cluster %v, %d placements spanning both CEs", c.policy, placedOn, spanning)
		switch c.policy {
		case "CF":
			if placedOn["fs1"] != 0 || placedOn["fs0"] == 0 {
				t.Errorf("CF: components started per cluster %v, want all on fs0, where the file is", placedOn)
			}
		case "WF":
			if placedOn["fs0"] == 0 || placedOn["fs1"] == 0 || spanning == 0 {
				t.Errorf("WF: components started per cluster %v, %d jobs spanning both; want both used and some jobs across them", placedOn, spanning)
			}
		}
	}
}

// ceEnv is an ARC CE (fs0) and a GRAM5 gatekeeper (fs1), both on fork,
// sharing credentials, and a copy of gmark the CEs' mapped accounts can
// run, in a directory they can enter (a test's own temporary directory is
// closed to them).
type ceEnv struct {
	dir, bin string
	creds    *gridtest.Credentials
	ce       *arctest.CE
	gk       *gramtest.Gatekeeper
}

// startCEs starts the CEs, or skips saying why it cannot; what says what
// the test does, for -short's skip.
func startCEs(t *testing.T, what string) *ceEnv {
	t.Helper()
	if testing.Short() {
		t.Skip(what + "; skipped with -short")
	}
	if why := arctest.Available(); why != "" {
		t.Skip("ARC CE not available: " + why)
	}
	if why := gramtest.Available(false); why != "" {
		t.Skip("GRAM5 not available: " + why)
	}
	dir, err := os.MkdirTemp("", "gmark-celrm-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	e := &ceEnv{dir: dir, bin: filepath.Join(dir, "gmark")}
	if e.creds, err = gridtest.New(filepath.Join(dir, "creds")); err != nil {
		t.Fatal(err)
	}
	e.ce = arctest.Start(t, arctest.Options{Name: "fs0", Creds: e.creds, InfoPeriod: 5 * time.Second, WakeupPeriod: 2 * time.Second})
	e.gk = gramtest.Start(t, gramtest.Options{Name: "fs1", Creds: e.creds})
	b, err := os.ReadFile(gmarkBin.Path(t))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(e.bin, b, 0o755); err != nil {
		t.Fatal(err)
	}
	return e
}

// checkCoreRun wants every job of the store's run succeeded and every
// component start to carry the CE's id for it; it returns the core's
// events.
func checkCoreRun(t *testing.T, db, what string) []event {
	t.Helper()
	run, jobs := gridtest.RowsOf(t, db)
	if len(jobs) != 10 {
		t.Errorf("%s: %d jobs, want 10", what, len(jobs))
	}
	for _, j := range jobs {
		if j.State != store.Succeeded {
			t.Errorf("%s: job %s %s on %s: %s", what, j.JobID, j.State, j.Sites, j.Reason)
		}
	}
	st, err := store.OpenReadOnly(db)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	notes, err := st.Annotations(run, "koala-event")
	if err != nil {
		t.Fatal(err)
	}
	var events []event
	for _, n := range notes {
		var e event
		if err := json.Unmarshal([]byte(n.Value), &e); err != nil {
			t.Fatalf("annotation %q: %v", n.Value, err)
		}
		if e.Kind == "component_start" {
			ok := e.Cluster == "fs0" && !strings.HasPrefix(e.LRMID, "https://") && e.LRMID != "" ||
				e.Cluster == "fs1" && strings.HasPrefix(e.LRMID, "https://localhost:")
			if !ok {
				t.Errorf("%s: component %d of %s started on %s as CE job %q", what, e.Component, e.Job, e.Cluster, e.LRMID)
			}
		}
		events = append(events, e)
	}
	return events
}
