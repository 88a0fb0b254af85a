// Package gate is gmark's regression gate: it compares the metrics of new
// runs with those of baseline runs, metric by metric, knowing for each
// whether higher or lower is better, and calls a change a regression only
// when it is both statistically significant (so noise does not fail the
// gate) and larger than a threshold (so a significant but negligible change
// does not either). docs/report.md documents the tests.
package gate

import (
	"cmp"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/gmark/gmark/analyzer/metrics"
	"github.com/gmark/gmark/stats/sampstat"
	"gonum.org/v1/gonum/stat"
	"gonum.org/v1/gonum/stat/distuv"
)

// Direction says which way a metric improves.
type Direction int

// Directions.
const (
	LowerIsBetter Direction = iota
	HigherIsBetter
)

func (d Direction) String() string {
	if d == HigherIsBetter {
		return "higher"
	}
	return "lower"
}

// Kind is what a metric is computed from.
type Kind int

// Kinds of metric.
const (
	// Distribution: a statistic (mean or quantile) of per-job values.
	Distribution Kind = iota
	// Proportion: the share of jobs with a property.
	Proportion
	// RunLevel: a figure of the whole run (throughput, makespan).
	RunLevel
)

// Metric is a metric the gate knows.
type Metric struct {
	Name   string
	Doc    string
	Unit   string
	Better Direction
	Kind   Kind
	// Q is the quantile a Distribution metric is (0.5 for p50); 0 for a mean.
	Q float64
	// MinChange is the smallest absolute change that counts, whatever the
	// relative threshold says (a median wait going from 0 s to 0.2 s is an
	// infinite relative change and no regression).
	MinChange float64
	// value is a job's value (Distribution, Proportion: 1 or 0); NaN when
	// the job has none. Jobs are the top-level jobs of metrics.Samples.
	value func(s *metrics.Samples, i int) float64
	// runLevel computes a RunLevel metric from some of a run's jobs.
	runLevel func(s *metrics.Samples, idx []int) float64
}

func at(get func(*metrics.Samples) []float64) func(*metrics.Samples, int) float64 {
	return func(s *metrics.Samples, i int) float64 { return get(s)[i] }
}

var (
	wait     = at(func(s *metrics.Samples) []float64 { return s.JobWait })
	response = at(func(s *metrics.Samples) []float64 { return s.JobResponse })
	runTime  = at(func(s *metrics.Samples) []float64 { return s.JobRun })
	bsld     = at(func(s *metrics.Samples) []float64 { return s.JobBSld })
	delay    = at(func(s *metrics.Samples) []float64 { return s.JobDelay })
	goodput  = at(func(s *metrics.Samples) []float64 { return s.JobGoodput })
	// The workflow metrics: NaN for jobs that are no workflow, and for
	// every job of a run without composite jobs.
	workflowSlowdown = orNaN(func(s *metrics.Samples) []float64 { return s.JobWorkflowSlowdown })
	cpEfficiency     = orNaN(func(s *metrics.Samples) []float64 { return s.JobCPEfficiency })
)

func orNaN(get func(*metrics.Samples) []float64) func(*metrics.Samples, int) float64 {
	return func(s *metrics.Samples, i int) float64 {
		if v := get(s); i < len(v) {
			return v[i]
		}
		return math.NaN()
	}
}

func succeeded(s *metrics.Samples, i int) float64 {
	if s.JobOK[i] {
		return 1
	}
	return 0
}

// span is the time from the first submission to the last end of the jobs;
// NaN when none was submitted.
func span(s *metrics.Samples, idx []int) float64 {
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, i := range idx {
		if v := s.JobSubmit[i]; !math.IsNaN(v) {
			lo, hi = min(lo, v), max(hi, v)
		}
		if v := s.JobEnd[i]; !math.IsNaN(v) {
			hi = max(hi, v)
		}
	}
	if math.IsInf(lo, 1) {
		return math.NaN()
	}
	return hi - lo
}

