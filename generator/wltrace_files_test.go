package generator

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gmark/gmark/wdl"
	"github.com/gmark/gmark/workload"
)

// A wl:trace unit attaches input files to the jobs it replays, as the
// thesis's Close-to-Files experiments gave each job one file of 2, 4 or
// 6 GB: every job reads one file drawn by weight, from a stream of its own,
// so the replayed jobs are otherwise exactly those of the unit without
// files; the sites holding the files are the grid's business.
func TestTraceReplayInputFiles(t *testing.T) {
	dir := t.TempDir()
	smallSWF(t, dir)
	plain := generate(t, traceSpec(t, dir, "2", "File=small.swf,Sites=fs0;fs1"), 1)
	files := []workload.File{{Name: "file-2g", Size: 2 << 30}, {Name: "file-4g", Size: 4 << 30}, {Name: "file-6g", Size: 6 << 30}}
	for _, c := range []struct {
		name, other string
		want        []workload.File // the files a job may read
	}{
		{"one file for every job", "InputFile=data:1GB", []workload.File{{Name: "data", Size: 1 << 30}}},
		{"the thesis's three sizes, uniformly", "InputFilesWithWeights=file-2g:2GB;file-4g:4GB;file-6g:6GB", files},
		{"weights, and one of weight 0", "InputFilesWithWeights=file-2g:2GB/3;file-4g:4GB/1;file-6g:6GB/0", files[:2]},
	} {
		t.Run(c.name, func(t *testing.T) {
			jobs := generate(t, traceSpec(t, dir, "2", "File=small.swf,Sites=fs0;fs1,"+c.other), 1)
			if len(jobs) != len(plain) || len(jobs) != 20 {
				t.Fatalf("%d jobs, %d without files", len(jobs), len(plain))
			}
			seen := map[string]int{}
			for i, j := range jobs {
				if len(j.Files) != 1 || !containsFile(c.want, j.Files[0]) {
					t.Fatalf("job %s reads %v, want one of %v", j.ID, j.Files, c.want)
				}
				seen[j.Files[0].Name]++
				j.Files = nil
				if got, want := jobSummary(&j), jobSummary(&plain[i]); got != want || j.App.Args()[1] != plain[i].App.Args()[1] {
					t.Fatalf("the files changed job %d: %s, without files %s", i, got, want)
				}
			}
			if len(seen) != len(c.want) {
				t.Errorf("the jobs read %v; want every one of %v", seen, c.want)
			}
			again := generate(t, traceSpec(t, dir, "2", "File=small.swf,Sites=fs0;fs1,"+c.other), 1)
			for i := range again {
				if again[i].Files[0] != jobs[i].Files[0] && c.want != nil {
					t.Fatalf("job %d: %v, then %v with the same seed", i, jobs[i].Files, again[i].Files)
				}
			}
		})
	}
	for _, j := range plain {
		if len(j.Files) != 0 {
			t.Fatalf("job %s reads %v with no file keys", j.ID, j.Files)
		}
	}
}

func containsFile(fs []workload.File, f workload.File) bool {
	for _, g := range fs {
		if g == f {
			return true
		}
	}
	return false
}

// Bad file keys are errors at the item they are in (file:line:col), all of
// them at once; nothing is generated.
func TestTraceReplayInputFileErrors(t *testing.T) {
	dir := t.TempDir()
	smallSWF(t, dir)
	path := filepath.Join(dir, "replay.wdl")
	for _, c := range []struct{ other, want string }{
		{"InputFile=data", "replay.wdl:1:52: InputFile: input file \"data\" must be name:size"},
		{"InputFile=:2GB", "replay.wdl:1:52: InputFile: input file \":2GB\" must be name:size"},
		{"InputFile=d:2XB", "replay.wdl:1:52: InputFile: input file \"d:2XB\""},
		{"InputFile=d:2000TB", "is above 1 PiB"},
		{"InputFilesWithWeights=a:1GB;b:-1GB", "replay.wdl:1:70: InputFilesWithWeights: input file \"b:-1GB\""},
		{"InputFilesWithWeights=a:1GB;b:2GB;a:3GB", "replay.wdl:1:76: InputFilesWithWeights: input file \"a\" is listed with two sizes (1073741824 and 3221225472 bytes)"},
	} {
		spec := traceSpec(t, dir, "1", "File=small.swf,"+c.other)
		_, err := New(spec, 1)
		var l wdl.ErrorList
		if !errors.As(err, &l) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v; want %q", c.other, err, c.want)
			continue
		}
		for _, e := range l {
			if !strings.HasPrefix(e.Error(), path+":1:") {
				t.Errorf("%s: %q is not at the unit's line", c.other, e.Error())
			}
		}
	}
	// Two bad items: two errors.
	_, err := New(traceSpec(t, dir, "1", "File=small.swf,InputFilesWithWeights=a;b:1ZB"), 1)
	var l wdl.ErrorList
	if !errors.As(err, &l) || len(l) != 2 {
		t.Errorf("two bad items: %v", err)
	}
	// The keys are the trace unit's: no "not used" warning.
	g, err := New(traceSpec(t, dir, "1", "File=small.swf,InputFile=a:1GB"), 1)
	if err != nil || len(g.Warnings) != 0 {
		t.Errorf("warnings %v, %v", g.Warnings, err)
	}
}
