package placeholder

import (
	"bufio"
	"context"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/gmark/gmark/internal/httpapi"
	"github.com/gmark/gmark/internal/testbin"
	"github.com/gmark/gmark/placeholder/metaqueue"
)

var gmarkBin testbin.Lazy

func TestMain(m *testing.M) { testbin.MainLazy(m, &gmarkBin) }

// live is a 'gmark placeholder serve' process, its directory and a client.
type live struct {
	t      *testing.T
	dir    string
	addr   string
	args   []string
	cmd    *exec.Cmd
	client *metaqueue.Client
}

// serving is the server's line saying where it listens.
var serving = regexp.MustCompile(`gmark placeholder: serving http://([0-9.]+:[0-9]+)/v1/`)

// startLive starts the server with groups (TOML) and flags; the watchdog
// runs every 300 ms and placeholders retry every 100 ms, up to 300 times
// (half a minute of outage).
func startLive(t *testing.T, groups string, flags ...string) *live {
	t.Helper()
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "runs"), 0o755); err != nil {
		t.Fatal(err)
	}
	gf := filepath.Join(dir, "groups.toml")
	if err := os.WriteFile(gf, []byte(groups), 0o644); err != nil {
		t.Fatal(err)
	}
	// The server takes a free port itself and says which (a port found
	// free beforehand may be another parallel test's by the time the
	// server binds it); a restart listens on the same one.
	l := &live{t: t, dir: dir}
	l.args = append([]string{"placeholder", "serve", "--state", filepath.Join(dir, "mq.db"), "--listen", "127.0.0.1:0",
		"--groups", gf, "--watchdog-interval", "300ms", "--retries", "300", "--retry-wait", "100ms"}, flags...)
	l.start()
	t.Cleanup(l.cleanup)
	return l
}

