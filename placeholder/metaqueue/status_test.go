package metaqueue

import (
	"context"
	"fmt"
	"io"
	"math"
	"net/http"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// Jobs done are counted in the interval of the end their placeholder
// reported: the last hour's bins at their edges, ends before the hour (done,
// not recent), ends after now (another clock: the last bin); overall is
// done per hour from the first bind to the last end.
func TestStatusThroughput(t *testing.T) {
	now := t0.Add(2 * time.Hour)
	for _, tc := range []struct {
		name    string
		ends    []time.Duration // each job's end, from now
		recent  map[int]int
		overall float64
	}{
		{"none", nil, map[int]int{}, 0},
		{"one just now", []time.Duration{-time.Second}, map[int]int{11: 1}, 1 / (2*time.Hour - time.Second).Hours()},
		{"edges", []time.Duration{-90 * time.Minute, -time.Hour, -57*time.Minute - 30*time.Second, -5 * time.Minute, -7*time.Minute - 30*time.Second, -time.Second, 10 * time.Minute},
			map[int]int{0: 2, 10: 1, 11: 3}, 7 / (2*time.Hour + 10*time.Minute).Hours()},
		{"all before the hour", []time.Duration{-2 * time.Hour, -61 * time.Minute}, map[int]int{}, 2 / (59 * time.Minute).Hours()},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := newTestState(t, FCFS)
			for i, d := range tc.ends {
				mustAdd(t, s, NewJob{Command: fmt.Sprint(i)})
				r, err := s.pull(t0, "g", PullRequest{Ident: Ident{Site: "a", LocalID: fmt.Sprint("p", i)}, Seq: 1}, time.Second)
				if err != nil || r.Order == nil {
					t.Fatal(r, err)
				}
				if err := s.done(t0, "g", DoneRequest{Ident: Ident{Site: "a", LocalID: fmt.Sprint("p", i)}, Attempt: r.Order.Attempt, Started: t0, Ended: now.Add(d)}); err != nil {
					t.Fatal(err)
				}
			}
			st := s.status(s.groups["g"], now)
			want, hour := make([]int, 12), 0
			for i, n := range tc.recent {
				want[i], hour = n, hour+n
			}
			if fmt.Sprint(st.Recent) != fmt.Sprint(want) || st.LastHour != hour || st.Done != len(tc.ends) {
				t.Errorf("recent %v (last hour %d, done %d), want %v (%d, %d)", st.Recent, st.LastHour, st.Done, want, hour, len(tc.ends))
			}
			if math.Abs(st.Overall-tc.overall) > 1e-9 {
				t.Errorf("overall %v jobs/h, want %v", st.Overall, tc.overall)
			}
			a := st.Sites[0]
			if len(st.Sites) != 2 || a.Site != "a" || a.Done != len(tc.ends) || a.LastHour != hour || a.Ended != len(tc.ends) || a.Executing+a.Queued+a.Idle != 0 {
				t.Errorf("sites %+v", st.Sites)
			}
		})
	}
}

// A job the watchdog gives up on counts as failed, its placeholder as
// ended; a command longer than the page shows is cut at a character.
func TestStatusFailedAndCut(t *testing.T) {
	s := newTestState(t, FCFS)
	long := strings.Repeat("é", MaxStatusCommand)
	mustAdd(t, s, NewJob{Command: "x"}, NewJob{Command: long})
	w := Watchdog{ExecFailure: time.Hour}
	for i := 0; i < 2; i++ {
		if r, err := s.pull(t0, "g", PullRequest{Ident: Ident{Site: "a", LocalID: fmt.Sprint("p", i)}, Seq: 1}, time.Second); err != nil || r.Order == nil || r.Order.Job != 1 {
			t.Fatal(r, err)
		}
		s.watchdog(t0.Add(2*time.Hour), w)
	}
	if _, err := s.pull(t0, "g", PullRequest{Ident: Ident{Site: "b", LocalID: "q"}, Seq: 1}, time.Second); err != nil {
		t.Fatal(err)
	}
	st := s.status(s.groups["g"], t0)
	if st.Failed != 1 || st.Running != 1 || st.Waiting != 0 || st.Remaining != 1 || st.Sites[0].Ended != 2 || st.Sites[1].Executing != 1 {
		t.Fatalf("%+v", st)
	}
	c := st.Placeholders[0].Command
	if len(st.Placeholders) != 1 || !strings.HasSuffix(c, "…") || len(c) > MaxStatusCommand+len("…") || !strings.HasPrefix(long, strings.TrimSuffix(c, "…")) {
		t.Errorf("command shown %q", c)
	}
}

// tdRE finds the counts the page marks with an id.
var tdRE = regexp.MustCompile(`id="([^"]+)">([^<]*)<`)

