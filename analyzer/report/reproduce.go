package report

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/gmark/gmark/analyzer/store"
	"github.com/gmark/gmark/internal/outfile"
	"github.com/gmark/gmark/internal/version"
	"github.com/gmark/gmark/workload"
)

// Reproduction is what 'gmark report --reproduce RUN --to DIR' made: the
// run's input files, written out of the store under DIR/inputs in the
// layout they had around the run's working directory, and the commands
// that regenerate the workload from them and run it again (also written to
// DIR/reproduce.sh).
type Reproduction struct {
	RunID   string
	Dir     string        // DIR, absolute
	Written []string      // the input files written, in the provenance's order
	Missing []store.Input // inputs the store has by digest only
	WorkDir string        // where the commands run: the run's working directory under DIR/inputs
	// Commands are the steps, argument vectors run in WorkDir: generate,
	// then run, submit or simulate again.
	Commands [][]string
	Notes    []string
}

// ReproduceScript is the script written beside the inputs.
const ReproduceScript = "reproduce.sh"

// Reproduce writes the inputs of run runID of the store at dbPath into dir
// and works out the commands that regenerate and rerun it. It fails when
// the run's provenance does not match its digest, when the store holds no
// inputs for the run (recorded by a gmark before schema version 2), and
// when a stored content no longer has its digest.
func Reproduce(dbPath, runID, dir string) (*Reproduction, error) {
	st, err := store.OpenReadOnly(dbPath)
	if err != nil {
		return nil, err
	}
	defer st.Close()
	run, err := st.Run(runID)
	if err != nil {
		return nil, err
	}
	if err := st.VerifyProvenance(runID); err != nil {
		return nil, fmt.Errorf("%v: the record cannot be trusted to reproduce the run", err)
	}
	provs, err := st.Provenance(runID)
	if err != nil {
		return nil, err
	}
	p := provs[0] // the run's start; a resume changes none of its inputs
	if len(p.Inputs) == 0 {
		return nil, fmt.Errorf("run %s: the store holds none of its input files (recorded by a gmark before store schema version 2, "+
			"or from a workload without a manifest); it names the spec %s (SHA-256 %s) only", runID, p.SpecPath, p.SpecSHA256)
	}
	if dir, err = filepath.Abs(dir); err != nil {
		return nil, err
	}
	r := &Reproduction{RunID: runID, Dir: dir}
	lay := newLayout(p, filepath.Join(dir, "inputs"))
	r.WorkDir = lay.place(p.WorkingDir)
	if err := os.MkdirAll(r.WorkDir, 0o755); err != nil {
		return nil, err
	}
	for _, in := range p.Inputs {
		if err := r.writeInput(st, lay, in); err != nil {
			return nil, err
		}
	}
	r.commands(p, run, lay)
	r.versionNote(p)
	return r, r.writeScript()
}

// writeInput writes one input where the layout puts it, or notes it
// missing.
func (r *Reproduction) writeInput(st *store.Store, lay layout, in store.Input) error {
	dst := lay.place(in.Path)
	if !in.Stored {
		r.Missing = append(r.Missing, in)
		r.Notes = append(r.Notes, fmt.Sprintf("the store has the %s %s by digest only (SHA-256 %s, %d bytes): put that file at %s before running",
			in.Role, in.Path, in.SHA256, in.Size, dst))
		return nil
	}
	b, err := st.InputContent(in.SHA256)
	if err != nil {
		return fmt.Errorf("%s %s: %w", in.Role, in.Path, err)
	}
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return err
	}
	if err := outfile.WriteFile(dst, b); err != nil {
		return err
	}
	r.Written = append(r.Written, dst)
	return nil
}

// layout places the run's files under a directory as they stood around
// its working directory: every path made absolute from the working
// directory, then taken relative to the deepest directory holding them
// all. The commands run in the working directory's place, with the
// relative paths the run used, so that the regenerated manifest names the
// same paths.
type layout struct {
	wd, root, under string
}

func newLayout(p store.Provenance, under string) layout {
	l := layout{wd: filepath.Clean(p.WorkingDir), under: under}
	if !filepath.IsAbs(l.wd) {
		l.wd = string(filepath.Separator)
	}
	l.root = l.wd
	for _, in := range p.Inputs {
		l.root = commonDir(l.root, filepath.Dir(l.abs(in.Path)))
	}
	return l
}

func (l layout) abs(p string) string {
	if filepath.IsAbs(p) {
		return filepath.Clean(p)
	}
	return filepath.Join(l.wd, p)
}

// place is where path goes under the layout's directory.
func (l layout) place(path string) string {
	rel, _ := filepath.Rel(l.root, l.abs(path)) // root holds every path the layout places
	return filepath.Join(l.under, rel)
}

// arg is how a command names path: as the run did when it was relative
// (the commands run in the working directory's place) and leads to its
// place from there, else its place ("../../x" from the root directory is
// /x, which the commands, run deeper, would not find there).
func (l layout) arg(path string) string {
	if path == "" || !filepath.IsAbs(path) && filepath.Join(l.place(l.wd), path) == l.place(path) {
		return path
	}
	return l.place(path)
}

