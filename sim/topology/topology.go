// Package topology reads the system description of a multi-grid simulation:
// clusters of identical processors (size, speed, local scheduler), the
// administrative sites and grid roots above them, and the links of the
// hybrid hierarchical-distributed architecture of Iosup's thesis (Ch. 7.5):
// parent–child links (each node names its parent) and sibling links between
// nodes with the same parent (the roots of the grids are siblings of each
// other when they share load). The format is TOML (docs/sim.md); two
// presets are embedded: DAS-2 and DAS-2 + Grid'5000.
package topology

import (
	"fmt"
	"slices"
	"strings"
)

// Topology is a validated system description.
type Topology struct {
	Name string
	// Nodes are the clusters first (index = cluster index, in file order),
	// then the sites without processors (in file order).
	Nodes    []Node
	Clusters int // the number of clusters: Nodes[:Clusters]
}

// Node is a cluster or a site without processors (an administrative site or
// the root of a grid).
type Node struct {
	Name     string
	Parent   int   // index of the parent node; -1 for a root
	Children []int // nodes naming this one as parent, in index order
	Siblings []int // in index order
	// Cluster fields (zero for a site):
	Processors int
	Speed      float64 // relative speed: a job's run time is its work divided by it
	Scheduler  string  // local queue policy: "fcfs" (default), "easy" or "conservative"
	// Derived:
	Grid int // the root above this node (itself for a root)
	// Site is the administrative site a cluster belongs to, for the goodput
	// classes: its parent, unless the parent is a grid root, in which case
	// the cluster is a site of its own (a DAS-2 cluster is one university).
	Site int
}

// IsCluster tells a cluster from a site without processors.
func (n *Node) IsCluster() bool { return n.Processors > 0 }

// Neighbours are the nodes a site may delegate to: its children, its
// siblings and its parent, in that order (keep the load low in the tree).
func (t *Topology) Neighbours(i int) []int {
	n := &t.Nodes[i]
	out := make([]int, 0, len(n.Children)+len(n.Siblings)+1)
	out = append(out, n.Children...)
	out = append(out, n.Siblings...)
	if n.Parent >= 0 {
		out = append(out, n.Parent)
	}
	return out
}

// Index returns the node of a name.
func (t *Topology) Index(name string) (int, bool) {
	for i := range t.Nodes {
		if t.Nodes[i].Name == name {
			return i, true
		}
	}
	return -1, false
}

// Processors is the total over the clusters.
func (t *Topology) Processors() int {
	n := 0
	for i := 0; i < t.Clusters; i++ {
		n += t.Nodes[i].Processors
	}
	return n
}

// Subtree lists the clusters at or below node i, in index order.
func (t *Topology) Subtree(i int) []int {
	var out []int
	for c := 0; c < t.Clusters; c++ {
		for a := c; a >= 0; a = t.Nodes[a].Parent {
			if a == i {
				out = append(out, c)
				break
			}
		}
	}
	return out
}

// Relation classes where a job ran relative to its home cluster.
type Relation int

const (
	Local     Relation = iota // on its home cluster
	IntraSite                 // another cluster of the same administrative site
	IntraGrid                 // another site of the same grid
	InterGrid                 // another grid
)

func (r Relation) String() string {
	return [...]string{"local", "intra-site", "intra-grid", "inter-grid"}[r]
}

// Relate classes cluster ran relative to cluster home.
func (t *Topology) Relate(home, ran int) Relation {
	switch {
	case home == ran:
		return Local
	case t.Nodes[home].Site == t.Nodes[ran].Site:
		return IntraSite
	case t.Nodes[home].Grid == t.Nodes[ran].Grid:
		return IntraGrid
	}
	return InterGrid
}

// Spec is a topology before validation: what a file holds, or what a test
// writes by hand.
type Spec struct {
	Name     string        `toml:"name"`
	Sites    []SiteSpec    `toml:"site"`
	Clusters []ClusterSpec `toml:"cluster"`
	Siblings []SiblingSpec `toml:"sibling"`
}

// SiteSpec is a site without processors.
type SiteSpec struct {
	Name   string `toml:"name"`
	Parent string `toml:"parent"`
}

