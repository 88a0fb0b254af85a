// Package slurmcli reads what Slurm's client commands print, for the Slurm
// target (submitter/slurm) and the bundled core's Slurm clusters (koala):
// squeue --json (the shapes of 22.05 and 23+), the jobcomp/filetxt job
// completion log, scontrol show config and sinfo's CPU and node counts, and the
// messages by which Slurm says "not now".
package slurmcli

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/gmark/gmark/internal/srcerr"
)

// Record is what gmark needs of one Slurm job, from squeue --json or the
// job completion log. Times are Unix seconds (Slurm's resolution), 0 when
// unknown.
type Record struct {
	ID       int64  `json:"job_id"`
	Cluster  string `json:"cluster"`
	Name     string `json:"name"`
	Comment  string `json:"comment,omitempty"`
	State    string `json:"state"`
	Reason   string `json:"reason,omitempty"`
	Submit   int64  `json:"submit_time"`
	Start    int64  `json:"start_time"`
	End      int64  `json:"end_time"`
	Exit     int    `json:"exit_code"` // the program's exit status
	Signal   int    `json:"signal,omitempty"`
	Nodes    string `json:"nodes,omitempty"`
	HetJobID int64  `json:"het_job_id,omitempty"`
	HetOff   int64  `json:"het_job_offset,omitempty"`
	Requeue  bool   `json:"requeue,omitempty"` // Slurm requeues it after a node failure
	Source   string `json:"source"`            // "squeue" or "jobcomp"
	// A job array's task: the array's job id and the task's index. squeue
	// shows the tasks that have not started as one record of the array,
	// whose ArrayTasks lists them ("2-5%2"; ArrayTasks reads it): a record
	// is one task when ArrayJobID > 0 and ArrayTasks is "".
	ArrayJobID  int64  `json:"array_job_id,omitempty"`
	ArrayTaskID int64  `json:"array_task_id,omitempty"`
	ArrayTasks  string `json:"array_tasks,omitempty"`
	// The processors the job was given or asks for (squeue's cpus; 0:
	// unknown) and its partition, as squeue reports them (not stored).
	CPUs      int64  `json:"-"`
	Partition string `json:"-"`
}

// squeueJob is the part of an squeue --json job that gmark reads. Fields
// whose shape changed between Slurm versions are decoded by hand: in 22.05
// job_state is a string and exit_code the wait status as an integer; in
// 23.02 and later job_state is a list and exit_code an object.
type squeueJob struct {
	JobID       int64           `json:"job_id"`
	Cluster     string          `json:"cluster"`
	Name        string          `json:"name"`
	Comment     string          `json:"comment"`
	JobState    json.RawMessage `json:"job_state"`
	StateReason string          `json:"state_reason"`
	SubmitTime  json.RawMessage `json:"submit_time"`
	StartTime   json.RawMessage `json:"start_time"`
	EndTime     json.RawMessage `json:"end_time"`
	ExitCode    json.RawMessage `json:"exit_code"`
	Nodes       string          `json:"nodes"`
	HetJobID    json.RawMessage `json:"het_job_id"`
	HetJobOff   json.RawMessage `json:"het_job_offset"`
	Requeue     bool            `json:"requeue"`
	ArrayJobID  json.RawMessage `json:"array_job_id"`
	ArrayTaskID json.RawMessage `json:"array_task_id"`
	ArrayTasks  string          `json:"array_task_string"`
	CPUs        json.RawMessage `json:"cpus"`
	Partition   string          `json:"partition"`
}

type squeueOut struct {
	Errors []struct {
		Description string `json:"description"`
		Error       string `json:"error"`
		Number      int    `json:"error_number"`
	} `json:"errors"`
	Jobs []squeueJob `json:"jobs"`
}

