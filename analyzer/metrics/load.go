package metrics

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/BurntSushi/toml"
	"github.com/gmark/gmark/analyzer/store"
	"github.com/gmark/gmark/record"
	"github.com/gmark/gmark/workload"
)

// RunData is everything the metrics read of one run.
type RunData struct {
	ID        string
	Project   string
	Scenario  string
	Target    string
	CreatedNS int64
	Status    string // completed, aborted, or running (no end recorded: running or interrupted)
	EndNS     int64
	Settings  string  // the submitter's settings, JSON
	Speedup   float64 // the submitter's --speedup (1 when not set)
	// JobScale is how many times faster than the wall clock the target ran
	// the jobs: the bundled core's time scale, 1 for targets whose jobs run
	// in real time; JobScaleSource says how it is known (findJobScale).
	JobScale       float64
	JobScaleSource string
	WorkloadDir    string
	Jobs           []Job
	Provenance     []store.Provenance

	// Processors is the system size utilization is measured against; 0
	// when unknown. ProcessorsSource says where it came from.
	Processors       int
	ProcessorsSource string

	Koala *KoalaData // the bundled core's view of the jobs; nil for other targets
	// DAGs are the composite jobs' dependencies (task ids, from the
	// submitter's dag events): the workflow metrics' graphs.
	DAGs  map[string][][2]string
	Notes []string // what the loader could not find, and what it assumed

	// ComponentStarts are, per job id, its components' start times as the
	// target recorded them (nil when none did); ComponentStartsSource says
	// whence ("record": the targets' component-start records; in runs
	// recorded before them "slurm" or "koala").
	ComponentStarts       map[string]ComponentStarts
	ComponentStartsSource string
	// componentAttempts: the attempt of each job the component-start
	// records are of (their last), whose starts count only when it is the
	// job's last; componentClock: whose clock they are on.
	componentAttempts map[string]int
	componentClock    string
}

// KoalaData is what the bundled scheduler core recorded about the jobs of a
// run: per job, and for a simulated run its own utilization accounting.
type KoalaData struct {
	Simulated bool
	// TimeScale is core seconds per wall second (the core's time_scale);
	// the phases below are already converted to wall seconds.
	TimeScale float64
	Jobs      map[string]*CoreJob // by job id
	// Utilization is the core's accounting of a simulated run (fractions
	// of the grid's capacity over Seconds, after the warm-up), when recorded.
	Utilization *CoreUtilization
	// Deadlines are the core's figures of jobs with start deadlines and of
	// local users' jobs, in core (workload) seconds, when recorded: by a
	// simulation, or by a live run on the bundled core.
	Deadlines *CoreDeadlines
}

// CoreDeadlines is the core's "koala-deadlines" annotation of a run
// (simulated, or live on the bundled core): Ballier et al.'s metrics,
// docs/deadlines.md.
type CoreDeadlines = record.CoreDeadlines

// CoreUtilization is the core's "koala-utilization" annotation.
type CoreUtilization = record.CoreUtilization

// CoreJob is the core's record of one job. Times in seconds on the
// submitter's (wall) clock; NaN when the events do not tell.
type CoreJob struct {
	Placement      float64 // total placement time (submission to the last placement)
	Transfer       float64 // estimated file transfer time of the last placement
	PlacementTries int     // failed placement tries
	ClaimTries     int
	Replacements   int // times sent back to the placement queue
	Restarts       int
	// The phases of the response time, when every event is known:
	// submitted → placed → claimed → started.
	HasPhases bool
	Place     float64 // submitted → last placed
	Claim     float64 // last placed → claimed (waiting for the claim time and claiming)
	Hold      float64 // claimed → started (processors held idle: wasted)
}

// LoadOptions tune Load.
type LoadOptions struct {
	// Processors overrides the system size (0: find it in the run's
	// records; see docs/metrics.md).
	Processors int
	// NoUsers skips reading the workload directory for the jobs' users.
	NoUsers bool
}