// commonDir is the deepest directory holding both a and b (absolute, clean).
func commonDir(a, b string) string {
	for !within(b, a) {
		parent := filepath.Dir(a)
		if parent == a {
			break
		}
		a = parent
	}
	return a
}

// within tells whether path is dir or below it.
func within(path, dir string) bool {
	rel, err := filepath.Rel(dir, path)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}

// recorded are the parts of a run's records its commands are made from.
type recorded struct {
	Settings struct {
		Workers       int     `json:"workers"`
		Speedup       float64 `json:"speedup"`
		MaxInFlight   int     `json:"max_in_flight"`
		TailNS        int64   `json:"tail_ns"`
		HasTail       bool    `json:"has_tail"`
		Retries       int     `json:"retries"`
		SubmitRetries int     `json:"submit_retries"`
		BackoffNS     int64   `json:"backoff_ns"`
		RetryForNS    int64   `json:"retry_for_ns"`
	}
	Target struct {
		Endpoint     string  `json:"endpoint"`
		Grid         string  `json:"grid"`
		Policy       string  `json:"policy"`
		Priority     string  `json:"priority"`
		Runner       string  `json:"runner"`
		ScanInterval string  `json:"scan_interval"`
		Processors   int     `json:"processors"`
		Seed         *uint64 `json:"seed"`
		Warmup       string  `json:"warmup"`
	}
	Core struct {
		Core struct {
			ScanInterval string `json:"scan_interval"`
		} `json:"core"`
	}
	Manifest workload.Manifest
}

// commands works out the steps: regenerate the workload, then do again
// what the run's command did ('gmark run', 'gmark koala simulate', or
// 'gmark submit').
func (r *Reproduction) commands(p store.Provenance, run store.Run, lay layout) {
	var rec recorded
	_ = json.Unmarshal([]byte(run.Settings), &rec.Settings)
	_ = json.Unmarshal([]byte(p.TargetConfig), &rec.Target)
	_ = json.Unmarshal([]byte(p.Scheduler), &rec.Core)
	_ = json.Unmarshal([]byte(p.Manifest), &rec.Manifest)
	var args []string
	_ = json.Unmarshal([]byte(p.CommandLine), &args)
	seed := "1"
	if p.Seed != nil {
		seed = strconv.FormatUint(*p.Seed, 10)
	}
	work := filepath.Join(r.Dir, "workload")
	gen := []string{"gmark", "generate", lay.arg(p.SpecPath), "--seed", seed, "-o", work, "-f"}
	if m := rec.Manifest; len(m.JDF) > 0 {
		gen = append(gen, "--jdf", strings.Join(m.JDF, ","))
		if m.SingleFile {
			gen = append(gen, "--single-file")
		}
	}
	if len(rec.Manifest.Traces) > 0 {
		gen = append(gen, "--format", strings.Join(rec.Manifest.Traces, ","))
	}
	r.Commands = append(r.Commands, gen)
	var again []string
	switch {
	case len(args) > 1 && args[1] == "run":
		again = []string{"gmark", "run", lay.arg(p.SpecPath), "--seed", seed, "-o", filepath.Join(r.Dir, "run"), "--target", run.Target}
		again = append(again, rec.settingsFlags(false)...)
	case len(args) > 2 && args[1] == "koala" && args[2] == "simulate":
		again = []string{"gmark", "koala", "simulate", work, "--db", filepath.Join(r.Dir, "results.db")}
		if s := rec.Target.Seed; s != nil {
			again = append(again, "--seed", strconv.FormatUint(*s, 10))
		}
		again = appendIf(again, "--warmup", rec.Target.Warmup)
		again = appendIf(again, "--scan-interval", rec.Core.Core.ScanInterval)
	default:
		again = []string{"gmark", "submit", work, "--target", run.Target, "--db", filepath.Join(r.Dir, "results.db")}
		again = append(again, rec.settingsFlags(true)...)
	}
	again = append(again, r.targetFlags(rec, p, lay, again[1] == "run")...)
	r.Commands = append(r.Commands, again)
}

// settingsFlags are the submitter's settings that differ from their
// defaults, as flags; 'gmark run' has only some of them.
func (rec *recorded) settingsFlags(submit bool) []string {
	s := rec.Settings
	var f []string
	if s.Workers != 0 && s.Workers != 5 {
		f = append(f, "--workers", strconv.Itoa(s.Workers))
	}
	if s.Speedup != 0 && s.Speedup != 1 {
		f = append(f, "--speedup", strconv.FormatFloat(s.Speedup, 'g', -1, 64))
	}
	if s.HasTail {
		f = append(f, "--tail", time.Duration(s.TailNS).String())
	}
	if s.Retries != 0 {
		f = append(f, "--retries", strconv.Itoa(s.Retries))
	}
	if !submit {
		return f
	}
	if s.MaxInFlight != 0 {
		f = append(f, "--max-in-flight", strconv.Itoa(s.MaxInFlight))
	}
	if s.SubmitRetries != 0 && s.SubmitRetries != 4 {
		f = append(f, "--submit-retries", strconv.Itoa(max(s.SubmitRetries, 0)))
	}
	if s.BackoffNS != 0 && s.BackoffNS != int64(500*time.Millisecond) {
		f = append(f, "--backoff", time.Duration(s.BackoffNS).String())
	}
	if s.RetryForNS != 0 && s.RetryForNS != int64(2*time.Minute) {
		f = append(f, "--retry-for", time.Duration(max(s.RetryForNS, 0)).String())
	}
	return f
}

