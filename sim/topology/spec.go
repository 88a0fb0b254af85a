package topology

// Spec returns a Spec that Build turns back into t: the clusters and
// sites in index order, and one sibling link per pair. Growing a system
// (sim/dynamics) starts from it.
func (t *Topology) Spec() Spec {
	s := Spec{Name: t.Name}
	parent := func(n *Node) string {
		if n.Parent < 0 {
			return ""
		}
		return t.Nodes[n.Parent].Name
	}
	for i := range t.Nodes {
		n := &t.Nodes[i]
		if i < t.Clusters {
			speed := n.Speed
			s.Clusters = append(s.Clusters, ClusterSpec{Name: n.Name, Parent: parent(n), Processors: n.Processors, Speed: &speed, Scheduler: n.Scheduler})
		} else {
			s.Sites = append(s.Sites, SiteSpec{Name: n.Name, Parent: parent(n)})
		}
		for _, o := range n.Siblings {
			if o > i {
				s.Siblings = append(s.Siblings, SiblingSpec{Sites: []string{n.Name, t.Nodes[o].Name}})
			}
		}
	}
	return s
}
