package target

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
)

// Every part's name reads back as its component and claiming try; names
// of other jobs, attempts, runs, components out of range and
// non-canonical numbers do not (run r1 is not run r10, job 1-1 is not job
// 1-10, job 4-0 is not job 4-0.1).
func TestPartNames(t *testing.T) {
	s := PartsOf{Job: "4-0.1", Attempt: 2, Run: "r1", Components: 2}
	for _, c := range []struct{ comp, try int }{{-1, 1}, {0, 1}, {1, 1}, {0, 2}, {1, MaxClaimTries}} {
		name := s.Name(c.comp, c.try)
		comp, try, ok := s.Parse(name)
		if !ok || comp != c.comp || try != c.try {
			t.Errorf("%s: component %d try %d ok %v; want %d %d", name, comp, try, ok, c.comp, c.try)
		}
	}
	for _, c := range []struct {
		comp, try int
		name      string
	}{{1, 3, "gmark-4-0.1.c1.t3.a2-r1"}, {0, 1, "gmark-4-0.1.c0.a2-r1"}, {-1, 1, "gmark-4-0.1.a2-r1"}, {-1, 5, "gmark-4-0.1.a2-r1"}} {
		if got := s.Name(c.comp, c.try); got != c.name {
			t.Errorf("Name(%d, %d) = %s, want %s", c.comp, c.try, got, c.name)
		}
	}
	if got := s.Suffix(1, 2); got != "4-0.1.c1.t2.a2" {
		t.Errorf("Suffix(1, 2) = %s", got)
	}
	for _, name := range []string{
		"gmark-4-0.1.a1-r1", "gmark-4-0.1.a2-r10", "gmark-4-0.1.c2.a2-r1", "gmark-4-0.1.c-1.a2-r1",
		"gmark-4-0.1.c01.a2-r1", "gmark-4-0.1.c0.t1.a2-r1", "gmark-4-0.1.c0.t02.a2-r1", "gmark-4-0.1.c0.t101.a2-r1",
		"gmark-4-0.1.c0.tx.a2-r1", "gmark-4-0.c0.a2-r1", "gmark-4-0.1.1.c0.a2-r1", "gmark-4-0.1.c0.a2-r1.out",
		"gmark-4-0.1.c0.t.a2-r1", "gmark-4-0.1.c.a2-r1", "", "gmark-",
	} {
		if comp, try, ok := s.Parse(name); ok {
			t.Errorf("%q read as component %d try %d", name, comp, try)
		}
	}
	// A job of one component has a component name too (a target that
	// never uses it says so itself: submitter/ce).
	one := PartsOf{Job: "1-1", Attempt: 1, Run: "r1", Components: 1}
	if comp, try, ok := one.Parse("gmark-1-1.c0.a1-r1"); !ok || comp != 0 || try != 1 {
		t.Errorf("one component's name: %d %d %v", comp, try, ok)
	}
	if _, _, ok := one.Parse("gmark-1-1.c1.a1-r1"); ok {
		t.Error("component 1 of a job of one")
	}
	none := PartsOf{Job: "0", Attempt: 1, Run: "r", Components: 0}
	if _, _, ok := none.Parse("gmark-0.c0.a1-r"); ok {
		t.Error("a component of a job of none")
	}
}

// Names lists every name a part may have, each of which reads back, in
// the order whole, then component by component and try by try.
func TestPartNamesList(t *testing.T) {
	s := PartsOf{Job: "j", Attempt: 1, Run: "r", Components: 2}
	want := []string{"gmark-j.a1-r", "gmark-j.c0.a1-r", "gmark-j.c0.t2.a1-r", "gmark-j.c1.a1-r", "gmark-j.c1.t2.a1-r"}
	got := s.Names(2)
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("Names(2) = %v, want %v", got, want)
	}
	for _, n := range got {
		if _, _, ok := s.Parse(n); !ok {
			t.Errorf("%s does not read back", n)
		}
	}
	if got := s.Names(0); !reflect.DeepEqual(got, want[:1]) {
		t.Errorf("Names(0) = %v", got)
	}
}

func TestHoldBudget(t *testing.T) {
	for _, c := range []struct {
		tries int
		retry time.Duration
		want  time.Duration
	}{{3, time.Minute, 4 * time.Minute}, {1, 0, time.Minute}, {100, time.Hour, 100*time.Hour + time.Minute}} {
		if got := HoldBudget(c.tries, c.retry); got != c.want {
			t.Errorf("HoldBudget(%d, %v) = %v, want %v", c.tries, c.retry, got, c.want)
		}
	}
}

