package experiment

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/gmark/gmark/gwa"
	"github.com/gmark/gmark/sim"
	"github.com/gmark/gmark/sim/topology"
)

// Experiment is a validated experiment file.
type Experiment struct {
	Name        string      `json:"name"`
	Seed        uint64      `json:"seed"`
	Scale       float64     `json:"scale"`
	TopologyRef string      `json:"topology"` // a preset's name, or the file as written
	Scenarios   []*Scenario `json:"scenarios"`
	Plot        *PlotAxis   `json:"plot,omitempty"` // the report's figures against the scenarios' own x (plotaxis.go)

	Path         string `json:"-"` // the experiment file
	Source       []byte `json:"-"`
	TopologyPath string `json:"-"` // the topology file ("" for a preset)
	top          *topology.Topology
	topJSON      []byte // the topology as parsed, in JSON, and its digest (topologyJSON)
	topSHA       string
}

// Topology is the experiment's system.
func (e *Experiment) Topology() *topology.Topology { return e.top }

// Scenario is one scenario of an experiment: architectures × loads ×
// repetitions of one workload and one set of settings.
type Scenario struct {
	Index         int               `json:"-"`
	Name          string            `json:"name"`
	Architectures []string          `json:"architectures"`
	Loads         []float64         `json:"loads"` // percent
	Repetitions   int               `json:"repetitions"`
	Workload      Workload          `json:"workload"`
	Settings      map[string]string `json:"settings,omitempty"` // the sim.Config settings given, by key, as written in canonical form
	Plot          *Placement        `json:"plot,omitempty"`     // where its results go on the figures of the experiment's PlotAxis
	settings      []setting         // given, by key in declaration order, each key's in order of precedence (settings.go)
}

// Runs is the number of runs the scenario expands into.
func (s *Scenario) Runs() int { return len(s.Architectures) * len(s.Loads) * s.Repetitions }

// Workload is how a scenario's runs get their jobs.
type Workload struct {
	Kind          string             `json:"kind"`                     // KindGridLF or KindTrace
	Span          time.Duration      `json:"span_ns,omitempty"`        // grid-lf: each cluster's stream
	Tolerance     float64            `json:"tolerance,omitempty"`      // grid-lf: IWG's, in percentage points of load
	MaxIterations int                `json:"max_iterations,omitempty"` // grid-lf: IWG's cap
	LF            map[string]float64 `json:"lf,omitempty"`             // grid-lf: wl:lublin parameters over the grid variant's
	Method        string             `json:"method,omitempty"`         // grid-lf: how the streams are made (GridLFMethod)
	Trace         string             `json:"trace,omitempty"`          // trace: the file as written
	TraceSHA256   string             `json:"trace_sha256,omitempty"`
	Format        string             `json:"format,omitempty"`
	From          *time.Duration     `json:"from_ns,omitempty"`
	To            *time.Duration     `json:"to_ns,omitempty"`
	Sites         map[string]string  `json:"sites,omitempty"`      // trace site → topology node
	FixedLoad     map[string]float64 `json:"fixed_load,omitempty"` // node → load (%) whatever the level
	LoadScale     map[string]float64 `json:"load_scale,omitempty"` // node → factor of the level
	TracePath     string             `json:"-"`
	Spec          string             `json:"spec,omitempty"` // wdl: the spec file as written
	SpecSHA256    string             `json:"spec_sha256,omitempty"`
	SpecInputs    string             `json:"spec_inputs_sha256,omitempty"` // wdl: of the files the spec reads (generator.Inputs), "" when none
	SpecPath      string             `json:"-"`
	// burst: Jobs jobs of Processors processors and RunTime each, all
	// submitted at 0 at Site ("" : a cluster drawn by size per job).
	Jobs       int           `json:"jobs,omitempty"`
	Processors int           `json:"processors,omitempty"`
	RunTime    time.Duration `json:"runtime_ns,omitempty"`
	Site       string        `json:"site,omitempty"`
}

// The workload kinds.
const (
	KindGridLF = "grid-lf"
	KindTrace  = "trace"
	KindWDL    = "wdl"
	KindBurst  = "burst"
)

