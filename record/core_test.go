package record

import (
	"encoding/json"
	"testing"
)

// The core's deadline figures are recorded under these keys (the
// koala-deadlines annotation, the simulation's summary), which the report
// and the stores already written read.
func TestDeadlinesAsRecorded(t *testing.T) {
	d := CoreDeadlines{GlobalJobs: 4, GlobalStarted: 3, GlobalSuccess: 0.75, LocalJobs: 2, LocalFinished: 1, LocalKilled: 1,
		LocalKillRate: 0.5, LocalResponseS: 12.5, KilledDummies: 1, LostProcessorS: 30, WastedProcessorS: 7.5,
		TotalUtil: 0.5, LocalUtil: 0.25, GlobalUtil: 0.125, WastedUtil: 0.125, Seconds: 100}
	b, _ := json.Marshal(d)
	want := `{"global_jobs":4,"global_started":3,"global_success":0.75,"local_jobs":2,"local_finished":1,"local_killed":1,` +
		`"local_kill_rate":0.5,"local_response_s":12.5,"killed_dummies":1,"lost_processor_s":30,"wasted_processor_s":7.5,` +
		`"total_utilization":0.5,"local_utilization":0.25,"global_utilization":0.125,"wasted_utilization":0.125,"seconds":100}`
	if string(b) != want {
		t.Fatalf("recorded as\n%s\nwant\n%s", b, want)
	}
}
