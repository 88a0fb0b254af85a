package workload

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"io"
	"os"
	"path/filepath"

	"github.com/gmark/gmark/internal/readlimit"
)

// digester computes a JobsDigest of bytes written to it: the SHA-256, the
// size and the number of lines that are not blank (the jobs, as Reader
// counts them: see asciiSpace), in one pass with no limit on line length.
type digester struct {
	h        hash.Hash
	bytes    int64
	jobs     int
	lineText bool // the current line has a byte other than white space
}

func newDigester() digester { return digester{h: sha256.New()} }

func (d *digester) Write(p []byte) (int, error) {
	n := len(p)
	d.h.Write(p)
	d.bytes += int64(n)
	for len(p) > 0 {
		i := bytes.IndexByte(p, '\n')
		seg := p
		if i >= 0 {
			seg = p[:i]
		}
		d.lineText = d.lineText || len(bytes.Trim(seg, asciiSpace)) > 0
		if i < 0 {
			break
		}
		if d.lineText {
			d.jobs++
		}
		d.lineText = false
		p = p[i+1:]
	}
	return n, nil
}

func (d *digester) sum() JobsDigest {
	jobs := d.jobs
	if d.lineText { // a last line without its newline
		jobs++
	}
	return JobsDigest{SHA256: hex.EncodeToString(d.h.Sum(nil)), Bytes: d.bytes, Jobs: jobs}
}

// DigestJobs reads r to its end and returns its JobsDigest.
func DigestJobs(r io.Reader) (JobsDigest, error) {
	d := newDigester()
	if _, err := io.Copy(&d, r); err != nil {
		return JobsDigest{}, err
	}
	return d.sum(), nil
}

// ErrModified is returned by Check when workload.jsonl is not the file the
// manifest was written with.
var ErrModified = errors.New("workload.jsonl does not match its manifest")

// Check verifies that dir's workload.jsonl is the file its manifest.json
// was written with: the same SHA-256, size and job count. A file cut short
// at a line boundary reads as a valid, smaller workload; this is what tells
// it apart. A manifest from a gmark that did not record the digest, or no
// manifest at all, cannot vouch for the file: Check then returns a warning
// and no error.
func Check(dir string) (warning string, err error) {
	jobsName := filepath.Join(dir, JobsFile)
	manifestName := filepath.Join(dir, ManifestFile)
	m, err := ReadManifest(dir)
	if errors.Is(err, os.ErrNotExist) {
		if err := readlimit.Check(jobsName); err != nil {
			return "", err
		}
		return fmt.Sprintf("%s has no %s: %s cannot be checked for changes or truncation", dir, ManifestFile, JobsFile), nil
	}
	if err != nil {
		return "", err
	}
	if m.JobsFile == nil {
		return fmt.Sprintf("%s records no digest of %s (it was written by gmark %s): the file cannot be checked for changes or truncation; generate the workload again to have it checked",
			manifestName, JobsFile, m.GmarkVersion), nil
	}
	f, err := OpenJobs(dir)
	if err != nil {
		return "", err
	}
	defer f.Close()
	got, err := DigestJobs(f)
	if err != nil {
		return "", fmt.Errorf("%s: %w", jobsName, err)
	}
	want := *m.JobsFile
	if got == want {
		return "", nil
	}
	how := "was changed"
	switch {
	case got.Bytes < want.Bytes:
		how = "was cut short"
	case got.Bytes > want.Bytes:
		how = "grew"
	}
	return "", fmt.Errorf("%w: %s %s since it was generated: it has %d jobs in %d bytes (SHA-256 %s), %s says %d jobs in %d bytes (SHA-256 %s); generate the workload again",
		ErrModified, jobsName, how, got.Jobs, got.Bytes, got.SHA256, manifestName, want.Jobs, want.Bytes, want.SHA256)
}
