package store

// The rows of the store, one type per table. Times are Unix nanoseconds, 0
// meaning unknown (NULL); durations are nanoseconds. docs/store.md says what
// every field means.

// Project groups scenarios.
type Project struct {
	ID          int64
	Name        string
	Description string
	CreatedNS   int64
}

// Scenario is a test scenario of a project; runs repeat it.
type Scenario struct {
	ID          int64
	ProjectID   int64
	Name        string
	Description string
	CreatedNS   int64
}

// Run is one test run: a workload submitted to a target.
type Run struct {
	ID               string
	ScenarioID       int64
	CreatedNS        int64
	WorkloadDir      string
	WorkloadSHA256   string // of workload.jsonl
	Jobs             int    // top-level jobs in the workload
	Tasks            int    // sub-jobs of its composite jobs
	Target           string // target name: slurm, local, dryrun, …
	Settings         string // JSON: the submitter's settings (workers, speedup, tail, …)
	ProvenanceSHA256 string // digest of the run's first provenance record
}

// RunEnd closes a run; a run without one is in progress or was interrupted.
type RunEnd struct {
	RunID   string
	EndNS   int64
	Status  string // "completed" or "aborted"
	Summary string // JSON
}

// Run end statuses.
const (
	RunCompleted = "completed"
	RunAborted   = "aborted"
)

// Provenance says where a run came from. A run has one record per gmark
// invocation that worked on it: seq 0 when it started, 1, 2, … per resume.
type Provenance struct {
	RunID          string
	Seq            int
	RecordedNS     int64
	GmarkVersion   string
	GoVersion      string
	Host           string
	OSArch         string
	User           string
	CommandLine    string // JSON array of the arguments
	WorkingDir     string
	WorkloadDir    string
	WorkloadSHA256 string
	SpecPath       string
	SpecSHA256     string
	Includes       string // JSON array of {"path","sha256"}
	Seed           *uint64
	Manifest       string // the workload's manifest.json, verbatim
	Target         string
	TargetConfig   string // JSON
	// Since schema version 2. Empty in a record made before: the fields are
	// left out of the canonical JSON when empty, so such a record keeps
	// its digest.
	GmarkRevision string  `json:",omitempty"` // the VCS revision gmark was built from; "" unknown
	GmarkModified *bool   `json:",omitempty"` // whether that tree had changes; nil unknown
	Scheduler     string  `json:",omitempty"` // JSON: the scheduler parameters in force
	Inputs        []Input `json:",omitempty"` // the files the run was made from
	Digest        string  // SHA-256 of the fields above (see Digest)
	// Contents are the inputs' contents by SHA-256, written with the record
	// (input_contents) and read back with Store.InputContent.
	Contents map[string][]byte `json:"-"`
}

// Input is a file a run was made from, by digest; its content is in the
// store when Stored.
type Input struct {
	Role   string `json:"role"` // InputSpec, InputInclude, InputTrace, InputGrid, InputTargets
	Path   string `json:"path"` // as the run named it (relative to the working directory, or absolute)
	SHA256 string `json:"sha256"`
	Size   int64  `json:"size"`
	Stored bool   `json:"stored"`
}

// The roles of a run's inputs.
const (
	InputSpec    = "spec"    // the WDL spec
	InputInclude = "include" // a file the spec read: an ExternalFile extension file, a fit file
	InputTrace   = "trace"   // a trace a wl:trace unit replays
	InputGrid    = "grid"    // the bundled core's grid description
	InputTargets = "targets" // the targets file
)

// Submission is the record written before a submit call: the idempotency
// key and what is about to be submitted.
type Submission struct {
	Key         string // "<run>/<job>/<attempt>"
	RunID       string
	JobID       string
	ParentID    string // composite job of a task; "" for a top-level job
	Attempt     int    // 1, 2, … (composite task retries)
	ScheduledNS int64  // when the submission was due
	IntentNS    int64  // when this record was made
}

// Result is the record written after a submit call (with its retries).
type Result struct {
	Key        string
	RunID      string
	OK         bool
	SubmitNS   int64 // when the successful submit call started; 0 if none succeeded
	DelayNS    int64 // SubmitNS − ScheduledNS, on the monotonic clock
	DoneNS     int64 // when this record was made
	TargetID   string
	Output     string // what the submit command printed
	ExitStatus *int   // of the submit command; nil when there was none
	Tries      int    // submit calls made, with retries of transient errors
	Error      string // why the submission failed; "" when OK
	Recovered  bool   // found at the target by --resume rather than seen submitted
}

// Job states.
const (
	Succeeded    = "succeeded"
	Failed       = "failed"
	Cancelled    = "cancelled"
	NeverStarted = "never-started"
)

// Job is the final record of one job, task or composite job of a run.
type Job struct {
	RunID            string
	JobID            string
	ParentID         string
	Unit             int
	Index            int
	Kind             string
	Type             string
	App              string
	SiteType         string
	Processors       int
	Components       string // JSON [{"site","count"}]
	Sites            string // where the target ran it, comma-separated ("" unknown)
	WallTimeNS       int64
	RunTimeNS        int64
	OffsetNS         int64 // the workload's submit offset
	ScheduledNS      int64
	SubmitNS         int64
	DelayNS          int64
	TargetSubmitNS   int64 // when the target says it accepted the job, by its clock
	TargetID         string
	StartNS          int64
	EndNS            int64
	State            string
	Reason           string
	ExitStatus       *int
	Attempts         int
	SubmitOutput     string
	SubmitExitStatus *int
	Summary          string // the application's final JSON line
	RecordedNS       int64
}

// Event is one time-stamped happening of a run (JobID "") or of a job.
type Event struct {
	ID      int64
	RunID   string
	JobID   string
	Attempt int
	TimeNS  int64
	Kind    string
	Payload string // JSON object
}

// Annotation is an append-only fact attached to a run or a project, such as a
// cluster status sample.
type Annotation struct {
	ID        int64
	RunID     string // "" when attached to a project only
	ProjectID int64  // 0 when attached to a run only
	TimeNS    int64
	Kind      string
	Key       string
	Value     string
	Source    string
}
