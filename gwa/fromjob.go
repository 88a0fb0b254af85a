package gwa

import (
	"strings"

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
func JobRecords(j *workload.Job) []Record {
	if j.Kind != workload.Composite {
		return []Record{taskRecord(j, "UNITARY", "-1", "")}
	}
	first := map[string]string{}
	preds := map[string][]string{}
	for _, d := range j.Deps {
		if _, ok := first[d.To]; !ok {
			first[d.To] = d.From
		}
		preds[d.To] = append(preds[d.To], d.From)
	}
	out := make([]Record, 0, len(j.Tasks))
	for i := range j.Tasks {
		t := j.Tasks[i] // a copy: the user and group default to the composite job's
		if t.User == "" {
			t.User = j.User
		}
		if t.Group == "" {
			t.Group = j.Group
		}
		r := taskRecord(&t, "BoT", j.ID, first[t.ID])
		r.WorkflowID, r.Dependencies = j.ID, preds[t.ID]
		out = append(out, r)
	}
	return out
}

func taskRecord(j *workload.Job, structure, params, preceding string) Record {
	r := NewRecord()
	r.JobID = j.ID
	r.SubmitTime = j.Submit.Seconds()
	if j.RunTime > 0 {
		r.RunTime = j.RunTime.Seconds()
	}
	r.ReqNProcs = float64(j.Processors())
	if j.WallTime > 0 {
		r.ReqTime = j.WallTime.Seconds()
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
	return r
}
