package experiment

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gmark/gmark/internal/testkit"
)

// --out DIR: the tables, the JSON, a throughput figure per way and the
// per-site bars, and index.html showing them; the JSON reads back as the
// report; the experiment's name is escaped in the page.
func TestWriteDir(t *testing.T) {
	for _, file := range []string{"exp1.toml", "exp1-faults.toml"} {
		t.Run(file, func(t *testing.T) {
			testkit.CheckFigures(t) // every figure passes the checks of plots
			sp := load(t, file)
			sp.Name = `<script>alert("x")</script> & co`
			r := run(t, sp)
			dir := filepath.Join(t.TempDir(), "out")
			index, err := r.WriteDir(dir)
			if err != nil {
				t.Fatal(err)
			}
			page, err := os.ReadFile(index)
			if err != nil {
				t.Fatal(err)
			}
			for _, name := range []string{"throughput_static", "throughput_placeholder", "jobs", "units", "idle"} {
				for _, ext := range []string{".png", ".svg"} {
					fi, err := os.Stat(filepath.Join(dir, name+ext))
					if err != nil || fi.Size() < 100 {
						t.Errorf("%s%s: %v", name, ext, err)
					}
				}
				if !bytes.Contains(page, []byte(`src="`+name+`.png"`)) {
					t.Errorf("index.html does not show %s", name)
				}
			}
			if bytes.Contains(page, []byte("<script>")) || !bytes.Contains(page, []byte("&lt;script&gt;")) {
				t.Error("the name is not escaped")
			}
			var back Report
			b, _ := os.ReadFile(filepath.Join(dir, "report.json"))
			if err := json.Unmarshal(b, &back); err != nil || len(back.Runs) != 2 || back.Runs[1].Makespan != r.Runs[1].Makespan {
				t.Errorf("report.json: %v", err)
			}
			txt, _ := os.ReadFile(filepath.Join(dir, "report.txt"))
			if !strings.Contains(string(txt), "makespan static / placeholder") {
				t.Error("report.txt lacks the ratio")
			}
		})
	}
	notDir := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(notDir, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	var w bytes.Buffer
	if err := RunFile("../../examples/placeholder/exp1.toml", "text", notDir, &w); err == nil {
		t.Error("a report written into a file")
	}
	dir := t.TempDir()
	if err := RunFile("../../examples/placeholder/exp1.toml", "text", dir, &w); err != nil || !strings.Contains(w.String(), "report written to "+filepath.Join(dir, "index.html")) {
		t.Errorf("RunFile: %v %q", err, w.String())
	}
}
