package record

// The bundled core's figures of a whole run, as a run records them (the
// annotations AnnotationKoalaUtilization and AnnotationKoalaDeadlines,
// JSON, Key summary) and the report reads them: one set of plain structs
// that koala/core fills and analyzer/metrics decodes, so that the two
// cannot drift apart field by field.

// CoreUtilization is the core's accounting of the processors over its
// measured period, as fractions of the grid's capacity: the thesis's split
// into background load, the grid jobs' work, processors claimed but idle
// until the start time (wasted, PWT) and processors placed on but not yet
// claimed (gained, PGT: free for local jobs).
type CoreUtilization struct {
	Seconds    float64 `json:"seconds"` // the measured period
	Background float64 `json:"background"`
	Grid       float64 `json:"grid"`
	Wasted     float64 `json:"wasted"`
	Gained     float64 `json:"gained"`
	// Total is the processors in use: background + grid + wasted, the
	// "real total utilization" of Mohamed and Epema's 2004 paper (and the
	// thesis's "total utilization").
	Total float64 `json:"total"`
	// Stacked is Total + Gained, the four series of the thesis's
	// utilization plots summed. It is not a utilization: the gained
	// processors are free for local jobs, and those that local jobs use
	// count in Background too, so it can pass 1.
	Stacked float64 `json:"stacked"`
}

// CoreDeadlines is what Ballier et al. measure, over the core's measured
// period: of the jobs with a start deadline (the "global" jobs) submitted
// in it, those started at their deadline; of the local users' jobs
// submitted in it, the killed ones and the response time of the finished
// ones; wasted and lost processor time; and the use of the processors by
// class.
type CoreDeadlines struct {
	GlobalJobs    int     `json:"global_jobs"`    // jobs with a start deadline
	GlobalStarted int     `json:"global_started"` // of them, started at their deadline
	GlobalSuccess float64 `json:"global_success"` // GlobalStarted / GlobalJobs (0 without any)
	LocalJobs     int     `json:"local_jobs"`     // local users' jobs (not the band's dummies)
	LocalFinished int     `json:"local_finished"`
	LocalKilled   int     `json:"local_killed"`
	// LocalKillRate is LocalKilled / (LocalFinished + LocalKilled): of the
	// local jobs whose fate is known, the share killed (0 without any).
	// The others were still queued or running when the run stopped.
	LocalKillRate float64 `json:"local_kill_rate"`
	// LocalResponseS is the mean response time (end − submission) of the
	// finished local jobs, in seconds (0 without any).
	LocalResponseS float64 `json:"local_response_s"`
	// KilledDummies: background-band jobs killed by global jobs.
	KilledDummies int `json:"killed_dummies"`
	// LostProcessorS is the processor time killed local jobs had used
	// (dummies too); WastedProcessorS the processor time claimed and held
	// idle until the jobs' start times.
	LostProcessorS   float64 `json:"lost_processor_s"`
	WastedProcessorS float64 `json:"wasted_processor_s"`
	// Utilization by class, fractions of the grid's capacity over the
	// measured period: total = local + global + wasted.
	TotalUtil  float64 `json:"total_utilization"`
	LocalUtil  float64 `json:"local_utilization"`
	GlobalUtil float64 `json:"global_utilization"`
	WastedUtil float64 `json:"wasted_utilization"`
	Seconds    float64 `json:"seconds"` // the measured period
}
