package metrics

import (
	"cmp"
	"encoding/binary"
	"errors"
	"hash/maphash"
	"math"
	"slices"

	"github.com/gmark/gmark/analyzer/store"
	"github.com/gmark/gmark/stats/sampstat"
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
	rows, err := st.CountJobs(runID)
	if err != nil {
		return nil, nil, false, err
	}
	if tasks, err := st.HasTasks(runID); err != nil || tasks {
		return nil, nil, false, err
	}
	rd.findProcessors(lo.Processors, st)
	var users map[string]string
	if !lo.NoUsers {
		users = rd.userMap(sha)
	}
	var facts *simFacts
	if rd.Target == "koala-sim" {
		var fit bool
		if facts, fit, err = rd.loadSimFacts(st, rows); err != nil || !fit {
			return nil, nil, false, err
		}
	}
	rd.findJobScale(st)
	if err := rd.loadComponentStarts(st); err != nil {
		return nil, nil, false, err
	}
	c := baseComputation(rd, opts.withDefaults())
	sv := &streamViews{facts: facts, arrival: newArrivalAcc(rows), bd: newBreakdownAcc(rd, c.f)}
	if facts != nil { // before the samples are made: its peak is then not theirs
		sv.core = facts.metrics(rd, c.f)
	}
	c.m.Samples = newSamples(rows, false)
	c.m.Samples.pairs = &pairLog{f: c.f}
	c.sv = sv
	err = st.ScanJobs(runID, func(f *store.JobFacts) error {
		j := Job{JobFacts: *f, User: users[f.ID]}
		if j.Composite() || j.Parent != "" {
			return errNested
		}
		if err := sv.add(c, &j); err != nil {
			return err
		}
		c.add(&j)
		return nil
	})
	switch {
	case errors.Is(err, errNested), errors.Is(err, errCollision):
		return nil, nil, false, nil
	case err != nil:
		return nil, nil, false, err
	}
	if c.m.Samples.Jobs != rows || !sv.finishPass(c) { // rows written meanwhile; a span beyond int64
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
	lastSub   int64 // the last submission, when hasSub
	hasSub    bool
	log       seriesLog  // what the series need of each job, binned once the interval is known
	series    *seriesAcc // nil when the run has no span
	bd        *breakdownAcc
	overheads []float64
	arrival   *arrivalAcc
	facts     *simFacts    // a simulated run's core figures; nil for other runs
	core      *CoreMetrics // their summary
}

// add gives a job to the views, as Compute's loops after the pass do.
func (sv *streamViews) add(c *computation, j *Job) error {
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
	if j.SubmitNS != 0 && j.Parent == "" && (!sv.hasSub || j.SubmitNS > sv.lastSub) {
		sv.lastSub, sv.hasSub = j.SubmitNS, true
	}
	out := c.opts.leftOut(j) // false: Stream takes no warm start
	sv.log.add(j)
	var cj *CoreJob
	if sv.facts != nil {
		p, ok, err := sv.facts.placement(j.ID)
		if err != nil {
			return err
		}
		if ok {
			cj = &CoreJob{Placement: p}
		}
	}
	sv.bd.add(j, cj, c.opts)
	sv.overheads = coallocOverhead(sv.overheads, c.rd, j, c.f, c.opts)
	if j.Parent == "" && !out {
		w, ok := Wait(j)
		sv.arrival.add(orNaN(w*c.f, ok))
	}
	return nil
}

// finishPass sets what needed the run's interval, known at the end of the
// pass: the interval, the series (the jobs binned in their order, as
// series bins them) and the last submission (addJob's, of the greatest
// submit time: seconds since the first are monotonic in it). false: a
// span beyond int64 (absurd times), left to Compute.
func (sv *streamViews) finishPass(c *computation) bool {
	c.setInterval(sv.t0, sv.t1, sv.ran)
	if sv.hasSub {
		d := sv.lastSub - c.t0
		if d < 0 {
			return false
		}
		c.m.Samples.LastSubmit = max(0, sec(d)*c.fs)
	}
	if c.spans {
		if sv.series = newSeriesAcc(c.t0, c.t1, c.opts.Bins, c.fs); sv.series != nil {
			sv.log.replay(func(j *Job) { sv.series.add(j, false) })
		}
	}
	sv.log = seriesLog{}
	return true
}

// seriesLog keeps what seriesAcc.add reads of each job that can count in
// the series (one that succeeded, or ran for some time), in chunks of
// varints: about 10 bytes a job, where the rows are 200. The times are
// deltas (wrapping: any int64 comes back as it was).
type seriesLog struct {
	chunks [][]byte
	prev   int64 // the last start logged
}

const seriesChunk = 256 << 10

func (l *seriesLog) add(j *Job) {
	submitted := j.SubmitNS != 0
	if j.State != Succeeded && !(submitted && j.StartNS != 0 && j.EndNS > j.StartNS) {
		return
	}
	if n := len(l.chunks); n == 0 || cap(l.chunks[n-1])-len(l.chunks[n-1]) < 1+3*binary.MaxVarintLen64 {
		l.chunks = append(l.chunks, make([]byte, 0, seriesChunk))
	}
	b := l.chunks[len(l.chunks)-1]
	var flags byte
	if j.State == Succeeded {
		flags |= 1
	}
	if submitted {
		flags |= 2
	}
	b = append(b, flags)
	b = binary.AppendVarint(b, j.StartNS-l.prev)
	b = binary.AppendVarint(b, j.EndNS-j.StartNS)
	b = binary.AppendVarint(b, int64(j.Processors))
	l.chunks[len(l.chunks)-1] = b
	l.prev = j.StartNS
}

// replay gives fn the jobs logged, in their order, with what the series
// read of them.
func (l *seriesLog) replay(fn func(j *Job)) {
	var j Job
	prev := int64(0)
	for _, b := range l.chunks {
		for len(b) > 0 {
			flags := b[0]
			b = b[1:]
			d, n := binary.Varint(b)
			b = b[n:]
			run, n := binary.Varint(b)
			b = b[n:]
			procs, n := binary.Varint(b)
			b = b[n:]
			j.StartNS = prev + d
			j.EndNS = j.StartNS + run
			j.Processors = int(procs)
			prev = j.StartNS
			j.State, j.SubmitNS = "", 0
			if flags&1 != 0 {
				j.State = Succeeded
			}
			if flags&2 != 0 {
				j.SubmitNS = 1 // seriesAcc reads only whether the job was submitted
			}
			fn(&j)
		}
	}
}

// pairLog keeps the wait and run time of each job that ran to its end,
// for the scatter plot, as the nanoseconds they are made of (varints,
// about 9 bytes a pair, where two float64 are 16): decode makes the
// figures as figuresOf makes them, seconds × f.
type pairLog struct {
	f      float64
	chunks [][]byte
	n      int
}

func (l *pairLog) add(waitNS, runNS int64) {
	if n := len(l.chunks); n == 0 || cap(l.chunks[n-1])-len(l.chunks[n-1]) < 2*binary.MaxVarintLen64 {
		l.chunks = append(l.chunks, make([]byte, 0, seriesChunk))
	}
	b := l.chunks[len(l.chunks)-1]
	b = binary.AppendVarint(b, waitNS)
	l.chunks[len(l.chunks)-1] = binary.AppendVarint(b, runNS)
	l.n++
}

func (l *pairLog) decode() (run, wait []float64) {
	run, wait = make([]float64, 0, l.n), make([]float64, 0, l.n)
	for _, b := range l.chunks {
		for len(b) > 0 {
			w, n := binary.Varint(b)
			b = b[n:]
			r, n := binary.Varint(b)
			b = b[n:]
			wait, run = append(wait, sec(w)*l.f), append(run, sec(r)*l.f)
		}
	}
	return run, wait
}

// shareWaits makes each job type's waits in the samples (WaitByType) its
// group's (the per-type table's), which hold the same values: one copy
// instead of two. A group with a row of its own sorts them
// (groupAcc.row): WaitByType's values are then in ascending order, not in
// the jobs' order.
func (sv *streamViews) shareWaits(c *computation) {
	for _, g := range c.groups.byUser {
		g.sharedWaits(c.m.Samples.Wait)
	}
	for k, g := range c.groups.byType {
		g.sharedWaits(c.m.Samples.Wait)
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
// hash of the job's id, sorted: 48 bytes a job while they are summarized,
// then 16 (a 64-bit hash and the placement time, for the breakdown),
// where a map by id took about 150. The hashes are maphash's, of a seed
// new in each process. Two ids of the facts with one 64-bit hash (told
// apart by a second) end the streaming (Load takes the run), and so does
// a key two job rows find (one of them is not the key's job); what is
// left is a job without facts whose hash is that of an event's job that
// has no row, about 10^-13 of a store with a million such pairs.
type simFacts struct {
	seeds   [2]maphash.Seed
	all     []simFact
	keys    []simPlacement
	buckets []int32  // buckets[b]: the first key whose hash's top bits are b or more
	found   []uint64 // a bit per key: a job row found it
}

type simFact struct {
	h                                    [2]uint64
	placementNS, fttNS                   int64
	seq                                  int32 // the event's place in the scan
	placementTries, claimTries, restarts int32
}

type simPlacement struct {
	h           uint64
	placementNS int64
}

// bucketBits is the top bits of a hash that index simFacts.buckets.
const bucketBits = 16

func (s *simFacts) hash(id string) [2]uint64 {
	return [2]uint64{idHash(s.seeds[0], id), idHash(s.seeds[1], id)}
}

// idHash hashes job ids (a variable: tests make it collide).
var idHash = maphash.String

func cmpHash(a, b [2]uint64) int {
	if c := cmp.Compare(a[0], b[0]); c != 0 {
		return c
	}
	return cmp.Compare(a[1], b[1])
}

// errCollision: two ids share a 64-bit hash (simFacts).
var errCollision = errors.New("two job ids of one hash")

// errBigFacts: a figure of the core, or the number of events, beyond
// what simFact holds (no store gmark writes has one); Load takes the run.
var errBigFacts = errors.New("a figure beyond 32 bits")

// loadSimFacts reads the core's figures of each job as loadSimCore does
// (a job's last event with figures wins), and the core's annotations into
// rd.Koala (with no Jobs). ok is false when they do not fit simFact.
func (rd *RunData) loadSimFacts(st *store.Store, rows int) (*simFacts, bool, error) {
	s := &simFacts{seeds: [2]maphash.Seed{maphash.MakeSeed(), maphash.MakeSeed()}, all: make([]simFact, 0, rows+rows/16)}
	small := func(v int) bool { return v >= math.MinInt32 && v <= math.MaxInt32 }
	err := st.ScanSimJobFacts(rd.ID, func(f store.SimJobFacts) error {
		if !small(f.PlacementTries) || !small(f.ClaimTries) || !small(f.Restarts) || len(s.all) == math.MaxInt32 {
			return errBigFacts
		}
		s.all = append(s.all, simFact{h: s.hash(f.JobID), placementNS: f.PlacementNS, fttNS: f.FTTNS, seq: int32(len(s.all)),
			placementTries: int32(f.PlacementTries), claimTries: int32(f.ClaimTries), restarts: int32(f.Restarts)})
		return nil
	})
	switch {
	case errors.Is(err, errBigFacts):
		return nil, false, nil
	case err != nil:
		return nil, false, err
	}
	// The last of a job's events wins: sorted by hash and then by the
	// events' order, the last of each run of equal hashes.
	slices.SortFunc(s.all, func(a, b simFact) int { return cmp.Or(cmpHash(a.h, b.h), cmp.Compare(a.seq, b.seq)) })
	k := 0
	for i := range s.all {
		if i+1 < len(s.all) && s.all[i+1].h == s.all[i].h {
			continue
		}
		s.all[k] = s.all[i]
		k++
	}
	s.all = s.all[:k]
	for i := 1; i < len(s.all); i++ {
		if s.all[i].h[0] == s.all[i-1].h[0] {
			return nil, false, nil // two ids (their second hashes differ) of one hash
		}
	}
	k2 := &KoalaData{Simulated: true, TimeScale: 1}
	if err := rd.loadUtilization(st, k2); err != nil {
		return nil, false, err
	}
	if err := rd.loadDeadlines(st, k2); err != nil {
		return nil, false, err
	}
	rd.Koala = k2
	return s, true, nil
}

// metrics summarizes the figures as coreMetrics does (no job is left
// out: Stream takes no warm start), one sample at a time (8 bytes a job,
// not 24), and keeps only the placement times.
func (s *simFacts) metrics(rd *RunData, f float64) *CoreMetrics {
	acc := newCoreAcc(rd, f)
	for _, x := range s.all { // the counts, as coreAcc.add
		acc.c.Jobs++
		acc.c.PlacementTries += int(x.placementTries)
		acc.c.Restarts += int(x.restarts)
	}
	sample := func(v func(x *simFact) float64) []float64 {
		out := make([]float64, len(s.all))
		for i := range s.all {
			out[i] = v(&s.all[i])
		}
		return out
	}
	// CoreJob's figures, scaled as coreAcc.add scales them; a placement
	// is never NaN (sec of a whole number).
	acc.c.Placement = sampstat.Summarize(sample(func(x *simFact) float64 { return sec(x.placementNS) * f }))
	acc.c.Transfer = sampstat.Summarize(sample(func(x *simFact) float64 { return sec(x.fttNS) * f }))
	acc.c.ClaimTries = sampstat.Summarize(sample(func(x *simFact) float64 { return float64(int(x.claimTries)) }))
	acc.summarized = true
	c := acc.finish()
	s.keys = make([]simPlacement, len(s.all))
	s.buckets = make([]int32, 1<<bucketBits+1)
	b := 0
	for i, x := range s.all {
		s.keys[i] = simPlacement{h: x.h[0], placementNS: x.placementNS}
		for ; b <= int(x.h[0]>>(64-bucketBits)); b++ {
			s.buckets[b] = int32(i)
		}
	}
	for ; b < len(s.buckets); b++ {
		s.buckets[b] = int32(len(s.all))
	}
	s.found = make([]uint64, (len(s.all)+63)/64)
	s.all = nil
	return c
}

// placement is the core's placement time of a job, seconds (loadSimCore's
// CoreJob.Placement); errCollision when another job row found its key.
func (s *simFacts) placement(id string) (float64, bool, error) {
	h := idHash(s.seeds[0], id)
	b := h >> (64 - bucketBits)
	lo, hi := s.buckets[b], s.buckets[b+1]
	i, ok := slices.BinarySearchFunc(s.keys[lo:hi], h, func(e simPlacement, h uint64) int { return cmp.Compare(e.h, h) })
	if !ok {
		return 0, false, nil
	}
	i += int(lo)
	if s.found[i/64]&(1<<(i%64)) != 0 {
		return 0, false, errCollision
	}
	s.found[i/64] |= 1 << (i % 64)
	return sec(s.keys[i].placementNS), true, nil
}
