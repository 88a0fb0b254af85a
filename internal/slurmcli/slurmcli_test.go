package slurmcli

import (
	"reflect"
	"strings"
	"testing"
	"time"
)

// Outputs of Slurm 22.05 (Debian 12's slurm-wlm), trimmed.
const squeue2205 = `{
  "meta": {"Slurm": {"version": {"major": 22, "micro": 8, "minor": 5}, "release": "22.05.8"}},
  "errors": [],
  "jobs": [
    {"cluster": "alpha", "comment": "gmark:1-0", "job_id": 1, "job_state": "COMPLETED", "name": "gmark-1-0.a1-r",
     "submit_time": 1795362919, "start_time": 1795362920, "end_time": 1795362922, "exit_code": 0, "nodes": "alphan1",
     "het_job_id": 0, "het_job_offset": 0, "state_reason": "None", "cpus": 4, "partition": "main"},
    {"cluster": "alpha", "comment": "gmark:fail", "job_id": 2, "job_state": "FAILED", "name": "f.sh",
     "submit_time": 1795362938, "start_time": 1795362938, "end_time": 1795362938, "exit_code": 768, "nodes": "alphan1",
     "het_job_id": 0, "het_job_offset": 0, "state_reason": "NonZeroExitCode"},
    {"cluster": "alpha", "comment": "gmark:het", "job_id": 3, "job_state": "CANCELLED", "name": "h.sh",
     "submit_time": 1795362938, "start_time": 1795362971, "end_time": 1795362971, "exit_code": 0, "nodes": "",
     "het_job_id": 3, "het_job_offset": 0, "state_reason": "Resources"},
    {"cluster": "alpha", "comment": "gmark:het", "job_id": 4, "job_state": "CANCELLED", "name": "h.sh",
     "submit_time": 1795362938, "start_time": 0, "end_time": 0, "exit_code": 0, "nodes": "",
     "het_job_id": 3, "het_job_offset": 1, "state_reason": "Resources"}
  ]
}`

const squeueDown = `{"meta": {}, "errors": [{"description": "Failed while looking for jobs", "error_number": -1,
  "error": "Unspecified error", "source": "slurm_load_jobs"}], "jobs": []}`

// Slurm 23.02 and later changed the shapes of some fields.
const squeue2302 = `{"errors": [], "jobs": [{"job_id": 7, "cluster": "c", "name": "n", "job_state": ["RUNNING"],
  "submit_time": {"set": true, "infinite": false, "number": 100}, "start_time": {"set": true, "number": 101},
  "end_time": {"set": true, "number": 0}, "exit_code": {"status": ["SUCCESS"], "return_code": {"set": true, "number": 0}},
  "nodes": "n1",
  "cpus": {"set": true, "number": 3}, "partition": "p"}]}`

const jobcomp2205 = `JobId=1 UserId=root(0) GroupId=root(0) Name=gmark-1-0.a1-r JobState=COMPLETED Partition=main TimeLimit=UNLIMITED StartTime=2026-11-22T15:55:20 EndTime=2026-11-22T15:55:22 NodeList=alphan1 NodeCnt=1 ProcCnt=4 WorkDir=/tmp/sl ReservationName= Tres=cpu=4,mem=1M,node=1,billing=4 Account= QOS= WcKey= Cluster=unknown SubmitTime=2026-11-22T15:55:19 EligibleTime=2026-11-22T15:55:19 DerivedExitCode=0:0 ExitCode=0:0 
JobId=2 UserId=root(0) GroupId=root(0) Name=f.sh JobState=FAILED Partition=main TimeLimit=UNLIMITED StartTime=2026-11-22T15:55:38 EndTime=2026-11-22T15:55:38 NodeList=alphan1 NodeCnt=1 ProcCnt=1 WorkDir=/tmp/sl ReservationName= Tres=cpu=1,mem=1M,node=1,billing=1 Account= QOS= WcKey= Cluster=unknown SubmitTime=2026-11-22T15:55:38 EligibleTime=2026-11-22T15:55:38 DerivedExitCode=0:0 ExitCode=3:0 
JobId=3 UserId=root(0) GroupId=root(0) Name=h.sh JobState=CANCELLED Partition=main TimeLimit=UNLIMITED StartTime=2026-11-22T15:56:11 EndTime=2026-11-22T15:56:11 NodeList=(null) NodeCnt=0 ProcCnt=2 WorkDir=/tmp/sl ReservationName= Tres=cpu=2,mem=1M,node=1,billing=2 Account= QOS= WcKey= Cluster=unknown SubmitTime=2026-11-22T15:55:38 EligibleTime=2026-11-22T15:55:38 HetJobId=3 HetJobOffset=0 DerivedExitCode=0:0 ExitCode=0:0 
`

