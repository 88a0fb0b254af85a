// Package outfile writes a command's output files the way a user expects of
// an output argument, whatever is at the path already:
//
//   - nothing, or a regular file: the output is written to a temporary file
//     beside it and renamed over it at Commit, so a reader never sees half a
//     file and a failed or interrupted write leaves the old file as it was;
//   - a symbolic link: followed (to any depth); the rule applies to what it
//     points at, so the link stays a link and its target gets the output;
//   - a FIFO or a character device (/dev/stdout, /dev/null, /dev/full, a
//     terminal): written through, with no temporary file and no rename, so
//     a reader at the other end gets the bytes and a full device is an error;
//   - anything else (a directory, a socket, a block device): refused.
//
// Writers that must have a regular file (SQLite databases, whose file is
// opened by path and seeked) use Stage, which refuses FIFOs and devices too.
package outfile

import (
	"errors"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// Perm is the mode of a new output file (before the umask).
const Perm fs.FileMode = 0o644

// Resolve follows path's symbolic links and reports where the output goes
// and whether it is written through (a FIFO or character device) rather
// than replaced. A path that does not exist yet resolves to itself (after
// resolving the links of a dangling chain), and its directory must exist.
func Resolve(path string) (final string, through bool, err error) {
	final = path
	for hops := 0; ; hops++ {
		fi, err := os.Lstat(final)
		if errors.Is(err, fs.ErrNotExist) {
			return final, false, nil
		}
		if err != nil {
			return "", false, err
		}
		switch m := fi.Mode(); {
		case m.IsRegular():
			return final, false, nil
		case m&fs.ModeSymlink != 0:
			if hops >= 40 {
				return "", false, fmt.Errorf("%s: too many levels of symbolic links", path)
			}
			dest, err := os.Readlink(final)
			if err != nil {
				return "", false, err
			}
			if !filepath.IsAbs(dest) {
				dest = filepath.Join(filepath.Dir(final), dest)
			}
			final = dest
		case m&fs.ModeNamedPipe != 0, m&fs.ModeCharDevice != 0:
			return final, true, nil
		case m.IsDir():
			return "", false, fmt.Errorf("%s is a directory; give a file name", path)
		default:
			return "", false, fmt.Errorf("%s is %s, not a file gmark can write to", path, Kind(m))
		}
	}
}

// Kind names the kind of file m describes, with its article ("a FIFO
// (named pipe)"), for messages that refuse a path.
func Kind(m fs.FileMode) string {
	switch {
	case m.IsRegular():
		return "a regular file"
	case m.IsDir():
		return "a directory"
	case m&fs.ModeSymlink != 0:
		return "a symbolic link"
	case m&fs.ModeNamedPipe != 0:
		return "a FIFO (named pipe)"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeCharDevice != 0:
		return "a character device"
	case m&fs.ModeDevice != 0:
		return "a block device"
	}
	return "a special file"
}

// File is an output being written. Write to it, then Commit; Close without
// Commit abandons the output (the temporary file is removed, the old file
// stays), so `defer f.Close()` is always safe.
type File struct {
	*os.File
	final     string // where the output ends up
	through   bool   // writing straight to final (FIFO, device)
	committed bool
	closed    bool
}

// Create opens path for writing under the rules of the package comment.
func Create(path string) (*File, error) {
	final, through, err := Resolve(path)
	if err != nil {
		return nil, err
	}
	if through {
		f, err := os.OpenFile(final, os.O_WRONLY, 0)
		if err != nil {
			return nil, err
		}
		return &File{File: f, final: final, through: true}, nil
	}
	f, err := createTemp(final)
	if err != nil {
		return nil, err
	}
	// A replaced file keeps its mode; a new one gets Perm less the umask,
	// as os.Create would give it.
	if fi, err := os.Stat(final); err == nil {
		if err := f.Chmod(fi.Mode().Perm()); err != nil {
			f.Close()
			os.Remove(f.Name())
			return nil, err
		}
	}
	return &File{File: f, final: final}, nil
}

// tempPrefix starts the hidden names of final's temporary files; the
// writer's pid follows it, so a later writer can tell a dead writer's
// leftovers from a live one's.
func tempPrefix(final string) string { return "." + filepath.Base(final) + ".partial-" }

// tempName is a hidden name beside final that no other writer uses.
func tempName(final string) string {
	return filepath.Join(filepath.Dir(final), tempPrefix(final)+strconv.Itoa(os.Getpid())+"-"+strconv.FormatUint(rand.Uint64(), 36))
}

// RemoveStale removes the temporary files that writers of final killed
// before Commit or Close left beside it (a kill -9 runs no cleanup): those
// whose pid names no live process. A live writer's file is never touched.
func RemoveStale(final string) {
	dir, prefix := filepath.Dir(final), tempPrefix(final)
	entries, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	for _, e := range entries {
		rest, ok := strings.CutPrefix(e.Name(), prefix)
		if !ok || e.IsDir() {
			continue
		}
		pidText, _, _ := strings.Cut(rest, "-")
		pid, err := strconv.Atoi(pidText)
		if err != nil || pid <= 0 || alive(pid) {
			continue
		}
		os.Remove(filepath.Join(dir, e.Name()))
	}
}

func createTemp(final string) (*os.File, error) {
	RemoveStale(final)
	for {
		f, err := os.OpenFile(tempName(final), os.O_RDWR|os.O_CREATE|os.O_EXCL, Perm)
		if errors.Is(err, fs.ErrExist) {
			continue
		}
		return f, err
	}
}

// Commit flushes the output to stable storage and puts it in place.
func (f *File) Commit() error {
	if f.closed {
		return fmt.Errorf("%s: commit after close", f.final)
	}
	f.closed = true
	if f.through {
		// A FIFO or a device cannot be synced; its write errors (a full
		// device, a reader gone) already came back from Write.
		return f.File.Close()
	}
	err := f.File.Sync()
	if cerr := f.File.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(f.File.Name(), f.final)
	}
	if err != nil {
		os.Remove(f.File.Name())
		return err
	}
	f.committed = true
	return syncDir(filepath.Dir(f.final))
}

