package metrics

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/gmark/gmark/analyzer/store"
)

// coreEvent is the JSON of one of the core's events, as the koala target
// records it.
func coreEvent(kind, key string, t time.Time, extra map[string]any) string {
	m := map[string]any{"seq": 1, "time": t.Format(time.RFC3339Nano), "kind": kind, "job": "k1", "key": key}
	for k, v := range extra {
		m[k] = v
	}
	b, _ := json.Marshal(m)
	return string(b)
}

// A live koala run: the core's clock runs 10× faster than the wall clock.
// The job is submitted at wall 0; on the core's clock it is placed 20 s
// later, claimed at 50 s, started at 60 s and finished at 160 s, so on the
// wall clock: placement 2 s, claiming 3 s, held idle 1 s, run 10 s.
func TestLoadLiveKoalaBreakdown(t *testing.T) {
	dir := t.TempDir()
	wl := filepath.Join(dir, "wl")
	if err := os.MkdirAll(wl, 0o755); err != nil {
		t.Fatal(err)
	}
	jsonl := []byte(`{"id":"1-0","unit":1,"index":0,"kind":"unitary","type":"swf","submit":0,"user":"alice"}` + "\n")
	if err := os.WriteFile(filepath.Join(wl, "workload.jsonl"), jsonl, 0o644); err != nil {
		t.Fatal(err)
	}
	st, err := store.Open(filepath.Join(dir, "r.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	const run = "live-1"
	key := run + "/1-0/1"
	wall0 := time.Unix(0, at(0))
	core0 := time.Date(2024, 5, 1, 12, 0, 0, 0, time.UTC)
	coreAt := func(s float64) time.Time { return core0.Add(time.Duration(s * float64(time.Second))) }
	err = st.Write(context.Background(), func(tx *store.Tx) error {
		pid, _ := tx.EnsureProject("p", "", 1)
		sid, _ := tx.EnsureScenario(pid, "s", "", 1)
		prov := store.Provenance{RunID: run, RecordedNS: 1, Target: "koala", TargetConfig: `{"endpoint":"http://127.0.0.1:1"}`, WorkloadDir: wl}
		if err := tx.InsertRun(store.Run{ID: run, ScenarioID: sid, CreatedNS: 1, WorkloadDir: wl, WorkloadSHA256: sha(jsonl), Jobs: 1,
			Target: "koala", Settings: `{"speedup":1}`, ProvenanceSHA256: prov.ComputeDigest()}); err != nil {
			return err
		}
		if err := tx.InsertProvenance(prov); err != nil {
			return err
		}
		if err := tx.InsertJob(store.Job{RunID: run, JobID: "1-0", Unit: 1, Kind: "unitary", Type: "swf", App: "swf", SiteType: "unordered",
			Processors: 4, Components: `[{"site":"*","count":2},{"site":"*","count":2}]`, Sites: "fs0,fs1",
			ScheduledNS: at(0), SubmitNS: at(0), StartNS: at(6), EndNS: at(16), State: store.Succeeded, Attempts: 1, RecordedNS: 1}); err != nil {
			return err
		}
		for _, e := range []struct {
			kind, core string
			t          float64
		}{{"queued", "submitted", 0}, {"started", "started", 6}, {"succeeded", "finished", 16}} {
			payload := `{"detail":` + coreEvent(e.core, key, coreAt(map[string]float64{"submitted": 0, "started": 60, "finished": 160}[e.core]), nil) + `}`
			if err := tx.InsertEvent(store.Event{RunID: run, JobID: "1-0", Attempt: 1, TimeNS: wall0.Add(time.Duration(e.t * 1e9)).UnixNano(), Kind: e.kind, Payload: payload}); err != nil {
				return err
			}
		}
		for _, a := range []string{
			coreEvent("placed", key, coreAt(20), map[string]any{"ftt_ns": int64(30 * time.Second), "sites": []string{"fs0", "fs1"}}),
			coreEvent("claim_try", key, coreAt(42), map[string]any{"try": 1, "count": 1}),
			coreEvent("claim_try", key, coreAt(50), map[string]any{"try": 2, "count": 2, "ok": true}),
			coreEvent("claimed", key, coreAt(50), nil),
		} {
			if err := tx.InsertAnnotation(store.Annotation{RunID: run, TimeNS: 1, Kind: "koala-event", Key: key, Value: a, Source: "koala"}); err != nil {
				return err
			}
		}
		// The core's deadline figures, as the koala target records them
		// when a live run ends.
		if err := tx.InsertAnnotation(store.Annotation{RunID: run, TimeNS: 2, Kind: "koala-deadlines", Key: "summary",
			Value:  `{"global_jobs":1,"global_started":1,"local_jobs":9,"local_killed":2,"local_finished":6,"local_kill_rate":0.25,"local_response_s":41.5}`,
			Source: "koala"}); err != nil {
			return err
		}
		return tx.InsertRunEnd(store.RunEnd{RunID: run, EndNS: at(16), Status: "completed"})
	})
	if err != nil {
		t.Fatal(err)
	}
	rd, err := Load(st, run, LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(rd.Jobs) != 1 || rd.Jobs[0].Components != 2 || rd.Jobs[0].User != "alice" {
		t.Fatalf("jobs %+v", rd.Jobs)
	}
	if rd.Processors != 0 {
		t.Errorf("a remote core's system size is unknown, got %d", rd.Processors)
	}
	k := rd.Koala
	if k == nil || !near(k.TimeScale, 10) {
		t.Fatalf("koala data %+v", k)
	}
	if d := k.Deadlines; d == nil || d.GlobalJobs != 1 || d.LocalKilled != 2 || d.LocalKillRate != 0.25 || d.LocalResponseS != 41.5 {
		t.Errorf("a live run's deadline figures: %+v", d)
	}
	cj := k.Jobs["1-0"]
	if cj == nil || !cj.HasPhases || !near(cj.Place, 2) || !near(cj.Claim, 3) || !near(cj.Hold, 1) || cj.ClaimTries != 2 || !near(cj.Transfer, 3) {
		t.Fatalf("core job %+v", cj)
	}
	// A core whose clock ran 10× the wall clock (measured): its jobs live
	// in workload time; --wall-time gives the phases as observed, which
	// this test checks.
	if w := Compute(rd, Options{}); w.Clocks.Jobs != Workload || w.Clocks.JobScale != 10 || !near(w.Core.Placement.Mean, 20) {
		t.Errorf("workload time: clocks %+v, placement %v", w.Clocks, w.Core.Placement.Mean)
	}
	m := Compute(rd, Options{WallTime: true})
	phases := map[string]float64{}
	for _, p := range m.Breakdown.Phases {
		phases[p.Name] = p.Mean
	}
	if m.Breakdown.Jobs != 1 || !near(phases["placement"], 2) || !near(phases["claiming (placed → claimed)"], 3) ||
		!near(phases["held idle (claimed → started)"], 1) || !near(phases["run"], 10) || !near(phases["other (target latency)"], 0) {
		t.Errorf("breakdown %+v", m.Breakdown)
	}
	if m.Core == nil || !near(m.Core.WastedProcSeconds, 4) || !near(m.Core.ClaimTries.Mean, 2) || !near(m.Core.Placement.Mean, 2) {
		t.Errorf("core %+v", m.Core)
	}
	if len(m.ByUser) != 1 || m.ByUser[0].Key != "alice" {
		t.Errorf("by user %+v", m.ByUser)
	}
	if !math.IsNaN(m.Utilization) {
		t.Errorf("utilization %v with an unknown system size", m.Utilization)
	}
}

func sha(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}
