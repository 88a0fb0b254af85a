// Package rendezvous lets the processes of a parallel job find each other.
// Every process opens its own listening socket, then joins the job at the
// rendezvous server with (job, size, rank, component, listen address); once
// all size ranks of the job have joined, the server sends each of them the
// full table and forgets the job. The processes then connect peer to peer.
//
// The protocol, version 1, is one JSON object per line over TCP:
//
//	client → server  {"v":1,"op":"join","job":"j1","size":4,"rank":2,"component":1,"addr":"127.0.0.1:40123"}
//	server → client  {"v":1,"op":"table","peers":[{"rank":0,"component":0,"addr":"…"},…]}   (sorted by rank)
//	             or  {"v":1,"op":"error","error":"…","retry":false}
//
// The server then closes the connection. A client that disconnects before
// the table is ready leaves the job, so a restarted process may join again.
// "retry":true marks errors that a client may retry later or elsewhere (a
// server restricted to another job, as a stale address file may point at).
//
// One server serves any number of jobs at once (the bundled scheduler core
// and the local target start one per job or one for all), and the first
// process of a job started without one serves its own job (StartJob).
package rendezvous

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"sort"
	"sync"
	"time"
)

// ProtocolVersion is the "v" of every message.
const ProtocolVersion = 1

// maxLine bounds a message, so that a stray client cannot make the server
// buffer without limit. A table of 10,000 peers fits easily.
const maxLine = 4 << 20

// joinReadTimeout is how long the server waits for a connection's join line.
const joinReadTimeout = 30 * time.Second

// writeTimeout bounds sending a reply to a client that stopped reading.
const writeTimeout = 30 * time.Second

// Member is one process of a job as the table lists it.
type Member struct {
	Rank      int    `json:"rank"`
	Component int    `json:"component"`
	Addr      string `json:"addr"` // host:port where the process accepts its peers
}

// Request is what a process says when it joins.
type Request struct {
	Job  string // job id (GMARK_JOB_ID); all processes of a job give the same
	Size int    // number of processes in the job
	Member
}

type message struct {
	V         int      `json:"v"`
	Op        string   `json:"op"`
	Job       string   `json:"job,omitempty"`
	Size      int      `json:"size,omitempty"`
	Rank      int      `json:"rank"`
	Component int      `json:"component"`
	Addr      string   `json:"addr,omitempty"`
	Peers     []Member `json:"peers,omitempty"`
	Error     string   `json:"error,omitempty"`
	Retry     bool     `json:"retry,omitempty"`
}

// Error is an error the server replied with.
type Error struct {
	Msg   string
	Retry bool // the client may try again later or at another address
}

func (e *Error) Error() string { return "rendezvous: " + e.Msg }

// Server is a rendezvous server.
type Server struct {
	ln   net.Listener
	only string // when set, the only job this server serves

	mu     sync.Mutex
	groups map[string]*group
	conns  map[net.Conn]struct{}
	closed bool
	wg     sync.WaitGroup
}

type group struct {
	size    int
	members map[int]*member
	table   []Member
	done    chan struct{} // closed when every rank has joined
}

type member struct {
	Member
	conn net.Conn
}

// Start listens on addr (host:port; "" means 127.0.0.1:0, an ephemeral port
// on loopback) and serves any number of jobs until Close.
func Start(addr string) (*Server, error) { return start(addr, "") }

// StartJob is Start for a server that serves only the given job and refuses
// others with a retryable error.
func StartJob(addr, job string) (*Server, error) { return start(addr, job) }

func start(addr, only string) (*Server, error) {
	if addr == "" {
		addr = "127.0.0.1:0"
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("rendezvous: %w", err)
	}
	s := &Server{ln: ln, only: only, groups: map[string]*group{}, conns: map[net.Conn]struct{}{}}
	s.wg.Add(1)
	go s.accept()
	return s, nil
}

// Addr is the address the server listens on, host:port, to pass to the
// processes in GMARK_RENDEZVOUS.
func (s *Server) Addr() string { return s.ln.Addr().String() }

