package gwa

import (
	"math"
	"sort"
)

// Bags-of-tasks (thesis §4.4.2, after [Ios07d]): a batch submission with
// parameter Δ of user u is a maximal run of u's jobs, in submit order, in
// which each job is submitted at most Δ after the previous one. Runs of one
// job are not batches. Δ = 120 s by default, the thesis's choice.
//
// Extraction streams: one open batch per user, closed when the user's next
// job comes more than Δ later (or at the end of the trace).

// DefaultDelta is the thesis's Δ.
const DefaultDelta = 120.0

// Batch is one user's run of jobs with submit gaps <= Δ.
type Batch struct {
	User       string
	FirstJob   string  // job id of the seed (earliest job)
	LastJob    string  // job id of the last job
	Size       int     // jobs
	Start      float64 // the seed's submit time
	LastSubmit float64
	End        float64 // the last finish time (LFT): max of start + run time
	RunSum     float64 // over jobs with a known run time
	RunSumSq   float64
	RunN       int
	CPU        float64 // processor-seconds
}

// MeanRunTime is the batch's average task run time (ART).
func (b *Batch) MeanRunTime() float64 {
	if b.RunN == 0 {
		return 0
	}
	return b.RunSum / float64(b.RunN)
}

// RunTimeStd is the standard deviation of the batch's task run times (RTV).
func (b *Batch) RunTimeStd() float64 {
	if b.RunN < 2 {
		return 0
	}
	m := b.MeanRunTime()
	return math.Sqrt(math.Max(0, b.RunSumSq/float64(b.RunN)-m*m))
}

// BatchExtractor groups records into batches.
type BatchExtractor struct {
	delta float64
	open  map[string]*Batch
	emit  func(*Batch)
}

// NewBatchExtractor calls emit with every run of a user's jobs, batches and
// single jobs alike (Size 1), as each run closes. The *Batch is not reused.
func NewBatchExtractor(delta float64, emit func(*Batch)) *BatchExtractor {
	return &BatchExtractor{delta: delta, open: map[string]*Batch{}, emit: emit}
}

// Add puts one record into its user's open batch or starts a new one.
// Records without a user each make a run of their own.
func (x *BatchExtractor) Add(r *Record) {
	end := r.Start()
	if r.RunTime > 0 {
		end += r.RunTime
	}
	b := x.open[r.UserID]
	if b != nil && r.SubmitTime-b.LastSubmit <= x.delta && !missingString(r.UserID) {
		b.Size++
		b.LastSubmit = math.Max(b.LastSubmit, r.SubmitTime)
		b.LastJob = r.JobID
		b.End = math.Max(b.End, end)
	} else {
		if b != nil {
			x.emit(b)
		}
		b = &Batch{User: r.UserID, FirstJob: r.JobID, LastJob: r.JobID, Size: 1, Start: r.SubmitTime,
			LastSubmit: r.SubmitTime, End: end}
		if missingString(r.UserID) {
			delete(x.open, r.UserID)
			x.addRun(b, r)
			x.emit(b)
			return
		}
		x.open[r.UserID] = b
	}
	x.addRun(b, r)
}

func (x *BatchExtractor) addRun(b *Batch, r *Record) {
	if rt, ok := r.KnownRunTime(); ok {
		b.RunSum += rt
		b.RunSumSq += rt * rt
		b.RunN++
	}
	b.CPU += r.CPUTime()
}

// Close emits the open batches, in order of their start (then user).
func (x *BatchExtractor) Close() {
	bs := make([]*Batch, 0, len(x.open))
	for _, b := range x.open {
		bs = append(bs, b)
	}
	sort.Slice(bs, func(i, j int) bool {
		if bs[i].Start != bs[j].Start {
			return bs[i].Start < bs[j].Start
		}
		return bs[i].User < bs[j].User
	})
	for _, b := range bs {
		x.emit(b)
	}
	x.open = map[string]*Batch{}
}

// BoTSizeClasses are the thesis's nine batch-size classes.
var BoTSizeClasses = [9]struct{ Min, Max int }{
	{2, 4}, {5, 9}, {10, 19}, {20, 49}, {50, 99}, {100, 199}, {200, 499}, {500, 999}, {1000, math.MaxInt},
}

// SizeClass returns the index of a batch size's class, -1 for size < 2.
func SizeClass(size int) int {
	for i, c := range BoTSizeClasses {
		if size >= c.Min && size <= c.Max {
			return i
		}
	}
	return -1
}

