package readlimit

import (
	"errors"
	"io/fs"
	"net"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

func TestFile(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "f")
	if err := os.WriteFile(p, []byte("12345"), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		path string
		max  int
		want string
		err  error
	}{
		{p, 5, "12345", nil},
		{p, 100, "12345", nil},
		{p, 4, "", ErrTooLarge},
		{"/dev/zero", 1 << 10, "", ErrNotRegular},
		{filepath.Join(dir, "missing"), 10, "", os.ErrNotExist},
	}
	for _, tc := range tests {
		b, err := File(tc.path, tc.max)
		if string(b) != tc.want || !errors.Is(err, tc.err) || (tc.err == nil) != (err == nil) {
			t.Errorf("File(%s, %d) = %q, %v; want %q, %v", tc.path, tc.max, b, err, tc.want, tc.err)
		}
		if err != nil && !strings.Contains(err.Error(), tc.path) {
			t.Errorf("File(%s, %d): %v does not name the file", tc.path, tc.max, err)
		}
	}
}

// specialFiles makes, in dir, one path of each kind that is not a regular
// file; the values are what the error says it is.
func specialFiles(t *testing.T, dir string) map[string]string {
	t.Helper()
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	loop := filepath.Join(dir, "loop")
	if err := os.Symlink("loop", loop); err != nil {
		t.Fatal(err)
	}
	toZero := filepath.Join(dir, "zero")
	if err := os.Symlink("/dev/zero", toZero); err != nil {
		t.Fatal(err)
	}
	sock := filepath.Join(dir, "sock")
	ln, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	sub := filepath.Join(dir, "sub")
	if err := os.Mkdir(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	return map[string]string{
		fifo:        "a FIFO (named pipe)",
		loop:        "a loop of symbolic links",
		toZero:      "a character device",
		"/dev/zero": "a character device",
		sock:        "a socket",
		sub:         "a directory",
	}
}

// Every path that is not a regular file is refused by its mode, before
// anything is read: a FIFO without a writer does not block Open (it
// blocked in open(2)), /dev/zero does not fill File's bound. The error
// names the path and what it is.
func TestSpecialFilesRefused(t *testing.T) {
	dir := t.TempDir()
	for path, what := range specialFiles(t, dir) {
		want := "open " + path + ": " + what + ", not a regular file"
		f, err := Open(path)
		if err == nil {
			f.Close()
		}
		_, ferr := File(path, 1<<20)
		for name, err := range map[string]error{"Check": Check(path), "CheckIfExists": CheckIfExists(path), "Open": err, "File": ferr} {
			if !errors.Is(err, ErrNotRegular) || !IsInput(err) || err.Error() != want {
				t.Errorf("%s(%s) = %v, want %s", name, path, err, want)
			}
			var pe *fs.PathError
			if !errors.As(err, &pe) || pe.Path != path {
				t.Errorf("%s(%s): %v is not a *fs.PathError of the path", name, path, err)
			}
		}
	}
	missing := filepath.Join(dir, "missing")
	if err := CheckIfExists(missing); err != nil {
		t.Errorf("CheckIfExists(missing) = %v, want nil", err)
	}
	if err := Check(missing); !errors.Is(err, fs.ErrNotExist) || IsInput(err) {
		t.Errorf("Check(missing) = %v, want not-exist", err)
	}
	p := filepath.Join(dir, "regular")
	if err := os.WriteFile(p, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "link")
	if err := os.Symlink("regular", link); err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{p, link} {
		if err := Check(q); err != nil {
			t.Errorf("Check(%s) = %v", q, err)
		}
		if b, err := File(q, 1); string(b) != "x" || err != nil {
			t.Errorf("File(%s) = %q, %v", q, b, err)
		}
	}
	if _, err := File(p, 0); !errors.Is(err, ErrTooLarge) || err.Error() != "read "+p+": larger than 0 bytes" {
		t.Errorf("File(%s, 0) = %v", p, err)
	}
}
