package slurmarray

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/gmark/gmark/internal/slurmcli"
	"github.com/gmark/gmark/submitter/target"
)

// cluster is one Slurm cluster the arrays go to, reached through its own
// SLURM_CONF.
type cluster struct {
	name, partition string
	cmd             target.Command
	prefix          string // the names of this coordinator's arrays start with it

	configured bool
	maxArray   int    // tasks per array (MaxArraySize, at most maxArrayTasks)
	jobcomp    string // the job completion log (jobcomp/filetxt), "" when none or unreadable
	jcOffset   int64
	jcRecords  map[taskKey]slurmcli.Record
	jcBehind   bool // the last read stopped before the log's end

	failingSince       time.Time // squeue has failed since then (zero: it answers)
	sbatchFailingSince time.Time // sbatch has failed since then
}

// taskKey is an array task: the array's name and the task's index.
type taskKey struct {
	name string
	task int
}

// maxArrayTasks bounds an array: each task reads the whole manifest.
const maxArrayTasks = 10_000

// defaultMaxArray is Slurm's default MaxArraySize less one (indexes 0 to
// 1000): the array size when scontrol does not answer.
const defaultMaxArray = 1000

func (c *cluster) run(ctx context.Context, name string, args ...string) ([]byte, error) {
	return c.cmd.Run(ctx, name, args...)
}

// configure reads, once, the cluster's array size limit and where its
// job completion log is.
func (c *cluster) configure(ctx context.Context) {
	if c.configured {
		return
	}
	out, err := c.run(ctx, "scontrol", "show", "config")
	if err != nil {
		return // asked again at the next poll
	}
	c.configured = true
	cfg := slurmcli.ParseConfig(out)
	c.maxArray = defaultMaxArray
	if n, err := strconv.Atoi(cfg["MaxArraySize"]); err == nil && n > 1 {
		c.maxArray = min(n-1, maxArrayTasks)
	}
	if cfg["JobCompType"] == "jobcomp/filetxt" || cfg["JobCompType"] == "JobComp/FileTxt" {
		c.jobcomp = cfg["JobCompLoc"]
	}
	c.jcRecords = map[taskKey]slurmcli.Record{}
}

// view is what Slurm says of this coordinator's arrays on a cluster.
type view struct {
	tasks   map[taskKey]slurmcli.Record     // tasks squeue shows one by one
	pending map[string][]slurmcli.TaskRange // tasks squeue shows as one record of their array, not started
	arrays  map[string]int64                // array name → its job id, for every array squeue or the log knows
	waiting map[string]slurmcli.Record      // the record of the pending tasks of an array
}

// poll asks squeue for every job and keeps the tasks of this
// coordinator's arrays.
func (c *cluster) poll(ctx context.Context) (*view, error) {
	out, err := c.run(ctx, "squeue", "--json")
	if err != nil {
		return nil, err
	}
	recs, err := slurmcli.ParseSqueue(out)
	if err != nil {
		return nil, err
	}
	v := &view{tasks: map[taskKey]slurmcli.Record{}, pending: map[string][]slurmcli.TaskRange{}, arrays: map[string]int64{},
		waiting: map[string]slurmcli.Record{}}
	for _, r := range recs {
		if !strings.HasPrefix(r.Name, c.prefix) || r.ArrayJobID == 0 {
			continue
		}
		v.arrays[r.Name] = r.ArrayJobID
		if r.ArrayTasks == "" {
			v.tasks[taskKey{r.Name, int(r.ArrayTaskID)}] = r
			continue
		}
		if ranges, err := slurmcli.ArrayTasks(r.ArrayTasks); err == nil {
			v.pending[r.Name] = append(v.pending[r.Name], ranges...)
			v.waiting[r.Name] = r
		}
	}
	return v, nil
}

// task is what Slurm says of one task: squeue's record, else the job
// completion log's; ok is false when neither knows it.
func (c *cluster) task(v *view, k taskKey) (slurmcli.Record, bool) {
	if r, ok := v.tasks[k]; ok {
		return r, true
	}
	if slurmcli.HasTask(v.pending[k.name], k.task) {
		r := v.waiting[k.name]
		r.ArrayTaskID, r.ArrayTasks = int64(k.task), ""
		return r, true
	}
	r, ok := c.jcRecords[k]
	return r, ok
}

// jobCompChunk is the most of the job completion log read at a poll.
const jobCompChunk = 64 << 20

// needsJobComp reports whether squeue leaves a task of these slots, or an
// array not known to be submitted, unaccounted for: only then is the job
// completion log read (it may be large, and a task is normally seen ending
// in squeue, which keeps it MinJobAge, 300 s by default).
func (c *cluster) needsJobComp(v *view, slots map[taskKey]*slot) bool {
	for k, s := range slots {
		if s.a.c != c {
			continue
		}
		if _, known := v.arrays[k.name]; !known && !s.a.confirmed {
			return true
		}
		if _, ok := v.tasks[k]; !ok && !slurmcli.HasTask(v.pending[k.name], k.task) {
			return true
		}
	}
	return false
}

// readJobComp reads what the job completion log gained since the last
// call, keeping the records of this coordinator's arrays; a log that
// shrank (rotated) is read from its start.
func (c *cluster) readJobComp(v *view) {
	if c.jobcomp == "" {
		return
	}
	f, err := os.Open(c.jobcomp)
	if err != nil {
		return
	}
	defer f.Close()
	if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() {
		return
	} else if fi.Size() < c.jcOffset {
		c.jcOffset = 0
	}
	if _, err := f.Seek(c.jcOffset, io.SeekStart); err != nil {
		return
	}
	b, err := io.ReadAll(io.LimitReader(f, jobCompChunk))
	if err != nil {
		return
	}
	c.jcBehind = len(b) == jobCompChunk
	end := bytes.LastIndexByte(b, '\n') + 1 // whole lines only: the last may be half written
	recs, err := slurmcli.ParseJobComp(bytes.NewReader(b[:end]), time.Local)
	if err != nil {
		return
	}
	c.jcOffset += int64(end)
	for _, r := range recs {
		if strings.HasPrefix(r.Name, c.prefix) && r.ArrayJobID > 0 {
			c.jcRecords[taskKey{r.Name, int(r.ArrayTaskID)}] = r
			if _, ok := v.arrays[r.Name]; !ok {
				v.arrays[r.Name] = r.ArrayJobID
			}
		}
	}
	for k, r := range c.jcRecords {
		if _, ok := v.arrays[k.name]; !ok {
			v.arrays[k.name] = r.ArrayJobID
		}
	}
}

// sbatch submits an array and returns its job id.
func (c *cluster) sbatch(ctx context.Context, args ...string) (int64, error) {
	if c.partition != "" {
		args = append([]string{"--partition=" + c.partition}, args...)
	}
	out, err := c.run(ctx, "sbatch", args...)
	if err != nil {
		return 0, err
	}
	text := strings.TrimSpace(string(out))
	idText, _, _ := strings.Cut(text, ";")
	id, err := strconv.ParseInt(idText, 10, 64)
	if err != nil || id < 1 {
		return 0, fmt.Errorf("sbatch printed %q, not a job id", text)
	}
	return id, nil
}
