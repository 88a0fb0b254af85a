package workload

import (
	"errors"
	"fmt"
	"github.com/gmark/gmark/internal/outfile"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// A workload directory is written into a hidden staging directory beside
// its output, ".NAME.partial-N", and renamed into place when it is
// complete, so that no reader ever sees half a workload.
//
// A writer holds an exclusive flock on its staging directory for as long as
// it writes; the kernel releases it when the writer exits, however it
// exits (kill -9 included). The next writer to the same output takes the
// lock of each staging directory it finds: one it can lock belongs to a
// dead writer and is removed, one it cannot is a live writer's and is left
// alone. The moments when a staging directory exists unlocked (just made,
// or just renamed) happen under a short flock on the parent directory,
// which the cleaner holds too, so it never mistakes a writer that is being
// born for a dead one.

// ErrOutputExists is returned by Commit when the output is a non-empty
// directory and replacing it was not asked for: it was there from the
// start, or another writer put it there meanwhile.
var ErrOutputExists = errors.New("output directory exists and is not empty")

// ErrNotWorkload is returned for an output that is a non-empty directory
// but not a workload directory: --force replaces workloads, never, say, a
// home directory given as -o by mistake.
var ErrNotWorkload = errors.New("is not a workload directory (it has neither " + ManifestFile + " nor " + JobsFile + "); it is never replaced")

// CheckOutput tells whether a workload may be written at dir (a path from
// ResolveOutputDir): when nothing or an empty directory is there, or, with
// replace, a workload directory.
func CheckOutput(dir string, replace bool) error {
	empty, err := isEmptyDir(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist) || err == nil && empty:
		return nil
	case err != nil:
		return err
	case !replace:
		return fmt.Errorf("%s: %w; use --force to replace it, or -o to choose another", dir, ErrOutputExists)
	}
	for _, name := range []string{ManifestFile, JobsFile} {
		if _, err := os.Lstat(filepath.Join(dir, name)); err == nil {
			return nil
		}
	}
	return fmt.Errorf("output %s %w", dir, ErrNotWorkload)
}

// Staging is a workload directory being written.
type Staging struct {
	// Dir is where to write the workload's files.
	Dir string
	// out is the output directory, its symbolic links resolved: Commit
	// renames Dir to out, so a link given as the output stays a link and
	// its target directory gets the workload.
	out  string
	lock *os.File // Dir, opened and flocked
}

// ResolveOutputDir returns the directory a workload given as out is written
// to: out itself, or, when out is a symbolic link to a directory, the link's
// target. It refuses anything else at out (a regular file, a FIFO, a device,
// a dangling link), which a workload directory would replace.
func ResolveOutputDir(out string) (string, error) {
	fi, err := os.Lstat(out)
	if errors.Is(err, fs.ErrNotExist) {
		return filepath.Abs(out)
	}
	if err != nil {
		return "", err
	}
	if fi.Mode()&fs.ModeSymlink != 0 {
		real, err := filepath.EvalSymlinks(out)
		if err != nil {
			dest, _ := os.Readlink(out)
			return "", fmt.Errorf("output %s is a symbolic link to %s, which does not exist: create that directory, or give -o another path", out, dest)
		}
		if fi, err = os.Stat(real); err != nil {
			return "", err
		}
		out = real
	}
	if !fi.IsDir() {
		return "", fmt.Errorf("output %s is %s, not a directory: a workload is a directory (give -o a new or a directory path)", out, outfile.Kind(fi.Mode()))
	}
	return filepath.Abs(out)
}

// stagingPrefix is the name prefix of the staging directories of out.
func stagingPrefix(out string) string { return "." + filepath.Base(out) + ".partial-" }

// isStagingName tells whether name is that of a staging directory, of any
// output: ".NAME.partial-" and MkdirTemp's decimal suffix.
func isStagingName(name string) bool {
	i := strings.LastIndex(name, ".partial-")
	if i < 2 || name[0] != '.' {
		return false
	}
	digits := name[i+len(".partial-"):]
	return digits != "" && strings.Trim(digits, "0123456789") == ""
}

