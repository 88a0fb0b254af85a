package topology

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/gmark/gmark/internal/srcerr"
)

func TestPresets(t *testing.T) {
	tests := []struct {
		name               string
		clusters, nodes    int
		processors         int
		largest, smallest  int
		grids, sibPairs    int
		fs0Neighbours      []string
		site1c1, site1c2   int
		relFs0Fs4, relCrit Relation
	}{
		{name: "das2", clusters: 5, nodes: 6, processors: 400, largest: 144, smallest: 64, grids: 1, sibPairs: 1,
			fs0Neighbours: []string{"fs4", "das2"}},
		{name: "das2-g5k", clusters: 20, nodes: 31, processors: 3152, largest: 560, smallest: 64, grids: 2, sibPairs: 7,
			fs0Neighbours: []string{"fs4", "das2"}, site1c1: 128, site1c2: 128},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			top, err := Preset(tc.name)
			if err != nil {
				t.Fatal(err)
			}
			if top.Clusters != tc.clusters || len(top.Nodes) != tc.nodes || top.Processors() != tc.processors {
				t.Fatalf("%d clusters, %d nodes, %d processors; want %d, %d, %d", top.Clusters, len(top.Nodes), top.Processors(), tc.clusters, tc.nodes, tc.processors)
			}
			lo, hi, grids, pairs := 1<<30, 0, 0, 0
			for i, n := range top.Nodes {
				if i < top.Clusters {
					lo, hi = min(lo, n.Processors), max(hi, n.Processors)
					if !n.IsCluster() || n.Speed != 1 || n.Scheduler != "fcfs" {
						t.Errorf("cluster %s: %+v", n.Name, n)
					}
				} else if n.IsCluster() {
					t.Errorf("site %s has processors", n.Name)
				}
				if n.Parent < 0 {
					grids++
				}
				pairs += len(n.Siblings)
			}
			if lo != tc.smallest || hi != tc.largest || grids != tc.grids || pairs/2 != tc.sibPairs {
				t.Errorf("sizes %d..%d, %d roots, %d sibling pairs; want %d..%d, %d, %d", lo, hi, grids, pairs/2, tc.smallest, tc.largest, tc.grids, tc.sibPairs)
			}
			fs0, _ := top.Index("fs0")
			var got []string
			for _, j := range top.Neighbours(fs0) {
				got = append(got, top.Nodes[j].Name)
			}
			if strings.Join(got, ",") != strings.Join(tc.fs0Neighbours, ",") {
				t.Errorf("neighbours of fs0: %v, want %v", got, tc.fs0Neighbours)
			}
			if tc.site1c1 > 0 {
				a, _ := top.Index("site1-c1")
				b, _ := top.Index("site1-c2")
				if a != 5 || b != 6 || top.Nodes[a].Processors != tc.site1c1 || top.Nodes[b].Processors != tc.site1c2 {
					t.Errorf("Fig. 6.6's c06, c07: nodes %d, %d", a, b)
				}
			}
		})
	}
}

func TestRelateAndSubtree(t *testing.T) {
	top, err := Preset("das2-g5k")
	if err != nil {
		t.Fatal(err)
	}
	idx := func(name string) int {
		i, ok := top.Index(name)
		if !ok {
			t.Fatalf("no node %s", name)
		}
		return i
	}
	tests := []struct {
		home, ran string
		want      Relation
	}{
		{"fs0", "fs0", Local},
		{"fs0", "fs4", IntraGrid}, // DAS-2 clusters are sites of their own
		{"site1-c1", "site1-c4", IntraSite},
		{"site1-c1", "site4-c2", IntraGrid},
		{"fs2", "site9-c1", InterGrid},
		{"site5-c2", "fs1", InterGrid},
	}
	for _, tc := range tests {
		if got := top.Relate(idx(tc.home), idx(tc.ran)); got != tc.want {
			t.Errorf("%s -> %s: %v, want %v", tc.home, tc.ran, got, tc.want)
		}
	}
	if got := top.Subtree(idx("site1")); len(got) != 4 || got[0] != 5 || got[3] != 8 {
		t.Errorf("subtree of site1: %v", got)
	}
	if got := top.Subtree(idx("g5k")); len(got) != 15 {
		t.Errorf("subtree of g5k: %d clusters", len(got))
	}
	if got := top.Subtree(idx("fs3")); len(got) != 1 || got[0] != 3 {
		t.Errorf("subtree of fs3: %v", got)
	}
	if _, ok := top.Index("nowhere"); ok {
		t.Error("found a node that does not exist")
	}
}