// Metrics are the metrics the gate knows, by name.
var Metrics = func() map[string]*Metric {
	ms := []*Metric{
		{Name: "mean-wait", Doc: "mean wait time", Unit: "s", MinChange: 1, value: wait},
		{Name: "p50-wait", Doc: "median wait time", Unit: "s", Q: 0.5, MinChange: 1, value: wait},
		{Name: "p95-wait", Doc: "95th percentile of the wait time", Unit: "s", Q: 0.95, MinChange: 1, value: wait},
		{Name: "mean-response", Doc: "mean response time", Unit: "s", MinChange: 1, value: response},
		{Name: "p50-response", Doc: "median response time", Unit: "s", Q: 0.5, MinChange: 1, value: response},
		{Name: "p95-response", Doc: "95th percentile of the response time", Unit: "s", Q: 0.95, MinChange: 1, value: response},
		{Name: "mean-run", Doc: "mean run time", Unit: "s", MinChange: 1, value: runTime},
		{Name: "mean-bsld", Doc: "mean bounded slowdown", MinChange: 0.05, value: bsld},
		{Name: "p50-bsld", Doc: "median bounded slowdown", Q: 0.5, MinChange: 0.05, value: bsld},
		{Name: "p95-bsld", Doc: "95th percentile of the bounded slowdown", Q: 0.95, MinChange: 0.05, value: bsld},
		{Name: "mean-delay", Doc: "mean submission delay", Unit: "s", MinChange: 0.001, value: delay},
		{Name: "p99-delay", Doc: "99th percentile of the submission delay", Unit: "s", Q: 0.99, MinChange: 0.001, value: delay},
		{Name: "goodput", Doc: "processor-seconds of successful work per job", Unit: "processor-s", Better: HigherIsBetter, value: goodput},
		{Name: "success-rate", Doc: "successful jobs / submitted jobs", Better: HigherIsBetter, Kind: Proportion, MinChange: 0.001, value: succeeded},
		{Name: "throughput", Doc: "successful jobs per hour", Unit: "jobs/h", Better: HigherIsBetter, Kind: RunLevel,
			runLevel: func(s *metrics.Samples, idx []int) float64 {
				n := 0
				for _, i := range idx {
					if s.JobOK[i] {
						n++
					}
				}
				d := span(s, idx)
				if !(d > 0) { // no time (or no job submitted): no rate
					return math.NaN()
				}
				return float64(n) / (d / 3600)
			}},
		{Name: "makespan", Doc: "first submission to last end", Unit: "s", Kind: RunLevel, MinChange: 1, runLevel: span},
		{Name: "mean-workflow-slowdown", Doc: "mean slowdown of the workflows (composite jobs) against their critical paths", MinChange: 0.05, value: workflowSlowdown},
		{Name: "p95-workflow-slowdown", Doc: "95th percentile of the workflows' slowdown against their critical paths", Q: 0.95, MinChange: 0.05, value: workflowSlowdown},
		{Name: "mean-cp-efficiency", Doc: "mean critical-path efficiency of the workflows (critical path / response)", Better: HigherIsBetter, MinChange: 0.01, value: cpEfficiency},
	}
	m := map[string]*Metric{}
	for _, x := range ms {
		m[x.Name] = x
	}
	return m
}()

// Names lists the metrics the gate knows, sorted.
func Names() []string {
	var n []string
	for k := range Metrics {
		n = append(n, k)
	}
	slices.Sort(n)
	return n
}

// DefaultMetrics are compared when none are named: job-level metrics, which
// runs of the same scenario with different seeds share. (Throughput and
// makespan of an open workload follow its arrivals: compare them between
// runs of the same workload.)
var DefaultMetrics = []string{"mean-wait", "p50-wait", "p95-wait", "p50-response", "p95-bsld", "success-rate"}

// Tests.
const (
	// BlockBootstrap (the default) resamples blocks of consecutive jobs.
	BlockBootstrap = "block-bootstrap"
	// IID treats jobs as independent: Mann–Whitney U, Mood's quantile
	// test, the two-proportion z test, the bootstrap of the means.
	IID = "iid"
)

// Config tunes the comparison.
type Config struct {
	Metrics   []string // names (DefaultMetrics when empty)
	Threshold float64  // relative change that counts (0.05 when 0)
	Alpha     float64  // significance level (0.01 when 0)
	Test      string   // BlockBootstrap (default) or IID
	// Resamples of the bootstrap (1000 when 0; 200 when a side has more
	// than 20,000 jobs).
	Resamples int
	Seed      uint64 // of the bootstrap's generator
}

