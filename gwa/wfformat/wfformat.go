// Package wfformat reads and writes WfCommons' WfFormat: the JSON workflow
// instances of the WfInstances collection and of WfCommons' generators
// (Pegasus, Nextflow, Makeflow and other engines' runs). It reads schema
// versions 1.4 (tasks under "workflow", files inline) and 1.5 and later
// ("specification" and "execution" apart), and writes 1.5. It knows the
// format only: package gwa makes trace records of an instance.
//
// An instance is one workflow. The decoder keeps the whole instance (its
// tasks must be joined across the specification and the execution, and its
// graph checked whole) but streams the text: it holds about a buffer of
// it, and the instance's values. Every problem is an error at the line and
// column of the offending value (srcerr), and every key the instance has
// is listed in Instance.Keys, so that a caller can name the ones it does
// not carry.
package wfformat

import (
	"math"
	"time"
)

// Instance is one WfFormat workflow instance.
type Instance struct {
	Name          string
	Description   string
	CreatedAt     string
	SchemaVersion string
	// Execution says the instance has an execution part (1.5) or
	// execution values (1.4): a makespan and a start.
	Execution bool
	// Makespan is the workflow's makespan in seconds (NaN when absent).
	Makespan float64
	// ExecutedAt is the workflow's start as written, and Start the time it
	// reads as (zero when absent).
	ExecutedAt string
	Start      time.Time
	Tasks      []Task
	// Files are the instance's files by id, with their sizes in bytes.
	Files    map[string]int64
	Machines []Machine
	// ChildOnly counts the dependencies an instance gives only as a
	// child of the parent, not as a parent of the child (they are kept).
	ChildOnly int
	// Keys are the paths of every key the instance has, each once, in the
	// order first met: "author.name", "workflow.execution.tasks[].avgCPU".
	Keys []string
}

// Task is one task, its specification and execution joined by id.
type Task struct {
	ID   string
	Name string
	// Category and Type are 1.4's (Type: compute, transfer, auxiliary).
	Category, Type string
	// Parents are the task's predecessors, once each: its parents and the
	// tasks that list it as a child (Children is left empty by Decode).
	Parents, Children []string
	Inputs, Outputs   []string // file ids
	// Runtime is in seconds, NaN when absent; Cores, Memory (bytes) NaN
	// when absent.
	Runtime float64
	Cores   float64
	Memory  float64
	// ExecutedAt is the task's start as written, Start the time it reads
	// as (zero when absent).
	ExecutedAt string
	Start      time.Time
	Machines   []string
	// Line and Col are where the task's specification object starts.
	Line, Col int
}

// Machine is a machine of the execution, by node name.
type Machine struct {
	NodeName string
}

// NewTask returns a task with every number absent.
func NewTask(id string) Task {
	return Task{ID: id, Runtime: math.NaN(), Cores: math.NaN(), Memory: math.NaN()}
}

// The ranges of the numbers read (docs/trace.md, "WfFormat"): wide enough
// for any real instance, narrow enough that nothing derived overflows.
const (
	// MaxRuntime bounds run times and makespans, s (about 292 years, the
	// most whole seconds a time.Duration holds).
	MaxRuntime = math.MaxInt64 / 1_000_000_000
	// MaxCores bounds a task's cores.
	MaxCores = 1<<31 - 1
	// MaxBytes bounds a task's memory and a file's size (1 PiB for
	// files, as a workload's; 10^18 bytes of memory).
	MaxFileSize = 1 << 50
	MaxMemory   = 1e18
	// MaxTasks bounds the tasks of one instance, and MaxInput the bytes of
	// its text.
	MaxTasks = 1 << 21
	MaxInput = 1 << 30
)
