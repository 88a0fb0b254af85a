// Package wta reads and writes the Workflow Trace Archive's parquet
// traces: the tasks table (one task a row: its id, its workflow, its
// submission, wait and run time in milliseconds, the resources it asked
// for, its parents and children) and the workflows table, in the columns
// the archive publishes (schema 1.0). A trace is a directory,
// tasks/schema-1.0/part.N.parquet and workflows/schema-1.0/part.N.parquet,
// or a tasks table alone. It knows the format only: package gwa makes
// trace records of the tasks.
//
// The archive's files differ in physical types (ids as int64 or as
// strings, children as lists of doubles, memory as int64 or double), so
// the reader takes every column by name and any numeric type, and reads
// row by row, a row group at a time. Every problem names its file, row
// group, row and column.
package wta

import (
	"fmt"
	"math"
	"strconv"
)

// Missing is the archive's value of an unknown number or identifier.
const Missing = -1

// TaskColumns are the tasks table's columns as the archive publishes
// them, in the order the writer writes them.
var TaskColumns = []string{"id", "ts_submit", "submission_site", "runtime", "resource_type", "resource_amount_requested",
	"parents", "children", "user_id", "group_id", "nfrs", "workflow_id", "wait_time", "params", "memory_requested",
	"network_io_time", "disk_io_time", "disk_space_requested", "energy_consumption", "resource_used"}

// WorkflowColumns are the workflows table's columns, in the writer's order.
var WorkflowColumns = []string{"id", "ts_submit", "task_count", "critical_path_length", "critical_path_task_count",
	"approx_max_concurrent_tasks", "nfrs", "scheduler", "total_resources", "total_memory_usage", "total_network_usage",
	"total_disk_space_usage", "total_energy_consumption"}

// Task is one row of the tasks table, in what gmark reads of it.
// Identifiers are strings (the decimal digits of an integer id); times
// are milliseconds, Missing when unknown (null or -1).
type Task struct {
	ID, WorkflowID          string
	TsSubmit                float64
	WaitTime                float64
	Runtime                 float64
	ResourceAmountRequested float64
	Parents, Children       []string
	UserID, GroupID         string // "-1" when unknown
	SubmissionSite          string
	// At is where the row is.
	At Pos
}

// Pos is a row of a table: its file, its row group and its row in the
// group (from 1), and its row in the table (from 1).
type Pos struct {
	File  string
	Group int
	Row   int
	Table int64
}

func (p Pos) String() string {
	return fmt.Sprintf("%s: row group %d, row %d (row %d of the table)", p.File, p.Group, p.Row, p.Table)
}

// Error is a problem at a row and column.
type Error struct {
	At     Pos
	Column string
	Msg    string
}

func (e *Error) Error() string {
	if e.Column == "" {
		return e.At.String() + ": " + e.Msg
	}
	return e.At.String() + ": column " + e.Column + ": " + e.Msg
}

// maxID bounds integer ids read from doubles: beyond 2^53 a double does
// not hold every integer.
const maxID = 1 << 53

// canonicalInt writes an integer id.
func canonicalInt(v int64) string { return strconv.FormatInt(v, 10) }

// idFromDouble is the id a double holds, when it holds a whole number a
// double holds exactly.
func idFromDouble(f float64) (string, bool) {
	if f != math.Trunc(f) || math.Abs(f) > maxID {
		return "", false
	}
	return canonicalInt(int64(f)), true
}
