package gwa

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/gmark/gmark/gwa/wfformat"
	"github.com/gmark/gmark/internal/readlimit"
	"github.com/gmark/gmark/internal/srcerr"
)

// WfFormat is WfCommons' JSON workflow instance (package wfformat): one
// workflow a file, or a directory of them. docs/trace.md describes what
// gmark reads of it.
const WfFormat Format = "wfformat"

// wfformatCarried are the WfFormat keys gmark carries in its records; the
// reader names every other key an instance has (ReadStats.NotCarried).
// Containers of carried keys count as carried.
var wfformatCarried = map[string]bool{
	"name": true, "schemaVersion": true,
	"workflow.specification.tasks[].id": true, "workflow.specification.tasks[].name": true,
	"workflow.specification.tasks[].parents": true, "workflow.specification.tasks[].children": true,
	"workflow.specification.tasks[].inputFiles": true, "workflow.specification.tasks[].outputFiles": true,
	"workflow.specification.files[].id": true, "workflow.specification.files[].sizeInBytes": true,
	"workflow.execution.executedAt": true, "workflow.execution.tasks[].id": true,
	"workflow.execution.tasks[].runtimeInSeconds": true, "workflow.execution.tasks[].executedAt": true,
	"workflow.execution.tasks[].coreCount": true, "workflow.execution.tasks[].memoryInBytes": true,
	"workflow.execution.tasks[].machines": true, "workflow.execution.machines[].nodeName": true,
	// 1.4's layout.
	"workflow.executedAt": true, "workflow.tasks[].name": true, "workflow.tasks[].id": true,
	"workflow.tasks[].parents": true, "workflow.tasks[].children": true, "workflow.tasks[].files[].name": true,
	"workflow.tasks[].files[].path": true, "workflow.tasks[].files[].link": true,
	"workflow.tasks[].files[].sizeInBytes": true, "workflow.tasks[].runtimeInSeconds": true,
	"workflow.tasks[].cores": true, "workflow.tasks[].memoryInBytes": true, "workflow.tasks[].machine": true,
	"workflow.machines[].nodeName": true,
}

// notCarried are the keys that gmark does not carry, sorted: a key is
// carried when it is in carried or holds a carried key (a container); a
// container of keys listed is left out, its keys say it.
func notCarried(keys []string, carried map[string]bool) []string {
	below := func(k string, set func(func(string) bool)) bool {
		found := false
		set(func(c string) bool {
			if strings.HasPrefix(c, k+".") || strings.HasPrefix(c, k+"[]") {
				found = true
				return false
			}
			return true
		})
		return found
	}
	inCarried := func(yield func(string) bool) {
		for c := range carried {
			if !yield(c) {
				return
			}
		}
	}
	inKeys := func(yield func(string) bool) {
		for _, c := range keys {
			if !yield(c) {
				return
			}
		}
	}
	var out []string
	for _, k := range keys {
		if !carried[k] && !below(k, inCarried) && !below(k, inKeys) {
			out = append(out, k)
		}
	}
	sort.Strings(out)
	return out
}

// isJSONHead tells whether text content starts as a JSON object does (a
// UTF-8 byte-order mark before it is skipped).
func isJSONHead(head []byte) bool {
	for _, c := range bytes.TrimPrefix(head, utf8BOM) {
		switch c {
		case ' ', '\t', '\r', '\n':
			continue
		case '{':
			return true
		}
		return false
	}
	return false
}

// wfformatReader returns the tasks of one or more instances, read whole
// when it is made.
type wfformatReader struct {
	common
	recs []Record
	next int
}

func (r *wfformatReader) Close() error { return nil }

func (r *wfformatReader) Next() (Record, error) {
	if r.next >= len(r.recs) {
		return Record{}, io.EOF
	}
	rec := r.recs[r.next]
	r.recs[r.next] = Record{}
	r.next++
	return rec, nil
}

// newWfFormatReader reads one instance from src, after a UTF-8
// byte-order mark if it has one.
func newWfFormatReader(src *bufio.Reader, opts ReadOptions) (Reader, error) {
	if b, _ := src.Peek(3); bytes.Equal(b, utf8BOM) {
		src.Discard(3)
	}
	inst, err := wfformat.Decode(src, opts.Name)
	if err != nil {
		return nil, err
	}
	return wfformatRecords([]*wfformat.Instance{inst}, []string{opts.Name}, opts)
}

// openWfFormatDir reads every *.json file of a directory as an instance:
// the trace of their workflows.
func openWfFormatDir(dir string, opts ReadOptions) (Reader, error) {
	names, err := filepath.Glob(filepath.Join(dir, "*.json"))
	if err != nil {
		return nil, err
	}
	if len(names) == 0 {
		return nil, parseError(opts.Name, 0, 0, "a directory with no WfFormat instance (*.json) and no WTA trace (tasks/) in it")
	}
	sort.Strings(names)
	var insts []*wfformat.Instance
	for _, name := range names {
		inst, err := decodeWfFormatFile(name)
		if err != nil {
			return nil, err
		}
		insts = append(insts, inst)
	}
	return wfformatRecords(insts, names, opts)
}

func decodeWfFormatFile(path string) (*wfformat.Instance, error) {
	f, err := readlimit.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return wfformat.Decode(bufio.NewReaderSize(f, 256<<10), path)
}

