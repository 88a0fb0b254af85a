package report_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gmark/gmark/analyzer/report"
	"github.com/gmark/gmark/analyzer/report/reporttest"
	"github.com/gmark/gmark/analyzer/store"
)

// absurd bounds the figures of the stores below: none of their runs lasts
// more than a few minutes, nor has more than a few dozen jobs, so a number
// beyond it (a span measured from 1970, a rate over no time) is wrong.
const absurd = 1e7

// A report of runs in which no job ran, or every job failed, prints no
// negative, infinite or absurd number anywhere: every number of the text,
// summary, CSV and JSON outputs and of the HTML page and its figures' data
// is walked. Before, a run whose jobs were all refused (none submitted,
// none started) had a makespan of −946,684,800 s: the last end (none, 0)
// less the first scheduled instant.
func TestReportNumbersWhenNoJobRanOrAllFailed(t *testing.T) {
	refused := func(n int) []store.Job { // scheduled, never submitted: refused by the scheduler
		out := make([]store.Job, n)
		for i := range out {
			out[i] = store.Job{Type: "swf", App: "swf", ScheduledNS: int64(i+1) * 1e9, State: store.Failed, Reason: "refused by the scheduler"}
		}
		return out
	}
	unsent := reporttest.Jobs(5, store.Failed, reporttest.Constant(0), reporttest.Constant(0)) // submitted, never started: sbatch failed
	for i := range unsent {
		unsent[i].StartNS, unsent[i].EndNS, unsent[i].Sites, unsent[i].Reason = 0, 0, "", "sbatch: error: unable to contact the controller"
	}
	jobs, constant := reporttest.Jobs, reporttest.Constant
	cases := []struct {
		name string
		runs []reporttest.Run
		say  string // what the summary must say
	}{
		{"no jobs", []reporttest.Run{{ID: "r", Ended: true}}, "the run has no jobs"},
		{"every job refused, none submitted", []reporttest.Run{{ID: "r", Ended: true, Jobs: refused(3)}}, "no job ran"},
		{"every job refused, at speedup 10", []reporttest.Run{{ID: "r", Ended: true, Jobs: refused(3), Settings: `{"speedup":10}`}}, "no job ran"},
		{"every submission failed", []reporttest.Run{{ID: "r", Ended: true, Jobs: unsent}}, "no job ran"},
		{"every job never started", []reporttest.Run{{ID: "r", Ended: true, Jobs: jobs(6, store.NeverStarted, nil, nil)}}, "no job ran"},
		{"every job failed after running", []reporttest.Run{{ID: "r", Ended: true, Jobs: jobs(10, store.Failed, constant(1), constant(3))}}, "makespan"},
		{"every job failed at once", []reporttest.Run{{ID: "r", Ended: true, Jobs: jobs(10, store.Failed, constant(0), constant(0))}}, "makespan"},
		{"every job failed, at speedup 10", []reporttest.Run{{ID: "r", Ended: true, Settings: `{"speedup":10}`, Jobs: jobs(10, store.Failed, constant(1), constant(3))}}, "makespan"},
		{"no job ran beside a run that did", []reporttest.Run{{ID: "a", Ended: true, Jobs: refused(2)},
			{ID: "b", Ended: true, Jobs: jobs(4, store.Succeeded, constant(1), constant(2))}}, "no job ran"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			db := filepath.Join(dir, "r.db")
			reporttest.WriteRuns(t, db, c.runs...)
			rep, err := report.Build(context.Background(), db, nil, report.Options{})
			if err != nil {
				t.Fatal(err)
			}
			outputs := map[string]func(*bytes.Buffer) error{
				"summary": func(b *bytes.Buffer) error { return rep.WriteSummary(b) },
				"text":    func(b *bytes.Buffer) error { return rep.WriteText(b) },
				"csv":     func(b *bytes.Buffer) error { return rep.WriteCSV(b) },
				"json":    func(b *bytes.Buffer) error { return rep.WriteJSON(b) },
			}
			for name, write := range outputs {
				var b bytes.Buffer
				if err := write(&b); err != nil {
					t.Fatalf("%s: %v", name, err)
				}
				if name == "json" {
					reporttest.CheckJSONNumbers(t, b.Bytes(), absurd)
				} else {
					reporttest.CheckTextNumbers(t, name, b.String(), absurd)
				}
				if name == "summary" && !strings.Contains(b.String(), c.say) {
					t.Errorf("the summary does not say %q:\n%s", c.say, b.String())
				}
			}
			index, err := report.Write(context.Background(), db, nil, filepath.Join(dir, "out"), report.Options{})
			if err != nil {
				t.Fatal(err)
			}
			page, err := os.ReadFile(index)
			if err != nil {
				t.Fatal(err)
			}
			reporttest.CheckTextNumbers(t, "html", reporttest.PageText(string(page)), absurd)
			reporttest.CheckFigureData(t, filepath.Join(dir, "out"), absurd)
		})
	}
}
