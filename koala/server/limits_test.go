package server

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"strings"
	"testing"
	"time"
)

// Slow and idle clients are cut off, and no more than
// MaxConns connections are served at once. Every test talks to a real
// loopback listener with raw TCP, as a misbehaving client would; each read
// is bounded by a deadline far above the limit under test, so that a client
// the server forgot shows up as a timeout of the test's own deadline.

// testLimits are short limits, so that the cut-offs come quickly.
var testLimits = HTTPLimits{
	ReadHeaderTimeout: 300 * time.Millisecond,
	ReadTimeout:       300 * time.Millisecond,
	WriteTimeout:      300 * time.Millisecond,
	IdleTimeout:       300 * time.Millisecond,
	MaxConns:          8,
	StreamKeepAlive:   100 * time.Millisecond,
}

// bound is how long a test waits for the server to act: far above every
// limit above.
const bound = 20 * time.Second

func dial(t *testing.T, hs interface{ Close() }, url string) net.Conn {
	t.Helper()
	c, err := net.Dial("tcp", strings.TrimPrefix(url, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// readToEOF reads what the server sends until it closes the connection; it
// fails the test when the server still holds the connection after bound.
func readToEOF(t *testing.T, c net.Conn) string {
	t.Helper()
	_ = c.SetReadDeadline(time.Now().Add(bound))
	b, err := io.ReadAll(c)
	if errors.Is(err, os.ErrDeadlineExceeded) {
		t.Fatalf("the server still held the connection after %v (read %q)", bound, b)
	}
	return string(b) // a reset (ECONNRESET) also ends the connection
}

func TestSlowClientsAreCutOff(t *testing.T) {
	hs, _, _ := startWith(t, "", 1000, testLimits)
	cases := []struct {
		name string
		send string // then the client stalls
		want string // the start of what the server answers before it closes (""; anything, or nothing)
	}{
		{"half a header", "GET /v1/health HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow:", ""},
		{"half a body", "POST /v1/jobs HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer " + token +
			"\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{\"job\":", ""},
		{"half a body on a small route", "POST /v1/clusters/fs0/local-jobs HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer " + token +
			"\r\nContent-Length: 100\r\n\r\n{\"size\"", ""},
		{"idle keep-alive", "GET /v1/health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n", "HTTP/1.1 200"},
		{"nothing at all", "", ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := dial(t, hs, hs.URL)
			if _, err := io.WriteString(c, tc.send); err != nil {
				t.Fatal(err)
			}
			got := readToEOF(t, c)
			if !strings.HasPrefix(got, tc.want) {
				t.Errorf("the server answered %q, want %q", got, tc.want)
			}
		})
	}
	// The submission cut off half-way was not accepted.
	if code, body := request(t, "GET", hs.URL+"/v1/jobs", "", "", false); code != http.StatusOK || strings.TrimSpace(string(body)) != "[]" {
		t.Errorf("jobs after the cut-offs: %d %s", code, body)
	}
}

// More connections than the cap: a connection that does nothing (silent
// since it was accepted, or idle between requests) gives its place to a
// new one; while every connection serves a request, the new one waits, and
// is served as soon as one is freed.
func TestConnectionCap(t *testing.T) {
	l := testLimits
	l.MaxConns = 4
	l.ReadHeaderTimeout = time.Hour // the held connections stay held until the test closes them
	l.ReadTimeout, l.IdleTimeout = time.Hour, time.Hour
	hs, _, _ := startWith(t, "", 1000, l)
	health := "GET /v1/health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"
	served := func(c net.Conn, within time.Duration) error {
		_ = c.SetReadDeadline(time.Now().Add(within))
		resp, err := http.ReadResponse(bufio.NewReader(c), nil)
		if err != nil {
			return err
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			return fmt.Errorf("status %d", resp.StatusCode)
		}
		return nil
	}

	// Silent connections (half a request line, for an hour) fill the cap:
	// a new one is served all the same, in the place of one of them.
	var silent []net.Conn
	for range l.MaxConns {
		c := dial(t, hs, hs.URL)
		if _, err := io.WriteString(c, "GET /v1/health HTTP/1.1\r\n"); err != nil {
			t.Fatal(err)
		}
		silent = append(silent, c)
	}
	extra := dial(t, hs, hs.URL)
	io.WriteString(extra, health)
	if err := served(extra, bound); err != nil {
		t.Fatalf("a connection beyond a cap of silent ones: %v", err)
	}
	closed := 0
	for _, c := range silent {
		_ = c.SetReadDeadline(time.Now().Add(100 * time.Millisecond))
		if _, err := c.Read(make([]byte, 1)); !errors.Is(err, os.ErrDeadlineExceeded) {
			closed++
		}
		c.Close()
	}
	if closed != 1 {
		t.Errorf("%d silent connections closed for one new one", closed)
	}
	extra.Close()

	// Connections serving requests (submissions sending their bodies, for
	// an hour) fill the cap: a new one waits past the second after which a
	// silent one would have been closed, and is served once one is freed.
	var busy []net.Conn
	for range l.MaxConns {
		c := dial(t, hs, hs.URL)
		if _, err := io.WriteString(c, "POST /v1/jobs HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer "+token+
			"\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{\"job\":"); err != nil {
			t.Fatal(err)
		}
		busy = append(busy, c)
	}
	time.Sleep(100 * time.Millisecond) // every one is being read
	waiting := dial(t, hs, hs.URL)
	io.WriteString(waiting, health)
	if err := served(waiting, 3*reclaimAfterForTests); !errors.Is(err, os.ErrDeadlineExceeded) {
		t.Fatalf("a connection beyond a cap of busy ones was served, one of them closed for it: %v", err)
	}
	busy[0].Close()
	if err := served(waiting, bound); err != nil {
		t.Fatalf("the waiting connection was not served once a slot was freed: %v", err)
	}
	for _, c := range busy[1:] { // still held
		_ = c.SetReadDeadline(time.Now().Add(100 * time.Millisecond))
		if _, err := c.Read(make([]byte, 1)); !errors.Is(err, os.ErrDeadlineExceeded) {
			t.Errorf("a connection serving a request was closed: %v", err)
		}
	}
}

// reclaimAfterForTests is httpapi's reclaimAfter (a second).
const reclaimAfterForTests = time.Second

// The event stream stays open past the read and write timeouts, but a
// client that stops reading, or goes away, is dropped.
func TestEventStreamOutlivesTimeoutsButNotDeadClients(t *testing.T) {
	hs, srv, _ := startWith(t, "", 1000, testLimits)
	waitStreams := func(want int64) {
		t.Helper()
		deadline := time.Now().Add(bound)
		for srv.streams.Load() != want {
			if time.Now().After(deadline) {
				t.Fatalf("%d event streams open, want %d", srv.streams.Load(), want)
			}
			time.Sleep(10 * time.Millisecond)
		}
	}
	// A live client: reads the stream, and still gets an event submitted
	// well after every timeout has passed.
	req, _ := http.NewRequest("GET", hs.URL+"/v1/events?since=now", nil)
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	// The client reads all the time (a client that stops reading is cut
	// off, below) and signals each "submitted" event.
	submitted, ended := make(chan struct{}, 1), make(chan struct{})
	go func() {
		defer close(ended)
		sc := bufio.NewScanner(resp.Body)
		sc.Buffer(make([]byte, 1<<20), 1<<20) // the big events below
		for sc.Scan() {
			if strings.Contains(sc.Text(), `"kind":"submitted"`) {
				select {
				case submitted <- struct{}{}:
				default:
				}
			}
		}
	}()
	waitStreams(1)
	<-time.After(4 * testLimits.WriteTimeout) // past the read and write timeouts
	if code, body := request(t, "POST", hs.URL+"/v1/jobs", submitBody("late", 1, time.Second, "late"), "application/json", true); code != http.StatusCreated {
		t.Fatalf("submit: %d %s", code, body)
	}
	select {
	case <-submitted:
	case <-ended:
		t.Fatal("the server closed a live event stream")
	case <-time.After(bound):
		t.Fatal("no event on the live stream")
	}
	waitStreams(1)

	// A client that never reads: once its socket buffers are full, the
	// next write times out and the server lets it go.
	stalled := dial(t, hs, hs.URL)
	if _, err := io.WriteString(stalled, "GET /v1/events?since=now HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer "+token+"\r\n\r\n"); err != nil {
		t.Fatal(err)
	}
	// The stream is counted as it starts and subscribed a moment later
	// (after a read of the store): the events published below must reach
	// it, so wait until it is subscribed (at load 40 it was not yet, got
	// none of them, and stayed open on its keep-alives).
	waitStreams(2)
	for deadline := time.Now().Add(bound); srv.stream.subscribers() != 2; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("%d event streams subscribed, want 2", srv.stream.subscribers())
		}
	}
	payload := []byte(`"` + strings.Repeat("x", 64<<10) + `"`)
	for i := 0; i < 400; i++ { // 25 MiB, more than loopback buffers hold
		srv.stream.publish(uint64(1_000_000+i), payload)
	}
	waitStreams(1)

	// A client that goes away.
	gone := dial(t, hs, hs.URL)
	if _, err := io.WriteString(gone, "GET /v1/events?since=now HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer "+token+"\r\n\r\n"); err != nil {
		t.Fatal(err)
	}
	waitStreams(2)
	gone.Close()
	waitStreams(1)
}

// Every route caps its body: 413 with a JSON error.
func TestBodyLimits(t *testing.T) {
	hs, _, _ := start(t, "")
	cases := []struct {
		path string
		size int
	}{
		{"/v1/jobs", MaxSubmitBody + 1},
		{"/v1/clusters/fs0/down", MaxOtherBody + 1},
		{"/v1/clusters/fs0/local-jobs", MaxOtherBody + 1},
	}
	for _, tc := range cases {
		body := `{"reason":"` + strings.Repeat("x", tc.size) + `"}`
		code, resp := request(t, "POST", hs.URL+tc.path, body, "application/json", true)
		if code != http.StatusRequestEntityTooLarge || !strings.Contains(string(resp), `"error"`) {
			t.Errorf("POST %s with %d bytes: %d %.200s", tc.path, len(body), code, resp)
		}
	}
}

// subscribers is how many event streams the broadcaster feeds.
func (b *broadcaster) subscribers() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return len(b.subs)
}
