package submitter

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

// workloadInfo is what Run knows of the workload directory before the run:
// its jobs are not held, but streamed from workload.jsonl as they are due
// (stream), so the submitter's memory does not grow with the workload.
type workloadInfo struct {
	path     string
	f        *os.File // workload.jsonl, open for the run
	count    int      // top-level jobs
	units    int      // unitary jobs and tasks: the submissions of a run without retries
	tasks    int      // tasks of composite jobs
	sha256   string
	manifest []byte
	m        *workload.Manifest
	jobs     []workload.Job // read only by RecordRun (readWorkloadJobs)
	// idCollision: two of the workload's job ids have the same 64-bit hash
	// (idSeed), so the hashes do not tell them apart.
	idCollision bool
}

// readWorkload reads the workload directory once, to its end: the digest
// of workload.jsonl, its job counts, and a check that every job parses and
// no job id appears twice. The file is kept open: the run streams its jobs
// from the same file (a workload.jsonl replaced during the run is not
// read), and close releases it.
func readWorkload(dir string) (*workloadInfo, error) {
	f, err := workload.OpenJobs(dir)
	if err != nil {
		return nil, err
	}
	w := &workloadInfo{path: f.Name(), f: f}
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

// readWorkloadJobs is readWorkload with every job read into memory, for
// RecordRun (a run recorded whole, after the fact).
func readWorkloadJobs(dir string) (*workloadInfo, error) {
	w, err := readWorkload(dir)
	if err != nil {
		return nil, err
	}
	defer w.close()
	src, err := w.stream()
	if err != nil {
		return nil, err
	}
	w.jobs = make([]workload.Job, 0, w.count)
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

func (w *workloadInfo) close() {
	if w.f != nil {
		w.f.Close()
	}
}

// idSeed makes the 64-bit hashes of job ids by which scan finds an id that
// appears twice (8 bytes a job, for the scan only).
var idSeed = maphash.MakeSeed()

// scan reads workload.jsonl to its end: digest, counts, and duplicate ids.
func (w *workloadInfo) scan() error {
	h := sha256.New()
	rd := workload.NewReader(io.TeeReader(w.f, h), w.path)
	var ids []uint64
	for {
		j, err := rd.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return err
		}
		w.count++
		w.tasks += len(j.Tasks)
		if j.Kind == workload.Composite {
			w.units += len(j.Tasks)
		} else {
			w.units++
		}
		ids = append(ids, maphash.String(idSeed, j.ID))
	}
	// The scanner stops at the last line; the digest is of the whole file.
	if _, err := io.Copy(h, w.f); err != nil {
		return err
	}
	w.sha256 = hex.EncodeToString(h.Sum(nil))
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
	w.idCollision = true
	return w.findTwice(same)
}

// findTwice reports the job id that appears twice among those whose hashes
// are in same (two different ids may share a hash: then none does).
func (w *workloadInfo) findTwice(same map[uint64]bool) error {
	src, err := w.stream()
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
		if !same[maphash.String(idSeed, j.ID)] {
			continue
		}
		if seen[j.ID] {
			return fmt.Errorf("%s: job id %s appears twice", w.path, j.ID)
		}
		seen[j.ID] = true
	}
}

// jobSource streams the workload's top-level jobs in file order, each with
// its index.
type jobSource struct {
	w    *workloadInfo
	rd   *workload.Reader
	next int
	held *top // read ahead by the dispatcher, not yet due
}

// stream starts reading workload.jsonl again from its first job.
func (w *workloadInfo) stream() (*jobSource, error) {
	if _, err := w.f.Seek(0, io.SeekStart); err != nil {
		return nil, err
	}
	return &jobSource{w: w, rd: workload.NewReader(w.f, w.path)}, nil
}

// errWorkloadChanged is the error of a workload.jsonl that no longer reads
// as it did when the run began.
var errWorkloadChanged = errors.New("workload.jsonl changed during the run")

// Next returns the next job and its index, or io.EOF after the last one.
// A file that has fewer or more jobs than when it was first read is an
// error (it was edited in place).
func (s *jobSource) Next() (*workload.Job, int, error) {
	j, err := s.rd.Next()
	if err == io.EOF {
		if s.next != s.w.count {
			return nil, 0, fmt.Errorf("%s: %w: %d jobs, %d when it was read", s.w.path, errWorkloadChanged, s.next, s.w.count)
		}
		return nil, 0, io.EOF
	}
	if err != nil {
		return nil, 0, err
	}
	if s.next == s.w.count {
		return nil, 0, fmt.Errorf("%s: %w: more than the %d jobs it had", s.w.path, errWorkloadChanged, s.w.count)
	}
	idx := s.next
	s.next++
	return &j, idx, nil
}

// bitset is a set of job indexes, one bit each.
type bitset []uint64

func newBitset(n int) bitset    { return make(bitset, (n+63)/64) }
func (b bitset) set(i int)      { b[i/64] |= 1 << (i % 64) }
func (b bitset) has(i int) bool { return i/64 < len(b) && b[i/64]&(1<<(i%64)) != 0 }