// Row is the comparison of one metric.
type Row struct {
	Metric   string  `json:"metric"`
	Unit     string  `json:"unit,omitempty"`
	Better   string  `json:"better"` // "lower" or "higher"
	Baseline float64 `json:"baseline"`
	New      float64 `json:"new"`
	Change   float64 `json:"change"`          // new − baseline
	Relative float64 `json:"relative_change"` // change / |baseline|
	Test     string  `json:"test"`
	Family   string  `json:"family"` // the Holm family: OutcomeFamily or PerformanceFamily
	P        float64 `json:"p"`      // one-sided p-value of "new is worse"
	PAdj     float64 `json:"p_holm"` // P adjusted for the metrics of its family (Holm–Bonferroni)
	// MinP is the smallest p-value the test could give for samples of
	// these sizes, whatever their values (an exact test's; 1/(B+1) for a
	// bootstrap of B resamples; 0 for a normal approximation); NaN when no
	// test was run.
	MinP        float64    `json:"min_p"`
	CI          [2]float64 `json:"diff_ci"`          // (1 − 2α) bootstrap interval of new − baseline
	Significant bool       `json:"significant"`      // new is worse at α over the metrics of its family (PAdj < α)
	Beyond      bool       `json:"beyond_threshold"` // the change is worse by more than the threshold
	Improved    bool       `json:"improved"`         // the change is better by more than the threshold
	Verdict     string     `json:"verdict"`          // ok, REGRESSION, INCONCLUSIVE, improved, untested
	Note        string     `json:"note,omitempty"`   // e.g. too few values for the test
	NBase       int        `json:"n_baseline"`       // values compared
	NNew        int        `json:"n_new"`

	powerless bool // no outcome of its test could be significant (holm)
}

// Result is the gate's outcome.
type Result struct {
	BaselineRuns []string `json:"baseline_runs"`
	NewRuns      []string `json:"new_runs"`
	Alpha        float64  `json:"alpha"`
	Threshold    float64  `json:"threshold"`
	Test         string   `json:"test"`
	Rows         []Row    `json:"rows"`
	Regressed    []string `json:"regressed"` // the metrics that regressed
	// Inconclusive are the metrics that changed for the worse beyond the
	// threshold on samples too small for any outcome of their test to be
	// significant: the gate cannot pass them, nor call them regressions.
	Inconclusive []string `json:"inconclusive"`
}

// Failed tells whether the gate fails: a metric regressed, or one changed
// for the worse on too few values to tell.
func (r *Result) Failed() bool { return len(r.Regressed) > 0 || len(r.Inconclusive) > 0 }

// Verdict is the gate's outcome in a line: what regressed, what it could
// not judge, or that nothing regressed.
func (r *Result) Verdict() string {
	var parts []string
	if len(r.Regressed) > 0 {
		parts = append(parts, "regression in "+strings.Join(r.Regressed, ", "))
	}
	if len(r.Inconclusive) > 0 {
		parts = append(parts, "too few values to judge "+strings.Join(r.Inconclusive, ", ")+" (worse beyond the threshold, and no outcome of an exact test of so few values is significant)")
	}
	if len(parts) == 0 {
		return "no significant regression"
	}
	return strings.Join(parts, "; ")
}

// The Holm families. The jobs' outcome (did they succeed) and their
// performance (how fast, how much) are two questions, each held at α: a
// failure folded into the adjustment over the performance metrics would
// take their number of times the evidence (5 of 5 jobs failing, against 5
// of 5 succeeding, has Fisher's p = 1/252, which six metrics' Holm factor
// makes 0.024).
const (
	OutcomeFamily     = "outcome"
	PerformanceFamily = "performance"
)

func (m *Metric) family() string {
	if m.Kind == Proportion {
		return OutcomeFamily
	}
	return PerformanceFamily
}

// SmallSample is the fewest values a side needs for the default tests
// (the block bootstrap, the normal approximations); with fewer, the gate
// runs exact tests.
const SmallSample = 10

// side is one side of the comparison: its runs, each with its top-level
// jobs in submission order.
type side struct {
	runs  []*metrics.Samples
	order [][]int
}

func newSide(runs []*metrics.RunMetrics) *side {
	s := &side{}
	for _, r := range runs {
		smp := &r.Samples
		idx := make([]int, len(smp.JobSubmit))
		for i := range idx {
			idx[i] = i
		}
		slices.SortStableFunc(idx, func(a, b int) int {
			x, y := smp.JobSubmit[a], smp.JobSubmit[b]
			switch {
			case math.IsNaN(x) && math.IsNaN(y):
				return 0
			case math.IsNaN(x):
				return 1
			case math.IsNaN(y):
				return -1
			}
			return cmp.Compare(x, y)
		})
		s.runs = append(s.runs, smp)
		s.order = append(s.order, idx)
	}
	return s
}

// values pools the defined values of the jobs idx[r] of every run r.
func (s *side) values(mt *Metric, idx [][]int) []float64 {
	var out []float64
	for r, smp := range s.runs {
		for _, i := range idx[r] {
			if v := mt.value(smp, i); !math.IsNaN(v) {
				out = append(out, v)
			}
		}
	}
	return out
}

