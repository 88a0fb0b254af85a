package metrics

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gmark/gmark/analyzer/store"
	"github.com/gmark/gmark/record"
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
	return writeRunAttempts(t, target, jobs, nil, events, ann)
}

// writeRunAttempts is writeRun with the jobs' attempts (1 when not given).
func writeRunAttempts(t *testing.T, target string, jobs, attempts map[string]int, events []store.Event, ann []store.Annotation) *store.Store {
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
				Components: comps + "]", SubmitNS: at(0), StartNS: at(1), EndNS: at(2), State: store.Succeeded, Attempts: max(1, attempts[id]), RecordedNS: 1}); err != nil {
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

// componentRecord is a component-start annotation of component comp of
// job's attempt, started at s seconds on a clock scale times the wall
// clock's pace.
func componentRecord(job string, attempt, comp int, s, scale float64) store.Annotation {
	c := record.NewComponentStart(job, attempt, comp, "fs0", time.Unix(0, int64(s*1e9)), "the test's clock")
	c.ClockScale = scale
	return store.Annotation{TimeNS: 1, Kind: record.AnnotationComponentStart, Key: record.Key("r", job, attempt), Value: c.Value(), Source: "test"}
}

// A run with component-start records is measured from them alone, whatever
// its target: the Slurm target's parts in its final events are not read
// (1-0's would make 50 s); a job's starts count only when they are of its
// last attempt; a component started twice counts with its last start; the
// records' clock scale brings their times to the wall clock's pace.
func TestCoallocationRecords(t *testing.T) {
	cr := componentRecord
	jobs := map[string]int{"1-0": 2, "1-1": 3, "1-2": 1, "1-3": 2, "1-6": 2, "1-7": 2, "1-8": 2, "1-9": 2}
	attempts := map[string]int{"1-6": 2, "1-7": 2}
	ann := []store.Annotation{
		cr("1-0", 1, 0, 100, 0), cr("1-0", 1, 1, 103, 0), // 3 s
		cr("1-1", 1, 0, 200, 1), cr("1-1", 1, 2, 201, 1), cr("1-1", 1, 1, 200, 1), // 1 s
		cr("1-2", 1, 0, 300, 0),                                                                          // one component: out
		cr("1-3", 1, 0, 300, 0),                                                                          // one of two started: out
		cr("1-6", 1, 0, 10, 0), cr("1-6", 1, 1, 50, 0), cr("1-6", 2, 1, 602, 0), cr("1-6", 2, 0, 600, 0), // the last attempt's: 2 s
		cr("1-7", 1, 0, 10, 0), cr("1-7", 1, 1, 11, 0), // only the attempt before its last: out
		cr("1-8", 1, 0, 50, 10), cr("1-8", 1, 1, 1000, 10), cr("1-8", 1, 0, 950, 10), // restarted: (1000 − 950) / 10 = 5 s
		{TimeNS: 1, Kind: record.AnnotationComponentStart, Key: "r/1-9/1", Value: "not json", Source: "test"},
		{TimeNS: 1, Kind: record.AnnotationComponentStart, Key: "r/1-9/1", Value: `{"attempt":1,"component":1,"start_ns":5}`, Source: "test"}, // no job
		{TimeNS: 1, Kind: record.AnnotationComponentStart, Key: "r/1-9/1", Value: `{"job":"1-9","attempt":1,"component":0,"start_ns":0}`, Source: "test"},
	}
	events := []store.Event{{JobID: "1-0", Attempt: 1, TimeNS: 1, Kind: "succeeded", Payload: slurmDetail(100, 150)}}
	st := writeRunAttempts(t, "slurm", jobs, attempts, events, ann)
	rd, err := Load(st, "r", LoadOptions{NoUsers: true})
	if err != nil {
		t.Fatal(err)
	}
	c := Compute(rd, Options{}).Coallocation
	if c == nil || c.Jobs != 4 {
		t.Fatalf("co-allocation %+v", c)
	}
	if o := c.Overhead; o.N != 4 || !near(o.Mean, 2.75) || !near(o.Max, 5) || !near(o.Min, 1) {
		t.Errorf("overhead %+v", o)
	}
	if !strings.Contains(c.Source, "the test's clock") || !strings.Contains(c.Source, "component-start") {
		t.Errorf("source %q", c.Source)
	}
}

// The same co-allocated jobs recorded the old way (the Slurm target's final
// events, a store written before the component-start records) and the new
// (only the records, as the Slurm target writes them from the same Slurm
// records) have the same co-allocation figures, to the bit.
func TestCoallocationRecordsAsTheSlurmParts(t *testing.T) {
	type attempt struct {
		job     string
		attempt int
		starts  []any // as slurmDetail takes them; 0: did not start
	}
	runs := []attempt{
		{"1-0", 1, []any{1732000100, 1732000103}},
		{"1-1", 1, []any{1732000200, 1732000200, 1732000201}},
		{"1-3", 1, []any{1732000300, 0}},
		{"1-4", 1, []any{[]int{1732000400, 1732000407, 1732000409}}},
		{"1-6", 1, []any{1732000010, 1732000050}},
		{"1-6", 2, []any{1732000600, 1732000602}},
		{"1-7", 1, []any{1732000010, 1732000011}},
		{"1-7", 2, []any{0, 0}}, // the last attempt never started
		{"1-9", 1, []any{1732000900, 1732000900}},
	}
	jobs := map[string]int{"1-0": 2, "1-1": 3, "1-3": 2, "1-4": 3, "1-6": 2, "1-7": 2, "1-9": 2}
	attempts := map[string]int{"1-6": 2, "1-7": 2}
	var events []store.Event
	var ann []store.Annotation
	for _, a := range runs {
		events = append(events, store.Event{JobID: a.job, Attempt: a.attempt, TimeNS: 1, Kind: "succeeded", Payload: slurmDetail(a.starts...)})
		var flat []int
		for _, s := range a.starts {
			switch s := s.(type) {
			case int:
				flat = append(flat, s)
			case []int:
				flat = append(flat, s...)
			}
		}
		for i, s := range flat {
			if s > 0 {
				ann = append(ann, componentRecord(a.job, a.attempt, i, float64(s), 0))
			}
		}
	}
	var got [2]*Coallocation
	for i, st := range []*store.Store{writeRunAttempts(t, "slurm", jobs, attempts, events, nil), writeRunAttempts(t, "slurm", jobs, attempts, nil, ann)} {
		rd, err := Load(st, "r", LoadOptions{NoUsers: true})
		if err != nil {
			t.Fatal(err)
		}
		got[i] = Compute(rd, Options{}).Coallocation
	}
	if got[0] == nil || got[1] == nil || got[0].Jobs != 5 || got[1].Jobs != got[0].Jobs || got[1].Overhead != got[0].Overhead {
		t.Fatalf("the Slurm parts %+v, the records %+v", got[0], got[1])
	}
}

// A run begun by a gmark that wrote no component-start records and resumed
// by one that does has both kinds, job by job: each job is read from what
// it has (its records when it has them), and none is left out.
func TestCoallocationMixedRun(t *testing.T) {
	jobs := map[string]int{"1-0": 2, "1-1": 2}
	ann := []store.Annotation{componentRecord("1-0", 1, 0, 100, 0), componentRecord("1-0", 1, 1, 103, 0)} // 3 s
	events := []store.Event{
		{JobID: "1-1", Attempt: 1, TimeNS: 1, Kind: "succeeded", Payload: slurmDetail(1732000200, 1732000201)}, // 1 s, before the records
		{JobID: "1-0", Attempt: 1, TimeNS: 2, Kind: "succeeded", Payload: slurmDetail(1732000100, 1732000190)}, // its records win
	}
	st := writeRunAttempts(t, "slurm", jobs, nil, events, ann)
	rd, err := Load(st, "r", LoadOptions{NoUsers: true})
	if err != nil {
		t.Fatal(err)
	}
	c := Compute(rd, Options{}).Coallocation
	if c == nil || c.Jobs != 2 {
		t.Fatalf("co-allocation %+v: want both jobs", c)
	}
	if o := c.Overhead; o.N != 2 || !near(o.Mean, 2) || !near(o.Max, 3) || !near(o.Min, 1) {
		t.Errorf("overhead %+v: want 3 s (1-0, its records) and 1 s (1-1, its Slurm records)", o)
	}
}
