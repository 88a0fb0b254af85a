package slurmcli

import (
	"strings"
	"testing"
	"time"
)

// squeueArray2205 is what squeue --json of Slurm 22.05 printed of an array
// of six tasks (--array=0-5%2): two running, one killed, the rest waiting
// in one record of the array; and a job of no array.
const squeueArray2205 = `{"errors": [], "jobs": [
 {"job_id": 2, "array_job_id": 1, "array_task_id": 0, "array_task_string": "", "array_max_tasks": 2, "job_state": "CANCELLED",
  "name": "gmark-sim-x", "state_reason": "None", "exit_code": 15, "start_time": 1795502922, "end_time": 1795502926},
 {"job_id": 3, "array_job_id": 1, "array_task_id": 1, "array_task_string": "", "array_max_tasks": 2, "job_state": "RUNNING",
  "name": "gmark-sim-x", "state_reason": "None", "exit_code": 0, "start_time": 1795502922, "end_time": 1827038922},
 {"job_id": 1, "array_job_id": 1, "array_task_id": null, "array_task_string": "2-5%2", "array_max_tasks": 2, "job_state": "PENDING",
  "name": "gmark-sim-x", "state_reason": "JobArrayTaskLimit", "exit_code": 0, "start_time": 0, "end_time": 0},
 {"job_id": 8, "array_job_id": 7, "array_task_id": 0, "array_task_string": "", "job_state": "FAILED",
  "name": "gmark-sim-k", "state_reason": "NonZeroExitCode", "exit_code": 35072, "start_time": 1795502960, "end_time": 1795502964},
 {"job_id": 9, "array_job_id": 0, "array_task_id": null, "array_task_string": "", "job_state": "RUNNING", "name": "plain"},
 {"job_id": 10, "array_job_id": 4294967294, "array_task_id": 4294967294, "job_state": "RUNNING", "name": "no value"}
]}`

// Slurm 23.02 and later give the numbers as objects.
const squeueArray2302 = `{"errors": [], "jobs": [
 {"job_id": 12, "array_job_id": {"set": true, "number": 11}, "array_task_id": {"set": true, "number": 3}, "array_task_string": "",
  "job_state": ["RUNNING"], "name": "a"},
 {"job_id": 11, "array_job_id": {"set": true, "number": 11}, "array_task_id": {"set": false, "number": 0}, "array_task_string": "4,6-9",
  "job_state": ["PENDING"], "name": "a"}
]}`

const jobcompArray2205 = `JobId=2 UserId=root(0) GroupId=root(0) Name=gmark-sim-test JobState=CANCELLED Partition=main TimeLimit=UNLIMITED StartTime=2026-11-24T06:48:42 EndTime=2026-11-24T06:48:46 NodeList=san1 NodeCnt=1 ProcCnt=1 WorkDir=/tmp/sa-scratch ReservationName= Tres=cpu=1,mem=1000M,node=1,billing=1 Account= QOS= WcKey= Cluster=unknown SubmitTime=2026-11-24T06:48:41 EligibleTime=2026-11-24T06:48:42 ArrayJobId=1 ArrayTaskId=0 DerivedExitCode=0:0 ExitCode=0:0 
JobId=3 UserId=root(0) GroupId=root(0) Name=gmark-sim-test JobState=COMPLETED Partition=main TimeLimit=UNLIMITED StartTime=2026-11-24T06:48:42 EndTime=2026-11-24T06:49:02 NodeList=san1 NodeCnt=1 ProcCnt=1 WorkDir=/tmp/sa-scratch ReservationName= Tres=cpu=1,mem=1000M,node=1,billing=1 Account= QOS= WcKey= Cluster=unknown SubmitTime=2026-11-24T06:48:41 EligibleTime=2026-11-24T06:48:42 ArrayJobId=1 ArrayTaskId=1 DerivedExitCode=0:0 ExitCode=0:0 
JobId=5 Name=plain JobState=COMPLETED
`

type arrayRec struct {
	id, arrayJob, task int64
	tasks, state       string
	exit, signal       int
}