// eval computes the metric over the jobs idx[r] of every run r.
func (s *side) eval(mt *Metric, idx [][]int) float64 {
	if mt.Kind == RunLevel { // the mean over the runs where it is defined
		t, n := 0.0, 0
		for r, smp := range s.runs {
			if v := mt.runLevel(smp, idx[r]); !math.IsNaN(v) {
				t += v
				n++
			}
		}
		if n == 0 {
			return math.NaN()
		}
		return t / float64(n)
	}
	v := s.values(mt, idx)
	if mt.Q > 0 {
		return quantileOf(v, mt.Q)
	}
	return stat.Mean(v, nil)
}

// resample draws, per run, a moving-block bootstrap sample of its jobs in
// submission order: ⌈n/L⌉ blocks of L = ⌈√n⌉ consecutive jobs, starting
// anywhere, cut to n jobs. Blocks keep the dependence between jobs that
// arrive together (a burst delays many at once), which resampling single
// jobs would break. With block = false, single jobs (L = 1).
func (s *side) resample(r *rand.Rand, block bool, buf [][]int) [][]int {
	for k, ord := range s.order {
		n := len(ord)
		out := buf[k][:0]
		if n == 0 {
			buf[k] = out
			continue
		}
		l := 1
		if block {
			l = blockLen(n)
		}
		for len(out) < n {
			start := r.IntN(n - l + 1)
			for j := start; j < start+l && len(out) < n; j++ {
				out = append(out, ord[j])
			}
		}
		buf[k] = out
	}
	return buf
}

func (s *side) size() int {
	n := 0
	for _, o := range s.order {
		n += len(o)
	}
	return n
}

// Compare compares new runs with baseline runs. Runs on each side are
// pooled: per-job values of every run together, run-level figures averaged
// over the runs.
func Compare(baseline, new []*metrics.RunMetrics, cfg Config) (*Result, error) {
	if len(baseline) == 0 || len(new) == 0 {
		return nil, fmt.Errorf("the gate needs at least one baseline run and one new run")
	}
	if cfg.Threshold == 0 {
		cfg.Threshold = 0.05
	}
	if cfg.Alpha == 0 {
		cfg.Alpha = 0.01
	}
	if cfg.Test == "" {
		cfg.Test = BlockBootstrap
	}
	if cfg.Test != BlockBootstrap && cfg.Test != IID {
		return nil, fmt.Errorf("unknown test %q (%s or %s)", cfg.Test, BlockBootstrap, IID)
	}
	names := cfg.Metrics
	if len(names) == 0 {
		names = DefaultMetrics
	}
	res := &Result{Alpha: cfg.Alpha, Threshold: cfg.Threshold, Test: cfg.Test, Regressed: []string{}, Inconclusive: []string{}}
	for _, m := range baseline {
		res.BaselineRuns = append(res.BaselineRuns, m.RunID)
	}
	for _, m := range new {
		res.NewRuns = append(res.NewRuns, m.RunID)
	}
	if err := CheckJobs(baseline, new); err != nil {
		return nil, err
	}
	if err := sameClocks(baseline, new, names); err != nil {
		return nil, err
	}
	b, n := newSide(baseline), newSide(new)
	for _, name := range names {
		mt, ok := Metrics[name]
		if !ok {
			return nil, fmt.Errorf("unknown metric %q (known: %s)", name, strings.Join(Names(), ", "))
		}
		res.Rows = append(res.Rows, compare(mt, b, n, cfg))
	}
	holm(res.Rows, cfg.Alpha)
	for i := range res.Rows {
		row := &res.Rows[i]
		switch {
		case row.Verdict == "untested":
		case row.Verdict == "REGRESSION": // the new runs lost the metric
			res.Regressed = append(res.Regressed, row.Metric)
		case row.Significant && row.Beyond:
			row.Verdict = "REGRESSION"
			res.Regressed = append(res.Regressed, row.Metric)
		case row.Beyond && row.powerless:
			row.Verdict = "INCONCLUSIVE"
			res.Inconclusive = append(res.Inconclusive, row.Metric)
		case row.Improved:
			row.Verdict = "improved"
		default:
			row.Verdict = "ok"
		}
	}
	return res, nil
}