// ClusterSpec is a cluster.
type ClusterSpec struct {
	Name       string   `toml:"name"`
	Parent     string   `toml:"parent"`
	Processors int      `toml:"processors"`
	Speed      *float64 `toml:"speed"`
	Scheduler  string   `toml:"scheduler"`
}

// SiblingSpec links every pair of the named nodes as siblings.
type SiblingSpec struct {
	Sites []string `toml:"sites"`
}

// The documented ranges (docs/sim.md).
const (
	MaxNodes      = 10_000
	MaxProcessors = 1 << 20 // of one cluster
	MinSpeed      = 1e-3
	MaxSpeed      = 1e3
	MaxNameLen    = 200
	MaxSibPairs   = 1_000_000 // sibling links in all
	MaxProblems   = 50        // reported at once
)

// problem is a validation error located by table, element and key, so
// that Parse can give its line.
type problem struct {
	table string // "site", "cluster", "sibling", or "" for the top level
	index int
	key   string
	msg   string
}

// Build validates a Spec. The error lists every problem found.
func Build(spec *Spec) (*Topology, error) {
	t, probs := build(spec)
	if len(probs) > 0 {
		msgs := make([]string, len(probs))
		for i, p := range probs {
			msgs[i] = p.msg
		}
		return nil, fmt.Errorf("%s", strings.Join(msgs, "; "))
	}
	return t, nil
}

func build(spec *Spec) (*Topology, []problem) {
	var probs []problem
	add := func(table string, index int, key, format string, args ...any) {
		switch {
		case len(probs) < MaxProblems:
			probs = append(probs, problem{table, index, key, fmt.Sprintf(format, args...)})
		case len(probs) == MaxProblems:
			probs = append(probs, problem{"", -1, "", fmt.Sprintf("more than %d problems; the first %d are listed", MaxProblems, MaxProblems)})
		}
	}
	nc, ns := len(spec.Clusters), len(spec.Sites)
	if nc == 0 {
		add("", -1, "", "no [[cluster]]: a system needs at least one cluster")
	}
	if nc+ns > MaxNodes {
		add("", -1, "", "%d clusters and sites: at most %d", nc+ns, MaxNodes)
		return nil, probs
	}
	t := &Topology{Name: spec.Name, Clusters: nc, Nodes: make([]Node, nc+ns)}
	index := make(map[string]int, nc+ns)
	names := func(table string, i int, name string, node int) {
		switch {
		case name == "":
			add(table, i, "name", "%s %d: no name", table, i+1)
		case len(name) > MaxNameLen:
			add(table, i, "name", "%s %d: name longer than %d bytes", table, i+1, MaxNameLen)
		default:
			if _, dup := index[name]; dup {
				add(table, i, "name", "%s %q: the name is already used", table, name)
			} else {
				index[name] = node
			}
		}
		t.Nodes[node].Name = name
	}
	for i, c := range spec.Clusters {
		names("cluster", i, c.Name, i)
		n := &t.Nodes[i]
		if c.Processors < 1 || c.Processors > MaxProcessors {
			add("cluster", i, "processors", "cluster %q: processors = %d is out of range: must be in [1, %d]", c.Name, c.Processors, MaxProcessors)
		}
		n.Processors = max(c.Processors, 1)
		n.Speed = 1
		if c.Speed != nil {
			if s := *c.Speed; !(s >= MinSpeed && s <= MaxSpeed) {
				add("cluster", i, "speed", "cluster %q: speed = %g is out of range: must be in [%g, %g]", c.Name, s, MinSpeed, MaxSpeed)
			} else {
				n.Speed = s
			}
		}
		switch strings.ToLower(c.Scheduler) {
		case "", "fcfs":
			n.Scheduler = "fcfs"
		case "easy", "fcfs+easy":
			n.Scheduler = "easy"
		case "conservative", "fcfs+conservative":
			n.Scheduler = "conservative"
		default:
			add("cluster", i, "scheduler", "cluster %q: scheduler %q: use \"fcfs\", \"easy\" or \"conservative\"", c.Name, c.Scheduler)
			n.Scheduler = "fcfs"
		}
	}
	for i, s := range spec.Sites {
		names("site", i, s.Name, nc+i)
	}
	parent := func(table string, i int, name, p string) int {
		if p == "" {
			return -1
		}
		j, ok := index[p]
		switch {
		case !ok:
			add(table, i, "parent", "%s %q: parent %q is not a site of this file", table, name, p)
			return -1
		case j < nc:
			add(table, i, "parent", "%s %q: parent %q is a cluster; clusters are leaves, a parent is a [[site]]", table, name, p)
			return -1
		}
		return j
	}
	for i, c := range spec.Clusters {
		t.Nodes[i].Parent = parent("cluster", i, c.Name, c.Parent)
	}
	for i, s := range spec.Sites {
		t.Nodes[nc+i].Parent = parent("site", i, s.Name, s.Parent)
	}
	t.checkCycles(nc, spec, add)
	t.link(spec, index, add)
	if len(probs) > 0 {
		return nil, probs
	}
	t.derive()
	return t, nil
}