// ParseSqueue reads the output of squeue --json. A reply with errors (the
// controller could not be reached) is an error, whatever the exit status.
func ParseSqueue(b []byte) ([]Record, error) {
	var out squeueOut
	if err := json.Unmarshal(b, &out); err != nil {
		return nil, fmt.Errorf("squeue --json: %v", err)
	}
	if len(out.Errors) > 0 {
		var msgs []string
		for _, e := range out.Errors {
			m := e.Description
			if e.Error != "" {
				m += ": " + e.Error
			}
			msgs = append(msgs, m)
		}
		return nil, fmt.Errorf("squeue: %s", strings.Join(msgs, "; "))
	}
	recs := make([]Record, 0, len(out.Jobs))
	for _, j := range out.Jobs {
		r := Record{ID: j.JobID, Cluster: j.Cluster, Name: j.Name, Comment: j.Comment, Reason: j.StateReason,
			Nodes: j.Nodes, Requeue: j.Requeue, Source: "squeue"}
		r.State = jsonState(j.JobState)
		r.Submit, r.Start, r.End = jsonNumber(j.SubmitTime), jsonNumber(j.StartTime), jsonNumber(j.EndTime)
		r.HetJobID, r.HetOff = jsonNumber(j.HetJobID), jsonNumber(j.HetJobOff)
		r.Exit, r.Signal = jsonExit(j.ExitCode)
		r.ArrayJobID, r.ArrayTaskID, r.ArrayTasks = jsonNumber(j.ArrayJobID), jsonNumber(j.ArrayTaskID), j.ArrayTasks
		r.CPUs, r.Partition = jsonNumber(j.CPUs), j.Partition
		if r.check() {
			recs = append(recs, r)
		}
	}
	return recs, nil
}

// maxUnixSeconds is the latest time a controller may report (2242-03-16),
// as submitter/target's MaxUnixSeconds: anything later is a garbled field.
const maxUnixSeconds = 1 << 33

// unixSeconds is v, or 0 (unknown) outside [1, maxUnixSeconds].
func unixSeconds(v int64) int64 {
	if v < 1 || v > maxUnixSeconds {
		return 0
	}
	return v
}

// Slurm's job ids are 32-bit; a heterogeneous job has at most 128
// components (MAX_HET_JOB_COMPONENTS); an array's task indexes are below
// MaxArraySize, at most 4,000,001.
const (
	maxJobID      = 1<<32 - 1
	maxHetOffset  = 127
	MaxArrayIndex = 4_000_000
)

// check keeps a record's numbers within their ranges: times outside are
// unknown (0), an exit status or signal outside is 0; a record without a
// valid job id is no record (false).
func (r *Record) check() bool {
	if r.ID < 1 || r.ID > maxJobID {
		return false
	}
	r.Submit, r.Start, r.End = unixSeconds(r.Submit), unixSeconds(r.Start), unixSeconds(r.End)
	if r.HetJobID < 0 || r.HetJobID > maxJobID || r.HetOff < 0 || r.HetOff > maxHetOffset {
		r.HetJobID, r.HetOff = 0, 0
	}
	if r.Exit < 0 || r.Exit > 255 {
		r.Exit = 0
	}
	if r.Signal < 0 || r.Signal > 127 {
		r.Signal = 0
	}
	if r.ArrayJobID < 0 || r.ArrayJobID > maxJobID || r.ArrayTaskID < 0 || r.ArrayTaskID > MaxArrayIndex {
		// Slurm's "no value" (0xfffffffe) of a job that is not an array's.
		r.ArrayJobID, r.ArrayTaskID, r.ArrayTasks = 0, 0, ""
	}
	if r.CPUs < 0 || r.CPUs > maxCPUs {
		r.CPUs = 0
	}
	return true
}

// maxCPUs bounds a job's processors (Slurm's are 32-bit counts; a larger
// value is a garbled field, or "no value").
const maxCPUs = 1 << 30