// Load reads a run from the store.
func Load(st *store.Store, runID string, opts LoadOptions) (*RunData, error) {
	rd, sha, err := loadHead(st, runID)
	if err != nil {
		return nil, err
	}
	n, err := st.CountJobs(runID)
	if err != nil {
		return nil, err
	}
	rd.Jobs = make([]Job, 0, n)
	err = st.ScanJobs(runID, func(f *store.JobFacts) error {
		rd.Jobs = append(rd.Jobs, Job{JobFacts: *f})
		return nil
	})
	if err != nil {
		return nil, err
	}
	rd.markWarm()
	rd.findProcessors(opts.Processors, st)
	if !opts.NoUsers {
		rd.readUsers(sha)
	}
	switch rd.Target {
	case "koala-sim":
		if err := rd.loadSimCore(st); err != nil {
			return nil, err
		}
	case "koala":
		if err := rd.loadLiveCore(st); err != nil {
			return nil, err
		}
	}
	rd.findJobScale(st)
	if err := rd.loadComponentStarts(st); err != nil {
		return nil, err
	}
	if err := rd.loadDAGs(st); err != nil {
		return nil, err
	}
	return rd, nil
}

// loadHead reads what Load reads of a run before its jobs: the run's row,
// scenario, settings, end and provenance. It returns the digest of the
// workload the run submitted too.
func loadHead(st *store.Store, runID string) (*RunData, string, error) {
	r, err := st.Run(runID)
	if err != nil {
		if errors.Is(err, store.ErrNotFound) {
			return nil, "", fmt.Errorf("run %s is not in %s", runID, st.Path())
		}
		return nil, "", err
	}
	rd := &RunData{ID: r.ID, Target: r.Target, CreatedNS: r.CreatedNS, Settings: r.Settings, WorkloadDir: r.WorkloadDir, Speedup: 1, Status: "running"}
	if sc, p, err := st.Scenario(r.ScenarioID); err == nil {
		rd.Scenario, rd.Project = sc.Name, p.Name
	}
	var settings struct {
		Speedup float64 `json:"speedup"`
	}
	if json.Unmarshal([]byte(r.Settings), &settings) == nil && settings.Speedup > 0 {
		rd.Speedup = settings.Speedup
	}
	if e, ok, err := st.RunEnd(runID); err != nil {
		return nil, "", err
	} else if ok {
		rd.Status, rd.EndNS = e.Status, e.EndNS
	} else {
		how := "gmark submit --resume " + runID
		if r.Target == "koala-sim" {
			how = "gmark koala simulate --db STORE --resume " + runID
		}
		rd.Notes = append(rd.Notes, "the run has no end record: it is still running, or was interrupted ("+how+" continues it)")
	}
	if rd.Provenance, err = st.Provenance(runID); err != nil {
		return nil, "", err
	}
	if err := st.VerifyProvenance(runID); err != nil {
		rd.Notes = append(rd.Notes, "provenance check failed: "+err.Error())
	}
	return rd, r.WorkloadSHA256, nil
}

// markWarm marks the warm jobs: those the manifest of the run's workload
// lists (it is recorded in every provenance record, so the store alone
// tells; the last record's manifest wins).
func (rd *RunData) markWarm() {
	set := rd.warmSet()
	if len(set) == 0 {
		return
	}
	for i := range rd.Jobs {
		if j := &rd.Jobs[i]; set[j.ID] && j.Parent == "" || set[j.Parent] { // a warm composite job's tasks too
			j.Warm = true
		}
	}
}

// warmSet is the set of the warm jobs' ids (nil when there are none).
func (rd *RunData) warmSet() map[string]bool {
	var warm []string
	for _, p := range rd.Provenance {
		var m struct {
			WarmJobs []string `json:"warm_jobs"`
		}
		if p.Manifest != "" && json.Unmarshal([]byte(p.Manifest), &m) == nil {
			warm = m.WarmJobs
		}
	}
	if len(warm) == 0 {
		return nil
	}
	set := make(map[string]bool, len(warm))
	for _, id := range warm {
		set[id] = true
	}
	return set
}

// targetConfig is the part of a provenance record's target configuration
// the loader reads.
type targetConfig struct {
	Grid       string  `json:"grid"`
	Endpoint   string  `json:"endpoint"`
	Processors int     `json:"processors"`
	TimeScale  float64 `json:"time_scale"` // the bundled core's, when the run set it
}

