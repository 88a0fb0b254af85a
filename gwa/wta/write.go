package wta

import (
	"fmt"
	"io"
	"math"
	"strconv"

	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/compress/snappy"
)

// taskRow is a row of the tasks table as the writer writes it: the
// archive's columns and types (schema 1.0), Snappy-compressed as the
// archive's files are.
type taskRow struct {
	ID                      *int64   `parquet:"id,optional"`
	TsSubmit                *int64   `parquet:"ts_submit,optional"`
	SubmissionSite          *int32   `parquet:"submission_site,optional"`
	Runtime                 *int64   `parquet:"runtime,optional"`
	ResourceType            *string  `parquet:"resource_type,optional"`
	ResourceAmountRequested *float64 `parquet:"resource_amount_requested,optional"`
	Parents                 []int64  `parquet:"parents,list"`
	Children                []int64  `parquet:"children,list"`
	UserID                  *int32   `parquet:"user_id,optional"`
	GroupID                 *int32   `parquet:"group_id,optional"`
	Nfrs                    *string  `parquet:"nfrs,optional"`
	WorkflowID              *int64   `parquet:"workflow_id,optional"`
	WaitTime                *int64   `parquet:"wait_time,optional"`
	Params                  *string  `parquet:"params,optional"`
	MemoryRequested         *float64 `parquet:"memory_requested,optional"`
	NetworkIOTime           *int64   `parquet:"network_io_time,optional"`
	DiskIOTime              *int64   `parquet:"disk_io_time,optional"`
	DiskSpaceRequested      *float64 `parquet:"disk_space_requested,optional"`
	EnergyConsumption       *int64   `parquet:"energy_consumption,optional"`
	ResourceUsed            *int64   `parquet:"resource_used,optional"`
}

// workflowRow is a row of the workflows table.
type workflowRow struct {
	ID                       *int64   `parquet:"id,optional"`
	TsSubmit                 *int64   `parquet:"ts_submit,optional"`
	TaskCount                *int32   `parquet:"task_count,optional"`
	CriticalPathLength       *int64   `parquet:"critical_path_length,optional"`
	CriticalPathTaskCount    *int32   `parquet:"critical_path_task_count,optional"`
	ApproxMaxConcurrentTasks *int32   `parquet:"approx_max_concurrent_tasks,optional"`
	Nfrs                     *string  `parquet:"nfrs,optional"`
	Scheduler                *string  `parquet:"scheduler,optional"`
	TotalResources           *float64 `parquet:"total_resources,optional"`
	TotalMemoryUsage         *float64 `parquet:"total_memory_usage,optional"`
	TotalNetworkUsage        *int64   `parquet:"total_network_usage,optional"`
	TotalDiskSpaceUsage      *int64   `parquet:"total_disk_space_usage,optional"`
	TotalEnergyConsumption   *int64   `parquet:"total_energy_consumption,optional"`
}

// Workflow is a row of the workflows table: what gmark computes of a
// workflow (the totals it does not know are written as -1).
type Workflow struct {
	ID                 string
	TsSubmit           float64 // ms
	TaskCount          int
	CriticalPath       float64 // ms
	CriticalPathTasks  int
	MaxConcurrentTasks int // gmark writes the workflow's width
	TotalResources     float64
}

// Options tune the writers: rows per row group (0: the library's
// default).
type Options struct {
	RowsPerGroup int64
}

func writerOptions(o Options) []parquet.WriterOption {
	opts := []parquet.WriterOption{parquet.Compression(&snappy.Codec{})}
	if o.RowsPerGroup > 0 {
		opts = append(opts, parquet.MaxRowsPerRowGroup(o.RowsPerGroup))
	}
	return opts
}

// TaskWriter writes a tasks table.
type TaskWriter struct {
	w   *parquet.GenericWriter[taskRow]
	buf []taskRow
}

// NewTaskWriter writes a tasks table on w.
func NewTaskWriter(w io.Writer, o Options) *TaskWriter {
	return &TaskWriter{w: parquet.NewGenericWriter[taskRow](w, writerOptions(o)...)}
}