// jsonState reads "RUNNING" or ["RUNNING", …].
func jsonState(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var list []string
	if json.Unmarshal(raw, &list) == nil && len(list) > 0 {
		return list[0]
	}
	return ""
}

// jsonNumber reads 12, null, or {"set":true,"number":12} (Slurm 23+).
func jsonNumber(raw json.RawMessage) int64 {
	if len(raw) == 0 {
		return 0
	}
	var n int64
	if json.Unmarshal(raw, &n) == nil {
		return n
	}
	var f float64
	if json.Unmarshal(raw, &f) == nil {
		return int64(f)
	}
	var o struct {
		Set    bool  `json:"set"`
		Number int64 `json:"number"`
	}
	if json.Unmarshal(raw, &o) == nil && o.Set {
		return o.Number
	}
	return 0
}

// jsonExit reads the exit code: a wait status (22.05) or
// {"return_code":…, "signal":{"id":…}} (23+).
func jsonExit(raw json.RawMessage) (exit, signal int) {
	var n int64
	if json.Unmarshal(raw, &n) == nil {
		return int(n>>8) & 0xff, int(n & 0x7f)
	}
	var o struct {
		ReturnCode json.RawMessage `json:"return_code"`
		Signal     struct {
			ID json.RawMessage `json:"id"`
		} `json:"signal"`
	}
	if json.Unmarshal(raw, &o) == nil {
		return int(jsonNumber(o.ReturnCode)), int(jsonNumber(o.Signal.ID))
	}
	return 0, 0
}

// ParseJobComp reads a jobcomp/filetxt log: one line per finished job of
// "Key=Value" fields, times in the controller's local time.
func ParseJobComp(r io.Reader, loc *time.Location) ([]Record, error) {
	var recs []Record
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		if r, ok := ParseJobCompLine(sc.Bytes(), loc); ok {
			recs = append(recs, r)
		}
	}
	return recs, sc.Err()
}

// ParseJobCompLine reads one line of a jobcomp/filetxt log; false for a
// line that is not a job's record.
func ParseJobCompLine(line []byte, loc *time.Location) (Record, bool) {
	line = bytes.TrimSpace(line)
	if len(line) == 0 {
		return Record{}, false
	}
	f := map[string]string{}
	for _, kv := range strings.Fields(string(line)) {
		if k, v, ok := strings.Cut(kv, "="); ok {
			f[k] = v
		}
	}
	id, err := strconv.ParseInt(f["JobId"], 10, 64)
	if err != nil {
		return Record{}, false
	}
	r := Record{ID: id, Name: f["Name"], State: f["JobState"], Source: "jobcomp", Nodes: f["NodeList"]}
	if r.Nodes == "(null)" {
		r.Nodes = ""
	}
	r.Submit = slurmTime(f["SubmitTime"], loc)
	r.Start = slurmTime(f["StartTime"], loc)
	r.End = slurmTime(f["EndTime"], loc)
	if a, b, ok := strings.Cut(f["ExitCode"], ":"); ok {
		r.Exit, _ = strconv.Atoi(a)
		r.Signal, _ = strconv.Atoi(b)
	}
	r.HetJobID, _ = strconv.ParseInt(f["HetJobId"], 10, 64)
	r.HetOff, _ = strconv.ParseInt(f["HetJobOffset"], 10, 64)
	r.ArrayJobID, _ = strconv.ParseInt(f["ArrayJobId"], 10, 64)
	r.ArrayTaskID, _ = strconv.ParseInt(f["ArrayTaskId"], 10, 64)
	return r, r.check()
}

func slurmTime(s string, loc *time.Location) int64 {
	if s == "" || s == "Unknown" || s == "None" {
		return 0
	}
	t, err := time.ParseInLocation("2006-01-02T15:04:05", s, loc)
	if err != nil {
		return 0
	}
	return t.Unix()
}

