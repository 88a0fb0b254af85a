package report

import (
	"context"
	"fmt"
	"math"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/gmark/gmark/analyzer/metrics"
	"github.com/gmark/gmark/internal/names"
	"github.com/gmark/gmark/plots"
	"github.com/gmark/gmark/stats/sampstat"
	"gonum.org/v1/gonum/stat"
)

// DefaultCompareBy groups a comparison by run: each run on its own.
const DefaultCompareBy = "run"

// CompareOptions tune a comparison (gmark report --compare).
type CompareOptions struct {
	Options
	// By is the field that groups the runs (DefaultCompareBy when ""):
	// run, scenario, project, target, policy, revision, version, store,
	// seed, or any key of the runs' provenance (CompareFields).
	By string
	// DBs are the results stores; Runs the runs to compare (every run of
	// every store when empty; a run is taken from each store that holds it).
	DBs  []string
	Runs []string
	// Format is html (into Dir), text, json or csv.
	Format, Dir string
}

// CompareFormats are the formats of a comparison.
var CompareFormats = []string{"html", "text", "json", "csv"}

// Comparison is runs of one or several stores in groups, side by side.
type Comparison struct {
	By        string          `json:"by"`
	DBs       []string        `json:"dbs"`
	Generated time.Time       `json:"generated"`
	Command   []string        `json:"command,omitempty"`
	TauS      float64         `json:"tau_s"`
	Unit      string          `json:"unit"` // of the durations: "s", or "workload s"
	Metrics   []CompareMetric `json:"metrics"`
	Groups    []*CompareGroup `json:"groups"`
	Runs      []*CompareRun   `json:"runs"`
	Notes     []string        `json:"notes,omitempty"`
}

// CompareMetric is a metric of the comparison's tables.
type CompareMetric struct {
	Name  string `json:"name"`
	Title string `json:"title"`
	Unit  string `json:"unit,omitempty"`
	// Percent: the value is a fraction, shown as a percentage.
	Percent bool `json:"percent,omitempty"`
}

// CompareGroup is the runs that share a value of the field.
type CompareGroup struct {
	Key   string   `json:"key"`   // the field's value
	Color string   `json:"color"` // its colour in every figure, #rrggbb
	Runs  []string `json:"runs"`  // the names of its runs
	// Values are the group's metrics, in the order of Comparison.Metrics.
	Values []GroupValue `json:"values"`
}

// GroupValue is a metric of a group: with one run, the run's value (and
// for a mean or a median, its 95% confidence interval over the run's
// jobs); with several, the mean of the runs' values and its 95% Student t
// interval over the runs.
type GroupValue struct {
	Metric   string     `json:"metric"`
	Value    float64    `json:"value"`
	CI       [2]float64 `json:"ci"`
	CIMethod string     `json:"ci_method,omitempty"`
	Runs     int        `json:"runs"` // runs with a value
	Std      float64    `json:"std_over_runs"`
}

// CompareRun is one run of a comparison.
type CompareRun struct {
	Name  string `json:"name"` // its id, STORE:ID when another store has a run of that id
	DB    string `json:"db"`
	Group string `json:"group"`
	Seed  string `json:"seed,omitempty"` // the field "seed"
	// Workload is the SHA-256 of the workload the run submitted.
	Workload string  `json:"workload,omitempty"`
	Load     float64 `json:"load"` // the utilization (fraction), NaN when unknown
	Run      *Run    `json:"run"`
}

// compareMetric is a metric of the tables and how to read it.
type compareMetric struct {
	CompareMetric
	get func(*metrics.RunMetrics) float64
	ci  func(*metrics.RunMetrics) [2]float64 // the run's own interval, or nil
}

func compareMetrics() []compareMetric {
	type m = metrics.RunMetrics
	return []compareMetric{
		{CompareMetric{"jobs", "jobs", "", false}, func(r *m) float64 { return float64(r.Jobs.Submitted) }, nil},
		{CompareMetric{"success-rate", "success rate", "", true}, func(r *m) float64 { return r.SuccessRate }, nil},
		{CompareMetric{"mean-wait", "mean wait", "s", false}, func(r *m) float64 { return r.Wait.Mean }, func(r *m) [2]float64 { return r.Wait.MeanCI }},
		{CompareMetric{"p50-wait", "median wait", "s", false}, func(r *m) float64 { return r.Wait.P50 }, func(r *m) [2]float64 { return r.Wait.MedianCI }},
		{CompareMetric{"p95-wait", "p95 wait", "s", false}, func(r *m) float64 { return r.Wait.P95 }, nil},
		{CompareMetric{"mean-run", "mean run time", "s", false}, func(r *m) float64 { return r.Run.Mean }, func(r *m) [2]float64 { return r.Run.MeanCI }},
		{CompareMetric{"mean-response", "mean response", "s", false}, func(r *m) float64 { return r.Response.Mean }, func(r *m) [2]float64 { return r.Response.MeanCI }},
		{CompareMetric{"p50-response", "median response", "s", false}, func(r *m) float64 { return r.Response.P50 }, func(r *m) [2]float64 { return r.Response.MedianCI }},
		{CompareMetric{"mean-bsld", "mean bounded slowdown", "", false}, func(r *m) float64 { return r.BSlowdown.Mean }, func(r *m) [2]float64 { return r.BSlowdown.MeanCI }},
		{CompareMetric{"p95-bsld", "p95 bounded slowdown", "", false}, func(r *m) float64 { return r.BSlowdown.P95 }, nil},
		{CompareMetric{"makespan", "makespan", "s", false}, func(r *m) float64 { return r.Makespan }, nil},
		{CompareMetric{"throughput", "throughput", "jobs/h", false}, func(r *m) float64 { return r.Throughput }, nil},
		{CompareMetric{"utilization", "utilization", "", true}, func(r *m) float64 { return r.Utilization }, nil},
	}
}

