package gwa

import "strconv"

// Missing is the value of an unknown numeric field in both formats.
const Missing = -1

// Record is one job of a trace: the 29 fields of GWF, of which fields 1-16
// are SWF's, plus SWF's own fields 17 and 18. Numeric fields hold Missing
// (-1) when unknown; string fields hold "-1".
type Record struct {
	JobID              string
	SubmitTime         float64 // seconds
	WaitTime           float64
	RunTime            float64
	NProcs             float64 // allocated processors
	AvgCPUTimeUsed     float64
	UsedMemory         float64 // KB per processor
	ReqNProcs          float64
	ReqTime            float64
	ReqMemory          float64
	Status             int // 1 completed, 0 failed, 5 cancelled; -1 unknown
	UserID             string
	GroupID            string
	ExecutableID       string
	QueueID            string
	PartitionID        string
	OrigSiteID         string // GWF 17: submission site
	LastRunSiteID      string // GWF 18: execution site
	JobStructure       string // GWF 19: UNITARY or BoT
	JobStructureParams string // GWF 20: for BoT, the batch id
	UsedNetwork        float64
	UsedLocalDiskSpace float64
	UsedResources      string
	ReqPlatform        string
	ReqNetwork         float64
	ReqLocalDiskSpace  float64
	ReqResources       string
	VOID               string
	ProjectID          string
	PrecedingJob       string  // SWF 17
	ThinkTime          float64 // SWF 18
	// The workflow variant of GWF (reader_wta.go): the workflow the job is
	// a task of, and the JobIDs of its predecessors in that workflow. ""
	// and nil elsewhere.
	WorkflowID   string
	Dependencies []string
	// Files are a workflow task's input and output files (WfFormat); nil
	// elsewhere.
	Files []TaskFile
}

// TaskFile is a file a task reads or writes, by name, with its size in
// bytes (-1 when unknown).
type TaskFile struct {
	Name   string
	Size   int64
	Output bool
}

// NewRecord returns a record with every field missing.
func NewRecord() Record {
	s := missingID
	return Record{JobID: s, SubmitTime: Missing, WaitTime: Missing, RunTime: Missing, NProcs: Missing,
		AvgCPUTimeUsed: Missing, UsedMemory: Missing, ReqNProcs: Missing, ReqTime: Missing, ReqMemory: Missing,
		Status: Missing, UserID: s, GroupID: s, ExecutableID: s, QueueID: s, PartitionID: s, OrigSiteID: s,
		LastRunSiteID: s, JobStructure: s, JobStructureParams: s, UsedNetwork: Missing, UsedLocalDiskSpace: Missing,
		UsedResources: s, ReqPlatform: s, ReqNetwork: Missing, ReqLocalDiskSpace: Missing, ReqResources: s,
		VOID: s, ProjectID: s, PrecedingJob: s, ThinkTime: Missing}
}

// missingID is a string field that holds no value.
var missingID = strconv.Itoa(Missing)

// GWFFields are the GWF text header names, in order.
var GWFFields = []string{"JobID", "SubmitTime", "WaitTime", "RunTime", "NProcs", "AverageCPUTimeUsed",
	"Used Memory", "ReqNProcs", "ReqTime", "ReqMemory", "Status", "UserID", "GroupID", "ExecutableID",
	"QueueID", "PartitionID", "OrigSiteID", "LastRunSiteID", "JobStructure", "JobStructureParams",
	"UsedNetwork", "UsedLocalDiskSpace", "UsedResources", "ReqPlatform", "ReqNetwork", "ReqLocalDiskSpace",
	"ReqResources", "VOID", "ProjectID"}

// missingString tells whether a string field holds no value.
func missingString(s string) bool { return s == "" || s == "-1" }

// Known reports whether a numeric field holds a value (it is not Missing).
// Negative values other than -1 are values: a negative wait is a reservation.
func Known(v float64) bool { return v != Missing }

// KnownRunTime is the job's run time and whether it is known: a negative
// run time (-1, or one computed from an end time recorded as 0) is not a
// duration, and every statistic takes it as unknown, never as a value.
func (r *Record) KnownRunTime() (float64, bool) {
	return r.RunTime, r.RunTime >= 0
}

// Site is where the job ran: GWF's LastRunSiteID, else the submission site
// OrigSiteID, else the partition (SWF's only notion of a site). "" when none
// is known.
func (r *Record) Site() string {
	switch {
	case !missingString(r.LastRunSiteID):
		return r.LastRunSiteID
	case !missingString(r.OrigSiteID):
		return r.OrigSiteID
	case !missingString(r.PartitionID):
		return r.PartitionID
	}
	return ""
}

// Procs is the job's size: the allocated processors, else the requested
// ones; 0 when neither is known.
func (r *Record) Procs() float64 {
	switch {
	case r.NProcs > 0:
		return r.NProcs
	case r.ReqNProcs > 0:
		return r.ReqNProcs
	}
	return 0
}

// Start is the job's start offset: submit plus wait, or the submit time when
// the wait is unknown or negative (a reservation that started early).
func (r *Record) Start() float64 {
	if r.WaitTime > 0 {
		return r.SubmitTime + r.WaitTime
	}
	return r.SubmitTime
}

// CPUTime is the processor-seconds the job consumed: run time times size
// (a size of 1 when unknown); 0 when the run time is unknown.
func (r *Record) CPUTime() float64 {
	if r.RunTime <= 0 {
		return 0
	}
	p := r.Procs()
	if p <= 0 {
		p = 1
	}
	return r.RunTime * p
}