// ParseConfig reads `scontrol show config` into key → value.
func ParseConfig(b []byte) map[string]string {
	m := map[string]string{}
	for _, line := range strings.Split(string(b), "\n") {
		k, v, ok := strings.Cut(line, "=")
		if !ok {
			continue
		}
		m[strings.TrimSpace(k)] = strings.TrimSpace(v)
	}
	return m
}

// Class is the record's state as gmark sees it. A node failure of a job
// Slurm requeues is not its end: it will run again.
func (r *Record) Class() string {
	if r.State == "NODE_FAIL" && r.Requeue && r.Source == "squeue" {
		return "queued"
	}
	return StateClass(r.State)
}

// StateClass is a Slurm job state as gmark sees it: queued, running,
// succeeded, cancelled or failed.
func StateClass(s string) string {
	switch s {
	case "PENDING", "CONFIGURING", "REQUEUED", "REQUEUE_HOLD", "REQUEUE_FED", "RESV_DEL_HOLD", "POWER_UP_NODE":
		return "queued"
	case "RUNNING", "COMPLETING", "SIGNALING", "STAGE_OUT", "SUSPENDED", "RESIZING", "UPDATE_DB":
		return "running"
	case "COMPLETED":
		return "succeeded"
	case "CANCELLED":
		return "cancelled"
	case "FAILED", "TIMEOUT", "NODE_FAIL", "OUT_OF_MEMORY", "BOOT_FAIL", "DEADLINE", "PREEMPTED", "SPECIAL_EXIT", "REVOKED":
		return "failed"
	}
	return "queued"
}

// TransientMessages are Slurm's ways of saying "not now": a failed command
// whose standard error says one of them may be tried again.
var TransientMessages = []string{
	"Unable to contact slurm controller", "Socket timed out", "Connection refused", "Zero Bytes were transmitted",
	"temporarily unavailable", "Slurm temporarily unable", "Resource temporarily unavailable", "Transport endpoint",
	"Communication connection failure", "Slurm backup controller in standby mode", "timed out", "Too many pending jobs",
	"unable to connect", "Connection reset",
}

// CPUs is a cluster's processors as sinfo counts them.
type CPUs struct {
	Allocated, Idle, Other, Total int
}

// ParseCPUs reads the output of `sinfo -h -o %C` ("allocated/idle/other/total",
// one line per partition; the lines are summed). An empty output is a
// cluster with no nodes (all zero); a malformed line is an error.
func ParseCPUs(b []byte) (CPUs, error) {
	var c CPUs
	for i, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		line = strings.TrimSpace(line)
		if line == "" {
			continue
		}
		f := strings.Split(line, "/")
		if len(f) != 4 {
			return CPUs{}, fmt.Errorf("sinfo line %d: %q is not allocated/idle/other/total", i+1, line)
		}
		var n [4]int
		for k, v := range f {
			x, err := strconv.Atoi(v)
			if err != nil || x < 0 || x > 1<<30 {
				return CPUs{}, fmt.Errorf("sinfo line %d: %q is not a CPU count", i+1, v)
			}
			n[k] = x
		}
		if n[0]+n[1]+n[2] != n[3] {
			return CPUs{}, fmt.Errorf("sinfo line %d: %d+%d+%d is not the total %d", i+1, n[0], n[1], n[2], n[3])
		}
		c.Allocated, c.Idle, c.Other, c.Total = c.Allocated+n[0], c.Idle+n[1], c.Other+n[2], c.Total+n[3]
	}
	return c, nil
}

// NodesFormat is the sinfo format ParseNodes reads: `sinfo -h -o "%P %D"`,
// a partition (its name followed by "*" when it is the default one) and a
// count of nodes, one line per partition and node state.
const NodesFormat = "%P %D"

// Partition is one partition's node count, as sinfo gives it.
type Partition struct {
	Name    string
	Default bool // the cluster's default partition
	Nodes   int  // in every state: a heterogeneous job may wait for a node that is down
}

