package metrics

import (
	"context"
	"fmt"
	"hash/maphash"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/gmark/gmark/analyzer/store"
)

// streamRun is one run of a store the streamed metrics are checked on.
type streamRun struct {
	id, target, settings, manifest string
	workloadDir, workloadSHA       string
	jobs                           []store.Job
	events                         []store.Event
	ann                            []store.Annotation
	noEnd                          bool
}

// writeStreamStore writes the runs into a new store.
func writeStreamStore(t *testing.T, runs []streamRun) *store.Store {
	t.Helper()
	st, err := store.Open(filepath.Join(t.TempDir(), "s.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	err = st.Write(context.Background(), func(tx *store.Tx) error {
		pid, _ := tx.EnsureProject("p", "", 1)
		sid, _ := tx.EnsureScenario(pid, "s", "", 1)
		for _, r := range runs {
			settings := r.settings
			if settings == "" {
				settings = `{"speedup":1}`
			}
			prov := store.Provenance{RunID: r.id, RecordedNS: 1, Target: r.target, TargetConfig: `{"processors":64}`, Manifest: r.manifest}
			if err := tx.InsertRun(store.Run{ID: r.id, ScenarioID: sid, CreatedNS: 1, Jobs: len(r.jobs), Target: r.target,
				Settings: settings, ProvenanceSHA256: prov.ComputeDigest(), WorkloadDir: r.workloadDir, WorkloadSHA256: r.workloadSHA}); err != nil {
				return err
			}
			if err := tx.InsertProvenance(prov); err != nil {
				return err
			}
			for _, j := range r.jobs {
				j.RunID = r.id
				if err := tx.InsertJob(j); err != nil {
					return err
				}
			}
			for _, e := range r.events {
				e.RunID = r.id
				if err := tx.InsertEvent(e); err != nil {
					return err
				}
			}
			for _, a := range r.ann {
				a.RunID = r.id
				if err := tx.InsertAnnotation(a); err != nil {
					return err
				}
			}
			if !r.noEnd {
				if err := tx.InsertRunEnd(store.RunEnd{RunID: r.id, EndNS: at(1e6), Status: store.RunCompleted}); err != nil {
					return err
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return st
}

// job is a unitary job of the test stores; times in seconds from base, 0
// (none) left as 0.
func job(id string, submit, start, end float64, state string) store.Job {
	ns := func(s float64) int64 {
		if s == 0 {
			return 0
		}
		return at(s)
	}
	j := store.Job{JobID: id, Unit: 1, Kind: "unitary", Type: "swf", App: "swf", Processors: 1, Components: `[{"site":"*","count":1}]`,
		Sites: "s1", ScheduledNS: ns(submit), SubmitNS: ns(submit), DelayNS: 1e5, StartNS: ns(start), EndNS: ns(end), State: state, Attempts: 1, RecordedNS: 1}
	if start == 0 {
		j.Sites = ""
	}
	return j
}

// randomJobs are n jobs of three types on four sites, some co-allocated,
// failed, cancelled (before or after their start) or never started, with
// times in nanoseconds that no two jobs share.
func randomJobs(r *rand.Rand, n int, prefix string) []store.Job {
	var out []store.Job
	t := 0.0
	for i := range n {
		t += r.ExpFloat64() * 0.7
		j := job(fmt.Sprintf("%s%d", prefix, i), 1+t, 0, 0, store.Succeeded)
		j.Type = []string{"a", "b", "c"}[r.IntN(3)]
		j.Processors = 1 << r.IntN(5)
		j.SubmitNS += int64(r.IntN(1e6))
		j.DelayNS = int64(r.ExpFloat64() * 1e6)
		switch u := r.Float64(); {
		case u < 0.05:
			j.State, j.Reason = store.NeverStarted, "cancelled at the end"
		case u < 0.08:
			j.State, j.Reason = store.Cancelled, "cancelled by the user"
		default:
			j.StartNS = j.SubmitNS + int64(r.ExpFloat64()*30e9)
			j.EndNS = j.StartNS + int64(r.ExpFloat64()*100e9)
			j.Sites = fmt.Sprintf("s%d", r.IntN(4))
			if r.IntN(8) == 0 {
				j.Components, j.Sites = `[{"site":"*","count":1},{"site":"*","count":1}]`, j.Sites+",s9"
			}
			if u < 0.15 {
				j.State, j.Reason = store.Failed, []string{"exit status 1", "lost", strings.Repeat("é", 150)}[r.IntN(3)]
			}
		}
		out = append(out, j)
	}
	return out
}

// simRun is a run as 'gmark koala simulate --db' records it: per job its
// submitted, started and final events, with the core's figures in the
// payloads (a failed job's final event has other figures than its start:
// the last wins), and the core's utilization.
func simRun(r *rand.Rand, id string, n int) streamRun {
	run := streamRun{id: id, target: "koala-sim", jobs: randomJobs(r, n, id+"-")}
	payload := func(place, ftt int64, tries int) string {
		return fmt.Sprintf(`{"claim_tries":%d,"ftt_ns":%d,"placement_ns":%d,"placement_tries":%d,"restarts":0}`, tries, ftt, place, tries+1)
	}
	for i, j := range run.jobs {
		run.events = append(run.events, store.Event{JobID: j.JobID, TimeNS: j.SubmitNS, Kind: "submitted"})
		if j.StartNS == 0 {
			continue
		}
		if i%7 == 3 { // a job the core recorded no figures of
			continue
		}
		p := payload(int64(r.ExpFloat64()*2e9), int64(r.IntN(3))*1e9, r.IntN(3))
		run.events = append(run.events, store.Event{JobID: j.JobID, TimeNS: j.StartNS, Kind: "started", Payload: p})
		if j.State == store.Failed || j.State == store.Cancelled {
			p = payload(int64(r.ExpFloat64()*9e9), 0, 5)
		}
		run.events = append(run.events, store.Event{JobID: j.JobID, TimeNS: j.EndNS, Kind: j.State, Payload: p})
	}
	if n > 0 {
		run.ann = []store.Annotation{{Kind: "koala-utilization", Key: "u", Value: `{"seconds":1000,"background":0.1,"grid":0.4,"wasted":0.05,"gained":0,"total":0.5}`}}
	}
	return run
}

// Stream's metrics are Load and Compute's, number for number, on stores
// of every kind of run it streams: no jobs, none that ran, one, all alike,
// failures and cancellations, co-allocated jobs with their components'
// starts, a simulated run with the core's figures, a run without an end,
// runs at a speedup, and stores of many runs (whose rows come in the order
// of their ids, not the table's); with the options that change the
// figures. The runs it must not stream (composite jobs, a warm start, a
// live core) it says so of.
func TestStreamMatchesCompute(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 5))
	same := make([]store.Job, 40)
	for i := range same {
		same[i] = job(fmt.Sprintf("e%02d", i), 10, 20, 50, store.Succeeded)
	}
	coalloc := randomJobs(r, 30, "c")
	var slurmEvents []store.Event
	for i := range coalloc {
		coalloc[i].Components = `[{"site":"*","count":1},{"site":"*","count":1}]`
		if coalloc[i].StartNS != 0 {
			s := int(coalloc[i].StartNS / 1e9)
			slurmEvents = append(slurmEvents, store.Event{JobID: coalloc[i].JobID, Attempt: 1, TimeNS: 1, Kind: "succeeded", Payload: slurmDetail(s, s+i%4)})
		}
	}
	many := []streamRun{{id: "m1", target: "local", jobs: randomJobs(r, 200, "x")}, {id: "m2", target: "dryrun", jobs: randomJobs(r, 300, "y")},
		{id: "m3", target: "local", jobs: randomJobs(r, 250, "z")}, simRun(r, "m4", 150)}
	// A run whose workload names its jobs' users (the per-user table), one
	// of them the user of every job at first; and one whose workload
	// changed since (users not read, a note).
	usersRun := streamRun{id: "r", target: "local", jobs: randomJobs(r, 300, "u")}
	var lines strings.Builder
	for i, j := range usersRun.jobs {
		user := "alice"
		if i > 100 {
			user = []string{"alice", "bob", "carol"}[r.IntN(3)]
		}
		fmt.Fprintf(&lines, "{\"id\":%q,\"user\":%q}\n", j.JobID, user)
	}
	usersRun.workloadDir = t.TempDir()
	if err := os.WriteFile(filepath.Join(usersRun.workloadDir, "workload.jsonl"), []byte(lines.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	usersRun.workloadSHA = sha([]byte(lines.String()))
	changed := usersRun
	changed.workloadSHA = sha([]byte("another workload"))
	const maybe = 2 // streamed or not, but when streamed the same numbers
	stores := []struct {
		name   string
		runs   []streamRun
		stream int // 1: streamed, 0: not
	}{
		{"no jobs", []streamRun{{id: "r", target: "dryrun"}}, 1},
		{"no job ran", []streamRun{{id: "r", target: "dryrun", jobs: []store.Job{job("a", 1, 0, 0, store.NeverStarted), job("b", 2, 0, 0, store.NeverStarted)}}}, 1},
		{"never submitted", []streamRun{{id: "r", target: "dryrun", jobs: []store.Job{job("a", 0, 0, 0, store.NeverStarted)}}}, 1},
		{"one job", []streamRun{{id: "r", target: "local", jobs: []store.Job{job("a", 1, 2, 5, store.Succeeded)}}}, 1},
		{"all equal", []streamRun{{id: "r", target: "local", jobs: same}}, 1},
		{"start before submission", []streamRun{{id: "r", target: "slurm", jobs: []store.Job{job("a", 5, 4, 9, store.Succeeded), job("b", 6, 7, 7, store.Failed)}}}, 1},
		{"failures", []streamRun{{id: "r", target: "local", jobs: randomJobs(r, 500, "f"), noEnd: true}}, 1},
		{"co-allocated", []streamRun{{id: "r", target: "slurm", jobs: coalloc, events: slurmEvents}}, 1},
		{"simulated", []streamRun{simRun(r, "r", 400)}, 1},
		{"simulated, no figures", []streamRun{{id: "r", target: "koala-sim", jobs: randomJobs(r, 20, "n")}}, 1},
		{"speedup", []streamRun{{id: "r", target: "local", settings: `{"speedup":8,"workers":3}`, jobs: randomJobs(r, 100, "s")}}, 1},
		{"many runs", many, 1},
		{"users", []streamRun{usersRun}, 1},
		{"negative times", []streamRun{{id: "r", target: "local", jobs: negativeJobs()}}, 1},
		{"extreme times", []streamRun{{id: "r", target: "local", jobs: extremeJobs()}}, maybe},
		{"workload changed", []streamRun{changed}, 1},
		{"warm start", []streamRun{{id: "r", target: "local", jobs: randomJobs(r, 20, "w"), manifest: `{"warm_jobs":["w1","w2"]}`}}, 0},
		{"live core", []streamRun{{id: "r", target: "koala", jobs: randomJobs(r, 20, "k")}}, 0},
		{"composite", []streamRun{{id: "r", target: "local", jobs: composite()}}, 0},
	}
	optsList := []Options{{}, {WallTime: true, Tau: 3 * time.Second, Bins: 7, MaxGroups: 2}}
	for _, s := range stores {
		st := writeStreamStore(t, s.runs)
		for _, run := range s.runs {
			for k, opts := range optsList {
				t.Run(fmt.Sprintf("%s/%s/opts%d", s.name, run.id, k), func(t *testing.T) {
					rd, err := Load(st, run.id, LoadOptions{})
					if err != nil {
						t.Fatal(err)
					}
					want := Compute(rd, opts)
					srd, got, ok, err := Stream(st, run.id, LoadOptions{}, opts)
					if err != nil {
						t.Fatal(err)
					}
					if s.stream != maybe && ok != (s.stream == 1) {
						t.Fatalf("streamed: %v, want %v", ok, s.stream == 1)
					}
					if !ok {
						return
					}
					if srd.Jobs != nil {
						t.Errorf("the streamed run holds %d jobs", len(srd.Jobs))
					}
					compareStreamed(t, want, got)
					if s.name == "users" && k == 0 && len(got.ByUser) != 3 {
						t.Errorf("users: %d rows of users, want 3", len(got.ByUser))
					}
				})
			}
		}
	}
}

func composite() []store.Job {
	c := job("w", 1, 2, 9, store.Succeeded)
	c.Kind = "composite"
	t1, t2 := job("w.a", 1, 2, 5, store.Succeeded), job("w.b", 5, 6, 9, store.Succeeded)
	t1.ParentID, t2.ParentID = "w", "w"
	return []store.Job{c, t1, t2}
}

// compareStreamed checks that streamed metrics equal Compute's: every
// field, NaN equal to NaN, but the per-job series Stream does not keep,
// whose figure (Arrival) it checks against the series'.
func compareStreamed(t *testing.T, want, got *RunMetrics) {
	t.Helper()
	wa, ga := want.Samples.ArrivalWaits(), got.Samples.ArrivalWaits()
	if !equalNaN(reflect.ValueOf(wa), reflect.ValueOf(ga)) {
		t.Errorf("arrival waits: got %+v, want %+v", ga, wa)
	}
	if got.Samples.JobSubmit != nil || got.Samples.JobWait != nil || got.Samples.JobOK != nil {
		t.Error("the streamed metrics keep the per-job series")
	}
	w, g := *want, *got
	w.Samples.JobSubmit, w.Samples.JobEnd, w.Samples.JobGoodput, w.Samples.JobOK = nil, nil, nil, nil
	w.Samples.JobWait, w.Samples.JobRun, w.Samples.JobResponse, w.Samples.JobBSld, w.Samples.JobDelay = nil, nil, nil, nil, nil
	g.Samples.Arrival = nil
	// The pairs of the scatter plot, made from their nanoseconds.
	if g.Samples.PairRun != nil || g.Samples.PairWait != nil {
		t.Error("the streamed metrics keep the pairs as float64")
	}
	g.Samples.PairRun, g.Samples.PairWait = g.Samples.WaitRunPairs()
	g.Samples.pairs = nil
	// The waits of each type are the same values, in another order when
	// streamed (shareWaits).
	for _, by := range []map[string][]float64{w.Samples.WaitByType, g.Samples.WaitByType} {
		for k, v := range by {
			by[k] = slices.Sorted(slices.Values(v))
		}
	}
	if want.Samples.Jobs != len(want.Samples.JobSubmit) {
		t.Errorf("Samples.Jobs %d, %d jobs in the series", want.Samples.Jobs, len(want.Samples.JobSubmit))
	}
	diffs := diffNaN("", reflect.ValueOf(w), reflect.ValueOf(g), nil)
	for _, d := range diffs[:min(len(diffs), 10)] {
		t.Error(d)
	}
}

func equalNaN(a, b reflect.Value) bool { return len(diffNaN("", a, b, nil)) == 0 }

// diffNaN lists where a and b differ (a float NaN equals NaN; nil and
// empty slices and maps are equal).
func diffNaN(path string, a, b reflect.Value, out []string) []string {
	if a.Kind() != b.Kind() {
		return append(out, path+": kinds differ")
	}
	switch a.Kind() {
	case reflect.Float32, reflect.Float64:
		x, y := a.Float(), b.Float()
		if x != y && !(math.IsNaN(x) && math.IsNaN(y)) || math.Signbit(x) != math.Signbit(y) && !math.IsNaN(x) {
			out = append(out, fmt.Sprintf("%s: %v, want %v", path, y, x))
		}
	case reflect.Pointer, reflect.Interface:
		if a.IsNil() || b.IsNil() {
			if a.IsNil() != b.IsNil() {
				out = append(out, fmt.Sprintf("%s: nil %v, want nil %v", path, b.IsNil(), a.IsNil()))
			}
			return out
		}
		return diffNaN(path, a.Elem(), b.Elem(), out)
	case reflect.Struct:
		for i := range a.NumField() {
			out = diffNaN(path+"."+a.Type().Field(i).Name, a.Field(i), b.Field(i), out)
		}
	case reflect.Slice, reflect.Array:
		if a.Len() != b.Len() {
			return append(out, fmt.Sprintf("%s: length %d, want %d", path, b.Len(), a.Len()))
		}
		for i := range a.Len() {
			out = diffNaN(fmt.Sprintf("%s[%d]", path, i), a.Index(i), b.Index(i), out)
		}
	case reflect.Map:
		if a.Len() != b.Len() {
			return append(out, fmt.Sprintf("%s: %d keys, want %d", path, b.Len(), a.Len()))
		}
		for _, k := range a.MapKeys() {
			v := b.MapIndex(k)
			if !v.IsValid() {
				out = append(out, fmt.Sprintf("%s[%v]: missing", path, k))
				continue
			}
			out = diffNaN(fmt.Sprintf("%s[%v]", path, k), a.MapIndex(k), v, out)
		}
	default:
		if !reflect.DeepEqual(a.Interface(), b.Interface()) {
			out = append(out, fmt.Sprintf("%s: %v, want %v", path, b.Interface(), a.Interface()))
		}
	}
	return out
}

// Job ids whose hashes collide are not streamed (Load takes the run):
// two jobs of the core's figures with one first hash, and a job without
// figures whose hash is a figured job's.
func TestStreamHashCollisions(t *testing.T) {
	defer func(h func(maphash.Seed, string) uint64) { idHash = h }(idHash)
	first := maphash.MakeSeed()
	for _, c := range []struct {
		name  string
		facts int // jobs with figures, of 4
	}{{"two figured", 4}, {"figured and not", 1}} {
		t.Run(c.name, func(t *testing.T) {
			seeds := 0
			idHash = func(s maphash.Seed, id string) uint64 {
				if s == first || seeds == 0 { // every id's first hash alike
					seeds++
					first = s
					return 7
				}
				return maphash.String(s, id)
			}
			run := simRun(rand.New(rand.NewPCG(1, 1)), "r", 0)
			for i := range 4 {
				j := job(fmt.Sprintf("j%d", i), 1, 2, 3, store.Succeeded)
				run.jobs = append(run.jobs, j)
				if i < c.facts {
					run.events = append(run.events, store.Event{JobID: j.JobID, TimeNS: j.StartNS, Kind: "started",
						Payload: `{"claim_tries":1,"ftt_ns":0,"placement_ns":5,"placement_tries":1,"restarts":0}`})
				}
			}
			st := writeStreamStore(t, []streamRun{run})
			if _, _, ok, err := Stream(st, "r", LoadOptions{NoUsers: true}, Options{}); err != nil || ok {
				t.Errorf("streamed %v (%v), want the run left to Load", ok, err)
			}
			idHash = maphash.String
			if _, _, ok, err := Stream(st, "r", LoadOptions{NoUsers: true}, Options{}); err != nil || !ok {
				t.Errorf("without collisions: streamed %v (%v)", ok, err)
			}
		})
	}
}

// The series log gives back what it was given of each job that can count
// in the series, whatever the times (zero, negative, the extremes: their
// deltas wrap), and nothing of the others.
func TestSeriesLogRoundTrip(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 9))
	extremes := []int64{0, 1, -1, math.MaxInt64, math.MinInt64, 1 << 40}
	draw := func() int64 {
		if r.IntN(3) == 0 {
			return extremes[r.IntN(len(extremes))]
		}
		return r.Int64() >> r.IntN(64)
	}
	var l seriesLog
	var want []Job
	for range 100_000 { // more than a chunk
		j := Job{JobFacts: store.JobFacts{SubmitNS: draw(), StartNS: draw(), EndNS: draw(), Processors: int(draw()),
			State: []string{Succeeded, Failed, Cancelled, NeverStarted}[r.IntN(4)]}}
		l.add(&j)
		if j.State == Succeeded || j.SubmitNS != 0 && j.StartNS != 0 && j.EndNS > j.StartNS {
			want = append(want, j)
		}
	}
	if len(l.chunks) < 2 {
		t.Fatalf("%d chunks: the test does not cross one", len(l.chunks))
	}
	i := 0
	l.replay(func(j *Job) {
		w := want[i]
		if j.StartNS != w.StartNS || j.EndNS != w.EndNS || j.Processors != w.Processors || (j.State == Succeeded) != (w.State == Succeeded) ||
			(j.SubmitNS != 0) != (w.SubmitNS != 0) || j.Started() != w.Started() {
			t.Fatalf("job %d: %+v, want %+v", i, j.JobFacts, w.JobFacts)
		}
		i++
	})
	if i != len(want) {
		t.Errorf("%d jobs replayed, want %d", i, len(want))
	}
}

// The pairs log gives back each pair's figures as figuresOf makes them:
// the nanoseconds in seconds, × f, whatever the nanoseconds.
func TestPairLogRoundTrip(t *testing.T) {
	r := rand.New(rand.NewPCG(4, 4))
	l := &pairLog{f: 7.5}
	var ws, rs []int64
	for range 60_000 {
		w, run := r.Int64()>>r.IntN(64)-r.Int64()>>r.IntN(64), r.Int64()>>r.IntN(64)
		ws, rs = append(ws, w), append(rs, run)
		l.add(w, run)
	}
	run, wait := l.decode()
	if len(run) != len(rs) || len(wait) != len(ws) {
		t.Fatalf("%d and %d pairs, want %d", len(run), len(wait), len(rs))
	}
	for i := range rs {
		if wait[i] != sec(ws[i])*7.5 || run[i] != sec(rs[i])*7.5 {
			t.Fatalf("pair %d: %v, %v; want %v, %v", i, wait[i], run[i], sec(ws[i])*7.5, sec(rs[i])*7.5)
		}
	}
}

// negativeJobs are jobs whose times are before 1970 (a hand-made store's):
// every time negative, none zero.
func negativeJobs() []store.Job {
	var out []store.Job
	for i, t := range []int64{-9e9, -5e9, -3e9, -2e9} {
		j := job(fmt.Sprintf("n%d", i), 1, 2, 3, store.Succeeded)
		j.ScheduledNS, j.SubmitNS, j.StartNS, j.EndNS = t, t+1, t+1e9, t+15e8
		out = append(out, j)
	}
	return out
}

// extremeJobs are jobs whose times span more than an int64 holds.
func extremeJobs() []store.Job {
	a, b := job("a", 1, 2, 3, store.Succeeded), job("b", 1, 2, 3, store.Succeeded)
	a.ScheduledNS, a.SubmitNS, a.StartNS, a.EndNS = math.MinInt64+5, math.MinInt64+10, 1, math.MaxInt64
	b.ScheduledNS, b.SubmitNS, b.StartNS, b.EndNS = 4, 5, 6, 7
	return []store.Job{a, b}
}
