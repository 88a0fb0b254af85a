// Package metaqueue is the placeholder scheduler's command-line server (the
// thesis's CLS, TrellisWeb's database): groups of sites with one metaqueue
// each, jobs added and removed at any time, a selection policy (FCFS,
// priority, DAG), the pull / done / dequeue protocol of the placeholders,
// the watchdog, and a record of every placeholder action.
//
// One driver goroutine owns the state. It applies the requests that are
// waiting, commits what they changed to SQLite in one transaction (group
// commit), and only then answers them: a job handed out, added or reported
// done is on disk before anyone hears of it, so a server killed with -9
// restarts from its file with nothing acknowledged lost. A pull is atomic
// because only the driver pops, and idempotent because a placeholder
// numbers its pulls: the retry of a pull whose answer was lost gets the same
// job again.
package metaqueue

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gmark/gmark/internal/httpapi"
	"github.com/gmark/gmark/placeholder/site"
)

// Config sets up a server.
type Config struct {
	State string // the SQLite file
	Token string // required on every request that changes state
	// Gmark is the binary the placeholders run ('gmark placeholder agent').
	Gmark string
	// SitesDir holds each site's placeholder script, its configuration and
	// its placeholders' output (default STATE.sites/GROUP/SITE), and the
	// token the placeholders send (SitesDir/token).
	SitesDir string
	Watchdog Watchdog
	// Retries and RetryWait are the placeholders' transport retries (the
	// thesis: 5 tries, 10 minutes apart).
	Retries   int
	RetryWait time.Duration
	// PullWait is how long a placeholder of a DAG group waits before
	// pulling again when no job is eligible yet (default 10 s).
	PullWait time.Duration
	// HTTP limits the API's clients; zero fields take DefaultLimits.
	HTTP httpapi.Limits
	// Now is the clock (default time.Now).
	Now func() time.Time
}

// DefaultLimits are koala serve's, with room for the thesis's 1,376
// placeholders calling at once.
var DefaultLimits = func() httpapi.Limits {
	l := httpapi.DefaultLimits
	l.MaxConns = 4096
	return l
}()

// Server is a running metaqueue.
type Server struct {
	cfg     Config
	st      *store
	s       *state
	cmds    chan *command
	done    chan struct{}
	closed  atomic.Bool
	url     atomic.Value // string
	probing atomic.Bool
	tasks   sync.WaitGroup

	sitesMu sync.Mutex
	sites   map[[2]string]site.Site

	pulls, binds atomic.Uint64
}

type command struct {
	fn    func(now time.Time) (any, []task, error)
	value any
	err   error
	done  chan struct{}
}

