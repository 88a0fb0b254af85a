package server

import (
	"bufio"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"
)

// No local client can lock the others out of the core: not with event
// streams held open without the token, nor with idle connections, nor with
// more streams than their cap while it holds the token. Each phase opens
// 600 connections, more than the 512 the server serves at once; then a new
// client's health check and submission must be answered. The bound is a
// liveness bound, far above the time they take (logged), not a speed
// measurement.

// answerBound is how long a new client waits for its answer.
const answerBound = 10 * time.Second

// holdConns opens n raw connections that each send req and then hold the
// connection without reading.
func holdConns(t *testing.T, addr string, n int, req string) []net.Conn {
	t.Helper()
	conns := make([]net.Conn, 0, n)
	for range n {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatalf("connection %d: %v", len(conns)+1, err)
		}
		t.Cleanup(func() { c.Close() })
		if _, err := io.WriteString(c, req); err != nil {
			t.Fatal(err)
		}
		conns = append(conns, c)
	}
	return conns
}

// stillServed checks that a new client's health check and submission are
// answered, and logs how long they took.
func stillServed(t *testing.T, base, phase string) {
	t.Helper()
	id := strings.Fields(phase)[0] + "-" + strings.Join(strings.Fields(phase)[1:], "-")
	client := &http.Client{Timeout: answerBound, Transport: &http.Transport{}}
	defer client.CloseIdleConnections()
	for _, r := range []struct {
		method, path, body string
		want               int
	}{
		{"GET", "/v1/health", "", http.StatusOK},
		{"POST", "/v1/jobs", submitBody(id, 1, time.Second, "lockout/"+id), http.StatusCreated},
	} {
		req, _ := http.NewRequest(r.method, base+r.path, strings.NewReader(r.body))
		req.Header.Set("Authorization", "Bearer "+token)
		req.Header.Set("Content-Type", "application/json")
		t0 := time.Now()
		resp, err := client.Do(req)
		took := time.Since(t0)
		if err != nil {
			t.Fatalf("%s: %s %s not answered within %v: %v", phase, r.method, r.path, answerBound, err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != r.want {
			t.Fatalf("%s: %s %s: %d %s", phase, r.method, r.path, resp.StatusCode, b)
		}
		t.Logf("%s: %s %s answered in %v", phase, r.method, r.path, took.Round(time.Millisecond))
	}
}

// statusOf reads the status line of what the server sent on c.
func statusOf(c net.Conn) string {
	_ = c.SetReadDeadline(time.Now().Add(bound))
	line, _ := bufio.NewReader(c).ReadString('\n')
	return strings.TrimSpace(line)
}

func TestNoClientLocksTheOthersOut(t *testing.T) {
	hs, srv, _ := startWith(t, "", 1000, HTTPLimits{}) // the defaults: 512 connections
	addr := strings.TrimPrefix(hs.URL, "http://")
	const n = 600

	// 1. Event streams without the token: each refused (401), its
	// connection closed.
	conns := holdConns(t, addr, n, "GET /v1/events?since=0 HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
	stillServed(t, hs.URL, "600 streams without the token")
	refused := 0
	for _, c := range conns {
		if strings.HasPrefix(statusOf(c), "HTTP/1.1 401") {
			refused++
		}
		c.Close()
	}
	if refused != n {
		t.Errorf("%d of %d event streams without the token refused", refused, n)
	}

	// 2. Idle keep-alive connections, after an answered request each: at
	// the cap, the idle ones give their places.
	conns = holdConns(t, addr, n, "GET /v1/health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
	time.Sleep(2 * reclaimAfterForTests) // all answered and idle: reclaimable
	stillServed(t, hs.URL, "600 idle connections")
	for _, c := range conns {
		c.Close()
	}

	// 3. Event streams with the token: at most the stream cap held, the
	// others refused (503), and room left for the rest.
	conns = holdConns(t, addr, n, "GET /v1/events?since=0 HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer "+token+"\r\n\r\n")
	stillServed(t, hs.URL, "600 streams with the token")
	var mu sync.Mutex
	codes := map[string]int{}
	var wg sync.WaitGroup
	for _, c := range conns {
		wg.Go(func() {
			code, _, _ := strings.Cut(strings.TrimPrefix(statusOf(c), "HTTP/1.1 "), " ")
			mu.Lock()
			codes[code]++
			mu.Unlock()
		})
	}
	wg.Wait()
	most := DefaultHTTPLimits.StreamCap()
	if codes["200"] != most || codes["503"] != n-most {
		t.Errorf("600 streams with the token: %v, want %d served and the rest 503", codes, most)
	}
	if got := srv.streams.Load(); got > int64(most) {
		t.Errorf("%d streams served at once, more than %d", got, most)
	}
}
