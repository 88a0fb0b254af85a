package experiment

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/gmark/gmark/analyzer/store"
	"github.com/gmark/gmark/plots"
	"github.com/gmark/gmark/record"
	"github.com/gmark/gmark/sim"
)

// Report is the standard metrics of experiments, per run and aggregated
// over repetitions (DGSim's "standard analysis"): what `gmark sim report`
// prints. It holds only what the runs computed (no wall times, no dates),
// so the report of an experiment run in one go and that of one killed and
// continued are the same, byte for byte.
type Report struct {
	Experiments []ExperimentReport `json:"experiments"`
}

// ExperimentReport is one experiment's (its latest definition's) report.
type ExperimentReport struct {
	Name        string      `json:"name"`
	Digest      string      `json:"digest"`
	Topology    string      `json:"topology"`
	Processors  int         `json:"processors"`
	Seed        uint64      `json:"seed"`
	Scale       float64     `json:"scale"`
	Planned     int         `json:"planned_runs"`
	Finished    int         `json:"finished_runs"`
	Builds      []string    `json:"builds"` // the gmark builds that computed the results
	Runs        []RunRow    `json:"runs"`
	Aggregates  []Aggregate `json:"aggregates"`
	Definitions int         `json:"definitions"` // how many definitions of this name the store holds

	Plot       *PlotAxis            `json:"plot,omitempty"`       // the file's [plot]: figures against the scenarios' own x
	Placements map[string]Placement `json:"placements,omitempty"` // by scenario: where it goes on them
}

// RunRow is a planned run and, when it finished, its metrics.
type RunRow struct {
	Index    int              `json:"index"`
	Scenario string           `json:"scenario"`
	Arch     string           `json:"arch"`
	Load     float64          `json:"load_percent"`
	Rep      int              `json:"repetition"`
	Seed     uint64           `json:"seed"`
	Digest   string           `json:"digest"`
	Metrics  *Metrics         `json:"metrics,omitempty"` // nil: not finished
	Workload *WorkloadSummary `json:"workload,omitempty"`
	Series   *Series          `json:"series,omitempty"` // nil: not finished, or recorded before series were (store schema 5)
}

// Metrics are a run's standard metrics (docs/sim.md): times in seconds,
// goodput in CPU-years, JF in percent.
type Metrics struct {
	Jobs              int              `json:"jobs"`
	Finished          int              `json:"finished"`
	Utilization       float64          `json:"utilization"`
	AWT               float64          `json:"awt_s"`
	ART               float64          `json:"art_s"`
	ASD               float64          `json:"asd"`
	ASDTau            float64          `json:"asd_tau_s"`
	Goodput           float64          `json:"goodput_cpu_years"`
	GoodputBy         [4]float64       `json:"goodput_by_relation_cpu_years"` // local, intra-site, intra-grid, inter-grid
	JF                float64          `json:"jf_percent"`
	DelegationsPerJob float64          `json:"delegations_per_job"`
	HopsPerDelegated  float64          `json:"hops_per_delegated"` // delegation hops per job delegated (DMM)
	Messages          map[string]int64 `json:"messages"`
	WorkloadMessages  int64            `json:"workload_management_messages"`
	End               float64          `json:"end_s"`
	// Restarts are runs killed by failures (outages, the failure model)
	// or expired leases; Wasted the processor time they had used.
	Restarts int     `json:"restarts"`
	Wasted   float64 `json:"wasted_cpu_years"`
	// Deadlines are Ballier et al.'s figures, from central's core model
	// when its jobs have start deadlines or its grid local workloads.
	Deadlines *record.CoreDeadlines `json:"deadlines,omitempty"`

	// DMM's delegation attempts and offers per arrived job (sim.Result's
	// AttemptsPerJob, OffersPerJob): what "delegations per job" can count
	// besides the accepted hops (DelegationsPerJob).
	AttemptsPerJob float64 `json:"attempts_per_job,omitempty"`
	OffersPerJob   float64 `json:"offers_per_job,omitempty"`

	// Workflows are the composite jobs' figures (workflows.go).
	Workflows *WorkflowMetrics `json:"workflows,omitempty"`
}