// CheckJobs refuses a side whose runs have no jobs: there is nothing to
// compare (a submitter killed before its first submission).
func CheckJobs(baseline, new []*metrics.RunMetrics) error {
	for _, side := range []struct {
		what, why string
		runs      []*metrics.RunMetrics
	}{{"baseline", "nothing to compare against", baseline}, {"new", "nothing to compare", new}} {
		var ids []string
		jobs := 0
		for _, m := range side.runs {
			ids = append(ids, m.RunID)
			jobs += len(m.Samples.JobSubmit)
		}
		if jobs == 0 {
			return fmt.Errorf("the %s runs (%s) have no jobs: %s", side.what, strings.Join(ids, ", "), side.why)
		}
	}
	return nil
}

// holm decides significance with the Holm–Bonferroni procedure: the gate
// fails when any metric regresses, so the chance that noise fails it is
// kept at α over all the metrics compared, not α per metric. With p-values
// sorted ascending, the k-th (from 0) is significant when it and every
// smaller one is below α/(m − k). Row.PAdj is the adjusted p-value.
//
// Each family (OutcomeFamily, PerformanceFamily) is adjusted on its own. A
// row whose test could not be significant whatever the data (its MinP
// times its family's size is α or more), or that ran no test for lack of
// values, is powerless: a change for the worse there is inconclusive, not
// "ok".
func holm(rows []Row, alpha float64) {
	for _, fam := range []string{OutcomeFamily, PerformanceFamily} {
		idx := make([]int, 0, len(rows))
		for i := range rows {
			if rows[i].Family == fam && rows[i].Test != "none" && rows[i].Verdict != "untested" {
				idx = append(idx, i)
			}
		}
		slices.SortStableFunc(idx, func(a, b int) int { return cmp.Compare(rows[a].P, rows[b].P) })
		m := len(idx)
		adj := 0.0
		for k, i := range idx {
			adj = max(adj, min(1, float64(m-k)*rows[i].P))
			rows[i].PAdj = adj
			rows[i].Significant = adj < alpha
			rows[i].powerless = !(rows[i].MinP*float64(m) < alpha)
		}
	}
}

func compare(mt *Metric, b, n *side, cfg Config) Row {
	row := Row{Metric: mt.Name, Unit: mt.Unit, Better: mt.Better.String(), Family: mt.family(), P: 1, PAdj: 1, MinP: math.NaN(),
		CI: [2]float64{math.NaN(), math.NaN()}}
	worse := func(d float64) bool { // d = new − baseline
		if mt.Better == HigherIsBetter {
			return d < 0
		}
		return d > 0
	}
	row.Baseline, row.New = b.eval(mt, b.order), n.eval(mt, n.order)
	if mt.Kind == RunLevel {
		row.NBase, row.NNew = b.size(), n.size()
	} else {
		row.NBase, row.NNew = len(b.values(mt, b.order)), len(n.values(mt, n.order))
	}
	switch {
	case math.IsNaN(row.Baseline) && math.IsNaN(row.New):
		row.Verdict, row.Note, row.Test = "untested", "no values on either side", "none"
		return row
	case math.IsNaN(row.Baseline):
		row.Verdict, row.Note, row.Test = "untested", "the baseline runs have no value: nothing to compare with", "none"
		return row
	case math.IsNaN(row.New):
		// The baseline has the metric and the new runs lost it (no job
		// started, none ran to its end): a regression, whatever a test
		// would say.
		row.Verdict, row.Test = "REGRESSION", "none"
		row.Note = fmt.Sprintf("the new runs have no value (the baseline has %d)", row.NBase)
		return row
	case (row.NBase < SmallSample || row.NNew < SmallSample) && mt.Kind == RunLevel:
		// A run-level figure has one value a run: no exact test of it.
		row.Note, row.Test, row.powerless = fmt.Sprintf("fewer than %d jobs on a side: no exact test of a run-level figure", SmallSample), "none", true
	case row.NBase < SmallSample || row.NNew < SmallSample:
		var e sampstat.Exact
		row.Test, e = exactTest(mt, b.values(mt, b.order), n.values(mt, n.order), cfg.Seed)
		row.P, row.MinP = e.P, e.MinP
		row.Note = fmt.Sprintf("fewer than %d values on a side: exact test", SmallSample)
	case cfg.Test == IID && mt.Kind != RunLevel:
		var e sampstat.Exact
		row.Test, e = iidTest(mt, b.values(mt, b.order), n.values(mt, n.order))
		row.P, row.MinP = e.P, e.MinP
	default:
		row.Test = "moving-block bootstrap of the difference"
		if cfg.Test == IID {
			row.Test = "bootstrap of the difference"
		}
		row.CI, row.P, row.MinP = bootstrap(mt, b, n, cfg, worse)
	}
	row.Change = row.New - row.Baseline
	row.Relative = 0
	if row.Change != 0 {
		row.Relative = row.Change / math.Abs(row.Baseline)
	}
	big := math.Abs(row.Change) > max(cfg.Threshold*math.Abs(row.Baseline), mt.MinChange)
	row.Beyond = worse(row.Change) && big
	row.Improved = !worse(row.Change) && row.Change != 0 && big
	return row
}

