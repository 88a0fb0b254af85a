package store

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// helperDBEnv names the store a helper process opens: the test binary runs
// as one of several real processes racing to create the same store.
const helperDBEnv = "GMARK_STORE_TEST_OPEN"

// helperOpen waits for the go signal on stdin (so that every process opens
// at the same moment), opens the store, records a project named after its
// pid and closes it.
func helperOpen(path string) int {
	if _, err := io.ReadFull(os.Stdin, make([]byte, 1)); err != nil {
		fmt.Fprintln(os.Stderr, "no go signal:", err)
		return 3
	}
	s, err := Open(path)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer s.Close()
	err = s.Write(context.Background(), func(tx *Tx) error {
		_, err := tx.EnsureProject(fmt.Sprintf("p%d", os.Getpid()), "", 1)
		return err
	})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return 0
}

// checkCreated asserts that a store raced for by n openers is at the
// current schema version and holds the project each of them wrote.
func checkCreated(t *testing.T, path string, n int) {
	t.Helper()
	s, err := OpenReadOnly(path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if v, err := s.SchemaVersion(); err != nil || v != SchemaVersion {
		t.Errorf("schema version %d (%v), want %d", v, err, SchemaVersion)
	}
	var projects int
	if err := s.DB().QueryRow(`SELECT count(*) FROM projects`).Scan(&projects); err != nil || projects != n {
		t.Errorf("%d projects (%v), want one per opener: %d", projects, err, n)
	}
}

// Processes creating the same new store at once raced
// in the schema migration ("table projects already exists", "database is
// locked"). Every one of them must open the store and write to it.
func TestConcurrentCreateProcesses(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	const trials, procs = 8, 4
	for trial := range trials {
		path := filepath.Join(t.TempDir(), "results.db")
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		var cmds []*exec.Cmd
		var gos []io.WriteCloser
		var stderrs []*strings.Builder
		for range procs {
			cmd := exec.CommandContext(ctx, exe, "-test.run=^$")
			cmd.Env = append(os.Environ(), helperDBEnv+"="+path)
			in, err := cmd.StdinPipe()
			if err != nil {
				t.Fatal(err)
			}
			var stderr strings.Builder
			cmd.Stderr = &stderr
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			cmds, gos, stderrs = append(cmds, cmd), append(gos, in), append(stderrs, &stderr)
		}
		for _, in := range gos {
			in.Write([]byte{1})
			in.Close()
		}
		for i, cmd := range cmds {
			if err := cmd.Wait(); err != nil {
				t.Errorf("trial %d, process %d: %v: %s", trial, i, err, stderrs[i])
			}
		}
		cancel()
		checkCreated(t, path, procs)
	}
}

// The same race between independent opens in one process, each with its own
// connection.
func TestConcurrentCreateConnections(t *testing.T) {
	const trials, opens = 20, 6
	for trial := range trials {
		path := filepath.Join(t.TempDir(), "results.db")
		var wg sync.WaitGroup
		errs := make([]error, opens)
		start := make(chan struct{})
		for i := range opens {
			wg.Add(1)
			go func() {
				defer wg.Done()
				<-start
				s, err := Open(path)
				if err != nil {
					errs[i] = err
					return
				}
				defer s.Close()
				errs[i] = s.Write(context.Background(), func(tx *Tx) error {
					_, err := tx.EnsureProject(fmt.Sprintf("p%d", i), "", 1)
					return err
				})
			}()
		}
		close(start)
		wg.Wait()
		for i, err := range errs {
			if err != nil {
				t.Errorf("trial %d, open %d: %v", trial, i, err)
			}
		}
		checkCreated(t, path, opens)
	}
}
