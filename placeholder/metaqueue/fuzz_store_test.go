package metaqueue

import (
	"context"
	"database/sql"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gmark/gmark/placeholder/site"
)

// storeColumns are the columns of the state a damaged or hand-edited file
// may hold anything in, by table.
var storeColumns = map[string][]string{
	"groups":       {"name", "policy", "sites", "created", "stopped"},
	"jobs":         {"id", "grp", "key", "command", "priority", "prereqs", "state", "retries", "added", "attempt", "exit", "reason", "site"},
	"placeholders": {"id", "grp", "site", "mode", "host", "local_id", "state", "end_why", "submitted", "started", "ended", "attempt", "pred", "seq", "jobs"},
	"attempts":     {"id", "job", "placeholder", "grp", "site", "host", "local_id", "mode", "bound", "started", "ended", "exit", "outcome", "reason"},
}

var storeTables = []string{"groups", "jobs", "placeholders", "attempts"}

// seedState writes a metaqueue state with a group of two sites, three
// jobs (one after another), a placeholder that pulled one and finished
// it, and one holding another.
func seedState(f *testing.F, path string) {
	srv, err := New(Config{State: path, Token: "t", Gmark: "/bin/false", Watchdog: Watchdog{Interval: time.Hour}})
	if err != nil {
		f.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- srv.Run(ctx) }()
	defer func() { cancel(); <-done; srv.Close() }()
	g := GroupSpec{Name: "g", Policy: "dag", Sites: []site.Spec{{Name: "a", Kind: site.Koala, Koala: closedCore, Cluster: "A"},
		{Name: "b", Kind: site.Koala, Koala: closedCore, Cluster: "B", Mode: site.Pilot}}}
	if _, err := srv.PutGroup(ctx, g); err != nil {
		f.Fatal(err)
	}
	if _, err := srv.AddJobs(ctx, "g", []NewJob{{Key: "j1", Command: "true"}, {Command: "false", Site: "a"}, {Command: "x", Priority: 2},
		{Command: "after", After: []string{"j1"}}}); err != nil {
		f.Fatal(err)
	}
	for i, id := range []Ident{{Site: "a", Host: "h", LocalID: "k1"}, {Site: "b", Host: "h", LocalID: "k2"}} {
		r, err := srv.Pull(ctx, "g", PullRequest{Ident: id, Mode: g.Sites[i].Mode, Seq: 1})
		if err != nil || r.Order == nil {
			f.Fatalf("pull: %+v %v", r, err)
		}
		if i == 0 {
			if err := srv.Done(ctx, "g", DoneRequest{Ident: id, Attempt: r.Order.Attempt, Exit: 0, Started: time.Now(), Ended: time.Now()}); err != nil {
				f.Fatal(err)
			}
		}
	}
}

