package persist

import (
	"database/sql"
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gmark/gmark/koala/core"
	"github.com/gmark/gmark/koala/grid"
	"github.com/gmark/gmark/workload"
)

var t0 = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

func testGrid(t *testing.T) *grid.Grid {
	g, err := grid.Parse("g.toml", []byte("[[cluster]]\nname = \"A\"\nprocessors = 8\n[network]\ndefault_bandwidth = \"1MB/s\"\n"))
	if err != nil {
		t.Fatal(err)
	}
	return g
}

func job(id string, procs int, rt time.Duration) workload.Job {
	return workload.Job{ID: id, Kind: workload.Unitary, Type: "swf", SiteType: workload.Single, RunTime: rt,
		App: workload.App{Name: "swf"}, Components: []workload.Component{{Site: "*", Count: procs}}}
}

// Jobs written by one core come back into another with the restore rules:
// ended jobs keep their state, waiting ones are placed again, running ones
// fail with the reason.
func TestStoreAndRestore(t *testing.T) {
	path := filepath.Join(t.TempDir(), "state.db")
	st, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	c, err := core.New(testGrid(t), t0, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	st.Attach(c.Job)
	done, _ := c.Submit(job("done", 2, time.Minute), core.Options{Key: "k-done"})
	running, _ := c.Submit(job("running", 6, time.Hour), core.Options{Key: "k-running"})
	waiting, _ := c.Submit(job("waiting", 8, time.Minute), core.Options{Key: "k-waiting"})
	c.Advance(t0.Add(2 * time.Minute))
	if done.State != core.Finished || running.State != core.Running || waiting.State != core.Queued {
		t.Fatalf("states %s %s %s", done.State, running.State, waiting.State)
	}
	if err := st.Flush(); err != nil {
		t.Fatal(err)
	}
	seq, _ := st.LastSeq()
	st.Close()

	st2, saved := reopen(t, path)
	if len(saved) != 3 || saved[0].ID != done.ID || saved[2].Opts.Key != "k-waiting" || saved[1].Spec.RunTime != time.Hour {
		t.Fatalf("loaded %+v", saved)
	}
	c2, _ := core.New(testGrid(t), t0.Add(time.Hour), st2, nil)
	st2.Attach(c2.Job)
	c2.SetEventSeq(seq)
	if err := c2.Restore(saved, "the core restarted"); err != nil {
		t.Fatal(err)
	}
	d, _ := c2.Job(done.ID)
	r, _ := c2.Job(running.ID)
	w, _ := c2.Job(waiting.ID)
	if d.State != core.Finished || r.State != core.Failed || !strings.Contains(r.Reason, "while the job ran") || w.State != core.Queued {
		t.Errorf("after restore: %s, %s (%s), %s", d.State, r.State, r.Reason, w.State)
	}
	c2.Advance(t0.Add(3 * time.Hour))
	if w.State != core.Finished {
		t.Errorf("the waiting job did not run after the restore: %s", w.State)
	}
	if _, err := c2.Submit(job("x", 1, time.Second), core.Options{Key: "k-done"}); err != core.ErrDuplicateKey {
		t.Errorf("a restored key was accepted again: %v", err)
	}
	if err := st2.Flush(); err != nil {
		t.Fatal(err)
	}
	evs, err := st2.Events(seq, 100)
	if err != nil || len(evs) == 0 || evs[0].Seq != seq+1 {
		t.Errorf("events after the restart continue the numbering: %v %v", len(evs), err)
	}
}

// reopen opens the state at path again (closed at the test's end) and
// loads its jobs.
func reopen(t *testing.T, path string) (*Store, []core.Saved) {
	t.Helper()
	st, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	saved, err := st.Load()
	if err != nil {
		t.Fatal(err)
	}
	return st, saved
}

func TestSchemaVersionIsChecked(t *testing.T) {
	path := filepath.Join(t.TempDir(), "state.db")
	st, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	st.Close()
	db, _ := sql.Open("sqlite", path)
	if _, err := db.Exec(`UPDATE meta SET value='99' WHERE key='schema_version'`); err != nil {
		t.Fatal(err)
	}
	db.Close()
	if _, err := Open(path); err == nil || !strings.Contains(err.Error(), "schema version 99") {
		t.Errorf("opened a database of another schema version: %v", err)
	}
}

// Two schedulers on one state would both restore and run its jobs: the
// second Open is refused while the first holds the state, and goes ahead
// once it is closed.
func TestOpenIsExclusive(t *testing.T) {
	path := filepath.Join(t.TempDir(), "state.db")
	first, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	if s, err := Open(path); !errors.Is(err, ErrInUse) {
		if s != nil {
			s.Close()
		}
		t.Fatalf("second Open: %v, want ErrInUse", err)
	}
	if err := first.Close(); err != nil {
		t.Fatal(err)
	}
	again, err := Open(path)
	if err != nil {
		t.Fatalf("Open after Close: %v", err)
	}
	again.Close()
}

// A finished job's outputs are held again, after a restart, at the sites
// it ran on: a job that reads one is placed there under Close-to-Files,
// as before the restart (before, the restarted core had forgotten them,
// and the reader waited for a file it thought was nowhere). A site the
// grid no longer has is left out.
func TestRestoredOutputsAreHeldWhereTheyWereWritten(t *testing.T) {
	src := "[[cluster]]\nname = \"A\"\nprocessors = 8\n[[cluster]]\nname = \"B\"\nprocessors = 8\n[network]\ndefault_bandwidth = \"1MB/s\"\n"
	g, err := grid.Parse("g.toml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "state.db")
	st, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	c, err := core.New(g, t0, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	st.Attach(c.Job)
	w := job("writer", 2, time.Minute)
	w.Components[0].Site = "B"
	w.Outputs = []workload.File{{Name: "out.dat", Size: 1 << 30}}
	writer, err := c.Submit(w, core.Options{Key: "w"})
	if err != nil {
		t.Fatal(err)
	}
	c.Advance(t0.Add(2 * time.Minute))
	if writer.State != core.Finished {
		t.Fatalf("writer %s", writer.State)
	}
	if err := st.Flush(); err != nil {
		t.Fatal(err)
	}
	seq, _ := st.LastSeq()
	st.Close()

	for _, tc := range []struct {
		name, grid, want string
	}{
		{"same grid", src, "B"},
		// B gone: the file is nowhere, and the reader waits for it.
		{"site gone", "[[cluster]]\nname = \"A\"\nprocessors = 8\n[network]\ndefault_bandwidth = \"1MB/s\"\n", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g2, err := grid.Parse("g.toml", []byte(tc.grid))
			if err != nil {
				t.Fatal(err)
			}
			_, saved := reopen(t, path)
			if len(saved) != 1 || len(saved[0].Sites) != 1 || saved[0].Sites[0] != "B" {
				t.Fatalf("loaded %+v, want the writer with its site B", saved)
			}
			c2, _ := core.New(g2, t0.Add(time.Hour), nil, nil)
			c2.SetEventSeq(seq)
			if err := c2.Restore(saved, "the core restarted"); err != nil {
				t.Fatal(err)
			}
			r := job("reader", 2, time.Minute)
			r.Files = []workload.File{{Name: "out.dat", Size: 1 << 30}}
			reader, err := c2.Submit(r, core.Options{Key: "r", Policy: "CF"})
			if err != nil {
				t.Fatal(err)
			}
			c2.Advance(t0.Add(90 * time.Minute))
			if s := reader.Sites(); strings.Join(s, ",") != tc.want {
				t.Errorf("the reader of the writer's output was placed on %v (%s %s), want %s", s, reader.State, reader.Reason, tc.want)
			}
		})
	}
}