func (p *parser) scenario(f *fileSpec, s *scenarioSpec, at string, e *Experiment) *Scenario {
	sc := &Scenario{Name: s.Name}
	if at != "" && !nameOK(s.Name) {
		p.errorf(at+".name", "scenario name %q: 1 to %d letters, digits, '.', '_' or '-', not beginning with '.' or '-'", excerpt(s.Name), MaxNameLength)
		return nil
	}
	dot := func(k string) string {
		if at == "" {
			return k
		}
		return at + "." + k
	}
	archs, archAt := f.Architectures, "architectures"
	if s.Architectures != nil {
		archs, archAt = s.Architectures, dot("architectures")
	}
	sc.Architectures = p.architectures(archs, archAt)
	loads, loadAt := f.Loads, "loads"
	if s.Loads != nil {
		loads, loadAt = s.Loads, dot("loads")
	}
	sc.Loads = p.loads(loads, loadAt)
	reps, repAt := f.Repetitions, "repetitions"
	if s.Repetitions != nil {
		reps, repAt = s.Repetitions, dot("repetitions")
	}
	sc.Repetitions = 1
	if reps != nil {
		if *reps < 1 || *reps > MaxRepetitions {
			p.errorf(repAt, "repetitions = %d: must be from 1 to %d (0 would make runs of nothing)", *reps, MaxRepetitions)
		} else {
			sc.Repetitions = int(*reps)
		}
	}
	sc.Workload = p.workload(&f.Workload, &s.Workload, at, e)
	if slices.Contains(sc.Loads, AsRecorded) {
		switch w := &sc.Workload; {
		case w.Kind != KindTrace:
			p.errorf(loadAt, "%q is a load level of a trace workload (its own arrival times); a %s workload has none", AsRecordedName, w.Kind)
		case len(w.FixedLoad) > 0 || len(w.LoadScale) > 0:
			p.errorf(loadAt, "%q replays the whole trace unscaled: fixed_load and load_scale do not apply to it", AsRecordedName)
		}
	}
	if sc.Workload.Kind == KindBurst && len(sc.Loads) > 1 {
		p.errorf(loadAt, "%d loads: a %s workload is the same at every load level (its jobs all come at 0); give one level, e.g. loads = [100]", len(sc.Loads), KindBurst)
	}
	var levels []settingsTable
	if at != "" {
		flat, secs := p.sections(s.Settings, at+".settings.", "scenario.settings.")
		levels = append(levels, settingsTable{flat: flat, sections: secs, at: at + ".settings", name: "scenario.settings", scenario: true})
		if sc.Architectures != nil {
			p.unrun(secs, sc.Architectures, at+".settings.", "scenario.settings.", fmt.Sprintf("scenario %q runs", excerpt(s.Name)))
		}
	}
	flat, secs := p.sections(f.Settings, "settings.", "settings.")
	levels = append(levels, settingsTable{flat: flat, sections: secs, at: "settings", name: "settings"})
	sc.settings, sc.Settings = p.settings(levels)
	if e.top != nil && len(sc.Architectures) > 0 {
		p.dryRun(sc, e.top, at)
	}
	return sc
}

func (p *parser) architectures(v *[]string, at string) []string {
	if v == nil {
		p.errorf(at, "architectures is required: the architectures to compare (%s)", strings.Join(sim.ArchNames(), ", "))
		return nil
	}
	if len(*v) == 0 {
		p.errorf(at, "architectures is empty: the experiment would have no run; name at least one of %s", strings.Join(sim.ArchNames(), ", "))
		return nil
	}
	if len(*v) > MaxArchitectures {
		p.errorf(at, "%d architectures: at most %d", len(*v), MaxArchitectures)
		return nil
	}
	var out []string
	for _, a := range *v {
		switch {
		case !slices.Contains(sim.ArchNames(), a):
			p.errorf(at, "architecture %q is unknown (known: %s)", excerpt(a), strings.Join(sim.ArchNames(), ", "))
		case slices.Contains(out, a):
			p.errorf(at, "architecture %q is named twice", a)
		default:
			out = append(out, a)
		}
	}
	return out
}

// AsRecorded is the load level of a trace replayed as recorded (loads =
// ["as-recorded"]): its own arrival times, unscaled. It is the level's
// value in a run's definition, the store and the reports' JSON.
const AsRecorded = -1.0

// AsRecordedName is how an experiment file writes AsRecorded.
const AsRecordedName = "as-recorded"

