package main

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// inputLimit bounds each gmark of these tests. A refusal reads nothing, so
// a loaded machine's start-up of gmark is all it waits for; a gmark that
// reads /dev/zero to its end, waits on a FIFO or starts serving is killed
// at the limit, with what it started, and fails the case.
const inputLimit = 20 * time.Second

// A file given to gmark that is not a regular one is refused at once, exit
// 2, naming it, with nothing written (no store, no -wal beside it): before,
// /dev/zero as a trace or as a workload's workload.jsonl never ended, and
// a FIFO as a WDL spec, a grid, an experiment, a trace or a workload.jsonl
// was read (or blocked the open until a writer came). Standard input is
// read when a command is given "-". A damaged input says where it is
// damaged, and exits 2: a symbolic link loop as a trace, a damaged or FIFO
// server state, a binary, oversized or empty file of commands, a manifest
// with a stray character (each exited 1, or named no file or offset).
//
// Each FIFO has a writer that feeds it a valid file as soon as a reader
// opens it: a gmark that reads it gets a good input and exits 0 (the case
// fails in bounded time), one that refuses it never opens it.
func TestSpecialAndDamagedInputsRefused(t *testing.T) {
	t.Parallel()
	base := t.TempDir()
	wl := genWorkload(t, base, "1\tunitary\t3\thello\tsingle\t1\t*:1\tC(1s)\n")
	jobs, err := os.ReadFile(filepath.Join(wl, "workload.jsonl"))
	must(t, err)
	grid, err := os.ReadFile("../../examples/das2.toml")
	must(t, err)
	const swf = "; MaxProcs: 4\n1 0 0 10 1 -1 -1 1 10 -1 1 1 1 1 1 1 -1 -1\n2 5 0 10 1 -1 -1 1 10 -1 1 1 1 1 1 1 -1 -1\n"
	const spec = "1\tunitary\t3\thello\tsingle\t1\t*:1\tC(1s)\n"
	const experiment = "name = \"b\"\ntopology = \"t1\"\narchitectures = [\"central\"]\nloads = [100]\n[workload]\nkind = \"burst\"\njobs = 1\nprocessors = 1\nruntime = \"10s\"\n"
	const noServer = "http://127.0.0.1:1" // never asked: the input is refused first
	add := []string{"placeholder", "add", "-g", "g", "--server", noServer, "--token-file", "tok"}

	fifo := func(content string) func(t *testing.T, p string) {
		return func(t *testing.T, p string) { feedFIFO(t, p, content) }
	}
	devZero := func(t *testing.T, p string) { must(t, os.Symlink("/dev/zero", p)) }
	loop := func(t *testing.T, p string) { must(t, os.Symlink(filepath.Base(p), p)) }
	file := func(content string) func(t *testing.T, p string) {
		return func(t *testing.T, p string) { must(t, os.WriteFile(p, []byte(content), 0o644)) }
	}
	sparse := func(size int64) func(t *testing.T, p string) {
		return func(t *testing.T, p string) { file("")(t, p); must(t, os.Truncate(p, size)) }
	}
	for _, c := range []struct {
		name string
		args []string // BAD is the bad file's path
		bad  string   // where the bad file is made, in the case's copy of the workload's directory
		make func(t *testing.T, path string)
		code int
		says string // in standard error, besides the bad file's name
	}{
		// Endless and blocking inputs.
		{"trace /dev/zero", []string{"trace", "stats", "--input-format", "swf", "BAD"}, "t.swf", devZero, 2, "a character device, not a regular file"},
		{"fit /dev/zero", []string{"fit", "--input-format", "swf", "BAD"}, "t.swf", devZero, 2, "not a regular file"},
		{"convert /dev/zero", []string{"trace", "convert", "--input-format", "swf", "BAD", "out.swf"}, "t.swf", devZero, 2, "not a regular file"},
		{"trace FIFO", []string{"trace", "stats", "BAD"}, "t.swf", fifo(swf), 2, "a FIFO (named pipe), not a regular file"},
		{"submit workload.jsonl /dev/zero", []string{"submit", "--target", "dryrun", "--db", "s.db", "-q", "wl"}, "wl/workload.jsonl", devZero, 2, "a character device, not a regular file"},
		{"submit workload.jsonl FIFO", []string{"submit", "--target", "dryrun", "--db", "s.db", "-q", "wl"}, "wl/workload.jsonl", fifo(string(jobs)), 2, "a FIFO (named pipe)"},
		{"simulate workload.jsonl /dev/zero", []string{"koala", "simulate", "--db", "s.db", "wl"}, "wl/workload.jsonl", devZero, 2, "not a regular file"},
		{"simulate workload.jsonl FIFO", []string{"koala", "simulate", "--db", "s.db", "wl"}, "wl/workload.jsonl", fifo(string(jobs)), 2, "not a regular file"},
		{"WDL FIFO", []string{"generate", "-o", "out", "BAD"}, "s.wdl", fifo(spec), 2, "a FIFO (named pipe), not a regular file"},
		{"grid FIFO", []string{"koala", "simulate", "--grid", "BAD", "wl"}, "g.toml", fifo(string(grid)), 2, "a FIFO (named pipe), not a regular file"},
		{"experiment FIFO", []string{"sim", "run", "--db", "sim.db", "BAD"}, "x.toml", fifo(experiment), 2, "a FIFO (named pipe), not a regular file"},
		{"token FIFO", []string{"koala", "serve", "--listen", "127.0.0.1:0", "--state", "k.db"}, "k.db.token", fifo("secret\n"), 2, "(the server's token, kept beside its state)"},
		// Bad input exits 2, naming the file (and where in it).
		{"trace directory", []string{"trace", "stats", "BAD"}, "t.swf", func(t *testing.T, p string) { must(t, os.Mkdir(p, 0o755)) }, 2, "a directory with no WfFormat instance"},
		{"trace symlink loop", []string{"trace", "stats", "BAD"}, "t.swf", loop, 2, "a loop of symbolic links, not a regular file"},
		{"store symlink loop", []string{"submit", "--target", "dryrun", "--db", "BAD", "-q", "wl"}, "s.db", loop, 2, "a loop of symbolic links"},
		{"state damaged", []string{"koala", "serve", "--listen", "127.0.0.1:0", "--state", "BAD"}, "k.db", file(strings.Repeat("not a database\n", 300)), 2, "not a sound SQLite database"},
		{"state FIFO", []string{"koala", "serve", "--listen", "127.0.0.1:0", "--state", "BAD"}, "k.db", fifo(""), 2, "a FIFO (named pipe)"},
		{"metaqueue state damaged", []string{"placeholder", "serve", "--listen", "127.0.0.1:0", "--state", "BAD"}, "p.db", file(strings.Repeat("not a database\n", 300)), 2, "not a sound SQLite database"},
		{"commands binary", append(add, "BAD"), "cmds.txt", file("echo a\n\xff\xfe\x00\x01\n"), 2, "cmds.txt:2: not UTF-8 text"},
		{"commands oversized", append(add, "BAD"), "cmds.txt", sparse(64<<20 + 1), 2, "larger than 67108864 bytes"},
		{"commands empty", append(add, "BAD"), "cmds.txt", file("# nothing\n\n"), 2, "cmds.txt: no command lines in it"},
		{"manifest stray character", []string{"submit", "--target", "dryrun", "--db", "s.db", "-q", "wl"}, "wl/manifest.json", nil, 2, "manifest.json:2:1: invalid character 'x'"},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			copyTree(t, base, dir)
			must(t, os.WriteFile(filepath.Join(dir, "tok"), []byte("secret\n"), 0o600))
			bad := filepath.Join(dir, c.bad)
			if c.make == nil { // the manifest: a stray x at the start of its second line
				b, err := os.ReadFile(bad)
				must(t, err)
				must(t, os.WriteFile(bad, bytes.Replace(b, []byte("\n"), []byte("\nx"), 1), 0o644))
			} else {
				os.Remove(bad)
				c.make(t, bad)
			}
			args := make([]string, len(c.args))
			for i, a := range c.args {
				args[i] = strings.ReplaceAll(a, "BAD", c.bad)
			}
			before := snapshot(t, dir)
			stderr, code := runInput(t, dir, "", args...)
			if code != c.code || !strings.Contains(stderr, c.bad) || !strings.Contains(stderr, c.says) {
				t.Errorf("gmark %v: exit %d, stderr %q; want %d, naming %s and saying %q", args, code, stderr, c.code, c.bad, c.says)
			}
			if diff := snapshotDiff(before, snapshot(t, dir)); diff != "" {
				t.Errorf("gmark %v changed its directory:\n%s", args, diff)
			}
		})
	}
	if m, _ := filepath.Glob("/dev/zero?*"); len(m) > 0 {
		t.Errorf("files beside /dev/zero: %v", m)
	}
	// Standard input is read when asked for: "-".
	if stderr, code := runInput(t, base, swf, "trace", "stats", "-"); code != 0 {
		t.Errorf("trace stats - < t.swf: exit %d, %s", code, stderr)
	}
	if stderr, code := runInput(t, base, swf, "trace", "rank", "-", "-"); code != 2 || !strings.Contains(stderr, "standard input") {
		t.Errorf("trace rank - -: exit %d, %s; want 2, standard input read once", code, stderr)
	}
}

