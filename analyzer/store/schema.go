package store

// migrations are the schema changes in order: migrations[i] takes a database
// from version i to version i+1 (PRAGMA user_version). A released migration
// is never edited; a schema change is a new entry at the end. Every table is
// append-only: the triggers created with it reject UPDATE and DELETE, so the
// only way to change what a run recorded is to add to it.
var migrations = []string{
	// 0 → 1: the first schema. See docs/store.md for the meaning of every column.
	`
CREATE TABLE projects (
	id          INTEGER PRIMARY KEY,
	name        TEXT    NOT NULL UNIQUE,
	description TEXT    NOT NULL DEFAULT '',
	created_ns  INTEGER NOT NULL
);

CREATE TABLE scenarios (
	id          INTEGER PRIMARY KEY,
	project_id  INTEGER NOT NULL REFERENCES projects(id),
	name        TEXT    NOT NULL,
	description TEXT    NOT NULL DEFAULT '',
	created_ns  INTEGER NOT NULL,
	UNIQUE (project_id, name)
);

CREATE TABLE runs (
	id                TEXT    PRIMARY KEY,
	scenario_id       INTEGER NOT NULL REFERENCES scenarios(id),
	created_ns        INTEGER NOT NULL,
	workload_dir      TEXT    NOT NULL,
	workload_sha256   TEXT    NOT NULL,
	jobs              INTEGER NOT NULL,
	tasks             INTEGER NOT NULL,
	target            TEXT    NOT NULL,
	settings          TEXT    NOT NULL,
	provenance_sha256 TEXT    NOT NULL
);

CREATE TABLE run_ends (
	run_id  TEXT    PRIMARY KEY REFERENCES runs(id),
	end_ns  INTEGER NOT NULL,
	status  TEXT    NOT NULL CHECK (status IN ('completed', 'aborted')),
	summary TEXT    NOT NULL
);

CREATE TABLE provenance (
	run_id          TEXT    NOT NULL REFERENCES runs(id),
	seq             INTEGER NOT NULL,
	recorded_ns     INTEGER NOT NULL,
	gmark_version   TEXT    NOT NULL,
	go_version      TEXT    NOT NULL,
	host            TEXT    NOT NULL,
	os_arch         TEXT    NOT NULL,
	user            TEXT    NOT NULL,
	command_line    TEXT    NOT NULL,
	working_dir     TEXT    NOT NULL,
	workload_dir    TEXT    NOT NULL,
	workload_sha256 TEXT    NOT NULL,
	spec_path       TEXT    NOT NULL,
	spec_sha256     TEXT    NOT NULL,
	includes        TEXT    NOT NULL,
	seed            INTEGER,
	manifest        TEXT    NOT NULL,
	target          TEXT    NOT NULL,
	target_config   TEXT    NOT NULL,
	digest          TEXT    NOT NULL,
	PRIMARY KEY (run_id, seq)
);

CREATE TABLE submissions (
	key          TEXT    PRIMARY KEY,
	run_id       TEXT    NOT NULL REFERENCES runs(id),
	job_id       TEXT    NOT NULL,
	parent_id    TEXT    NOT NULL DEFAULT '',
	attempt      INTEGER NOT NULL CHECK (attempt >= 1),
	scheduled_ns INTEGER NOT NULL,
	intent_ns    INTEGER NOT NULL,
	UNIQUE (run_id, job_id, attempt)
);

CREATE TABLE submission_results (
	key         TEXT    PRIMARY KEY REFERENCES submissions(key),
	run_id      TEXT    NOT NULL REFERENCES runs(id),
	ok          INTEGER NOT NULL CHECK (ok IN (0, 1)),
	submit_ns   INTEGER,
	delay_ns    INTEGER,
	done_ns     INTEGER NOT NULL,
	target_id   TEXT    NOT NULL,
	output      TEXT    NOT NULL,
	exit_status INTEGER,
	tries       INTEGER NOT NULL,
	error       TEXT    NOT NULL,
	recovered   INTEGER NOT NULL DEFAULT 0 CHECK (recovered IN (0, 1))
);
CREATE INDEX submission_results_run ON submission_results(run_id);

CREATE TABLE jobs (
	run_id             TEXT    NOT NULL REFERENCES runs(id),
	job_id             TEXT    NOT NULL,
	parent_id          TEXT    NOT NULL DEFAULT '',
	unit               INTEGER NOT NULL,
	idx                INTEGER NOT NULL,
	kind               TEXT    NOT NULL CHECK (kind IN ('unitary', 'composite')),
	type               TEXT    NOT NULL,
	app                TEXT    NOT NULL,
	site_type          TEXT    NOT NULL,
	processors         INTEGER NOT NULL,
	components         TEXT    NOT NULL,
	sites              TEXT    NOT NULL,
	walltime_ns        INTEGER NOT NULL,
	runtime_ns         INTEGER NOT NULL,
	offset_ns          INTEGER NOT NULL,
	scheduled_ns       INTEGER,
	submit_ns          INTEGER,
	delay_ns           INTEGER,
	target_submit_ns   INTEGER,
	target_id          TEXT    NOT NULL,
	start_ns           INTEGER,
	end_ns             INTEGER,
	state              TEXT    NOT NULL CHECK (state IN ('succeeded', 'failed', 'cancelled', 'never-started')),
	reason             TEXT    NOT NULL,
	exit_status        INTEGER,
	attempts           INTEGER NOT NULL,
	submit_output      TEXT    NOT NULL,
	submit_exit_status INTEGER,
	summary            TEXT    NOT NULL,
	recorded_ns        INTEGER NOT NULL,
	PRIMARY KEY (run_id, job_id)
);
CREATE INDEX jobs_parent ON jobs(run_id, parent_id);

CREATE TABLE events (
	id      INTEGER PRIMARY KEY,
	run_id  TEXT    NOT NULL REFERENCES runs(id),
	job_id  TEXT    NOT NULL DEFAULT '',
	attempt INTEGER NOT NULL DEFAULT 0,
	time_ns INTEGER NOT NULL,
	kind    TEXT    NOT NULL,
	payload TEXT    NOT NULL DEFAULT '{}'
);
CREATE INDEX events_run_job ON events(run_id, job_id);

CREATE TABLE annotations (
	id         INTEGER PRIMARY KEY,
	run_id     TEXT    REFERENCES runs(id),
	project_id INTEGER REFERENCES projects(id),
	time_ns    INTEGER NOT NULL,
	kind       TEXT    NOT NULL,
	key        TEXT    NOT NULL,
	value      TEXT    NOT NULL,
	source     TEXT    NOT NULL,
	CHECK (run_id IS NOT NULL OR project_id IS NOT NULL)
);
CREATE INDEX annotations_run ON annotations(run_id, kind);
` + appendOnly("projects", "scenarios", "runs", "run_ends", "provenance", "submissions",
		"submission_results", "jobs", "events", "annotations"),

	// 1 → 2: provenance that reproduces a run from the store alone: the
	// build's VCS revision, the scheduler parameters in force, and the
	// input files (spec, included files, grid, targets file) by digest,
	// their contents kept once each, by digest. A run recorded at version 1
	// keeps its rows and its digest: the new columns are empty for it.
	`
ALTER TABLE provenance ADD COLUMN gmark_revision TEXT NOT NULL DEFAULT '';
ALTER TABLE provenance ADD COLUMN gmark_modified INTEGER CHECK (gmark_modified IN (0, 1));
ALTER TABLE provenance ADD COLUMN scheduler TEXT NOT NULL DEFAULT '';

CREATE TABLE provenance_inputs (
	run_id TEXT    NOT NULL REFERENCES runs(id),
	seq    INTEGER NOT NULL,
	idx    INTEGER NOT NULL,
	role   TEXT    NOT NULL,
	path   TEXT    NOT NULL,
	sha256 TEXT    NOT NULL,
	size   INTEGER NOT NULL,
	stored INTEGER NOT NULL CHECK (stored IN (0, 1)),
	PRIMARY KEY (run_id, seq, idx),
	FOREIGN KEY (run_id, seq) REFERENCES provenance(run_id, seq)
);

CREATE TABLE input_contents (
	sha256  TEXT    PRIMARY KEY,
	size    INTEGER NOT NULL,
	content BLOB    NOT NULL
);
` + appendOnly("provenance_inputs", "input_contents"),

	// 2 → 3: the experiments of the multi-grid simulator (gmark sim run,
	// package sim/experiment): an experiment's definition, its scenarios
	// and planned runs, the gmark invocations that worked on it (its
	// provenance), every run started (attempts) and the result of every run
	// finished, keyed by the run's digest: the SHA-256 of everything that
	// determines its result, so a run is computed once whatever experiment
	// plans it. Nothing here refers to the tables of gmark submit.
	`
CREATE TABLE sim_experiments (
	id         INTEGER PRIMARY KEY,
	name       TEXT    NOT NULL,
	digest     TEXT    NOT NULL,
	created_ns INTEGER NOT NULL,
	definition TEXT    NOT NULL,
	runs       INTEGER NOT NULL CHECK (runs >= 0),
	UNIQUE (name, digest)
);

CREATE TABLE sim_scenarios (
	id            INTEGER PRIMARY KEY,
	experiment_id INTEGER NOT NULL REFERENCES sim_experiments(id),
	idx           INTEGER NOT NULL,
	name          TEXT    NOT NULL,
	definition    TEXT    NOT NULL,
	UNIQUE (experiment_id, idx),
	UNIQUE (experiment_id, name)
);

CREATE TABLE sim_runs (
	experiment_id INTEGER NOT NULL REFERENCES sim_experiments(id),
	idx           INTEGER NOT NULL,
	scenario_id   INTEGER NOT NULL REFERENCES sim_scenarios(id),
	arch          TEXT    NOT NULL,
	load          REAL    NOT NULL,
	rep           INTEGER NOT NULL CHECK (rep >= 1),
	seed          INTEGER NOT NULL,
	digest        TEXT    NOT NULL,
	definition    TEXT    NOT NULL,
	PRIMARY KEY (experiment_id, idx)
);
CREATE INDEX sim_runs_digest ON sim_runs(digest);

CREATE TABLE sim_invocations (
	id             INTEGER PRIMARY KEY,
	experiment_id  INTEGER NOT NULL REFERENCES sim_experiments(id),
	started_ns     INTEGER NOT NULL,
	gmark_version  TEXT    NOT NULL,
	gmark_revision TEXT    NOT NULL,
	gmark_modified INTEGER CHECK (gmark_modified IN (0, 1)),
	go_version     TEXT    NOT NULL,
	host           TEXT    NOT NULL,
	os_arch        TEXT    NOT NULL,
	user           TEXT    NOT NULL,
	command_line   TEXT    NOT NULL,
	working_dir    TEXT    NOT NULL,
	parallel       INTEGER NOT NULL
);

CREATE TABLE sim_invocation_inputs (
	invocation_id INTEGER NOT NULL REFERENCES sim_invocations(id),
	idx           INTEGER NOT NULL,
	role          TEXT    NOT NULL,
	path          TEXT    NOT NULL,
	sha256        TEXT    NOT NULL,
	size          INTEGER NOT NULL,
	stored        INTEGER NOT NULL CHECK (stored IN (0, 1)),
	PRIMARY KEY (invocation_id, idx)
);

CREATE TABLE sim_attempts (
	id            INTEGER PRIMARY KEY,
	digest        TEXT    NOT NULL,
	invocation_id INTEGER NOT NULL REFERENCES sim_invocations(id),
	started_ns    INTEGER NOT NULL
);
CREATE INDEX sim_attempts_digest ON sim_attempts(digest);

CREATE TABLE sim_results (
	digest              TEXT    PRIMARY KEY,
	invocation_id       INTEGER NOT NULL REFERENCES sim_invocations(id),
	finished_ns         INTEGER NOT NULL,
	wall_ns             INTEGER NOT NULL,
	jobs                INTEGER NOT NULL,
	finished            INTEGER NOT NULL,
	utilization         REAL    NOT NULL,
	awt_s               REAL    NOT NULL,
	art_s               REAL    NOT NULL,
	asd                 REAL    NOT NULL,
	asd_tau_s           REAL    NOT NULL,
	goodput_cpu_years   REAL    NOT NULL,
	jf_percent          REAL    NOT NULL,
	delegations_per_job REAL    NOT NULL,
	events              INTEGER NOT NULL,
	workload            TEXT    NOT NULL,
	result              TEXT    NOT NULL
);

CREATE TABLE sim_messages (
	digest TEXT    NOT NULL REFERENCES sim_results(digest),
	type   TEXT    NOT NULL,
	count  INTEGER NOT NULL,
	PRIMARY KEY (digest, type)
);
` + appendOnly("sim_experiments", "sim_scenarios", "sim_runs", "sim_invocations", "sim_invocation_inputs",
		"sim_attempts", "sim_results", "sim_messages"),

	// 3 → 4: the Slurm array tasks of `gmark sim run --on slurm` (package
	// sim/slurmarray): one row per task that ended, with how and why. A
	// task is known by its array's job name and its index in the array, so
	// a coordinator that sees its end twice (killed and run again) records
	// it once.
	`
CREATE TABLE sim_tasks (
	id            INTEGER PRIMARY KEY,
	invocation_id INTEGER NOT NULL REFERENCES sim_invocations(id),
	array_name    TEXT    NOT NULL,
	task          INTEGER NOT NULL CHECK (task >= 0),
	digest        TEXT    NOT NULL,
	try           INTEGER NOT NULL CHECK (try >= 1),
	cluster       TEXT    NOT NULL,
	slurm_job_id  TEXT    NOT NULL,
	state         TEXT    NOT NULL CHECK (state IN ('completed', 'failed', 'cancelled', 'lost')),
	reason        TEXT    NOT NULL,
	started_ns    INTEGER,
	ended_ns      INTEGER,
	recorded_ns   INTEGER NOT NULL,
	UNIQUE (array_name, task)
);
CREATE INDEX sim_tasks_digest ON sim_tasks(digest);
` + appendOnly("sim_tasks"),

	// 4 → 5: the operational time series of the simulator's runs (gmark
	// sim report's "over time" figures): per run, a row written with its
	// result holding, per interval of virtual time, the jobs that arrived,
	// started and ended, and the messages sent by type, as JSON arrays (a
	// run has at most a few hundred intervals, whatever its length: a row
	// per interval took 20 times the room of the rest of a run's records).
	// Runs recorded before have none.
	`
CREATE TABLE sim_series (
	digest     TEXT    PRIMARY KEY REFERENCES sim_results(digest),
	interval_s REAL    NOT NULL CHECK (interval_s > 0),
	bins       INTEGER NOT NULL CHECK (bins >= 0),
	arrivals   TEXT    NOT NULL CHECK (json_array_length(arrivals) = bins),
	starts     TEXT    NOT NULL CHECK (json_array_length(starts) = bins),
	ends       TEXT    NOT NULL CHECK (json_array_length(ends) = bins),
	messages   TEXT    NOT NULL CHECK (json_type(messages) = 'object')
);
` + appendOnly("sim_series"),

	// 5 → 6: the per-job schedule of the simulator's runs (gmark sim run
	// --jobs): a row per job, keyed by its run's integer key and its place
	// in the arrival order, and a header row per run that has them (the
	// key, the digest, the number of job rows), written after them in the
	// same transaction (the reference is checked at the commit).
	`
CREATE TABLE sim_job_runs (
	id     INTEGER PRIMARY KEY,
	digest TEXT    NOT NULL UNIQUE REFERENCES sim_results(digest),
	jobs   INTEGER NOT NULL CHECK (jobs >= 0)
);
CREATE TABLE sim_jobs (
	run          INTEGER NOT NULL REFERENCES sim_job_runs(id) DEFERRABLE INITIALLY DEFERRED,
	seq          INTEGER NOT NULL CHECK (seq >= 0),
	job_id       TEXT    NOT NULL,
	state        TEXT    NOT NULL CHECK (state IN ('finished', 'failed', 'rejected', 'waiting', 'running')),
	submit_ns    INTEGER NOT NULL,
	start_ns     INTEGER,
	end_ns       INTEGER,
	procs        INTEGER NOT NULL CHECK (procs >= 0),
	estimate_ns  INTEGER,
	work_ns      INTEGER NOT NULL,
	cluster      TEXT,
	home         TEXT,
	restarts     INTEGER NOT NULL CHECK (restarts >= 0),
	PRIMARY KEY (run, seq)
) WITHOUT ROWID;
` + appendOnly("sim_job_runs", "sim_jobs"),
}

// appendOnly returns the triggers that make the named tables insert-only.
func appendOnly(tables ...string) string {
	s := ""
	for _, t := range tables {
		s += "CREATE TRIGGER " + t + "_no_update BEFORE UPDATE ON " + t +
			" BEGIN SELECT RAISE(ABORT, 'gmark store: " + t + " rows are immutable (append-only)'); END;\n" +
			"CREATE TRIGGER " + t + "_no_delete BEFORE DELETE ON " + t +
			" BEGIN SELECT RAISE(ABORT, 'gmark store: " + t + " rows are immutable (append-only)'); END;\n"
	}
	return s
}

// SchemaVersion is the version this gmark writes and reads.
var SchemaVersion = len(migrations)
