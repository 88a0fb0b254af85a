package rendezvous

import (
	"context"
	"errors"
	"fmt"
	"net"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

func startServer(t *testing.T) *Server {
	t.Helper()
	s, err := Start("")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	if !strings.HasPrefix(s.Addr(), "127.0.0.1:") {
		t.Fatalf("server listens on %s, want loopback", s.Addr())
	}
	return s
}

func joinAll(ctx context.Context, addr, job string, size int) ([][]Member, []error) {
	tables := make([][]Member, size)
	errs := make([]error, size)
	var wg sync.WaitGroup
	for r := size - 1; r >= 0; r-- {
		wg.Go(func() {
			tables[r], errs[r] = Join(ctx, addr, Request{Job: job, Size: size,
				Member: Member{Rank: r, Component: r / 2, Addr: fmt.Sprintf("10.0.0.%d:1", r)}})
		})
	}
	wg.Wait()
	return tables, errs
}

func TestJoinGivesEveryoneTheTable(t *testing.T) {
	s := startServer(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	// Two jobs at once on one server, and the first job again afterwards.
	var wg sync.WaitGroup
	for _, job := range []string{"a", "b"} {
		wg.Go(func() {
			tables, errs := joinAll(ctx, s.Addr(), job, 5)
			for r := range tables {
				if errs[r] != nil {
					t.Errorf("job %s rank %d: %v", job, r, errs[r])
					continue
				}
				for i, m := range tables[r] {
					if m.Rank != i || m.Component != i/2 || m.Addr != fmt.Sprintf("10.0.0.%d:1", i) {
						t.Errorf("job %s rank %d: table entry %d is %+v", job, r, i, m)
					}
				}
			}
		})
	}
	wg.Wait()
	if _, errs := joinAll(ctx, s.Addr(), "a", 2); errs[0] != nil || errs[1] != nil {
		t.Errorf("rerun of job a: %v", errs)
	}
}

func TestJoinRefusals(t *testing.T) {
	s := startServer(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	// rank 0 waits for the job of 3; the second joiner disagrees on the size,
	// the third repeats rank 0.
	done := make(chan error, 1)
	go func() {
		_, err := Join(ctx, s.Addr(), Request{Job: "j", Size: 3, Member: Member{Rank: 0, Addr: "x:1"}})
		done <- err
	}()
	waitPending(t, s, "j", 1)
	cases := []struct {
		req  Request
		want string
	}{
		{Request{Job: "j", Size: 4, Member: Member{Rank: 1, Addr: "x:2"}}, "has 4 processes, but others said 3"},
		{Request{Job: "j", Size: 3, Member: Member{Rank: 0, Addr: "x:2"}}, "rank 0 joined twice"},
		{Request{Job: "j", Size: 3, Member: Member{Rank: 3, Addr: "x:2"}}, "rank 3 out of range 0..2"},
		{Request{Job: "j", Size: 3, Member: Member{Rank: 1}}, "gave no address"},
	}
	for _, c := range cases {
		_, err := Join(ctx, s.Addr(), c.req)
		var re *Error
		if !errors.As(err, &re) || re.Retry || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: got %v, want a final error containing %q", c.req, err, c.want)
		}
	}
	s.Close()
	if err := <-done; err == nil {
		t.Error("a waiting process got no error when the server closed")
	}
}

func TestLeaverCanRejoin(t *testing.T) {
	s := startServer(t)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		_, err := Join(ctx, s.Addr(), Request{Job: "j", Size: 2, Member: Member{Rank: 0, Addr: "x:1"}})
		done <- err
	}()
	waitPending(t, s, "j", 1)
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled join: %v", err)
	}
	waitPending(t, s, "j", 0)
	ctx2, cancel2 := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel2()
	if _, errs := joinAll(ctx2, s.Addr(), "j", 2); errs[0] != nil || errs[1] != nil {
		t.Fatalf("rejoin: %v", errs)
	}
}

func TestRestrictedServerAndFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "rdv")
	other, err := StartJob("", "other-job")
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	// A stale file pointing at another job's server: readers must retry
	// until the right address is published.
	if err := Publish(path, other.Addr()); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	errs := make(chan error, 1)
	go func() {
		_, err := JoinFile(ctx, path, Request{Job: "mine", Size: 2, Member: Member{Rank: 1, Addr: "x:2"}}, 10*time.Millisecond)
		errs <- err
	}()
	time.Sleep(50 * time.Millisecond) // let it meet the stale address
	mine, err := StartJob("", "mine")
	if err != nil {
		t.Fatal(err)
	}
	defer mine.Close()
	if err := Publish(path, mine.Addr()); err != nil {
		t.Fatal(err)
	}
	if _, err := Join(ctx, mine.Addr(), Request{Job: "mine", Size: 2, Member: Member{Rank: 0, Addr: "x:1"}}); err != nil {
		t.Fatal(err)
	}
	if err := <-errs; err != nil {
		t.Fatal(err)
	}
}

func TestGarbageDoesNotHurt(t *testing.T) {
	s := startServer(t)
	c, err := net.Dial("tcp", s.Addr())
	if err != nil {
		t.Fatal(err)
	}
	fmt.Fprintf(c, "GET / HTTP/1.0\r\n\r\n")
	buf := make([]byte, 512)
	n, _ := c.Read(buf)
	c.Close()
	if !strings.Contains(string(buf[:n]), `"op":"error"`) {
		t.Fatalf("reply to garbage: %q", buf[:n])
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if _, errs := joinAll(ctx, s.Addr(), "j", 3); errs[0] != nil {
		t.Fatal(errs)
	}
}

// waitPending waits until job has n members waiting at s.
func waitPending(t *testing.T, s *Server, job string, n int) {
	t.Helper()
	for range 3000 {
		s.mu.Lock()
		got := 0
		if g := s.groups[job]; g != nil {
			got = len(g.members)
		}
		s.mu.Unlock()
		if got == n {
			return
		}
		time.Sleep(time.Millisecond)
	}
	t.Fatalf("job %s never had %d members waiting", job, n)
}
