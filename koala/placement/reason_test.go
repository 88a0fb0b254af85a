package placement

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

// whyInfo is testInfo with what the information service says about why the
// idle counts are what they are: A (16 processors) has 10 idle; B (32) has
// 30 idle in its local resource manager, 10 of them soft-reserved; C (16)
// has 15; D (8) is out of service.
func whyInfo() *Info {
	info := testInfo()
	info.Sites = []Site{
		{Name: "A", Idle: 10, Processors: 16, LocalIdle: 10},
		{Name: "B", Idle: 20, Processors: 32, LocalIdle: 30},
		{Name: "C", Idle: 15, Processors: 16, LocalIdle: 15},
		{Name: "D", Idle: 0, Processors: 8, Down: "maintenance"},
	}
	return info
}

// reasons renders a failure as "A:busy/0:10 D:down/0:0(maintenance) …":
// site, code, component, the count the reason gives, and its detail.
func reasons(rs []Reason) string {
	var parts []string
	for _, r := range rs {
		p := fmt.Sprintf("%s:%s/%d:%d", r.Site, r.Code, r.Component, r.Have)
		if r.Detail != "" {
			p += "(" + r.Detail + ")"
		}
		parts = append(parts, p)
	}
	return strings.Join(parts, " ")
}

func TestFailureReasons(t *testing.T) {
	fixed := func(r *Request, i int, site string) *Request { r.Components[i].Site = site; return r }
	exclude := func(r *Request, sites ...string) *Request {
		r.Exclude = map[string]bool{}
		for _, s := range sites {
			r.Exclude[s] = true
		}
		return r
	}
	flexible := func(total int) *Request {
		return &Request{Components: []Component{{Size: total}}, Flexible: true}
	}
	cases := []struct {
		name   string
		policy string
		req    *Request
		want   string
	}{
		{"too small everywhere but B, which is busy", "WF", req(31),
			"A:too_small/0:16 B:busy/0:20 C:too_small/0:16 D:too_small/0:8"},
		{"soft reservations keep B from a component of 25", "WF", req(25),
			"A:too_small/0:16 B:reserved/0:20 C:too_small/0:16 D:too_small/0:8"},
		{"soft reservations under Cluster Minimization", "CM", req(22),
			"A:too_small/0:16 B:reserved/0:20 C:too_small/0:16 D:too_small/0:8"},
		{"the job's own components took the room; D is out of service", "WF", req(8, 8, 8, 8, 8),
			"A:taken_by_job/4:2 B:taken_by_job/4:4 C:taken_by_job/4:7 D:down/4:0(maintenance)"},
		{"excluded after errors", "WF", exclude(req(12), "B", "C"),
			"A:busy/0:10 B:excluded/0:0 C:excluded/0:0 D:too_small/0:8"},
		{"a fixed component has the one reason of its site", "WF", fixed(req(4, 12), 1, "A"),
			"A:busy/1:10"},
		{"a fixed component on a site out of service", "CM", fixed(req(4), 0, "D"),
			"D:down/0:0(maintenance)"},
		{"a file with no replica: every site with room says so", "WF", withFiles(req(12), File{"nowhere", 1}),
			"A:busy/0:10 B:no_replica/0:0(nowhere) C:no_replica/0:0(nowhere) D:too_small/0:8"},
		{"CF: a file with no replica", "CF", withFiles(req(12), fileF, File{"nowhere", 1}),
			"A:busy/0:10 B:no_replica/0:0(nowhere) C:no_replica/0:0(nowhere) D:too_small/0:8"},
		{"flexible: the idle processors do not add up", "FCM", flexible(46),
			"A:busy/-1:10 B:reserved/-1:20 C:busy/-1:15 D:down/-1:0(maintenance)"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p, err := New(c.policy, []string{"A", "B", "C", "D"})
			if err != nil {
				t.Fatal(err)
			}
			res, fail := p.Place(c.req, whyInfo())
			if fail == nil {
				t.Fatalf("placed: %s", summary(res, nil))
			}
			if got := reasons(fail.Reasons); got != c.want {
				t.Errorf("reasons\n got %s\nwant %s", got, c.want)
			}
		})
	}
}