func (rd *RunData) lastTargetConfig() (targetConfig, string) {
	var tc targetConfig
	wd := ""
	for _, p := range rd.Provenance {
		var c targetConfig
		if json.Unmarshal([]byte(p.TargetConfig), &c) == nil {
			tc, wd = c, p.WorkingDir
		}
	}
	return tc, wd
}

// gridFile is the part of a koala grid file the loader reads.
type gridFile struct {
	Scheduler struct {
		TimeScale float64 `toml:"time_scale"`
	} `toml:"scheduler"`
	Cluster []struct {
		Processors int    `toml:"processors"`
		LRM        string `toml:"lrm"`
	} `toml:"cluster"`
}

// recordedGrid is the grid file the run recorded in its provenance, read
// from the store (nil when it recorded none): what the run used, whatever
// became of the file since.
func (rd *RunData) recordedGrid(st *store.Store) (*gridFile, error) {
	for i := len(rd.Provenance) - 1; i >= 0; i-- {
		for _, in := range rd.Provenance[i].Inputs {
			if in.Role != store.InputGrid || !in.Stored {
				continue
			}
			b, err := st.InputContent(in.SHA256)
			if err != nil {
				return nil, err
			}
			var g gridFile
			if _, err := toml.Decode(string(b), &g); err != nil {
				return nil, err
			}
			return &g, nil
		}
	}
	return nil, nil
}

func readGrid(path, wd string) (*gridFile, error) {
	if !filepath.IsAbs(path) && wd != "" {
		path = filepath.Join(wd, path)
	}
	var g gridFile
	if _, err := toml.DecodeFile(path, &g); err != nil {
		return nil, err
	}
	return &g, nil
}

// findProcessors sets the system size: the override, else the koala grid's
// processors (the grid the run recorded in the store, else the grid file
// named in the target's configuration), else the local target's processor
// budget; otherwise it stays unknown.
func (rd *RunData) findProcessors(override int, st *store.Store) {
	if override > 0 {
		rd.Processors, rd.ProcessorsSource = override, "--processors"
		return
	}
	tc, wd := rd.lastTargetConfig()
	switch {
	case tc.Grid != "":
		g, err := rd.recordedGrid(st)
		if g == nil && err == nil {
			g, err = readGrid(tc.Grid, wd)
		}
		if err != nil {
			rd.Notes = append(rd.Notes, fmt.Sprintf("system size unknown: the grid file %s cannot be read (%v); pass --processors N", tc.Grid, err))
			return
		}
		n, fromController := 0, false
		for _, c := range g.Cluster {
			n += c.Processors
			fromController = fromController || (c.LRM == "slurm" && c.Processors == 0)
		}
		switch {
		case fromController:
			// A Slurm cluster's processors were read from its controller
			// when the core started; the koala target recorded the total.
			if core := rd.coreProcessors(st); core > 0 {
				rd.Processors, rd.ProcessorsSource = core, "the bundled core at the run's start (grid file "+tc.Grid+", Slurm clusters' processors from their controllers)"
			}
		case n > 0:
			rd.Processors, rd.ProcessorsSource = n, "grid file "+tc.Grid+" (every cluster's processors, background load included)"
		}
	case rd.Target == "local" && tc.Processors > 0:
		rd.Processors, rd.ProcessorsSource = tc.Processors, "the local target's processor budget"
	}
	if rd.Processors == 0 {
		rd.Notes = append(rd.Notes, "system size unknown (the "+rd.Target+" target does not record it): utilization is not computed; pass --processors N")
	}
}

// coreProcessors is the grid size the bundled core reported when the run's
// koala target connected (its "koala" annotation "processors"), or 0.
func (rd *RunData) coreProcessors(st *store.Store) int {
	as, err := st.Annotations(rd.ID, record.AnnotationKoala)
	if err != nil {
		return 0
	}
	for i := len(as) - 1; i >= 0; i-- {
		if as[i].Key == "processors" {
			if n, err := strconv.Atoi(as[i].Value); err == nil && n > 0 {
				return n
			}
		}
	}
	return 0
}

