package workload

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"
)

func unitJobs(n int) []Job {
	jobs := make([]Job, n)
	for i := range jobs {
		jobs[i] = Job{ID: fmt.Sprintf("1-%d", i), Unit: 1, Index: i, Kind: Unitary, Type: "hello",
			Submit: time.Duration(i) * time.Second, App: App{Name: "hello"}, Components: []Component{{Site: AnySite, Count: 1}}}
	}
	return jobs
}

// failingSink fails on its nth job.
type failingSink struct{ n, seen int }

func (s *failingSink) Write(*Job) error {
	if s.seen++; s.seen == s.n {
		return errors.New("sink is full")
	}
	return nil
}
func (s *failingSink) Close() error { return nil }

func TestWriteDir(t *testing.T) {
	for _, n := range []int{0, 1, 1000} {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "w")
			jobs := unitJobs(n)
			if err := WriteDir(out, jobs, &Manifest{GmarkVersion: "test"}, false); err != nil {
				t.Fatal(err)
			}
			if warning, err := Check(out); err != nil || warning != "" {
				t.Fatalf("Check: %q, %v", warning, err)
			}
			back, err := ReadAll(out)
			if err != nil {
				t.Fatal(err)
			}
			if len(back) != n {
				t.Fatalf("read back %d jobs, wrote %d", len(back), n)
			}
			m, err := ReadManifest(out)
			if err != nil {
				t.Fatal(err)
			}
			if m.Jobs != n || m.JobsFile == nil || m.JobsFile.Jobs != n {
				t.Fatalf("manifest jobs %d, digest %+v; want %d", m.Jobs, m.JobsFile, n)
			}
			// Written again: refused without replace, done with it.
			if err := WriteDir(out, jobs[:n/2], &Manifest{GmarkVersion: "test"}, false); !IsOutputConflict(err) {
				t.Fatalf("second write without replace: %v, want an output conflict", err)
			}
			if err := WriteDir(out, jobs[:n/2], &Manifest{GmarkVersion: "test"}, true); err != nil {
				t.Fatal(err)
			}
			if m, err := ReadManifest(out); err != nil || m.Jobs != n/2 {
				t.Fatalf("after replace: %v jobs, %v; want %d", m, err, n/2)
			}
		})
	}
}

func TestDirWriterLeavesNothingOnError(t *testing.T) {
	parent := t.TempDir()
	out := filepath.Join(parent, "w")
	d, err := CreateDir(out)
	if err != nil {
		t.Fatal(err)
	}
	d.AddSink(&failingSink{n: 3})
	jobs := unitJobs(5)
	var werr error
	for i := range jobs {
		if werr = d.Write(&jobs[i]); werr != nil {
			break
		}
	}
	if werr == nil || d.Count() != 3 {
		t.Fatalf("write error %v after %d jobs; want the sink's error at the 3rd", werr, d.Count())
	}
	if err := d.Commit(&Manifest{GmarkVersion: "test", Jobs: 3}, false); err == nil {
		t.Fatal("Commit after a write error succeeded")
	}
	d.Abort()
	left, err := os.ReadDir(parent)
	if err != nil {
		t.Fatal(err)
	}
	if len(left) != 0 {
		t.Fatalf("a failed writer left %v behind", left)
	}
}

func TestDirWriterRefusesAWrongJobCount(t *testing.T) {
	out := filepath.Join(t.TempDir(), "w")
	d, err := CreateDir(out)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Abort()
	jobs := unitJobs(2)
	for i := range jobs {
		if err := d.Write(&jobs[i]); err != nil {
			t.Fatal(err)
		}
	}
	if err := d.Commit(&Manifest{GmarkVersion: "test", Jobs: 3}, false); err == nil {
		t.Fatal("a manifest of 3 jobs over 2 lines was committed")
	}
	if _, err := os.Lstat(out); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("output exists after a refused commit: %v", err)
	}
}
