package placement

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/gmark/gmark/workload"
)

// request is the placement request the core makes of a workload job
// (core.initComponents): a component on AnySite is free.
func request(j *workload.Job) *Request {
	r := &Request{Flexible: j.SiteType == workload.Flexible}
	for i, c := range j.Components {
		site := c.Site
		if site == workload.AnySite {
			site = ""
		}
		r.Components = append(r.Components, Component{Index: i, Size: c.Count, Site: site})
	}
	for _, f := range j.Files {
		r.Files = append(r.Files, File{Name: f.Name, Size: f.Size})
	}
	return r
}

var scopeSites = []string{"A", "B", "C", "D"}

// randomJob is a job of one to three components of 1 to 12 processors;
// pinned says how likely a component is to name a site, files whether the
// job reads one of two files, flexible how likely the job is flexible.
func randomJob(r *rand.Rand, pinned, flexible float64, files bool) *workload.Job {
	j := &workload.Job{Kind: workload.Unitary, SiteType: workload.Unordered}
	if r.Float64() < flexible {
		j.SiteType = workload.Flexible
	}
	for range 1 + r.IntN(3) {
		site := workload.AnySite
		if j.SiteType != workload.Flexible && r.Float64() < pinned {
			site = scopeSites[r.IntN(len(scopeSites))]
		}
		j.Components = append(j.Components, workload.Component{Site: site, Count: 1 + r.IntN(12)})
	}
	if files {
		j.Files = []workload.File{{Name: []string{"f", "g"}[r.IntN(2)], Size: int64(500 + r.IntN(3000))}}
	}
	return j
}

// randomInfo is testInfo's network and replicas with random idle counts.
func randomInfo(r *rand.Rand) *Info {
	info := testInfo()
	for i := range info.Sites {
		info.Sites[i].Idle = r.IntN(25)
	}
	return info
}

// A policy NothingToActOn says cannot differ from Worst-Fit does not: on
// random workloads of each kind the verdict names, every job is placed
// where Worst-Fit places it (or fails as it fails), on random grids. And
// where the verdict is "", the policy does differ somewhere: the claims
// are about the policies, not a blanket silence.
func TestNothingToActOnIsTrue(t *testing.T) {
	kinds := []struct {
		name              string
		pinned, flexible  float64
		files, singleFree bool
	}{
		{"every component pinned", 1, 0, true, false},
		{"free components, no files", 0.3, 0.2, false, false},
		{"files, one free component each", 0.5, 0, true, true},
		{"flexible jobs with files", 0, 1, true, false},
		{"free components with files", 0.2, 0, true, false},
	}
	for _, k := range kinds {
		t.Run(k.name, func(t *testing.T) {
			r := rand.New(rand.NewPCG(1, uint64(len(k.name))))
			var jobs []*workload.Job
			var scope workload.PlacementScope
			for len(jobs) < 300 {
				j := randomJob(r, k.pinned, k.flexible, k.files)
				if k.singleFree {
					free := 0
					for _, c := range j.Components {
						if c.Site == workload.AnySite {
							free++
						}
					}
					if free > 1 {
						continue
					}
				}
				jobs = append(jobs, j)
				scope.Add(j)
			}
			differs := map[string]bool{}
			for _, name := range Names() {
				why := NothingToActOn(name, scope)
				pol, _ := New(name, scopeSites)
				base, _ := New(WorstFit, scopeSites)
				for i, j := range jobs {
					info := randomInfo(r)
					got, gfail := pol.Place(request(j), info)
					want, wfail := base.Place(request(j), info)
					same := summary(got, gfail) == summary(want, wfail)
					if !same {
						differs[name] = true
						if why != "" {
							t.Fatalf("%s: %q, yet job %d %+v is placed %s by %s and %s by WF",
								name, why, i, *j, summary(got, gfail), name, summary(want, wfail))
						}
					}
				}
				if why == "" && name != WorstFit && !differs[name] {
					t.Errorf("%s: no verdict, yet it placed all %d jobs as WF does (scope %+v)", name, len(jobs), scope)
				}
			}
		})
	}
}

func TestNothingToActOnMessages(t *testing.T) {
	cases := []struct {
		policy string
		scope  workload.PlacementScope
		want   string // a part of the verdict; "" for none
	}{
		{"WF", workload.PlacementScope{Jobs: 5}, "every component of the 5 jobs is pinned to a site"},
		{"close-to-files", workload.PlacementScope{Jobs: 1}, "every component of the 1 job is pinned"},
		{"WF", workload.PlacementScope{Jobs: 5, Free: 1}, ""},
		{"CF", workload.PlacementScope{Jobs: 5, Free: 3}, "no job with a site to choose reads an input file (3 jobs with a site to choose)"},
		{"CF", workload.PlacementScope{Jobs: 5, Free: 3, Flexible: 1}, "(3 jobs with a site to choose; the 1 flexible job every policy splits alike)"},
		{"cf", workload.PlacementScope{Jobs: 5, Free: 3, Files: 1}, ""},
		{"CM", workload.PlacementScope{Jobs: 5, Free: 5, Files: 5}, "no job has two or more components to place"},
		{"FCM", workload.PlacementScope{Jobs: 5, Free: 5, Flexible: 2}, "so FCM and WF give the same results"},
		{"CM", workload.PlacementScope{Jobs: 5, Free: 5, Spread: 1}, ""},
		{"CF", workload.PlacementScope{}, ""},               // no jobs
		{"XX", workload.PlacementScope{Jobs: 5}, ""},        // not a policy
		{"", workload.PlacementScope{Jobs: 5, Free: 5}, ""}, // not a policy either
	}
	for _, c := range cases {
		got := NothingToActOn(c.policy, c.scope)
		if c.want == "" && got != "" || !strings.Contains(got, c.want) {
			t.Errorf("NothingToActOn(%q, %+v) = %q, want %q", c.policy, c.scope, got, c.want)
		}
		if got != "" && strings.Contains(got, "1 jobs") {
			t.Errorf("%q: a plural for one", got)
		}
	}
}

func TestUnreplicated(t *testing.T) {
	info := testInfo()
	got := fmt.Sprint(Unreplicated([]string{"f", "h", "g", ""}, info.Replicas))
	if got != "[h ]" {
		t.Errorf("Unreplicated = %s, want [h ]", got)
	}
	if Unreplicated(nil, info.Replicas) != nil {
		t.Error("no files, yet some are unreplicated")
	}
}
