package core

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

// originRun drives a core through arrivals by hand (Advance, Submit), each
// submitted late by jitter (as a live run's wall clock does), then until
// end, and returns what a run is compared on: the kills (time after
// origin, cluster, local job, processors, lost processor time, global
// job) and each global job's outcome (its start after origin, or why it
// failed).
func originRun(t *testing.T, k *Core, rec *recorder, arrivals []Arrival, jitter time.Duration, end time.Time, origin time.Time) (kills, outcomes []string) {
	t.Helper()
	for _, a := range arrivals {
		k.Advance(a.At.Add(jitter))
		if _, err := k.Submit(a.Job, a.Opts); err != nil {
			t.Fatal(err)
		}
	}
	k.Advance(end)
	for _, e := range rec.of(EvLocalKilled, "") {
		kills = append(kills, fmt.Sprintf("%v %s %s %d %.6f %s", e.Time.Sub(origin), e.Cluster, e.LRMID, e.Count, e.ProcessorS, e.Job))
	}
	for _, j := range k.Jobs() {
		o := j.Spec.ID + " failed: " + strings.Split(j.Reason, " (")[0]
		if j.State == Finished {
			o = fmt.Sprintf("%s met its deadline, at %v", j.Spec.ID, j.Start.Sub(origin))
		}
		outcomes = append(outcomes, o)
	}
	return kills, outcomes
}

// A core whose local workloads are held, then begun at an origin (with a
// warm-up or none), runs as a core created at the origin less the warm-up
// with its jobs submitted on time: the same local jobs killed at the same
// times, the same global jobs started at their deadlines, the same
// summary; although the held core started earlier and its jobs arrive
// late (the deadlines count from the origin, not from the submission).
func TestBeginAlignsLocalWorkloads(t *testing.T) {
	origin := t0.Add(time.Hour)
	for _, c := range []struct {
		name     string
		priority string
		warmup   time.Duration
		jitter   time.Duration
		grid     bool // the warm-up is the grid's local_warmup, Begin's 0
	}{
		{"GP, no warm-up", "global", 0, 0, false},
		{"GP, no warm-up, late submissions", "global", 0, 37 * time.Millisecond, false},
		{"GP, warm-up", "global", 20 * time.Minute, 3 * time.Millisecond, false},
		{"LP, warm-up, late submissions", "local", 20 * time.Minute, 50 * time.Millisecond, false},
		{"GP, the grid's warm-up", "global", 20 * time.Minute, 3 * time.Millisecond, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := paperRun{policy: "wait-10", L: 0.7, priority: c.priority, ul: 0.6, ug: 0.4, jobs: 40, seed: 3}
			g := paperGrid(t, r)
			arrivals := paperArrivals(r, origin)
			end := origin.Add(12 * time.Hour)
			ref := &recorder{}
			want, err := New(g, origin.Add(-c.warmup), ref, nil)
			if err != nil {
				t.Fatal(err)
			}
			want.MeasureFrom(origin)
			wantKills, wantOut := originRun(t, want, ref, arrivals, 0, end, origin)

			rec := &recorder{}
			kg, begin := paperGrid(t, r), c.warmup
			if c.grid {
				kg.Scheduler.LocalWarmup.Duration, begin = c.warmup, 0
			}
			k, err := New(kg, t0, rec, nil)
			if err != nil {
				t.Fatal(err)
			}
			if err := k.HoldLocal(); err != nil {
				t.Fatal(err)
			}
			k.Advance(origin.Add(-c.warmup - time.Minute))
			if d := k.Deadlines(); d.LocalJobs != 0 || !k.LocalFrom().IsZero() {
				t.Fatalf("held: %d local jobs, local workloads from %v", d.LocalJobs, k.LocalFrom())
			}
			from, err := k.Begin(origin, begin)
			if err != nil || !from.Equal(origin.Add(-c.warmup)) || !k.Origin().Equal(origin) {
				t.Fatalf("Begin: %v, %v; origin %v", from, err, k.Origin())
			}
			gotKills, gotOut := originRun(t, k, rec, arrivals, c.jitter, end, origin)
			started := strings.Count(strings.Join(wantOut, "\n"), "met its deadline")
			t.Logf("%d local jobs killed; %d of %d global jobs started", len(wantKills), started, len(wantOut))
			// What the local jobs decide: under GP which ones are killed,
			// under LP which global jobs fail.
			if c.priority == "global" && len(wantKills) == 0 || c.priority == "local" && (started == 0 || started == len(wantOut)) {
				t.Fatal("the local jobs decide nothing here: the comparison shows little")
			}
			if strings.Join(gotKills, "\n") != strings.Join(wantKills, "\n") {
				t.Errorf("kills:\n%s\nwant:\n%s", strings.Join(gotKills, "\n"), strings.Join(wantKills, "\n"))
			}
			if strings.Join(gotOut, "\n") != strings.Join(wantOut, "\n") {
				t.Errorf("outcomes:\n%s\nwant:\n%s", strings.Join(gotOut, "\n"), strings.Join(wantOut, "\n"))
			}
			got, w := k.Deadlines(), want.Deadlines()
			if got != w {
				t.Errorf("summary %+v\nwant    %+v", got, w)
			}
		})
	}
}