// bootstrap resamples both sides (blocks of jobs, or single jobs for the
// iid test) and returns the (1 − 2α) percentile interval of new − baseline
// and the one-sided p-value of "new is worse": the share of resamples in
// which it is not, (k + 1)/(B + 1) (the bootstrap's achieved significance
// level).
func bootstrap(mt *Metric, b, n *side, cfg Config, worse func(float64) bool) (ci [2]float64, p, minP float64) {
	resamples := cfg.Resamples
	if resamples == 0 {
		resamples = 2000
		if b.size() > 20000 || n.size() > 20000 {
			resamples = 200
		}
	}
	r := rand.New(rand.NewPCG(cfg.Seed, 0x6a09e667f3bcc908))
	block := cfg.Test == BlockBootstrap
	bb, nb := make([][]int, len(b.order)), make([][]int, len(n.order))
	d := make([]float64, 0, resamples)
	notWorse := 0
	for range resamples {
		bb = b.resample(r, block, bb)
		nb = n.resample(r, block, nb)
		x := n.eval(mt, nb) - b.eval(mt, bb)
		if math.IsNaN(x) {
			x = 0
		}
		d = append(d, x)
		if !worse(x) {
			notWorse++
		}
	}
	slices.Sort(d)
	ci = [2]float64{sampstat.Quantile(d, cfg.Alpha), sampstat.Quantile(d, 1-cfg.Alpha)}
	if resamples >= minCountedResamples {
		return ci, float64(notWorse+1) / float64(resamples+1), 1 / float64(resamples+1)
	}
	// Too few resamples for a count: (k + 1)/(B + 1) is never below
	// 1/(B + 1), 0.005 for 200, which no Holm factor over a few metrics
	// brings below α. The differences of large samples are near normal:
	// p is the normal chance that the difference is not worse.
	mu, sd := stat.MeanStdDev(d, nil)
	switch {
	case sd > 0:
		z := mu / sd
		if mt.Better == HigherIsBetter {
			z = -z
		}
		return ci, distuv.UnitNormal.Survival(z), 0
	case worse(mu):
		return ci, 0, 0 // every resample worse by the same: the normal's limit
	}
	return ci, 1, 0
}

// minCountedResamples is the fewest resamples whose count gives the
// bootstrap's p-value; with fewer (200 beyond 20,000 jobs a side) it comes
// from the normal approximation of the resampled differences.
const minCountedResamples = 1000

// iidTest tests per-job values as independent: Mood's quantile test for a
// quantile and Fisher's exact test for a proportion (both exact at any
// size), the Mann–Whitney U test for a mean (a shift of the whole
// distribution).
func iidTest(mt *Metric, b, n []float64) (string, sampstat.Exact) {
	switch {
	case mt.Kind == Proportion:
		return "Fisher's exact test (one-sided)", fisherTest(b, n)
	case mt.Q > 0:
		return fmt.Sprintf("Mood's quantile test: share beyond the pooled p%g, Fisher's exact test", 100*mt.Q), quantileTest(b, n, mt.Q, mt.Better)
	}
	var mw sampstat.MannWhitney
	if mt.Better == HigherIsBetter {
		mw = sampstat.MannWhitneyGreater(n, b) // is the baseline larger (new smaller, worse)?
	} else {
		mw = sampstat.MannWhitneyGreater(b, n) // is new larger (worse)?
	}
	return "Mann–Whitney U (one-sided, normal approximation with ties)", sampstat.Exact{P: mw.P, MinP: 0}
}

// exactTest tests a side of fewer than SmallSample values exactly: Fisher's
// test for a proportion, Mood's quantile test with Fisher's for a quantile,
// and the permutation test of the means for a mean.
func exactTest(mt *Metric, b, n []float64, seed uint64) (string, sampstat.Exact) {
	switch {
	case mt.Kind == Proportion:
		return "Fisher's exact test (one-sided)", fisherTest(b, n)
	case mt.Q > 0:
		return fmt.Sprintf("Mood's quantile test: share beyond the pooled p%g, Fisher's exact test", 100*mt.Q), quantileTest(b, n, mt.Q, mt.Better)
	case mt.Better == HigherIsBetter:
		return "permutation test of the means (exact, one-sided)", sampstat.PermutationGreater(n, b, seed) // is the baseline's larger?
	}
	return "permutation test of the means (exact, one-sided)", sampstat.PermutationGreater(b, n, seed) // is the new one larger?
}

