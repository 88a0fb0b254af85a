package workload

import "testing"

func TestPlacementScopeAdd(t *testing.T) {
	free, fs0 := Component{Site: AnySite, Count: 2}, Component{Site: "fs0", Count: 2}
	file := []File{{Name: "f", Size: 1}}
	task := func(files []File, cs ...Component) Job {
		return Job{Kind: Unitary, SiteType: Unordered, Components: cs, Files: files}
	}
	for _, c := range []struct {
		name string
		job  Job
		want PlacementScope
	}{
		{"pinned", task(file, fs0), PlacementScope{Jobs: 1}},
		{"pinned, two components", task(nil, fs0, fs0), PlacementScope{Jobs: 1}},
		{"free", task(nil, free), PlacementScope{Jobs: 1, Free: 1}},
		{"free, with a file", task(file, free), PlacementScope{Jobs: 1, Free: 1, Files: 1}},
		{"semi-fixed: one free component", task(nil, fs0, free), PlacementScope{Jobs: 1, Free: 1}},
		{"two free components", task(file, free, fs0, free), PlacementScope{Jobs: 1, Free: 1, Spread: 1, Files: 1}},
		{"flexible: neither spread nor files", Job{Kind: Unitary, SiteType: Flexible, Components: []Component{free, free}, Files: file},
			PlacementScope{Jobs: 1, Free: 1, Flexible: 1}},
		{"no components", task(file), PlacementScope{Jobs: 1}},
		{"a composite job counts its tasks", Job{Kind: Composite, Tasks: []Job{task(file, free), task(nil, fs0), task(nil, free, free)}},
			PlacementScope{Jobs: 3, Free: 2, Spread: 1, Files: 1}},
		{"an empty composite job", Job{Kind: Composite}, PlacementScope{}},
	} {
		var s PlacementScope
		s.Add(&c.job)
		if s != c.want {
			t.Errorf("%s: %+v, want %+v", c.name, s, c.want)
		}
	}
}
