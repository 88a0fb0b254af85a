package wta

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"os"

	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/format"

	"github.com/gmark/gmark/internal/readlimit"
)

// table is one parquet file of a table, opened.
type table struct {
	name string
	f    *os.File
	pf   *parquet.File
	// cols maps a leaf column's index to what it holds: the top-level
	// column's name, and for a list its elements.
	cols []leaf
}

type leaf struct {
	name     string
	maxDef   int
	list     bool
	timeUnit float64 // a timestamp column: milliseconds per unit; 0 otherwise
}

func openTable(path string) (*table, error) {
	f, err := readlimit.Open(path)
	if err != nil {
		return nil, err
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	pf, err := openParquet(f, st.Size())
	if err != nil {
		f.Close()
		return nil, &Error{At: Pos{File: path}, Msg: "not a parquet file gmark can read: " + err.Error()}
	}
	t := &table{name: path, f: f, pf: pf}
	schema := pf.Schema()
	for _, path := range schema.Columns() {
		lc, _ := schema.Lookup(path...)
		l := leaf{name: path[0], maxDef: lc.MaxDefinitionLevel, list: lc.MaxRepetitionLevel > 0}
		if lt := lc.Node.Type().LogicalType(); lt != nil {
			if ts, ok := lt.Value.(*format.TimestampType); ok {
				switch ts.Unit.Value.(type) {
				case *format.MilliSeconds:
					l.timeUnit = 1
				case *format.MicroSeconds:
					l.timeUnit = 1e-3
				case *format.NanoSeconds:
					l.timeUnit = 1e-6
				}
			}
		}
		t.cols = append(t.cols, l)
	}
	return t, nil
}

// Bounds checked before the library allocates for a file's metadata and
// pages, so that a damaged or hostile file cannot make it allocate more
// than the file could hold (a footer length of 4 GiB in a file of 16
// bytes, a page of 2 GiB).
const (
	maxFooter     = 256 << 20
	maxChunkBytes = 1 << 30
)

// openParquet opens a parquet file, turning a panic of the library on a
// damaged file into an error: a reader never panics.
func openParquet(r io.ReaderAt, size int64) (pf *parquet.File, err error) {
	var tail [8]byte
	if size < 12 {
		return nil, fmt.Errorf("%d bytes: too short for parquet's header and footer", size)
	}
	if _, err := r.ReadAt(tail[:], size-8); err != nil {
		return nil, err
	}
	if n := int64(binary.LittleEndian.Uint32(tail[:4])); n > size-12 || n > maxFooter {
		return nil, fmt.Errorf("its footer claims %d bytes, more than the file holds", n)
	}
	defer func() {
		if p := recover(); p != nil {
			pf, err = nil, fmt.Errorf("damaged file (%v)", p)
		}
	}()
	pf, err = parquet.OpenFile(r, size, parquet.SkipBloomFilters(true), parquet.SkipPageIndex(true))
	if err != nil {
		return nil, err
	}
	for g, rg := range pf.Metadata().RowGroups {
		for _, c := range rg.Columns {
			m := &c.MetaData
			if m.TotalCompressedSize < 0 || m.TotalCompressedSize > size || m.DataPageOffset < 0 || m.DataPageOffset > size ||
				m.TotalUncompressedSize < 0 || m.TotalUncompressedSize > maxChunkBytes {
				return nil, fmt.Errorf("row group %d: column %v claims %d bytes (%d uncompressed) at offset %d, out of the file's %d bytes (or over 1 GiB)",
					g+1, m.PathInSchema, m.TotalCompressedSize, m.TotalUncompressedSize, m.DataPageOffset, size)
			}
		}
	}
	return pf, nil
}

// column is the index of a top-level column's first leaf, -1 when absent.
func (t *table) column(name string) int {
	for i, c := range t.cols {
		if c.name == name {
			return i
		}
	}
	return -1
}

// Columns are the table's top-level columns, in file order.
func (t *table) Columns() []string {
	var out []string
	for i, c := range t.cols {
		if i == 0 || t.cols[i-1].name != c.name {
			out = append(out, c.name)
		}
	}
	return out
}

// rowIter reads the rows of the tables of one kind (the part files in
// order), a row group at a time.
type rowIter struct {
	tables []*table
	ti, gi int
	rows   parquet.Rows
	buf    []parquet.Row
	n, k   int
	row    int   // in the row group, from 1
	total  int64 // in the table, from 1
	err    error
}

// next returns the next row and where it is; io.EOF after the last.
func (it *rowIter) next() (parquet.Row, *table, Pos, error) {
	for it.k >= it.n {
		if it.err != nil {
			return nil, nil, Pos{}, it.err
		}
		if err := it.fill(); err != nil {
			it.err = err
			return nil, nil, Pos{}, err
		}
	}
	r := it.buf[it.k]
	it.k++
	it.row++
	it.total++
	t := it.tables[it.ti]
	return r, t, Pos{File: t.name, Group: it.gi, Row: it.row, Table: it.total}, nil
}

// fill reads the next rows, moving to the next row group and file when
// one is done.
func (it *rowIter) fill() (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = &Error{At: Pos{File: it.tables[it.ti].name, Group: it.gi, Row: it.row + 1, Table: it.total + 1}, Msg: fmt.Sprintf("damaged file (%v)", p)}
		}
	}()
	for {
		if it.ti >= len(it.tables) {
			return io.EOF
		}
		if it.rows == nil {
			groups := it.tables[it.ti].pf.RowGroups()
			if it.gi >= len(groups) {
				it.ti, it.gi = it.ti+1, 0
				continue
			}
			it.rows, it.row = groups[it.gi].Rows(), 0
			it.gi++
		}
		if it.buf == nil {
			it.buf = make([]parquet.Row, 256)
		}
		n, err := it.rows.ReadRows(it.buf)
		it.n, it.k = n, 0
		if err == io.EOF || n == 0 && err == nil {
			it.rows.Close()
			it.rows = nil
			if n > 0 {
				return nil
			}
			continue
		}
		if err != nil {
			t := it.tables[it.ti]
			return &Error{At: Pos{File: t.name, Group: it.gi, Row: it.row + 1, Table: it.total + 1}, Msg: "cannot read the row group: " + err.Error()}
		}
		return nil
	}
}