// maxNodes bounds a node count read from sinfo (Slurm's node counts are
// 32-bit; no cluster has a billion nodes).
const maxNodes = 1 << 30

// ParseNodes reads the output of `sinfo -h -o "%P %D"` (NodesFormat): the
// lines of one partition (one per state of its nodes) are summed, and the
// partitions are given in the order sinfo first names them. An empty output
// is a cluster without partitions; a malformed line is an error naming it.
func ParseNodes(b []byte) ([]Partition, error) {
	var out []Partition
	index := map[string]int{}
	for i, line := range strings.Split(string(b), "\n") {
		f := strings.Fields(line)
		if len(f) == 0 {
			continue
		}
		if len(f) != 2 {
			return nil, fmt.Errorf("sinfo line %d: %q is not a partition and a node count", i+1, strings.TrimSpace(line))
		}
		n, err := strconv.Atoi(f[1])
		if err != nil || n < 0 || n > maxNodes {
			return nil, fmt.Errorf("sinfo line %d: %q is not a node count", i+1, f[1])
		}
		name, def := strings.CutSuffix(f[0], "*")
		if name == "" {
			return nil, fmt.Errorf("sinfo line %d: no partition name", i+1)
		}
		k, seen := index[name]
		if !seen {
			k = len(out)
			index[name] = k
			out = append(out, Partition{Name: name})
		}
		p := &out[k]
		p.Default = p.Default || def
		if p.Nodes += n; p.Nodes > maxNodes {
			return nil, fmt.Errorf("sinfo line %d: more than %d nodes in partition %s", i+1, maxNodes, name)
		}
	}
	return out, nil
}

// PartitionNodes is the node count of the named partition, or of the
// default one when name is ""; ok is false when there is no such partition.
func PartitionNodes(parts []Partition, name string) (nodes int, ok bool) {
	for _, p := range parts {
		if (name == "" && p.Default) || (name != "" && p.Name == name) {
			return p.Nodes, true
		}
	}
	return 0, false
}

// TaskRange is tasks Lo, Lo+Step, … up to Hi of a job array.
type TaskRange struct{ Lo, Hi, Step int }

// ArrayTasks reads the tasks of a job array that squeue lists in one
// record, as sbatch --array writes them: "2-5%2", "1,3,7-9", "0-15:4"
// (the "%N" limit is dropped). Indexes are 0 .. MaxArrayIndex; a malformed
// list is an error naming the part that is wrong.
func ArrayTasks(s string) ([]TaskRange, error) {
	list, _, _ := strings.Cut(s, "%")
	if strings.TrimSpace(list) == "" {
		return nil, fmt.Errorf("array tasks %q: no task", s)
	}
	var out []TaskRange
	for _, part := range strings.Split(list, ",") {
		span, stepText, hasStep := strings.Cut(part, ":")
		loText, hiText, isRange := strings.Cut(span, "-")
		lo, err1 := arrayIndex(loText)
		hi, err2 := lo, error(nil)
		if isRange {
			hi, err2 = arrayIndex(hiText)
		}
		step, err3 := 1, error(nil)
		if hasStep {
			step, err3 = arrayIndex(stepText)
		}
		if err1 != nil || err2 != nil || err3 != nil || hi < lo || step < 1 || (hasStep && !isRange) {
			return nil, fmt.Errorf("array tasks %q: %q is not a task, a range or a range with a step", s, part)
		}
		out = append(out, TaskRange{Lo: lo, Hi: hi, Step: step})
	}
	return out, nil
}

func arrayIndex(s string) (int, error) {
	n, err := strconv.Atoi(s)
	if err != nil || n < 0 || n > MaxArrayIndex || strconv.Itoa(n) != s {
		return 0, fmt.Errorf("%q is not a task index", s)
	}
	return n, nil
}

// HasTask reports whether the ranges hold task i.
func HasTask(ranges []TaskRange, i int) bool {
	for _, r := range ranges {
		if i >= r.Lo && i <= r.Hi && (i-r.Lo)%r.Step == 0 {
			return true
		}
	}
	return false
}