func TestParseErrors(t *testing.T) {
	tests := []struct {
		name string
		src  string
		want []string // each a line of the error, in order
	}{
		{"empty", "", []string{"t.toml: no [[cluster]]"}},
		{"syntax", "name = \n", []string{"t.toml:1: "}},
		{"unknown key", "[[cluster]]\nname = \"a\"\nprocessors = 4\nsize = 3\n", []string{"t.toml:4: unknown setting cluster.size"}},
		{"unknown top", "nmae = \"x\"\n[[cluster]]\nname = \"a\"\nprocessors = 4\n", []string{"t.toml:1: unknown setting nmae"}},
		{"processors", "[[cluster]]\nname = \"a\"\nprocessors = 0\n[[cluster]]\nname = \"b\"\n", []string{
			"t.toml:3: cluster \"a\": processors = 0 is out of range",
			"t.toml:4: cluster \"b\": processors = 0 is out of range"}},
		{"speed", "[[cluster]]\nname = \"a\"\nprocessors = 4\nspeed = 0.0\n", []string{"t.toml:4: cluster \"a\": speed = 0 is out of range"}},
		{"speed nan", "[[cluster]]\nname = \"a\"\nprocessors = 4\nspeed = nan\n", []string{"t.toml:4: cluster \"a\": speed = NaN"}},
		{"scheduler", "[[cluster]]\nname = \"a\"\nprocessors = 4\nscheduler = \"sjf\"\n", []string{"t.toml:4: cluster \"a\": scheduler \"sjf\""}},
		{"duplicate", "[[cluster]]\nname = \"a\"\nprocessors = 4\n[[site]]\nname = \"a\"\n", []string{"t.toml:5: site \"a\": the name is already used"}},
		{"no name", "[[cluster]]\nprocessors = 4\n", []string{"t.toml:1: cluster 1: no name"}},
		{"parent missing", "[[cluster]]\nname = \"a\"\nparent = \"x\"\nprocessors = 4\n", []string{"t.toml:3: cluster \"a\": parent \"x\" is not a site"}},
		{"parent cluster", "[[cluster]]\nname = \"a\"\nprocessors = 4\n[[cluster]]\nname = \"b\"\nparent = \"a\"\nprocessors = 4\n",
			[]string{"t.toml:6: cluster \"b\": parent \"a\" is a cluster"}},
		{"cycle", "[[cluster]]\nname = \"a\"\nprocessors = 4\n[[site]]\nname = \"x\"\nparent = \"y\"\n[[site]]\nname = \"y\"\nparent = \"x\"\n",
			[]string{"t.toml:6: site \"x\" is its own ancestor", "t.toml:9: site \"y\" is its own ancestor"}},
		{"sibling parents", "[[site]]\nname = \"r\"\n[[cluster]]\nname = \"a\"\nparent = \"r\"\nprocessors = 4\n[[cluster]]\nname = \"b\"\nprocessors = 4\n[[sibling]]\nsites = [\"a\", \"b\"]\n",
			[]string{"t.toml:11: sibling 1: \"a\" and \"b\" have different parents"}},
		{"sibling one", "[[cluster]]\nname = \"a\"\nprocessors = 4\n[[sibling]]\nsites = [\"a\"]\n", []string{"t.toml:5: sibling 1: sites must name at least two"}},
		{"sibling twice", "[[cluster]]\nname = \"a\"\nprocessors = 4\n[[sibling]]\nsites = [\"a\", \"a\"]\n", []string{"t.toml:5: sibling 1: \"a\" is listed twice"}},
		{"sibling unknown", "[[cluster]]\nname = \"a\"\nprocessors = 4\n[[sibling]]\nsites = [\"a\", \"zz\"]\n", []string{"t.toml:5: sibling 1: \"zz\" is not"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse("t.toml", []byte(tc.src))
			if err == nil {
				t.Fatal("accepted")
			}
			var list srcerr.List
			if !errors.As(err, &list) {
				t.Fatalf("%T is not a srcerr.List: %v", err, err)
			}
			got := strings.Split(err.Error(), "\n")
			if len(got) != len(tc.want) {
				t.Fatalf("%d problems, want %d:\n%v", len(got), len(tc.want), err)
			}
			for i := range got {
				if !strings.HasPrefix(got[i], tc.want[i]) {
					t.Errorf("problem %d: %q, want prefix %q", i, got[i], tc.want[i])
				}
			}
		})
	}
}

