package report_test

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/gmark/gmark/analyzer/report"
	"github.com/gmark/gmark/analyzer/report/reporttest"
	"github.com/gmark/gmark/analyzer/store"
)

// A report of degenerate data (no spread, nothing at
// all, every job failed, no end, unknown system size, negative waits from a
// coarse clock) writes the whole page: every figure drawn or, on the page,
// the reason it is not; no panic, no error; the other formats too.
func TestWriteDegenerateRuns(t *testing.T) {
	jobs, constant := reporttest.Jobs, reporttest.Constant
	noEnd := jobs(6, store.Cancelled, constant(1), constant(2), "sser", "smpi")
	for i := range noEnd {
		noEnd[i].EndNS = 0 // started, cut off by a kill: no end
	}
	cases := []struct {
		name string
		runs []reporttest.Run
		// drawn are figures that must be drawn; the rest may be listed
		// as not drawn, with a reason.
		drawn []string
	}{
		{"zero jobs", []reporttest.Run{{ID: "r", Ended: true}}, nil},
		{"one job", []reporttest.Run{{ID: "r", Ended: true, Jobs: jobs(1, store.Succeeded, constant(2), constant(3))}},
			[]string{"cdf_wait", "cdf_run", "cdf_response", "box_wait", "xbar_delay", "scatter_wait_run", "pareto_sites", "success_rate", "breakdown"}},
		{"every wait zero", []reporttest.Run{{ID: "r", Ended: true, Jobs: jobs(20, store.Succeeded, constant(0), constant(4), "sser", "smpi")}},
			reporttest.OneRunFigures},
		{"every value zero", []reporttest.Run{{ID: "r", Ended: true, Jobs: jobs(20, store.Succeeded, constant(0), constant(0), "sser", "smpi")}},
			[]string{"cdf_wait", "cdf_run", "cdf_response", "box_wait", "xbar_delay", "scatter_wait_run", "pareto_sites", "bihist_wait", "success_rate", "breakdown"}},
		{"every value equal", []reporttest.Run{{ID: "r", Ended: true, Jobs: jobs(20, store.Succeeded, constant(0.5), constant(0.5), "sser", "smpi")}},
			reporttest.OneRunFigures},
		{"every value equal and large", []reporttest.Run{{ID: "r", Ended: true, Jobs: jobs(20, store.Succeeded, constant(300), constant(300), "sser", "smpi")}},
			reporttest.OneRunFigures},
		{"every job failed", []reporttest.Run{{ID: "r", Ended: true, Jobs: jobs(10, store.Failed, constant(1), constant(0), "sser", "smpi")}},
			[]string{"cdf_wait", "cdf_run", "box_wait", "success_rate"}},
		{"no job started", []reporttest.Run{{ID: "r", Ended: true, Jobs: jobs(10, store.NeverStarted, nil, nil)}},
			[]string{"xbar_delay", "success_rate"}},
		{"a run with no end", []reporttest.Run{{ID: "r", Jobs: noEnd}}, []string{"cdf_wait", "box_wait", "bihist_wait", "success_rate"}},
		{"system size unknown", []reporttest.Run{{ID: "r", Ended: true, TargetConfig: "{}", Jobs: jobs(20, store.Succeeded, func(i int) float64 { return float64(i) }, constant(3), "sser", "smpi")}},
			[]string{"cdf_wait", "goodput", "throughput"}},
		{"negative waits (a clock of whole seconds)", []reporttest.Run{{ID: "r", Ended: true, Jobs: jobs(20, store.Succeeded, func(i int) float64 { return -0.4 + float64(i%3) }, constant(2), "sser", "smpi")}},
			reporttest.OneRunFigures},
		{"an empty run beside a full one", []reporttest.Run{{ID: "e", Ended: true}, {ID: "f", Ended: true, Jobs: jobs(30, store.Succeeded, func(i int) float64 { return float64(i * i) }, constant(60), "sser", "smpi")}},
			reporttest.OneRunFigures},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			db := filepath.Join(dir, "r.db")
			reporttest.WriteRuns(t, db, c.runs...)
			out := filepath.Join(dir, "out")
			index, err := report.Write(context.Background(), db, nil, out, report.Options{})
			if err != nil {
				t.Fatalf("Write: %v", err)
			}
			for _, r := range reporttest.CheckPage(t, index, c.drawn...) {
				t.Logf("not drawn: %s", r)
			}

			rep, err := report.Build(context.Background(), db, nil, report.Options{})
			if err != nil {
				t.Fatal(err)
			}
			var b bytes.Buffer
			if err := rep.WriteJSON(&b); err != nil {
				t.Fatalf("json: %v", err)
			}
			if !json.Valid(b.Bytes()) {
				t.Fatalf("invalid JSON:\n%s", b.String())
			}
			for _, w := range []func(*bytes.Buffer) error{
				func(b *bytes.Buffer) error { return rep.WriteText(b) },
				func(b *bytes.Buffer) error { return rep.WriteSummary(b) },
				func(b *bytes.Buffer) error { return rep.WriteCSV(b) },
			} {
				b.Reset()
				if err := w(&b); err != nil {
					t.Fatal(err)
				}
				if s := b.String(); strings.Contains(s, "NaN") || strings.Contains(s, "Inf") {
					t.Errorf("NaN or Inf printed:\n%s", s)
				}
			}
		})
	}
}

