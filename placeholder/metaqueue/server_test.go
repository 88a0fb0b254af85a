package metaqueue

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/gmark/gmark/placeholder/site"
)

// running is a server on loopback, run in this process.
type running struct {
	srv    *Server
	client *Client
	url    string
	stop   func()
}

func startServer(t testing.TB, state string, groups ...GroupSpec) *running {
	t.Helper()
	cfg := Config{State: state, Token: "secret", Gmark: "/bin/false", Watchdog: Watchdog{Interval: time.Hour}}
	srv, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	ln, err := srv.Listen("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	ready := make(chan string, 1)
	errc := make(chan error, 1)
	go func() {
		errc <- srv.serve(ctx, ln, ServeOptions{Groups: groups, Serving: func(u string) { ready <- u }})
	}()
	var url string
	select {
	case url = <-ready:
	case err := <-errc:
		t.Fatal(err)
	}
	tr := &http.Transport{MaxIdleConnsPerHost: 1024}
	r := &running{srv: srv, url: url, client: &Client{URL: url, Token: "secret", HTTP: &http.Client{Transport: tr}}}
	var once sync.Once
	r.stop = func() {
		once.Do(func() {
			cancel()
			if err := <-errc; err != nil {
				t.Error(err)
			}
			tr.CloseIdleConnections()
		})
	}
	t.Cleanup(r.stop)
	return r
}

// 200 placeholders pulling at once over HTTP: every job is handed to
// exactly one of them, and every pull is answered.
func TestAtomicPopConcurrentPullers(t *testing.T) {
	const pullers, jobs = 200, 2000
	r := startServer(t, filepath.Join(t.TempDir(), "mq.db"), zinfGroup("g", FCFS))
	ctx := context.Background()
	var add []NewJob
	for i := 0; i < jobs; i++ {
		add = append(add, NewJob{Command: fmt.Sprint("job ", i)})
	}
	if _, err := r.client.AddJobs(ctx, "g", add); err != nil {
		t.Fatal(err)
	}
	got := make([][]int64, pullers)
	errs := make(chan error, pullers)
	var wg sync.WaitGroup
	for p := 0; p < pullers; p++ {
		wg.Add(1)
		go func(p int) {
			defer wg.Done()
			id := Ident{Site: "b", LocalID: fmt.Sprint(p)} // pilots: pull, report, pull again
			for seq := int64(1); ; seq++ {
				rep, err := r.client.Pull(ctx, "g", PullRequest{Ident: id, Seq: seq})
				if err != nil {
					errs <- err
					return
				}
				if rep.Order == nil {
					return
				}
				got[p] = append(got[p], rep.Order.Job)
				if err := r.client.Done(ctx, "g", DoneRequest{Ident: id, Attempt: rep.Order.Attempt, Started: time.Now(), Ended: time.Now()}); err != nil {
					errs <- err
					return
				}
			}
		}(p)
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	seen := map[int64]int{}
	for _, list := range got {
		for _, j := range list {
			seen[j]++
		}
	}
	for id := int64(1); id <= jobs; id++ {
		if seen[id] != 1 {
			t.Errorf("job %d handed out %d times", id, seen[id])
		}
	}
	rep, err := r.client.Report(ctx, "g")
	if err != nil {
		t.Fatal(err)
	}
	if rep.Once != jobs || len(rep.Duplicate)+len(rep.Possible)+len(rep.Unfinished) != 0 {
		t.Errorf("report: once %d of %d, duplicated %d, maybe %d, unfinished %d", rep.Once, jobs, len(rep.Duplicate), len(rep.Possible), len(rep.Unfinished))
	}
}

// What a server acknowledged is in its file: a new server on the same
// state goes on where the old one stopped, with the same ids, queue order,
// bound jobs and placeholders, and the actions recorded.
func TestStateSurvivesRestart(t *testing.T) {
	state := filepath.Join(t.TempDir(), "mq.db")
	ctx := context.Background()
	r := startServer(t, state, zinfGroup("g", Priority))
	if _, err := r.client.AddJobs(ctx, "g", []NewJob{{Command: "low"}, {Key: "k", Command: "high", Priority: 5}, {Command: "mid", Priority: 2}}); err != nil {
		t.Fatal(err)
	}
	first, err := r.client.Pull(ctx, "g", PullRequest{Ident: Ident{Site: "a", LocalID: "1"}, Seq: 1})
	if err != nil || first.Order == nil || first.Order.Command != "high" {
		t.Fatalf("first pull %+v %v", first, err)
	}
	r.stop()
	r2 := startServer(t, state)
	again, err := r2.client.Pull(ctx, "g", PullRequest{Ident: Ident{Site: "a", LocalID: "1"}, Seq: 1})
	if err != nil || again.Order == nil || *again.Order != *first.Order || again.Placeholder != first.Placeholder {
		t.Fatalf("the same pull after a restart: %+v %v, want %+v", again, err, first)
	}
	next, err := r2.client.Pull(ctx, "g", PullRequest{Ident: Ident{Site: "a", LocalID: "2"}, Seq: 1})
	if err != nil || next.Order == nil || next.Order.Command != "mid" || next.Order.Attempt != first.Order.Attempt+1 {
		t.Fatalf("next pull after a restart: %+v %v", next, err)
	}
	ids, err := r2.client.AddJobs(ctx, "g", []NewJob{{Key: "k", Command: "again"}, {Command: "new"}})
	if err != nil || ids[0] != 2 || ids[1] != 4 {
		t.Fatalf("ids after a restart %v %v, want [2 4]", ids, err)
	}
	acts, err := r2.client.Actions(ctx, "g", 0, 100)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, a := range acts {
		names = append(names, a.Action)
	}
	if want := "[group register start bind register start bind]"; fmt.Sprint(names) != want {
		t.Errorf("actions %v, want %s", names, want)
	}
}

// Two servers cannot share a state.
func TestStateInUse(t *testing.T) {
	state := filepath.Join(t.TempDir(), "mq.db")
	startServer(t, state)
	if _, err := New(Config{State: state, Token: "x"}); err == nil {
		t.Fatal("a second server opened the state")
	}
}

// The API refuses what it must: no token, a wrong one, bad bodies,
// unknown groups, jobs and routes.
func TestAPIRefusals(t *testing.T) {
	r := startServer(t, filepath.Join(t.TempDir(), "mq.db"), zinfGroup("g", FCFS))
	ctx := context.Background()
	noToken := &Client{URL: r.url}
	wrong := &Client{URL: r.url, Token: "nope"}
	for _, tc := range []struct {
		name   string
		call   func() error
		status int
	}{
		{"no token", func() error { _, err := noToken.AddJobs(ctx, "g", []NewJob{{Command: "x"}}); return err }, 401},
		{"wrong token", func() error {
			_, err := wrong.Pull(ctx, "g", PullRequest{Ident: Ident{Site: "a", LocalID: "1"}})
			return err
		}, 403},
		{"unknown group", func() error { _, err := r.client.Group(ctx, "nope"); return err }, 404},
		{"unknown job", func() error { return r.client.RemoveJob(ctx, "g", 42) }, 404},
		{"bad group", func() error { _, err := r.client.PutGroup(ctx, GroupSpec{Name: "x y"}); return err }, 400},
		{"start negative", func() error { _, err := r.client.Start(ctx, "g", "a", -1); return err }, 400},
		{"start unknown site", func() error { _, err := r.client.Start(ctx, "g", "zz", 1); return err }, 404},
		{"unknown route", func() error { return r.client.call(ctx, http.MethodGet, "/v2/x", nil, nil) }, 404},
		{"bad limit", func() error { _, err := r.client.Actions(ctx, "g", 0, 0); return err }, 400},
		{"unknown field", func() error {
			return r.client.call(ctx, http.MethodPost, "/v1/groups/g/pull", map[string]any{"site": "a", "local_id": "1", "x": 1}, nil)
		}, 400},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.call()
			ae, ok := err.(*APIError)
			if !ok || ae.Status != tc.status {
				t.Fatalf("%v, want status %d", err, tc.status)
			}
		})
	}
}

// A zinf site runs placeholders as processes: start submits them, the
// probe finds those that are gone, stop kills them.
func TestZinfSiteProcesses(t *testing.T) {
	dir := t.TempDir()
	script := filepath.Join(dir, "placeholder.zinf")
	// The process's command line names the site's directory, as the
	// agent's does (--config DIR/agent.json).
	if err := os.WriteFile(script, []byte("exec sh -c 'sleep 30; true' "+dir+"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	st, err := site.New(site.Spec{Name: "z", Kind: site.Zinf, Dir: dir}, script)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	id, err := st.Submit(ctx)
	if err != nil {
		t.Fatal(err)
	}
	alive, err := st.Alive(ctx, []string{id, "1", "999999999", "x"})
	if err != nil || !alive[id] || len(alive) != 1 {
		t.Fatalf("alive %v %v, want only %s", alive, err, id)
	}
	if err := st.Kill(ctx, id); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(30 * time.Second)
	for {
		alive, _ = st.Alive(ctx, []string{id})
		if !alive[id] {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("placeholder %s still alive after Kill", id)
		}
		time.Sleep(20 * time.Millisecond)
	}
	if err := st.Kill(ctx, "abc"); err == nil {
		t.Error("killing a non-pid")
	}
}