// fisherTest asks whether the new jobs succeed less often (values 1 or 0).
func fisherTest(b, n []float64) sampstat.Exact {
	kb, kn := 0, 0
	for _, v := range b {
		kb += int(v)
	}
	for _, v := range n {
		kn += int(v)
	}
	return sampstat.FisherLess(kb, len(b), kn, len(n))
}

// quantileTest is Mood's median test generalized to the q-quantile: the
// pooled sample's q-quantile c splits both samples, and Fisher's exact test
// asks whether the new sample has more values beyond c (above it when lower
// is better) than the baseline. Under the null hypothesis (the same
// q-quantile) both shares are 1 − q.
func quantileTest(b, n []float64, q float64, better Direction) sampstat.Exact {
	all := append(slices.Clone(b), n...)
	slices.Sort(all)
	c := sampstat.Quantile(all, q)
	beyond := func(v []float64) int {
		k := 0
		for _, x := range v {
			if better == LowerIsBetter && x > c || better == HigherIsBetter && x < c {
				k++
			}
		}
		return k
	}
	return sampstat.FisherLess(beyond(n), len(n), beyond(b), len(b))
}

// quantileOf is the type-7 quantile of v, which it reorders: two
// selections instead of a sort.
func quantileOf(v []float64, q float64) float64 {
	n := len(v)
	if n == 0 {
		return math.NaN()
	}
	h := float64(n-1) * q
	i := int(h)
	lo := selectK(v, i)
	if i+1 >= n || h == float64(i) {
		return lo
	}
	hi := v[i+1]
	for _, x := range v[i+1:] {
		hi = min(hi, x)
	}
	return lo + (h-float64(i))*(hi-lo)
}

// selectK reorders v so that v[k] is its k-th smallest value, everything
// before it no larger and everything after it no smaller (Hoare's
// quickselect, median-of-three pivots), and returns v[k].
func selectK(v []float64, k int) float64 {
	lo, hi := 0, len(v)-1
	for hi > lo {
		mid := lo + (hi-lo)/2
		if v[mid] < v[lo] {
			v[mid], v[lo] = v[lo], v[mid]
		}
		if v[hi] < v[lo] {
			v[hi], v[lo] = v[lo], v[hi]
		}
		if v[hi] < v[mid] {
			v[hi], v[mid] = v[mid], v[hi]
		}
		p := v[mid]
		i, j := lo, hi
		for i <= j {
			for v[i] < p {
				i++
			}
			for v[j] > p {
				j--
			}
			if i <= j {
				v[i], v[j] = v[j], v[i]
				i++
				j--
			}
		}
		switch {
		case k <= j:
			hi = j
		case k >= i:
			lo = i
		default:
			return v[k]
		}
	}
	return v[k]
}

