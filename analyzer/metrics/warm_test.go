package metrics

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gmark/gmark/analyzer/store"
)

// warmRun: a replayed window of 100 s on 10 processors, begun with two warm
// jobs (one running 0–50 on 4 processors, one queued until 20 then running
// to 70 on 2), and two window jobs: 1-2 submitted at 10, started at 70,
// ended at 80 (wait 60); 1-3 submitted at 30, started at 30, ended at 100
// on 1 processor (wait 0), failed.
func warmRun() *RunData {
	rd := &RunData{ID: "warm", Target: "local", Speedup: 1, Processors: 10, ProcessorsSource: "test", Jobs: jobs([]store.JobFacts{
		{ID: "1-0", Type: "swf", Processors: 4, Components: 1, Sites: "c", SubmitNS: at(0), ScheduledNS: at(0), StartNS: at(0), EndNS: at(50), State: Succeeded, Attempts: 1},
		{ID: "1-1", Type: "swf", Processors: 2, Components: 1, Sites: "c", SubmitNS: at(0), ScheduledNS: at(0), StartNS: at(20), EndNS: at(70), State: Succeeded, Attempts: 1},
		{ID: "1-2", Type: "swf", Processors: 1, Components: 1, Sites: "c", SubmitNS: at(10), ScheduledNS: at(10), StartNS: at(70), EndNS: at(80), State: Succeeded, Attempts: 1},
		{ID: "1-3", Type: "swf", Processors: 1, Components: 1, Sites: "c", SubmitNS: at(30), ScheduledNS: at(30), StartNS: at(30), EndNS: at(100), State: Failed, Reason: "exit 1", Attempts: 1},
	})}
	rd.Jobs[0].Warm, rd.Jobs[1].Warm = true, true
	return rd
}

func TestComputeLeavesWarmJobsOut(t *testing.T) {
	cases := []struct {
		name                   string
		include                bool
		submitted, ok, waitN   int
		meanWait, goodput, sr  float64
		util                   float64
		note                   string
		included, jobsPerSiteC int
	}{
		// Left out: two jobs, waits 60 and 0; goodput 10 processor-s of
		// 1-2; success 1/2. Utilization counts every job: (4·50 + 2·50 +
		// 10 + 70) / (10 · 100) = 0.38.
		{"by default", false, 2, 1, 2, 30, 10, 0.5, 0.38, "2 warm jobs", 0, 2},
		// Included: four jobs, waits 0, 20, 60, 0; goodput 200 + 100 + 10.
		{"included", true, 4, 3, 4, 20, 310, 0.75, 0.38, "counted like the others", 1, 4},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			m := Compute(warmRun(), Options{IncludeWarm: c.include})
			if m.Jobs.Submitted != c.submitted || m.Jobs.Succeeded != c.ok || m.Wait.N != c.waitN || !near(m.Wait.Mean, c.meanWait) {
				t.Errorf("jobs %+v, wait n %d mean %v; want %d submitted, %d succeeded, %d waits of mean %v",
					m.Jobs, m.Wait.N, m.Wait.Mean, c.submitted, c.ok, c.waitN, c.meanWait)
			}
			if !near(m.Goodput, c.goodput) || !near(m.SuccessRate, c.sr) || !near(m.Utilization, c.util) {
				t.Errorf("goodput %v, success %v, utilization %v; want %v, %v, %v", m.Goodput, m.SuccessRate, m.Utilization, c.goodput, c.sr, c.util)
			}
			if m.WarmJobs != 2 || m.WarmIncluded != c.include {
				t.Errorf("warm jobs %d, included %v", m.WarmJobs, m.WarmIncluded)
			}
			if !strings.Contains(strings.Join(m.Notes, "\n"), c.note) {
				t.Errorf("notes %q, want one saying %q", m.Notes, c.note)
			}
			if len(m.Samples.JobWait) != c.submitted || m.Samples.JobsPerSite["c"] != c.jobsPerSiteC || m.Breakdown.Jobs != c.submitted {
				t.Errorf("per-job samples %d, jobs on site c %d, breakdown over %d jobs", len(m.Samples.JobWait), m.Samples.JobsPerSite["c"], m.Breakdown.Jobs)
			}
			busy, good := 0.0, 0.0
			for k := range m.Series.Utilization {
				busy += m.Series.Utilization[k] * 10 * m.Series.BinSeconds
				good += m.Series.Goodput[k] * m.Series.BinSeconds
			}
			if !near(busy, 380) || !near(good, c.goodput) {
				t.Errorf("series: busy %v processor-s, good %v; want 380, %v", busy, good, c.goodput)
			}
		})
	}
	// No warm job: no note, nothing counted.
	rd := warmRun()
	rd.Jobs[0].Warm, rd.Jobs[1].Warm = false, false
	if m := Compute(rd, Options{}); m.WarmJobs != 0 || m.Jobs.Submitted != 4 || len(m.Notes) != 0 {
		t.Errorf("no warm jobs: %d warm, %d submitted, notes %q", m.WarmJobs, m.Jobs.Submitted, m.Notes)
	}
}

