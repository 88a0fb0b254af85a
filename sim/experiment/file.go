// Package experiment is the experiment manager of the multi-grid simulator,
// after DGSim's (Iosup's thesis, Ch. 6): an experiment file (TOML) names a
// topology and scenarios × architectures × load levels × repetitions; the
// manager expands it into runs with seeds derived from the run's place,
// builds each run's workload as a stream (grid-LF brought to the target load
// by IWG, or a trace scaled to it, per grid when the load is imbalanced),
// runs them in parallel, and records everything in the results store as
// experiment → scenario → run, with provenance. A run is keyed by the
// digest of everything that determines its result, so an experiment killed
// at any point continues where it stopped, and the report extracts the
// standard metrics per run and over repetitions. docs/sim.md documents the
// file, the commands and the tables.
package experiment

import (
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/BurntSushi/toml"
	"github.com/gmark/gmark/examples"
	"github.com/gmark/gmark/internal/readlimit"
	"github.com/gmark/gmark/internal/srcerr"
	"github.com/gmark/gmark/sim/topology"
)

// The documented ranges of an experiment file (docs/sim.md).
const (
	MaxFileSize      = 1 << 20
	MaxNameLength    = 100
	MaxScenarios     = 1000
	MaxArchitectures = 64
	MaxLoads         = 1000
	MaxLoad          = 10000.0 // percent
	MaxRepetitions   = 10000
	MaxRuns          = 1_000_000
	MaxLoadScale     = 1000.0
	MaxIterations    = 100 // IWG's cap, as the generator's
	MinSpan          = 60.0
	MaxSpan          = 365 * 86400.0
	MaxSeed          = math.MaxInt64
	MaxSites         = 10000
)

// fileSpec is an experiment file as written; pointers tell a setting given
// from one left to its default.
type fileSpec struct {
	Name          string         `toml:"name"`
	Seed          *int64         `toml:"seed"`
	Topology      string         `toml:"topology"`
	Architectures *[]string      `toml:"architectures"`
	Loads         *[]any         `toml:"loads"` // numbers (percent), or AsRecordedName
	Repetitions   *int64         `toml:"repetitions"`
	Workload      workloadSpec   `toml:"workload"`
	Settings      settingsSpec   `toml:"settings"`
	Scenarios     []scenarioSpec `toml:"scenario"`
	Plot          *plotSpec      `toml:"plot"`
}

type scenarioSpec struct {
	Name          string         `toml:"name"`
	Architectures *[]string      `toml:"architectures"`
	Loads         *[]any         `toml:"loads"`
	Repetitions   *int64         `toml:"repetitions"`
	Workload      workloadSpec   `toml:"workload"`
	Settings      settingsSpec   `toml:"settings"`
	Plot          *placementSpec `toml:"plot"`
}

// workloadSpec is a [workload] table. Durations are strings with a unit
// (ms s m h d w) or numbers of seconds.
type workloadSpec struct {
	Kind          *string            `toml:"kind"`
	Span          any                `toml:"span"`
	Tolerance     *float64           `toml:"tolerance"`
	MaxIterations *int64             `toml:"max_iterations"`
	LF            map[string]float64 `toml:"lf"`
	Trace         *string            `toml:"trace"`
	Spec          *string            `toml:"spec"`
	Format        *string            `toml:"format"`
	From          any                `toml:"from"`
	To            any                `toml:"to"`
	Sites         map[string]string  `toml:"sites"`
	FixedLoad     map[string]float64 `toml:"fixed_load"`
	LoadScale     map[string]float64 `toml:"load_scale"`
	// burst (burst.go)
	Jobs       *int64  `toml:"jobs"`
	Processors *int64  `toml:"processors"`
	RunTime    any     `toml:"runtime"`
	Site       *string `toml:"site"`
}

// settingsSpec is a [settings] table: the settings of sim.Config's groups
// a scenario gives, by their keys (settings.go reads it into them).
type settingsSpec map[string]any

// Options change how a file is read.
type Options struct {
	// Scale (0 < Scale ≤ 1; 0 means 1) shortens every run's workload to
	// that fraction of its span: the reduced version of an experiment.
	Scale float64
}

