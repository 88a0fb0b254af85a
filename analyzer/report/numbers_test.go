package report_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"html"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
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
					checkJSONNumbers(t, b.Bytes())
				} else {
					checkTextNumbers(t, name, b.String())
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
			checkTextNumbers(t, "html", pageText(string(page)))
			csvs, _ := filepath.Glob(filepath.Join(dir, "out", report.FiguresDir, "*.csv"))
			for _, f := range csvs {
				b, err := os.ReadFile(f)
				if err != nil {
					t.Fatal(err)
				}
				// A line across an axis of categories (runs, sites) runs
				// from the left edge of the first, at x = −0.5: a place
				// on the axis, not a figure.
				checkTextNumbers(t, filepath.Base(f), strings.ReplaceAll(string(b), ",-0.5,", ",edge,"))
			}
		})
	}
}

// checkJSONNumbers walks every number of a JSON document: finite, not
// negative and not absurd; a time (a key ending in ns: Unix nanoseconds)
// is one of this century, or absent.
func checkJSONNumbers(t *testing.T, doc []byte) {
	t.Helper()
	var v any
	d := json.NewDecoder(bytes.NewReader(doc))
	d.UseNumber()
	if err := d.Decode(&v); err != nil {
		t.Fatalf("json: %v", err)
	}
	var walk func(v any, path, key string)
	walk = func(v any, path, key string) {
		switch x := v.(type) {
		case map[string]any:
			for k, e := range x {
				walk(e, path+"."+k, k)
			}
		case []any:
			for i, e := range x {
				walk(e, fmt.Sprintf("%s[%d]", path, i), key)
			}
		case json.Number:
			f, err := x.Float64()
			lk := strings.ToLower(key)
			switch {
			case err != nil || math.IsInf(f, 0) || math.IsNaN(f):
				t.Errorf("json %s = %s", path, x)
			case strings.HasSuffix(lk, "ns") && lk != "delay_ns":
				if f < 9e17 || f > 4.1e18 { // 1998 to 2100
					t.Errorf("json %s = %s: not a time", path, x)
				}
			case f < 0 || f > absurd:
				t.Errorf("json %s = %s", path, x)
			}
		}
	}
	walk(v, "", "")
}

var (
	// Things made of digits that are not figures: dates and times, digests
	// and other hexadecimal ids, ranges of job indices.
	notFigures = regexp.MustCompile(`\d{4}-\d{2}-\d{2}([ T]\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z| UTC)?)?|\b[0-9a-f]{12,}\b|\b\d+-\d+\b|go1\.\d+(\.\d+)?`)
	figure     = regexp.MustCompile(`(^|[^\w.-])(-?)(\d[\d,]*(\.\d+)?([eE][-+]?\d+)?)`)
)

// checkTextNumbers checks every number of a text: not negative, not
// absurd, and no NaN or infinity spelled out.
func checkTextNumbers(t *testing.T, name, text string) {
	t.Helper()
	for _, bad := range []string{"NaN", "Inf", "∞"} {
		if strings.Contains(text, bad) {
			t.Errorf("%s: %q printed", name, bad)
		}
	}
	text = notFigures.ReplaceAllString(text, " ")
	for _, m := range figure.FindAllStringSubmatch(text, -1) {
		v, err := strconv.ParseFloat(strings.ReplaceAll(m[3], ",", ""), 64)
		if err != nil {
			continue
		}
		if m[2] == "-" && v != 0 || v > absurd {
			t.Errorf("%s: %s%s", name, m[2], m[3])
		}
	}
}

var (
	scriptOrStyle = regexp.MustCompile(`(?s)<(script|style)[^>]*>.*?</(script|style)>`)
	tag           = regexp.MustCompile(`<[^>]*>`)
)

// pageText is the text a reader of the page sees.
func pageText(page string) string {
	return html.UnescapeString(tag.ReplaceAllString(scriptOrStyle.ReplaceAllString(page, " "), " "))
}