// jobsCI is the interval method of a group of one run: the run's own.
const jobsCI = "the run's jobs (bootstrap or normal, as in its report)"

// BuildComparison reads the runs of the stores, groups them by the field
// and computes each group's metrics. Each run's metrics are those of its
// single-run report (Build), from the same code.
func BuildComparison(ctx context.Context, o CompareOptions) (*Comparison, error) {
	if o.By == "" {
		o.By = DefaultCompareBy
	}
	o.DBs = distinctPaths(o.DBs)
	sel, err := selectRuns(o.DBs, o.Runs)
	if err != nil {
		return nil, err
	}
	c := &Comparison{By: o.By, DBs: o.DBs, Generated: time.Now().UTC(), Command: CleanCommand(o.Command), TauS: metrics.DefaultTau.Seconds(), Unit: "s"}
	if o.Tau > 0 {
		c.TauS = o.Tau.Seconds()
	}
	opts := o.Options
	opts.Fidelity = false
	for _, db := range o.DBs {
		if len(sel[db]) == 0 {
			continue
		}
		rep, err := Build(ctx, db, sel[db], opts)
		if err != nil {
			return nil, err
		}
		for _, run := range rep.Runs {
			c.Runs = append(c.Runs, &CompareRun{Name: run.Metrics.RunID, DB: db, Run: run, Load: run.Metrics.Utilization})
		}
	}
	if err := c.group(); err != nil {
		return nil, err
	}
	return c, nil
}

// unknownField is the error of a --compare field no run records: the
// nearest fields the runs have ("did you mean"), and the common fields
// rather than every key of every run's provenance (some ninety of a run on
// the bundled core).
func (c *Comparison) unknownField(known map[string]bool) error {
	all := sortedKeys(known)
	msg := fmt.Sprintf("--compare %s: no run records %q", c.By, c.By)
	if near := names.Closest(c.By, all); len(near) > 0 {
		msg += fmt.Sprintf("; did you mean %s?", strings.Join(near, " or "))
	}
	var common []string
	for _, f := range CompareFields {
		if known[f] {
			common = append(common, f)
		}
	}
	return &StoreError{fmt.Sprintf("%s; fields the runs have: %s, and %s of their settings (docs/report.md)",
		msg, strings.Join(common, ", "), names.Count(len(all)-len(common), "other key"))}
}

// group names the runs, labels them, finds each one's group and computes
// the groups' values.
func (c *Comparison) group() error {
	ids := map[string]int{}
	for _, r := range c.Runs {
		ids[r.Name]++
	}
	known := map[string]bool{}
	found := false
	for i, r := range c.Runs {
		if ids[r.Name] > 1 {
			r.Name = r.DB + ":" + r.Name
		}
		r.Run.Label = r.Name
		fields := runFields(r)
		for k := range fields {
			known[k] = true
		}
		v, ok := fields[c.By]
		found = found || ok
		if !ok {
			v = "(none)"
		}
		r.Group = v
		r.Seed, r.Workload = fields["seed"], fields["workload"]
		if r.Run.Metrics.Clocks.Jobs == metrics.Workload && i == 0 {
			c.Unit = "workload s"
		}
	}
	if !found {
		return c.unknownField(known)
	}
	if c.By == "scenario" {
		c.scenarioKeys()
	}
	ms := compareMetrics()
	for _, m := range ms {
		c.Metrics = append(c.Metrics, m.CompareMetric)
	}
	byKey := map[string]*CompareGroup{}
	for _, r := range c.Runs {
		g := byKey[r.Group]
		if g == nil {
			g = &CompareGroup{Key: r.Group, Color: plots.Hex(len(c.Groups))}
			byKey[r.Group] = g
			c.Groups = append(c.Groups, g)
		}
		g.Runs = append(g.Runs, r.Name)
	}
	for _, g := range c.Groups {
		runs := c.groupRuns(g)
		for _, m := range ms {
			g.Values = append(g.Values, groupValue(m, runs))
		}
	}
	if len(c.Runs) > 0 {
		first := c.Runs[0].Run.Metrics
		for _, r := range c.Runs[1:] {
			if d := metrics.ClockDifference(first.Clocks, r.Run.Metrics.Clocks); d != "" {
				c.Notes = append(c.Notes, fmt.Sprintf("runs %s and %s are on different clocks (%s): those figures do not compare", c.Runs[0].Name, r.Name, d))
				break
			}
		}
	}
	c.notePlacement()
	return nil
}

