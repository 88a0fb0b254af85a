package report

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A small store written by the benchmark's builder: Write draws every
// figure and the page refers to each; Summary and the other formats work.
func TestWriteSmallRun(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "r.db")
	if err := buildStore(db, 2000); err != nil {
		t.Fatal(err)
	}
	index, err := Write(context.Background(), db, nil, filepath.Join(dir, "out"), Options{Command: []string{"gmark", "report"}})
	if err != nil {
		t.Fatal(err)
	}
	page, err := os.ReadFile(index)
	if err != nil {
		t.Fatal(err)
	}
	for _, fig := range []string{"cdf_wait", "cdf_run", "cdf_response", "box_wait", "xbar_delay", "scatter_wait_run", "pareto_sites",
		"bihist_wait", "utilization", "goodput", "throughput", "success_rate", "breakdown", "duration_runs", "wait_by_arrival"} {
		for _, ext := range []string{".png", ".svg"} {
			if _, err := os.Stat(filepath.Join(dir, "out", FiguresDir, fig+ext)); err != nil {
				t.Errorf("figure %s%s: %v", fig, ext, err)
			}
		}
		if !strings.Contains(string(page), FiguresDir+"/"+fig+".png") {
			t.Errorf("the page does not show %s", fig)
		}
	}
	if strings.Contains(string(page), "Not drawn") {
		t.Error("a figure was not drawn")
	}
	rep, err := Build(context.Background(), db, []string{"big"}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := rep.WriteSummary(&b); err != nil || !strings.Contains(b.String(), "jobs 2000:") || !strings.Contains(b.String(), "of 4096 processors") {
		t.Errorf("summary %v:\n%s", err, b.String())
	}
	for _, w := range []func(*bytes.Buffer) error{
		func(b *bytes.Buffer) error { return rep.WriteText(b) },
		func(b *bytes.Buffer) error { return rep.WriteJSON(b) },
		func(b *bytes.Buffer) error { return rep.WriteCSV(b) },
	} {
		b.Reset()
		if err := w(&b); err != nil || b.Len() < 1000 {
			t.Errorf("%v, %d bytes", err, b.Len())
		}
	}
	if _, err := Build(context.Background(), db, []string{"nope"}, Options{}); err == nil || !strings.Contains(err.Error(), "nope") {
		t.Errorf("unknown run: %v", err)
	}
}