// WriteText prints the comparison as a table and a verdict line.
func (r *Result) WriteText(w io.Writer) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintf(tw, "baseline: %s\nnew:      %s\n", strings.Join(r.BaselineRuns, ", "), strings.Join(r.NewRuns, ", "))
	fmt.Fprintf(tw, "a regression is a change for the worse beyond %.3g%% that is significant at α = %g over the metrics of its family, the jobs' outcome or their performance (%s test; exact tests below %d values a side; Holm–Bonferroni)\n\n",
		100*r.Threshold, r.Alpha, r.Test, SmallSample)
	fmt.Fprintln(tw, "metric\tbetter\tbaseline\tnew\tchange\tp\tp (Holm)\tverdict\t")
	for _, x := range r.Rows {
		rel := "–"
		switch {
		case math.IsNaN(x.Relative):
		case math.IsInf(x.Relative, 0) && proportion(x.Metric):
			rel = fmt.Sprintf("%+.1f points", 100*x.Change)
		case math.IsInf(x.Relative, 0):
			rel = fmt.Sprintf("%+.4g", x.Change)
		default:
			rel = fmt.Sprintf("%+.1f%%", 100*x.Relative)
		}
		p, pa := "–", "–"
		if x.Test != "none" {
			p, pa = fmt.Sprintf("%.2g", x.P), fmt.Sprintf("%.2g", x.PAdj)
		}
		v := x.Verdict
		if x.Note != "" {
			v += " (" + x.Note + ")"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t\n", x.Metric, x.Better, fmtRowVal(x, x.Baseline), fmtRowVal(x, x.New), rel, p, pa, v)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	var err error
	if len(r.Regressed) > 0 {
		_, err = fmt.Fprintf(w, "\nREGRESSION: %s\n", strings.Join(r.Regressed, ", "))
	}
	if len(r.Inconclusive) > 0 && err == nil {
		if len(r.Regressed) == 0 {
			_, err = fmt.Fprintln(w)
		}
		if err == nil {
			_, err = fmt.Fprintf(w, "INCONCLUSIVE: %s: worse beyond the threshold on too few values for any outcome of the test to be significant; give the gate more jobs (or runs)\n", strings.Join(r.Inconclusive, ", "))
		}
	}
	if !r.Failed() {
		_, err = fmt.Fprintln(w, "\nno significant regression")
	}
	return err
}

// proportion tells whether the metric of that name is a share of jobs
// (the success rate).
func proportion(metric string) bool {
	m, ok := Metrics[metric]
	return ok && m.Kind == Proportion
}

// fmtRowVal formats a value of the row's metric: a share of jobs as a
// percentage with one decimal, as the report prints the success rate
// ("100.0%", not "1"); any other value with its unit (fmtVal).
func fmtRowVal(x Row, v float64) string {
	if proportion(x.Metric) && !math.IsNaN(v) && !math.IsInf(v, 0) {
		return fmt.Sprintf("%.1f%%", 100*v)
	}
	return fmtVal(v, x.Unit)
}

func fmtVal(v float64, unit string) string {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return "–"
	}
	s := fmt.Sprintf("%.4g", v)
	if unit != "" {
		s += " " + unit
	}
	return s
}

// blockLen is the block length of the moving-block bootstrap: a tenth of the
// run, as in the batch-means method of simulation output analysis (ten
// batches), so that congestion episodes of many jobs stay within a block.
func blockLen(n int) int { return max(1, (n+9)/10) }

// NullReason says why a number of the row is undefined (NaN or infinite),
// by its JSON name, for the JSON form's list of nulls.
func (r *Row) NullReason(field string) string {
	switch field {
	case "baseline":
		return "the baseline runs have no value of " + r.Metric
	case "new":
		return "the new runs have no value of " + r.Metric
	case "change":
		return "a side has no value"
	case "relative_change":
		if r.Baseline == 0 {
			return "the baseline is 0: a relative change is infinite; see change"
		}
		return "a side has no value"
	case "diff_ci":
		return "no bootstrap was run (" + r.Test + ")"
	case "min_p":
		return "no test was run"
	}
	return ""
}

// ParseThreshold reads a threshold as a percentage ("5%") or a fraction
// ("0.05"), 0 or more.
func ParseThreshold(s string) (float64, error) {
	s = strings.TrimSpace(s)
	pc := strings.HasSuffix(s, "%")
	v, err := strconv.ParseFloat(strings.TrimSuffix(s, "%"), 64)
	if err != nil || !(v >= 0) || math.IsInf(v, 0) {
		return 0, fmt.Errorf("--threshold %q: want a percentage (5%%) or a fraction (0.05), 0 or more", s)
	}
	if pc {
		v /= 100
	}
	return v, nil
}

// sameClocks refuses to compare figures measured on different clocks
// (metrics.Clocks): job durations of the bundled core's emulated jobs in
// workload time against wall times of jobs compressed otherwise would be
// compared as one, and spans of schedules compressed differently too. The
// runs of a side must agree among themselves as well. The submission delay
// is always wall time; proportions have no clock.
func sameClocks(baseline, new []*metrics.RunMetrics, names []string) error {
	jobs, span := false, false
	for _, name := range names {
		if mt := Metrics[name]; mt != nil {
			jobs = jobs || mt.Kind == Distribution && !strings.HasSuffix(mt.Name, "-delay")
			span = span || mt.Kind == RunLevel
		}
	}
	all := append(slices.Clone(baseline), new...)
	for _, r := range all[1:] {
		if d := metrics.ClockDifferenceOf(all[0].Clocks, r.Clocks, jobs, span); d != "" {
			return fmt.Errorf("runs %s and %s are on different clocks (%s): the gate compares like with like; "+
				"compare runs compressed alike (one kind of target, one speedup), or leave those metrics out (--metrics)", all[0].RunID, r.RunID, d)
		}
	}
	return nil
}