// Aggregate is a (scenario, architecture, load) over its finished
// repetitions: each metric's mean, sample standard deviation, least and
// greatest.
type Aggregate struct {
	Scenario string          `json:"scenario"`
	Arch     string          `json:"arch"`
	Load     float64         `json:"load_percent"`
	Runs     int             `json:"runs"` // finished repetitions
	Planned  int             `json:"planned"`
	Stats    map[string]Stat `json:"stats"`
	Series   *Series         `json:"series,omitempty"` // the mean over the finished repetitions with a series
}

// Stat summarizes a metric over repetitions.
type Stat struct {
	Mean float64 `json:"mean"`
	SD   float64 `json:"sd"` // 0 for one repetition
	Min  float64 `json:"min"`
	Max  float64 `json:"max"`
}

// metric is a column of the aggregated tables: its key, its label, how a
// run's value is read, and the values it can take (the figures cut their
// intervals there).
type metric struct {
	key, label string
	get        func(*Metrics) float64
	domain     plots.Domain
}

// slowdownDomain is the bounded slowdown's: max(1, …), so at least 1.
var slowdownDomain = plots.Domain{Lo: 1, Hi: math.Inf(1)}

// metrics are the aggregated metrics, in the order the tables show them.
var metrics = []metric{
	{"utilization", "U", func(m *Metrics) float64 { return m.Utilization }, plots.Fraction},
	{"awt_s", "AWT (s)", func(m *Metrics) float64 { return m.AWT }, plots.NonNegative},
	{"art_s", "ART (s)", func(m *Metrics) float64 { return m.ART }, plots.NonNegative},
	{"asd", "ASD", func(m *Metrics) float64 { return m.ASD }, slowdownDomain},
	{"goodput_cpu_years", "goodput (CPU-y)", func(m *Metrics) float64 { return m.Goodput }, plots.NonNegative},
	{"jf_percent", "JF %", func(m *Metrics) float64 { return m.JF }, plots.Percent},
	{"delegations_per_job", "deleg./job", func(m *Metrics) float64 { return m.DelegationsPerJob }, plots.NonNegative},
	{"hops_per_delegated", "hops/deleg.", func(m *Metrics) float64 { return m.HopsPerDelegated }, plots.NonNegative},
	{"attempts_per_job", "attempts/job", func(m *Metrics) float64 { return m.AttemptsPerJob }, plots.NonNegative},
	{"offers_per_job", "offers/job", func(m *Metrics) float64 { return m.OffersPerJob }, plots.NonNegative},
	{"workload_management_messages", "WM msgs", func(m *Metrics) float64 { return float64(m.WorkloadMessages) }, plots.NonNegative},
	{"restarts", "restarts", func(m *Metrics) float64 { return float64(m.Restarts) }, plots.NonNegative},
	{"wasted_cpu_years", "wasted (CPU-y)", func(m *Metrics) float64 { return m.Wasted }, plots.NonNegative},
}

func init() {
	for _, name := range sim.MsgTypeNames() {
		metrics = append(metrics, metric{"messages." + name, name, func(m *Metrics) float64 { return float64(m.Messages[name]) }, plots.NonNegative})
	}
}

// ErrNoExperiment is returned for an experiment the store does not hold.
var ErrNoExperiment = errors.New("no such experiment")

// BuildReport reads the report of the named experiment (its latest
// definition), or of every experiment of the store (names nil).
func BuildReport(st *store.Store, names []string) (*Report, error) {
	all, err := st.SimExperiments()
	if errors.Is(err, store.ErrSimUnsupported) {
		all, err = nil, nil
	}
	if err != nil {
		return nil, err
	}
	latest := map[string]store.SimExperiment{}
	count := map[string]int{}
	var order []string
	for _, e := range all {
		if _, ok := latest[e.Name]; !ok {
			order = append(order, e.Name)
		}
		latest[e.Name] = e
		count[e.Name]++
	}
	if names == nil {
		names = order
	}
	rep := &Report{Experiments: []ExperimentReport{}}
	for _, n := range names {
		e, ok := latest[n]
		if !ok {
			return nil, fmt.Errorf("%w %q in %s (experiments: %s)", ErrNoExperiment, n, st.Path(), strings.Join(orNone(order), ", "))
		}
		er, err := experimentReport(st, e)
		if err != nil {
			return nil, err
		}
		er.Definitions = count[n]
		rep.Experiments = append(rep.Experiments, *er)
	}
	return rep, nil
}