// wfformatRecords makes the trace of instances: each a workflow, submitted
// at its start (executedAt; the earliest start is the time base), its
// tasks submitted with it, each task's wait the time from the workflow's
// start to its own, when the instance gives both.
func wfformatRecords(insts []*wfformat.Instance, names []string, opts ReadOptions) (Reader, error) {
	r := &wfformatReader{common: common{name: opts.Name, opts: opts}}
	r.hdr.Format = WfFormat
	order := make([]int, len(insts))
	var base time.Time
	for i, inst := range insts {
		order[i] = i
		if !inst.Start.IsZero() && (base.IsZero() || inst.Start.Before(base)) {
			base = inst.Start
		}
	}
	if !base.IsZero() {
		base = time.Unix(base.Unix(), 0)
		r.hdr.UnixStartTime, r.hdr.AbsoluteBase = base.Unix(), true
	}
	offset := func(t time.Time) float64 {
		if t.IsZero() || base.IsZero() {
			return 0
		}
		return t.Sub(base).Seconds()
	}
	sort.SliceStable(order, func(a, b int) bool { return offset(insts[order[a]].Start) < offset(insts[order[b]].Start) })
	seen := map[string]bool{}
	var keys []string
	for _, i := range order {
		inst := insts[i]
		id := inst.Name
		if seen[id] {
			id = inst.Name + "@" + strings.TrimSuffix(filepath.Base(names[i]), ".json")
		}
		seen[id] = true
		keys = append(keys, inst.Keys...)
		for k := range inst.Tasks {
			rec, err := wfformatRecord(inst, &inst.Tasks[k], id, offset(inst.Start))
			if err != nil {
				return nil, &ParseError{Pos: srcerr.Pos{File: names[i], Line: inst.Tasks[k].Line, Col: inst.Tasks[k].Col}, Msg: err.Error()}
			}
			if msg := r.finish(&rec); msg != "" {
				return nil, parseError(names[i], int64(inst.Tasks[k].Line), 0, msg)
			}
			r.recs = append(r.recs, rec)
		}
	}
	r.stats.NotCarried = notCarried(dedupe(keys), wfformatCarried)
	r.stats.Lines = int64(len(r.recs))
	return r, nil
}

// wfformatRecord is the record of one task.
func wfformatRecord(inst *wfformat.Instance, t *wfformat.Task, wf string, submit float64) (Record, error) {
	rec := NewRecord()
	rec.JobID, rec.WorkflowID, rec.SubmitTime = t.ID, wf, submit
	rec.ExecutableID = t.Name
	if !math.IsNaN(t.Runtime) {
		rec.RunTime = t.Runtime
	}
	if !t.Start.IsZero() && !inst.Start.IsZero() {
		rec.WaitTime = t.Start.Sub(inst.Start).Seconds()
	}
	cores := 1.0
	if !math.IsNaN(t.Cores) && t.Cores > 0 {
		rec.ReqNProcs, cores = t.Cores, t.Cores
	}
	if !math.IsNaN(t.Memory) {
		rec.UsedMemory = t.Memory / 1024 / cores
	}
	if len(t.Machines) > 0 {
		for _, m := range t.Machines {
			if strings.Contains(m, ";") {
				return rec, fmt.Errorf("task %s: machine %q holds ';', which joins a task's machines in gmark's site", truncate([]byte(t.ID)), truncate([]byte(m)))
			}
		}
		rec.LastRunSiteID = strings.Join(t.Machines, ";")
	}
	if len(t.Parents) > 0 {
		rec.Dependencies = append([]string(nil), t.Parents...)
	}
	for _, f := range t.Inputs {
		rec.Files = append(rec.Files, TaskFile{Name: f, Size: fileSize(inst, f)})
	}
	for _, f := range t.Outputs {
		rec.Files = append(rec.Files, TaskFile{Name: f, Size: fileSize(inst, f), Output: true})
	}
	if math.Abs(rec.WaitTime) > MaxDuration {
		return rec, fmt.Errorf("task %s started %s s after its workflow: out of range", truncate([]byte(t.ID)), formatNumber(rec.WaitTime))
	}
	return rec, nil
}

func fileSize(inst *wfformat.Instance, id string) int64 {
	if s, ok := inst.Files[id]; ok {
		return s
	}
	return -1
}

func dedupe(keys []string) []string {
	seen := map[string]bool{}
	out := keys[:0]
	for _, k := range keys {
		if !seen[k] {
			seen[k] = true
			out = append(out, k)
		}
	}
	return out
}

// openWorkflowPath opens the traces that are not one text stream: a
// directory (WfFormat instances, or a WTA trace's tables) and a parquet
// file. ok is false for any other path, which Open reads as text.
func openWorkflowPath(path string, opts ReadOptions) (r Reader, ok bool, err error) {
	fi, err := os.Stat(path)
	if err != nil {
		return nil, false, nil
	}
	if fi.IsDir() {
		if opts.Format == WTA || isWTADir(path) {
			r, err = openWTA(path, opts)
		} else {
			r, err = openWfFormatDir(path, opts)
		}
		return r, true, err
	}
	// Only a regular file is looked into: peeking at a pipe would eat what
	// the text reader is to read (and parquet, read by seeking, needs a
	// file anyway).
	if fi.Mode().IsRegular() && (opts.Format == WTA || opts.Format == "" && isParquetFile(path)) {
		r, err = openWTA(path, opts)
		return r, true, err
	}
	return nil, false, nil
}

// isParquetFile tells whether a file starts with parquet's magic bytes.
func isParquetFile(path string) bool {
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	var b [4]byte
	_, err = io.ReadFull(f, b[:])
	return err == nil && string(b[:]) == parquetMagic
}
