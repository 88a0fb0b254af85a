package celrm

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// The jobs' directories are writable by the CEs' mapped accounts: a
// .submit file the sweep reads may be anything. A regular file of the
// core's user is read (at most maxSubmitFile of it); a FIFO, a link (to
// /dev/zero, or to a real file), a directory and a file another user owns
// are refused at once, without blocking.
func TestReadSubmitFileRefusesSpecialFiles(t *testing.T) {
	dir := t.TempDir()
	regular := filepath.Join(dir, "regular.submit")
	if err := os.WriteFile(regular, []byte("https://localhost:1/2/3/\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	big := filepath.Join(dir, "big.submit")
	if err := os.WriteFile(big, []byte(strings.Repeat("x", 2*maxSubmitFile)), 0o644); err != nil {
		t.Fatal(err)
	}
	fifo := filepath.Join(dir, "fifo.submit")
	if err := syscall.Mkfifo(fifo, 0o666); err != nil {
		t.Fatal(err)
	}
	zero := filepath.Join(dir, "zero.submit")
	if err := os.Symlink("/dev/zero", zero); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "link.submit")
	if err := os.Symlink(regular, link); err != nil {
		t.Fatal(err)
	}
	sub := filepath.Join(dir, "dir.submit")
	if err := os.Mkdir(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	foreign := filepath.Join(dir, "foreign.submit")
	if err := os.WriteFile(foreign, []byte("https://localhost:1/2/4/\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	owned := os.Getuid() == 0 && os.Chown(foreign, 65534, 65534) == nil // only root can give a file away
	type readCase struct {
		path  string
		ok    bool
		bytes int
	}
	cases := []readCase{
		{regular, true, 25},
		{big, true, maxSubmitFile},
		{fifo, false, 0},
		{zero, false, 0},
		{link, false, 0},
		{sub, false, 0},
		{filepath.Join(dir, "missing.submit"), false, 0},
	}
	if owned {
		cases = append(cases, readCase{foreign, false, 0})
	} else {
		t.Log("not root: the case of a file another user owns is left out")
	}
	for _, tc := range cases {
		t.Run(filepath.Base(tc.path), func(t *testing.T) {
			done := make(chan struct{})
			var b []byte
			var err error
			go func() { b, err = readSubmitFile(tc.path); close(done) }()
			select {
			case <-done:
			case <-time.After(10 * time.Second):
				t.Fatal("readSubmitFile blocked")
			}
			if (err == nil) != tc.ok || len(b) != tc.bytes {
				t.Errorf("%d bytes, %v; want ok %v, %d bytes", len(b), err, tc.ok, tc.bytes)
			}
		})
	}
}