func TestParseSqueue(t *testing.T) {
	recs, err := ParseSqueue([]byte(squeue2205))
	if err != nil || len(recs) != 4 {
		t.Fatalf("%v %v", recs, err)
	}
	if r := recs[0]; r.ID != 1 || r.State != "COMPLETED" || r.Submit != 1795362919 || r.Start != 1795362920 || r.End != 1795362922 || r.Exit != 0 || r.Name != "gmark-1-0.a1-r" {
		t.Fatalf("%+v", r)
	}
	if r := recs[0]; r.CPUs != 4 || r.Partition != "main" || recs[1].CPUs != 0 {
		t.Fatalf("cpus and partition: %+v", recs[:2])
	}
	if r := recs[1]; r.Exit != 3 || r.Signal != 0 || StateClass(r.State) != "failed" {
		t.Fatalf("exit code 768 is exit status 3: %+v", r)
	}
	if r := recs[3]; r.HetJobID != 3 || r.HetOff != 1 || r.Nodes != "" {
		t.Fatalf("%+v", r)
	}
	if _, err := ParseSqueue([]byte(squeueDown)); err == nil || !strings.Contains(err.Error(), "Failed while looking for jobs") {
		t.Fatalf("errors array not an error: %v", err)
	}
	recs, err = ParseSqueue([]byte(squeue2302))
	if err != nil || recs[0].State != "RUNNING" || recs[0].Submit != 100 || recs[0].Start != 101 || recs[0].Exit != 0 || recs[0].CPUs != 3 || recs[0].Partition != "p" {
		t.Fatalf("23.02 shapes: %+v %v", recs, err)
	}
}

func TestParseJobComp(t *testing.T) {
	recs, err := ParseJobComp(strings.NewReader(jobcomp2205), time.UTC)
	if err != nil || len(recs) != 3 {
		t.Fatalf("%v %v", recs, err)
	}
	want := time.Date(2026, 11, 22, 15, 55, 20, 0, time.UTC).Unix()
	if r := recs[0]; r.Start != want || r.End != want+2 || r.Submit != want-1 || r.Name != "gmark-1-0.a1-r" || r.Nodes != "alphan1" {
		t.Fatalf("%+v", r)
	}
	if r := recs[1]; r.Exit != 3 || r.State != "FAILED" {
		t.Fatalf("%+v", r)
	}
	if r := recs[2]; r.Nodes != "" || r.HetJobID != 3 {
		t.Fatalf("%+v", r)
	}
}

func TestParseCPUs(t *testing.T) {
	for _, c := range []struct {
		in   string
		want CPUs
		bad  bool
	}{
		{"", CPUs{}, false},
		{"0/64/0/64\n", CPUs{0, 64, 0, 64}, false},
		{"4/60/0/64\n2/0/6/8\n", CPUs{6, 60, 6, 72}, false},
		{"4/60/0", CPUs{}, true},
		{"4/60/0/65", CPUs{}, true},
		{"-1/65/0/64", CPUs{}, true},
		{"a/b/c/d", CPUs{}, true},
	} {
		got, err := ParseCPUs([]byte(c.in))
		if (err != nil) != c.bad || got != c.want {
			t.Errorf("%q: %+v, %v", c.in, got, err)
		}
	}
}

func TestParseNodes(t *testing.T) {
	for _, c := range []struct {
		in   string
		want []Partition
		bad  string
	}{
		{"", nil, ""},
		{"main* 1\n", []Partition{{"main", true, 1}}, ""},
		// One line per state: summed per partition, in sinfo's order.
		{"main* 2\nbig 4\nmain* 1\n", []Partition{{"main", true, 3}, {"big", false, 4}}, ""},
		{"  \nmain* 1\n\n", []Partition{{"main", true, 1}}, ""},
		{"main*\n", nil, `sinfo line 1: "main*" is not a partition and a node count`},
		{"main* 1\nbig x\n", nil, `sinfo line 2: "x" is not a node count`},
		{"main* -1\n", nil, `sinfo line 1: "-1" is not a node count`},
		{"* 1\n", nil, "sinfo line 1: no partition name"},
		{"a 1073741824\na 1\n", nil, "sinfo line 2: more than 1073741824 nodes in partition a"},
		{"a b c\n", nil, `sinfo line 1: "a b c" is not a partition and a node count`},
	} {
		got, err := ParseNodes([]byte(c.in))
		if c.bad != "" {
			if err == nil || err.Error() != c.bad {
				t.Errorf("%q: error %v, want %q", c.in, err, c.bad)
			}
			continue
		}
		if err != nil || !reflect.DeepEqual(got, c.want) {
			t.Errorf("%q: %+v, %v; want %+v", c.in, got, err, c.want)
		}
	}
	parts := []Partition{{"main", true, 3}, {"big", false, 4}}
	for _, c := range []struct {
		name string
		n    int
		ok   bool
	}{{"", 3, true}, {"big", 4, true}, {"main", 3, true}, {"none", 0, false}} {
		if n, ok := PartitionNodes(parts, c.name); n != c.n || ok != c.ok {
			t.Errorf("PartitionNodes(%q) = %d, %v", c.name, n, ok)
		}
	}
	if _, ok := PartitionNodes([]Partition{{"a", false, 2}}, ""); ok {
		t.Error("no default partition, yet one was found")
	}
}