// Close abandons an output not committed; after Commit it does nothing.
func (f *File) Close() error {
	if f.closed {
		return nil
	}
	f.closed = true
	err := f.File.Close()
	if !f.through {
		os.Remove(f.File.Name())
	}
	return err
}

// Final is where the output goes (the end of path's symbolic links).
func (f *File) Final() string { return f.final }

// WriteFile writes data to path under the rules of the package comment.
func WriteFile(path string, data []byte) error {
	f, err := Create(path)
	if err != nil {
		return err
	}
	defer f.Close()
	if _, err := f.Write(data); err != nil {
		return err
	}
	return f.Commit()
}

// Staged is an output that its writer opens by path (a SQLite database):
// the writer writes Temp, then Commit renames it over the final file.
type Staged struct {
	Temp  string // the path to write
	final string
	done  bool
}

// Stage prepares a regular-file output at path (through its symbolic
// links); a FIFO, a device or a directory is refused, since such writers
// need a file they can seek.
func Stage(path string) (*Staged, error) {
	final, through, err := Resolve(path)
	if err != nil {
		return nil, err
	}
	if through {
		return nil, fmt.Errorf("%s is not a regular file; this output must be written to a file", path)
	}
	// The writer creates the file itself, under a name no other writer uses.
	RemoveStale(final)
	return &Staged{Temp: tempName(final), final: final}, nil
}

// Commit puts the written file in place.
func (s *Staged) Commit() error {
	if s.done {
		return fmt.Errorf("%s: committed twice", s.final)
	}
	s.done = true
	if err := os.Rename(s.Temp, s.final); err != nil {
		s.removeTemp()
		return err
	}
	return syncDir(filepath.Dir(s.final))
}

// Abort removes what was written; after Commit it does nothing.
func (s *Staged) Abort() {
	if !s.done {
		s.done = true
		s.removeTemp()
	}
}

// removeTemp removes the staged file and the journal files SQLite may have
// left beside it.
func (s *Staged) removeTemp() {
	for _, suffix := range []string{"", "-journal", "-wal", "-shm"} {
		os.Remove(s.Temp + suffix)
	}
}

// syncDir makes a rename durable; file systems that cannot sync a
// directory are not an error.
func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return nil
	}
	defer d.Close()
	_ = d.Sync()
	return nil
}

// Check tells, before any work, whether path may be written the way Create
// writes it: a directory, a socket or a missing directory is refused; a
// regular file (at the end of any symbolic links) is replaced only with
// replace; a FIFO or a device is written through, which replaces nothing,
// unless the writer needs a regular file: regular names what needs one ("a
// GWF-SQLite database"), "" when a FIFO or a device will do.
func Check(path, regular string, replace bool) error {
	final, through, err := Resolve(path)
	if err != nil {
		return err
	}
	if through {
		if regular != "" {
			return fmt.Errorf("%s is not a regular file; %s must be written to a file", path, regular)
		}
		return nil
	}
	if fi, err := os.Stat(filepath.Dir(final)); err != nil || !fi.IsDir() {
		return fmt.Errorf("%s: the directory %s does not exist", path, filepath.Dir(final))
	}
	if _, err := os.Stat(final); err == nil && !replace {
		return fmt.Errorf("%s exists; use --force to replace it", path)
	}
	return nil
}

// CheckDir tells whether dir may hold the files of what (a directory of
// figures): it is a directory, or nothing is there yet.
func CheckDir(dir, what string) error {
	if fi, err := os.Stat(dir); err == nil && !fi.IsDir() {
		return fmt.Errorf("%s is not a directory; give a directory for %s", dir, what)
	}
	return nil
}
