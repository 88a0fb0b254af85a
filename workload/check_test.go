package workload

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// writeDir writes a workload directory of n unitary jobs with a manifest
// carrying the digest of workload.jsonl, as gmark generate does.
func writeDir(t testing.TB, dir string, n int) {
	t.Helper()
	var buf bytes.Buffer
	w := NewWriter(&buf)
	for i := range n {
		j := Job{ID: fmt.Sprintf("1-%d", i), Unit: 1, Index: i, Kind: Unitary, Type: "hello",
			Submit: time.Duration(i) * time.Second, App: App{Name: "hello"}, Components: []Component{{Site: AnySite, Count: 1}}}
		if err := w.Write(&j); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	d := w.Digest()
	if d.Jobs != n || d.Bytes != int64(buf.Len()) {
		t.Fatalf("writer's digest %+v of %d jobs in %d bytes", d, n, buf.Len())
	}
	if err := os.WriteFile(filepath.Join(dir, JobsFile), buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	var mb bytes.Buffer
	if err := WriteManifest(&mb, &Manifest{GmarkVersion: "test", Jobs: n, LastSubmit: Seconds(time.Duration(n-1) * time.Second), JobsFile: &d}); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, ManifestFile), mb.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

// editFile rewrites dir/name through fn.
func editFile(t *testing.T, dir, name string, fn func([]byte) []byte) {
	t.Helper()
	p := filepath.Join(dir, name)
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, fn(b), 0o644); err != nil {
		t.Fatal(err)
	}
}

// editManifest rewrites dir's manifest through fn.
func editManifest(t *testing.T, dir string, fn func(*Manifest)) {
	t.Helper()
	editFile(t, dir, ManifestFile, func(b []byte) []byte {
		m, err := ParseManifest(b, ManifestFile)
		if err != nil {
			t.Fatal(err)
		}
		fn(m)
		var out bytes.Buffer
		if err := WriteManifest(&out, m); err != nil {
			t.Fatal(err)
		}
		return out.Bytes()
	})
}

// A workload.jsonl cut short at a line boundary was
// submitted as complete. Check compares it with the manifest's digest.
func TestCheck(t *testing.T) {
	cases := []struct {
		name    string
		edit    func(t *testing.T, dir string)
		err     string // "" = no error
		warning string // "" = no warning
	}{
		{"intact", func(*testing.T, string) {}, "", ""},
		{"cut short at a line boundary", func(t *testing.T, dir string) {
			editFile(t, dir, JobsFile, func(b []byte) []byte {
				lines := bytes.SplitAfter(b, []byte("\n"))
				return bytes.Join(lines[:3], nil)
			})
		}, "was cut short since it was generated: it has 3 jobs", ""},
		{"cut mid-line", func(t *testing.T, dir string) {
			editFile(t, dir, JobsFile, func(b []byte) []byte { return b[:len(b)-7] })
		}, "was cut short", ""},
		{"emptied", func(t *testing.T, dir string) {
			editFile(t, dir, JobsFile, func([]byte) []byte { return nil })
		}, "it has 0 jobs in 0 bytes", ""},
		{"edited in place", func(t *testing.T, dir string) {
			editFile(t, dir, JobsFile, func(b []byte) []byte { return bytes.Replace(b, []byte(`"submit":1`), []byte(`"submit":9`), 1) })
		}, "was changed since", ""},
		{"a job appended", func(t *testing.T, dir string) {
			editFile(t, dir, JobsFile, func(b []byte) []byte {
				return append(b, b[:bytes.IndexByte(b, '\n')+1]...)
			})
		}, "grew since", ""},
		{"manifest without digest", func(t *testing.T, dir string) {
			editManifest(t, dir, func(m *Manifest) { m.JobsFile = nil })
			editFile(t, dir, JobsFile, func(b []byte) []byte { return b[:len(b)/2] })
		}, "", "records no digest of workload.jsonl (it was written by gmark test)"},
		{"no manifest", func(t *testing.T, dir string) {
			os.Remove(filepath.Join(dir, ManifestFile))
		}, "", "has no manifest.json"},
		{"no workload.jsonl", func(t *testing.T, dir string) {
			os.Remove(filepath.Join(dir, JobsFile))
		}, "no such file", ""},
		{"nothing at all", func(t *testing.T, dir string) {
			os.Remove(filepath.Join(dir, JobsFile))
			os.Remove(filepath.Join(dir, ManifestFile))
		}, "no such file", ""},
		{"malformed manifest", func(t *testing.T, dir string) {
			editFile(t, dir, ManifestFile, func(b []byte) []byte { return b[:bytes.IndexByte(b, '\n')+1] }) // "{\n"
		}, "manifest.json:1:2: unexpected end of JSON input", ""},
		{"a stray character in the manifest", func(t *testing.T, dir string) {
			editFile(t, dir, ManifestFile, func(b []byte) []byte { return bytes.Replace(b, []byte("\n"), []byte("\nx"), 1) })
		}, "manifest.json:2:1: invalid character 'x' looking for beginning of object key string", ""},
		{"digest not hex", func(t *testing.T, dir string) {
			editManifest(t, dir, func(m *Manifest) { m.JobsFile.SHA256 = strings.ToUpper(m.JobsFile.SHA256) })
		}, "is not a SHA-256 in lower-case hex", ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			writeDir(t, dir, 12)
			c.edit(t, dir)
			warning, err := Check(dir)
			switch {
			case c.err == "" && err != nil:
				t.Errorf("error %v", err)
			case c.err != "" && (err == nil || !strings.Contains(err.Error(), c.err)):
				t.Errorf("error %v, want %q", err, c.err)
			}
			if c.warning == "" && warning != "" || !strings.Contains(warning, c.warning) {
				t.Errorf("warning %q, want %q", warning, c.warning)
			}
			if err != nil && strings.Contains(c.name, "cut") && (!errors.Is(err, ErrModified) || !strings.Contains(err.Error(), filepath.Join(dir, JobsFile))) {
				t.Errorf("error %v does not name %s as modified", err, JobsFile)
			}
		})
	}
}

