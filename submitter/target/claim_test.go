package target

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
)

// claimRecorder is a target's side of a claiming step: what it was told
// to do.
type claimRecorder struct{ did []string }

func (r *claimRecorder) steps() ClaimSteps {
	return ClaimSteps{
		CancelParts: func() { r.did = append(r.did, "cancel") },
		Again:       func(i int, why string) { r.did = append(r.did, fmt.Sprintf("again %d: %s", i, why)) },
		Release:     func() { r.did = append(r.did, "release") },
		Ended:       func(i int) string { return fmt.Sprintf("part %d exited 1", i) },
		Waiting:     func(i int) string { return fmt.Sprintf(" (part %d pending)", i) },
	}
}

func views(parts []*ClaimPart, states ...ClaimState) []ClaimView {
	out := make([]ClaimView, len(states))
	for i, s := range states {
		out[i] = ClaimView{Part: parts[i], State: s, Final: s == Ended || s == Cancelled || s == Lost}
		if s == Lost {
			out[i].Lost = fmt.Sprintf("lost: part %d", i)
		}
	}
	return out
}

// A claiming step, case by case: what it has the target do and what it
// keeps of each part.
func TestClaimStep(t *testing.T) {
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	retry := time.Minute
	for _, c := range []struct {
		name     string
		states   []ClaimState
		waitFrom []time.Duration // before now; 0: not waiting
		busy     int             // the part being claimed again, -1 none
		claim    Claim
		want     []string
		wantWait []time.Duration // afterwards; -1: unchanged, 0: not waiting
	}{
		{name: "every part holds: released", states: []ClaimState{Holding, Holding}, busy: -1,
			want: []string{"release"}, wantWait: []time.Duration{0, 0}},
		{name: "one part of one holds: released", states: []ClaimState{Holding}, busy: -1,
			want: []string{"release"}, wantWait: []time.Duration{0}},
		{name: "none holds: nobody waits", states: []ClaimState{Waiting, Waiting}, waitFrom: []time.Duration{time.Hour, 0}, busy: -1,
			want: nil, wantWait: []time.Duration{0, 0}},
		{name: "one holds: the other starts waiting", states: []ClaimState{Holding, Waiting}, busy: -1,
			want: nil, wantWait: []time.Duration{0, 1}},
		{name: "waited less than the retry", states: []ClaimState{Holding, Waiting}, waitFrom: []time.Duration{0, 59 * time.Second}, busy: -1,
			want: nil, wantWait: []time.Duration{0, -1}},
		{name: "waited the retry: claimed again", states: []ClaimState{Holding, Waiting}, waitFrom: []time.Duration{0, time.Minute}, busy: -1,
			want:     []string{"again 1: not started 1m0s after another component began holding (part 1 pending)"},
			wantWait: []time.Duration{0, -1}},
		{name: "ended before the release: claimed again", states: []ClaimState{Ended, Holding}, busy: -1,
			want: []string{"again 0: ended before the release (part 0 exited 1)"}, wantWait: []time.Duration{0, 0}},
		{name: "cancelled by someone else: the job is", states: []ClaimState{Holding, Cancelled, Waiting}, busy: -1,
			want: []string{"cancel"}, wantWait: []time.Duration{-1, -1, -1}},
		{name: "lost: nothing more (the job fails)", states: []ClaimState{Lost, Ended}, busy: -1,
			want: nil, wantWait: []time.Duration{-1, -1}},
		{name: "a part being claimed again: no release", states: []ClaimState{Holding, Cancelled}, busy: 1,
			want: nil, wantWait: []time.Duration{0, -1}},
		{name: "given up: nothing", states: []ClaimState{Holding, Holding}, busy: -1, claim: Claim{Fail: "claiming failed"},
			want: nil, wantWait: []time.Duration{-1, -1}},
		{name: "released: nothing", states: []ClaimState{Ended, Waiting}, busy: -1, claim: Claim{Released: true},
			want: nil, wantWait: []time.Duration{-1, -1}},
	} {
		t.Run(c.name, func(t *testing.T) {
			parts := make([]*ClaimPart, len(c.states))
			for i := range parts {
				parts[i] = &ClaimPart{Reclaiming: i == c.busy}
				if i < len(c.waitFrom) && c.waitFrom[i] > 0 {
					parts[i].WaitFrom = now.Add(-c.waitFrom[i])
				}
			}
			before := make([]time.Time, len(parts))
			for i, p := range parts {
				before[i] = p.WaitFrom
			}
			var r claimRecorder
			cl := c.claim
			cl.Step(now, retry, views(parts, c.states...), r.steps())
			if !reflect.DeepEqual(r.did, c.want) {
				t.Errorf("did %q, want %q", r.did, c.want)
			}
			for i, p := range parts {
				switch w := c.wantWait[i]; {
				case w == -1 && !p.WaitFrom.Equal(before[i]):
					t.Errorf("part %d: waiting from %v, want unchanged %v", i, p.WaitFrom, before[i])
				case w == 0 && !p.WaitFrom.IsZero():
					t.Errorf("part %d: waiting from %v, want not waiting", i, p.WaitFrom)
				case w == 1 && !p.WaitFrom.Equal(now):
					t.Errorf("part %d: waiting from %v, want from now", i, p.WaitFrom)
				}
			}
		})
	}
}

