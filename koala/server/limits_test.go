package server

import (
	"bufio"
	"errors"
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
		{"half a header", "GET /v1/health HTTP/1.1\r\nHost: x\r\nX-Slow:", ""},
		{"half a body", "POST /v1/jobs HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer " + token +
			"\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{\"job\":", ""},
		{"half a body on a small route", "POST /v1/clusters/fs0/local-jobs HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer " + token +
			"\r\nContent-Length: 100\r\n\r\n{\"size\"", ""},
		{"idle keep-alive", "GET /v1/health HTTP/1.1\r\nHost: x\r\n\r\n", "HTTP/1.1 200"},
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

// More connections than the cap: the extra one is not served while the cap
// is held, and is served as soon as a connection is freed.
func TestConnectionCap(t *testing.T) {
	l := testLimits
	l.MaxConns = 2
	l.ReadHeaderTimeout = time.Hour // the held connections stay held until the test closes them
	l.ReadTimeout, l.IdleTimeout = time.Hour, time.Hour
	hs, _, _ := startWith(t, "", 1000, l)
	held := []net.Conn{dial(t, hs, hs.URL), dial(t, hs, hs.URL)}
	for _, c := range held { // each holds a slot: a request in flight, half sent
		if _, err := io.WriteString(c, "GET /v1/health HTTP/1.1\r\n"); err != nil {
			t.Fatal(err)
		}
	}
	extra := dial(t, hs, hs.URL)
	if _, err := io.WriteString(extra, "GET /v1/health HTTP/1.1\r\nHost: x\r\n\r\n"); err != nil {
		t.Fatal(err)
	}
	_ = extra.SetReadDeadline(time.Now().Add(500 * time.Millisecond))
	if n, err := extra.Read(make([]byte, 1)); !errors.Is(err, os.ErrDeadlineExceeded) {
		t.Fatalf("a connection beyond the cap was served: %d bytes, %v", n, err)
	}
	held[0].Close()
	_ = extra.SetReadDeadline(time.Now().Add(bound))
	resp, err := http.ReadResponse(bufio.NewReader(extra), nil)
	if err != nil {
		t.Fatalf("the waiting connection was not served once a slot was freed: %v", err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Errorf("status %d", resp.StatusCode)
	}
}

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
	resp, err := http.Get(hs.URL + "/v1/events?since=now")
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
	if _, err := io.WriteString(stalled, "GET /v1/events?since=now HTTP/1.1\r\nHost: x\r\n\r\n"); err != nil {
		t.Fatal(err)
	}
	waitStreams(2)
	payload := []byte(`"` + strings.Repeat("x", 64<<10) + `"`)
	for i := 0; i < 400; i++ { // 25 MiB, more than loopback buffers hold
		srv.stream.publish(uint64(1_000_000+i), payload)
	}
	waitStreams(1)

	// A client that goes away.
	gone := dial(t, hs, hs.URL)
	if _, err := io.WriteString(gone, "GET /v1/events?since=now HTTP/1.1\r\nHost: x\r\n\r\n"); err != nil {
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