// A manifest's numbers are held to the ranges of the jobs it describes.
func TestParseManifestRanges(t *testing.T) {
	const sha = `"0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"`
	cases := []struct{ text, want string }{
		{`{"jobs":2,"workload_jsonl":{"sha256":` + sha + `,"bytes":100,"jobs":2}}`, ""},
		{`{"jobs":2,"future_field":[1,2]}`, ""},
		{`{"jobs":-1}`, "negative count"},
		{`{"tasks":-5}`, "negative count"},
		{`{"first_submit":-1}`, "first_submit -1s out of range"},
		{`{"first_submit":10,"last_submit":5}`, "after last_submit"},
		{`{"last_submit":1e9}`, "bad seconds value"},
		{`{"units":[{"id":1,"jobs":-3}]}`, "unit 1: negative"},
		{`{"jobs":2,"workload_jsonl":{"sha256":"abc","bytes":100,"jobs":2}}`, "not a SHA-256"},
		{`{"jobs":2,"workload_jsonl":{"sha256":` + sha + `,"bytes":-1,"jobs":2}}`, "2 jobs in -1 bytes"},
		{`{"jobs":5,"workload_jsonl":{"sha256":` + sha + `,"bytes":100,"jobs":2}}`, "differs from jobs 5"},
		{`{"jobs":2,"warm_jobs":["1-0"],"units":[{"id":1,"jobs":2,"trace":{"path":"/t.swf","jobs":1,"warm":1,"running":1,"period":60}}]}`, ""},
		{`{"jobs":1,"warm_jobs":["1-0","1-1"]}`, "2 warm jobs of 1 jobs"},
		{`{"units":[{"id":1,"trace":{"warm":1,"running":2}}]}`, "unit 1: trace: "},
		{`{"units":[{"id":1,"trace":{"jobs":-1}}]}`, "unit 1: trace: "},
		{`{"units":[{"id":1,"trace":{"period":-5}}]}`, "unit 1: trace: "},
		{`{"jobs":2} trailing`, "invalid character"},
		{`{"jobs":"2"}`, "cannot unmarshal"},
	}
	for _, c := range cases {
		_, err := ParseManifest([]byte(c.text), "manifest.json")
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%s: %v", c.text, err)
		case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
			t.Errorf("%s: error %v, want %q", c.text, err, c.want)
		}
	}
}
