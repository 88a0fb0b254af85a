package experiment

import (
	"bufio"
	"container/heap"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"github.com/gmark/gmark/analyzer/store"
	"github.com/gmark/gmark/gwa"
	"github.com/gmark/gmark/internal/outfile"
	"github.com/gmark/gmark/sim/topology"
)

// The formats ExportJobs writes.
const (
	JobsSWF = "swf" // the Standard Workload Format, with the simulated waits and runs
	JobsCSV = "csv" // the jobs.csv columns of Batsim (and evalys)
)

// ErrNoRun is returned for a run an experiment does not have.
var ErrNoRun = errors.New("no such run")

// JobsCSVColumns are the columns of the CSV export: Batsim's out_jobs.csv
// (which evalys reads) in its order, then gmark's own.
var JobsCSVColumns = []string{"job_id", "workload_name", "profile", "submission_time", "requested_number_of_resources", "requested_time",
	"success", "final_state", "starting_time", "execution_time", "finish_time", "waiting_time", "turnaround_time", "stretch",
	"allocated_resources", "consumed_energy", "metadata", "cluster", "home", "restarts", "gmark_state"}

// ExportJobs writes the per-job schedule of a run (its number as the
// report shows it, from 1) of the latest definition of an experiment, in
// one of the formats, streaming: the store gives the jobs one at a time.
func ExportJobs(db, name string, run int, format string, w io.Writer) error {
	if format != JobsSWF && format != JobsCSV {
		return fmt.Errorf("format %q: %s or %s", format, JobsSWF, JobsCSV)
	}
	st, err := store.OpenReadOnly(db)
	if err != nil {
		return err
	}
	defer st.Close()
	e, r, top, err := findRun(st, name, run)
	if err != nil {
		return err
	}
	wl := fmt.Sprintf("%s/run%d", e.Name, run)
	if format == JobsSWF {
		return exportSWF(st, e, r, top, wl, w)
	}
	return exportCSV(st, r, top, wl, w)
}

// findRun is run (from 1) of the latest definition of the experiment, and
// its topology as parsed.
func findRun(st *store.Store, name string, run int) (store.SimExperiment, store.SimRun, *topology.Topology, error) {
	var none store.SimExperiment
	all, err := st.SimExperiments()
	if errors.Is(err, store.ErrSimUnsupported) {
		all, err = nil, nil
	}
	if err != nil {
		return none, store.SimRun{}, nil, err
	}
	var names []string
	found := false
	for _, e := range all {
		if e.Name == name {
			none, found = e, true
		}
		names = append(names, e.Name)
	}
	if !found {
		return none, store.SimRun{}, nil, fmt.Errorf("%w %q in %s (experiments: %s)", ErrNoExperiment, name, st.Path(), strings.Join(orNone(names), ", "))
	}
	if run < 1 || run > none.Runs {
		return none, store.SimRun{}, nil, fmt.Errorf("%w: run %d of experiment %s, which has runs 1 to %d", ErrNoRun, run, name, none.Runs)
	}
	runs, err := st.SimRuns(none.ID)
	if err != nil {
		return none, store.SimRun{}, nil, err
	}
	var def struct {
		Nodes json.RawMessage `json:"topology_parsed"`
	}
	top := &topology.Topology{}
	if err := json.Unmarshal([]byte(none.Definition), &def); err != nil || json.Unmarshal(def.Nodes, top) != nil {
		return none, store.SimRun{}, nil, fmt.Errorf("%w: experiment %s: its definition has no topology", store.ErrDamaged, name)
	}
	for _, r := range runs {
		if r.Index == run-1 {
			return none, r, top, nil
		}
	}
	return none, store.SimRun{}, nil, fmt.Errorf("%w: experiment %s has no run %d", store.ErrDamaged, name, run)
}

// noJobs says how to get a run's jobs the store lacks.
func noJobs(err error, r store.SimRun) error {
	if errors.Is(err, store.ErrNoSimJobs) {
		return fmt.Errorf("%w (run %d): run the experiment with gmark sim run --jobs to record them", err, r.Index+1)
	}
	return err
}