func orNone(names []string) []string {
	if len(names) == 0 {
		return []string{"none"}
	}
	return names
}

func experimentReport(st *store.Store, e store.SimExperiment) (*ExperimentReport, error) {
	var def struct {
		Seed     uint64    `json:"seed"`
		Scale    float64   `json:"scale"`
		Topology string    `json:"topology"`
		Plot     *PlotAxis `json:"plot"`
	}
	if err := json.Unmarshal([]byte(e.Definition), &def); err != nil {
		return nil, fmt.Errorf("experiment %s: its definition: %v", e.Name, err)
	}
	er := &ExperimentReport{Name: e.Name, Digest: e.Digest, Topology: def.Topology, Seed: def.Seed, Scale: def.Scale, Planned: e.Runs,
		Builds: []string{}, Runs: []RunRow{}, Aggregates: []Aggregate{}, Plot: def.Plot}
	scenarios, err := st.SimScenarios(e.ID)
	if err != nil {
		return nil, err
	}
	scName := map[int64]string{}
	for _, s := range scenarios {
		scName[s.ID] = s.Name
		var sd struct {
			Plot *Placement `json:"plot"`
		}
		if err := json.Unmarshal([]byte(s.Definition), &sd); err != nil {
			return nil, fmt.Errorf("experiment %s, scenario %s: its definition: %v", e.Name, s.Name, err)
		}
		if sd.Plot != nil && def.Plot != nil {
			if er.Placements == nil {
				er.Placements = map[string]Placement{}
			}
			er.Placements[s.Name] = *sd.Plot
		}
	}
	runs, err := st.SimRuns(e.ID)
	if err != nil {
		return nil, err
	}
	results, err := st.SimResults(e.ID)
	if err != nil {
		return nil, err
	}
	for _, r := range runs {
		row := RunRow{Index: r.Index, Scenario: scName[r.ScenarioID], Arch: r.Arch, Load: r.Load, Rep: r.Rep, Seed: r.Seed, Digest: r.Digest}
		if res, ok := results[r.Digest]; ok {
			m, wl, procs, err := metricsOf(res)
			if err != nil {
				return nil, fmt.Errorf("experiment %s, run %d: %v", e.Name, r.Index+1, err)
			}
			row.Metrics, row.Workload, er.Processors = m, wl, procs
			row.Series = seriesOf(res.Series)
			er.Finished++
		}
		er.Runs = append(er.Runs, row)
	}
	er.Aggregates = aggregate(er.Runs)
	if er.Builds, err = builds(st, e.ID); err != nil {
		return nil, err
	}
	return er, nil
}

// metricsOf reads a stored result.
func metricsOf(r store.SimResult) (*Metrics, *WorkloadSummary, int, error) {
	var res sim.Result
	if err := json.Unmarshal([]byte(r.Result), &res); err != nil {
		return nil, nil, 0, fmt.Errorf("its result: %v", err)
	}
	var wl WorkloadSummary
	if err := json.Unmarshal([]byte(r.Workload), &wl); err != nil {
		return nil, nil, 0, fmt.Errorf("its workload: %v", err)
	}
	m := &Metrics{Jobs: res.Jobs, Finished: res.Finished, Utilization: res.Utilization, AWT: res.AWT, ART: res.ART, ASD: res.ASD,
		ASDTau: res.SlowdownTau, Goodput: res.Goodput, GoodputBy: res.GoodputBy, JF: res.JF, DelegationsPerJob: res.DelegationsPerJob,
		HopsPerDelegated: res.HopsPerDelegated, Messages: map[string]int64{}, WorkloadMessages: res.Messages.WorkloadManagement(), End: res.End,
		Deadlines: res.Deadlines, Restarts: res.Restarts, Wasted: res.Wasted, AttemptsPerJob: res.AttemptsPerJob, OffersPerJob: res.OffersPerJob,
		Workflows: workflowMetricsOf(res.Workflows)}
	for _, msg := range r.Messages {
		m.Messages[msg.Type] = msg.Count
	}
	return m, &wl, res.Processors, nil
}

// addStats sets each metric's statistics over the runs ms.
func addStats(stats map[string]Stat, list []metric, ms []*Metrics) {
	for _, mt := range list {
		v := make([]float64, len(ms))
		for i, m := range ms {
			v[i] = mt.get(m)
		}
		stats[mt.key] = statOf(v)
	}
}