func pageIDs(page string) map[string]string {
	m := map[string]string{}
	for _, x := range tdRE.FindAllStringSubmatch(page, -1) {
		m[x[1]] = x[2]
	}
	return m
}

func get(t *testing.T, url, host string) (int, http.Header, string) {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	if host != "" {
		req.Host = host
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, resp.Header, string(b)
}

// The page and the status JSON of a real server on a real state follow
// the jobs as they are added, pulled, finished and removed, and show the
// same after a restart on the same file.
func TestStatusPageFollowsState(t *testing.T) {
	state := filepath.Join(t.TempDir(), "mq.db")
	r := startServer(t, state, zinfGroup("g", FCFS), zinfGroup("h.2", DAG))
	ctx := context.Background()
	ph := func(local string) Ident { return Ident{Site: "a", Host: "n1", LocalID: local} }
	var att int64
	steps := []struct {
		name string
		do   func() error
		want map[string]string // page id: text
	}{
		{"empty", func() error { return nil },
			map[string]string{"remaining-g": "0", "jobs-g-waiting": "0", "jobs-g-all": "0", "ph-g-a-queued": "0", "ph-g-b-idle": "0", "remaining-h.2": "0", "lasthour-g": "0", "overall-g": "0.0"}},
		{"add 5", func() error { _, err := r.client.AddJobs(ctx, "g", make5()); return err },
			map[string]string{"remaining-g": "5", "jobs-g-waiting": "5", "jobs-g-running": "0", "jobs-g-all": "5", "remaining-h.2": "0"}},
		{"pull", func() error {
			rep, err := r.client.Pull(ctx, "g", PullRequest{Ident: ph("1"), Seq: 1})
			if err == nil && rep.Order != nil {
				att = rep.Order.Attempt
			}
			return err
		}, map[string]string{"remaining-g": "5", "jobs-g-waiting": "4", "jobs-g-running": "1", "ph-g-a-executing": "1", "ph-g-a-ended": "0"}},
		{"done, successor queued", func() error {
			return r.client.Done(ctx, "g", DoneRequest{Ident: ph("1"), Attempt: att, Started: time.Now(), Ended: time.Now(), NewID: "2"})
		}, map[string]string{"remaining-g": "4", "jobs-g-running": "0", "jobs-g-done": "1", "ph-g-a-executing": "0", "ph-g-a-queued": "1", "ph-g-a-ended": "1", "site-g-a-done": "1", "lasthour-g": "1", "recent-g-11": "1"}},
		{"remove one", func() error { return r.client.RemoveJob(ctx, "g", 5) },
			map[string]string{"remaining-g": "3", "jobs-g-waiting": "3", "jobs-g-removed": "1", "jobs-g-all": "5"}},
	}
	check := func(name string, want map[string]string) {
		t.Helper()
		code, h, page := get(t, r.url+"/", "")
		if code != http.StatusOK || !strings.HasPrefix(h.Get("Content-Type"), "text/html") || !strings.Contains(h.Get("Content-Security-Policy"), "default-src 'none'") {
			t.Fatalf("%s: %d %v\n%s", name, code, h, page)
		}
		got := pageIDs(page)
		for id, w := range want {
			if got[id] != w {
				t.Errorf("%s: %s = %q on the page, want %q", name, id, got[id], w)
			}
		}
		st, err := r.client.Status(ctx, "g")
		if err != nil {
			t.Fatal(err)
		}
		for id, v := range map[string]int{"remaining-g": st.Remaining, "jobs-g-waiting": st.Waiting, "jobs-g-running": st.Running, "jobs-g-done": st.Done, "jobs-g-removed": st.Removed, "jobs-g-all": st.Jobs} {
			if got[id] != fmt.Sprint(v) {
				t.Errorf("%s: %s = %q on the page, %d in the JSON", name, id, got[id], v)
			}
		}
	}
	for _, s := range steps {
		if err := s.do(); err != nil {
			t.Fatalf("%s: %v", s.name, err)
		}
		check(s.name, s.want)
	}
	r.stop()
	r = startServer(t, state)
	check("after a restart", steps[len(steps)-1].want)
	if code, _, _ := get(t, r.url+"/status?refresh=0", ""); code != http.StatusOK {
		t.Errorf("/status?refresh=0: %d", code)
	}
	for _, tc := range []struct{ path, host string }{{"/?refresh=-1", ""}, {"/?refresh=x", ""}, {"/?refresh=3601", ""}, {"/", "evil.example:80"}, {"/v1/groups/nope/status", ""}, {"/nope", ""}} {
		if code, _, body := get(t, r.url+tc.path, tc.host); code < 400 || !strings.Contains(body, `"error"`) {
			t.Errorf("%s (Host %q): %d %s", tc.path, tc.host, code, body)
		}
	}
	for _, host := range []string{"localhost", "LOCALHOST:1", "[::1]:80", "127.0.0.2"} {
		if code, _, body := get(t, r.url+"/", host); code != http.StatusOK {
			t.Errorf("Host %q: %d %s", host, code, body)
		}
	}
}

func make5() []NewJob {
	var jobs []NewJob
	for i := 0; i < 5; i++ {
		jobs = append(jobs, NewJob{Command: fmt.Sprint("true ", i)})
	}
	return jobs
}

// Hosts, local ids and commands are shown escaped: none of them can add
// markup or script to the page. (A key cannot hold markup: it is refused.)
func TestStatusPageEscapes(t *testing.T) {
	r := startServer(t, filepath.Join(t.TempDir(), "mq.db"), zinfGroup("g", FCFS))
	ctx := context.Background()
	evil := []string{`<script>alert("key&")</script>`, `echo '<b>"x" & y</b>' </script><script>alert(1)</script>`, `<img src=x onerror=alert(2)>`, `"'&<>`}
	if _, err := r.client.AddJobs(ctx, "g", []NewJob{{Key: evil[0], Command: "true"}}); err == nil {
		t.Fatal("a key of markup was taken")
	}
	if _, err := r.client.AddJobs(ctx, "g", []NewJob{{Key: "k1", Command: evil[0] + " " + evil[1]}}); err != nil {
		t.Fatal(err)
	}
	if _, err := r.client.Pull(ctx, "g", PullRequest{Ident: Ident{Site: "a", Host: evil[2], LocalID: evil[3]}, Seq: 1}); err != nil {
		t.Fatal(err)
	}
	_, _, page := get(t, r.url+"/", "")
	for _, s := range evil {
		if strings.Contains(page, s) {
			t.Errorf("the page holds %q unescaped", s)
		}
	}
	for _, s := range []string{"&lt;script&gt;alert(&#34;key&amp;&#34;)&lt;/script&gt;", "&lt;img src=x onerror=alert(2)&gt;", "&#34;&#39;&amp;&lt;&gt;"} {
		if !strings.Contains(page, s) {
			t.Errorf("the page lacks %q", s)
		}
	}
	if n := strings.Count(strings.ToLower(page), "<script"); n != 1 {
		t.Errorf("%d script elements, want 1 (the page's own)", n)
	}
	if n := strings.Count(page, "<img"); n != 0 {
		t.Errorf("%d img elements", n)
	}
}

// The status of a group of 100,000 jobs, all done (the walk the page makes
// on the driver goroutine).
func BenchmarkStatus100k(b *testing.B) {
	s := newState()
	if _, err := s.putGroup(t0, zinfGroup("g", FCFS)); err != nil {
		b.Fatal(err)
	}
	jobs := make([]NewJob, 100000)
	for i := range jobs {
		jobs[i].Command = "true"
	}
	if _, err := s.addJobs(t0, "g", jobs); err != nil {
		b.Fatal(err)
	}
	for i := range jobs {
		id := Ident{Site: "a", LocalID: fmt.Sprint("p", i)}
		r, err := s.pull(t0, "g", PullRequest{Ident: id, Seq: 1}, time.Second)
		if err != nil || r.Order == nil {
			b.Fatal(r, err)
		}
		if err := s.done(t0, "g", DoneRequest{Ident: id, Attempt: r.Order.Attempt, Ended: t0.Add(time.Duration(i) * time.Millisecond)}); err != nil {
			b.Fatal(err)
		}
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if st := s.status(s.groups["g"], t0.Add(time.Minute)); st.Done != len(jobs) {
			b.Fatal(st.Done)
		}
	}
}

// At most MaxStatusRows active placeholders are listed, the first by id;
// the rest are counted.
func TestStatusRowsBound(t *testing.T) {
	for _, n := range []int{0, 1, MaxStatusRows, MaxStatusRows + 1, MaxStatusRows + 7} {
		s := newTestState(t, FCFS)
		for i := 0; i < n; i++ {
			mustAdd(t, s, NewJob{Command: fmt.Sprint(i)})
			if _, err := s.pull(t0, "g", PullRequest{Ident: Ident{Site: "b", LocalID: fmt.Sprint("p", i)}, Seq: 1}, time.Second); err != nil {
				t.Fatal(err)
			}
		}
		st := s.status(s.groups["g"], t0)
		rows := min(n, MaxStatusRows)
		if len(st.Placeholders) != rows || st.MorePlaceholders != n-rows || st.Sites[1].Executing != n || st.Running != n {
			t.Errorf("%d placeholders: %d rows, %d more, site %+v", n, len(st.Placeholders), st.MorePlaceholders, st.Sites[1])
		}
		if rows > 0 && (st.Placeholders[0].ID != 1 || st.Placeholders[rows-1].ID != int64(rows)) {
			t.Errorf("%d placeholders: rows from %d to %d", n, st.Placeholders[0].ID, st.Placeholders[rows-1].ID)
		}
	}
}
