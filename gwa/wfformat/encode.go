package wfformat

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"sort"
	"time"
)

// WriteVersion is the schema version Encode writes.
const WriteVersion = "1.5"

// Encode writes inst as a WfFormat 1.5 instance: the specification (tasks,
// their parents and children, files with sizes), and, when inst.Execution,
// the execution (makespan, start, each task with an execution value: its
// run time, -1 when unknown, start, cores, memory and machines; the
// machines). Children are written
// as the reverse of the parents; a file of unknown size is named by its
// tasks but not listed (the schema requires a size). Keys the schema makes
// optional and inst leaves empty are left out. Tasks are written one by
// one: the output is not held.
func Encode(w io.Writer, inst *Instance) error {
	if err := checkInstance(inst); err != nil {
		return err
	}
	bw := bufio.NewWriterSize(w, 64<<10)
	e := &encoder{w: bw}
	e.raw("{\n")
	e.field("  ", "name", inst.Name, true)
	e.field("  ", "description", inst.Description, inst.Description != "")
	e.field("  ", "createdAt", inst.CreatedAt, inst.CreatedAt != "")
	e.field("  ", "schemaVersion", WriteVersion, true)
	e.raw(`  "workflow": {` + "\n" + `    "specification": {` + "\n" + `      "tasks": [`)
	children := childrenOf(inst.Tasks)
	for i := range inst.Tasks {
		t := &inst.Tasks[i]
		e.elem(i, "        ", specJSON{Name: t.Name, ID: t.ID, Parents: nonNil(t.Parents), Children: nonNil(children[i]), Inputs: t.Inputs, Outputs: t.Outputs})
	}
	e.raw("\n      ],\n" + `      "files": [`)
	for i, f := range sortedFiles(inst.Files) {
		e.elem(i, "        ", f)
	}
	e.raw("\n      ]\n    }")
	if inst.Execution {
		e.execution(inst)
	}
	e.raw("\n  }\n}\n")
	if e.err != nil {
		return e.err
	}
	return bw.Flush()
}

type specJSON struct {
	Name     string   `json:"name"`
	ID       string   `json:"id"`
	Parents  []string `json:"parents"`
	Children []string `json:"children"`
	Inputs   []string `json:"inputFiles,omitempty"`
	Outputs  []string `json:"outputFiles,omitempty"`
}

type fileJSON struct {
	ID   string `json:"id"`
	Size int64  `json:"sizeInBytes"`
}

type execJSON struct {
	ID         string   `json:"id"`
	Runtime    float64  `json:"runtimeInSeconds"`
	ExecutedAt string   `json:"executedAt,omitempty"`
	Cores      *float64 `json:"coreCount,omitempty"`
	Memory     *float64 `json:"memoryInBytes,omitempty"`
	Machines   []string `json:"machines,omitempty"`
}

type machineJSON struct {
	NodeName string `json:"nodeName"`
}

// execution writes the execution part.
func (e *encoder) execution(inst *Instance) {
	e.raw(",\n" + `    "execution": {` + "\n")
	ms := inst.Makespan
	if math.IsNaN(ms) {
		ms = 0
	}
	e.raw(`      "makespanInSeconds": ` + jsonOf(ms) + ",\n")
	at := inst.ExecutedAt
	if at == "" && !inst.Start.IsZero() {
		at = FormatTime(inst.Start)
	}
	e.field("      ", "executedAt", at, true)
	e.raw(`      "tasks": [`)
	k := 0
	for i := range inst.Tasks {
		t := &inst.Tasks[i]
		if !hasExecution(t) {
			continue
		}
		// The schema requires a run time: an unknown one is -1.
		run := t.Runtime
		if math.IsNaN(run) {
			run = -1
		}
		x := execJSON{ID: t.ID, Runtime: run, ExecutedAt: t.ExecutedAt, Machines: t.Machines, Cores: numPtr(t.Cores), Memory: numPtr(t.Memory)}
		if x.ExecutedAt == "" && !t.Start.IsZero() {
			x.ExecutedAt = FormatTime(t.Start)
		}
		e.elem(k, "        ", x)
		k++
	}
	e.raw("\n      ]")
	if len(inst.Machines) > 0 {
		e.raw(",\n" + `      "machines": [`)
		for i, m := range inst.Machines {
			e.elem(i, "        ", machineJSON(m))
		}
		e.raw("\n      ]")
	}
	e.raw("\n    }")
}

