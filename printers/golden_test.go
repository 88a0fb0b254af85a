package printers

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gmark/gmark/workload"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/golden")

// goldenConfig is the configuration of the golden files: the defaults, with
// DAGMan retries on so that the RETRY lines are shown.
var goldenConfig = Config{Retries: 2}

// checkGolden compares got with the golden file, or rewrites it with -update.
func checkGolden(t *testing.T, path string, got []byte) {
	t.Helper()
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs (run go test -update if the change is intended)\n--- got\n%s--- want\n%s", path, got, want)
	}
}

func mustLookup(t testing.TB, name string) Printer {
	t.Helper()
	p, err := Lookup(name)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func printToString(t testing.TB, p Printer, j *workload.Job, cfg Config) string {
	t.Helper()
	var buf bytes.Buffer
	if err := p.Print(&buf, j, cfg); err != nil {
		t.Fatalf("%s: %v", p.Name(), err)
	}
	return buf.String()
}

// TestGolden prints every test job in every format, compares the result with
// its golden file and checks its structure. Composite jobs go to the formats
// that describe unitary jobs through the Sink, which prints their tasks one
// by one; the golden file is then the Sink's single-file stream.
func TestGolden(t *testing.T) {
	for _, name := range Names() {
		p := mustLookup(t, name)
		check := structureChecks[name]
		for _, c := range unitaryCases {
			t.Run(name+"/"+c.name, func(t *testing.T) {
				j := c.job()
				if refused[name+"/"+c.name] {
					// The golden file holds the refusal.
					err := p.Print(&bytes.Buffer{}, j, goldenConfig)
					if err == nil {
						t.Fatal("printed a job it must refuse")
					}
					checkGolden(t, filepath.Join("testdata", "golden", name, c.name+"."+p.Ext()), []byte("refused: "+err.Error()+"\n"))
					return
				}
				out := printToString(t, p, j, goldenConfig)
				checkGolden(t, filepath.Join("testdata", "golden", name, c.name+"."+p.Ext()), []byte(out))
				check(t, j, goldenConfig, out)
			})
		}
		t.Run(name+"/"+compositeCase.name, func(t *testing.T) {
			j := compositeCase.job()
			golden := filepath.Join("testdata", "golden", name, compositeCase.name+"."+p.Ext())
			if p.Composite() {
				out := printToString(t, p, j, goldenConfig)
				checkGolden(t, golden, []byte(out))
				check(t, j, goldenConfig, out)
				return
			}
			stream := sinkStream(t, name, j)
			checkGolden(t, golden, stream)
			parts := splitStream(t, p, string(stream), j.Tasks)
			for i := range j.Tasks {
				check(t, &j.Tasks[i], goldenConfig, parts[i])
			}
		})
	}
}

// refused are the test jobs a format cannot describe: the smpi job's
// parameter holds a $, which ARC's back ends would expand (xrsl).
var refused = map[string]bool{"xrsl/smpi": true}

// sinkStream writes j through a single-file Sink and returns the stream.
func sinkStream(t *testing.T, format string, jobs ...*workload.Job) []byte {
	t.Helper()
	dir := t.TempDir()
	s, err := NewSink(dir, []string{format}, true, goldenConfig)
	if err != nil {
		t.Fatal(err)
	}
	for _, j := range jobs {
		if err := s.Write(j); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	p := mustLookup(t, format)
	out, err := os.ReadFile(filepath.Join(dir, workload.SingleJDFPath(format, p.Ext())))
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// splitStream cuts a single-file stream at its "job <id>" comment lines,
// which must come in the order of jobs, and returns the descriptions.
func splitStream(t *testing.T, p Printer, stream string, jobs []workload.Job) []string {
	t.Helper()
	var parts []string
	rest := stream
	for i := range jobs {
		marker := p.Comment("job " + jobs[i].ID)
		if !strings.HasPrefix(rest, marker) {
			t.Fatalf("stream does not go on with %q at %q", marker, rest[:min(len(rest), 40)])
		}
		rest = rest[len(marker):]
		end := len(rest)
		if i+1 < len(jobs) {
			end = strings.Index(rest, p.Comment("job "+jobs[i+1].ID))
			if end < 0 {
				t.Fatalf("stream has no %q", p.Comment("job "+jobs[i+1].ID))
			}
		}
		parts = append(parts, rest[:end])
		rest = rest[end:]
	}
	return parts
}

// TestDeterministic prints every job twice, through a fresh and a reused
// buffer and through a plain writer, and wants the same bytes: workloads must
// be reproducible byte for byte.
func TestDeterministic(t *testing.T) {
	cases := append(append([]testCase{}, unitaryCases...), compositeCase)
	for _, name := range Names() {
		p := mustLookup(t, name)
		for _, c := range cases {
			j := c.job()
			if j.Kind == workload.Composite && !p.Composite() {
				j = &j.Tasks[2]
			}
			if refused[name+"/"+c.name] {
				continue
			}
			first := printToString(t, p, j, goldenConfig)
			var reused bytes.Buffer
			reused.WriteString("earlier job\n")
			reused.Reset()
			if err := p.Print(&reused, j, goldenConfig); err != nil {
				t.Fatal(err)
			}
			var plain strings.Builder
			if err := p.Print(&plain, j, goldenConfig); err != nil {
				t.Fatal(err)
			}
			if reused.String() != first || plain.String() != first {
				t.Errorf("%s/%s: printing twice gave different bytes", name, c.name)
			}
		}
	}
}
