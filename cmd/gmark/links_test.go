package main

import (
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gmark/gmark/workload"
)

// Each process that works on a file alone (a core on its state, a
// submitter on its run, a sweep on its store) takes the file's lock,
// whatever name it is given: a second process given a symbolic link to the
// file is refused as if it had given the file's own name, and one given a
// hard link — or any name, once the file has two — is refused for the two
// names (exit 2), before it writes anything.

// linkNames makes, in a directory of their own, a symbolic link to file
// and a hard link to it (made by hardLink, when the test wants it).
func linkNames(t *testing.T, file string) (symlink string, hardLink func() string) {
	t.Helper()
	other := t.TempDir()
	symlink = filepath.Join(other, "link-"+filepath.Base(file))
	if err := os.Symlink(file, symlink); err != nil {
		t.Fatal(err)
	}
	return symlink, func() string {
		hard := filepath.Join(other, "hard-"+filepath.Base(file))
		if err := os.Link(file, hard); err != nil {
			t.Fatal(err)
		}
		return hard
	}
}

// refusedFor runs gmark, which must end within a minute (a second server
// that started would serve on), with exit code and a message containing
// want.
func refusedFor(t *testing.T, dir string, code int, want string, args ...string) {
	t.Helper()
	_, stderr, got := runBounded(t, time.Minute, dir, args...)
	if got != code || !strings.Contains(stderr, want) {
		t.Errorf("gmark %s: exit %d, want %d with %q:\n%s", strings.Join(args, " "), got, code, want, stderr)
	}
}

func TestKoalaServeOneStateThroughLinks(t *testing.T) {
	t.Parallel() // kills and resumes processes and waits on them: runs beside the others
	dir := t.TempDir()
	state := filepath.Join(dir, "koala.db")
	args := []string{"--grid", "examples/das2.toml", "--token", "tok"}
	k := startKoala(t, append(args, "--state", state)...)
	root := abs(t, "../..")
	symlink, hardLink := linkNames(t, state)
	serve := func(st string) []string {
		return append([]string{"koala", "serve", "--listen", "127.0.0.1:0", "--state", st}, args...)
	}
	refusedFor(t, root, 2, "in use by another scheduler (pid "+fmt.Sprint(k.cmd.Process.Pid), serve(symlink)...)
	hard := hardLink()
	refusedFor(t, root, 2, hard+" has 2 names (hard links)", serve(hard)...)
	refusedFor(t, root, 2, state+" has 2 names (hard links)", serve(state)...)
	// The refused ones wrote nothing beside their names.
	for _, name := range []string{symlink, hard} {
		for _, suffix := range []string{"-wal", "-shm", "-journal", ".lock"} {
			if _, err := os.Lstat(name + suffix); err == nil {
				t.Errorf("a refused server made %s", name+suffix)
			}
		}
	}
	// The first core serves on, alone: a key it took is taken.
	j := workload.Job{ID: "1-0", Kind: workload.Unitary, Type: "swf", SiteType: workload.Unordered,
		RunTime: 10 * time.Second, App: workload.App{Name: "swf"}, Components: []workload.Component{{Site: "*", Count: 1}}}
	body := fmt.Sprintf(`{"job":%s,"key":"k/1"}`, j.AppendJSON(nil))
	if code, b := k.do(t, "POST", "/v1/jobs", body); code != http.StatusCreated {
		t.Fatalf("submission to the first core: %d %s", code, b)
	}
	if code, b := k.do(t, "POST", "/v1/jobs", body); code != http.StatusConflict {
		t.Fatalf("the same key again: %d %s", code, b)
	}
}

func TestSubmitResumeThroughLinks(t *testing.T) {
	t.Parallel() // kills and resumes processes and waits on them: runs beside the others
	f := newFaultRun(t, "fk")
	p := startGmark(t, f.dir, "submit", f.wl, "--db", f.db, "--run-id", f.runID, "-q",
		"--target", "local", "--processors", "4", "--gmark", f.witnessWrapper(t))
	f.waitFor(t, p, "a fifth of the jobs final", func(pr runProgress) bool { return pr.rows >= len(f.keys)/5 })
	symlink, hardLink := linkNames(t, f.db)
	resume := func(db string) []string { return []string{"submit", "--resume", f.runID, "--db", db, "-q"} }
	refusedFor(t, f.dir, 2, "is being recorded by another process (pid "+fmt.Sprint(p.cmd.Process.Pid), resume(symlink)...)
	hard := hardLink()
	refusedFor(t, f.dir, 2, hard+" has 2 names (hard links)", resume(hard)...)
	refusedFor(t, f.dir, 2, f.db+" has 2 names (hard links)", resume(f.db)...)
	// A report through either name is refused too: under the other name
	// SQLite would not find the live run's write-ahead log.
	refusedFor(t, f.dir, 2, hard+" has 2 names (hard links)", "report", "--db", hard, "--format", "json")
	if err := os.Remove(hard); err != nil {
		t.Fatal(err)
	}
	p.waitOK(t, "the run")
	lost := f.checkStore(t)
	l, dup := f.checkTarget(t, "the processes", f.witnessed(t))
	f.report(t, "local, resumed through links while it ran", lost+l, dup)
}

func TestSimOneStoreThroughLinks(t *testing.T) {
	t.Parallel() // kills and resumes processes and waits on them: runs beside the others
	dir := t.TempDir()
	// Long enough (120 runs, one at a time) to be running still when the
	// others try; it is killed at the end.
	exp := simFile(t, dir, "sweep.toml", strings.Replace(simSweep, "repetitions = 3", "repetitions = 20", 1))
	db := filepath.Join(dir, "r.db")
	a := startGmark(t, dir, "sim", "run", exp, "--db", db, "-q", "-j", "1")
	deadline := time.Now().Add(2 * time.Minute)
	for {
		if results, _ := simCounts(t, db); len(results) > 0 {
			break
		}
		select {
		case <-a.done:
			t.Fatalf("the sweep ended before its first result:\n%s", a.out.String())
		case <-time.After(20 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			t.Fatal("no result in 2 minutes")
		}
	}
	symlink, hardLink := linkNames(t, db)
	refusedFor(t, dir, 1, "another gmark sim run is working on this results store (pid "+fmt.Sprint(a.cmd.Process.Pid),
		"sim", "run", exp, "--db", symlink, "-q")
	hard := hardLink()
	refusedFor(t, dir, 2, hard+" has 2 names (hard links)", "sim", "run", exp, "--db", hard, "-q")
	select {
	case <-a.done:
		t.Fatalf("the first sweep ended while the others tried, which proves nothing:\n%s", a.out.String())
	default:
	}
	a.kill()
	_, attempts := simCounts(t, db)
	for d, n := range attempts {
		if n != 1 {
			t.Errorf("run %.12s started %d times", d, n)
		}
	}
}
