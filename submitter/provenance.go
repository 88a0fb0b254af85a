package submitter

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

// provenance builds the provenance record of this invocation.
func (r *Runner) provenance(seq int) (store.Provenance, error) {
	return provenanceRecord(r.runID, seq, r.w, r.cfg.WorkloadDir, r.target.Name(), r.cfg.TargetConfig, r.cfg.CommandLine)
}

// provenanceRecord is the provenance of a run of the workload read from dir:
// who ran what, where, from which spec and seed, on which target.
func provenanceRecord(runID string, seq int, w *workloadInfo, dir, target string, targetConfig any, commandLine []string) (store.Provenance, error) {
	host, _ := os.Hostname()
	wd, _ := os.Getwd()
	uname := ""
	if u, err := user.Current(); err == nil {
		uname = u.Username
	}
	// The store is meant to be shared and its rows cannot be scrubbed:
	// never a secret in it.
	cl, _ := json.Marshal(RedactArgs(commandLine))
	tc := []byte("{}")
	if targetConfig != nil {
		b, err := json.Marshal(targetConfig)
		if err != nil {
			return store.Provenance{}, fmt.Errorf("target configuration: %v", err)
		}
		tc = b
	}
	absDir, _ := filepath.Abs(dir)
	p := store.Provenance{
		RunID: runID, Seq: seq, RecordedNS: time.Now().UnixNano(),
		GmarkVersion: version.String(), GoVersion: runtime.Version(), Host: host,
		OSArch: runtime.GOOS + "/" + runtime.GOARCH, User: uname, CommandLine: string(cl),
		WorkingDir: wd, WorkloadDir: absDir, WorkloadSHA256: w.sha256,
		Manifest: string(w.manifest), Target: target, TargetConfig: string(tc),
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

// runOpening is what opens a run in the store: its project and scenario
// (made if new), the run's row and its first provenance record. The Runner
// and RecordRun open runs the same way.
type runOpening struct {
	project, scenario string
	run               store.Run
	prov              store.Provenance
}

// newRunOpening builds the records that open run runID of the workload w,
// read from dir, on a target. An empty project is "default"; an empty
// scenario is the workload directory's name.
func newRunOpening(runID, project, scenario, dir string, w *workloadInfo, target string, targetConfig, settings any, commandLine []string) (*runOpening, error) {
	if project == "" {
		project = "default"
	}
	abs, _ := filepath.Abs(dir)
	if scenario == "" {
		scenario = filepath.Base(abs)
	}
	prov, err := provenanceRecord(runID, 0, w, dir, target, targetConfig, commandLine)
	if err != nil {
		return nil, err
	}
	set, err := json.Marshal(settings)
	if err != nil {
		return nil, fmt.Errorf("run settings: %v", err)
	}
	run := store.Run{ID: runID, CreatedNS: time.Now().UnixNano(), WorkloadDir: abs, WorkloadSHA256: w.sha256,
		Jobs: len(w.jobs), Tasks: w.tasks, Target: target, Settings: string(set), ProvenanceSHA256: prov.ComputeDigest()}
	return &runOpening{project: project, scenario: scenario, run: run, prov: prov}, nil
}

// insert writes the records.
func (o *runOpening) insert(tx *store.Tx) error {
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
