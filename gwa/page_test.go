package gwa

import (
	"encoding/csv"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gmark/gmark/internal/testkit"
)

// The trace toolbox's page: for a trace with every field, one with a
// single job, and one with no wait, memory or site, PlotPage writes the
// figures with their CSV beside them and index.html, which lists each
// figure in its contents, links its SVG and CSV, prints every number for
// people, names the program by its base name and says what is missing.
func TestPlotPage(t *testing.T) {
	cases := []struct {
		name, swf string
		want      []string // on the page
		minFigs   int
	}{
		{"synthetic", syntheticSWF(2000), []string{`jobs</th><td class="l">2,000</td>`, "30, 1, 0", "utilization 7.31%", "Top users"}, 10},
		{"one job", "; MaxProcs: 8\n1 0 5 60 2 -1 -1 2 -1 -1 1 3 1 -1 1 -1 -1 -1\n", []string{`jobs</th><td class="l">1</td>`, "3.805e-6 CPU-years"}, 5},
		{"no wait, memory or site", "; MaxProcs: 8\n1 0 -1 60 2 -1 -1 2 -1 -1 1 3 1 -1 -1 -1 -1 -1\n2 30 -1 90 1 -1 -1 1 -1 -1 1 4 1 -1 -1 -1 -1 -1\n",
			[]string{"no values", "The trace names no site."}, 5},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r, err := NewReader(strings.NewReader(c.swf), ReadOptions{Strict: true})
			if err != nil {
				t.Fatal(err)
			}
			a, err := Analyze(r, AnalysisOptions{}, nil)
			if err != nil {
				t.Fatal(err)
			}
			a.Trace.Name = "t.swf"
			dir := filepath.Join(t.TempDir(), "figs")
			figs, err := PlotTraces([]*Analysis{a}, dir, []string{"/usr/local/bin/gmark", "trace", "plot", "t.swf", "-o", "figs"})
			if err != nil {
				t.Fatal(err)
			}
			if len(figs) < c.minFigs {
				t.Errorf("%d figures", len(figs))
			}
			b, err := os.ReadFile(filepath.Join(dir, PageFile))
			if err != nil {
				t.Fatal(err)
			}
			page := string(b)
			for _, w := range append(c.want, "<code>gmark trace plot t.swf -o figs</code>", `<nav class="toc"`, "@media print") {
				if !strings.Contains(page, w) {
					t.Errorf("the page lacks %q", w)
				}
			}
			for _, f := range figs {
				for _, w := range []string{`<a href="#fig-` + f.Name + `">`, `<img src="` + f.PNG + `"`, `<a href="` + f.SVG + `">`, `<a href="` + f.CSV + `" download>`} {
					if !strings.Contains(page, w) {
						t.Errorf("the page lacks %q", w)
					}
				}
				fh, err := os.Open(filepath.Join(dir, f.CSV))
				if err != nil {
					t.Fatal(err)
				}
				recs, err := csv.NewReader(fh).ReadAll()
				fh.Close()
				if err != nil || len(recs) < 2 || len(recs[0]) != 4 {
					t.Errorf("%s: %v, %d records", f.CSV, err, len(recs))
				}
			}
			if bad := testkit.BadNumbers(page); len(bad) > 0 {
				t.Errorf("numbers not for people: %q", bad)
			}
		})
	}
}

// The page of several traces (the overlays of several traces' figures):
// the summary has a column per trace, the other sections a part per
// trace; no trace is an error.
func TestWritePageOfSeveralTraces(t *testing.T) {
	var as []*Analysis
	for i, swf := range []string{syntheticSWF(500), "; MaxProcs: 8\n1 0 5 60 2 -1 -1 2 -1 -1 1 3 1 -1 1 -1 -1 -1\n", syntheticSWF(50)} {
		r, err := NewReader(strings.NewReader(swf), ReadOptions{Strict: true})
		if err != nil {
			t.Fatal(err)
		}
		a, err := Analyze(r, AnalysisOptions{}, nil)
		if err != nil {
			t.Fatal(err)
		}
		a.Trace.Name = []string{"a.swf", "b.swf", "c.swf"}[i]
		as = append(as, a)
	}
	dir := t.TempDir()
	path := filepath.Join(dir, PageFile)
	if err := WritePage(nil, nil, path, nil); err == nil {
		t.Error("a page of no trace")
	}
	if err := WritePage(as, nil, path, []string{"gmark", "trace", "plot"}); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	page := string(b)
	for _, w := range []string{"<h1>Trace analysis: a.swf, b.swf, c.swf</h1>", `<th class="l">a.swf</th><th class="l">b.swf</th><th class="l">c.swf</th>`,
		`jobs</th><td class="l">500</td><td class="l">1</td><td class="l">50</td>`, "<h3>b.swf</h3>"} {
		if !strings.Contains(page, w) {
			t.Errorf("the page lacks %q", w)
		}
	}
	if n := strings.Count(page, "<h3>c.swf</h3>"); n != 3 {
		t.Errorf("%d parts for c.swf, want 3 (distributions, users, sites)", n)
	}
	if bad := testkit.BadNumbers(page); len(bad) > 0 {
		t.Errorf("numbers not for people: %q", bad)
	}
}