// Stage starts writing the workload directory out (a path from
// ResolveOutputDir). It first removes the staging directories that killed
// writers to the same output left behind.
func Stage(out string) (*Staging, error) {
	parent := filepath.Dir(out)
	if err := os.MkdirAll(parent, 0o755); err != nil {
		return nil, err
	}
	unlock, err := lockDir(parent)
	if err != nil {
		return nil, err
	}
	defer unlock()
	if err := removeStale(out); err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp(parent, stagingPrefix(out))
	if err != nil {
		return nil, err
	}
	// MkdirTemp makes it private (0700); a workload directory is for
	// sharing, as one made by mkdir would be.
	if err := os.Chmod(dir, 0o755); err != nil {
		os.Remove(dir)
		return nil, err
	}
	lock, err := os.Open(dir)
	if err == nil {
		err = tryLock(lock)
		if err != nil {
			lock.Close()
		}
	}
	if err != nil {
		os.RemoveAll(dir)
		return nil, fmt.Errorf("lock %s: %w", dir, err)
	}
	return &Staging{Dir: dir, out: out, lock: lock}, nil
}

// removeStale removes the staging directories beside out whose writers are
// dead (their lock is free): out's own, and those of other outputs in the
// same directory, which nothing else would remove (gmark run writes each
// run's workload to a new name). The caller holds the parent's lock.
func removeStale(out string) error {
	if !haveLocks {
		return nil
	}
	parent := filepath.Dir(out)
	entries, err := os.ReadDir(parent)
	if err != nil {
		return err
	}
	for _, e := range entries {
		if !e.IsDir() || !isStagingName(e.Name()) {
			continue // not a staging directory; a symbolic link is never followed
		}
		dir := filepath.Join(parent, e.Name())
		f, err := os.Open(dir)
		if err != nil {
			continue // gone meanwhile, or not ours to open
		}
		if tryLock(f) == nil {
			err = os.RemoveAll(dir)
		}
		f.Close()
		if err != nil {
			return fmt.Errorf("remove the staging directory %s a killed gmark left: %w", dir, err)
		}
	}
	return nil
}

// Commit puts the staged workload at the output. An output that exists and
// is not empty is replaced only when replace is true and it is a workload
// (CheckOutput), else Commit fails with ErrOutputExists or ErrNotWorkload
// and the staging directory stays for Abort.
func (s *Staging) Commit(replace bool) error {
	unlock, err := lockDir(filepath.Dir(s.out))
	if err != nil {
		return err
	}
	var old *Staging
	defer func() {
		unlock()
		if old != nil { // removed outside the parent's lock: it may be large
			old.Abort()
		}
	}()
	fi, err := os.Lstat(s.out)
	switch {
	case errors.Is(err, fs.ErrNotExist):
	case err != nil:
		return err
	case !fi.IsDir():
		return fmt.Errorf("output %s became %s while the workload was generated; nothing was replaced", s.out, outfile.Kind(fi.Mode()))
	default:
		if err := CheckOutput(s.out, replace); err != nil {
			// It was checked before generating: another writer put it there.
			return fmt.Errorf("%w (another gmark wrote it while this one generated)", err)
		}
		// The old output is moved aside under a staging name, locked, so
		// that a crash from here on leaves it for the next writer to remove.
		if old, err = s.moveAside(); err != nil {
			return err
		}
	}
	if err := os.Rename(s.Dir, s.out); err != nil {
		return err
	}
	s.Dir = s.out
	err = s.lock.Close()
	s.lock = nil
	return err
}

// moveAside renames the existing output to a locked staging name.
func (s *Staging) moveAside() (*Staging, error) {
	f, err := os.Open(s.out)
	if err != nil {
		return nil, err
	}
	if err := tryLock(f); err != nil {
		f.Close()
		return nil, fmt.Errorf("lock %s: %w", s.out, err)
	}
	// A name no other writer uses: MkdirTemp's, with the directory it made
	// replaced by the old output.
	aside, err := os.MkdirTemp(filepath.Dir(s.out), stagingPrefix(s.out))
	if err == nil {
		if err = os.Remove(aside); err == nil {
			err = os.Rename(s.out, aside)
		}
	}
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("move the old %s aside: %w", s.out, err)
	}
	return &Staging{Dir: aside, out: s.out, lock: f}, nil
}

// Abort removes the staging directory and releases its lock; after Commit
// it does nothing.
func (s *Staging) Abort() {
	if s.lock == nil {
		return
	}
	os.RemoveAll(s.Dir)
	s.lock.Close()
	s.lock = nil
}

func isEmptyDir(dir string) (bool, error) {
	f, err := os.Open(dir)
	if err != nil {
		return false, err
	}
	defer f.Close()
	_, err = f.Readdirnames(1)
	if err == io.EOF {
		return true, nil
	}
	return false, err
}