// New opens (or creates) the state and loads it.
func New(cfg Config) (*Server, error) {
	if cfg.State == "" {
		return nil, errors.New("metaqueue: no state file")
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.SitesDir == "" {
		cfg.SitesDir = cfg.State + ".sites"
	}
	// Placeholders run elsewhere (a batch job's directory): every path
	// they are given is absolute.
	var err error
	if cfg.SitesDir, err = filepath.Abs(cfg.SitesDir); err != nil {
		return nil, err
	}
	if cfg.PullWait <= 0 {
		cfg.PullWait = 10 * time.Second
	}
	if cfg.Watchdog.Interval <= 0 {
		cfg.Watchdog.Interval = DefaultWatchdog.Interval
	}
	if cfg.Retries < 0 || cfg.RetryWait < 0 || cfg.Watchdog.MaxRetries < 0 {
		return nil, errors.New("metaqueue: retries, retry wait and max retries must be >= 0")
	}
	cfg.HTTP = cfg.HTTP.WithDefaults(DefaultLimits)
	// The state first: one refused leaves nothing beside it.
	st, err := openStore(cfg.State)
	if err != nil {
		return nil, err
	}
	s, err := st.load()
	if err != nil {
		st.close()
		return nil, fmt.Errorf("%s: %w", cfg.State, err)
	}
	if err := os.MkdirAll(cfg.SitesDir, 0o755); err != nil {
		st.close()
		return nil, err
	}
	if err := os.WriteFile(filepath.Join(cfg.SitesDir, "token"), []byte(cfg.Token+"\n"), 0o600); err != nil {
		st.close()
		return nil, err
	}
	srv := &Server{cfg: cfg, st: st, s: s, cmds: make(chan *command, 8192), done: make(chan struct{}), sites: map[[2]string]site.Site{}}
	srv.url.Store("")
	return srv, nil
}

var errShuttingDown = errors.New("the metaqueue is shutting down")

// do runs fn on the driver: its changes are committed before do returns.
func (s *Server) do(ctx context.Context, fn func(now time.Time) (any, []task, error)) (any, error) {
	if s.closed.Load() {
		return nil, errShuttingDown
	}
	c := &command{fn: fn, done: make(chan struct{})}
	select {
	case s.cmds <- c:
	case <-ctx.Done():
		return nil, ctx.Err()
	case <-s.done:
		return nil, errShuttingDown
	}
	select {
	case <-c.done:
		return c.value, c.err
	case <-s.done:
		return nil, errShuttingDown
	}
}

// maxBatch bounds the requests of one commit.
const maxBatch = 8192

// Run drives the metaqueue until ctx ends, or a commit fails (the state in
// memory is then ahead of the file, and the server must stop).
func (s *Server) Run(ctx context.Context) error {
	defer close(s.done)
	defer s.closed.Store(true)
	tick := time.NewTicker(s.cfg.Watchdog.Interval)
	defer tick.Stop()
	for {
		var batch []*command
		select {
		case <-ctx.Done():
			return nil
		case c := <-s.cmds:
			batch = append(batch, c)
		case <-tick.C:
			batch = append(batch, &command{fn: s.watch, done: make(chan struct{})})
		}
	more:
		for len(batch) < maxBatch {
			select {
			case c := <-s.cmds:
				batch = append(batch, c)
			default:
				break more
			}
		}
		if err := s.step(batch); err != nil {
			return err
		}
	}
}

// step applies a batch, commits it, answers it and starts its site tasks.
func (s *Server) step(batch []*command) error {
	now := s.cfg.Now()
	var tasks []task
	for _, c := range batch {
		var t []task
		c.value, t, c.err = c.fn(now)
		tasks = append(tasks, t...)
	}
	if err := s.st.commit(s.s); err != nil {
		err = fmt.Errorf("metaqueue: committing to %s: %w", s.cfg.State, err)
		for _, c := range batch {
			c.value, c.err = nil, err
			close(c.done)
		}
		return err
	}
	s.s.clean()
	for _, c := range batch {
		close(c.done)
	}
	for _, t := range tasks {
		s.tasks.Add(1)
		go s.runTask(t)
	}
	return nil
}

// Close waits for the site tasks under way and closes the state. Call it
// after Run has returned.
func (s *Server) Close() error {
	s.tasks.Wait()
	return s.st.close()
}

// watch is the watchdog's run; with Probe, it also asks the sites which
// placeholders they still have.
func (s *Server) watch(now time.Time) (any, []task, error) {
	tasks := s.s.watchdog(now, s.cfg.Watchdog)
	if s.cfg.Watchdog.Probe && s.probing.CompareAndSwap(false, true) {
		snap := s.s.snapshot()
		s.tasks.Add(1)
		go s.probe(snap)
	}
	return nil, tasks, nil
}

func (s *Server) probe(snap map[[2]string][]probeEntry) {
	defer s.tasks.Done()
	defer s.probing.Store(false)
	ctx := context.Background()
	for k, entries := range snap {
		st := s.site(k[0], k[1])
		if st == nil {
			continue
		}
		ids := make([]string, len(entries))
		for i, e := range entries {
			ids[i] = e.local
		}
		alive, err := st.Alive(ctx, ids)
		if err != nil {
			s.note(k[0], k[1], "probe-failed", err.Error())
			continue
		}
		_, _ = s.do(ctx, func(now time.Time) (any, []task, error) {
			return nil, s.s.lost(now, entries, alive, s.cfg.Watchdog), nil
		})
	}
}

// note records an action of the server itself (a failed site command).
func (s *Server) note(group, siteName, action, detail string) {
	_, _ = s.do(context.Background(), func(now time.Time) (any, []task, error) {
		s.s.act(now, Action{Group: group, Site: siteName, Action: action, Detail: detail})
		return nil, nil, nil
	})
}

// runTask kills a placeholder and submits a fresh one, as a task asks.
func (s *Server) runTask(t task) {
	defer s.tasks.Done()
	ctx := context.Background()
	st := s.site(t.group, t.site)
	if st == nil {
		return
	}
	if t.kill != "" {
		if err := st.Kill(ctx, t.kill); err != nil {
			s.note(t.group, t.site, "kill-failed", t.kill+": "+err.Error())
		}
	}
	if t.submit {
		why := "watchdog: replaces " + t.kill + " (" + t.reason + ")"
		if t.kill == "" {
			why = "watchdog: " + t.reason
		}
		if _, err := s.submit(ctx, st, t.group, t.site, why); err != nil {
			s.note(t.group, t.site, "submit-failed", err.Error())
		}
	}
}

// submit puts one placeholder in a site's queue and records it.
func (s *Server) submit(ctx context.Context, st site.Site, group, siteName, why string) (int64, error) {
	at := s.cfg.Now()
	local, err := st.Submit(ctx)
	if err != nil {
		return 0, err
	}
	v, err := s.do(ctx, func(now time.Time) (any, []task, error) {
		p := s.s.register(now, group, siteName, local, why, at)
		if p == nil {
			return int64(0), nil, notFound("no group %q", group)
		}
		return p.ID, nil, nil
	})
	if err != nil {
		return 0, err
	}
	return v.(int64), nil
}

func (s *Server) site(group, name string) site.Site {
	s.sitesMu.Lock()
	defer s.sitesMu.Unlock()
	return s.sites[[2]string{group, name}]
}

// writeSites writes the placeholder scripts of a group's sites (once the
// server's address is known) and makes their site handles.
func (s *Server) writeSites(g *Group) error {
	url, _ := s.url.Load().(string)
	if url == "" {
		return nil
	}
	for i := range g.Sites {
		sp := g.Sites[i]
		if sp.Dir == "" {
			sp.Dir = filepath.Join(s.cfg.SitesDir, g.Name, sp.Name)
		}
		dir, err := filepath.Abs(sp.Dir)
		if err != nil {
			return err
		}
		sp.Dir = dir
		script, err := site.Write(site.AgentConfig{Server: url, TokenFile: filepath.Join(s.cfg.SitesDir, "token"),
			Group: g.Name, Site: sp, Gmark: s.cfg.Gmark, Retries: s.cfg.Retries, RetryWait: site.Duration(s.cfg.RetryWait)})
		if err != nil {
			return fmt.Errorf("group %s: %v", g.Name, err)
		}
		h, err := site.New(sp, script)
		if err != nil {
			return err
		}
		s.sitesMu.Lock()
		s.sites[[2]string{g.Name, sp.Name}] = h
		s.sitesMu.Unlock()
	}
	return nil
}

// SetURL tells the server where it is served (http://HOST:PORT), which the
// placeholder scripts name, and writes every group's scripts.
func (s *Server) SetURL(ctx context.Context, url string) error {
	s.url.Store(url)
	_, err := s.do(ctx, func(time.Time) (any, []task, error) {
		for _, g := range s.s.groups {
			if err := s.writeSites(g); err != nil {
				return nil, nil, err
			}
		}
		return nil, nil, nil
	})
	return err
}