func TestParseValid(t *testing.T) {
	src := `name = "hand"
[[site]]
name = "root"
[[cluster]]
name = "a"
parent = "root"
processors = 8
speed = 2.5
scheduler = "EASY"
[[cluster]]
name = "b"
parent = "root"
processors = 1
[[cluster]]
name = "c"
parent = "root"
processors = 3
[[sibling]]
sites = ["a", "b", "c"]
[[sibling]]
sites = ["b", "a"]
`
	top, err := Parse("h.toml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	a := top.Nodes[0]
	if a.Speed != 2.5 || a.Scheduler != "easy" || top.Nodes[1].Speed != 1 || top.Nodes[1].Scheduler != "fcfs" {
		t.Errorf("cluster settings: %+v %+v", a, top.Nodes[1])
	}
	// a clique of three, the repeated pair once.
	if len(a.Siblings) != 2 || len(top.Nodes[1].Siblings) != 2 || len(top.Nodes[2].Siblings) != 2 {
		t.Errorf("siblings: %v %v %v", a.Siblings, top.Nodes[1].Siblings, top.Nodes[2].Siblings)
	}
	if r := top.Nodes[3]; r.Name != "root" || len(r.Children) != 3 || r.Grid != 3 || r.Parent != -1 {
		t.Errorf("root: %+v", r)
	}
	if top.Nodes[0].Site != 0 || top.Nodes[0].Grid != 3 {
		t.Errorf("a cluster under a root is a site of its own: %+v", top.Nodes[0])
	}
}

func TestLoad(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "x.toml")
	src, err := PresetSource("das2")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, src, 0o644); err != nil {
		t.Fatal(err)
	}
	if top, err := Load(path); err != nil || top.Clusters != 5 {
		t.Fatalf("load: %v", err)
	}
	if _, err := Load(filepath.Join(dir, "missing.toml")); err == nil {
		t.Error("loaded a missing file")
	}
	if _, err := Load(dir); err == nil {
		t.Error("loaded a directory")
	}
	if _, err := Preset("nope"); err == nil || !strings.Contains(err.Error(), "das2-g5k") {
		t.Errorf("unknown preset: %v", err)
	}
	if _, err := Build(&Spec{}); err == nil {
		t.Error("built an empty system")
	}
	if top, err := Build(&Spec{Clusters: []ClusterSpec{{Name: "one", Processors: 1}}}); err != nil || top.Nodes[0].Grid != 0 {
		t.Errorf("one cluster: %v", err)
	}
}

func TestParseLimits(t *testing.T) {
	var b strings.Builder
	for range 200 {
		b.WriteString("[[cluster]]\nname = \"c\"\nprocessors = 0\n")
	}
	_, err := Parse("t.toml", []byte(b.String()))
	var list srcerr.List
	if !errors.As(err, &list) || len(list) != MaxProblems+1 || !strings.Contains(list[0].Msg, "more than 50 problems") {
		t.Errorf("%d problems reported: %v", len(list), err)
	}
	b.Reset()
	b.WriteString("[[site]]\nname = \"r\"\n[[sibling]]\nsites = [")
	for i := range 1500 {
		fmt.Fprintf(&b, "\"r%d\",", i)
	}
	b.WriteString("]\n")
	if _, err := Parse("t.toml", []byte(b.String())); err == nil || !strings.Contains(err.Error(), "t.toml:4: sibling 1: more than 1000000 sibling links") {
		t.Errorf("a sibling list of 1,500 names: %v", err)
	}
}

// TestSpecRoundTrip: Build(t.Spec()) is t, for the presets.
func TestSpecRoundTrip(t *testing.T) {
	for _, name := range PresetNames() {
		top, err := Preset(name)
		if err != nil {
			t.Fatal(err)
		}
		spec := top.Spec()
		again, err := Build(&spec)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if !reflect.DeepEqual(top, again) {
			t.Errorf("%s: the round trip changed the topology:\n%+v\n%+v", name, top, again)
		}
	}
}
