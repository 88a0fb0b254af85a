package reporttest

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/gmark/gmark/analyzer/store"
)

// Run is a run WriteRuns writes to a store.
type Run struct {
	ID           string
	Jobs         []store.Job // times as offsets from the run's creation
	Ended        bool        // with an end record
	TargetConfig string      // JSON; {"processors":64} when ""
	Settings     string      // the submitter's settings, JSON; {"speedup":1} when ""
	// Provenance, when set, changes the run's provenance record.
	Provenance func(*store.Provenance)
}

// WriteRuns writes runs of the local target to a new store at path, the
// first created on 2000-01-01, each a second after the one before.
func WriteRuns(t testing.TB, path string, runs ...Run) {
	t.Helper()
	st, err := store.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	base := time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC).UnixNano()
	err = st.Write(context.Background(), func(tx *store.Tx) error {
		pid, err := tx.EnsureProject("p", "", base)
		if err != nil {
			return err
		}
		sid, err := tx.EnsureScenario(pid, "s", "", base)
		if err != nil {
			return err
		}
		for k, r := range runs {
			tc, settings := r.TargetConfig, r.Settings
			if tc == "" {
				tc = `{"processors":64}`
			}
			if settings == "" {
				settings = `{"speedup":1}`
			}
			created := base + int64(k)*1e9
			prov := store.Provenance{RunID: r.ID, RecordedNS: created, Target: "local", TargetConfig: tc, CommandLine: `["gmark","submit"]`}
			if r.Provenance != nil {
				r.Provenance(&prov)
			}
			if err := tx.InsertRun(store.Run{ID: r.ID, ScenarioID: sid, CreatedNS: created, Jobs: len(r.Jobs), Target: "local",
				Settings: settings, ProvenanceSHA256: prov.ComputeDigest()}); err != nil {
				return err
			}
			if err := tx.InsertProvenance(prov); err != nil {
				return err
			}
			end := created
			for i, j := range r.Jobs {
				j.RunID, j.Index, j.Kind, j.SiteType, j.Attempts, j.RecordedNS = r.ID, i, "unitary", "single", 1, created
				if j.JobID == "" {
					j.JobID = fmt.Sprintf("0-%d", i)
				}
				if j.Components == "" {
					j.Components = `[{"site":"*","count":1}]`
				}
				if j.Processors == 0 {
					j.Processors = 1
				}
				// Times in the case tables are offsets from the run's creation.
				for _, p := range []*int64{&j.ScheduledNS, &j.SubmitNS, &j.StartNS, &j.EndNS} {
					if *p != 0 {
						*p += created
					}
				}
				end = max(end, j.EndNS)
				if err := tx.InsertJob(j); err != nil {
					return err
				}
			}
			if r.Ended {
				if err := tx.InsertRunEnd(store.RunEnd{RunID: r.ID, EndNS: end, Status: store.RunCompleted}); err != nil {
					return err
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// Jobs makes n jobs in state: job i is scheduled at i s (submitted 1 ms
// later), waits wait(i) and runs run(i) seconds (a job that never started
// has neither), of type types[i % len(types)] ("sser" when none), on site
// "a" or "b" alternately.
func Jobs(n int, state string, wait, run func(i int) float64, types ...string) []store.Job {
	if len(types) == 0 {
		types = []string{"sser"}
	}
	out := make([]store.Job, n)
	for i := range out {
		sched := int64(i) * 1e9
		j := store.Job{Type: types[i%len(types)], App: types[i%len(types)], ScheduledNS: max(sched, 1), SubmitNS: sched + 1e6,
			DelayNS: 1e6, State: state, Sites: []string{"a", "b"}[i%2]}
		if state != store.NeverStarted {
			j.StartNS = j.SubmitNS + int64(wait(i)*1e9)
			j.EndNS = j.StartNS + int64(run(i)*1e9)
		}
		if state == store.Failed {
			j.Reason = "exit status 1"
		}
		if state == store.NeverStarted {
			j.Sites = ""
		}
		out[i] = j
	}
	return out
}

// Constant is the function of a job index that is always v.
func Constant(v float64) func(int) float64 { return func(int) float64 { return v } }