// scenarioKeys names scenarios by project/scenario when the runs are of
// several projects, by their scenario alone otherwise.
func (c *Comparison) scenarioKeys() {
	projects := map[string]bool{}
	for _, r := range c.Runs {
		projects[r.Run.Metrics.Project] = true
	}
	if len(projects) > 1 {
		for _, r := range c.Runs {
			r.Group = r.Run.Metrics.Project + "/" + r.Run.Metrics.Scenario
		}
	}
}

// groupRuns are the metrics of g's runs, in the comparison's order.
func (c *Comparison) groupRuns(g *CompareGroup) []*metrics.RunMetrics {
	var out []*metrics.RunMetrics
	for _, r := range c.Runs {
		if r.Group == g.Key {
			out = append(out, r.Run.Metrics)
		}
	}
	return out
}

// Group is the group of the given key, or nil.
func (c *Comparison) Group(key string) *CompareGroup {
	for _, g := range c.Groups {
		if g.Key == key {
			return g
		}
	}
	return nil
}

// Value is the group's value of the named metric (NaN when unknown).
func (g *CompareGroup) Value(metric string) GroupValue {
	for _, v := range g.Values {
		if v.Metric == metric {
			return v
		}
	}
	return GroupValue{Metric: metric, Value: math.NaN(), CI: [2]float64{math.NaN(), math.NaN()}, Std: math.NaN()}
}

// groupValue is metric m over runs: one run's value and own interval, or
// the mean over the runs with a value and its t interval.
func groupValue(m compareMetric, runs []*metrics.RunMetrics) GroupValue {
	var vals []float64
	var one *metrics.RunMetrics
	for _, r := range runs {
		if v := m.get(r); !math.IsNaN(v) && !math.IsInf(v, 0) {
			vals = append(vals, v)
			one = r
		}
	}
	nan := math.NaN()
	gv := GroupValue{Metric: m.Name, Value: nan, CI: [2]float64{nan, nan}, Runs: len(vals), Std: nan}
	switch len(vals) {
	case 0:
		return gv
	case 1:
		gv.Value = vals[0]
		if m.ci != nil {
			if c := m.ci(one); !math.IsNaN(c[0]) {
				gv.CI, gv.CIMethod = c, jobsCI
			}
		}
		return gv
	}
	gv.Value, gv.Std, gv.CI = meanCI(vals)
	gv.CIMethod = fmt.Sprintf("Student t over %d runs", len(vals))
	return gv
}

// meanCI is the mean of x (two values or more), its sample standard
// deviation and the 95% Student t interval of the mean.
func meanCI(x []float64) (mean, std float64, ci [2]float64) {
	mean, std = stat.MeanStdDev(x, nil)
	return mean, std, sampstat.MeanCI(mean, std, len(x), 0.95)
}

// selectRuns are the runs to compare in each store: the named ones it
// holds, or all of them; a named run no store holds is an error.
func selectRuns(dbs, runs []string) (map[string][]string, error) {
	if len(dbs) == 0 {
		return nil, &StoreError{"no results store to compare"}
	}
	out := map[string][]string{}
	held := map[string]bool{}
	for _, db := range dbs {
		if err := CheckStore(db, nil, len(runs) == 0); err != nil {
			return nil, err
		}
		all, err := storeRuns(db)
		if err != nil {
			return nil, err
		}
		if len(runs) == 0 {
			out[db] = all
			continue
		}
		for _, r := range runs {
			if slices.Contains(all, r) {
				out[db] = append(out[db], r)
				held[r] = true
			}
		}
	}
	for _, r := range runs {
		if !held[r] {
			return nil, &StoreError{fmt.Sprintf("run %s is in none of the stores %s", r, strings.Join(dbs, ", "))}
		}
	}
	return out, nil
}

// distinctPaths is paths without the repeats of a file named twice (by the
// same path, or another path to it).
func distinctPaths(paths []string) []string {
	var out []string
	var seen []os.FileInfo
	for _, p := range paths {
		fi, err := os.Stat(p)
		if err == nil && slices.ContainsFunc(seen, func(s os.FileInfo) bool { return os.SameFile(s, fi) }) ||
			slices.Contains(out, p) {
			continue
		}
		if err == nil {
			seen = append(seen, fi)
		}
		out = append(out, p)
	}
	return out
}