func (p *parser) loads(v *[]any, at string) []float64 {
	if v == nil {
		p.errorf(at, "loads is required: the load levels, in percent (e.g. [10, 30, 50, 70, 90]), or [%q] for a trace", AsRecordedName)
		return nil
	}
	if len(*v) == 0 {
		p.errorf(at, "loads is empty: the experiment would have no run; give at least one load level (%%)")
		return nil
	}
	if len(*v) > MaxLoads {
		p.errorf(at, "%d loads: at most %d", len(*v), MaxLoads)
		return nil
	}
	var out []float64
	for _, x := range *v {
		var l float64
		named := false // "as-recorded": a number is never it
		switch n := x.(type) {
		case int64:
			l = float64(n)
		case float64:
			l = n
		case string:
			if n != AsRecordedName {
				p.errorf(at, "load %q: a load level is a number (percent) or %q (a trace's own arrival times)", excerpt(n), AsRecordedName)
				continue
			}
			l, named = AsRecorded, true
		default:
			p.errorf(at, "load %v: a load level is a number (percent) or %q, not %T", x, AsRecordedName, x)
			continue
		}
		switch {
		case named && slices.Contains(out, l):
			p.errorf(at, "%q is given twice", AsRecordedName)
		case named:
			out = append(out, l)
		case l == 0:
			p.errorf(at, "load 0: a load level must be above 0%% (a run of no jobs measures nothing)")
		case !(l > 0 && l <= MaxLoad):
			p.errorf(at, "load %g: a load level is in (0, %g] percent", l, MaxLoad)
		case slices.Contains(out, l):
			p.errorf(at, "load %g is given twice", l)
		default:
			out = append(out, l)
		}
	}
	return out
}

// duration reads a duration setting: a string with a unit (ms s m h d w)
// or a number of seconds.
func (p *parser) duration(v any, at string) (time.Duration, bool) {
	var sec float64
	switch x := v.(type) {
	case string:
		s, err := gwa.ParseDurationSeconds(x)
		if err != nil {
			p.errorf(at, "%s: %v", lastKey(at), err)
			return 0, false
		}
		sec = s
	case int64:
		sec = float64(x)
	case float64:
		sec = x
	default:
		p.errorf(at, "%s: a duration is a string with a unit (\"300s\", \"1d\") or a number of seconds, not %T", lastKey(at), v)
		return 0, false
	}
	if !(sec >= 0 && sec <= MaxSpan*100) {
		p.errorf(at, "%s = %v: out of range [0, 100 years]", lastKey(at), v)
		return 0, false
	}
	return time.Duration(math.Round(sec * 1e9)), true
}

func lastKey(path string) string {
	if i := strings.LastIndexByte(path, '.'); i >= 0 {
		return path[i+1:]
	}
	return path
}

// workload merges the scenario's [workload] over the experiment's and
// checks it.
func (p *parser) workload(top, own *workloadSpec, at string, e *Experiment) Workload {
	m := mergeWorkload(top, own)
	path := func(k string) string { // the setting's path: the scenario's if it sets it
		if wsSet(own, k) && at != "" {
			return at + ".workload." + k
		}
		return "workload." + k
	}
	w := Workload{Kind: KindGridLF}
	if m.Kind != nil {
		w.Kind = *m.Kind
	}
	switch w.Kind {
	case KindGridLF:
		p.gridLF(m, &w, path)
	case KindTrace:
		p.trace(m, &w, path, e)
	case KindWDL:
		p.wdlSpec(m, &w, path)
	case KindBurst:
		p.burst(m, &w, path, e)
		return w
	default:
		p.errorf(path("kind"), "workload kind %q: %s, %s, %s or %s", excerpt(w.Kind), KindGridLF, KindTrace, KindWDL, KindBurst)
		return w
	}
	p.notBurst(m, path, w.Kind)
	w.FixedLoad, w.LoadScale = m.FixedLoad, m.LoadScale
	p.imbalance(&w, path, e.top)
	return w
}

