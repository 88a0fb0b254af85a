package slurmcli

import (
	"errors"
	"reflect"
	"testing"
	"time"

	"github.com/gmark/gmark/internal/srcerr"
)

// What `squeue -h -a -t all -O SqueueFormat` printed on a 22.05 test
// cluster: a completed job, a failed one (exit 3), one killed by signal 9,
// a held one, a running one with a comment, and a heterogeneous job of two
// components.
const squeueFormat2205 = `3|N/A|N/A|3|N/A|1|1|0|2026-11-24T12:33:51|2026-11-24T12:33:53|2026-11-24T12:33:53|COMPLETED|None|main|probe|proben1|j2|(null)
5|N/A|N/A|5|N/A|1|1|768|2026-11-24T12:33:56|2026-11-24T12:33:56|2026-11-24T12:33:56|FAILED|NonZeroExitCode|main|probe|proben1|bad|(null)
7|N/A|N/A|7|N/A|1|1|9|2026-11-24T12:33:56|2026-11-24T12:33:59|2026-11-24T12:33:59|FAILED|JobLaunchFailure|main|probe|proben1|sig|(null)
6|N/A|N/A|6|N/A|1|1|0|2026-11-24T12:33:56|N/A|N/A|PENDING|JobHeldUser|main|probe||hold|(null)
4|N/A|N/A|4|N/A|1|1|0|2026-11-24T12:33:56|2026-11-24T12:33:56|NONE|RUNNING|None|main|probe|proben1|long|gmark:x
8|8|0|8|N/A|1|1|0|2026-11-24T12:33:56|N/A|N/A|PENDING|None|main|probe||het|(null)
9|8|1|9|N/A|1|1|0|2026-11-24T12:33:56|N/A|N/A|PENDING|None|main|probe||het|(null)
`

func TestParseSqueueFormat(t *testing.T) {
	at := func(s string) int64 { return slurmTime(s, time.UTC) }
	rec := func(id int64, name, state, reason string, submit, start, end string, exit, sig int, nodes string) Record {
		return Record{ID: id, Cluster: "probe", Name: name, State: state, Reason: reason, Submit: at(submit), Start: at(start),
			End: at(end), Exit: exit, Signal: sig, Nodes: nodes, Requeue: true, Source: "squeue", CPUs: 1, Partition: "main"}
	}
	running := rec(4, "long", "RUNNING", "None", "2026-11-24T12:33:56", "2026-11-24T12:33:56", "", 0, 0, "proben1")
	running.Comment = "gmark:x"
	het0 := rec(8, "het", "PENDING", "None", "2026-11-24T12:33:56", "", "", 0, 0, "")
	het0.HetJobID = 8
	het1 := het0
	het1.ID, het1.HetOff = 9, 1
	for _, tc := range []struct {
		name, in string
		want     []Record
		errLine  int // > 0: an error at this line
	}{
		{"empty", "", nil, 0},
		{"blank lines", "\n  \n", nil, 0},
		{"22.05", squeueFormat2205, []Record{
			rec(3, "j2", "COMPLETED", "None", "2026-11-24T12:33:51", "2026-11-24T12:33:53", "2026-11-24T12:33:53", 0, 0, "proben1"),
			rec(5, "bad", "FAILED", "NonZeroExitCode", "2026-11-24T12:33:56", "2026-11-24T12:33:56", "2026-11-24T12:33:56", 3, 0, "proben1"),
			rec(7, "sig", "FAILED", "JobLaunchFailure", "2026-11-24T12:33:56", "2026-11-24T12:33:59", "2026-11-24T12:33:59", 0, 9, "proben1"),
			rec(6, "hold", "PENDING", "JobHeldUser", "2026-11-24T12:33:56", "", "", 0, 0, ""),
			running, het0, het1,
		}, 0},
		{"exit:signal and a comment with bars", "12|N/A|N/A|12|N/A|2|0|2:0|N/A|N/A|N/A|FAILED|None|p|c|(null)|n|a|b\n",
			[]Record{{ID: 12, Cluster: "c", Name: "n", Comment: "a|b", State: "FAILED", Reason: "None", Exit: 2, Source: "squeue", CPUs: 2, Partition: "p"}}, 0},
		{"array task and pending tasks", "20|N/A|N/A|19|1|1|1|0|N/A|N/A|N/A|RUNNING|None|p|c|(null)|a|(null)\n" +
			"19|N/A|N/A|19|2-5%2|1|1|0|N/A|N/A|N/A|PENDING|None|p|c|(null)|a|(null)\n",
			[]Record{{ID: 20, Cluster: "c", Name: "a", State: "RUNNING", Reason: "None", Requeue: true, Source: "squeue", CPUs: 1, Partition: "p", ArrayJobID: 19, ArrayTaskID: 1},
				{ID: 19, Cluster: "c", Name: "a", State: "PENDING", Reason: "None", Requeue: true, Source: "squeue", CPUs: 1, Partition: "p", ArrayJobID: 19, ArrayTasks: "2-5%2"}}, 0},
		{"no valid job id: skipped", "N/A|N/A|N/A|0|N/A|1|1|0|N/A|N/A|N/A|RUNNING|None|p|c|(null)|a|(null)\n" +
			"4294967296|N/A|N/A|0|N/A|1|1|0|N/A|N/A|N/A|RUNNING|None|p|c|(null)|a|(null)\n", nil, 0},
		{"out of range numbers", "5|N/A|200|5|N/A|-3|1|99999|3000-01-01T00:00:00|0001-01-01T00:00:00|N/A|RUNNING|None|p|c|(null)|a|(null)\n",
			[]Record{{ID: 5, Cluster: "c", Name: "a", State: "RUNNING", Reason: "None", Requeue: true, Source: "squeue", Partition: "p", Exit: 134, Signal: 31}}, 0},
		{"too few fields", squeueFormat2205[:80] + "\n3|N/A|COMPLETED\n", nil, 1},
		{"too few fields later", "3|N/A|N/A|3|N/A|1|1|0|N/A|N/A|N/A|COMPLETED|None|main|probe|n|j2|(null)\n\n3|N/A\n", nil, 3},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ParseSqueueFormat([]byte(tc.in), time.UTC)
			if tc.errLine > 0 {
				var se *srcerr.Error
				if !errors.As(err, &se) || se.Line != tc.errLine || got != nil {
					t.Fatalf("got %v, %v; want an error at line %d", got, err, tc.errLine)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Fatalf("got\n%+v\nwant\n%+v", got, tc.want)
			}
		})
	}
}

func FuzzSqueueFormat(f *testing.F) {
	f.Add([]byte(squeueFormat2205))
	f.Add([]byte("5|N/A|200|5|N/A|-3|1|99999|3000-01-01T00:00:00|0001-01-01T00:00:00|N/A|RUNNING|None|p|c|(null)|a|(null)\n|||\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		recs, err := ParseSqueueFormat(b, time.UTC)
		if err != nil {
			var se *srcerr.Error
			if recs != nil || !errors.As(err, &se) || se.Line < 1 {
				t.Fatalf("records %v with error %v", recs, err)
			}
			return
		}
		checkRecords(t, recs)
	})
}
