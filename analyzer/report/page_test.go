package report

import (
	"context"
	"encoding/csv"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/gmark/gmark/internal/testkit"
)

// The page: a summary table narrow enough for 1280 px with the
// full one in a <details>, a table of contents naming every figure, the
// print style, each figure's data as CSV linked beside it, every number
// as plots.Num prints it, and the command line with the program's name.
func TestPageLayout(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "r.db")
	if err := buildStore(db, 500); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "out")
	index, err := Write(context.Background(), db, nil, out, Options{Command: []string{"/tmp/go-build123/b001/exe/gmark", "report", "--db", "r.db"}})
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(index)
	if err != nil {
		t.Fatal(err)
	}
	page := string(b)
	for _, want := range []string{`<nav class="toc"`, `<details id="summary-full">`, "@media print", "Made by <code>gmark report --db r.db</code>"} {
		if !strings.Contains(page, want) {
			t.Errorf("the page lacks %q", want)
		}
	}
	// The compact summary has 10 columns; the full one, transposed, a row
	// per metric (18) and a column per run.
	compact := regexp.MustCompile(`(?s)<table class="compact">.*?</table>`).FindString(page)
	rows := regexp.MustCompile(`(?s)<tr>(.*?)</tr>`).FindAllStringSubmatch(compact, -1)
	if len(rows) != 2 || strings.Count(rows[1][1], "<td") != 10 {
		t.Errorf("the compact summary: %q", compact)
	}
	full := regexp.MustCompile(`(?s)<table class="full">.*?</table>`).FindString(page)
	rows = regexp.MustCompile(`(?s)<tr>(.*?)</tr>`).FindAllStringSubmatch(full, -1)
	if len(rows) != 1+18 {
		t.Errorf("the full summary has %d rows, want 19:\n%s", len(rows), full)
	}
	for _, r := range rows[1:] {
		if n := strings.Count(r[1], "<td"); n != 2 { // the metric's name and the one run's value
			t.Errorf("full summary row %q: %d cells", r[1], n)
		}
	}
	for _, w := range []string{"never started", "co-allocated", "goodput (processor-h)", `rowspan="7">jobs</th>`} {
		if !strings.Contains(full, w) {
			t.Errorf("the full summary lacks %q", w)
		}
	}
	figs := regexp.MustCompile(`<figure id="fig-([a-z_]+)">`).FindAllStringSubmatch(page, -1)
	if len(figs) < 10 {
		t.Fatalf("%d figures", len(figs))
	}
	for _, f := range figs {
		name := f[1]
		if !strings.Contains(page, `<a href="#fig-`+name+`">`) {
			t.Errorf("the contents do not list %s", name)
		}
		if !strings.Contains(page, `<a href="`+FiguresDir+"/"+name+`.csv" download>`) {
			t.Errorf("no link to %s.csv", name)
		}
		fh, err := os.Open(filepath.Join(out, FiguresDir, name+".csv"))
		if err != nil {
			t.Error(err)
			continue
		}
		recs, err := csv.NewReader(fh).ReadAll()
		fh.Close()
		if err != nil || len(recs) < 2 || recs[0][0] != "series" {
			t.Errorf("%s.csv: %v, %d records", name, err, len(recs))
		}
	}
	if bad := testkit.BadNumbers(page); len(bad) > 0 {
		t.Errorf("numbers not for people: %q", bad)
	}
	if strings.Contains(page, "go-build") {
		t.Error("the page names a temporary binary")
	}
}
