package report

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestCleanCommand(t *testing.T) {
	for _, c := range []struct {
		in   []string
		want []string
	}{
		{nil, nil},
		{[]string{}, []string{}},
		{[]string{"gmark", "report"}, []string{"gmark", "report"}},
		{[]string{"./gmark", "report", "--db", "/tmp/x.db"}, []string{"gmark", "report", "--db", "/tmp/x.db"}},
		{[]string{"/usr/local/bin/gmark"}, []string{"gmark"}},
		{[]string{"/tmp/go-build3324567/b001/exe/gmark", "report", "-o", "out"}, []string{"gmark", "report", "-o", "out"}},
		{[]string{"/tmp/go-build1/b001/exe/main"}, []string{"gmark"}},
		{[]string{`C:\Users\me\AppData\Local\Temp\go-build42\b001\exe\gmark.exe`, "report"}, []string{"gmark", "report"}},
		{[]string{`C:\tools\gmark.exe`}, []string{"gmark"}},
		{[]string{"/opt/bin/gmark-dev", "x"}, []string{"gmark-dev", "x"}},
		{[]string{""}, []string{"gmark"}},
		{[]string{"/"}, []string{"gmark"}},
	} {
		got := CleanCommand(c.in)
		if !slices.Equal(got, c.want) {
			t.Errorf("CleanCommand(%q) = %q, want %q", c.in, got, c.want)
		}
	}
	// The header of a page made by a `go run` binary names gmark, and the
	// run's provenance does too.
	dir := t.TempDir()
	db := filepath.Join(dir, "r.db")
	if err := buildStore(db, 50); err != nil {
		t.Fatal(err)
	}
	argv := []string{"/tmp/go-build99/b001/exe/gmark", "report", "--db", db}
	index, err := Write(context.Background(), db, nil, filepath.Join(dir, "out"), Options{Command: argv})
	if err != nil {
		t.Fatal(err)
	}
	if argv[0] != "/tmp/go-build99/b001/exe/gmark" {
		t.Error("Write changed the caller's arguments")
	}
	page, err := os.ReadFile(index)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(page), "go-build") || !strings.Contains(string(page), "Made by <code>gmark report --db") {
		t.Errorf("header: %s", grepLine(string(page), "Made by"))
	}
}

func grepLine(s, sub string) string {
	for _, l := range strings.Split(s, "\n") {
		if strings.Contains(l, sub) {
			return l
		}
	}
	return "(no line with " + sub + ")"
}

func TestPval(t *testing.T) {
	for _, c := range []struct {
		p    float64
		want string
	}{{0, "< 0.0001"}, {3e-20, "< 0.0001"}, {0.00012, "1.2e-4"}, {0.01234, "0.0123"}, {0.47721, "0.477"}, {0.5, "0.5"}, {1, "1"}, {-1e-17, "0"}} {
		if got := pval(c.p); got != c.want {
			t.Errorf("pval(%g) = %q, want %q", c.p, got, c.want)
		}
	}
}
