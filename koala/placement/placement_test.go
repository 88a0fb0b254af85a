package placement

import (
	"fmt"
	"math"
	"strings"
	"testing"
	"time"
)

// The hand-worked grid: four sites with 10, 20, 15 and 5 idle processors;
// 100 B/s between sites, except 200 B/s between A and C; file f (1000 B) is
// held at A and D, file g (2000 B) at C.
func testInfo() *Info {
	return &Info{
		Sites: []Site{{Name: "A", Idle: 10}, {Name: "B", Idle: 20}, {Name: "C", Idle: 15}, {Name: "D", Idle: 5}},
		Replicas: func(name string) []string {
			return map[string][]string{"f": {"A", "D"}, "g": {"C"}}[name]
		},
		Bandwidth: func(from, to string) float64 {
			if from == to {
				return math.Inf(1)
			}
			if from+to == "AC" || from+to == "CA" {
				return 200
			}
			return 100
		},
	}
}

func req(sizes ...int) *Request {
	r := &Request{}
	for i, s := range sizes {
		r.Components = append(r.Components, Component{Index: i, Size: s})
	}
	return r
}

func withFiles(r *Request, files ...File) *Request { r.Files = files; return r }

var (
	fileF = File{"f", 1000}
	fileG = File{"g", 2000}
)

// summary renders a result as "0:B 1:C … ftt=10s".
func summary(res Result, fail *Failure) string {
	if fail != nil {
		return "fail"
	}
	var parts []string
	for _, a := range res.Assignments {
		p := fmt.Sprintf("%d:%s", a.Index, a.Site)
		if a.Size != 0 {
			p += fmt.Sprintf("x%d", a.Size)
		}
		if len(a.FileSites) > 0 {
			p += "<" + strings.Join(a.FileSites, ",")
		}
		parts = append(parts, p)
	}
	return strings.Join(parts, " ") + fmt.Sprintf(" ftt=%v", res.FTT)
}

func TestPolicies(t *testing.T) {
	fixed := func(r *Request, i int, site string) *Request { r.Components[i].Site = site; return r }
	cases := []struct {
		name   string
		policy string
		req    *Request
		want   string
	}{
		// Worst-Fit: the most idle site, remaining counts, largest first.
		{"WF one component goes to the most idle site", "WF", req(8), "0:Bx8 ftt=0s"},
		{"WF spreads equal components over remaining idle", "WF", req(8, 8, 8), "0:Bx8 1:Cx8 2:Bx8 ftt=0s"},
		{"WF places the largest component first", "WF", req(4, 12), "0:Cx4 1:Bx12 ftt=0s"},
		{"WF is atomic", "WF", req(15, 15, 15), "fail"},
		{"WF fails a component bigger than any site", "WF", req(21), "fail"},
		{"WF reads the file from the quickest replica (tie: alphabetical)", "WF", withFiles(req(8), fileF), "0:Bx8<A ftt=10s"},
		{"WF fixed component that fits", "WF", fixed(req(4, 6), 1, "A"), "0:Bx4 1:Ax6 ftt=0s"},
		{"WF fixed component that does not fit", "WF", fixed(req(6), 0, "D"), "fail"},
		// Close-to-Files: file sites first (alphabetical), then least transfer time.
		{"CF prefers a file site with room", "CF", withFiles(req(8), fileF), "0:Ax8<A ftt=0s"},
		{"CF then takes the least transfer time", "CF", withFiles(req(12), fileF), "0:Cx12<A ftt=5s"},
		{"CF fills the file site, then the nearest other", "CF", withFiles(req(8, 8), fileF), "0:Ax8<A 1:Cx8<A ftt=5s"},
		{"CF with two files: file sites must hold both", "CF", withFiles(req(4), fileF, fileG), "0:Cx4<A,C ftt=5s"},
		{"CF without files places as WF", "CF", req(8, 8, 8), "0:Bx8 1:Cx8 2:Bx8 ftt=0s"},
		{"CF is atomic", "CF", withFiles(req(16, 16, 16), fileF), "fail"},
		// Cluster Minimization: first-fit decreasing over sites by idle.
		{"CM packs into the fewest clusters", "CM", req(8, 8, 8, 4), "0:Bx8 1:Bx8 2:Cx8 3:Bx4 ftt=0s"},
		{"WF spreads the same job over three", "WF", req(8, 8, 8, 4), "0:Bx8 1:Cx8 2:Bx8 3:Ax4 ftt=0s"},
		// Flexible jobs are split by idle processors (FCM), whatever the policy.
		{"FCM carves the total from the most idle sites", "FCM", &Request{Components: []Component{{Size: 30}}, Flexible: true}, "0:Bx20 1:Cx10 ftt=0s"},
		{"flexible jobs split the same under WF", "WF", &Request{Components: []Component{{Size: 30}}, Flexible: true}, "0:Bx20 1:Cx10 ftt=0s"},
		{"FCM fails when the grid is too small", "FCM", &Request{Components: []Component{{Size: 51}}, Flexible: true}, "fail"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p, err := New(c.policy, []string{"A", "B", "C", "D"})
			if err != nil {
				t.Fatal(err)
			}
			info := testInfo()
			before := fmt.Sprint(info.Sites)
			got := summary(p.Place(c.req, info))
			if got != c.want {
				t.Errorf("%s placed %s, want %s", c.policy, got, c.want)
			}
			if fmt.Sprint(info.Sites) != before {
				t.Error("the policy changed the information service's view")
			}
		})
	}
}

