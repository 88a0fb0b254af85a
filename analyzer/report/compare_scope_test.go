package report_test

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gmark/gmark/analyzer/report"
	"github.com/gmark/gmark/analyzer/report/reporttest"
	"github.com/gmark/gmark/analyzer/store"
)

// A comparison of runs whose placement policy had nothing to act on in
// their workload says so, and why, in every format: Worst-Fit against
// Close-to-Files on jobs without input files, or on jobs pinned to sites,
// cannot differ. Runs of a workload that gives the policy something to do,
// of no policy, or whose manifest predates the count, get no such note.
func TestCompareNotesPoliciesWithNothingToActOn(t *testing.T) {
	manifest := func(scope string) func(*store.Provenance) {
		return func(p *store.Provenance) { p.Manifest = `{"jobs":30,"placement":` + scope + `}` }
	}
	noFiles := manifest(`{"jobs":30,"free":30}`)
	pinned := manifest(`{"jobs":30}`)
	files := manifest(`{"jobs":30,"free":30,"files":12}`)
	old := func(p *store.Provenance) { p.Manifest = `{"jobs":30}` }
	jobs := reporttest.Jobs(30, store.Succeeded, reporttest.Constant(5), reporttest.Constant(60))
	run := func(id, policy string, prov func(*store.Provenance)) reporttest.Run {
		tc := `{"processors":64}`
		if policy != "" {
			tc = `{"processors":64,"policy":"` + policy + `"}`
		}
		return reporttest.Run{ID: id, Ended: true, TargetConfig: tc, Jobs: jobs, Provenance: prov}
	}
	for _, c := range []struct {
		name string
		runs []reporttest.Run
		want []string // the notes about placement
	}{
		{"WF against CF on jobs without files", []reporttest.Run{run("wf", "WF", noFiles), run("cf", "CF", noFiles), run("cf2", "close-to-files", noFiles)},
			[]string{"runs cf and cf2 (policy CF) had nothing to act on: no job with a site to choose reads an input file (30 jobs with a site to choose), and Close-to-Files places a job without input files as Worst-Fit does"}},
		{"every job pinned", []reporttest.Run{run("wf", "WF", pinned), run("cm", "CM", pinned)},
			[]string{"runs wf and cm (policies WF and CM) had nothing to act on: every component of the 30 jobs is pinned to a site"}},
		{"CF with files, CM on single components", []reporttest.Run{run("wf", "WF", files), run("cf", "CF", files), run("cm", "CM", files)},
			[]string{"run cm (policy CM) had nothing to act on: no job has two or more components to place"}},
		{"runs of no policy, or of an old manifest", []reporttest.Run{run("a", "", pinned), run("b", "CF", old), run("c", "CF", nil)}, nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			db := filepath.Join(t.TempDir(), "r.db")
			reporttest.WriteRuns(t, db, c.runs...)
			o := report.CompareOptions{By: "policy", DBs: []string{db}}
			cmp, err := report.BuildComparison(context.Background(), o)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, n := range cmp.Notes {
				if strings.Contains(n, "nothing to act on") {
					got = append(got, n)
				}
			}
			if len(got) != len(c.want) {
				t.Fatalf("notes %q, want %d like %q", cmp.Notes, len(c.want), c.want)
			}
			for i := range got {
				if !strings.HasPrefix(got[i], c.want[i]) {
					t.Errorf("note %q\nwant %q…", got[i], c.want[i])
				}
			}
			// The note is in the text, the JSON and the HTML alike.
			for _, format := range []string{"text", "json", "html"} {
				var out bytes.Buffer
				o.Format, o.Dir = format, filepath.Join(t.TempDir(), "cmp")
				if err := report.WriteComparison(context.Background(), &out, o); err != nil {
					t.Fatal(err)
				}
				text := out.String()
				switch format {
				case "json":
					var v struct{ Notes []string }
					if err := json.Unmarshal(out.Bytes(), &v); err != nil {
						t.Fatal(err)
					}
					text = strings.Join(v.Notes, "\n")
				case "html":
					b, err := os.ReadFile(filepath.Join(o.Dir, "index.html"))
					if err != nil {
						t.Fatal(err)
					}
					text = string(b)
				}
				for _, w := range c.want {
					if !strings.Contains(text, htmlSafe(format, w)) {
						t.Errorf("%s: no note %q", format, w)
					}
				}
				if c.want == nil && strings.Contains(text, "nothing to act on") {
					t.Errorf("%s: a note where there should be none", format)
				}
			}
		})
	}
}

// htmlSafe is what the page makes of s: its apostrophes escaped.
func htmlSafe(format, s string) string {
	if format == "html" {
		return strings.ReplaceAll(s, "'", "&#39;")
	}
	return s
}