func exportSWF(st *store.Store, e store.SimExperiment, r store.SimRun, top *topology.Topology, wl string, w io.Writer) error {
	lines := []string{"Version: 2.2",
		fmt.Sprintf("Computer: gmark sim, experiment %s, run %d (%s, load %s, repetition %d, seed %d)", e.Name, r.Index+1, r.Arch, loadLabel(r.Load), r.Rep, r.Seed),
		"Note: a simulated schedule: the wait and run times are the simulator's; the requested time is the estimate its schedulers used",
		"Note: status 1 finished, 0 failed, 5 rejected; -1 (with wait and run -1) still waiting, or running (run -1) at the end of the run",
		"Note: workload " + wl + ", run digest " + r.Digest,
		fmt.Sprintf("MaxProcs: %d", top.Processors())}
	for i := 0; i < top.Clusters; i++ {
		lines = append(lines, fmt.Sprintf("Partition: %d %s", i+1, top.Nodes[i].Name))
	}
	sw, err := gwa.NewSWFWriterHeader(w, &gwa.Header{Lines: lines})
	if err != nil {
		return err
	}
	rec := gwa.NewRecord()
	err = st.SimJobs(r.Digest, func(j *store.SimJob) error {
		rec = gwa.NewRecord()
		rec.JobID = j.ID
		rec.SubmitTime = seconds(j.SubmitNS)
		rec.NProcs, rec.ReqNProcs = float64(j.Procs), float64(j.Procs)
		if j.EstimateNS != nil {
			rec.ReqTime = seconds(*j.EstimateNS)
		}
		if j.StartNS != nil {
			rec.WaitTime = seconds(*j.StartNS - j.SubmitNS)
			if j.EndNS != nil {
				rec.RunTime = seconds(*j.EndNS - *j.StartNS)
			}
		}
		rec.Status = map[string]int{"finished": 1, "failed": 0, "rejected": 5}[j.State]
		if j.State == "waiting" || j.State == "running" {
			rec.Status = gwa.Missing
		}
		if i, ok := top.Index(j.Cluster); ok && j.Cluster != "" {
			rec.PartitionID = strconv.Itoa(i + 1)
		}
		return sw.Write(&rec)
	})
	if err != nil {
		return noJobs(err, r)
	}
	return sw.Close()
}

// seconds is a duration in nanoseconds in seconds.
func seconds(ns int64) float64 { return float64(ns) / 1e9 }

// exact writes nanoseconds as seconds in decimal, exactly.
func exact(ns int64) string {
	sign := ""
	if ns < 0 {
		sign, ns = "-", -ns
	}
	s := strconv.FormatInt(ns/1e9, 10)
	if f := ns % 1e9; f != 0 {
		s += strings.TrimRight(fmt.Sprintf(".%09d", f), "0")
	}
	return sign + s
}

func exportCSV(st *store.Store, r store.SimRun, top *topology.Topology, wl string, w io.Writer) error {
	cw := csv.NewWriter(w)
	if err := cw.Write(JobsCSVColumns); err != nil {
		return err
	}
	al := newAllocator(top)
	row := make([]string, len(JobsCSVColumns))
	err := st.SimJobsByStart(r.Digest, func(j *store.SimJob) error {
		for i := range row {
			row[i] = ""
		}
		row[0], row[1], row[3], row[4] = j.ID, wl, exact(j.SubmitNS), strconv.Itoa(j.Procs)
		if j.EstimateNS != nil {
			row[5] = exact(*j.EstimateNS)
		}
		row[6] = "0"
		row[7] = map[string]string{"finished": "COMPLETED_SUCCESSFULLY", "failed": "COMPLETED_FAILED", "rejected": "REJECTED",
			"waiting": "NOT_FINISHED", "running": "NOT_FINISHED"}[j.State]
		if j.State == "finished" {
			row[6] = "1"
		}
		if j.StartNS != nil {
			start := *j.StartNS
			row[8], row[11] = exact(start), exact(start-j.SubmitNS)
			end := int64(-1)
			if j.EndNS != nil {
				end = *j.EndNS
				row[9], row[10], row[12] = exact(end-start), exact(end), exact(end-j.SubmitNS)
				if end > start {
					row[13] = strconv.FormatFloat(float64(end-j.SubmitNS)/float64(end-start), 'g', -1, 64)
				}
			}
			row[14] = al.start(j.Cluster, j.Procs, start, end)
		}
		row[15] = "-1"
		row[17], row[18], row[19], row[20] = j.Cluster, j.Home, strconv.Itoa(j.Restarts), j.State
		return cw.Write(row)
	})
	if err != nil {
		return noJobs(err, r)
	}
	cw.Flush()
	return cw.Error()
}

// allocator gives the jobs of a schedule, replayed in the order of their
// starts, processor numbers: the lowest free on their cluster, numbered
// from 0 over the clusters in topology order (the simulator counts
// processors; it does not tell them apart). A job releases its processors
// at its end, before the starts at that time. A job that finds too few free
// (a co-allocated job of the core model, counted on its first component's
// cluster) gets none ("").
type allocator struct {
	free    map[string]*intervals
	running endHeap
}

type span struct{ lo, hi int } // processors lo..hi

type intervals []span

type running struct {
	end     int64
	cluster string
	spans   []span
}

type endHeap []running