func TestArrayRecords(t *testing.T) {
	for _, tc := range []struct {
		name string
		src  string
		want []arrayRec
	}{
		{"squeue 22.05", squeueArray2205, []arrayRec{
			{2, 1, 0, "", "CANCELLED", 0, 15}, {3, 1, 1, "", "RUNNING", 0, 0}, {1, 1, 0, "2-5%2", "PENDING", 0, 0},
			{8, 7, 0, "", "FAILED", 137, 0}, {9, 0, 0, "", "RUNNING", 0, 0}, {10, 0, 0, "", "RUNNING", 0, 0}}},
		{"squeue 23.02", squeueArray2302, []arrayRec{{12, 11, 3, "", "RUNNING", 0, 0}, {11, 11, 0, "4,6-9", "PENDING", 0, 0}}},
		{"jobcomp 22.05", jobcompArray2205, []arrayRec{{2, 1, 0, "", "CANCELLED", 0, 0}, {3, 1, 1, "", "COMPLETED", 0, 0}, {5, 0, 0, "", "COMPLETED", 0, 0}}},
	} {
		var recs []Record
		var err error
		if strings.HasPrefix(tc.name, "jobcomp") {
			recs, err = ParseJobComp(strings.NewReader(tc.src), time.UTC)
		} else {
			recs, err = ParseSqueue([]byte(tc.src))
		}
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		var got []arrayRec
		for _, r := range recs {
			got = append(got, arrayRec{r.ID, r.ArrayJobID, r.ArrayTaskID, r.ArrayTasks, r.State, r.Exit, r.Signal})
		}
		if len(got) != len(tc.want) {
			t.Fatalf("%s: %+v, want %+v", tc.name, got, tc.want)
		}
		for i := range got {
			if got[i] != tc.want[i] {
				t.Errorf("%s: record %d: %+v, want %+v", tc.name, i, got[i], tc.want[i])
			}
		}
	}
}

func TestArrayTasks(t *testing.T) {
	for _, tc := range []struct {
		in      string
		has     []int
		hasNot  []int
		wantErr bool
	}{
		{in: "2-5%2", has: []int{2, 3, 5}, hasNot: []int{0, 1, 6}},
		{in: "7", has: []int{7}, hasNot: []int{6, 8}},
		{in: "0", has: []int{0}, hasNot: []int{1}},
		{in: "1,3,7-9", has: []int{1, 3, 7, 8, 9}, hasNot: []int{2, 4, 6, 10}},
		{in: "0-15:4%3", has: []int{0, 4, 8, 12}, hasNot: []int{1, 15, 16}},
		{in: "4000000", has: []int{4000000}},
		{in: "", wantErr: true},
		{in: "%2", wantErr: true},
		{in: "5-2", wantErr: true},
		{in: "1,,2", wantErr: true},
		{in: "-1", wantErr: true},
		{in: "4000001", wantErr: true},
		{in: "0-9:0", wantErr: true},
		{in: "3:2", wantErr: true},
		{in: "01", wantErr: true},
		{in: "a-b", wantErr: true},
		{in: "1-2-3", wantErr: true},
	} {
		ranges, err := ArrayTasks(tc.in)
		if (err != nil) != tc.wantErr {
			t.Errorf("%q: error %v, want error %v", tc.in, err, tc.wantErr)
			continue
		}
		for _, i := range tc.has {
			if !HasTask(ranges, i) {
				t.Errorf("%q: task %d missing from %+v", tc.in, i, ranges)
			}
		}
		for _, i := range tc.hasNot {
			if HasTask(ranges, i) {
				t.Errorf("%q: task %d in %+v", tc.in, i, ranges)
			}
		}
	}
}

func FuzzArrayTasks(f *testing.F) {
	for _, s := range []string{"2-5%2", "1,3,7-9", "0-15:4%3", "", "4000000", "0-4000000:1"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		ranges, err := ArrayTasks(s)
		if err != nil {
			if ranges != nil {
				t.Fatal("ranges with an error")
			}
			return
		}
		for _, r := range ranges {
			if r.Lo < 0 || r.Hi > MaxArrayIndex || r.Lo > r.Hi || r.Step < 1 || !HasTask(ranges, r.Lo) {
				t.Fatalf("%q: range %+v", s, r)
			}
		}
	})
}