// targetFlags are the target's settings as flags: the grid, targets file
// and processor budget from the written inputs, the koala target's policy,
// priority, runner and scan interval.
func (r *Reproduction) targetFlags(rec recorded, p store.Provenance, lay layout, isRun bool) []string {
	var f []string
	for _, in := range p.Inputs {
		switch in.Role {
		case store.InputGrid:
			f = append(f, "--grid", lay.place(in.Path))
		case store.InputTargets:
			f = append(f, "--targets", lay.place(in.Path))
		}
	}
	t := rec.Target
	if t.Endpoint != "" {
		f = append(f, "--endpoint", t.Endpoint)
		r.Notes = append(r.Notes, "the run used a scheduler gmark did not start ("+t.Endpoint+"): its settings are not in the store; give its token with --token-file")
	}
	f = appendIf(f, "--policy", t.Policy)
	f = appendIf(f, "--priority", t.Priority)
	f = appendIf(f, "--runner", t.Runner)
	if isRun {
		f = appendIf(f, "--scan-interval", t.ScanInterval)
	}
	if t.Processors > 0 && p.Target == "local" {
		f = append(f, "--processors", strconv.Itoa(t.Processors))
	}
	return f
}

func appendIf(f []string, flag, value string) []string {
	if value == "" {
		return f
	}
	return append(f, flag, value)
}

// versionNote says when this gmark may not be the one that made the run:
// the same spec and seed give the same workload only with the same
// generator.
func (r *Reproduction) versionNote(p store.Provenance) {
	now := version.Get()
	switch {
	case p.GmarkRevision == "" || now.Revision == "":
		r.Notes = append(r.Notes, fmt.Sprintf("the run was made by gmark %s, revision %s; this is gmark %s, revision %s: "+
			"with a revision unknown, it cannot be told whether they generate the same workload", p.GmarkVersion, orUnknown(p.GmarkRevision),
			now.Version, orUnknown(now.Revision)))
	case p.GmarkVersion != now.Version || p.GmarkRevision != now.Revision:
		r.Notes = append(r.Notes, fmt.Sprintf("the run was made by gmark %s, revision %s; this is gmark %s, revision %s: "+
			"a workload regenerated by another gmark may differ", p.GmarkVersion, p.GmarkRevision, now.Version, now.Revision))
	case p.GmarkModified != nil && *p.GmarkModified:
		r.Notes = append(r.Notes, "the gmark that made the run was built from a modified tree: its changes are not in the store")
	}
}

func orUnknown(s string) string {
	if s == "" {
		return "unknown"
	}
	return s
}

// writeScript writes DIR/reproduce.sh: the commands, run with $GMARK
// (default gmark).
func (r *Reproduction) writeScript() error {
	var b strings.Builder
	fmt.Fprintf(&b, "#!/bin/sh\n# Regenerates and reruns run %s from the inputs its results store holds\n# (gmark report --reproduce). GMARK names the gmark binary to use.\nset -e\n", r.RunID)
	fmt.Fprintf(&b, "GMARK=\"${GMARK:-gmark}\"\ncd %s\n", quoteArgs([]string{r.WorkDir}))
	for _, c := range r.Commands {
		fmt.Fprintf(&b, "\"$GMARK\" %s\n", quoteArgs(c[1:]))
	}
	path := filepath.Join(r.Dir, ReproduceScript)
	if err := outfile.WriteFile(path, []byte(b.String())); err != nil {
		return err
	}
	return os.Chmod(path, 0o755)
}

// WriteText says what was written and prints the commands.
func (r *Reproduction) WriteText(w io.Writer) error {
	ew := &errWriter{w: w}
	ew.printf("run %s: %d input files written under %s\n", r.RunID, len(r.Written), filepath.Join(r.Dir, "inputs"))
	for _, p := range r.Written {
		ew.printf("  %s\n", p)
	}
	ew.printf("regenerate the workload and rerun it (%s does the same):\n", filepath.Join(r.Dir, ReproduceScript))
	ew.printf("  cd %s\n", quoteArgs([]string{r.WorkDir}))
	for _, c := range r.Commands {
		ew.printf("  %s\n", quoteArgs(c))
	}
	for _, n := range r.Notes {
		ew.printf("note: %s\n", n)
	}
	return ew.err
}