// aggregate groups the finished runs by (scenario, architecture, load), in
// the order of the runs.
func aggregate(runs []RunRow) []Aggregate {
	type key struct {
		scenario, arch string
		load           float64
	}
	index := map[key]int{}
	var out []Aggregate
	samples := map[key][]*Metrics{}
	series := map[key][]*Series{}
	for i := range runs {
		r := &runs[i]
		k := key{r.Scenario, r.Arch, r.Load}
		if _, ok := index[k]; !ok {
			index[k] = len(out)
			out = append(out, Aggregate{Scenario: r.Scenario, Arch: r.Arch, Load: r.Load, Stats: map[string]Stat{}})
		}
		a := &out[index[k]]
		a.Planned++
		if r.Metrics != nil {
			a.Runs++
			samples[k] = append(samples[k], r.Metrics)
			series[k] = append(series[k], r.Series)
		}
	}
	for k, ms := range samples {
		a := &out[index[k]]
		addStats(a.Stats, metrics, ms)
		if allDeadlines(ms) {
			addStats(a.Stats, deadlineMetrics, ms)
		}
		if allWorkflows(ms) {
			addStats(a.Stats, workflowMetrics, ms)
		}
		a.Series = meanSeries(series[k])
	}
	return out
}

// statOf is the mean (summed in order: the same runs give the same bits),
// sample standard deviation, least and greatest of v.
func statOf(v []float64) Stat {
	s := Stat{Min: math.Inf(1), Max: math.Inf(-1)}
	for _, x := range v {
		s.Mean += x
		s.Min, s.Max = math.Min(s.Min, x), math.Max(s.Max, x)
	}
	s.Mean /= float64(len(v))
	if len(v) > 1 {
		ss := 0.0
		for _, x := range v {
			ss += (x - s.Mean) * (x - s.Mean)
		}
		s.SD = math.Sqrt(ss / float64(len(v)-1))
	}
	return s
}

// builds names the gmark builds that computed an experiment's results.
func builds(st *store.Store, experimentID int64) ([]string, error) {
	invs, err := st.SimInvocations(experimentID)
	if err != nil {
		return nil, err
	}
	results, err := st.SimResults(experimentID)
	if err != nil {
		return nil, err
	}
	wrote := map[int64]bool{}
	for _, r := range results {
		wrote[r.InvocationID] = true
	}
	out := []string{}
	for _, v := range invs {
		if !wrote[v.ID] {
			continue
		}
		b := v.GmarkVersion
		if v.GmarkRevision != "" {
			b += " " + v.GmarkRevision
			if v.GmarkModified != nil && *v.GmarkModified {
				b += " (modified)"
			}
		}
		if !slices.Contains(out, b) {
			out = append(out, b)
		}
	}
	slices.Sort(out)
	return out, nil
}

// WriteJSON writes the report as indented JSON, each array of numbers on
// one line (the series have hundreds of bins: one number a line made the
// report ten times longer).
func (r *Report) WriteJSON(w interface{ Write([]byte) (int, error) }) error {
	b, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return err
	}
	_, err = w.Write(append(compactNumberArrays(b), '\n'))
	return err
}

// compactNumberArrays takes the white space out of the arrays of numbers
// of a JSON text (the strings are left as they are).
func compactNumberArrays(b []byte) []byte {
	out := make([]byte, 0, len(b))
	inString := false
	for i := 0; i < len(b); i++ {
		c := b[i]
		switch {
		case inString:
			out = append(out, c)
			if c == '\\' && i+1 < len(b) {
				i++
				out = append(out, b[i])
			} else if c == '"' {
				inString = false
			}
			continue
		case c == '"':
			inString = true
		case c == '[':
			j := i + 1
			for j < len(b) && strings.IndexByte("0123456789.-+eE, \n\t\r", b[j]) >= 0 {
				j++
			}
			if j < len(b) && b[j] == ']' {
				out = append(out, '[')
				for _, d := range b[i+1 : j] {
					if d != ' ' && d != '\n' && d != '\t' && d != '\r' {
						out = append(out, d)
					}
				}
				out = append(out, ']')
				i = j
				continue
			}
		}
		out = append(out, c)
	}
	return out
}
