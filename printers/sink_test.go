package printers

import (
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/gmark/gmark/workload"
)

func testJobs() []*workload.Job {
	return []*workload.Job{singleJob(), smpiJob(), coallocJob(), orderedJob(), diamondJob()}
}

// filesUnder lists the regular files under root, relative to it, sorted.
func filesUnder(t *testing.T, root string) []string {
	t.Helper()
	var files []string
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, err := filepath.Rel(root, path)
		files = append(files, filepath.ToSlash(rel))
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(files)
	return files
}

func TestSinkOneFilePerJob(t *testing.T) {
	dir := t.TempDir()
	s, err := NewSink(dir, []string{"rsl", "dagman", "sbatch"}, false, goldenConfig)
	if err != nil {
		t.Fatal(err)
	}
	jobs := testJobs()
	for _, j := range jobs {
		if err := s.Write(j); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}

	// The composite job is one DAG for dagman, one file per task for the others.
	want := []string{
		"jdf/dagman/1/1-0.dag", "jdf/dagman/2/2-3.dag", "jdf/dagman/3/3-1.dag", "jdf/dagman/4/4-0.dag", "jdf/dagman/5/5-2.dag",
	}
	for _, f := range []struct{ name, ext string }{{"rsl", "rsl"}, {"sbatch", "sbatch"}} {
		for _, id := range []string{"1/1-0", "2/2-3", "3/3-1", "4/4-0.a", "4/4-0.b", "4/4-0.c", "4/4-0.d", "5/5-2"} {
			want = append(want, "jdf/"+f.name+"/"+id+"."+f.ext)
		}
	}
	slices.Sort(want)
	if got := filesUnder(t, dir); !slices.Equal(got, want) {
		t.Fatalf("files:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}

	// Each file holds exactly what the printer prints, at workload.JDFPath.
	for _, j := range jobs {
		for _, format := range []string{"rsl", "dagman", "sbatch"} {
			p := mustLookup(t, format)
			units := []*workload.Job{j}
			if j.Kind == workload.Composite && !p.Composite() {
				units = nil
				for i := range j.Tasks {
					units = append(units, &j.Tasks[i])
				}
			}
			for _, u := range units {
				got, err := os.ReadFile(filepath.Join(dir, workload.JDFPath(format, p.Ext(), u)))
				if err != nil {
					t.Fatal(err)
				}
				if want := printToString(t, p, u, goldenConfig); string(got) != want {
					t.Errorf("%s of %s:\n%s\nwant:\n%s", format, u.ID, got, want)
				}
			}
		}
	}
}

func TestSinkSingleFile(t *testing.T) {
	dir := t.TempDir()
	// A format that refuses one of the test jobs would stop the Sink; its
	// stream is checked in TestGolden, on the composite job.
	formats := slices.DeleteFunc(Names(), func(f string) bool {
		for k := range refused {
			if strings.HasPrefix(k, f+"/") {
				return true
			}
		}
		return false
	})
	s, err := NewSink(dir, formats, true, goldenConfig)
	if err != nil {
		t.Fatal(err)
	}
	jobs := testJobs()
	for _, j := range jobs {
		if err := s.Write(j); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	var want []string
	for _, format := range formats {
		want = append(want, filepath.ToSlash(workload.SingleJDFPath(format, mustLookup(t, format).Ext())))
	}
	slices.Sort(want)
	if got := filesUnder(t, dir); !slices.Equal(got, want) {
		t.Fatalf("files %q, want %q", got, want)
	}
	for _, format := range formats {
		p := mustLookup(t, format)
		stream, err := os.ReadFile(filepath.Join(dir, workload.SingleJDFPath(format, p.Ext())))
		if err != nil {
			t.Fatal(err)
		}
		// The stream is every job's description, each after its comment line.
		var expect bytes.Buffer
		for _, j := range jobs {
			units := []*workload.Job{j}
			if j.Kind == workload.Composite && !p.Composite() {
				units = nil
				for i := range j.Tasks {
					units = append(units, &j.Tasks[i])
				}
			}
			for _, u := range units {
				expect.WriteString(p.Comment("job " + u.ID))
				expect.WriteString(printToString(t, p, u, goldenConfig))
			}
		}
		if !bytes.Equal(stream, expect.Bytes()) {
			t.Errorf("%s stream:\n%s\nwant:\n%s", format, stream, expect.Bytes())
		}
	}
}

func TestSinkErrors(t *testing.T) {
	dir := t.TempDir()
	if _, err := NewSink(dir, []string{"rsl", "nosuch"}, false, Config{}); err == nil || !strings.Contains(err.Error(), "nosuch") {
		t.Errorf("unknown format: err = %v", err)
	}
	if _, err := NewSink(dir, []string{"rsl", "rsl"}, false, Config{}); err == nil {
		t.Error("a format given twice is accepted")
	}

	// A workload directory that is a file: single-file mode fails at once.
	file := filepath.Join(dir, "file")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := NewSink(file, []string{"rsl"}, true, Config{}); err == nil {
		t.Error("single-file sink under a file is accepted")
	}
	// Per-job mode fails on the first write, naming the path.
	s, err := NewSink(file, []string{"rsl"}, false, Config{})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Write(singleJob()); err == nil || !strings.Contains(err.Error(), file) {
		t.Errorf("write under a file: err = %v", err)
	}

	// A job a printer refuses: the error names the file it was meant for.
	s, err = NewSink(dir, []string{"sbatch"}, false, Config{})
	if err != nil {
		t.Fatal(err)
	}
	bad := singleJob()
	bad.App.Params[0].Value = "two\nlines"
	err = s.Write(bad)
	if want := filepath.Join(dir, workload.JDFPath("sbatch", "sbatch", bad)); err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("bad job: err = %v, want it to name %s", err, want)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if err := s.Write(singleJob()); err == nil {
		t.Error("write after Close is accepted")
	}
	if err := s.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
}