// Close stops the server; processes still waiting get an error.
func (s *Server) Close() error {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return nil
	}
	s.closed = true
	err := s.ln.Close()
	for c := range s.conns {
		c.Close()
	}
	s.mu.Unlock()
	s.wg.Wait()
	return err
}

func (s *Server) accept() {
	defer s.wg.Done()
	for {
		c, err := s.ln.Accept()
		if err != nil {
			if ne, ok := err.(net.Error); ok && ne.Timeout() {
				continue
			}
			return // closed
		}
		s.mu.Lock()
		if s.closed {
			s.mu.Unlock()
			c.Close()
			return
		}
		s.conns[c] = struct{}{}
		s.wg.Add(1)
		s.mu.Unlock()
		go func() {
			defer s.wg.Done()
			s.serve(c)
			s.mu.Lock()
			delete(s.conns, c)
			s.mu.Unlock()
			c.Close()
		}()
	}
}

func (s *Server) serve(c net.Conn) {
	r := bufio.NewReaderSize(c, 4096)
	c.SetReadDeadline(time.Now().Add(joinReadTimeout))
	line, err := readLine(r)
	if err != nil {
		return
	}
	var req message
	if err := json.Unmarshal(line, &req); err != nil {
		reply(c, message{Op: "error", Error: "malformed join: " + err.Error()})
		return
	}
	if err := checkJoin(req); err != nil {
		reply(c, message{Op: "error", Error: err.Error()})
		return
	}
	if s.only != "" && req.Job != s.only {
		reply(c, message{Op: "error", Error: fmt.Sprintf("this rendezvous serves job %q, not %q", s.only, req.Job), Retry: true})
		return
	}
	g, me, err := s.join(req, c)
	if err != nil {
		reply(c, message{Op: "error", Error: err.Error()})
		return
	}
	c.SetReadDeadline(time.Time{})
	// A read returns when the client goes away (or sends something, which
	// the protocol does not allow): either way it leaves the job.
	gone := make(chan struct{})
	go func() {
		var b [1]byte
		c.Read(b[:])
		close(gone)
	}()
	select {
	case <-g.done:
		reply(c, message{Op: "table", Peers: g.table})
	case <-gone:
		s.leave(req.Job, g, me)
	}
}

func checkJoin(m message) error {
	switch {
	case m.V != ProtocolVersion:
		return fmt.Errorf("protocol version %d not supported (this server speaks %d)", m.V, ProtocolVersion)
	case m.Op != "join":
		return fmt.Errorf("expected a join, got %q", m.Op)
	case m.Size < 1:
		return fmt.Errorf("job %q: size must be >= 1, got %d", m.Job, m.Size)
	case m.Rank < 0 || m.Rank >= m.Size:
		return fmt.Errorf("job %q: rank %d out of range 0..%d", m.Job, m.Rank, m.Size-1)
	case m.Component < 0 || m.Component >= m.Size:
		return fmt.Errorf("job %q: rank %d's component %d out of range 0..%d", m.Job, m.Rank, m.Component, m.Size-1)
	case checkAddr(m.Addr) != nil:
		return fmt.Errorf("job %q: rank %d gave no address to dial: %v", m.Job, m.Rank, checkAddr(m.Addr))
	}
	return nil
}

func (s *Server) join(m message, c net.Conn) (*group, *member, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	g := s.groups[m.Job]
	if g == nil {
		g = &group{size: m.Size, members: map[int]*member{}, done: make(chan struct{})}
		s.groups[m.Job] = g
	}
	if g.size != m.Size {
		return nil, nil, fmt.Errorf("job %q: rank %d says the job has %d processes, but others said %d", m.Job, m.Rank, m.Size, g.size)
	}
	if _, dup := g.members[m.Rank]; dup {
		return nil, nil, fmt.Errorf("job %q: rank %d joined twice", m.Job, m.Rank)
	}
	me := &member{Member: Member{Rank: m.Rank, Component: m.Component, Addr: m.Addr}, conn: c}
	g.members[m.Rank] = me
	if len(g.members) == g.size {
		g.table = make([]Member, 0, g.size)
		for _, mb := range g.members {
			g.table = append(g.table, mb.Member)
		}
		sort.Slice(g.table, func(i, j int) bool { return g.table[i].Rank < g.table[j].Rank })
		delete(s.groups, m.Job) // a rerun of the job starts afresh
		close(g.done)
	}
	return g, me, nil
}