// Close-to-Files passes over a site that is not paired with a replica in
// its history table: that is its reason.
func TestCloseToFilesUnpairedReason(t *testing.T) {
	p := NewCloseToFiles(History{})
	_, fail := p.Place(withFiles(req(12), fileF), whyInfo())
	if got, want := reasons(fail.Reasons), "A:busy/0:10 B:no_replica/0:0(f) C:no_replica/0:0(f) D:too_small/0:8"; got != want {
		t.Errorf("reasons\n got %s\nwant %s", got, want)
	}
}

// The core's cheap checks explain a hopeless job as the policy would.
func TestExplainMatchesThePolicy(t *testing.T) {
	for _, r := range []*Request{req(31), req(25), req(22)} {
		_, fail := (&worstFit{}).Place(r, whyInfo())
		if got, want := reasons(Explain(nil, r, whyInfo(), 0)), reasons(fail.Reasons); got != want {
			t.Errorf("%d processors: Explain %s, the policy %s", r.Components[0].Size, got, want)
		}
	}
	r := &Request{Components: []Component{{Size: 46}}, Flexible: true}
	_, fail := (&flexClusterMin{}).Place(r, whyInfo())
	if got, want := reasons(Explain(nil, r, whyInfo(), Total)), reasons(fail.Reasons); got != want {
		t.Errorf("total: Explain %s, the policy %s", got, want)
	}
}

func TestReasonWords(t *testing.T) {
	cases := []struct {
		r    Reason
		want string
	}{
		{Reason{Site: "A", Component: 0, Need: 64, Code: TooSmall, Have: 16}, "A: too small: 16 processors; component 0 needs 64"},
		{Reason{Site: "A", Component: 1, Need: 8, Code: Excluded}, "A: excluded: the job met an error here (a soft error, or the site went down under it)"},
		{Reason{Site: "A", Component: 0, Need: 8, Code: Down, Detail: "maintenance"}, "A: out of service: maintenance"},
		{Reason{Site: "A", Component: 0, Need: 8, Code: Busy, Have: 2}, "A: busy: 2 idle; component 0 needs 8"},
		{Reason{Site: "A", Component: Total, Need: 80, Code: Busy, Have: 2}, "A: busy: 2 idle; the job needs 80"},
		{Reason{Site: "A", Component: 0, Need: 8, Code: Reserved, Have: 2}, "A: soft-reserved: 2 idle not promised to placed jobs; component 0 needs 8"},
		{Reason{Site: "A", Component: 2, Need: 8, Code: TakenByJob, Have: 4}, "A: taken by the job's larger components: 4 left; component 2 needs 8"},
		{Reason{Site: "A", Component: 0, Need: 8, Code: NoReplica, Detail: "f"}, `A: no replica of input file "f" reachable`},
	}
	for _, c := range cases {
		if got := c.r.String(); got != c.want {
			t.Errorf("%v: %q, want %q", c.r.Code, got, c.want)
		}
		b, err := json.Marshal(c.r)
		if err != nil {
			t.Fatal(err)
		}
		var back Reason
		if err := json.Unmarshal(b, &back); err != nil || back != c.r {
			t.Errorf("%s read back as %+v (%v)", b, back, err)
		}
		if !strings.Contains(string(b), `"code":"`+c.r.Code.String()+`"`) || !strings.Contains(string(b), `"message":`) {
			t.Errorf("JSON %s", b)
		}
	}
	for _, code := range Codes() {
		var back Code
		if err := back.UnmarshalText([]byte(code.String())); err != nil || back != code {
			t.Errorf("%v read back as %v (%v)", code, back, err)
		}
	}
	if err := new(Code).UnmarshalText([]byte("sleepy")); err == nil {
		t.Error("read an unknown code")
	}
}
