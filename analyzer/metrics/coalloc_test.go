package metrics

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/gmark/gmark/analyzer/store"
	"github.com/gmark/gmark/stats/sampstat"
)

// slurmDetail is the payload of a Slurm target's final event: one part per
// start (0: it never started); a part given as a list is a heterogeneous
// job (its leader, then its other components).
func slurmDetail(parts ...any) string {
	var out []map[string]any
	for _, p := range parts {
		switch p := p.(type) {
		case int:
			out = append(out, map[string]any{"component": len(out), "record": map[string]any{"job_id": 7, "start_time": p}})
		case []int:
			var het []map[string]any
			for _, s := range p[1:] {
				het = append(het, map[string]any{"job_id": 8, "start_time": s})
			}
			out = append(out, map[string]any{"component": -1, "record": map[string]any{"job_id": 7, "start_time": p[0]}, "het": het})
		case nil:
			out = append(out, map[string]any{"component": len(out)}) // no record
		}
	}
	b, _ := json.Marshal(map[string]any{"detail": map[string]any{"slurm": out}})
	return string(b)
}

// writeRun writes a run of target with the given jobs (id → components),
// their events and annotations, into a new store.
func writeRun(t *testing.T, target string, jobs map[string]int, events []store.Event, ann []store.Annotation) *store.Store {
	t.Helper()
	st, err := store.Open(filepath.Join(t.TempDir(), "r.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	err = st.Write(context.Background(), func(tx *store.Tx) error {
		pid, _ := tx.EnsureProject("p", "", 1)
		sid, _ := tx.EnsureScenario(pid, "s", "", 1)
		prov := store.Provenance{RunID: "r", RecordedNS: 1, Target: target, TargetConfig: `{}`}
		if err := tx.InsertRun(store.Run{ID: "r", ScenarioID: sid, CreatedNS: 1, Jobs: len(jobs), Target: target,
			Settings: `{"speedup":1}`, ProvenanceSHA256: prov.ComputeDigest()}); err != nil {
			return err
		}
		if err := tx.InsertProvenance(prov); err != nil {
			return err
		}
		for id, n := range jobs {
			comps := "["
			for i := range n {
				if i > 0 {
					comps += ","
				}
				comps += `{"site":"*","count":1}`
			}
			if err := tx.InsertJob(store.Job{RunID: "r", JobID: id, Unit: 1, Kind: "unitary", Type: "swf", App: "swf", Processors: n,
				Components: comps + "]", SubmitNS: at(0), StartNS: at(1), EndNS: at(2), State: store.Succeeded, Attempts: 1, RecordedNS: 1}); err != nil {
				return err
			}
		}
		for _, e := range events {
			e.RunID = "r"
			if err := tx.InsertEvent(e); err != nil {
				return err
			}
		}
		for _, a := range ann {
			a.RunID = "r"
			if err := tx.InsertAnnotation(a); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return st
}

// The co-allocation overhead of a Slurm run: per job whose every component
// started, Slurm's last component start − its first; jobs of one component,
// jobs a component of which never started, and jobs run as one plain Slurm
// job are left out; a heterogeneous job's components count; a job's last
// attempt counts.
func TestCoallocationSlurm(t *testing.T) {
	ev := func(job string, attempt int, payload string) store.Event {
		return store.Event{JobID: job, Attempt: attempt, TimeNS: 1, Kind: "succeeded", Payload: payload}
	}
	jobs := map[string]int{"1-0": 2, "1-1": 3, "1-2": 1, "1-3": 2, "1-4": 2, "1-5": 2, "1-6": 2, "1-7": 2, "1-8": 2}
	events := []store.Event{
		ev("1-0", 1, slurmDetail(100, 103)),            // 3 s
		ev("1-1", 1, slurmDetail(200, 200, 201)),       // 1 s
		ev("1-2", 1, slurmDetail(300)),                 // one component: out
		ev("1-3", 1, slurmDetail(300, 0)),              // one never started: out
		ev("1-4", 1, slurmDetail([]int{400, 400})),     // heterogeneous: 0 s
		ev("1-5", 1, slurmDetail(500)),                 // two components as one plain job: out
		ev("1-6", 1, slurmDetail(10, 50)),              // a first attempt, replaced by…
		ev("1-6", 2, slurmDetail(600, 602)),            // …the last: 2 s
		ev("1-7", 1, slurmDetail(700, nil)),            // a part without a record: out
		ev("1-8", 1, `{"detail":{"slurm":"garbage"}}`), // not a list: out
		{JobID: "1-0", Attempt: 1, TimeNS: 1, Kind: "queued", Payload: `not json`},
	}
	st := writeRun(t, "slurm", jobs, events, nil)
	rd, err := Load(st, "r", LoadOptions{NoUsers: true})
	if err != nil {
		t.Fatal(err)
	}
	m := Compute(rd, Options{})
	c := m.Coallocation
	if c == nil || c.Jobs != 4 {
		t.Fatalf("co-allocation %+v", c)
	}
	sorted := []float64{0, 1, 2, 3}
	if o := c.Overhead; o.N != 4 || !near(o.Mean, 1.5) || !near(o.Max, 3) || !near(o.P95, sampstat.Quantile(sorted, 0.95)) || !near(o.P95, 2.85) {
		t.Errorf("overhead %+v", o)
	}
	if c.Source == "" {
		t.Error("no source")
	}
	// Slurm runs its jobs in real time: at speedup 10 (the schedule
	// compressed) the overhead Slurm measured stays in wall time.
	rd.Speedup = 10
	if m := Compute(rd, Options{}); !near(m.Coallocation.Overhead.Max, 3) || m.Clocks.Jobs != Wall {
		t.Errorf("speedup 10 on slurm: %+v in %s time", m.Coallocation.Overhead, m.Clocks.Jobs)
	}
}

// The bundled core's component_start events, on its clock running 10×
// faster than the wall clock (measured from the job's start and end): a
// component restarted counts with its last start.
func TestCoallocationKoala(t *testing.T) {
	core0 := time.Date(2024, 5, 1, 12, 0, 0, 0, time.UTC)
	coreAt := func(s float64) string {
		return core0.Add(time.Duration(s * float64(time.Second))).Format(time.RFC3339Nano)
	}
	ann := func(key, v string) store.Annotation {
		return store.Annotation{TimeNS: 1, Kind: "koala-event", Key: key, Value: v, Source: "koala"}
	}
	cs := func(key string, comp int, s float64) store.Annotation {
		v := fmt.Sprintf(`{"kind":"component_start","key":%q,"cluster":"fs0","time":%q`, key, coreAt(s))
		if comp > 0 { // the core leaves component 0 out
			v += fmt.Sprintf(`,"component":%d`, comp)
		}
		return ann(key, v+"}")
	}
	// The scale comes from the jobs' core start and end against the store's
	// (1 s of wall time: 10 s of the core's).
	var events []store.Event
	for _, id := range []string{"1-0", "1-1"} {
		for _, e := range []struct {
			kind string
			s    float64
		}{{"started", 0}, {"finished", 10}} {
			events = append(events, store.Event{JobID: id, Attempt: 1, TimeNS: 1, Kind: e.kind,
				Payload: fmt.Sprintf(`{"detail":{"kind":%q,"time":%q}}`, e.kind, coreAt(e.s))})
		}
	}
	a := []store.Annotation{
		cs("r/1-0/1", 0, 60), cs("r/1-0/1", 1, 70), // 1 s on the wall clock
		cs("r/1-1/1", 0, 5), cs("r/1-1/1", 1, 100), cs("r/1-1/1", 1, 85), cs("r/1-1/1", 0, 95), // restarted: 95, 100 → 0.5 s
		cs("r/1-2/1", 0, 5), // one component of two started: out
		cs("bad", 0, 1), ann("r/1-0/1", `{"kind":"component_start","time":"yesterday"}`), ann("r/1-0/1", "not json"),
	}
	st := writeRun(t, "koala", map[string]int{"1-0": 2, "1-1": 2, "1-2": 2}, events, a)
	rd, err := Load(st, "r", LoadOptions{NoUsers: true})
	if err != nil {
		t.Fatal(err)
	}
	if rd.Koala == nil || !near(rd.Koala.TimeScale, 10) {
		t.Fatalf("koala %+v", rd.Koala)
	}
	// The core emulated the jobs 10× faster: in workload time (the
	// default) the overheads are the core's, in wall time as observed.
	for _, c := range []struct {
		wall    bool
		f       float64
		clock   string
		measure string
	}{{false, 10, Workload, "workload"}, {true, 1, Wall, "wall"}} {
		m := Compute(rd, Options{WallTime: c.wall})
		o := m.Coallocation
		if o == nil || o.Jobs != 2 || !near(o.Overhead.Max, c.f) || !near(o.Overhead.Min, 0.5*c.f) || !near(o.Overhead.Mean, 0.75*c.f) || m.Clocks.Jobs != c.clock {
			t.Fatalf("co-allocation in %s time: %+v (clock %s)", c.measure, o, m.Clocks.Jobs)
		}
	}
}

// A run whose target records no component starts has no co-allocation
// figures (nil, left out of the JSON), co-allocated jobs or not.
func TestCoallocationNone(t *testing.T) {
	st := writeRun(t, "local", map[string]int{"1-0": 2, "1-1": 1}, nil, nil)
	rd, err := Load(st, "r", LoadOptions{NoUsers: true})
	if err != nil {
		t.Fatal(err)
	}
	if m := Compute(rd, Options{}); m.Coallocation != nil || m.CoAllocated != 1 {
		t.Fatalf("co-allocation %+v, co-allocated %d", m.Coallocation, m.CoAllocated)
	}
}
