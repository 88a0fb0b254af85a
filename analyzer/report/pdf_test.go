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

// With Options.PDF every figure drawn is written as a PDF beside its PNG
// and SVG, and the page links it; without, no PDF is written or linked.
func TestWritePDF(t *testing.T) {
	for _, pdf := range []bool{true, false} {
		dir := t.TempDir()
		db := filepath.Join(dir, "r.db")
		reporttest.WriteRuns(t, db, reporttest.Run{ID: "r", Ended: true,
			Jobs: reporttest.Jobs(20, store.Succeeded, func(i int) float64 { return float64(i) }, reporttest.Constant(3), "sser", "smpi")})
		out := filepath.Join(dir, "out")
		index, err := report.Write(context.Background(), db, nil, out, report.Options{PDF: pdf})
		if err != nil {
			t.Fatal(err)
		}
		page, err := os.ReadFile(index)
		if err != nil {
			t.Fatal(err)
		}
		svgs, _ := filepath.Glob(filepath.Join(out, report.FiguresDir, "*.svg"))
		pdfs, _ := filepath.Glob(filepath.Join(out, report.FiguresDir, "*.pdf"))
		if len(svgs) == 0 {
			t.Fatal("no figure drawn")
		}
		if !pdf {
			if len(pdfs) != 0 || strings.Contains(string(page), ".pdf") {
				t.Errorf("PDF not asked for: %d written, linked: %v", len(pdfs), strings.Contains(string(page), ".pdf"))
			}
			continue
		}
		if len(pdfs) != len(svgs) {
			t.Errorf("%d PDF for %d SVG", len(pdfs), len(svgs))
		}
		for _, p := range pdfs {
			b, err := os.ReadFile(p)
			if err != nil || !bytes.HasPrefix(b, []byte("%PDF-")) {
				t.Errorf("%s: not a PDF (%v)", p, err)
			}
			if link := `href="` + report.FiguresDir + "/" + filepath.Base(p) + `"`; !strings.Contains(string(page), link) {
				t.Errorf("the page does not link %s", link)
			}
		}
	}
}