// A job's deadline counts from the origin once one is declared, from its
// submission otherwise.
func TestDeadlineFromOrigin(t *testing.T) {
	spec := deadlineJob("g", 100*time.Second, time.Second, 2)
	spec.Submit = 10 * time.Second
	for _, c := range []struct {
		begin bool
		want  time.Time
	}{{true, sec(100)}, {false, sec(100.5)}} {
		k, _ := newCore(t, testGrid(t, 1, ""))
		if c.begin {
			if _, err := k.Begin(t0, 0); err != nil {
				t.Fatal(err)
			}
		}
		k.Advance(sec(10.5))
		j, err := k.Submit(spec, Options{})
		if err != nil {
			t.Fatal(err)
		}
		if !j.Deadline.Equal(c.want) {
			t.Errorf("begin %v: deadline %v, want %v", c.begin, j.Deadline.Sub(t0), c.want.Sub(t0))
		}
	}
}

// Begin and HoldLocal refuse what they cannot do, and change nothing then.
func TestBeginEdges(t *testing.T) {
	r := paperRun{policy: "wait-10", L: 0.7, priority: "global", ul: 0.6, ug: 0.2, jobs: 1, seed: 1}
	k, err := New(paperGrid(t, r), t0, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := k.Begin(sec(10), -time.Second); err == nil {
		t.Error("a negative warm-up was taken")
	}
	k.Advance(sec(100))
	if _, err := k.Begin(sec(150), time.Minute); err == nil || !strings.Contains(err.Error(), "before the core's time") {
		t.Errorf("local workloads started in the past: %v", err)
	}
	if !k.Origin().IsZero() {
		t.Fatal("a refused Begin set the origin")
	}
	k.Advance(sec(3600)) // local jobs have arrived (not held)
	if k.Deadlines().LocalJobs == 0 {
		t.Fatal("no local job in an hour")
	}
	if err := k.HoldLocal(); err == nil {
		t.Error("HoldLocal after local jobs arrived")
	}
	from, err := k.Begin(sec(3600), 0)
	if err != nil || !from.Equal(t0) {
		t.Errorf("Begin on a running core: local workloads from %v (%v), want its start", from, err)
	}
	if _, err := k.Begin(sec(4000), 0); err == nil || !strings.Contains(err.Error(), "already set") {
		t.Errorf("a second Begin: %v", err)
	}
	// A core without local workloads: Begin sets the origin only.
	k2, _ := newCore(t, testGrid(t, 1, ""))
	if err := k2.HoldLocal(); err != nil {
		t.Fatal(err)
	}
	if from, err := k2.Begin(t0, 0); err != nil || !from.Equal(t0) {
		t.Errorf("no local workloads: %v, %v", from, err)
	}
}