// The report's directory. A directory, a new one or a
// symbolic link to one is written into (the link stays a link); a regular
// file, a FIFO, a device or a dangling link is refused before any work,
// with an error that says what it is; index.html itself may be a link to a
// file elsewhere, which is followed.
func TestWriteOutputDirectory(t *testing.T) {
	db := filepath.Join(t.TempDir(), "r.db")
	reporttest.WriteRuns(t, db, reporttest.Run{ID: "r", Ended: true, Jobs: reporttest.Jobs(3, store.Succeeded, reporttest.Constant(1), reporttest.Constant(2))})
	cases := []struct {
		name  string
		setup func(t *testing.T, dir string) string // returns -o
		want  string                                // error; "" for success
		check func(t *testing.T, dir, out string)
	}{
		{"absent", func(t *testing.T, dir string) string { return filepath.Join(dir, "new", "report") }, "", nil},
		{"an existing directory", func(t *testing.T, dir string) string { return dir }, "", nil},
		{"a symbolic link to a directory", func(t *testing.T, dir string) string {
			mustDo(t, os.Mkdir(filepath.Join(dir, "target"), 0o755))
			mustDo(t, os.Symlink("target", filepath.Join(dir, "link")))
			return filepath.Join(dir, "link")
		}, "", func(t *testing.T, dir, out string) {
			if fi, err := os.Lstat(out); err != nil || fi.Mode()&os.ModeSymlink == 0 {
				t.Errorf("the link is no longer a link: %v", err)
			}
			if _, err := os.Stat(filepath.Join(dir, "target", "index.html")); err != nil {
				t.Errorf("not written into the link's target: %v", err)
			}
		}},
		{"index.html a link to a file elsewhere", func(t *testing.T, dir string) string {
			mustDo(t, os.Mkdir(filepath.Join(dir, "out"), 0o755))
			mustDo(t, os.WriteFile(filepath.Join(dir, "page.html"), []byte("old"), 0o644))
			mustDo(t, os.Symlink(filepath.Join(dir, "page.html"), filepath.Join(dir, "out", "index.html")))
			return filepath.Join(dir, "out")
		}, "", func(t *testing.T, dir, out string) {
			if b, err := os.ReadFile(filepath.Join(dir, "page.html")); err != nil || !bytes.Contains(b, []byte("<html")) {
				t.Errorf("the link's target does not hold the page: %v", err)
			}
		}},
		{"a regular file", func(t *testing.T, dir string) string {
			mustDo(t, os.WriteFile(filepath.Join(dir, "f"), []byte("keep"), 0o644))
			return filepath.Join(dir, "f")
		}, "is a regular file, not a directory", func(t *testing.T, dir, out string) {
			if b, _ := os.ReadFile(out); string(b) != "keep" {
				t.Errorf("the file was changed: %q", b)
			}
		}},
		{"a FIFO", func(t *testing.T, dir string) string {
			mustDo(t, syscall.Mkfifo(filepath.Join(dir, "p"), 0o644))
			return filepath.Join(dir, "p")
		}, "is a FIFO (named pipe), not a directory", nil},
		{"a character device", func(t *testing.T, dir string) string { return "/dev/null" }, "is a character device, not a directory", nil},
		{"a dangling link", func(t *testing.T, dir string) string {
			mustDo(t, os.Symlink(filepath.Join(dir, "nowhere"), filepath.Join(dir, "dangling")))
			return filepath.Join(dir, "dangling")
		}, "which does not exist", nil},
		{"figures/ a regular file", func(t *testing.T, dir string) string {
			mustDo(t, os.WriteFile(filepath.Join(dir, report.FiguresDir), nil, 0o644))
			return dir
		}, "figures is a regular file", nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			out := c.setup(t, dir)
			index, err := report.Write(context.Background(), db, nil, out, report.Options{})
			if c.want != "" {
				if err == nil || !strings.Contains(err.Error(), c.want) {
					t.Fatalf("error %v, want %q", err, c.want)
				}
			} else if err != nil {
				t.Fatal(err)
			} else {
				reporttest.CheckPage(t, index, "cdf_wait")
			}
			if c.check != nil {
				c.check(t, dir, out)
			}
		})
	}
}

func mustDo(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// A report with no run (made by hand: Build never makes one) is an error
// to draw, not a panic.
func TestFiguresOfNoRun(t *testing.T) {
	if _, err := report.Figures(context.Background(), &report.Report{}, t.TempDir()); err == nil || !strings.Contains(err.Error(), "no run") {
		t.Errorf("error %v", err)
	}
}
