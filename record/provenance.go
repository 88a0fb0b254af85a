package record

import (
	"encoding/json"
	"fmt"
	"os"
	"os/user"
	"path/filepath"
	"runtime"
	"time"

	"github.com/gmark/gmark/analyzer/store"
	"github.com/gmark/gmark/internal/version"
)

// Inputs are what a run was made from beyond its workload directory,
// recorded in its provenance so that the store alone can reproduce it:
// the input files by digest and content (package submitter/provenance
// collects them: the spec, the files it read, the grid, the targets file)
// and the bundled core's scheduler parameters in force.
type Inputs struct {
	Files    []store.Input
	Contents map[string][]byte // by SHA-256: the content of each file marked Stored
	// Core is the scheduler's parameters in force (JSON-encodable), after
	// its defaults and the command line's overrides; nil when gmark does
	// not know them (a scheduler it did not start).
	Core any
}

// Source is what a provenance record is made of.
type Source struct {
	RunID        string
	Seq          int       // the record's number in the run: 0 for its opening, 1… for each resumption
	Workload     *Workload // the run's workload, as ReadWorkload read it
	Dir          string    // the workload directory
	Target       string    // the target's name
	TargetConfig any       // the target's configuration (JSON-encodable)
	Settings     any       // the run's settings, after their defaults
	CommandLine  []string  // recorded with its secrets redacted (RedactArgs)
	Inputs       Inputs
}

// schedulerParams is the provenance's "scheduler" column: the parameters in
// force of the scheduler (the bundled core's, when known) and of the
// submitter that fed it.
type schedulerParams struct {
	Core      any `json:"core,omitempty"`
	Submitter any `json:"submitter,omitempty"`
}

// ProvenanceRecord is the provenance of a run of the workload read from dir:
// who ran what, where, with which build, from which inputs, spec and seed,
// on which target and with which scheduler parameters.
func ProvenanceRecord(src Source) (store.Provenance, error) {
	host, _ := os.Hostname()
	wd, _ := os.Getwd()
	uname := ""
	if u, err := user.Current(); err == nil {
		uname = u.Username
	}
	// The store is meant to be shared and its rows cannot be scrubbed:
	// never a secret in it.
	cl, _ := json.Marshal(RedactArgs(src.CommandLine))
	tc := []byte("{}")
	if src.TargetConfig != nil {
		b, err := json.Marshal(src.TargetConfig)
		if err != nil {
			return store.Provenance{}, fmt.Errorf("target configuration: %v", err)
		}
		tc = b
	}
	sched, err := json.Marshal(schedulerParams{Core: src.Inputs.Core, Submitter: src.Settings})
	if err != nil {
		return store.Provenance{}, fmt.Errorf("scheduler parameters: %v", err)
	}
	absDir, _ := filepath.Abs(src.Dir)
	w := src.Workload
	build := version.Get()
	p := store.Provenance{
		RunID: src.RunID, Seq: src.Seq, RecordedNS: time.Now().UnixNano(),
		GmarkVersion: build.Version, GoVersion: runtime.Version(), Host: host,
		OSArch: runtime.GOOS + "/" + runtime.GOARCH, User: uname, CommandLine: string(cl),
		WorkingDir: wd, WorkloadDir: absDir, WorkloadSHA256: w.SHA256,
		Manifest: string(w.manifest), Target: src.Target, TargetConfig: string(tc),
		GmarkRevision: build.Revision, GmarkModified: build.Modified, Scheduler: string(sched),
		Inputs: src.Inputs.Files, Contents: src.Inputs.Contents,
	}
	if m := w.m; m != nil {
		p.SpecPath, p.SpecSHA256 = m.Spec.Path, m.Spec.SHA256
		seed := m.Seed
		p.Seed = &seed
		inc, _ := json.Marshal(m.Includes)
		if m.Includes == nil {
			inc = []byte("[]")
		}
		p.Includes = string(inc)
	}
	return p, nil
}

// Opening is what opens a run in the store: its project and scenario
// (made if new), the run's row and its first provenance record. The
// submitter, RecordRun and RunRecording open runs the same way.
type Opening struct {
	project, scenario string
	run               store.Run
	prov              store.Provenance
}

// NewOpening builds the records that open the run src describes (its
// provenance record's seq is 0). An empty project is "default"; an empty
// scenario is the workload directory's name.
func NewOpening(project, scenario string, src Source) (*Opening, error) {
	if project == "" {
		project = "default"
	}
	abs, _ := filepath.Abs(src.Dir)
	if scenario == "" {
		scenario = filepath.Base(abs)
	}
	src.Seq = 0
	prov, err := ProvenanceRecord(src)
	if err != nil {
		return nil, err
	}
	set, err := json.Marshal(src.Settings)
	if err != nil {
		return nil, fmt.Errorf("run settings: %v", err)
	}
	w := src.Workload
	run := store.Run{ID: src.RunID, CreatedNS: time.Now().UnixNano(), WorkloadDir: abs, WorkloadSHA256: w.SHA256,
		Jobs: w.Count, Tasks: w.Tasks, Target: src.Target, Settings: string(set), ProvenanceSHA256: prov.ComputeDigest()}
	return &Opening{project: project, scenario: scenario, run: run, prov: prov}, nil
}

// Insert writes the records, in tx.
func (o *Opening) Insert(tx *store.Tx) error {
	pid, err := tx.EnsureProject(o.project, "", o.run.CreatedNS)
	if err != nil {
		return err
	}
	sid, err := tx.EnsureScenario(pid, o.scenario, "", o.run.CreatedNS)
	if err != nil {
		return err
	}
	run := o.run
	run.ScenarioID = sid
	if err := tx.InsertRun(run); err != nil {
		return err
	}
	return tx.InsertProvenance(o.prov)
}
