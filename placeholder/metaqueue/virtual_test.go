package metaqueue

import (
	"testing"
	"time"

	"github.com/gmark/gmark/placeholder/site"
)

// The state machine on a clock the caller gives: a pinned job goes only to
// its site, a placeholder of another site is refused, times are the
// caller's, and an unknown group is an error.
func TestVirtual(t *testing.T) {
	v := NewVirtual()
	t0 := time.Unix(1000, 0)
	gs := GroupSpec{Name: "g", Sites: []site.Spec{{Name: "a", Kind: site.Zinf}, {Name: "b", Kind: site.Zinf}}}
	if err := v.PutGroup(t0, gs); err != nil {
		t.Fatal(err)
	}
	if _, err := v.AddJobs(t0, "g", []NewJob{{Command: "x", Site: "a"}}); err != nil {
		t.Fatal(err)
	}
	b := Ident{Site: "b", LocalID: "1"}
	if r, err := v.Pull(t0, "g", PullRequest{Ident: b, Seq: 1}); err != nil || r.Order != nil || r.Stop == "" {
		t.Fatalf("b: %+v %v", r, err)
	}
	if err := v.Dequeue(t0, "g", DequeueRequest{Ident: b, Reason: "refused"}); err != nil {
		t.Fatal(err)
	}
	a := Ident{Site: "a", LocalID: "1"}
	r, err := v.Pull(t0.Add(time.Second), "g", PullRequest{Ident: a, Seq: 1})
	if err != nil || r.Order == nil || r.Order.Command != "x" {
		t.Fatalf("a: %+v %v", r, err)
	}
	err = v.Done(t0.Add(5*time.Second), "g", DoneRequest{Ident: a, Attempt: r.Order.Attempt, Started: t0.Add(time.Second), Ended: t0.Add(5 * time.Second), NewID: "2"})
	if err != nil {
		t.Fatal(err)
	}
	rep, err := v.Report("g")
	if err != nil || rep.Once != 1 || rep.Jobs != 1 {
		t.Fatalf("report %+v %v", rep, err)
	}
	if _, err := v.Report("none"); err == nil {
		t.Error("report of no group")
	}
	if _, err := v.Pull(t0, "none", PullRequest{Ident: a, Seq: 1}); err == nil {
		t.Error("pull from no group")
	}
}
