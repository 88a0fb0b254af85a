package main

import (
	"bytes"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/BurntSushi/toml"
	"github.com/gmark/gmark/gwa"
	"github.com/gmark/gmark/internal/testkit"
)

// fifoReader makes a FIFO at path and reads it while a command writes to
// it. It holds a write end of its own so that the read sees no end of file
// before the command opens the FIFO; done, called once the command has
// exited, lets go of it and returns everything the command wrote.
func fifoReader(t *testing.T, path string) (done func() []byte) {
	t.Helper()
	if err := syscall.Mkfifo(path, 0o600); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	r, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		t.Fatal(err)
	}
	keep, err := os.OpenFile(path, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	got := make(chan []byte, 1)
	go func() {
		b, _ := io.ReadAll(r)
		got <- b
	}()
	return func() []byte {
		keep.Close()
		b := <-got
		r.Close()
		return b
	}
}

// traceJobs is how many records a trace held in memory has (-1 when it
// does not read).
func traceJobs(b []byte) int {
	r, err := gwa.NewReader(bytes.NewReader(b), gwa.ReadOptions{Strict: true})
	if err != nil {
		return -1
	}
	n := 0
	for {
		if _, err := r.Next(); err != nil {
			if err == io.EOF {
				return n
			}
			return -1
		}
		n++
	}
}

// Every trace and fit writer replaced its output path
// with a new file: a symbolic link lost its link, a FIFO's reader got
// nothing, /dev/full "succeeded". Each writer now writes through a link
// (the link kept, its target written, --force needed to replace a file),
// writes a FIFO through (its reader gets the output), reports a full device
// (exit 1, "no space left on device"), and refuses a directory (exit 2).
func TestTraceOutputPaths(t *testing.T) {
	dir := t.TempDir()
	writeSmallTrace(t, dir)
	writeFile(t, filepath.Join(dir, "syn.swf"), testkit.SyntheticSWF(300, 1), 0o644)
	small, syn := filepath.Join(dir, "small.swf"), filepath.Join(dir, "syn.swf")
	traceOK := func(want int) func([]byte) string {
		return func(b []byte) string {
			if n := traceJobs(b); n != want {
				return fmt.Sprintf("the output reads as %d records (-1: not a trace), want %d", n, want)
			}
			return ""
		}
	}
	fitOK := func(b []byte) string {
		var v map[string]any
		if _, err := toml.Decode(string(b), &v); err != nil || v["runtime"] == nil {
			return "the output is not a fit file with runtime"
		}
		return ""
	}
	writers := []struct {
		name  string
		ext   string
		args  func(out string, force bool) []string
		check func([]byte) string
	}{
		{"convert to GWF", ".gwf", func(out string, force bool) []string {
			return []string{"trace", "convert", "--format", "gwf", "--force=" + fmt.Sprint(force), small, out}
		}, traceOK(10)},
		{"convert to SWF.gz", ".swf.gz", func(out string, force bool) []string {
			return []string{"trace", "convert", "--format", "swf", "--force=" + fmt.Sprint(force), small, out}
		}, traceOK(10)},
		{"select", ".swf", func(out string, force bool) []string {
			return []string{"trace", "select", "--first", "3", "-q", "--format", "swf", "--force=" + fmt.Sprint(force), "-o", out, small}
		}, traceOK(3)},
		{"fit", ".toml", func(out string, force bool) []string {
			return []string{"fit", "-q", "--force=" + fmt.Sprint(force), "-o", out, syn}
		}, fitOK},
	}
	for _, w := range writers {
		t.Run(w.name, func(t *testing.T) {
			sub := t.TempDir()
			// A symbolic link to an existing file: replaced only with
			// --force, through the link.
			target := filepath.Join(sub, "target"+w.ext)
			os.WriteFile(target, []byte("old"), 0o644)
			link := filepath.Join(sub, "link"+w.ext)
			if err := os.Symlink("target"+w.ext, link); err != nil {
				t.Fatal(err)
			}
			if _, stderr, code := run(t, sub, w.args(link, false)...); code != 2 || !strings.Contains(stderr, "exists; use --force") {
				t.Errorf("link to a file without --force: exit %d %s", code, stderr)
			}
			if _, stderr, code := run(t, sub, w.args(link, true)...); code != 0 {
				t.Fatalf("link: exit %d %s", code, stderr)
			}
			if fi, err := os.Lstat(link); err != nil || fi.Mode()&fs.ModeSymlink == 0 {
				t.Errorf("the link was replaced: %v", err)
			}
			b, _ := os.ReadFile(target)
			if msg := w.check(b); msg != "" {
				t.Errorf("link target: %s", msg)
			}

			// A FIFO: written through, no --force needed (nothing is
			// replaced), and still a FIFO.
			fifo := filepath.Join(sub, "fifo"+w.ext)
			done := fifoReader(t, fifo)
			_, stderr, code := run(t, sub, w.args(fifo, false)...)
			b = done()
			if code != 0 {
				t.Fatalf("FIFO: exit %d %s", code, stderr)
			}
			if msg := w.check(b); msg != "" {
				t.Errorf("FIFO reader: %s (%d bytes)", msg, len(b))
			}
			if fi, err := os.Lstat(fifo); err != nil || fi.Mode()&fs.ModeNamedPipe == 0 {
				t.Errorf("the FIFO was replaced: %v", err)
			}

			// A full device: a write error, exit 1, the device intact.
			if _, err := os.Stat("/dev/full"); err == nil {
				_, stderr, code := run(t, sub, w.args("/dev/full", false)...)
				if code != 1 || !strings.Contains(stderr, "no space left on device") {
					t.Errorf("/dev/full: exit %d %s", code, stderr)
				}
				if fi, err := os.Stat("/dev/full"); err != nil || fi.Mode()&fs.ModeCharDevice == 0 {
					t.Fatalf("/dev/full is no longer a device")
				}
			}

			// A directory: refused before any work, exit 2.
			d := filepath.Join(sub, "dir"+w.ext)
			os.Mkdir(d, 0o755)
			if _, stderr, code := run(t, sub, w.args(d, true)...); code != 2 || !strings.Contains(stderr, "is a directory") {
				t.Errorf("directory: exit %d %s", code, stderr)
			}
			// A directory that does not exist: exit 2.
			if _, stderr, code := run(t, sub, w.args(filepath.Join(sub, "nosuch", "out"+w.ext), false)...); code != 2 || !strings.Contains(stderr, "does not exist") {
				t.Errorf("missing directory: exit %d %s", code, stderr)
			}
			if entries, _ := os.ReadDir(sub); len(entries) != 4 {
				t.Errorf("left behind: %v", entries)
			}
		})
	}
}

