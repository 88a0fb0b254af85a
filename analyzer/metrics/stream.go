package metrics

import (
	"cmp"
	"errors"
	"hash/maphash"
	"math"
	"slices"

	"github.com/gmark/gmark/analyzer/store"
)

// Stream reads a run and computes its metrics in one pass over its job
// rows, holding none of them: the numbers are Compute's over Load's
// RunData (the same operations in the same order), but the memory is that
// of the samples the exact statistics need (a float64 a job for each, see
// docs/performance.md), not of the jobs. The per-job series the regression
// gate resamples (Samples.JobSubmit … JobDelay) are not kept; Arrival is
// made instead.
//
// A run whose metrics need its jobs held is not streamed: ok is false, and
// the caller loads it (Load, Compute). Those are runs with composite jobs
// (their tasks are summed per job and their workflows read as graphs), a
// live run on the bundled core (its time scale is the median over the
// jobs), and a trace replay's warm start. rd has no Jobs.
func Stream(st *store.Store, runID string, lo LoadOptions, opts Options) (rd *RunData, m *RunMetrics, ok bool, err error) {
	rd, sha, err := loadHead(st, runID)
	if err != nil || rd.Target == "koala" || len(rd.warmSet()) > 0 {
		return nil, nil, false, err
	}
	span, err := st.ScanJobSpan(runID)
	if err != nil || span.Nested {
		// The rows say what is wrong with them when they are read one by
		// one (Load): the same error as before.
		return nil, nil, false, nil
	}
	rd.findProcessors(lo.Processors, st)
	var users map[string]string
	if !lo.NoUsers {
		users = rd.userMap(sha)
	}
	var facts *simFacts
	if rd.Target == "koala-sim" {
		if facts, err = rd.loadSimFacts(st, span.Rows); err != nil {
			return nil, nil, false, err
		}
	}
	rd.findJobScale(st)
	if err := rd.loadComponentStarts(st); err != nil {
		return nil, nil, false, err
	}
	c := baseComputation(rd, opts.withDefaults())
	c.m.Samples = newSamples(span.Rows, false)
	c.setInterval(span.FirstNS, span.LastNS, span.Ran)
	sv := &streamViews{facts: facts, arrival: newArrivalAcc(span.TopLevel), bd: newBreakdownAcc(rd, c.f)}
	if c.spans {
		sv.series = newSeriesAcc(c.t0, c.t1, c.opts.Bins, c.fs)
	}
	if facts != nil {
		sv.core = facts.metrics(rd, c.f)
	}
	c.sv = sv
	err = st.ScanJobs(runID, func(f *store.JobFacts) error {
		j := Job{JobFacts: *f, User: users[f.ID]}
		if j.Composite() || j.Parent != "" {
			return errNested
		}
		c.add(&j)
		return nil
	})
	switch {
	case errors.Is(err, errNested):
		return nil, nil, false, nil
	case err != nil:
		return nil, nil, false, err
	}
	// The interval of the aggregate query against the rows': they agree
	// unless SQL and Go read some value differently; Compute then.
	if t0, t1, ran := sv.t0, sv.t1, sv.ran; t0 != c.t0 || t1 != c.t1 || ran != c.ran || c.m.Samples.Jobs != span.TopLevel {
		return nil, nil, false, nil
	}
	m = c.finish()
	m.Samples.Arrival = sv.arrival.finish()
	return rd, m, true, nil
}

var errNested = errors.New("a composite job or a task")

// streamViews are the views Compute makes from rd.Jobs after the pass,
// made during it (Stream).
type streamViews struct {
	t0, t1    int64 // the interval as interval computes it, from the rows
	ran       bool
	series    *seriesAcc // nil when the run has no span
	bd        *breakdownAcc
	overheads []float64
	arrival   *arrivalAcc
	facts     *simFacts    // a simulated run's core figures; nil for other runs
	core      *CoreMetrics // their summary
}

// add gives a job to the views, as Compute's loops after the pass do.
func (sv *streamViews) add(c *computation, j *Job) {
	sv.ran = sv.ran || j.StartNS != 0 || j.EndNS != 0
	for _, t := range []int64{j.SubmitNS, j.ScheduledNS} {
		if t != 0 && (sv.t0 == 0 || t < sv.t0) {
			sv.t0 = t
		}
	}
	for _, t := range []int64{j.EndNS, j.StartNS, j.SubmitNS} {
		if t > sv.t1 {
			sv.t1 = t
		}
	}
	out := c.opts.leftOut(j)
	if sv.series != nil {
		sv.series.add(j, out)
	}
	var cj *CoreJob
	if sv.facts != nil {
		if p, ok := sv.facts.placement(j.ID); ok {
			cj = &CoreJob{Placement: p}
		}
	}
	sv.bd.add(j, cj, c.opts)
	sv.overheads = coallocOverhead(sv.overheads, c.rd, j, c.f, c.opts)
	if j.Parent == "" && !out {
		w, ok := Wait(j)
		sv.arrival.add(orNaN(w*c.f, ok))
	}
}

// shareWaits makes each job type's waits in the samples (WaitByType) its
// group's (the per-type table's), which hold the same values: one copy
// instead of two. A group with a row of its own sorts them
// (groupAcc.row): WaitByType's values are then in ascending order, not in
// the jobs' order.
func (sv *streamViews) shareWaits(c *computation) {
	for k, g := range c.groups.byType {
		if len(g.wait) > 0 {
			c.m.Samples.WaitByType[k] = g.wait
		}
	}
}

// finish sets the metrics made of the views.
func (sv *streamViews) finish(c *computation) {
	c.m.Breakdown = sv.bd.finish()
	c.m.Core = sv.core
	c.m.Coallocation = coallocationOf(c.rd, sv.overheads)
}