// A job whose release file cannot be made gives up in the step that would
// release it.
func TestClaimReleaseFails(t *testing.T) {
	c := NewClaim(filepath.Join(t.TempDir(), "no such dir", "release"))
	if c.Released {
		t.Fatal("released before its file exists")
	}
	parts := []*ClaimPart{{}, {}}
	c.Step(time.Now(), time.Minute, views(parts, Holding, Holding), ClaimSteps{Release: func() { c.ReleaseNow(time.Now()) }})
	if c.Released || !strings.HasPrefix(c.Fail, "claiming failed: cannot create the release file: ") {
		t.Errorf("released %v, fail %q", c.Released, c.Fail)
	}
	if failed, _ := c.Outcome(views(parts, Holding, Holding)); failed != c.Fail {
		t.Errorf("outcome %q, want the claim's failure", failed)
	}
	// A restarted submitter's job whose file exists is released already.
	path := filepath.Join(t.TempDir(), "release")
	if err := os.WriteFile(path, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if !NewClaim(path).Released {
		t.Error("a job whose release file exists is not released")
	}
	d := NewClaim(filepath.Join(t.TempDir(), "rel"))
	if !d.ReleaseNow(time.Now()) || !d.Released || d.Fail != "" {
		t.Errorf("ReleaseNow: released %v, fail %q", d.Released, d.Fail)
	}
}

// Claiming a part again counts its tries: the last one gives the claim up,
// naming the part and why.
func TestClaimAgain(t *testing.T) {
	var c Claim
	p := &ClaimPart{WaitFrom: time.Now()}
	if !c.Again(p, 1, 3, "component 1 (A:7, try 1 of 3)", "not started") || !p.Reclaiming || !p.WaitFrom.IsZero() || c.Fail != "" {
		t.Fatalf("try 1 of 3: %+v, fail %q", p, c.Fail)
	}
	q := &ClaimPart{}
	if c.Again(q, 3, 3, "component 0 (A:9, try 3 of 3)", "not started 1m0s after another component began holding") || q.Reclaiming {
		t.Fatalf("the last try went on: %+v", q)
	}
	if want := "claiming failed: component 0 (A:9, try 3 of 3) not started 1m0s after another component began holding; gave up after 3 claiming tries"; c.Fail != want {
		t.Errorf("fail %q, want %q", c.Fail, want)
	}
}

// The new try's outcome: taken, tried again at the next step after a
// transient error (said), or given up.
func TestClaimClaimed(t *testing.T) {
	var said []string
	annotate := func(kind, key, value string) { said = append(said, kind+" "+key+" "+value) }
	var c Claim
	p := &ClaimPart{Reclaiming: true}
	if !c.Claimed(p, 1, "A", nil, time.Minute, annotate) || p.Reclaiming || c.Fail != "" {
		t.Errorf("a new try submitted: %+v %q", p, c.Fail)
	}
	p.Reclaiming = true
	if c.Claimed(p, 1, "A", Transient(errors.New("timed out")), time.Minute, annotate) || p.Reclaiming || c.Fail != "" {
		t.Errorf("a transient failure: %+v %q", p, c.Fail)
	}
	if time.Since(p.WaitFrom) < time.Minute {
		t.Errorf("after a transient failure the part waits from %v: not claimed again at the next step", p.WaitFrom)
	}
	if !reflect.DeepEqual(said, []string{"target-error A timed out"}) {
		t.Errorf("said %q", said)
	}
	if c.Claimed(p, 1, "A", errors.New("invalid partition"), time.Minute, annotate) ||
		c.Fail != "claiming failed: component 1 could not be claimed again on A: invalid partition" {
		t.Errorf("a failure: %q", c.Fail)
	}
}

// What the parts make of a job still being claimed.
func TestClaimOutcome(t *testing.T) {
	for _, c := range []struct {
		name       string
		states     []ClaimState
		busy       int
		failed     string
		cancelled  bool
		claimFails string
	}{
		{"queued", []ClaimState{Holding, Waiting}, -1, "", false, ""},
		{"lost", []ClaimState{Cancelled, Lost}, -1, "lost: part 1", false, ""},
		{"every part ended, one cancelled", []ClaimState{Cancelled, Ended}, -1, "", true, ""},
		{"one cancelled, one not ended", []ClaimState{Cancelled, Holding}, -1, "", false, ""},
		{"the cancelled one is being claimed again", []ClaimState{Ended, Cancelled}, 1, "", false, ""},
		{"one cancelled, the other being claimed again", []ClaimState{Cancelled, Ended}, 1, "", false, ""},
		{"ended, none cancelled", []ClaimState{Ended, Ended}, -1, "", false, ""},
		{"the claim gave up", []ClaimState{Lost, Holding}, -1, "gave up", false, "gave up"},
	} {
		parts := []*ClaimPart{{}, {}}
		if c.busy >= 0 {
			parts[c.busy].Reclaiming = true
		}
		cl := Claim{Fail: c.claimFails}
		failed, cancelled := cl.Outcome(views(parts, c.states...))
		if failed != c.failed || cancelled != c.cancelled {
			t.Errorf("%s: failed %q cancelled %v, want %q %v", c.name, failed, cancelled, c.failed, c.cancelled)
		}
	}
}
