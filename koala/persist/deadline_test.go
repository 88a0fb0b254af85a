package persist

import (
	"database/sql"
	"path/filepath"
	"testing"
	"time"

	"github.com/gmark/gmark/koala/core"
	"github.com/gmark/gmark/koala/grid"
)

// atDeadlineGrid is testGrid with global priority killing at the try at
// the deadline only (gp_kill = "at-deadline"), so that the failed try at
// 50 s below leaves the job queued; under the default, every-try, that try
// kills the local job and the deadline job runs.
func atDeadlineGrid(t *testing.T) *grid.Grid {
	g := testGrid(t)
	g.Scheduler.GPKill = grid.GPKillAtDeadline
	return g
}

// A job's own deadline settings survive a restart; a restored job with a
// deadline waits for its tries again and starts at its deadline. A state
// of version 1 (before deadlines) is upgraded when opened.
func TestDeadlineJobsRestored(t *testing.T) {
	path := filepath.Join(t.TempDir(), "state.db")
	st, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	st.Close()
	// Make it a version-1 state, as an older gmark wrote it.
	db, _ := sql.Open("sqlite", path)
	if _, err := db.Exec(`ALTER TABLE jobs DROP COLUMN deadline_opts; UPDATE meta SET value='1' WHERE key='schema_version'`); err != nil {
		t.Fatal(err)
	}
	db.Close()
	if st, err = Open(path); err != nil {
		t.Fatalf("a version-1 state: %v", err)
	}
	c, err := core.New(atDeadlineGrid(t), t0, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	st.Attach(c.Job)
	// 8 processors busy until 60 s; the job's deadline is at 100 s, its
	// own policy pure RPP with L_p = 0.5 (the grid's: wait-10, 0.7).
	if err := c.SubmitLocalJob("A", 8, time.Minute); err != nil {
		t.Fatal(err)
	}
	dj := job("d", 4, 10*time.Second)
	dj.Deadline = 100 * time.Second
	j, err := c.Submit(dj, core.Options{Key: "k-d", DeadlinePolicy: "rpp", DeadlineL: 0.5})
	if err != nil {
		t.Fatal(err)
	}
	c.Advance(t0.Add(55 * time.Second)) // the try at 50 s failed; the next is at 75 s
	if j.State != core.Queued || !j.NextTry.Equal(t0.Add(75*time.Second)) {
		t.Fatalf("at 55 s: %s, next try %v", j.State, j.NextTry)
	}
	if err := st.Flush(); err != nil {
		t.Fatal(err)
	}
	st.Close()

	st2, saved := reopen(t, path)
	if len(saved) != 1 || saved[0].Opts.DeadlinePolicy != "rpp" || saved[0].Opts.DeadlineL != 0.5 || saved[0].Spec.Deadline != 100*time.Second {
		t.Fatalf("loaded %+v", saved)
	}
	// The core comes back at 60 s (its local job is gone with it): the
	// job waits again, with its own L_p: 60 + 0.5·40 = 80 s.
	c2, _ := core.New(atDeadlineGrid(t), t0.Add(time.Minute), st2, nil)
	st2.Attach(c2.Job)
	if err := c2.Restore(saved, "the core restarted"); err != nil {
		t.Fatal(err)
	}
	r, _ := c2.Job(j.ID)
	if r.State != core.Queued || !r.Deadline.Equal(t0.Add(100*time.Second)) || !r.NextTry.Equal(t0.Add(80*time.Second)) {
		t.Fatalf("restored: %s, deadline %v, next try %v", r.State, r.Deadline, r.NextTry)
	}
	c2.Advance(t0.Add(time.Hour))
	if r.State != core.Finished || !r.Start.Equal(t0.Add(100*time.Second)) || !r.JPT.Equal(t0.Add(80*time.Second)) {
		t.Errorf("after the restart: %s, placed %v, started %v; want finished, placed at 80 s, started at 100 s", r.State, r.JPT, r.Start)
	}
}
