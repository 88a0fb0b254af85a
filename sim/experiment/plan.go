package experiment

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strconv"

	"github.com/gmark/gmark/internal/version"
	"github.com/gmark/gmark/sim"
	"github.com/gmark/gmark/sim/topology"
)

// Run is one run of an experiment: a scenario's architecture at a load
// level, one repetition.
type Run struct {
	Index    int // place in the expansion
	Scenario *Scenario
	Arch     string
	Load     float64 // percent
	Rep      int     // 1, 2, …
	// Seed seeds the simulator; WorkloadSeed the run's workload.
	Seed, WorkloadSeed uint64
	Config             sim.Config
	Workload           RunWorkload
	Digest             string // SHA-256 of Definition
	Definition         []byte // JSON: everything that determines the result
}

// RunWorkload is the workload of one run, as resolved: the load of every
// cluster, in topology order.
type RunWorkload struct {
	Workload
	Seed         uint64    `json:"seed"`
	Scale        float64   `json:"scale"`
	ClusterLoads []float64 `json:"cluster_loads"` // percent
}

// runDefinition is what a run's digest covers: gmark's version (a release
// may compute differently; builds of one version share results), the
// topology as parsed, the simulator's configuration (with its seed) and the
// workload. The experiment, the scenario's name and the run's place are not
// in it: the same run planned by two experiments is computed once.
type runDefinition struct {
	Format   string      `json:"format"`
	Gmark    string      `json:"gmark"`
	Topology string      `json:"topology_sha256"` // of its JSON, which the experiment's definition holds
	Config   sim.Config  `json:"config"`
	Workload RunWorkload `json:"workload"`
}

// runFormat names the layout of runDefinition: a change of it is a new name.
const runFormat = "gmark-sim-run/1"

// NumRuns is the number of runs the experiment expands into.
func (e *Experiment) NumRuns() int {
	n := 0
	for _, s := range e.Scenarios {
		n += s.Runs()
	}
	return n
}

// Run is the run at index i of the expansion: scenarios in file order,
// then architectures, load levels and repetitions, each in the order
// written. It is computed from i alone, so the expansion is never held in
// memory.
func (e *Experiment) Run(i int) (*Run, error) {
	if i < 0 {
		return nil, fmt.Errorf("run %d: no such run", i)
	}
	rest := i
	for _, s := range e.Scenarios {
		n := s.Runs()
		if rest >= n {
			rest -= n
			continue
		}
		rep := rest%s.Repetitions + 1
		rest /= s.Repetitions
		load := s.Loads[rest%len(s.Loads)]
		arch := s.Architectures[rest/len(s.Loads)]
		return e.newRun(i, s, arch, load, rep)
	}
	return nil, fmt.Errorf("run %d: the experiment has %d runs", i, e.NumRuns())
}

func (e *Experiment) newRun(i int, s *Scenario, arch string, load float64, rep int) (*Run, error) {
	r := &Run{Index: i, Scenario: s, Arch: arch, Load: load, Rep: rep,
		Seed: DeriveSeed(e.Seed, load, rep, "sim"), WorkloadSeed: DeriveSeed(e.Seed, load, rep, "workload")}
	r.Config = s.Config(arch, r.Seed)
	r.Workload = RunWorkload{Workload: s.Workload, Seed: r.WorkloadSeed, Scale: e.Scale, ClusterLoads: ClusterLoads(e.top, &s.Workload, load)}
	_, topSHA, err := e.topologyJSON()
	if err != nil {
		return nil, err
	}
	def, err := json.Marshal(runDefinition{Format: runFormat, Gmark: version.Get().Version, Topology: topSHA, Config: r.Config, Workload: r.Workload})
	if err != nil {
		return nil, err
	}
	sum := sha256.Sum256(def)
	r.Definition, r.Digest = def, hex.EncodeToString(sum[:])
	return r, nil
}

// DeriveSeed is the seed of a run's part (purpose "sim" or "workload")
// from the experiment's seed and the run's load level and repetition. The
// scenario and the architecture are left out on purpose: at one load and
// repetition every architecture and every scenario sees the same workload
// (common random numbers, as the thesis's ten trace sets per load level),
// so their differences are the architectures', not the draws'. A seed
// never depends on which other runs exist.
func DeriveSeed(seed uint64, load float64, rep int, purpose string) uint64 {
	h := sha256.New()
	var b [8]byte
	binary.BigEndian.PutUint64(b[:], seed)
	h.Write([]byte("gmark/sim/experiment\x00"))
	h.Write(b[:])
	h.Write([]byte("\x00" + strconv.FormatFloat(load, 'g', -1, 64) + "\x00" + strconv.Itoa(rep) + "\x00" + purpose))
	return binary.BigEndian.Uint64(h.Sum(nil)[:8]) >> 1 // below 2^63: a SQLite integer as it is
}

// ClusterLoads is the load (%) of every cluster at a load level: the
// nearest node at or above the cluster named in fixed_load gives its load,
// in load_scale its factor of the level; the level otherwise.
func ClusterLoads(top *topology.Topology, w *Workload, level float64) []float64 {
	out := make([]float64, top.Clusters)
	for c := range out {
		out[c] = level
		for n := c; n >= 0; n = top.Nodes[n].Parent {
			name := top.Nodes[n].Name
			if l, ok := w.FixedLoad[name]; ok {
				out[c] = l
				break
			}
			if f, ok := w.LoadScale[name]; ok {
				out[c] = level * f
				break
			}
		}
	}
	return out
}

// topologyJSON is the topology as parsed, in JSON, and its SHA-256:
// what a run's digest covers of it.
func (e *Experiment) topologyJSON() ([]byte, string, error) {
	if e.topJSON == nil {
		b, err := json.Marshal(e.top)
		if err != nil {
			return nil, "", err
		}
		sum := sha256.Sum256(b)
		e.topJSON, e.topSHA = b, hex.EncodeToString(sum[:])
	}
	return e.topJSON, e.topSHA, nil
}

// Definition is the experiment as resolved, for its record, and its
// digest: the file's settings after defaults and merging, the topology as
// parsed, the scale.
func (e *Experiment) Definition() ([]byte, string, error) {
	top, topSHA, err := e.topologyJSON()
	if err != nil {
		return nil, "", err
	}
	def, err := json.Marshal(struct {
		*Experiment
		TopologySHA256 string          `json:"topology_sha256"`
		Nodes          json.RawMessage `json:"topology_parsed"`
		Runs           int             `json:"runs"`
		Gmark          string          `json:"gmark"`
	}{e, topSHA, top, e.NumRuns(), version.Get().Version})
	if err != nil {
		return nil, "", err
	}
	sum := sha256.Sum256(def)
	return def, hex.EncodeToString(sum[:]), nil
}