// TestLoadMarksWarmJobs: the warm jobs are those of the manifest recorded
// in the run's provenance (the last record's), from the store alone.
func TestLoadMarksWarmJobs(t *testing.T) {
	cases := []struct {
		name      string
		manifests []string
		want      string
	}{
		{"listed", []string{`{"jobs":3,"warm_jobs":["1-0","1-1"]}`}, "1-0,1-1"},
		{"the last record wins", []string{`{"warm_jobs":["1-0"]}`, `{"warm_jobs":["1-1"]}`}, "1-1"},
		{"none listed", []string{`{"jobs":3}`}, ""},
		{"no manifest", []string{""}, ""},
		{"a malformed manifest is no list", []string{`{"warm_jobs":"1-0"}`}, ""},
		{"an unknown id", []string{`{"warm_jobs":["9-9"]}`}, ""},
	}
	for i, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			st, err := store.Open(filepath.Join(t.TempDir(), "r.db"))
			if err != nil {
				t.Fatal(err)
			}
			defer st.Close()
			run := "w" + string(rune('a'+i))
			err = st.Write(context.Background(), func(tx *store.Tx) error {
				pid, _ := tx.EnsureProject("p", "", 1)
				sid, _ := tx.EnsureScenario(pid, "s", "", 1)
				first := store.Provenance{RunID: run, RecordedNS: 1, Target: "dryrun", Manifest: c.manifests[0]}
				if err := tx.InsertRun(store.Run{ID: run, ScenarioID: sid, CreatedNS: 1, Jobs: 3, Target: "dryrun", Settings: `{}`,
					ProvenanceSHA256: first.ComputeDigest()}); err != nil {
					return err
				}
				for seq, m := range c.manifests {
					prov := store.Provenance{RunID: run, Seq: seq, RecordedNS: 1, Target: "dryrun", Manifest: m}
					if err := tx.InsertProvenance(prov); err != nil {
						return err
					}
				}
				for k, id := range []string{"1-0", "1-1", "1-2"} {
					if err := tx.InsertJob(store.Job{RunID: run, JobID: id, Unit: 1, Index: k, Kind: "unitary", Type: "swf", App: "swf", SiteType: "single",
						Processors: 1, Components: `[{"site":"*","count":1}]`, ScheduledNS: at(0), SubmitNS: at(0), StartNS: at(0), EndNS: at(1),
						State: store.Succeeded, Attempts: 1, RecordedNS: 1}); err != nil {
						return err
					}
				}
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
			rd, err := Load(st, run, LoadOptions{NoUsers: true})
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, j := range rd.Jobs {
				if j.Warm {
					got = append(got, j.ID)
				}
			}
			if strings.Join(got, ",") != c.want {
				t.Errorf("warm %v, want %s", got, c.want)
			}
		})
	}
}