func (it *rowIter) close() error {
	if it.rows != nil {
		it.rows.Close()
	}
	var err error
	for _, t := range it.tables {
		if e := t.f.Close(); err == nil {
			err = e
		}
	}
	return err
}

// TaskReader reads a tasks table, row by row.
type TaskReader struct {
	it      rowIter
	columns []string
	rows    int64
}

// OpenTasks opens the part files of a tasks table, in the order given. The
// table must have the columns id and workflow_id; a column it lacks is
// unknown for every task.
func OpenTasks(paths []string) (*TaskReader, error) {
	r := &TaskReader{}
	seen := map[string]bool{}
	for _, p := range paths {
		t, err := openTable(p)
		if err != nil {
			r.it.close()
			return nil, err
		}
		r.it.tables = append(r.it.tables, t)
		for _, c := range t.Columns() {
			if !seen[c] {
				seen[c] = true
				r.columns = append(r.columns, c)
			}
		}
		for _, need := range []string{"id", "workflow_id"} {
			if t.column(need) < 0 {
				r.it.close()
				return nil, &Error{At: Pos{File: p}, Msg: fmt.Sprintf("no column %s: not a WTA tasks table (its columns: %v)", need, t.Columns())}
			}
		}
		r.rows += t.pf.NumRows()
	}
	return r, nil
}

// Columns are the table's columns, in file order (the union over its
// parts).
func (r *TaskReader) Columns() []string { return r.columns }

// NumRows is the number of rows of the table.
func (r *TaskReader) NumRows() int64 { return r.rows }

// Close closes the table's files.
func (r *TaskReader) Close() error { return r.it.close() }

// Next returns the next task, io.EOF after the last.
func (r *TaskReader) Next() (Task, error) {
	row, t, at, err := r.it.next()
	if err != nil {
		return Task{}, err
	}
	task := Task{TsSubmit: Missing, WaitTime: Missing, Runtime: Missing, ResourceAmountRequested: Missing,
		UserID: "-1", GroupID: "-1", SubmissionSite: "-1", At: at}
	for _, v := range row {
		c := v.Column()
		if c < 0 || c >= len(t.cols) {
			continue
		}
		if err := task.set(&t.cols[c], v); err != nil {
			return Task{}, &Error{At: at, Column: t.cols[c].name, Msg: err.Error()}
		}
	}
	if task.ID == "" {
		return Task{}, &Error{At: at, Column: "id", Msg: "no id: every task needs the id its children name"}
	}
	if task.WorkflowID == "" {
		return Task{}, &Error{At: at, Column: "workflow_id", Msg: "no workflow_id: every task belongs to a workflow"}
	}
	return task, nil
}

// set stores one value of a row.
func (task *Task) set(l *leaf, v parquet.Value) error {
	null := v.IsNull() || v.DefinitionLevel() < l.maxDef
	switch l.name {
	case "id", "workflow_id":
		if l.list {
			return errors.New("a list, not an id")
		}
		if null {
			return nil
		}
		id, err := idOf(v)
		if l.name == "id" {
			task.ID = id
		} else {
			task.WorkflowID = id
		}
		return err
	case "parents", "children":
		if null {
			return nil
		}
		id, err := idOf(v)
		if err != nil {
			return err
		}
		if l.name == "parents" {
			task.Parents = append(task.Parents, id)
		} else {
			task.Children = append(task.Children, id)
		}
		return nil
	case "ts_submit", "wait_time", "runtime", "resource_amount_requested":
		if l.list {
			return errors.New("a list, not a number")
		}
		f := float64(Missing)
		if !null {
			var err error
			if f, err = numOf(v); err != nil {
				return err
			}
			if l.timeUnit != 0 {
				f *= l.timeUnit
			}
		}
		switch l.name {
		case "ts_submit":
			task.TsSubmit = f
		case "wait_time":
			task.WaitTime = f
		case "runtime":
			task.Runtime = f
		default:
			task.ResourceAmountRequested = f
		}
	case "user_id", "group_id", "submission_site":
		if null || l.list {
			return nil
		}
		id, err := idOf(v)
		switch l.name {
		case "user_id":
			task.UserID = id
		case "group_id":
			task.GroupID = id
		default:
			task.SubmissionSite = id
		}
		return err
	}
	return nil
}