// The release file holds its time; a second release leaves it a release
// (its time rewritten); a directory that is not there is an error.
func TestRelease(t *testing.T) {
	path := filepath.Join(t.TempDir(), "rel")
	at := time.Date(2026, 1, 2, 3, 4, 5, 6, time.FixedZone("x", 3600))
	if err := Release(path, at); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(path)
	if err != nil || string(b) != "2026-01-02T02:04:05.000000006Z\n" {
		t.Fatalf("%q %v", b, err)
	}
	if err := Release(path, at.Add(time.Second)); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(path); !strings.HasPrefix(string(b), "2026-01-02T02:04:06") {
		t.Errorf("released again: %q", b)
	}
	if err := Release(filepath.Join(t.TempDir(), "no", "rel"), at); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("no directory: %v", err)
	}
}

type testPart struct {
	comp, try int
	id        string
	site      string
}

// A job's parts in component order, the latest try of each component,
// the target id they make and the target id read back.
func TestPartsOfAJob(t *testing.T) {
	a0 := &testPart{0, 1, "7", "A"}
	a0t2 := &testPart{0, 2, "9", "A"}
	b1 := &testPart{1, 1, "3", "B"}
	b1t3 := &testPart{1, 3, "12", "A"}
	comp := func(p *testPart) int { return p.comp }
	if got := ByComponent([]*testPart{b1, a0, a0t2}, comp); !reflect.DeepEqual(got, []*testPart{a0, a0t2, b1}) {
		t.Errorf("ByComponent: %v", got)
	}
	newer := func(p, q *testPart) bool { return p.try > q.try }
	latest, older := LatestTries([]*testPart{a0t2, b1, a0, b1t3}, comp, newer)
	if !reflect.DeepEqual(latest, []*testPart{a0t2, b1t3}) || !reflect.DeepEqual(older, []*testPart{b1, a0}) {
		t.Errorf("LatestTries: %v, older %v", latest, older)
	}
	if latest, older := LatestTries[*testPart](nil, comp, newer); latest != nil || older != nil {
		t.Errorf("LatestTries of none: %v %v", latest, older)
	}
	parts := []*testPart{a0t2, b1}
	tid := JoinTargetID(parts, func(p *testPart) (string, string) { return p.site, p.id })
	if tid != "A:9,B:3" {
		t.Errorf("JoinTargetID: %s", tid)
	}
	if got := Sites([]*testPart{a0, b1, b1t3, a0t2}, func(p *testPart) string { return p.site }); !reflect.DeepEqual(got, []string{"A", "B"}) {
		t.Errorf("Sites: %v", got)
	}
	got, ok := SplitTargetID(tid)
	if want := []TargetPart{{"A", "9", 0}, {"B", "3", 1}}; !ok || !reflect.DeepEqual(got, want) {
		t.Errorf("SplitTargetID(%s) = %v %v, want %v", tid, got, ok, want)
	}
	if got, ok := SplitTargetID("A:9"); !ok || !reflect.DeepEqual(got, []TargetPart{{"A", "9", -1}}) {
		t.Errorf("one part: %v %v", got, ok)
	}
	for _, bad := range []string{"", "A", "A:", ":9", "A:9,", "A:9,B", "A:9,,B:3"} {
		if got, ok := SplitTargetID(bad); ok {
			t.Errorf("SplitTargetID(%q) = %v", bad, got)
		}
	}
}

// Reach says a resource manager stopped answering once, at its first
// failure, counts the time down from then, and says it answers again
// once; an answer when it was answering says nothing.
func TestReach(t *testing.T) {
	var said []string
	annotate := func(kind, key, value string) { said = append(said, kind+" "+key+" "+value) }
	var r Reach
	r.Answered("A", annotate)
	asked := time.Now().Add(-time.Hour)
	if down := r.Failed("A", asked, errors.New("refused"), annotate); down < time.Hour {
		t.Errorf("down %v, want an hour or more", down)
	}
	if down := r.Failed("A", time.Now(), errors.New("refused again"), annotate); down < time.Hour {
		t.Errorf("down %v after a second failure, want it counted from the first", down)
	}
	r.Answered("A", annotate)
	r.Answered("A", annotate)
	if len(said) != 2 || said[0] != "target-error A refused" || !strings.HasPrefix(said[1], "target-recovered A answering again after 1h0") {
		t.Errorf("said %q", said)
	}
}
