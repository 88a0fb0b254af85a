package experiment

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"

	"github.com/gmark/gmark/analyzer/store"
	"github.com/gmark/gmark/sim"
	"github.com/gmark/gmark/sim/topology"
)

// jobRecorder is a run's observer that keeps its per-job schedule (gmark
// sim run --jobs): each job is written to a spill file as it leaves the
// run, and those still in it when the run stops at the end, so the store
// gets them with the run's result, in one transaction, without the run
// holding them: it holds only the jobs in the system, as the simulator
// does. The recorder only watches: the run is the same with it or without.
type jobRecorder struct {
	top      *topology.Topology
	in       map[*sim.Job]bool // arrived, not gone; true once started
	f        *os.File
	unlinked bool
	w        *bufio.Writer
	br       *bufio.Reader
	buf      []byte
	n        int
	err      error
}

// The states of a job in the spill file, by index in store.SimJobStates.
const (
	spillFinished = iota
	spillFailed
	spillRejected
	spillWaiting
	spillRunning
)

func newJobRecorder(top *topology.Topology) (*jobRecorder, error) {
	f, err := os.CreateTemp("", "gmark-sim-jobs-*")
	if err != nil {
		return nil, fmt.Errorf("per-job rows: %w", err)
	}
	// Unlinked at once where the system allows: a process killed leaves
	// nothing behind (elsewhere close removes it).
	unlinked := os.Remove(f.Name()) == nil
	return &jobRecorder{top: top, in: map[*sim.Job]bool{}, f: f, unlinked: unlinked, w: bufio.NewWriterSize(f, 1<<16)}, nil
}

// Arrived implements sim.Observer.
func (r *jobRecorder) Arrived(j *sim.Job) { r.in[j] = false }

// Started implements sim.Observer.
func (r *jobRecorder) Started(j *sim.Job) { r.in[j] = true }

// Ended implements sim.Observer: the job finished.
func (r *jobRecorder) Ended(j *sim.Job) {
	started := r.in[j]
	delete(r.in, j)
	r.write(j, spillFinished, started, true)
}

// Dropped implements sim.Dropper: rejected, or ended without success.
func (r *jobRecorder) Dropped(j *sim.Job) {
	started := r.in[j]
	delete(r.in, j)
	if j.State() == sim.JobRejected {
		r.write(j, spillRejected, false, false)
		return
	}
	r.write(j, spillFailed, started, started)
}

// stop writes the jobs still in the system, in arrival order, and makes
// the spill file ready to be read.
func (r *jobRecorder) stop() error {
	left := make([]*sim.Job, 0, len(r.in))
	for j := range r.in {
		left = append(left, j)
	}
	slices.SortFunc(left, func(a, b *sim.Job) int { return a.Seq - b.Seq })
	for _, j := range left {
		if j.State() == sim.JobRunning {
			r.write(j, spillRunning, true, false)
		} else {
			r.write(j, spillWaiting, false, false)
		}
	}
	r.in = nil
	if r.err == nil {
		r.err = r.w.Flush()
	}
	if r.err == nil {
		_, r.err = r.f.Seek(0, io.SeekStart)
	}
	r.br = bufio.NewReaderSize(r.f, 1<<16)
	return r.err
}

// write appends one job to the spill file: varints, the id and the
// cluster indices (+1, 0 for none) as they are.
func (r *jobRecorder) write(j *sim.Job, state int, started, ended bool) {
	if r.err != nil {
		return
	}
	b := r.buf[:0]
	b = binary.AppendUvarint(b, uint64(j.Seq))
	b = binary.AppendUvarint(b, uint64(len(j.ID)))
	b = append(b, j.ID...)
	b = append(b, byte(state))
	b = binary.AppendVarint(b, int64(j.Submit))
	flags := byte(0)
	if started {
		flags |= 1
	}
	if ended {
		flags |= 2
	}
	b = append(b, flags)
	b = binary.AppendVarint(b, int64(j.Start))
	b = binary.AppendVarint(b, int64(j.End))
	b = binary.AppendUvarint(b, uint64(j.Procs))
	b = binary.AppendVarint(b, int64(j.Est))
	b = binary.AppendVarint(b, int64(j.Work))
	cluster := -1
	if started {
		cluster = j.Cluster
	}
	b = binary.AppendUvarint(b, uint64(cluster+1))
	b = binary.AppendUvarint(b, uint64(j.Home+1))
	b = binary.AppendUvarint(b, uint64(j.Restarts))
	r.buf = b
	_, r.err = r.w.Write(b)
	r.n++
}

// next reads the spilled jobs back, one at a time, for
// store.Tx.InsertSimJobs.
func (r *jobRecorder) next(out *store.SimJob) (bool, error) {
	br := r.br
	if _, err := br.Peek(1); errors.Is(err, io.EOF) {
		return false, nil
	}
	u := func() uint64 {
		v, err := binary.ReadUvarint(br)
		if err != nil && r.err == nil {
			r.err = err
		}
		return v
	}
	v := func() int64 {
		x, err := binary.ReadVarint(br)
		if err != nil && r.err == nil {
			r.err = err
		}
		return x
	}
	by := func() byte {
		c, err := br.ReadByte()
		if err != nil && r.err == nil {
			r.err = err
		}
		return c
	}
	out.Seq = int(u())
	id := make([]byte, u())
	if _, err := io.ReadFull(br, id); err != nil && r.err == nil {
		r.err = err
	}
	out.ID = string(id)
	state := int(by())
	out.SubmitNS = v()
	flags := by()
	start, end := v(), v()
	out.Procs = int(u())
	est, work := v(), v()
	cluster, home := int(u())-1, int(u())-1
	out.Restarts = int(u())
	if r.err != nil {
		return false, fmt.Errorf("per-job rows: reading the spill file: %w", r.err)
	}
	if state >= len(store.SimJobStates) {
		return false, fmt.Errorf("per-job rows: a spilled state %d", state)
	}
	out.State = store.SimJobStates[state]
	if flags&1 != 0 {
		out.StartNS = &start
	}
	if flags&2 != 0 {
		out.EndNS = &end
	}
	if est > 0 {
		out.EstimateNS = &est
	}
	out.WorkNS = work
	out.Cluster, out.Home = r.nodeName(cluster), r.nodeName(home)
	return true, nil
}

func (r *jobRecorder) nodeName(i int) string {
	if i < 0 || i >= len(r.top.Nodes) {
		return ""
	}
	return r.top.Nodes[i].Name
}

// insert writes the spilled jobs into the store (nothing for a nil
// recorder).
func (r *jobRecorder) insert(tx *store.Tx, digest string) error {
	if r == nil {
		return nil
	}
	n, err := tx.InsertSimJobs(digest, r.next)
	if err == nil && n != r.n {
		err = fmt.Errorf("per-job rows: %d spilled, %d read back", r.n, n)
	}
	return err
}

func (r *jobRecorder) close() {
	if r == nil {
		return
	}
	r.f.Close()
	if !r.unlinked {
		os.Remove(r.f.Name())
	}
}
