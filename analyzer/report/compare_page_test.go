package report_test

import (
	"bytes"
	"context"
	"encoding/csv"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/gmark/gmark/analyzer/report"
)

// The comparison's page follows the report's conventions: the shared
// script (its page-loaded and width markers) and style, a table of
// contents that names every figure, the tables transposed (a row per
// metric, a column per group or run) with the full ones in a <details>,
// the command line cleaned, and every figure's caption linking its data as
// CSV (and its PDF with --pdf), each file there and readable.
func TestComparePage(t *testing.T) {
	a, b := compareStores(t)
	for _, c := range []struct {
		name   string
		o      report.CompareOptions
		groups []string // the summary table's column headings, in order
		pdf    bool
	}{
		{"by policy, two stores", report.CompareOptions{By: "policy", DBs: []string{a, b}}, []string{"WF", "CF"}, false},
		{"one run, with PDF", report.CompareOptions{By: "policy", DBs: []string{a}, Runs: []string{"cf1"}, Options: report.Options{PDF: true}}, []string{"CF"}, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			o := c.o
			o.Format, o.Dir = "html", filepath.Join(t.TempDir(), "cmp")
			o.Command = []string{"/tmp/go-build123/b001/exe/gmark", "report", "--compare", "policy", "--db", "my db.db"}
			var out bytes.Buffer
			if err := report.WriteComparison(context.Background(), &out, o); err != nil {
				t.Fatal(err)
			}
			b, err := os.ReadFile(filepath.Join(o.Dir, "index.html"))
			if err != nil {
				t.Fatal(err)
			}
			page := string(b)
			for _, want := range []string{`data-scroll-width`, `nav class="toc"`, `<details id="summary-full">`, `<details id="runs-full">`,
				`@media print`, `Made by <code>gmark report --compare policy --db &#39;my db.db&#39;</code>`} {
				if !strings.Contains(page, want) {
					t.Errorf("the page lacks %q", want)
				}
			}
			// The summary table: a column per group, a row per metric.
			head := regexp.MustCompile(`(?s)<table class="compact">\s*<tr><th class="l">policy</th>(.*?)</tr>`).FindStringSubmatch(page)
			if head == nil {
				t.Fatalf("no transposed summary table")
			}
			var cols []string
			for _, m := range regexp.MustCompile(`</span>([^<]*)</th>`).FindAllStringSubmatch(head[1], -1) {
				cols = append(cols, m[1])
			}
			if strings.Join(cols, ",") != strings.Join(c.groups, ",") {
				t.Errorf("summary columns %q, want %q", cols, c.groups)
			}
			for _, row := range []string{"mean wait (s)", "p95 bounded slowdown", "utilization"} {
				if n := strings.Count(page, `<td class="l">`+row+`</td>`); n != 4 { // groups, full groups, runs, full runs
					t.Errorf("%d rows %q, want 4", n, row)
				}
			}
			figs := regexp.MustCompile(`<figure id="fig-([^"]+)">`).FindAllStringSubmatch(page, -1)
			if len(figs) < 4 {
				t.Fatalf("%d figures", len(figs))
			}
			for _, f := range figs {
				name := f[1]
				if !strings.Contains(page, `<li><a href="#fig-`+name+`">`) {
					t.Errorf("%s: not in the contents", name)
				}
				links := []string{"figures/" + name + ".csv"}
				if c.pdf {
					links = append(links, "figures/"+name+".pdf")
				}
				for _, l := range links {
					if !strings.Contains(page, `href="`+l+`"`) {
						t.Errorf("%s: no link to %s", name, l)
					}
					if fi, err := os.Stat(filepath.Join(o.Dir, l)); err != nil || fi.Size() == 0 {
						t.Errorf("%s: %v", l, err)
					}
				}
				data, err := os.ReadFile(filepath.Join(o.Dir, "figures", name+".csv"))
				if err != nil {
					continue
				}
				rows, err := csv.NewReader(bytes.NewReader(data)).ReadAll()
				if err != nil || len(rows) < 2 || rows[0][0] != "series" {
					t.Errorf("%s.csv: %v, %d rows", name, err, len(rows))
				}
			}
			if !c.pdf && strings.Contains(page, ".pdf") {
				t.Errorf("a PDF link without --pdf")
			}
		})
	}
}
