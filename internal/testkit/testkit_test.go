package testkit

import (
	"os"
	"path/filepath"
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

func TestFreePorts(t *testing.T) {
	for _, n := range []int{0, 1, 5} {
		ports, err := FreePorts(n)
		if err != nil || len(ports) != n {
			t.Fatalf("%d: %v %v", n, ports, err)
		}
		seen := map[int]bool{}
		for _, p := range ports {
			if p <= 0 || p > 65535 || seen[p] {
				t.Fatalf("%d: ports %v", n, ports)
			}
			seen[p] = true
		}
	}
}
