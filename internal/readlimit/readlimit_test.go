package readlimit

import (
	"errors"
	"os"
	"path/filepath"
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
		{"/dev/zero", 1 << 10, "", ErrTooLarge},
		{filepath.Join(dir, "missing"), 10, "", os.ErrNotExist},
	}
	for _, tc := range tests {
		b, err := File(tc.path, tc.max)
		if string(b) != tc.want || !errors.Is(err, tc.err) || (tc.err == nil) != (err == nil) {
			t.Errorf("File(%s, %d) = %q, %v; want %q, %v", tc.path, tc.max, b, err, tc.want, tc.err)
		}
	}
}
