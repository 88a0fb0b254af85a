package topology

import (
	"strings"
	"testing"
)

// FuzzParse: any input is a valid topology or an error that names the file;
// never a panic. A valid topology keeps the invariants the simulator relies
// on: clusters first with processors and speed in range, links both ways,
// siblings under one parent, parents that are sites, roots reached.
func FuzzParse(f *testing.F) {
	for _, name := range PresetNames() {
		b, _ := PresetSource(name)
		f.Add(b)
	}
	for _, s := range []string{
		"[[cluster]]\nname = \"a\"\nprocessors = 4\n",
		"[[site]]\nname = \"x\"\nparent = \"x\"\n[[cluster]]\nname = \"a\"\nparent = \"x\"\nprocessors = 1\n",
		"[[cluster]]\nname = \"a\"\nprocessors = 4\nspeed = 1e9\n[[sibling]]\nsites = [\"a\",\"a\",\"b\"]\n",
		"[[cluster]]\nname = \"\"\nprocessors = -1\nscheduler = \"easy\"\n",
		"[cluster]\nname = 3\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, src []byte) {
		top, err := Parse("f.toml", src)
		if err != nil {
			if !strings.HasPrefix(err.Error(), "f.toml") {
				t.Fatalf("error without the file name: %v", err)
			}
			return
		}
		if top.Clusters < 1 || top.Clusters > len(top.Nodes) || len(top.Nodes) > MaxNodes {
			t.Fatalf("%d clusters of %d nodes", top.Clusters, len(top.Nodes))
		}
		for i, n := range top.Nodes {
			if (i < top.Clusters) != n.IsCluster() {
				t.Fatalf("node %d: cluster %v", i, n.IsCluster())
			}
			if n.IsCluster() && (n.Processors > MaxProcessors || !(n.Speed >= MinSpeed && n.Speed <= MaxSpeed)) {
				t.Fatalf("cluster %+v", n)
			}
			if n.Parent >= 0 && top.Nodes[n.Parent].IsCluster() {
				t.Fatalf("node %d has a cluster parent", i)
			}
			if top.Nodes[n.Grid].Parent != -1 {
				t.Fatalf("node %d: grid %d is not a root", i, n.Grid)
			}
			for _, s := range n.Siblings {
				if s == i || top.Nodes[s].Parent != n.Parent || !contains(top.Nodes[s].Siblings, i) {
					t.Fatalf("sibling link %d-%d", i, s)
				}
			}
			for _, c := range n.Children {
				if top.Nodes[c].Parent != i {
					t.Fatalf("child link %d-%d", i, c)
				}
			}
		}
	})
}

func contains(a []int, x int) bool {
	for _, v := range a {
		if v == x {
			return true
		}
	}
	return false
}