// Load reads and validates an experiment file. Outside the repository, a
// shipped example named as the repository does (examples/sim/sweep.toml)
// is read from the copy built into gmark: the examples are written out
// into the user's cache directory (gmark/examples), so that the files it
// names beside it (a topology, a core's grid, a workload spec) are there
// too. A run's digest covers their contents, not their paths.
func Load(path string, o Options) (*Experiment, error) {
	if _, err := os.Stat(path); errors.Is(err, os.ErrNotExist) {
		if _, ok := examples.Lookup(path); ok {
			dir, err := os.UserCacheDir()
			if err != nil {
				dir = os.TempDir()
			}
			resolved, _, err := examples.Resolve(path, filepath.Join(dir, "gmark"))
			if err != nil {
				return nil, err
			}
			path = resolved
		}
	}
	b, err := readlimit.File(path, MaxFileSize)
	if errors.Is(err, readlimit.ErrTooLarge) {
		return nil, readlimit.TooLargef("%s: larger than %d bytes; this is not an experiment file", path, MaxFileSize)
	}
	if err != nil {
		return nil, err
	}
	return Parse(path, b, o)
}

// tomlLine finds the line in the decoder's own messages ("toml: line 3
// (last key \"seed\"): …"), which are not ParseErrors.
var tomlLine = regexp.MustCompile(`^toml: line (\d+)(?: \(last key "([^"]*)"\))?: (.*)$`)

// Parse validates an experiment file (name is its path: the topology and
// trace files it names are relative to its directory). Every problem of
// the file is reported, as a srcerr.List of "file:line: what is wrong".
func Parse(name string, src []byte, o Options) (*Experiment, error) {
	if o.Scale == 0 {
		o.Scale = 1
	}
	if !(o.Scale > 0 && o.Scale <= 1) {
		return nil, fmt.Errorf("scale %g is out of range: must be in (0, 1]", o.Scale)
	}
	var spec fileSpec
	md, err := toml.Decode(string(src), &spec)
	if err != nil {
		var pe toml.ParseError
		if errors.As(err, &pe) {
			return nil, srcerr.List{srcerr.Errorf(srcerr.Pos{File: name, Line: pe.Position.Line}, "%s", oneLine(pe.Message))}
		}
		if m := tomlLine.FindStringSubmatch(err.Error()); m != nil {
			line, _ := strconv.Atoi(m[1])
			msg := m[3]
			if m[2] != "" {
				msg = m[2] + ": " + msg
			}
			return nil, srcerr.List{srcerr.Errorf(srcerr.Pos{File: name, Line: line}, "%s", oneLine(msg))}
		}
		return nil, srcerr.List{srcerr.Errorf(srcerr.Pos{File: name}, "%s", oneLine(strings.TrimPrefix(err.Error(), "toml: ")))}
	}
	p := &parser{file: name, lines: indexLines(string(src))}
	for _, k := range md.Undecoded() {
		if inSection(k) { // decoded into the settings table, read by sections
			continue
		}
		p.errorf(p.undecodedPath(k, len(spec.Scenarios)), "unknown setting %s (see docs/sim.md for the experiment file)", k)
	}
	if len(p.errs) > 0 {
		return nil, p.errs.Err()
	}
	e := p.experiment(&spec, o)
	if err := p.errs.Err(); err != nil {
		return nil, err
	}
	if _, _, err := e.topologyJSON(); err != nil { // once, before runs are made from several goroutines
		return nil, err
	}
	e.Path, e.Source = name, src
	return e, nil
}

// inSection tells whether a key the decoder left undecoded is in a
// section of a [settings] table (settings.dmm.dttl), which the table holds.
func inSection(k toml.Key) bool {
	return len(k) >= 3 && k[0] == "settings" || len(k) >= 4 && k[0] == "scenario" && k[1] == "settings"
}

// undecodedPath is the indexed path of an undecoded key: an element of
// [[scenario]] is not named by the key, so it is the first element that
// holds it (the first element, when none is found).
func (p *parser) undecodedPath(k toml.Key, scenarios int) string {
	path := strings.Join(k, ".")
	if len(k) < 2 || k[0] != "scenario" {
		return path
	}
	rest := strings.Join(k[1:], ".")
	for i := 0; i < scenarios; i++ {
		at := fmt.Sprintf("scenario[%d].%s", i, rest)
		if _, ok := p.lines[at]; ok {
			return at
		}
	}
	return "scenario[0]." + rest
}

// parser collects the problems of one file.
type parser struct {
	file  string
	lines lineIndex
	errs  srcerr.List
}

// errorf adds a problem at the setting of path.
func (p *parser) errorf(path, format string, args ...any) {
	if len(p.errs) >= maxProblems {
		return
	}
	e := srcerr.Errorf(srcerr.Pos{File: p.file, Line: p.lines.line(path)}, format, args...)
	e.Msg = oneLine(e.Msg)
	for _, old := range p.errs {
		if old.Pos == e.Pos && old.Msg == e.Msg { // a setting of the experiment's, read for each scenario
			return
		}
	}
	p.errs = append(p.errs, e)
}

