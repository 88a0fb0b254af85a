package persist

import (
	"database/sql"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gmark/gmark/koala/core"
)

// stateColumns are the columns of the jobs table a damaged or hand-edited
// state may hold anything in.
var stateColumns = []string{"id", "key", "spec", "policy", "priority", "runner", "submitted", "state", "reason", "placement_tries",
	"claim_tries", "restarts", "placements", "total_placement_ns", "l", "jpt", "jst", "orig_jst", "ftt_ns", "start", "end", "deadline_opts"}

// FuzzRestore: a state whose one cell of a job holds anything (a damaged
// page, a hand's edit, another gmark's value). It is refused with an
// error naming the job, or restored into a core; a core restored has jobs
// of distinct ids in the states a core has, gives a new job an id no job
// has, runs on without a panic, and restores again from what it wrote.
func FuzzRestore(f *testing.F) {
	seed := filepath.Join(f.TempDir(), "seed.db")
	st, err := Open(seed)
	if err != nil {
		f.Fatal(err)
	}
	c, err := core.New(testGrid(nil), t0, st, nil)
	if err != nil {
		f.Fatal(err)
	}
	st.Attach(c.Job)
	c.Submit(job("done", 2, time.Minute), core.Options{Key: "k-done"})
	c.Submit(job("running", 6, time.Hour), core.Options{Key: "k-running", DeadlinePolicy: "wait-10", DeadlineL: 0.5})
	c.Submit(job("waiting", 8, time.Minute), core.Options{Key: "k-waiting"})
	c.Advance(t0.Add(2 * time.Minute))
	if err := st.Flush(); err != nil {
		f.Fatal(err)
	}
	st.Close()
	good, err := os.ReadFile(seed)
	if err != nil {
		f.Fatal(err)
	}
	for _, s := range []struct {
		row, col byte
		text     string
		num      int64
		asNum    bool
	}{
		{0, 7, "exploded", 0, false},             // state
		{1, 0, "k9223372036854775807", 0, false}, // id: the next id overflows
		{2, 0, "k1", 0, false},                   // id of another job
		{0, 2, `{"id":"x"}`, 0, false},           // spec
		{1, 4, "urgent", 0, false},               // priority
		{1, 21, "wait-10;NaN", 0, false},         // deadline_opts
		{1, 21, "nope;0.5", 0, false},            // deadline_opts
		{2, 6, "", -9223372036854775808, true},   // submitted
		{0, 11, "", -3, true},                    // restarts
		{1, 14, "", 0, false},                    // l
	} {
		f.Add(s.row, s.col, s.text, s.num, s.asNum)
	}
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, row, col byte, text string, num int64, asNum bool) {
		path := filepath.Join(dir, "state.db")
		os.Remove(path + "-wal")
		os.Remove(path + "-shm")
		if err := os.WriteFile(path, good, 0o644); err != nil {
			t.Fatal(err)
		}
		column := stateColumns[int(col)%len(stateColumns)]
		var v any = text
		if asNum {
			v = num
		}
		db, err := sql.Open("sqlite", path)
		if err != nil {
			t.Fatal(err)
		}
		_, err = db.Exec(`UPDATE jobs SET "`+column+`" = ? WHERE seq = (SELECT seq FROM jobs ORDER BY seq LIMIT 1 OFFSET ?)`, v, int(row)%3)
		db.Close()
		if err != nil {
			return // the schema refuses it (NOT NULL, a duplicate id or key)
		}
		restore := func(now time.Time) (*core.Core, *Store, func(), error) {
			st, err := Open(path)
			if err != nil {
				t.Fatal(err)
			}
			var once sync.Once
			closeStore := func() { once.Do(func() { st.Close() }) }
			t.Cleanup(closeStore) // after a t.Fatal too
			saved, err := st.Load()
			if err != nil {
				if !strings.Contains(err.Error(), "stored job") {
					t.Fatalf("jobs.%s = %#v: error %q does not name the job", column, v, err)
				}
				return nil, nil, nil, err
			}
			c, err := core.New(testGrid(nil), now, st, nil)
			if err != nil {
				t.Fatal(err)
			}
			st.Attach(c.Job)
			seq, err := st.LastSeq()
			if err != nil {
				t.Fatal(err)
			}
			c.SetEventSeq(seq)
			if err := c.Restore(saved, "the core restarted"); err != nil {
				if !strings.Contains(err.Error(), "stored job") && !strings.Contains(err.Error(), "restore") {
					t.Fatalf("jobs.%s = %#v: error %q does not name the job", column, v, err)
				}
				return nil, nil, nil, err
			}
			return c, st, closeStore, nil
		}
		c, st, closeStore, err := restore(t0.Add(time.Hour))
		if err != nil {
			return
		}
		ids := map[string]bool{}
		for _, j := range c.Jobs() {
			switch j.State {
			case core.Queued, core.Claiming, core.Running, core.Finished, core.Failed, core.Cancelled:
			default:
				t.Fatalf("jobs.%s = %#v: job %s restored in state %q", column, v, j.ID, j.State)
			}
			if ids[j.ID] {
				t.Fatalf("jobs.%s = %#v: two jobs %s", column, v, j.ID)
			}
			ids[j.ID] = true
		}
		nj, err := c.Submit(job("new", 1, time.Second), core.Options{})
		if err == nil && (ids[nj.ID] || !strings.HasPrefix(nj.ID, "k") || strings.HasPrefix(nj.ID, "k-") || strings.HasPrefix(nj.ID, "k0")) {
			t.Fatalf("jobs.%s = %#v: a new job has the id %s (restored: %v)", column, v, nj.ID, ids)
		}
		c.Advance(t0.Add(3 * time.Hour))
		if err := st.Flush(); err != nil {
			t.Fatalf("jobs.%s = %#v: %v", column, v, err)
		}
		closeStore()
		if _, _, _, err := restore(t0.Add(4 * time.Hour)); err != nil {
			t.Fatalf("jobs.%s = %#v: restored, ran, then refused: %v", column, v, err)
		}
	})
}