// BoTStats are the batch statistics of a trace for one Δ.
type BoTStats struct {
	Delta        float64  `json:"delta"`
	Jobs         int64    `json:"jobs"`
	BatchedJobs  int64    `json:"batched_jobs"` // jobs in batches of 2 or more
	Batches      int64    `json:"batches"`
	JobShare     Stat     `json:"job_share"` // batched jobs / jobs
	CPUShare     Stat     `json:"cpu_share"` // their processor-seconds / all
	SizeClasses  [9]int64 `json:"size_classes"`
	Size         *Summary `json:"size"`
	InterArrival *Summary `json:"inter_arrival"` // between consecutive batches' seeds, s
	MeanRunTime  *Summary `json:"mean_run_time"` // ART per batch, s
	RunTimeStd   *Summary `json:"run_time_std"`  // RTV per batch, s
	Duration     *Summary `json:"duration"`      // seed submit to last finish, s
	MaxSize      int      `json:"max_size"`
}

// MarshalJSON adds the reasons of absent statistics (see Stat).
func (b BoTStats) MarshalJSON() ([]byte, error) {
	type plain BoTStats
	return withAbsent(plain(b))
}

// BoTAnalyzer collects BoTStats while records stream through it. It keeps
// one open batch per user and one start time (8 bytes) per batch, for the
// inter-arrival times between batches.
type BoTAnalyzer struct {
	x                        *BatchExtractor
	st                       BoTStats
	cpu, batchCPU            float64
	size, art, rtv, dur, iat Sketch
	starts                   []float64
	emitBatch                func(*Batch)
}

// NewBoTAnalyzer starts a bag-of-tasks analysis with Δ = delta; emit, when
// not nil, also receives every batch of 2 or more jobs.
func NewBoTAnalyzer(delta float64, emit func(*Batch)) *BoTAnalyzer {
	a := &BoTAnalyzer{emitBatch: emit}
	// Exact percentiles, as the analysis's: a few values per batch, within
	// the same budget (past it, a sketch's).
	budget := NewExactBudget(DefaultExactBudget)
	for _, s := range []*Sketch{&a.size, &a.art, &a.rtv, &a.dur, &a.iat} {
		s.useBudget(budget)
	}
	a.st.Delta = delta
	a.x = NewBatchExtractor(delta, a.batch)
	return a
}

func (a *BoTAnalyzer) batch(b *Batch) {
	if b.Size < 2 {
		return
	}
	a.st.Batches++
	a.st.BatchedJobs += int64(b.Size)
	a.batchCPU += b.CPU
	a.st.SizeClasses[SizeClass(b.Size)]++
	a.st.MaxSize = max(a.st.MaxSize, b.Size)
	a.size.Add(float64(b.Size))
	if b.RunN > 0 {
		a.art.Add(b.MeanRunTime())
		a.rtv.Add(b.RunTimeStd())
	}
	a.dur.Add(b.End - b.Start)
	a.starts = append(a.starts, b.Start)
	if a.emitBatch != nil {
		a.emitBatch(b)
	}
}

// Add adds one record.
func (a *BoTAnalyzer) Add(r *Record) {
	a.st.Jobs++
	a.cpu += r.CPUTime()
	a.x.Add(r)
}

// Result closes the open batches and returns the statistics.
func (a *BoTAnalyzer) Result() *BoTStats {
	a.x.Close()
	sort.Float64s(a.starts)
	for i := 1; i < len(a.starts); i++ {
		a.iat.Add(a.starts[i] - a.starts[i-1])
	}
	st := a.st
	st.JobShare = ratio(float64(st.BatchedJobs), float64(st.Jobs), whyNoJobs)
	st.CPUShare = ratio(a.batchCPU, a.cpu, whyNoCPU)
	st.Size, st.InterArrival = a.size.Summary(false), a.iat.Summary(false)
	st.MeanRunTime, st.RunTimeStd, st.Duration = a.art.Summary(false), a.rtv.Summary(false), a.dur.Summary(false)
	return &st
}

// AnalyzeBoTs reads r to the end and extracts its batches for each Δ.
func AnalyzeBoTs(r Reader, deltas []float64, emit func(*Batch)) ([]*BoTStats, error) {
	var as []*BoTAnalyzer
	for i, d := range deltas {
		e := emit
		if i > 0 {
			e = nil
		}
		as = append(as, NewBoTAnalyzer(d, e))
	}
	// A batch is a run of one user's jobs in submit order: of the set of
	// jobs, whatever the order of the lines.
	if _, err := ForEach(InSubmitOrder(r, 0), func(rec *Record) error {
		for _, a := range as {
			a.Add(rec)
		}
		return nil
	}); err != nil {
		return nil, err
	}
	var out []*BoTStats
	for _, a := range as {
		out = append(out, a.Result())
	}
	return out, nil
}