// readUsers fills the jobs' users from the run's workload directory (the
// store has no user column), when the directory is still there, its
// workload.jsonl is the one the run submitted, and its jobs name users.
func (rd *RunData) readUsers(sha string) {
	users := rd.userMap(sha)
	if len(users) == 0 {
		return
	}
	for i := range rd.Jobs {
		rd.Jobs[i].User = users[rd.Jobs[i].ID]
	}
}

// userMap reads the users of the jobs (by job id) from the run's workload
// directory, under readUsers's conditions; nil when there are none.
func (rd *RunData) userMap(sha string) map[string]string {
	if rd.WorkloadDir == "" {
		return nil
	}
	f, err := workload.OpenJobs(rd.WorkloadDir)
	if err != nil {
		return nil
	}
	defer f.Close()
	h := sha256.New()
	br := bufio.NewReaderSize(io.TeeReader(f, h), 1<<20)
	users := map[string]string{}
	for {
		line, err := br.ReadSlice('\n')
		if bytes.Contains(line, []byte(`"user"`)) {
			var v struct {
				ID    string `json:"id"`
				User  string `json:"user"`
				Tasks []struct {
					ID   string `json:"id"`
					User string `json:"user"`
				} `json:"tasks"`
			}
			if json.Unmarshal(line, &v) == nil {
				if v.User != "" {
					users[v.ID] = v.User
				}
				for _, t := range v.Tasks {
					if u := cmpOr(t.User, v.User); u != "" {
						users[t.ID] = u
					}
				}
			}
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			for errors.Is(err, bufio.ErrBufferFull) { // a line longer than the buffer: skip it
				_, err = br.ReadSlice('\n')
			}
		}
		if err != nil {
			break
		}
	}
	if hex.EncodeToString(h.Sum(nil)) != sha {
		rd.Notes = append(rd.Notes, "the workload directory "+rd.WorkloadDir+" changed since the run: users not read")
		return nil
	}
	return users
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// loadSimCore reads what 'gmark koala simulate --db' recorded: per job the
// core's figures in the events' payloads, and the core's utilization.
func (rd *RunData) loadSimCore(st *store.Store) error {
	k := &KoalaData{Simulated: true, TimeScale: 1, Jobs: make(map[string]*CoreJob, len(rd.Jobs))} // one a job, sized once
	err := st.ScanSimJobFacts(rd.ID, func(f store.SimJobFacts) error {
		k.Jobs[f.JobID] = &CoreJob{Placement: sec(f.PlacementNS), Transfer: sec(f.FTTNS), PlacementTries: f.PlacementTries,
			ClaimTries: f.ClaimTries, Restarts: f.Restarts, Place: math.NaN(), Claim: math.NaN(), Hold: math.NaN()}
		return nil
	})
	if err != nil {
		return err
	}
	if err := rd.loadUtilization(st, k); err != nil {
		return err
	}
	if err := rd.loadDeadlines(st, k); err != nil {
		return err
	}
	rd.Koala = k
	return nil
}

// loadUtilization reads the core's "koala-utilization" annotation of a
// simulated run.
func (rd *RunData) loadUtilization(st *store.Store, k *KoalaData) error {
	as, err := st.Annotations(rd.ID, record.AnnotationKoalaUtilization)
	if err != nil {
		return err
	}
	if len(as) > 0 {
		var u CoreUtilization
		if json.Unmarshal([]byte(as[len(as)-1].Value), &u) == nil {
			k.Utilization = &u
		}
	}
	return nil
}

// loadDeadlines reads the core's "koala-deadlines" annotation, which
// 'gmark koala simulate --db' and a live run on the bundled core (the koala
// target, when the run ends) record alike.
func (rd *RunData) loadDeadlines(st *store.Store, k *KoalaData) error {
	as, err := st.Annotations(rd.ID, record.AnnotationKoalaDeadlines)
	if err != nil || len(as) == 0 {
		return err
	}
	var d CoreDeadlines
	if json.Unmarshal([]byte(as[len(as)-1].Value), &d) == nil {
		k.Deadlines = &d
	} else {
		rd.Notes = append(rd.Notes, "the core's koala-deadlines annotation is not valid JSON: left out")
	}
	return nil
}

// coreTimes collects one job's core events.
type coreTimes struct {
	submitted, placed, claimed, started, ended time.Time
	ftt                                        int64
	claimTries, placements, replaced           int
}

// loadLiveCore reads the bundled core's events of a live koala run (the
// submitter's koala target records them), and derives each job's phases.
// The core's clock runs time_scale times faster than the wall clock; the
// scale is measured from the jobs themselves (the core's start and end of a
// job against the submitter's), so no configuration is needed.
func (rd *RunData) loadLiveCore(st *store.Store) error {
	byJob := map[string]*coreTimes{}
	get := func(id string) *coreTimes {
		c := byJob[id]
		if c == nil {
			c = &coreTimes{}
			byJob[id] = c
		}
		return c
	}
	err := st.ScanCoreEvents(rd.ID, func(e store.CoreEventTime) error {
		id := e.JobID
		if id == "" {
			parts := strings.Split(e.Key, "/")
			if len(parts) < 3 {
				return nil
			}
			id = strings.Join(parts[1:len(parts)-1], "/")
		}
		t, err := time.Parse(time.RFC3339Nano, e.CoreRFC)
		if err != nil {
			return nil
		}
		c := get(id)
		switch e.Kind {
		case "submitted":
			if c.submitted.IsZero() || t.Before(c.submitted) {
				c.submitted = t
			}
		case "placed":
			c.placements++
			if t.After(c.placed) {
				c.placed, c.ftt = t, e.FTTNS
			}
		case "claim_try":
			c.claimTries++
		case "claimed":
			if t.After(c.claimed) {
				c.claimed = t
			}
		case "replaced":
			c.replaced++
		case "started":
			if c.started.IsZero() || t.Before(c.started) {
				c.started = t
			}
		case "finished", "failed", "cancelled":
			c.ended = t
		}
		return nil
	})
	if err != nil {
		return err
	}
	if len(byJob) == 0 {
		rd.Notes = append(rd.Notes, "the koala run recorded none of the core's events: no response-time breakdown")
		k := &KoalaData{TimeScale: 1, Jobs: map[string]*CoreJob{}}
		if err := rd.loadDeadlines(st, k); err != nil || k.Deadlines == nil {
			return err
		}
		rd.Koala = k
		return nil
	}
	// The scale: core seconds per wall second, the median over jobs.
	var scales []float64
	for i := range rd.Jobs {
		j := &rd.Jobs[i]
		c := byJob[j.ID]
		if c == nil || c.started.IsZero() || c.ended.IsZero() || j.EndNS-j.StartNS < int64(time.Millisecond) {
			continue
		}
		scales = append(scales, float64(c.ended.Sub(c.started))/float64(j.EndNS-j.StartNS))
	}
	k := &KoalaData{TimeScale: 1, Jobs: map[string]*CoreJob{}}
	if len(scales) > 0 {
		slices.Sort(scales)
		if s := scales[len(scales)/2]; s > 0 {
			k.TimeScale = s
		}
	}
	wall := func(d time.Duration) float64 { return d.Seconds() / k.TimeScale }
	for id, c := range byJob {
		cj := &CoreJob{ClaimTries: c.claimTries, Replacements: c.replaced, PlacementTries: max(0, c.placements-1),
			Transfer: wall(time.Duration(c.ftt)), Placement: math.NaN(), Place: math.NaN(), Claim: math.NaN(), Hold: math.NaN()}
		if !c.submitted.IsZero() && !c.placed.IsZero() {
			cj.Placement = wall(c.placed.Sub(c.submitted))
			cj.Place = cj.Placement
		}
		if !c.submitted.IsZero() && !c.placed.IsZero() && !c.claimed.IsZero() && !c.started.IsZero() &&
			!c.placed.Before(c.submitted) && !c.claimed.Before(c.placed) && !c.started.Before(c.claimed) {
			cj.HasPhases = true
			cj.Claim = wall(c.claimed.Sub(c.placed))
			cj.Hold = wall(c.started.Sub(c.claimed))
		}
		k.Jobs[id] = cj
	}
	if err := rd.loadDeadlines(st, k); err != nil {
		return err
	}
	rd.Koala = k
	return nil
}
