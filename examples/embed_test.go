package examples

import (
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// Every file of the examples directory is built in, byte for byte, and
// nothing else is: a new example cannot be left out of the binary.
func TestEmbeddedAreTheDirectory(t *testing.T) {
	var onDisk []string
	err := filepath.WalkDir(".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || filepath.Ext(p) == ".go" || userTrace(p) {
			return err
		}
		onDisk = append(onDisk, filepath.ToSlash(p))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	names := Names()
	if !slices.Equal(names, onDisk) || len(names) < 8 {
		t.Fatalf("embedded %v\non disk  %v", names, onDisk)
	}
	for _, n := range names {
		want, err := os.ReadFile(filepath.FromSlash(n))
		if err != nil {
			t.Fatal(err)
		}
		got, err := ReadFile(n)
		if err != nil || !bytes.Equal(got, want) {
			t.Errorf("%s: embedded copy differs (%v)", n, err)
		}
	}
	if _, err := ReadFile("none.wdl"); err == nil {
		t.Error("ReadFile of a missing example succeeded")
	}
}

// userTrace tells the traces a user saves beside the examples that read
// them (examples/lcg-files.wdl reads LCG.swf.gz): not examples themselves.
func userTrace(p string) bool {
	for _, ext := range []string{".swf", ".swf.gz", ".gwf", ".gwf.gz", ".db3"} {
		if strings.HasSuffix(p, ext) {
			return true
		}
	}
	return false
}

func TestLookup(t *testing.T) {
	for _, c := range []struct {
		path, name string
		ok         bool
	}{
		{"examples/das2.toml", "das2.toml", true},
		{"./examples/das2.toml", "das2.toml", true},
		{"examples/thesis/../das2.toml", "das2.toml", true},
		{"examples/thesis/smpi1.xin", "thesis/smpi1.xin", true},
		{"examples/thesis", "", false}, // a directory
		{"examples/", "", false},
		{"examples/none.toml", "", false},
		{"das2.toml", "", false},
		{"/examples/das2.toml", "", false},
		{"other/examples/das2.toml", "", false},
		{"", "", false},
	} {
		name, ok := Lookup(c.path)
		if name != c.name || ok != c.ok {
			t.Errorf("Lookup(%q) = %q, %v; want %q, %v", c.path, name, ok, c.name, c.ok)
		}
	}
}

func TestWriteAllAndResolve(t *testing.T) {
	dir := t.TempDir()
	written, err := WriteAll(filepath.Join(dir, "out"), false)
	if err != nil || len(written) != len(Names()) {
		t.Fatalf("wrote %v, %v", written, err)
	}
	for i, n := range Names() {
		got, _ := os.ReadFile(written[i])
		want, _ := ReadFile(n)
		if !bytes.Equal(got, want) {
			t.Errorf("%s written as %s differs", n, written[i])
		}
	}
	// Writing again over identical files is fine; over an edited one it
	// fails and leaves the edit, unless told to replace it.
	if _, err := WriteAll(filepath.Join(dir, "out"), false); err != nil {
		t.Errorf("writing the examples twice: %v", err)
	}
	edited := written[0]
	if err := os.WriteFile(edited, []byte("my edit\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := WriteAll(filepath.Join(dir, "out"), false); err == nil || !strings.Contains(err.Error(), "--force") {
		t.Errorf("writing over an edited example: %v, want an error naming --force", err)
	}
	if got, _ := os.ReadFile(edited); string(got) != "my edit\n" {
		t.Errorf("the edited example was replaced: %q", got)
	}
	if _, err := WriteAll(filepath.Join(dir, "out"), true); err != nil {
		t.Errorf("replacing an edited example: %v", err)
	}
	if got, want := mustRead(t, edited), mustReadEmbedded(t, Names()[0]); !bytes.Equal(got, want) {
		t.Errorf("replace left %q", got)
	}
	// Writing over a directory where a file goes fails.
	blocked := filepath.Join(dir, "blocked")
	if err := os.MkdirAll(filepath.Join(blocked, "das2.toml"), 0o755); err != nil {
		t.Fatal(err)
	}
	if _, err := WriteAll(blocked, false); err == nil {
		t.Error("WriteAll over a directory named like an example succeeded")
	}

	wd := t.TempDir()
	t.Chdir(wd)
	if err := os.WriteFile("mine.wdl", []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		path, want string
		embedded   bool
	}{
		{"mine.wdl", "mine.wdl", false}, // on disk
		{"examples/quickstart.wdl", filepath.Join(dir, "run", "examples", "quickstart.wdl"), true}, // built in
		{"examples/nothing.wdl", "examples/nothing.wdl", false},                                    // neither
		{"missing.wdl", "missing.wdl", false},
	} {
		got, embedded, err := Resolve(c.path, filepath.Join(dir, "run"))
		if err != nil || got != c.want || embedded != c.embedded {
			t.Errorf("Resolve(%q) = %q, %v, %v; want %q, %v", c.path, got, embedded, err, c.want, c.embedded)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "run", "examples", "thesis", "smpi1.xin")); err != nil {
		t.Errorf("Resolve did not write the files an example reads: %v", err)
	}
}

func mustRead(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func mustReadEmbedded(t *testing.T, name string) []byte {
	t.Helper()
	b, err := ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