func TestCloseToFilesHistoryTable(t *testing.T) {
	// Only (C, A) is known: C is the only candidate outside the file sites,
	// and placing there teaches the table (C, D), the other file site.
	h := History{{Exec: "C", File: "A"}: true}
	p := NewCloseToFiles(h)
	got := summary(p.Place(withFiles(req(12), fileF), testInfo()))
	if got != "0:Cx12<A ftt=5s" {
		t.Errorf("placed %s", got)
	}
	if !h[Pair{"C", "D"}] || !h[Pair{"C", "A"}] || len(h) != 2 {
		t.Errorf("history table %v, want (C,A) and (C,D)", h)
	}
	// B is not in the table: a 16-processor component (only B has room) fails.
	if got := summary(p.Place(withFiles(req(16), fileF), testInfo())); got != "fail" {
		t.Errorf("placed %s through a pair missing from the table", got)
	}
	// An empty table stays empty and CF finds nothing beyond the file sites.
	empty := History{}
	if got := summary(NewCloseToFiles(empty).Place(withFiles(req(12), fileF), testInfo())); got != "fail" || len(empty) != 0 {
		t.Errorf("empty table: %s, %v", got, empty)
	}
}

func TestExcludedSites(t *testing.T) {
	p, _ := New("WF", nil)
	r := req(8)
	r.Exclude = map[string]bool{"B": true}
	if got := summary(p.Place(r, testInfo())); got != "0:Cx8 ftt=0s" {
		t.Errorf("placed %s, want C (B is excluded)", got)
	}
}

func TestTransferTimeRoundsUp(t *testing.T) {
	info := testInfo()
	info.Bandwidth = func(from, to string) float64 {
		if from == to {
			return math.Inf(1)
		}
		return 3
	}
	res, fail := (&worstFit{}).Place(withFiles(req(8), fileF), info)
	if fail != nil || res.FTT != 333334*time.Millisecond {
		t.Errorf("FTT %v, want 1000/3 s rounded up to the millisecond", res.FTT)
	}
}

func TestUnknownPolicy(t *testing.T) {
	_, err := New("best-fit", nil)
	for _, n := range Names() {
		if err == nil || !strings.Contains(err.Error(), n) {
			t.Errorf("error %v, want one listing %s", err, n)
		}
	}
	for _, n := range Names() {
		if _, err := New(n, nil); err != nil {
			t.Error(err)
		}
	}
}

// A transfer longer than a time.Duration holds saturates: before, a petabyte
// over a 1 kbit/s link wrapped to a negative FTT.
func TestTransferTimeSaturates(t *testing.T) {
	for _, bw := range []float64{125, 1e-3} {
		info := testInfo()
		info.Bandwidth = func(from, to string) float64 {
			if from == to {
				return math.Inf(1)
			}
			return bw
		}
		res, fail := (&worstFit{}).Place(withFiles(req(8), File{"f", 1 << 50}), info)
		if fail != nil || res.FTT != math.MaxInt64 {
			t.Errorf("bandwidth %g: FTT %v, want the longest Duration", bw, res.FTT)
		}
	}
}

// Every policy of the table is found by its name and by each alias, in
// any case, and makes an instance that says its name; no name or alias is
// claimed twice; every policy is documented; the usage list is the table's.
func TestPolicyTable(t *testing.T) {
	seen := map[string]string{}
	for _, p := range Policies {
		if p.Doc == "" || p.New == nil {
			t.Errorf("%s: no doc or no constructor", p.Name)
		}
		for _, n := range append([]string{p.Name}, p.Aliases...) {
			if other, ok := seen[strings.ToLower(n)]; ok {
				t.Errorf("%q is a name of %s and of %s", n, other, p.Name)
			}
			seen[strings.ToLower(n)] = p.Name
			for _, spelt := range []string{n, strings.ToUpper(n), strings.ToLower(n)} {
				pol, err := New(spelt, []string{"a", "b"})
				if err != nil || pol.Name() != p.Name {
					t.Errorf("New(%q) = %v, %v; want %s", spelt, pol, err, p.Name)
				}
				if c, ok := Canonical(spelt); !ok || c != p.Name {
					t.Errorf("Canonical(%q) = %q, %v", spelt, c, ok)
				}
			}
		}
	}
	if got := List(); !strings.HasPrefix(got, "WF, CF, CM, FCM") || got != strings.Join(Names(), ", ") {
		t.Errorf("List() = %q, want the table's names, KOALA's four first", got)
	}
	for _, bad := range []string{"", " WF", "WF ", "w-f", "worst_fit"} {
		if _, ok := Lookup(bad); ok {
			t.Errorf("Lookup(%q) found a policy", bad)
		}
	}
}
