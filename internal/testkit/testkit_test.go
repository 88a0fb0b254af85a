package testkit

import (
	"net"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/gmark/gmark/workload"
)

func TestRepoRootHoldsGoMod(t *testing.T) {
	root := RepoRoot(t)
	if _, err := os.Stat(filepath.Join(root, "go.mod")); err != nil {
		t.Fatal(err)
	}
	if filepath.Base(filepath.Dir(filepath.Join(root, "internal", "testkit"))) != "internal" {
		t.Fatalf("root %s", root)
	}
}

func TestWriteWorkloadReadsBack(t *testing.T) {
	jobs := []workload.Job{{ID: "1-0", Unit: 1, Kind: workload.Unitary, Type: "hello", Submit: time.Second,
		SiteType: workload.Single, App: workload.App{Name: "hello"}, Components: []workload.Component{{Site: "*", Count: 1}}}}
	dir := WriteWorkload(t, jobs...)
	if warning, err := workload.Check(dir); err != nil || warning != "" {
		t.Fatalf("Check: %q, %v", warning, err)
	}
	back, err := workload.ReadAll(dir)
	if err != nil || len(back) != 1 || back[0].ID != "1-0" {
		t.Fatalf("read back %v, %v", back, err)
	}
}

// FreePorts hands out distinct ports, below the kernel's ephemeral range
// (where outgoing connections take theirs), none of them twice across
// calls, and each one bindable on loopback.
func TestFreePorts(t *testing.T) {
	lo, hi := portRange()
	seen := map[int]bool{}
	for _, n := range []int{0, 1, 5, 50} {
		ports, err := FreePorts(n)
		if err != nil || len(ports) != n {
			t.Fatalf("%d: %v %v", n, ports, err)
		}
		for _, p := range ports {
			if p < lo || p >= hi || seen[p] {
				t.Fatalf("%d: port %d of %v: outside %d-%d, or handed out before", n, p, ports, lo, hi-1)
			}
			seen[p] = true
			l, err := net.Listen("tcp", "127.0.0.1:"+strconv.Itoa(p))
			if err != nil {
				t.Fatalf("port %d: %v", p, err)
			}
			l.Close()
		}
	}
}

// The job builders make jobs the workload directory takes, and the DAG's
// edges name its tasks.
func TestJobBuilders(t *testing.T) {
	d := DAGJob("d", time.Second, []string{"a", "b", "c"}, "a>b", "a>c")
	if len(d.Tasks) != 3 || d.Tasks[2].ID != "d.c" || d.Tasks[2].Index != 2 || d.Tasks[1].Submit != time.Second {
		t.Fatalf("tasks %+v", d.Tasks)
	}
	want := []workload.Dependency{{From: "d.a", To: "d.b"}, {From: "d.a", To: "d.c"}}
	if !slices.Equal(d.Deps, want) {
		t.Fatalf("deps %+v, want %+v", d.Deps, want)
	}
	dir := WriteWorkload(t, HelloJob("u", 0), d)
	if _, err := workload.Check(dir); err != nil {
		t.Fatalf("the workload of the builders' jobs: %v", err)
	}
	if got := JSONKeys(t, `{"b":1,"a":{"z":2},"c":[]}`); got != "a,b,c" {
		t.Errorf("JSONKeys = %q", got)
	}
}