func (l *live) start() {
	l.t.Helper()
	l.cmd = exec.Command(gmarkBin.Path(l.t), l.args...)
	l.cmd.Stdout, l.cmd.Stderr = nil, nil
	log, err := os.OpenFile(filepath.Join(l.dir, "serve.log"), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		l.t.Fatal(err)
	}
	defer log.Close()
	l.cmd.Stdout, l.cmd.Stderr = log, log
	if err := l.cmd.Start(); err != nil {
		l.t.Fatal(err)
	}
	deadline := time.Now().Add(60 * time.Second)
	for {
		var err error
		if l.addr == "" {
			b, _ := os.ReadFile(filepath.Join(l.dir, "serve.log"))
			if m := serving.FindSubmatch(b); m != nil {
				l.addr = string(m[1])
				for i, a := range l.args {
					if a == "127.0.0.1:0" {
						l.args[i] = l.addr
					}
				}
			} else {
				err = fmt.Errorf("no line %q in serve.log yet", "gmark placeholder: serving")
			}
		}
		token, terr := httpapi.ReadTokenFile(filepath.Join(l.dir, "mq.db.token"))
		if l.addr != "" && terr != nil {
			err = terr
		}
		if l.addr != "" && terr == nil {
			l.client = &metaqueue.Client{URL: "http://" + l.addr, Token: token, HTTP: &http.Client{Timeout: time.Minute}}
			if _, err = l.client.Groups(context.Background()); err == nil {
				return
			}
		}
		if time.Now().After(deadline) {
			b, _ := os.ReadFile(filepath.Join(l.dir, "serve.log"))
			l.t.Fatalf("the server did not come up: %v\n%s", err, b)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// kill9 kills the server with SIGKILL and waits for it.
func (l *live) kill9() {
	_ = l.cmd.Process.Kill()
	_ = l.cmd.Wait()
}

// cleanup stops every placeholder the test left (the server kills them),
// then the server, then any process still running from the test's
// directory (by pid).
func (l *live) cleanup() {
	if l.cmd.ProcessState == nil {
		if gs, err := l.client.Groups(context.Background()); err == nil {
			for _, g := range gs {
				_, _ = l.client.Stop(context.Background(), g.Name, "", 0)
			}
		}
		_ = l.cmd.Process.Signal(syscall.SIGTERM)
		done := make(chan struct{})
		go func() { _ = l.cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(20 * time.Second):
			l.kill9()
		}
	}
	for _, pid := range pidsIn(l.dir) {
		_ = syscall.Kill(pid, syscall.SIGKILL)
	}
}

// describe says, for a test's failure message, what became of each
// placeholder: whether its process lives (its /proc state and command
// line) and what it wrote (a zinf placeholder's Placeholder.o<pid> under
// the test's directory).
func (l *live) describe(phs []metaqueue.Placeholder) string {
	var b strings.Builder
	for _, p := range phs {
		fmt.Fprintf(&b, "placeholder %d (%s/%s, local id %s, %s):", p.ID, p.Group, p.Site, p.LocalID, p.State)
		if stat, err := os.ReadFile("/proc/" + p.LocalID + "/stat"); err != nil {
			b.WriteString(" no such process")
		} else {
			cmdline, _ := os.ReadFile("/proc/" + p.LocalID + "/cmdline")
			fmt.Fprintf(&b, " process %s, command %q", strings.TrimSpace(string(stat)), strings.ReplaceAll(string(cmdline), "\x00", " "))
		}
		b.WriteString("\n")
		_ = filepath.WalkDir(l.dir, func(path string, d os.DirEntry, err error) error {
			if err == nil && !d.IsDir() && d.Name() == "Placeholder.o"+p.LocalID {
				out, _ := os.ReadFile(path)
				fmt.Fprintf(&b, "  %s:\n%s\n", path, out)
			}
			return nil
		})
	}
	log, _ := os.ReadFile(filepath.Join(l.dir, "serve.log"))
	fmt.Fprintf(&b, "server log:\n%s", log)
	return b.String()
}

// pidsIn lists the processes whose command line names dir.
func pidsIn(dir string) []int {
	ents, _ := os.ReadDir("/proc")
	var pids []int
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == os.Getpid() {
			continue
		}
		b, err := os.ReadFile("/proc/" + e.Name() + "/cmdline")
		if err == nil && strings.Contains(string(b), dir) {
			pids = append(pids, pid)
		}
	}
	return pids
}

// addJobs adds n jobs whose command appends its attempt to runs/JOB (so
// that the files count the executions), after pre (a shell prefix).
func (l *live) addJobs(group string, n int, pre string) {
	l.t.Helper()
	var jobs []metaqueue.NewJob
	for i := 0; i < n; i++ {
		jobs = append(jobs, metaqueue.NewJob{Key: fmt.Sprint("j", i),
			Command: pre + `echo "$GMARK_PLACEHOLDER_ATTEMPT $GMARK_PLACEHOLDER_SITE $GMARK_PLACEHOLDER_LOCAL_ID" >> ` + filepath.Join(l.dir, "runs") + `/"$GMARK_PLACEHOLDER_JOB"`})
	}
	if _, err := l.client.AddJobs(context.Background(), group, jobs); err != nil {
		l.t.Fatal(err)
	}
}

func (l *live) startPH(group, site string, n int) {
	l.t.Helper()
	res, err := l.client.Start(context.Background(), group, site, n)
	if err != nil || len(res.Placeholders) != n {
		l.t.Fatalf("starting %d at %s: %+v %v", n, site, res, err)
	}
}

// waitDone waits until the group has no job waiting or bound.
func (l *live) waitDone(group string, timeout time.Duration) *metaqueue.Report {
	l.t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		g, err := l.client.Group(context.Background(), group)
		if err == nil && g.Remaining == 0 {
			r, err := l.client.Report(context.Background(), group)
			if err != nil {
				l.t.Fatal(err)
			}
			return r
		}
		if time.Now().After(deadline) {
			r, _ := l.client.Report(context.Background(), group)
			var b strings.Builder
			if r != nil {
				r.WriteText(&b)
			}
			phs, _ := l.client.Placeholders(context.Background(), group, false)
			l.t.Fatalf("group %s not done after %v: %+v %v\n%s\n%s", group, timeout, g, err, b.String(), l.describe(phs))
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// runs reads how many times each job ran (lines of runs/JOB).
func (l *live) runs() map[int64][]string {
	out := map[int64][]string{}
	ents, _ := os.ReadDir(filepath.Join(l.dir, "runs"))
	for _, e := range ents {
		id, err := strconv.ParseInt(e.Name(), 10, 64)
		if err != nil {
			continue
		}
		f, _ := os.Open(filepath.Join(l.dir, "runs", e.Name()))
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			out[id] = append(out[id], sc.Text())
		}
		f.Close()
	}
	return out
}

// checkOnce checks that every one of n jobs ran exactly once (its runs
// file has one line), or is in the report's duplicated or maybe-duplicated
// lists with a reason; it returns how many were listed.
func (l *live) checkOnce(r *metaqueue.Report, n int) int {
	l.t.Helper()
	listed := map[int64]string{}
	for _, j := range append(append([]metaqueue.JobRuns{}, r.Duplicate...), r.Possible...) {
		listed[j.Job] = j.Reason
	}
	runs := l.runs()
	for id := int64(1); id <= int64(n); id++ {
		if len(runs[id]) == 1 {
			continue
		}
		if why, ok := listed[id]; !ok || why == "" {
			l.t.Errorf("job %d ran %d times and the report does not say why: %v", id, len(runs[id]), runs[id])
		}
	}
	if r.States[metaqueue.Done] != n || len(r.Unfinished) != 0 || len(r.Failed) != 0 {
		l.t.Errorf("report: %+v", r)
	}
	return len(listed)
}

// exists tells whether path names a file or directory.
func exists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}