func (p *parser) gridLF(m *workloadSpec, w *Workload, path func(string) string) {
	if wsSet(m, "spec") {
		p.errorf(path("spec"), "spec is a setting of a %s workload (kind = %q), not of %s", KindWDL, KindWDL, KindGridLF)
	}
	for _, k := range []string{"trace", "format", "from", "to", "sites"} {
		if wsSet(m, k) {
			p.errorf(path(k), "%s is a setting of a trace workload (kind = %q), not of %s", k, KindTrace, KindGridLF)
		}
	}
	w.Span, w.Tolerance, w.MaxIterations, w.Method = 24*time.Hour, 1, MaxIterations, GridLFMethod
	if m.Span != nil {
		if d, ok := p.duration(m.Span, path("span")); ok {
			if d.Seconds() < MinSpan || d.Seconds() > MaxSpan {
				p.errorf(path("span"), "span %v: must be from 1 minute to 365 days", d)
			}
			w.Span = d
		}
	}
	if m.Tolerance != nil {
		if !(*m.Tolerance > 0 && *m.Tolerance <= 100) {
			p.errorf(path("tolerance"), "tolerance %g: IWG's tolerance is in (0, 100] percentage points of load", *m.Tolerance)
		}
		w.Tolerance = *m.Tolerance
	}
	if m.MaxIterations != nil {
		if *m.MaxIterations < 1 || *m.MaxIterations > MaxIterations {
			p.errorf(path("max_iterations"), "max_iterations %d: must be from 1 to %d", *m.MaxIterations, MaxIterations)
		}
		w.MaxIterations = int(*m.MaxIterations)
	}
	if m.LF != nil {
		w.LF = m.LF
		if err := checkGridLFParams(m.LF); err != nil {
			p.errorf(path("lf"), "lf: %v", err)
		}
	}
}

func (p *parser) trace(m *workloadSpec, w *Workload, path func(string) string, e *Experiment) {
	for _, k := range []string{"span", "tolerance", "max_iterations"} {
		if wsSet(m, k) {
			p.errorf(path(k), "%s is a setting of a %s workload; a trace's span is its window (from, to)", k, KindGridLF)
		}
	}
	if wsSet(m, "lf") {
		p.errorf(path("lf"), "lf is a setting of a %s workload (its model's parameters); a trace is replayed as recorded", KindGridLF)
	}
	if wsSet(m, "spec") {
		p.errorf(path("spec"), "spec is a setting of a %s workload (kind = %q), not of %s", KindWDL, KindWDL, KindTrace)
	}
	if m.Trace == nil || *m.Trace == "" {
		p.errorf(path("kind"), "a trace workload needs trace = \"FILE\" (SWF, GWF or GWF-SQLite, relative to the experiment file)")
		return
	}
	w.Trace = *m.Trace
	w.TracePath = w.Trace
	if !filepath.IsAbs(w.TracePath) {
		w.TracePath = filepath.Join(filepath.Dir(p.file), w.TracePath)
	}
	sum, err := fileSHA256(w.TracePath)
	if err != nil {
		p.errorf(path("trace"), "trace %q: %v", excerpt(w.Trace), unwrapPath(err))
	}
	w.TraceSHA256 = sum
	if m.Format != nil {
		if _, ok := gwa.ParseFormat(*m.Format); !ok {
			p.errorf(path("format"), "format %q: swf, gwf or sqlite", excerpt(*m.Format))
		}
		w.Format = *m.Format
	}
	for _, k := range []string{"from", "to"} {
		v := m.From
		if k == "to" {
			v = m.To
		}
		if v == nil {
			continue
		}
		if d, ok := p.duration(v, path(k)); ok {
			if k == "from" {
				w.From = &d
			} else {
				w.To = &d
			}
		}
	}
	if w.From != nil && w.To != nil && *w.To <= *w.From {
		p.errorf(path("to"), "to (%v) must be after from (%v)", *w.To, *w.From)
	}
	if len(m.Sites) > MaxSites {
		p.errorf(path("sites"), "%d sites: at most %d", len(m.Sites), MaxSites)
		return
	}
	for site, node := range m.Sites {
		if !wdlName(site) {
			p.errorf(path("sites."+site), "trace site %q: a site's id or name, without blanks or any of , ; : =", excerpt(site))
		}
		if e.top != nil {
			if _, ok := e.top.Index(node); !ok {
				p.errorf(path("sites."+site), "sites: %q is not a cluster or site of the topology", excerpt(node))
			}
		}
	}
	w.Sites = m.Sites
}

// wdlName: a name that a WDL list can carry (a wl:trace unit's TraceSites
// and SiteMap are built from the trace's sites).
func wdlName(s string) bool {
	return s != "" && !strings.ContainsAny(s, ",;:=() \t\r\n\"'#")
}