// ArrivalPoints is the most points of a run the figure of the wait in
// arrival order draws; a longer run is drawn through the means of K
// consecutive jobs.
const ArrivalPoints = 2000

// ArrivalWaits are the mean waits of consecutive top-level jobs, K at a
// time, in arrival order: Y[i] is the mean over the jobs that started of
// the K jobs from number X[i] (from 1); blocks of no started job are left
// out.
type ArrivalWaits struct {
	K    int
	X, Y []float64
}

// ArrivalWaits is the mean wait of consecutive top-level jobs: Arrival,
// or made from JobWait when the per-job series are kept.
func (s *Samples) ArrivalWaits() ArrivalWaits {
	if s.Arrival != nil {
		return *s.Arrival
	}
	a := newArrivalAcc(len(s.JobWait))
	for _, w := range s.JobWait {
		a.add(w)
	}
	return *a.finish()
}

// arrivalAcc makes ArrivalWaits one job at a time, of n jobs.
type arrivalAcc struct {
	a        ArrivalWaits
	i, start int // jobs seen; the first of the block
	sum      float64
	n        int
}

func newArrivalAcc(n int) *arrivalAcc {
	return &arrivalAcc{a: ArrivalWaits{K: max(1, (n+ArrivalPoints-1)/ArrivalPoints)}}
}

// add takes the next job's wait (NaN: it did not start).
func (a *arrivalAcc) add(w float64) {
	if a.i > a.start && a.i-a.start == a.a.K {
		a.flush()
		a.start = a.i
	}
	a.i++
	if !math.IsNaN(w) {
		a.sum, a.n = a.sum+w, a.n+1
	}
}

func (a *arrivalAcc) flush() {
	if a.n > 0 {
		a.a.X, a.a.Y = append(a.a.X, float64(a.start+1)), append(a.a.Y, a.sum/float64(a.n))
	}
	a.sum, a.n = 0, 0
}

func (a *arrivalAcc) finish() *ArrivalWaits {
	if a.i > a.start {
		a.flush()
	}
	return &a.a
}

// simFacts are the core's figures of each job of a simulated run, by a
// 128-bit hash of the job's id (two 64-bit maphashes), sorted: 56 bytes a
// job while they are summarized, then 24 (the placement time, for the
// breakdown), where a map by id took about 150.
type simFacts struct {
	seeds [2]maphash.Seed
	all   []simFact
	keys  []simPlacement
}

type simFact struct {
	h                                    [2]uint64
	placementNS, fttNS                   int64
	placementTries, claimTries, restarts int
}

type simPlacement struct {
	h [2]uint64
	p float64 // seconds
}

func (s *simFacts) hash(id string) [2]uint64 {
	return [2]uint64{maphash.String(s.seeds[0], id), maphash.String(s.seeds[1], id)}
}

func cmpHash(a, b [2]uint64) int {
	if c := cmp.Compare(a[0], b[0]); c != 0 {
		return c
	}
	return cmp.Compare(a[1], b[1])
}

// loadSimFacts reads the core's figures of each job as loadSimCore does
// (a job's last event with figures wins), and the core's annotations into
// rd.Koala (with no Jobs).
func (rd *RunData) loadSimFacts(st *store.Store, rows int) (*simFacts, error) {
	s := &simFacts{seeds: [2]maphash.Seed{maphash.MakeSeed(), maphash.MakeSeed()}, all: make([]simFact, 0, rows+rows/16)}
	err := st.ScanSimJobFacts(rd.ID, func(f store.SimJobFacts) error {
		s.all = append(s.all, simFact{h: s.hash(f.JobID), placementNS: f.PlacementNS, fttNS: f.FTTNS,
			placementTries: f.PlacementTries, claimTries: f.ClaimTries, restarts: f.Restarts})
		return nil
	})
	if err != nil {
		return nil, err
	}
	// The last of a job's events wins: sorted stably by hash, the last of
	// each run of equal hashes.
	slices.SortStableFunc(s.all, func(a, b simFact) int { return cmpHash(a.h, b.h) })
	k := 0
	for i := range s.all {
		if i+1 < len(s.all) && s.all[i+1].h == s.all[i].h {
			continue
		}
		s.all[k] = s.all[i]
		k++
	}
	s.all = slices.Clip(s.all[:k])
	k2 := &KoalaData{Simulated: true, TimeScale: 1}
	if err := rd.loadUtilization(st, k2); err != nil {
		return nil, err
	}
	if err := rd.loadDeadlines(st, k2); err != nil {
		return nil, err
	}
	rd.Koala = k2
	return s, nil
}

// metrics summarizes the figures (coreMetrics's, no job being left out:
// Stream takes no warm start) and keeps only the placement times.
func (s *simFacts) metrics(rd *RunData, f float64) *CoreMetrics {
	acc := newCoreAcc(rd, f)
	s.keys = make([]simPlacement, len(s.all))
	for i, x := range s.all {
		cj := CoreJob{Placement: sec(x.placementNS), Transfer: sec(x.fttNS), PlacementTries: x.placementTries,
			ClaimTries: x.claimTries, Restarts: x.restarts, Place: math.NaN(), Claim: math.NaN(), Hold: math.NaN()}
		acc.add("", &cj)
		s.keys[i] = simPlacement{h: x.h, p: cj.Placement}
	}
	s.all = nil
	return acc.finish()
}

// placement is the core's placement time of a job, seconds.
func (s *simFacts) placement(id string) (float64, bool) {
	h := s.hash(id)
	i, ok := slices.BinarySearchFunc(s.keys, h, func(e simPlacement, h [2]uint64) int { return cmpHash(e.h, h) })
	if !ok {
		return 0, false
	}
	return s.keys[i].p, true
}