// GWF-SQLite is written by SQLite, which seeks: it goes through a link to a
// regular file, and a FIFO or a device is refused up front (exit 2), not
// replaced by a file.
func TestTraceSQLiteOutputPaths(t *testing.T) {
	dir := t.TempDir()
	writeSmallTrace(t, dir)
	small := filepath.Join(dir, "small.swf")
	os.Symlink("target.db3", filepath.Join(dir, "link.db3"))
	if _, stderr, code := run(t, dir, "trace", "convert", small, "link.db3"); code != 0 {
		t.Fatalf("link: exit %d %s", code, stderr)
	}
	if fi, err := os.Lstat(filepath.Join(dir, "link.db3")); err != nil || fi.Mode()&fs.ModeSymlink == 0 {
		t.Errorf("the link was replaced: %v", err)
	}
	if n := jobsOf(statsJSON(t, dir, "target.db3")); n != 10 {
		t.Errorf("target: %g jobs", n)
	}
	if err := syscall.Mkfifo(filepath.Join(dir, "fifo.db3"), 0o600); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	for _, out := range []string{"fifo.db3", "/dev/full", "/dev/null"} {
		_, stderr, code := run(t, dir, "trace", "convert", "--format", "sqlite", small, out)
		if code != 2 || !strings.Contains(stderr, "is not a regular file; a GWF-SQLite database must be written to a file") {
			t.Errorf("%s: exit %d %s", out, code, stderr)
		}
	}
	if fi, err := os.Lstat(filepath.Join(dir, "fifo.db3")); err != nil || fi.Mode()&fs.ModeNamedPipe == 0 {
		t.Errorf("the FIFO was replaced: %v", err)
	}
}

// Figures (trace plot, fit --plot) go into a directory: a link to one is
// followed and kept, a figure that is a FIFO or a link to /dev/full is
// written through, and an output that is not a directory is refused.
func TestFigureOutputPaths(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeSmallTrace(t, dir)
	writeFile(t, filepath.Join(dir, "syn.swf"), testkit.SyntheticSWF(300, 1), 0o644)
	plotters := []struct {
		name   string
		args   func(out string) []string
		figure string // one of the figures written
	}{
		{"trace plot", func(out string) []string { return []string{"trace", "plot", "-q", "-o", out, "small.swf"} }, "cdf_run_time.svg"},
		{"fit --plot", func(out string) []string { return []string{"fit", "-q", "--plot", out, "syn.swf"} }, "syn_runtime.svg"},
	}
	for _, p := range plotters {
		t.Run(p.name, func(t *testing.T) {
			figs := t.TempDir()
			link := filepath.Join(dir, "figs-"+strings.ReplaceAll(p.name, " ", "_"))
			if err := os.Symlink(figs, link); err != nil {
				t.Fatal(err)
			}
			done := fifoReader(t, filepath.Join(figs, p.figure))
			_, stderr, code := run(t, dir, p.args(link)...)
			b := done()
			if code != 0 {
				t.Fatalf("exit %d %s", code, stderr)
			}
			if !bytes.Contains(b, []byte("<svg")) {
				t.Errorf("the FIFO reader got %d bytes, not an SVG", len(b))
			}
			if fi, err := os.Lstat(link); err != nil || fi.Mode()&fs.ModeSymlink == 0 {
				t.Errorf("the link was replaced: %v", err)
			}
			if entries, _ := os.ReadDir(figs); len(entries) < 2 {
				t.Errorf("figures: %v", entries)
			}
			// A figure linked to a full device.
			if _, err := os.Stat("/dev/full"); err == nil {
				os.Remove(filepath.Join(figs, p.figure))
				os.Symlink("/dev/full", filepath.Join(figs, p.figure))
				if _, stderr, code := run(t, dir, p.args(link)...); code != 1 || !strings.Contains(stderr, "no space left on device") {
					t.Errorf("figure on /dev/full: exit %d %s", code, stderr)
				}
			}
			// Not a directory: refused, exit 2.
			os.WriteFile(filepath.Join(dir, "file"), []byte("x"), 0o644)
			for _, out := range []string{"file", "/dev/full"} {
				if _, stderr, code := run(t, dir, p.args(out)...); code != 2 || !strings.Contains(stderr, "is not a directory") {
					t.Errorf("%s: exit %d %s", out, code, stderr)
				}
			}
		})
	}
}