// Write writes a task. Its ids (own, workflow, parents, children) must be
// integers, as the archive's schema has them; its times whole
// milliseconds (they are rounded).
func (w *TaskWriter) Write(t *Task) error {
	row := taskRow{ResourceType: ptr("cpu"), Nfrs: ptr("{}"), Params: ptr("{}"), MemoryRequested: ptr(float64(Missing)),
		NetworkIOTime: ptr(int64(Missing)), DiskIOTime: ptr(int64(Missing)), DiskSpaceRequested: ptr(float64(Missing)),
		EnergyConsumption: ptr(int64(Missing)), ResourceUsed: ptr(int64(Missing))}
	var err error
	if row.ID, err = intID("id", t.ID); err != nil {
		return err
	}
	if row.WorkflowID, err = intID("workflow_id", t.WorkflowID); err != nil {
		return err
	}
	for _, f := range []struct {
		v   float64
		dst **int64
	}{{t.TsSubmit, &row.TsSubmit}, {t.Runtime, &row.Runtime}, {t.WaitTime, &row.WaitTime}} {
		if math.IsNaN(f.v) || math.Abs(f.v) > 1<<62 {
			return fmt.Errorf("task %s: a time of %v ms", t.ID, f.v)
		}
		*f.dst = ptr(int64(math.Round(f.v)))
	}
	row.ResourceAmountRequested = ptr(t.ResourceAmountRequested)
	for _, f := range []struct {
		name string
		v    string
		dst  **int32
	}{{"user_id", t.UserID, &row.UserID}, {"group_id", t.GroupID, &row.GroupID}, {"submission_site", t.SubmissionSite, &row.SubmissionSite}} {
		if *f.dst, err = int32ID(f.name, f.v); err != nil {
			return fmt.Errorf("task %s: %v", t.ID, err)
		}
	}
	if row.Parents, err = intIDs("parents", t.Parents); err != nil {
		return err
	}
	if row.Children, err = intIDs("children", t.Children); err != nil {
		return err
	}
	w.buf = append(w.buf, row)
	if len(w.buf) >= 1024 {
		return w.flush()
	}
	return nil
}

func (w *TaskWriter) flush() error {
	if len(w.buf) == 0 {
		return nil
	}
	_, err := w.w.Write(w.buf)
	w.buf = w.buf[:0]
	return err
}

// Close finishes the table (it does not close the io.Writer).
func (w *TaskWriter) Close() error {
	if err := w.flush(); err != nil {
		return err
	}
	return w.w.Close()
}

// WorkflowWriter writes a workflows table.
type WorkflowWriter struct {
	w *parquet.GenericWriter[workflowRow]
}

// NewWorkflowWriter writes a workflows table on w.
func NewWorkflowWriter(w io.Writer, o Options) *WorkflowWriter {
	return &WorkflowWriter{w: parquet.NewGenericWriter[workflowRow](w, writerOptions(o)...)}
}

// Write writes a workflow; its id must be an integer.
func (w *WorkflowWriter) Write(wf *Workflow) error {
	id, err := intID("id", wf.ID)
	if err != nil {
		return err
	}
	row := workflowRow{ID: id, TsSubmit: ptr(int64(math.Round(wf.TsSubmit))), TaskCount: ptr(int32(min(wf.TaskCount, math.MaxInt32))),
		CriticalPathLength: ptr(int64(math.Round(wf.CriticalPath))), CriticalPathTaskCount: ptr(int32(min(wf.CriticalPathTasks, math.MaxInt32))),
		ApproxMaxConcurrentTasks: ptr(int32(min(wf.MaxConcurrentTasks, math.MaxInt32))), Nfrs: ptr("{}"), Scheduler: ptr(""),
		TotalResources: ptr(wf.TotalResources), TotalMemoryUsage: ptr(float64(Missing)), TotalNetworkUsage: ptr(int64(Missing)),
		TotalDiskSpaceUsage: ptr(int64(Missing)), TotalEnergyConsumption: ptr(int64(Missing))}
	_, err = w.w.Write([]workflowRow{row})
	return err
}

// Close finishes the table.
func (w *WorkflowWriter) Close() error { return w.w.Close() }

func ptr[T any](v T) *T { return &v }

// intID is an id the archive's schema can hold: an integer.
func intID(col, s string) (*int64, error) {
	v, err := strconv.ParseInt(s, 10, 64)
	if err != nil || canonicalInt(v) != s {
		return nil, fmt.Errorf("%s %q is not an integer, which the WTA's %s column holds", col, s, col)
	}
	return &v, nil
}

func intIDs(col string, ids []string) ([]int64, error) {
	if len(ids) == 0 {
		return nil, nil
	}
	out := make([]int64, len(ids))
	for i, s := range ids {
		v, err := intID(col, s)
		if err != nil {
			return nil, err
		}
		out[i] = *v
	}
	return out, nil
}

// int32ID is a user, group or site id: an int32, -1 when unknown.
func int32ID(col, s string) (*int32, error) {
	if s == "" || s == "-1" {
		return ptr(int32(Missing)), nil
	}
	v, err := strconv.ParseInt(s, 10, 32)
	if err != nil || canonicalInt(v) != s {
		return nil, fmt.Errorf("%s %q is not a 32-bit integer, which the WTA's %s column holds", col, s, col)
	}
	return ptr(int32(v)), nil
}
