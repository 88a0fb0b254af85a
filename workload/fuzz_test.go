package workload

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"testing"
)

// sampleFile is a workload.jsonl of the sample jobs, with a blank line.
func sampleFile() []byte {
	var buf bytes.Buffer
	w := NewWriter(&buf)
	jobs := sampleJobs()
	for i := range jobs {
		w.Write(&jobs[i])
	}
	w.Flush()
	return append(buf.Bytes(), " \t\n"...)
}

var lineError = regexp.MustCompile(`^w\.jsonl:[0-9]+: `)

// FuzzReader: the streaming reader never panics; it returns exactly the jobs
// ParseJob accepts, line by line, each valid, until the first bad line,
// whose error names the file and line; a file it reads to the end has as
// many jobs as DigestJobs counts.
func FuzzReader(f *testing.F) {
	f.Add(sampleFile())
	f.Add([]byte(unitaryLine("") + "\n\n" + unitaryLine(`"walltime":-1`) + "\n"))
	f.Add([]byte("\u00a0\n" + unitaryLine("")))
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, data []byte) {
		r := NewReader(bytes.NewReader(data), "w.jsonl")
		lines := bytes.Split(data, []byte("\n"))
		next := 0 // the line of data the reader is at
		read := 0
		for {
			j, err := r.Next()
			if err == io.EOF {
				break
			}
			if err != nil {
				if !lineError.MatchString(err.Error()) {
					t.Fatalf("error without file:line: %v", err)
				}
				return
			}
			for len(bytes.Trim(lines[next], asciiSpace)) == 0 {
				next++
			}
			want, err := ParseJob(bytes.Trim(lines[next], asciiSpace))
			if err != nil || !reflect.DeepEqual(j, want) {
				t.Fatalf("line %d: the reader gave %+v, ParseJob %+v, %v", next+1, j, want, err)
			}
			if err := j.Validate(); err != nil {
				t.Fatalf("line %d: the reader gave an invalid job: %v", next+1, err)
			}
			next++
			read++
		}
		d, err := DigestJobs(bytes.NewReader(data))
		if err != nil || d.Jobs != read || d.Bytes != int64(len(data)) {
			t.Fatalf("read %d jobs of %d bytes, DigestJobs says %+v (%v)", read, len(data), d, err)
		}
	})
}

// FuzzParseManifest: any bytes are a manifest or an error, never a panic; a
// manifest accepted is within its ranges and survives writing and reading.
func FuzzParseManifest(f *testing.F) {
	dir := f.TempDir()
	writeDir(f, dir, 3)
	good, err := os.ReadFile(filepath.Join(dir, ManifestFile))
	if err != nil {
		f.Fatal(err)
	}
	f.Add(good)
	f.Add([]byte(`{"jobs":2,"first_submit":1.5,"last_submit":0.000000001,"units":[{"id":1,"jobs":-1}]}`))
	f.Add([]byte(`{"workload_jsonl":{"sha256":"","bytes":0,"jobs":0}}`))
	f.Add([]byte(`null`))
	f.Fuzz(func(t *testing.T, data []byte) {
		m, err := ParseManifest(data, ManifestFile)
		if err != nil {
			return
		}
		if err := m.check(); err != nil {
			t.Fatalf("accepted a manifest out of range: %v", err)
		}
		var buf bytes.Buffer
		if err := WriteManifest(&buf, m); err != nil {
			t.Fatalf("an accepted manifest does not write: %v", err)
		}
		again, err := ParseManifest(buf.Bytes(), ManifestFile)
		if err != nil {
			t.Fatalf("a written manifest does not read: %v\n%s", err, buf.Bytes())
		}
		if !reflect.DeepEqual(m, again) {
			t.Fatalf("round trip changed the manifest:\n%+v\n%+v", m, again)
		}
	})
}

// FuzzCheckDir: a workload directory of any manifest.json and
// workload.jsonl is checked and read without a panic. Check passes without
// a warning only for a workload.jsonl that is the manifest's to the byte,
// and a directory read to the end has the manifest's job count when Check
// passed.
func FuzzCheckDir(f *testing.F) {
	dir := f.TempDir()
	writeDir(f, dir, 3)
	manifest, err := os.ReadFile(filepath.Join(dir, ManifestFile))
	if err != nil {
		f.Fatal(err)
	}
	jobs, err := os.ReadFile(filepath.Join(dir, JobsFile))
	if err != nil {
		f.Fatal(err)
	}
	f.Add(manifest, jobs)
	f.Add(manifest, jobs[:bytes.LastIndexByte(jobs[:len(jobs)-1], '\n')+1])
	f.Add([]byte(`{"gmark_version":"old","jobs":3}`), jobs)
	f.Add([]byte(`{`), jobs)
	f.Fuzz(func(t *testing.T, manifest, jobs []byte) {
		dir := t.TempDir()
		if err := os.WriteFile(filepath.Join(dir, ManifestFile), manifest, 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, JobsFile), jobs, 0o644); err != nil {
			t.Fatal(err)
		}
		warning, checkErr := Check(dir)
		read, readErr := ReadAll(dir)
		if checkErr != nil || warning != "" {
			return
		}
		m, err := ReadManifest(dir)
		if err != nil {
			t.Fatalf("Check passed a manifest ReadManifest refuses: %v", err)
		}
		d, _ := DigestJobs(bytes.NewReader(jobs))
		if m.JobsFile == nil || *m.JobsFile != d {
			t.Fatalf("Check passed %+v against the manifest's %+v", d, m.JobsFile)
		}
		if readErr == nil && len(read) != m.Jobs {
			t.Fatalf("read %d jobs, the manifest vouches for %d", len(read), m.Jobs)
		}
		if readErr != nil && errors.Is(readErr, os.ErrNotExist) {
			t.Fatalf("ReadAll: %v", readErr)
		}
	})
}