// feedFIFO makes a FIFO at path and, until the test ends, writes content
// into it as soon as a reader opens it, then closes it: the reader gets a
// whole file and its end. The writer never blocks: it opens the FIFO
// without waiting (ENXIO while there is no reader), a few times a
// second. content must fit the pipe's buffer (64 KiB).
func feedFIFO(t *testing.T, path, content string) {
	t.Helper()
	must(t, syscall.Mkfifo(path, 0o600))
	stop, done := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(done)
		for {
			fd, err := syscall.Open(path, syscall.O_WRONLY|syscall.O_NONBLOCK|syscall.O_CLOEXEC, 0)
			if err == nil {
				f := os.NewFile(uintptr(fd), path)
				_, _ = f.WriteString(content)
				f.Close()
			}
			select {
			case <-stop:
				return
			case <-time.After(20 * time.Millisecond):
			}
		}
	}()
	t.Cleanup(func() { close(stop); <-done })
}

// runInput runs gmark in dir, with stdin as its standard input, in a
// process group of its own, and returns its standard error and exit code.
// A gmark still running after inputLimit is killed with its group and
// fails the test; whatever it started ends with it.
func runInput(t *testing.T, dir, stdin string, args ...string) (string, int) {
	t.Helper()
	cmd := exec.Command(buildGmark(t), args...)
	cmd.Dir = dir
	cmd.Stdin = strings.NewReader(stdin)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.WaitDelay = 2 * time.Second // a child holding standard error open does not hold Wait
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	must(t, cmd.Start())
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	var err error
	select {
	case err = <-done:
	case <-time.After(inputLimit):
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		<-done
		t.Fatalf("gmark %v did not end within %v; stderr:\n%s", args, inputLimit, stderr.String())
	}
	_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return stderr.String(), ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return stderr.String(), 0
}