// FuzzStoreRestore: a metaqueue state whose one cell holds anything (a
// damaged file, a hand's edit, an older or newer gmark's value). The state
// is refused with an error naming the file, or loaded; a state loaded has
// only groups, jobs and placeholders the server could have made (a job in
// state "bogus" was loaded, and never ran), serves every reading and a
// round of the placeholders' calls and the watchdog without a panic, and
// loads again after a restart.
func FuzzStoreRestore(f *testing.F) {
	seed := filepath.Join(f.TempDir(), "seed.db")
	seedState(f, seed)
	good, err := os.ReadFile(seed)
	if err != nil {
		f.Fatal(err)
	}
	for _, s := range []struct {
		table, col byte
		text       string
		num        int64
		asNum      bool
	}{
		{1, 6, "bogus", 0, false},             // jobs.state
		{1, 1, "nope", 0, false},              // jobs.grp
		{1, 0, "", 9223372036854775807, true}, // jobs.id
		{1, 5, "[99, -1]", 0, false},          // jobs.prereqs
		{0, 2, `[{"name":"a","kind":"slurm"}]`, 0, false},
		{0, 1, "lifo", 0, false},   // groups.policy
		{2, 6, "zombie", 0, false}, // placeholders.state
		{2, 11, "", 99, true},      // placeholders.attempt
		{3, 1, "", 99, true},       // attempts.job
		{3, 2, "", -5, true},       // attempts.placeholder
		{3, 12, "", 0, false},      // attempts.outcome
	} {
		f.Add(s.table, s.col, s.text, s.num, s.asNum)
	}
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, table, col byte, text string, num int64, asNum bool) {
		path := filepath.Join(dir, "mq.db")
		os.Remove(path + "-wal")
		os.Remove(path + "-shm")
		if err := os.WriteFile(path, good, 0o644); err != nil {
			t.Fatal(err)
		}
		tb := storeTables[int(table)%len(storeTables)]
		cols := storeColumns[tb]
		c := cols[int(col)%len(cols)]
		db, err := sql.Open("sqlite", path)
		if err != nil {
			t.Fatal(err)
		}
		var v any = text
		if asNum {
			v = num
		}
		// One row changed (the lowest), as a damaged page or an edit would.
		_, err = db.Exec(`UPDATE `+tb+` SET `+c+` = ? WHERE rowid = (SELECT min(rowid) FROM `+tb+`)`, v)
		db.Close()
		if err != nil {
			return // the schema refuses it (a NOT NULL, a duplicate key)
		}
		exercise := func() error {
			srv, err := New(Config{State: path, Token: "t", Gmark: "/bin/false", Watchdog: Watchdog{Interval: time.Hour}})
			if err != nil {
				if !strings.HasPrefix(err.Error(), path+": ") {
					t.Fatalf("%s.%s = %#v: error %q does not name the state", tb, c, v, err)
				}
				return err
			}
			ctx, cancel := context.WithCancel(context.Background())
			done := make(chan error, 1)
			go func() { done <- srv.Run(ctx) }()
			defer func() { cancel(); <-done; srv.Close() }()
			groups, _ := srv.Groups(ctx)
			for _, g := range groups {
				if !policyKnown(g.Policy) {
					t.Fatalf("%s.%s = %#v: loaded a group of policy %q", tb, c, v, g.Policy)
				}
			}
			for _, g := range []string{"g", text} {
				srv.Group(ctx, g)
				jobs, _ := srv.Jobs(ctx, g, "", 0, 100, true)
				for _, j := range jobs {
					if !strings.Contains(" waiting bound done failed removed ", " "+j.State+" ") {
						t.Fatalf("%s.%s = %#v: loaded job %d in state %q", tb, c, v, j.ID, j.State)
					}
				}
				phs, _ := srv.Placeholders(ctx, g, true)
				for _, p := range phs {
					if !strings.Contains(" queued executing idle ended ", " "+p.State+" ") {
						t.Fatalf("%s.%s = %#v: loaded placeholder %d in state %q", tb, c, v, p.ID, p.State)
					}
				}
				srv.Report(ctx, g)
				srv.Status(ctx, g)
				srv.Actions(ctx, g, 0, 100)
				for _, id := range []Ident{{Site: "a", Host: "h", LocalID: "k1"}, {Site: "b", Host: "h", LocalID: "k2"}, {Site: "a", LocalID: "k3"}} {
					r, _ := srv.Pull(ctx, g, PullRequest{Ident: id, Seq: 2})
					if r.Order != nil {
						srv.Done(ctx, g, DoneRequest{Ident: id, Attempt: r.Order.Attempt, Exit: 1, Started: time.Now(), Ended: time.Now()})
					}
					srv.Dequeue(ctx, g, DequeueRequest{Ident: id, Reason: "fuzz"})
				}
			}
			srv.do(ctx, srv.watch)
			return nil
		}
		if exercise() == nil {
			if err := exercise(); err != nil {
				t.Fatalf("%s.%s = %#v: loaded, served, then refused: %v", tb, c, v, err)
			}
		}
	})
}