func (s *Server) leave(job string, g *group, me *member) {
	s.mu.Lock()
	defer s.mu.Unlock()
	select {
	case <-g.done:
		return
	default:
	}
	if g.members[me.Rank] == me {
		delete(g.members, me.Rank)
	}
	if len(g.members) == 0 && s.groups[job] == g {
		delete(s.groups, job)
	}
}

func reply(c net.Conn, m message) {
	m.V = ProtocolVersion
	b, _ := json.Marshal(m)
	c.SetWriteDeadline(time.Now().Add(writeTimeout))
	c.Write(append(b, '\n'))
}

func readLine(r *bufio.Reader) ([]byte, error) {
	var line []byte
	for {
		chunk, isPrefix, err := r.ReadLine()
		if err != nil {
			return nil, err
		}
		line = append(line, chunk...)
		if len(line) > maxLine {
			return nil, errors.New("line too long")
		}
		if !isPrefix {
			return line, nil
		}
	}
}

// Join registers req at the server at addr and waits until every process of
// the job has joined, or ctx ends. It returns the table, sorted by rank.
func Join(ctx context.Context, addr string, req Request) ([]Member, error) {
	var d net.Dialer
	c, err := d.DialContext(ctx, "tcp", addr)
	if err != nil {
		return nil, err
	}
	defer c.Close()
	stop := context.AfterFunc(ctx, func() { c.SetDeadline(time.Now()) })
	defer stop()
	msg := message{V: ProtocolVersion, Op: "join", Job: req.Job, Size: req.Size,
		Rank: req.Rank, Component: req.Component, Addr: req.Addr}
	b, _ := json.Marshal(msg)
	if _, err := c.Write(append(b, '\n')); err != nil {
		return nil, ctxErr(ctx, err)
	}
	line, err := readLine(bufio.NewReader(c))
	if err != nil {
		return nil, ctxErr(ctx, fmt.Errorf("rendezvous at %s closed the connection before the table was complete: %w", addr, err))
	}
	var resp message
	if err := json.Unmarshal(line, &resp); err != nil {
		return nil, fmt.Errorf("rendezvous at %s sent a malformed reply: %w", addr, err)
	}
	switch {
	case resp.V != ProtocolVersion:
		return nil, fmt.Errorf("rendezvous at %s speaks protocol version %d, not %d", addr, resp.V, ProtocolVersion)
	case resp.Op == "error":
		return nil, &Error{Msg: resp.Error, Retry: resp.Retry}
	case resp.Op != "table":
		return nil, fmt.Errorf("rendezvous at %s sent %q, not a table", addr, resp.Op)
	}
	if len(resp.Peers) != req.Size {
		return nil, fmt.Errorf("rendezvous at %s sent a table of %d processes for a job of %d", addr, len(resp.Peers), req.Size)
	}
	for i, m := range resp.Peers {
		if m.Rank != i {
			return nil, fmt.Errorf("rendezvous at %s sent a table without rank %d", addr, i)
		}
		if err := checkAddr(m.Addr); err != nil {
			return nil, fmt.Errorf("rendezvous at %s sent a table whose rank %d has %v", addr, i, err)
		}
		if m.Component < 0 || m.Component >= req.Size {
			return nil, fmt.Errorf("rendezvous at %s sent a table whose rank %d is in component %d of a job of %d processes", addr, i, m.Component, req.Size)
		}
	}
	return resp.Peers, nil
}

// ctxErr prefers ctx's error to the I/O error its cancellation caused.
func ctxErr(ctx context.Context, err error) error {
	if ctx.Err() != nil {
		return ctx.Err()
	}
	return err
}
