package gwa

import (
	"slices"
	"strings"
	"time"

	"github.com/gmark/gmark/workload"
)

// JobRecords turns a generated (not yet run) job into trace records: wait
// time, allocated processors and status are unknown (-1); the run time is the
// job's expected run time when the generator knew it; requested processors and
// time are the job's size and wall-time limit.
//
// The formats have no place for co-allocation or DAGs. A co-allocated job is
// one record of its total size, its partition the component sites joined by
// '+' when all are named. The tasks of a composite job become one record
// each, grouped as GWF's JobStructure=BoT with the composite job's id as
// JobStructureParams; SWF keeps one predecessor per task (field 17), so
// dependencies beyond the first are lost there. Every dependency is kept
// in the records' WorkflowID (the composite job's id) and Dependencies,
// which the workflow variant writes.
func JobRecords(j *workload.Job) []Record { return AppendJobRecords(nil, j) }

// AppendJobRecords is JobRecords appending to dst (a buffer to reuse: the
// records of a unitary job are one).
func AppendJobRecords(dst []Record, j *workload.Job) []Record {
	if j.Kind != workload.Composite {
		// Made in place: a Record is about 500 bytes, and generate
		// makes one a job on the goroutine that draws the jobs.
		n := len(dst)
		dst = slices.Grow(dst, 1)[:n+1]
		setTaskRecord(&dst[n], j, "UNITARY", "-1", "")
		return dst
	}
	first := map[string]string{}
	preds := map[string][]string{}
	for _, d := range j.Deps {
		if _, ok := first[d.To]; !ok {
			first[d.To] = d.From
		}
		preds[d.To] = append(preds[d.To], d.From)
	}
	out := slices.Grow(dst, len(j.Tasks))
	for i := range j.Tasks {
		t := j.Tasks[i] // a copy: the user and group default to the composite job's
		if t.User == "" {
			t.User = j.User
		}
		if t.Group == "" {
			t.Group = j.Group
		}
		out = out[:len(out)+1]
		r := &out[len(out)-1]
		setTaskRecord(r, &t, "BoT", j.ID, first[t.ID])
		r.WorkflowID, r.Dependencies = j.ID, preds[t.ID]
	}
	return out
}

// blankRecord is NewRecord's: every field missing.
var blankRecord = NewRecord()

// setTaskRecord sets *r to the record of j (a unitary job or a task).
func setTaskRecord(r *Record, j *workload.Job, structure, params, preceding string) {
	*r = blankRecord // one copy: NewRecord's literal was built, then copied
	r.JobID = j.ID
	r.SubmitTime = seconds(j.Submit)
	if j.RunTime > 0 {
		r.RunTime = seconds(j.RunTime)
	}
	r.ReqNProcs = float64(j.Processors())
	if j.WallTime > 0 {
		r.ReqTime = seconds(j.WallTime)
	}
	if j.User != "" {
		r.UserID = j.User
	}
	if j.Group != "" {
		r.GroupID = j.Group
	}
	if j.App.Name != "" {
		r.ExecutableID = j.App.Name
	}
	var sites []string
	for _, c := range j.Components {
		if c.Site == workload.AnySite {
			sites = nil
			break
		}
		sites = append(sites, c.Site)
	}
	if len(sites) > 0 {
		r.PartitionID = strings.Join(sites, "+")
	}
	r.JobStructure, r.JobStructureParams = structure, params
	if preceding != "" {
		r.PrecedingJob = preceding
		r.ThinkTime = 0
	}
}

// seconds is d in seconds, the double nearest the exact quotient, so that
// 5.488 s prints as 5.488: Duration.Seconds adds the whole and fractional
// parts, which can land one ulp off (5.4879999999999995). Beyond 2^53 ns
// (104 days) the nanoseconds themselves do not fit a double exactly and
// Seconds is as good.
func seconds(d time.Duration) float64 {
	if d > -1<<53 && d < 1<<53 {
		return float64(d) / 1e9
	}
	return d.Seconds()
}
