package apps

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"github.com/gmark/gmark/apps/jobenv"
	"github.com/gmark/gmark/apps/kernel"
)

func init() {
	register(&app{
		name:  "sserio",
		short: "sequential synthetic application with input and output files",
		long: `sser's supersteps, plus files. Before the first superstep it reads each input
file (--input1, --input2; sizes in KB of 1024 bytes, 0 for none) completely and
folds its bytes into memory. Input files are staged inputs shared by jobs:
gmark-input1-<KB>KB.dat and gmark-input2-<KB>KB.dat in --workdir; one that is
missing is created first (atomically, with deterministic content) and counted
as bytes_staged. After the last superstep it writes each output file
(--output1..3) with exactly KB×1024 bytes taken from memory:
<tag>.sserio-out1..3 in --workdir, where tag is GMARK_JOB_ID (or sserio-<pid>),
with .r<rank> added in a job of several processes.`,
		define: func(fs *flagSet) instance {
			var p bspParams
			p.define(fs)
			var in [2]int64
			var out [3]int64
			for i := range in {
				fs.Int(&in[i], "input"+strconv.Itoa(i+1), "KB", 64, 0, maxKB, fmt.Sprintf("size of input file %d in KB; 0: none", i+1))
			}
			for i := range out {
				fs.Int(&out[i], "output"+strconv.Itoa(i+1), "KB", 64, 0, maxKB, fmt.Sprintf("size of output file %d in KB; 0: none", i+1))
			}
			return instance{work: func(int) Work { return sserioWork(p, in, out) }, run: func(r *runner) error {
				mem, err := p.memory(r)
				if err != nil {
					return err
				}
				f := &files{r: r, mem: mem}
				f.report()
				for i, kb := range in {
					if kb > 0 {
						if err := f.readInput(i+1, kb); err != nil {
							return err
						}
					}
				}
				s := &stepper{r: r, p: p, mem: mem}
				if err := s.run(); err != nil {
					return err
				}
				for i, kb := range out {
					if kb > 0 {
						if err := f.writeOutput(i+1, kb); err != nil {
							return err
						}
					}
				}
				return nil
			}}
		},
	})
}

// maxKB bounds file sizes at 1 TiB.
const maxKB = 1 << 30

const chunk = 64 << 10

// files does sserio's I/O and counts it.
type files struct {
	r                                    *runner
	mem                                  *kernel.Memory
	off                                  int64 // where the next input byte is folded into memory
	bytesRead, bytesWritten, bytesStaged int64
	filesRead, filesWritten              int64
	ioS                                  float64
}

func (f *files) report() {
	f.r.sum.Set("bytes_read", f.bytesRead).Set("bytes_written", f.bytesWritten).
		Set("bytes_staged", f.bytesStaged).Set("files_read", f.filesRead).
		Set("files_written", f.filesWritten).Set("io_s", f.ioS)
}

func ioFailure(r *runner, err error) error {
	return &Failure{App: r.app, Reason: "io", Err: err}
}

// InputName is the file name of input file i (1 or 2) of kb KB.
func InputName(i int, kb int64) string {
	return fmt.Sprintf("gmark-input%d-%dKB.dat", i, kb)
}

// OutputName is the file name of output file i (1..3) of a process.
func OutputName(env jobenv.Env, pid, i int) string {
	tag := jobenv.Safe(env.JobID)
	if env.JobID == "" {
		tag = "sserio-" + strconv.Itoa(pid)
	}
	if env.Size > 1 {
		tag += ".r" + strconv.Itoa(env.Rank)
	}
	return fmt.Sprintf("%s.sserio-out%d", tag, i)
}

func (f *files) readInput(i int, kb int64) error {
	t0 := time.Now()
	defer func() { f.ioS += time.Since(t0).Seconds(); f.report() }()
	want := kb * 1024
	path := filepath.Join(f.r.workdir, InputName(i, kb))
	st, err := os.Stat(path)
	switch {
	case errors.Is(err, os.ErrNotExist):
		if err := StageInput(path, i, want); err != nil {
			return ioFailure(f.r, err)
		}
		f.bytesStaged += want
		f.r.logf("staged input %d: %s (%d bytes)", i, path, want)
	case err != nil:
		return ioFailure(f.r, err)
	case st.Size() != want:
		return ioFailure(f.r, fmt.Errorf("input file %s has %d bytes, but --input%d %d asks for %d (remove it to have it staged again)", path, st.Size(), i, kb, want))
	}
	in, err := os.Open(path)
	if err != nil {
		return ioFailure(f.r, err)
	}
	defer in.Close()
	buf := make([]byte, chunk)
	var got int64
	for {
		if f.r.stop.Load() {
			return stopped("reading input %d", i)
		}
		n, err := in.Read(buf)
		got += int64(n)
		f.bytesRead += int64(n)
		f.off = f.mem.FoldBytes(f.off, buf[:n])
		if err == io.EOF {
			break
		}
		if err != nil {
			return ioFailure(f.r, fmt.Errorf("reading %s: %w", path, err))
		}
	}
	if got != want {
		return ioFailure(f.r, fmt.Errorf("input file %s changed while being read: %d bytes read, %d expected", path, got, want))
	}
	f.filesRead++
	return nil
}

// StageInput creates input file i of size bytes at path, with
// deterministic pseudo-random content, atomically (temporary file, then
// rename), so concurrent jobs staging the same input never see a partial
// file. It is what sserio does for an input it does not find, and what a
// target does that stages the inputs itself (through an ARC CE's input
// files): the content is the same either way.
func StageInput(path string, i int, size int64) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), ".gmark-input-*")
	if err != nil {
		return fmt.Errorf("staging input %d: %w", i, err)
	}
	x := uint64(i)<<32 ^ uint64(size) ^ 0x9e3779b97f4a7c15
	buf := make([]byte, chunk)
	for left := size; left > 0 && err == nil; {
		for j := 0; j+8 <= len(buf); j += 8 {
			x ^= x << 13
			x ^= x >> 7
			x ^= x << 17
			binary.LittleEndian.PutUint64(buf[j:], x)
		}
		n := min(left, int64(len(buf)))
		_, err = tmp.Write(buf[:n])
		left -= n
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), path)
	}
	if err != nil {
		os.Remove(tmp.Name())
		return fmt.Errorf("staging input %d at %s: %w", i, path, err)
	}
	return nil
}

func (f *files) writeOutput(i int, kb int64) error {
	t0 := time.Now()
	defer func() { f.ioS += time.Since(t0).Seconds(); f.report() }()
	size := kb * 1024
	path := filepath.Join(f.r.workdir, OutputName(f.r.env, os.Getpid(), i))
	out, err := os.Create(path)
	if err != nil {
		return ioFailure(f.r, err)
	}
	buf := make([]byte, chunk)
	var off int64
	for left := size; left > 0; {
		if f.r.stop.Load() {
			out.Close()
			return stopped("writing output %d", i)
		}
		n := min(left, int64(len(buf)))
		off = f.mem.Fill(off, buf[:n])
		if _, err := out.Write(buf[:n]); err != nil {
			out.Close()
			return ioFailure(f.r, fmt.Errorf("writing %s: %w", path, err))
		}
		left -= n
		f.bytesWritten += n
	}
	if err := out.Close(); err != nil {
		return ioFailure(f.r, fmt.Errorf("writing %s: %w", path, err))
	}
	f.filesWritten++
	return nil
}
