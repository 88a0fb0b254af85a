package record

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"hash/maphash"
	"io"
	"os"
	"path/filepath"
	"runtime/debug"
	"slices"

	"github.com/gmark/gmark/internal/readlimit"
	"github.com/gmark/gmark/workload"
)

// Workload is what a run knows of its workload directory before the run:
// its jobs are not held, but streamed from workload.jsonl as they are due
// (Stream), so that a recorder's memory does not grow with the workload.
type Workload struct {
	Path  string // workload.jsonl
	Count int    // top-level jobs
	Units int    // unitary jobs and tasks: the submissions of a run without retries
	Tasks int    // tasks of composite jobs
	// SHA256 is the digest of workload.jsonl, as the run records it.
	SHA256 string
	// IDCollision: two of the workload's job ids have the same 64-bit hash
	// (IDHash), so the hashes do not tell them apart.
	IDCollision bool

	f        *os.File // workload.jsonl, open for the run
	manifest []byte
	m        *workload.Manifest
	jobs     []workload.Job // read only by RecordRun (readWorkloadJobs)
}

// ReadWorkload reads the workload directory once, to its end: the digest
// of workload.jsonl, its job counts, and a check that every job parses and
// no job id appears twice. The file is kept open: the run streams its jobs
// from the same file (a workload.jsonl replaced during the run is not
// read), and Close releases it.
func ReadWorkload(dir string) (*Workload, error) {
	f, err := workload.OpenJobs(dir)
	if err != nil {
		return nil, err
	}
	w := &Workload{Path: f.Name(), f: f}
	// The read makes garbage at the rate of the file (each line parsed)
	// while little is live: collect it at the default pace, whatever the
	// run's (gmark submit runs with GOGC=400, for its delays), so that the
	// read does not set the process's peak memory.
	if old := debug.SetGCPercent(100); old >= 0 && old < 100 {
		debug.SetGCPercent(old)
	} else {
		defer debug.SetGCPercent(old)
	}
	if err := w.scan(); err != nil {
		f.Close()
		return nil, err
	}
	if mb, err := readlimit.File(filepath.Join(dir, workload.ManifestFile), workload.MaxManifestBytes); err == nil {
		w.manifest = mb
		if m, err := workload.ReadManifest(dir); err == nil {
			w.m = m
		}
	}
	return w, nil
}

// readWorkloadJobs is ReadWorkload with every job read into memory, for
// RecordRun (a run recorded whole, after the fact).
func readWorkloadJobs(dir string) (*Workload, error) {
	w, err := ReadWorkload(dir)
	if err != nil {
		return nil, err
	}
	defer w.Close()
	src, err := w.Stream()
	if err != nil {
		return nil, err
	}
	w.jobs = make([]workload.Job, 0, w.Count)
	for {
		j, _, err := src.Next()
		if err == io.EOF {
			return w, nil
		}
		if err != nil {
			return nil, err
		}
		w.jobs = append(w.jobs, *j)
	}
}

// Close releases workload.jsonl.
func (w *Workload) Close() {
	if w.f != nil {
		w.f.Close()
	}
}

// idSeed makes the 64-bit hashes of job ids (IDHash) by which scan finds
// an id that appears twice (8 bytes a job, for the scan only).
var idSeed = maphash.MakeSeed()

// IDHash is the 64-bit hash of a job id by which ReadWorkload finds an id
// that appears twice; the same in every call of one process. It tells the
// workload's ids apart unless Workload.IDCollision.
func IDHash(id string) uint64 { return maphash.String(idSeed, id) }

// scan reads workload.jsonl to its end: digest, counts, and duplicate ids.
func (w *Workload) scan() error {
	h := sha256.New()
	rd := workload.NewReader(io.TeeReader(w.f, h), w.Path)
	var ids []uint64
	for {
		j, err := rd.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return err
		}
		w.Count++
		w.Tasks += len(j.Tasks)
		if j.Kind == workload.Composite {
			w.Units += len(j.Tasks)
		} else {
			w.Units++
		}
		ids = append(ids, IDHash(j.ID))
	}
	// The scanner stops at the last line; the digest is of the whole file.
	if _, err := io.Copy(h, w.f); err != nil {
		return err
	}
	w.SHA256 = hex.EncodeToString(h.Sum(nil))
	slices.Sort(ids)
	var same map[uint64]bool
	for i := 1; i < len(ids); i++ {
		if ids[i] == ids[i-1] {
			if same == nil {
				same = map[uint64]bool{}
			}
			same[ids[i]] = true
		}
	}
	if same == nil {
		return nil
	}
	w.IDCollision = true
	return w.findTwice(same)
}

// findTwice reports the job id that appears twice among those whose hashes
// are in same (two different ids may share a hash: then none does).
func (w *Workload) findTwice(same map[uint64]bool) error {
	src, err := w.Stream()
	if err != nil {
		return err
	}
	seen := map[string]bool{}
	for {
		j, _, err := src.Next()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		if !same[IDHash(j.ID)] {
			continue
		}
		if seen[j.ID] {
			return fmt.Errorf("%s: job id %s appears twice", w.Path, j.ID)
		}
		seen[j.ID] = true
	}
}

// Jobs streams the workload's top-level jobs in file order, each with its
// index.
type Jobs struct {
	w    *Workload
	rd   *workload.Reader
	next int
}

// Stream starts reading workload.jsonl again from its first job; one
// stream at a time (they share the file).
func (w *Workload) Stream() (*Jobs, error) {
	if _, err := w.f.Seek(0, io.SeekStart); err != nil {
		return nil, err
	}
	return &Jobs{w: w, rd: workload.NewReader(w.f, w.Path)}, nil
}

// ErrWorkloadChanged is the error of a workload.jsonl that no longer reads
// as it did when the run began.
var ErrWorkloadChanged = errors.New("workload.jsonl changed during the run")

// Next returns the next job and its index, or io.EOF after the last one.
// A file that has fewer or more jobs than when it was first read is an
// error (it was edited in place).
func (s *Jobs) Next() (*workload.Job, int, error) {
	j, err := s.rd.Next()
	if err == io.EOF {
		if s.next != s.w.Count {
			return nil, 0, fmt.Errorf("%s: %w: %d jobs, %d when it was read", s.w.Path, ErrWorkloadChanged, s.next, s.w.Count)
		}
		return nil, 0, io.EOF
	}
	if err != nil {
		return nil, 0, err
	}
	if s.next == s.w.Count {
		return nil, 0, fmt.Errorf("%s: %w: more than the %d jobs it had", s.w.Path, ErrWorkloadChanged, s.w.Count)
	}
	idx := s.next
	s.next++
	return &j, idx, nil
}