// checkCycles finds sites that are their own ancestors, and cuts the
// cycle so that later passes terminate.
func (t *Topology) checkCycles(nc int, spec *Spec, add func(string, int, string, string, ...any)) {
	var cyclic []int
	for i := nc; i < len(t.Nodes); i++ {
		steps := 0
		for a := t.Nodes[i].Parent; a >= 0 && steps <= len(t.Nodes); a = t.Nodes[a].Parent {
			if steps++; a == i {
				add("site", i-nc, "parent", "site %q is its own ancestor (a cycle of parent links)", spec.Sites[i-nc].Name)
				cyclic = append(cyclic, i)
				break
			}
		}
	}
	for _, i := range cyclic {
		t.Nodes[i].Parent = -1
	}
}

// link resolves the sibling links: every pair of a [[sibling]] list, both
// ways, once; siblings must have the same parent (or both be roots).
func (t *Topology) link(spec *Spec, index map[string]int, add func(string, int, string, string, ...any)) {
	seen := map[[2]int]bool{}
	pairs := 0
	for i, l := range spec.Siblings {
		if pairs += len(l.Sites) * (len(l.Sites) - 1) / 2; pairs > MaxSibPairs || len(l.Sites) > MaxNodes {
			add("sibling", i, "sites", "sibling %d: more than %d sibling links in all", i+1, MaxSibPairs)
			return
		}
		if len(l.Sites) < 2 {
			add("sibling", i, "sites", "sibling %d: sites must name at least two clusters or sites", i+1)
			continue
		}
		var ids []int
		for _, name := range l.Sites {
			j, ok := index[name]
			if !ok {
				add("sibling", i, "sites", "sibling %d: %q is not a cluster or site of this file", i+1, name)
				continue
			}
			ids = append(ids, j)
		}
		for a := 0; a < len(ids); a++ {
			for b := a + 1; b < len(ids); b++ {
				x, y := min(ids[a], ids[b]), max(ids[a], ids[b])
				switch {
				case x == y:
					add("sibling", i, "sites", "sibling %d: %q is listed twice", i+1, t.Nodes[x].Name)
				case t.Nodes[x].Parent != t.Nodes[y].Parent:
					add("sibling", i, "sites", "sibling %d: %q and %q have different parents; siblings share a parent (or are both roots)", i+1, t.Nodes[x].Name, t.Nodes[y].Name)
				case seen[[2]int{x, y}]:
					// the same link twice is harmless
				default:
					seen[[2]int{x, y}] = true
					t.Nodes[x].Siblings = append(t.Nodes[x].Siblings, y)
					t.Nodes[y].Siblings = append(t.Nodes[y].Siblings, x)
				}
			}
		}
	}
}

// derive fills Children, Grid and Site, and sorts the link lists.
func (t *Topology) derive() {
	for i := range t.Nodes {
		if p := t.Nodes[i].Parent; p >= 0 {
			t.Nodes[p].Children = append(t.Nodes[p].Children, i)
		}
	}
	for i := range t.Nodes {
		n := &t.Nodes[i]
		slices.Sort(n.Siblings)
		r := i
		for t.Nodes[r].Parent >= 0 {
			r = t.Nodes[r].Parent
		}
		n.Grid = r
		n.Site = i
		if i < t.Clusters && n.Parent >= 0 && t.Nodes[n.Parent].Parent >= 0 {
			n.Site = n.Parent
		}
	}
}