// imbalance checks fixed_load and load_scale: nodes of the topology, each
// named once.
func (p *parser) imbalance(w *Workload, path func(string) string, top *topology.Topology) {
	for node, l := range w.FixedLoad {
		if !(l > 0 && l <= MaxLoad) {
			p.errorf(path("fixed_load."+node), "fixed_load %q = %g: a load is in (0, %g] percent", node, l, MaxLoad)
		}
		if _, both := w.LoadScale[node]; both {
			p.errorf(path("load_scale."+node), "%q is in both fixed_load and load_scale: give it one of them", node)
		}
	}
	for node, f := range w.LoadScale {
		if !(f > 0 && f <= MaxLoadScale) {
			p.errorf(path("load_scale."+node), "load_scale %q = %g: a factor is in (0, %g]", node, f, MaxLoadScale)
		}
	}
	if top == nil {
		return
	}
	for _, m := range []struct {
		key   string
		nodes []string
	}{{"fixed_load", mapKeys(w.FixedLoad)}, {"load_scale", mapKeys(w.LoadScale)}} {
		for _, node := range m.nodes {
			i, ok := top.Index(node)
			switch {
			case !ok:
				p.errorf(path(m.key+"."+node), "%s: %q is not a cluster or site of the topology", m.key, excerpt(node))
			case w.Kind == KindWDL:
				p.errorf(path(m.key+"."+node), "%s is not a setting of a %s workload: its spec places its jobs, and its load is the level's", m.key, KindWDL)
			case w.Kind == KindTrace && top.Nodes[i].Parent != -1:
				p.errorf(path(m.key+"."+node), "%s: %q is not a grid: a trace's load is set per grid (the roots of the topology)", m.key, node)
			case w.Kind == KindTrace && len(w.Sites) == 0 && gridCount(top) > 1:
				p.errorf(path(m.key+"."+node), "%s of a trace needs sites: which trace sites go to which grid", m.key)
			}
		}
	}
}

func gridCount(top *topology.Topology) int {
	n := 0
	for i := range top.Nodes {
		if top.Nodes[i].Parent == -1 {
			n++
		}
	}
	return n
}

func mapKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// mergeWorkload is own over top, setting by setting.
func mergeWorkload(top, own *workloadSpec) *workloadSpec {
	m := *top
	o := own
	if o.Kind != nil {
		m.Kind = o.Kind
	}
	if o.Span != nil {
		m.Span = o.Span
	}
	if o.Tolerance != nil {
		m.Tolerance = o.Tolerance
	}
	if o.MaxIterations != nil {
		m.MaxIterations = o.MaxIterations
	}
	if o.LF != nil {
		m.LF = o.LF
	}
	if o.Trace != nil {
		m.Trace = o.Trace
	}
	if o.Spec != nil {
		m.Spec = o.Spec
	}
	if o.Format != nil {
		m.Format = o.Format
	}
	if o.From != nil {
		m.From = o.From
	}
	if o.To != nil {
		m.To = o.To
	}
	if o.Sites != nil {
		m.Sites = o.Sites
	}
	if o.FixedLoad != nil {
		m.FixedLoad = o.FixedLoad
	}
	if o.LoadScale != nil {
		m.LoadScale = o.LoadScale
	}
	mergeBurst(&m, o)
	return &m
}

// wsSet tells whether a workload setting is given.
func wsSet(w *workloadSpec, key string) bool {
	switch key {
	case "kind":
		return w.Kind != nil
	case "span":
		return w.Span != nil
	case "tolerance":
		return w.Tolerance != nil
	case "max_iterations":
		return w.MaxIterations != nil
	case "lf":
		return w.LF != nil
	case "trace":
		return w.Trace != nil
	case "spec":
		return w.Spec != nil
	case "format":
		return w.Format != nil
	case "from":
		return w.From != nil
	case "to":
		return w.To != nil
	case "sites":
		return w.Sites != nil
	}
	if set, ok := burstSet(w, key); ok {
		return set
	}
	return strings.HasPrefix(key, "fixed_load") && w.FixedLoad != nil || strings.HasPrefix(key, "load_scale") && w.LoadScale != nil ||
		strings.HasPrefix(key, "sites.") && w.Sites != nil
}

func fileSHA256(path string) (string, error) {
	// Stat before opening: opening a FIFO would wait for a writer.
	fi, err := os.Stat(path)
	if err != nil {
		return "", err
	}
	if !fi.Mode().IsRegular() {
		return "", fmt.Errorf("not a regular file")
	}
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}
