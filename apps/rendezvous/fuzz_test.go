package rendezvous

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// FuzzServe sends any line to a running server as a process joining would.
// Whatever it is, the server answers with at most one line, and that line
// is a message of the protocol: an error that says what is wrong, or a
// table of the job's processes in rank order. The server survives it.
func FuzzServe(f *testing.F) {
	s, err := Start("")
	if err != nil {
		f.Fatal(err)
	}
	f.Cleanup(func() { s.Close() })
	for _, l := range []string{
		`{"v":1,"op":"join","job":"j","size":1,"rank":0,"addr":"127.0.0.1:1"}`,
		`{"v":1,"op":"join","job":"j","size":2,"rank":1,"component":1,"addr":"h:2"}`,
		`{"v":1,"op":"join","job":"j","size":2,"rank":2,"addr":"h:2"}`,
		`{"v":2,"op":"join"}`, `{"v":1,"op":"leave"}`, `{"v":1,"op":"join","size":-1}`, `[1]`, "", "\x00",
	} {
		f.Add([]byte(l))
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		c, err := net.Dial("tcp", s.Addr())
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		c.SetDeadline(time.Now().Add(10 * time.Second))
		if _, err := c.Write(append(line, '\n')); err != nil {
			t.Fatal(err)
		}
		c.(*net.TCPConn).CloseWrite() // then a join waiting for others leaves
		b, err := io.ReadAll(c)
		if err != nil {
			t.Fatalf("%q: %v", line, err)
		}
		if len(b) == 0 {
			return // a join that waited for the job's other processes, and left
		}
		if strings.Count(string(b), "\n") != 1 || b[len(b)-1] != '\n' {
			t.Fatalf("%q: answered %q, not one line", line, b)
		}
		var m message
		if err := json.Unmarshal(b, &m); err != nil || m.V != ProtocolVersion {
			t.Fatalf("%q: answered %q (%v)", line, b, err)
		}
		switch m.Op {
		case "error":
			if m.Error == "" {
				t.Fatalf("%q: an error without a message", line)
			}
		case "table":
			for i, p := range m.Peers {
				if p.Rank != i || p.Addr == "" {
					t.Fatalf("%q: table %+v", line, m.Peers)
				}
			}
		default:
			t.Fatalf("%q: answered %q", line, b)
		}
	})
}

// FuzzJoin: a process joining reads any reply of a server without a
// panic; a table it accepts has one process per rank of the job, in rank
// order, each with an address it can dial and a component that exists.
func FuzzJoin(f *testing.F) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		f.Fatal(err)
	}
	f.Cleanup(func() { ln.Close() })
	replies := make(chan []byte, 1)
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			reply := <-replies
			bufio.NewReader(c).ReadBytes('\n')
			c.Write(reply)
			c.Close()
		}
	}()
	for _, r := range []string{
		`{"v":1,"op":"table","peers":[{"rank":0,"component":0,"addr":"127.0.0.1:5"},{"rank":1,"component":0,"addr":"127.0.0.1:6"}]}`,
		// A table of processes without an address to dial, or in a
		// component that does not exist, was accepted.
		`{"v":1,"op":"table","peers":[{"rank":0,"addr":""},{"rank":1,"component":-3,"addr":"x"}]}`,
		`{"v":1,"op":"error","error":"job \"j\": rank 1 joined twice","retry":true}`,
		`{"v":1,"op":"table","peers":[{"rank":1},{"rank":0}]}`, `{"v":3}`, `nope`, ``,
	} {
		f.Add([]byte(r+"\n"), 2)
	}
	f.Fuzz(func(t *testing.T, reply []byte, size int) {
		if size < 1 || size > 64 {
			return
		}
		replies <- reply
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		table, err := Join(ctx, ln.Addr().String(), Request{Job: "j", Size: size, Member: Member{Rank: 0, Addr: "127.0.0.1:1"}})
		if err != nil {
			if !strings.HasPrefix(err.Error(), "rendezvous") {
				t.Fatalf("%q: error %q does not say it is the rendezvous's", reply, err)
			}
			return
		}
		if len(table) != size {
			t.Fatalf("%q: %d processes for %d", reply, len(table), size)
		}
		for i, m := range table {
			if _, _, err := net.SplitHostPort(m.Addr); m.Rank != i || err != nil || m.Component < 0 || m.Component >= size {
				t.Fatalf("%q: accepted %+v", reply, m)
			}
		}
	})
}

// FuzzLookup: a rendezvous file holds one address; whatever it holds,
// Lookup gives a host:port or an error naming the file.
func FuzzLookup(f *testing.F) {
	// An empty file, or one of several words, was taken for an address
	// ("" for a file that exists: "does not exist yet").
	for _, s := range []string{"127.0.0.1:4000\n", "[::1]:9\r\n", "", "a b\n", "x\n127.0.0.1:1\n", "\x00"} {
		f.Add([]byte(s))
	}
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, b []byte) {
		path := filepath.Join(dir, "rdv")
		if err := os.WriteFile(path, b, 0o644); err != nil {
			t.Fatal(err)
		}
		addr, err := Lookup(path)
		if err != nil {
			if !strings.Contains(err.Error(), path) {
				t.Fatalf("%q: error %q does not name the file", b, err)
			}
			return
		}
		if addr == "" {
			t.Fatalf("%q: an empty address for a file that exists", b)
		}
		if _, _, err := net.SplitHostPort(addr); err != nil || strings.ContainsAny(addr, " \t\r\n") {
			t.Fatalf("%q: accepted address %q", b, addr)
		}
	})
}
