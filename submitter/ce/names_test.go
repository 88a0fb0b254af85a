package ce

import (
	"testing"

	"github.com/gmark/gmark/submitter"
	"github.com/gmark/gmark/submitter/target"
	"github.com/gmark/gmark/workload"
)

// A part's name is its idempotency key: each part of a submission reads
// back as itself, and no name of another job, attempt, run or component
// count reads as one of this submission's (run r1 is not run r10, job 1-1
// is not job 1-10).
func TestPartNames(t *testing.T) {
	two := &workload.Job{ID: "1-1", Components: []workload.Component{{Count: 1}, {Count: 2}}}
	one := &workload.Job{ID: "1-1", Components: []workload.Component{{Count: 1}}}
	s := &submitter.Submission{RunID: "r1", Job: two, Attempt: 1}
	for _, c := range []struct{ comp, try int }{{0, 1}, {1, 1}, {1, 2}, {0, target.MaxClaimTries}} {
		name := partName(s, c.comp, c.try)
		comp, try, ok := parseName(s, name)
		if !ok || comp != c.comp || try != c.try {
			t.Errorf("%s reads as component %d try %d (%v), want %d, %d", name, comp, try, ok, c.comp, c.try)
		}
	}
	if got := partName(s, 1, 2); got != "gmark-1-1.c1.t2.a1-r1" {
		t.Errorf("name %q", got)
	}
	whole := &submitter.Submission{RunID: "r1", Job: one, Attempt: 1}
	if comp, _, ok := parseName(whole, "gmark-1-1.a1-r1"); !ok || comp != -1 {
		t.Errorf("the whole job's name: %d %v", comp, ok)
	}
	for _, name := range []string{
		"gmark-1-1.c0.a1-r10", "gmark-1-10.c0.a1-r1", "gmark-1-1.c0.a2-r1", "gmark-1-1.c2.a1-r1", "gmark-1-1.c-1.a1-r1",
		"gmark-1-1.c01.a1-r1", "gmark-1-1.c0.t1.a1-r1", "gmark-1-1.c0.t101.a1-r1", "gmark-1-1.c0.tx.a1-r1", "gmark-1-1.a1-r1",
		"gmark-1-1.c0.a1-r1.out", "", "gmark-",
	} {
		if comp, try, ok := parseName(s, name); ok {
			t.Errorf("%q reads as component %d try %d of the submission", name, comp, try)
		}
	}
	// A job of one component has no component names.
	if _, _, ok := parseName(whole, "gmark-1-1.c0.a1-r1"); ok {
		t.Error("a one-component job took a component name")
	}
}