// oneLine keeps a message on its line: what a file holds (a key, a name)
// may hold line breaks.
func oneLine(s string) string {
	return strings.NewReplacer("\r\n", " ", "\n", " ", "\r", " ").Replace(s)
}

// maxProblems bounds the problems reported for one file.
const maxProblems = 50

// nameOK: a name of an experiment or a scenario is 1 to 100 letters,
// digits, '.', '_' or '-', not beginning with '.' or '-' (it names files of
// the report).
func nameOK(s string) bool {
	if s == "" || len(s) > MaxNameLength || s[0] == '.' || s[0] == '-' {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '.' || c == '_' || c == '-') {
			return false
		}
	}
	return true
}

func (p *parser) experiment(f *fileSpec, o Options) *Experiment {
	e := &Experiment{Name: f.Name, Seed: 1, Scale: o.Scale}
	if !nameOK(f.Name) {
		p.errorf("name", "name %q: the experiment's name is required: 1 to %d letters, digits, '.', '_' or '-', not beginning with '.' or '-'", excerpt(f.Name), MaxNameLength)
	}
	if f.Seed != nil {
		if *f.Seed < 0 {
			p.errorf("seed", "seed %d: must be from 0 to %d", *f.Seed, int64(MaxSeed))
		} else {
			e.Seed = uint64(*f.Seed)
		}
	}
	e.top = p.topology(f.Topology, e)
	scenarios := f.Scenarios
	implied := len(scenarios) == 0
	if implied { // no [[scenario]]: one, named default, of the top-level settings
		scenarios = []scenarioSpec{{Name: "default"}}
	}
	if len(scenarios) > MaxScenarios {
		p.errorf("scenario", "%d scenarios: at most %d", len(scenarios), MaxScenarios)
		return e
	}
	seen := map[string]bool{}
	total := 0
	for i := range scenarios {
		at := fmt.Sprintf("scenario[%d]", i)
		if implied {
			at = ""
		}
		sc := p.scenario(f, &scenarios[i], at, e)
		if sc == nil {
			continue
		}
		if seen[sc.Name] {
			p.errorf(at+".name", "scenario %q: a second scenario of this name", sc.Name)
		}
		seen[sc.Name] = true
		sc.Index = len(e.Scenarios)
		e.Scenarios = append(e.Scenarios, sc)
		total += sc.Runs()
	}
	if _, secs := p.sections(f.Settings, "settings.", "settings."); len(secs) > 0 {
		var run []string
		for _, sc := range scenarios {
			if a := f.Architectures; sc.Architectures != nil {
				run = append(run, *sc.Architectures...)
			} else if a != nil {
				run = append(run, *a...)
			}
		}
		slices.Sort(run)
		p.unrun(secs, slices.Compact(run), "settings.", "settings.", "the scenarios run")
	}
	if total > MaxRuns {
		p.errorf("", "the experiment expands into %d runs: at most %d", total, MaxRuns)
	}
	if !implied || f.Plot != nil {
		e.Plot = p.plot(f, e)
	}
	return e
}

// topology reads the topology setting: a preset's name, or a file
// relative to the experiment file.
func (p *parser) topology(ref string, e *Experiment) *topology.Topology {
	if ref == "" {
		p.errorf("topology", "topology is required: a preset (%s) or a topology file", strings.Join(topology.PresetNames(), ", "))
		return nil
	}
	e.TopologyRef = ref
	if slices.Contains(topology.PresetNames(), ref) {
		top, err := topology.Preset(ref)
		if err != nil {
			p.errorf("topology", "topology %q: %v", ref, err)
		}
		return top
	}
	path := ref
	if !filepath.IsAbs(path) {
		path = filepath.Join(filepath.Dir(p.file), path)
	}
	if _, err := os.Stat(path); err != nil {
		p.errorf("topology", "topology %q is neither a preset (%s) nor a file: %v", ref, strings.Join(topology.PresetNames(), ", "), unwrapPath(err))
		return nil
	}
	top, err := topology.Load(path)
	if err != nil {
		p.errorf("topology", "topology %q: %v", ref, err)
		return nil
	}
	e.TopologyPath = path
	return top
}

// unwrapPath drops the path an os error repeats.
func unwrapPath(err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

func excerpt(s string) string {
	if len(s) > 40 {
		return s[:40] + "…"
	}
	return s
}