// idOf reads an identifier: an integer, a whole double, or a string.
func idOf(v parquet.Value) (string, error) {
	switch v.Kind() {
	case parquet.Int32:
		return canonicalInt(int64(v.Int32())), nil
	case parquet.Int64:
		return canonicalInt(v.Int64()), nil
	case parquet.Float, parquet.Double:
		f := v.Double()
		if v.Kind() == parquet.Float {
			f = float64(v.Float())
		}
		if id, ok := idFromDouble(f); ok {
			return id, nil
		}
		return "", fmt.Errorf("%v is not a whole number, not an id", f)
	case parquet.ByteArray, parquet.FixedLenByteArray:
		b := v.ByteArray()
		if len(b) == 0 {
			return "", errors.New("an empty string, not an id")
		}
		if len(b) > 1<<10 {
			return "", fmt.Errorf("an id of %d bytes (at most 1024)", len(b))
		}
		return string(b), nil
	}
	return "", fmt.Errorf("a %v value, not an id", v.Kind())
}

// numOf reads a number of any numeric type.
func numOf(v parquet.Value) (float64, error) {
	var f float64
	switch v.Kind() {
	case parquet.Int32:
		f = float64(v.Int32())
	case parquet.Int64:
		f = float64(v.Int64())
	case parquet.Float:
		f = float64(v.Float())
	case parquet.Double:
		f = v.Double()
	default:
		return 0, fmt.Errorf("a %v value, not a number", v.Kind())
	}
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return 0, fmt.Errorf("%v, not a number", f)
	}
	return f, nil
}

// Survey reads the workflow_id and ts_submit columns alone (parquet is
// columnar: the other columns are not read): each workflow's count of
// tasks, so that a reader can hand out a workflow as soon as its last task
// has been read, and the earliest submission (ms; Missing when none).
func (r *TaskReader) Survey() (counts map[string]int, minSubmit float64, err error) {
	counts, minSubmit = map[string]int{}, math.Inf(1)
	for _, t := range r.it.tables {
		wc, sc := t.column("workflow_id"), t.column("ts_submit")
		for gi, g := range t.pf.RowGroups() {
			chunks := g.ColumnChunks()
			err := scanColumn(t, chunks[wc], gi+1, "workflow_id", func(v parquet.Value) error {
				id, e := idOf(v)
				counts[id]++
				return e
			})
			if err == nil && sc >= 0 {
				unit := t.cols[sc].timeUnit
				err = scanColumn(t, chunks[sc], gi+1, "ts_submit", func(v parquet.Value) error {
					f, e := numOf(v)
					if unit != 0 {
						f *= unit
					}
					if e == nil && f != Missing {
						minSubmit = min(minSubmit, f)
					}
					return e
				})
			}
			if err != nil {
				return nil, 0, err
			}
		}
	}
	if math.IsInf(minSubmit, 1) {
		minSubmit = Missing
	}
	return counts, minSubmit, nil
}

// scanColumn calls fn on every value of a column chunk that is not null.
func scanColumn(t *table, cc parquet.ColumnChunk, group int, col string, fn func(parquet.Value) error) (err error) {
	at := Pos{File: t.name, Group: group}
	defer func() {
		if p := recover(); p != nil {
			err = &Error{At: at, Column: col, Msg: fmt.Sprintf("damaged file (%v)", p)}
		}
	}()
	pages := cc.Pages()
	defer pages.Close()
	buf := make([]parquet.Value, 1024)
	for {
		p, err := pages.ReadPage()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return &Error{At: at, Column: col, Msg: "cannot read the column: " + err.Error()}
		}
		vr := p.Values()
		for {
			n, err := vr.ReadValues(buf)
			for _, v := range buf[:n] {
				at.Row++
				if v.IsNull() {
					continue
				}
				if e := fn(v); e != nil {
					parquet.Release(p)
					return &Error{At: at, Column: col, Msg: e.Error()}
				}
			}
			if err == io.EOF {
				break
			}
			if err != nil {
				parquet.Release(p)
				return &Error{At: at, Column: col, Msg: "cannot read the column: " + err.Error()}
			}
		}
		parquet.Release(p)
	}
}

// Columns reads the columns of a table (the workflows table, of which
// gmark reads no value) and its row count.
func Columns(path string) ([]string, int64, error) {
	t, err := openTable(path)
	if err != nil {
		return nil, 0, err
	}
	defer t.f.Close()
	return t.Columns(), t.pf.NumRows(), nil
}