func (h endHeap) Len() int           { return len(h) }
func (h endHeap) Less(i, j int) bool { return h[i].end < h[j].end }
func (h endHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *endHeap) Push(x any)        { *h = append(*h, x.(running)) }
func (h *endHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

func newAllocator(top *topology.Topology) *allocator {
	a := &allocator{free: map[string]*intervals{}}
	first := 0
	for i := 0; i < top.Clusters; i++ {
		n := top.Nodes[i].Processors
		a.free[top.Nodes[i].Name] = &intervals{{first, first + n - 1}}
		first += n
	}
	return a
}

// start allocates procs on cluster at time at, until end (-1: never), and
// returns them as an interval set ("0-3 8").
func (a *allocator) start(cluster string, procs int, at, end int64) string {
	for len(a.running) > 0 && a.running[0].end <= at {
		r := heap.Pop(&a.running).(running)
		a.free[r.cluster].add(r.spans)
	}
	f, ok := a.free[cluster]
	if !ok || f.count() < procs {
		return ""
	}
	got := f.take(procs)
	if end >= 0 {
		heap.Push(&a.running, running{end, cluster, got})
	}
	var b strings.Builder
	for i, s := range got {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(strconv.Itoa(s.lo))
		if s.hi > s.lo {
			b.WriteByte('-')
			b.WriteString(strconv.Itoa(s.hi))
		}
	}
	return b.String()
}

func (v *intervals) count() int {
	n := 0
	for _, s := range *v {
		n += s.hi - s.lo + 1
	}
	return n
}

// take removes the n lowest processors.
func (v *intervals) take(n int) []span {
	var got []span
	a := *v
	for n > 0 {
		s := &a[0]
		k := min(n, s.hi-s.lo+1)
		got = append(got, span{s.lo, s.lo + k - 1})
		n -= k
		if s.lo += k; s.lo > s.hi {
			a = a[1:]
		}
	}
	*v = append((*v)[:0], a...)
	return got
}

// add gives spans back, keeping the set sorted and merged.
func (v *intervals) add(spans []span) {
	a := *v
	for _, s := range spans {
		i := 0
		for i < len(a) && a[i].lo < s.lo {
			i++
		}
		a = append(a, span{})
		copy(a[i+1:], a[i:])
		a[i] = s
		if i+1 < len(a) && a[i].hi+1 == a[i+1].lo {
			a[i].hi = a[i+1].hi
			a = append(a[:i+1], a[i+2:]...)
		}
		if i > 0 && a[i-1].hi+1 == a[i].lo {
			a[i-1].hi = a[i].hi
			a = append(a[:i], a[i+1:]...)
		}
	}
	*v = a
}

// loadLabel is a load level as the reports write it.
func loadLabel(l float64) string {
	if l == AsRecorded {
		return "as recorded"
	}
	return num(l) + "%"
}

// ErrBadJobsRequest is returned by WriteJobs for arguments that ask for
// no one run's jobs.
var ErrBadJobsRequest = errors.New("bad request of a run's jobs")

// WriteJobs is gmark sim report --jobs: the jobs of run (from 1) of the
// one experiment named, in format (text or csv: the CSV; swf), to the file
// out ("" or "-": w; written through internal/outfile, replaced whole).
func WriteJobs(db string, names []string, run int, format, out string, w io.Writer) error {
	switch {
	case len(names) != 1:
		return fmt.Errorf("%w: --jobs takes one experiment (got %d)", ErrBadJobsRequest, len(names))
	case format == "text":
		format = JobsCSV
	case format != JobsCSV && format != JobsSWF:
		return fmt.Errorf("%w: --format %q: csv or swf with --jobs", ErrBadJobsRequest, format)
	}
	if err := storeExists(db); err != nil {
		return err
	}
	if out == "" || out == "-" {
		return ExportJobs(db, names[0], run, format, w)
	}
	if err := outfile.Check(out, "", true); err != nil {
		return fmt.Errorf("%w: %v", ErrBadOutput, err)
	}
	f, err := outfile.Create(out)
	if err != nil {
		return fmt.Errorf("%w: %v", ErrBadOutput, err)
	}
	defer f.Close()
	bw := bufio.NewWriterSize(f, 1<<16)
	if err := ExportJobs(db, names[0], run, format, bw); err != nil {
		return err
	}
	if err := bw.Flush(); err != nil {
		return err
	}
	return f.Commit()
}

// ErrNoStore is returned by the readers of a results store that is not
// there.
var ErrNoStore = errors.New("no results store")

// storeExists refuses, as bad input, a store that is not there (the
// readers would otherwise report SQLite's own error).
func storeExists(db string) error {
	if _, err := os.Stat(db); err != nil {
		return fmt.Errorf("%w %s (%v)", ErrNoStore, db, errors.Unwrap(err))
	}
	return nil
}

// BadInput tells the errors of the sim commands that are the user's input:
// a store that is not one, an experiment, a run or jobs it does not hold,
// an output that cannot be written.
func BadInput(err error) bool {
	for _, e := range []error{store.ErrDamaged, store.ErrNotFile, store.ErrNotStore, store.ErrNoSimJobs, ErrNoExperiment, ErrBadOutput, ErrNoRun, ErrBadJobsRequest, ErrNoStore} {
		if errors.Is(err, e) {
			return true
		}
	}
	return false
}