// hasExecution tells whether a task has a value of the execution.
func hasExecution(t *Task) bool {
	return !math.IsNaN(t.Runtime) || !math.IsNaN(t.Cores) || !math.IsNaN(t.Memory) || len(t.Machines) > 0 || t.ExecutedAt != "" || !t.Start.IsZero()
}

// FormatTime writes a time as Encode does: RFC 3339 in UTC, with the
// fraction of a second it has.
func FormatTime(t time.Time) string { return t.UTC().Format(time.RFC3339Nano) }

type encoder struct {
	w   *bufio.Writer
	err error
}

func (e *encoder) raw(s string) {
	if e.err == nil {
		_, e.err = e.w.WriteString(s)
	}
}

// field writes `"key": value,` on a line of its own, when ok.
func (e *encoder) field(indent, key, value string, ok bool) {
	if ok {
		e.raw(indent + jsonOf(key) + ": " + jsonOf(value) + ",\n")
	}
}

// elem writes the i-th element of an array.
func (e *encoder) elem(i int, indent string, v any) {
	b, err := json.Marshal(v)
	if err != nil && e.err == nil {
		e.err = err
	}
	sep := ",\n"
	if i == 0 {
		sep = "\n"
	}
	e.raw(sep + indent)
	if e.err == nil {
		_, e.err = e.w.Write(b)
	}
}

func jsonOf(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

func numPtr(v float64) *float64 {
	if math.IsNaN(v) {
		return nil
	}
	return &v
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// childrenOf is the reverse of the tasks' parents, in task order.
func childrenOf(tasks []Task) [][]string {
	index := make(map[string]int, len(tasks))
	for i := range tasks {
		index[tasks[i].ID] = i
	}
	children := make([][]string, len(tasks))
	for i := range tasks {
		for _, p := range tasks[i].Parents {
			k := index[p]
			children[k] = append(children[k], tasks[i].ID)
		}
	}
	return children
}

// sortedFiles are the files of known size, by id.
func sortedFiles(files map[string]int64) []fileJSON {
	out := make([]fileJSON, 0, len(files))
	for id, size := range files {
		if size >= 0 {
			out = append(out, fileJSON{id, size})
		}
	}
	sort.Slice(out, func(a, b int) bool { return out[a].ID < out[b].ID })
	return out
}

// checkInstance checks what Encode relies on: a name, task ids once each,
// parents that are tasks, numbers that JSON can hold.
func checkInstance(inst *Instance) error {
	if inst.Name == "" {
		return fmt.Errorf("a WfFormat instance needs a name")
	}
	index := make(map[string]bool, len(inst.Tasks))
	for i := range inst.Tasks {
		t := &inst.Tasks[i]
		if t.ID == "" {
			return fmt.Errorf("task %d has no id", i)
		}
		if index[t.ID] {
			return fmt.Errorf("two tasks %s", truncate(t.ID))
		}
		index[t.ID] = true
		for _, v := range []float64{t.Runtime, t.Cores, t.Memory} {
			if math.IsInf(v, 0) {
				return fmt.Errorf("task %s: an infinite number", truncate(t.ID))
			}
		}
	}
	for i := range inst.Tasks {
		for _, p := range inst.Tasks[i].Parents {
			if !index[p] {
				return fmt.Errorf("task %s: parent %s is no task", truncate(inst.Tasks[i].ID), truncate(p))
			}
		}
	}
	if math.IsInf(inst.Makespan, 0) {
		return fmt.Errorf("an infinite makespan")
	}
	return nil
}