// SqueueFormat is the --Format of the squeue calls ParseSqueueFormat reads:
// every field of a Record that squeue --json gives, one line a job, '|'
// between fields. The job's name and comment come last, the comment being
// the rest of the line: a name with a '|' in it (gmark's never have one) is
// read cut short.
const SqueueFormat = "JobID:|,HetJobID:|,HetJobOffset:|,ArrayJobID:|,ArrayTaskID:|,NumCPUs:|,Requeue:|,exit_code:|," +
	"SubmitTime:|,StartTime:|,EndTime:|,State:|,Reason:|,Partition:|,Cluster:|,NodeList:|,Name:|,Comment:"

// squeueFields is the number of fields of a SqueueFormat line.
const squeueFields = 18

// ParseSqueueFormat reads the output of `squeue -h -O SqueueFormat`, times
// in loc (squeue prints them in its local time). It gives the records
// ParseSqueue gives for the same jobs, but for the expected end of a job
// not yet ended, which squeue --Format does not print (0 here). A line of
// too few fields is an error (*srcerr.Error, "squeue output:N: …"); a line without a valid job id
// is skipped.
func ParseSqueueFormat(b []byte, loc *time.Location) ([]Record, error) {
	var recs []Record
	for n, line := range strings.Split(string(b), "\n") {
		line = strings.TrimRight(line, "\r")
		if strings.TrimSpace(line) == "" {
			continue
		}
		f := strings.SplitN(line, "|", squeueFields)
		if len(f) < squeueFields {
			return nil, srcerr.Errorf(srcerr.Pos{File: "squeue output", Line: n + 1}, "%d fields, want %d", len(f), squeueFields)
		}
		for i := range f[:squeueFields-2] {
			f[i] = strings.TrimSpace(f[i])
		}
		r := Record{Source: "squeue", State: f[11], Reason: f[12], Partition: f[13], Cluster: f[14], Nodes: f[15],
			Name: strings.TrimSpace(f[16]), Comment: strings.TrimSpace(f[17])}
		r.ID = formatNumber(f[0])
		r.HetJobID, r.HetOff = formatNumber(f[1]), formatNumber(f[2])
		if f[2] == "N/A" {
			r.HetJobID = 0
		}
		switch task := f[4]; {
		case task == "N/A" || task == "":
			// Not an array's: squeue prints the job's own id as the array's.
		case formatNumber(task) > 0 || task == "0":
			r.ArrayJobID, r.ArrayTaskID = formatNumber(f[3]), formatNumber(task)
		default:
			r.ArrayJobID, r.ArrayTasks = formatNumber(f[3]), task // the tasks not yet started
		}
		r.CPUs = formatNumber(f[5])
		r.Requeue = f[6] == "1" || strings.EqualFold(f[6], "yes")
		r.Exit, r.Signal = formatExit(f[7])
		r.Submit, r.Start, r.End = slurmTime(f[8], loc), slurmTime(f[9], loc), slurmTime(f[10], loc)
		if r.Comment == "(null)" {
			r.Comment = ""
		}
		if r.Nodes == "(null)" {
			r.Nodes = ""
		}
		if r.check() {
			recs = append(recs, r)
		}
	}
	return recs, nil
}

// formatNumber reads a number squeue printed; anything else ("N/A") is 0.
func formatNumber(s string) int64 {
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		return 0
	}
	return n
}

// formatExit reads squeue's exit_code: the wait status as a number (Slurm
// 22.05) or "exit:signal".
func formatExit(s string) (exit, signal int) {
	if a, b, ok := strings.Cut(s, ":"); ok {
		return int(formatNumber(a)), int(formatNumber(b))
	}
	n := formatNumber(s)
	return int(n>>8) & 0xff, int(n & 0x7f)
}
