package gwa

import (
	"database/sql"
	"fmt"
	"io"
	"os"
	"slices"
	"strconv"
	"strings"

	"github.com/gmark/gmark/internal/readlimit"
	_ "modernc.org/sqlite" // the pure-Go SQLite driver, registered as "sqlite"
)

// GWF-SQLite: the GWA's relational form of a trace, a table Jobs with the 29
// GWF columns under their SQLite names (NProc, UsedCPUTime, UsedMemory).
// gmark adds a table gmark_header holding the header lines (the time base,
// system size, partition names), and, for records from SWF, the columns
// PrecedingJob and ThinkTime; readers that do not know them ignore them.

// SQLiteColumns are the column names of the Jobs table, in GWF order.
var SQLiteColumns = []string{"JobID", "SubmitTime", "WaitTime", "RunTime", "NProc", "UsedCPUTime",
	"UsedMemory", "ReqNProcs", "ReqTime", "ReqMemory", "Status", "UserID", "GroupID", "ExecutableID",
	"QueueID", "PartitionID", "OrigSiteID", "LastRunSiteID", "JobStructure", "JobStructureParams",
	"UsedNetwork", "UsedLocalDiskSpace", "UsedResources", "ReqPlatform", "ReqNetwork", "ReqLocalDiskSpace",
	"ReqResources", "VOID", "ProjectID"}

// noGWFColumns is the error of a table Jobs without GWF's SubmitTime.
const noGWFColumns = "not a GWF-SQLite trace: its table Jobs has no column SubmitTime"

// SQLiteWriter writes a GWF-SQLite database.
type SQLiteWriter struct {
	path string
	db   *sql.DB
	tx   *sql.Tx
	stmt *sql.Stmt
	n    int
	swf  bool
	args []any
}

// sqliteBatch rows go in one transaction.
const sqliteBatch = 20000

// CreateSQLite creates a new database at path (which must not exist).
func CreateSQLite(path string, h *Header) (*SQLiteWriter, error) {
	if err := checkHeader(h); err != nil {
		return nil, err
	}
	if _, err := os.Stat(path); err == nil {
		return nil, fmt.Errorf("%s exists", path)
	}
	db, err := sql.Open("sqlite", path)
	if err != nil {
		return nil, err
	}
	db.SetMaxOpenConns(1)
	w := &SQLiteWriter{path: path, db: db, swf: h != nil && h.SWFFields}
	var cols []string
	for i, c := range SQLiteColumns {
		typ := "TEXT"
		if isNumericField(i) {
			typ = "REAL"
			if i == fStatus {
				typ = "INTEGER"
			}
		}
		cols = append(cols, c+" "+typ)
	}
	if w.swf {
		cols = append(cols, colPrecedingJob+" TEXT", colThinkTime+" REAL")
	}
	stmts := []string{
		"PRAGMA journal_mode=OFF", "PRAGMA synchronous=OFF",
		"CREATE TABLE Jobs (" + strings.Join(cols, ", ") + ")",
		"CREATE TABLE gmark_header (line INTEGER PRIMARY KEY, text TEXT NOT NULL)",
	}
	for _, s := range stmts {
		if _, err := db.Exec(s); err != nil {
			db.Close()
			return nil, fmt.Errorf("%s: %v", path, err)
		}
	}
	for i, l := range h.writerLines() {
		if _, err := db.Exec("INSERT INTO gmark_header (line, text) VALUES (?, ?)", i+1, l); err != nil {
			db.Close()
			return nil, err
		}
	}
	w.args = make([]any, len(cols))
	if err := w.begin(); err != nil {
		db.Close()
		return nil, err
	}
	return w, nil
}

func (w *SQLiteWriter) begin() error {
	tx, err := w.db.Begin()
	if err != nil {
		return err
	}
	marks := strings.TrimSuffix(strings.Repeat("?,", len(w.args)), ",")
	stmt, err := tx.Prepare("INSERT INTO Jobs VALUES (" + marks + ")")
	if err != nil {
		tx.Rollback()
		return err
	}
	w.tx, w.stmt = tx, stmt
	return nil
}

// Write inserts one record.
func (w *SQLiteWriter) Write(r *Record) error {
	if err := writable(r); err != nil {
		return err
	}
	a := w.args
	a[0], a[1], a[2], a[3], a[4], a[5] = r.JobID, r.SubmitTime, r.WaitTime, r.RunTime, r.NProcs, r.AvgCPUTimeUsed
	a[6], a[7], a[8], a[9], a[10] = r.UsedMemory, r.ReqNProcs, r.ReqTime, r.ReqMemory, r.Status
	a[11], a[12], a[13], a[14], a[15] = r.UserID, r.GroupID, r.ExecutableID, r.QueueID, r.PartitionID
	a[16], a[17], a[18], a[19] = r.OrigSiteID, r.LastRunSiteID, r.JobStructure, r.JobStructureParams
	a[20], a[21], a[22], a[23] = r.UsedNetwork, r.UsedLocalDiskSpace, r.UsedResources, r.ReqPlatform
	a[24], a[25], a[26], a[27], a[28] = r.ReqNetwork, r.ReqLocalDiskSpace, r.ReqResources, r.VOID, r.ProjectID
	if w.swf {
		a[29], a[30] = r.PrecedingJob, r.ThinkTime
	}
	if _, err := w.stmt.Exec(a...); err != nil {
		return err
	}
	w.n++
	if w.n%sqliteBatch == 0 {
		if err := w.commit(); err != nil {
			return err
		}
		return w.begin()
	}
	return nil
}

func (w *SQLiteWriter) commit() error {
	w.stmt.Close()
	err := w.tx.Commit()
	w.tx, w.stmt = nil, nil
	return err
}

// Close commits and closes the database, and flushes it to stable
// storage: it is written with synchronous=OFF for speed, so nothing else
// does.
func (w *SQLiteWriter) Close() error {
	var err error
	if w.tx != nil {
		err = w.commit()
	}
	if e := w.db.Close(); err == nil {
		err = e
	}
	if err != nil {
		return err
	}
	f, err := os.OpenFile(w.path, os.O_RDWR, 0)
	if err != nil {
		return err
	}
	err = f.Sync()
	if e := f.Close(); err == nil {
		err = e
	}
	return err
}

// sqliteReader streams the Jobs table.
type sqliteReader struct {
	common
	db   *sql.DB
	rows *sql.Rows
	cols []int
	vals []any
	ptrs []any
	row  int64
}

// OpenSQLite opens a GWF-SQLite database for reading.
func OpenSQLite(path string, opts ReadOptions) (Reader, error) {
	if opts.Name == "" {
		opts.Name = path
	}
	if err := readlimit.Check(path); err != nil {
		return nil, err
	}
	db, err := sql.Open("sqlite", path)
	if err != nil {
		return nil, err
	}
	db.SetMaxOpenConns(1)
	r := &sqliteReader{common: common{name: opts.Name, opts: opts}, db: db}
	r.hdr.Format = SQLite
	if err := r.open(); err != nil {
		db.Close()
		if pe, ok := err.(*ParseError); ok {
			return nil, pe
		}
		// The file is not a GWF-SQLite trace: bad input.
		return nil, parseError(opts.Name, 0, 0, err.Error())
	}
	if err := r.readAhead(r.read()); err != nil {
		r.Close()
		return nil, err
	}
	return r, nil
}

func (r *sqliteReader) open() error {
	var n int
	if err := r.db.QueryRow("SELECT count(*) FROM sqlite_master WHERE type='table' AND name='gmark_header'").Scan(&n); err != nil {
		return fmt.Errorf("not an SQLite database: %v", err)
	}
	if n > 0 {
		rows, err := r.db.Query("SELECT text FROM gmark_header ORDER BY line")
		if err != nil {
			return err
		}
		for k := 1; rows.Next(); k++ {
			r.stats.Lines++
			var s string
			if err := rows.Scan(&s); err != nil {
				rows.Close()
				return err
			}
			// Header rows are not Jobs rows: their errors name no row.
			if bad := r.hdr.addLine(s); bad != "" {
				if err := r.skip(r.errorf(0, 0, "gmark_header line %d: %s", k, bad)); err != nil {
					rows.Close()
					return err
				}
			}
		}
		rows.Close()
	}
	rows, err := r.db.Query("SELECT * FROM Jobs")
	if err != nil {
		return fmt.Errorf("not a GWF-SQLite trace: no table Jobs (%v)", err)
	}
	names, err := rows.Columns()
	if err != nil {
		rows.Close()
		return err
	}
	r.rows = rows
	r.cols = mapColumns(&r.hdr, names)
	// SQLite's names are case-insensitive: a results store's jobs table,
	// or another program's, answers to Jobs (and may have a job_id). A
	// GWF one has the jobs' submit times; without them it is refused as
	// text of no known format is.
	if !slices.Contains(r.cols, fSubmitTime) {
		rows.Close()
		r.rows = nil
		if len(names) > 8 {
			names = append(names[:8:8], "…")
		}
		return fmt.Errorf("%s (it has %s)", noGWFColumns, strings.Join(names, ", "))
	}
	r.vals = make([]any, len(names))
	r.ptrs = make([]any, len(names))
	for i := range r.vals {
		r.ptrs[i] = &r.vals[i]
	}
	return nil
}

func (r *sqliteReader) Next() (Record, error) {
	if rec, err, ok := r.ahead(); ok {
		return rec, err
	}
	return r.keep(r.read())
}

func (r *sqliteReader) read() (Record, error) {
	for r.rows.Next() {
		r.row++
		r.stats.Lines++ // gmark_header rows, then Jobs rows
		if err := r.rows.Scan(r.ptrs...); err != nil {
			return Record{}, fmt.Errorf("%s: row %d: %v", r.name, r.row, err)
		}
		rec := missingRecord
		if e := r.parse(&rec); e != nil {
			if e := r.skip(e); e != nil {
				return Record{}, e
			}
			continue
		}
		if msg := r.finish(&rec); msg != "" {
			if e := r.skip(r.errorf(r.row, 0, "%s", msg)); e != nil {
				return Record{}, e
			}
			continue
		}
		return rec, nil
	}
	if err := r.rows.Err(); err != nil {
		return Record{}, fmt.Errorf("%s: %v", r.name, err)
	}
	return Record{}, io.EOF
}

func (r *sqliteReader) parse(rec *Record) *ParseError {
	for i, f := range r.cols {
		if f < 0 {
			continue
		}
		v := r.vals[i]
		if isNumericField(f) {
			x := float64(Missing)
			switch t := v.(type) {
			case nil:
			case int64:
				x = float64(t)
			case float64:
				x = t
			case string, []byte:
				var b []byte
				if s, ok := t.(string); ok {
					b = []byte(s)
				} else {
					b = t.([]byte)
				}
				if len(b) > 0 {
					var ok bool
					if x, ok = parseNumber(b); !ok {
						return r.errorf(r.row, i+1, "%s is not a number (GWF %s)", quote(b), fieldName(f))
					}
				}
			default:
				return r.errorf(r.row, i+1, "unexpected %T value (GWF %s)", v, fieldName(f))
			}
			if msg := checkField(f, x); msg != "" && f != fStatus {
				return r.errorf(r.row, i+1, "%s", msg)
			}
			if f == fStatus {
				if x != float64(int(x)) || x < -1 || x > 5 {
					return r.errorf(r.row, i+1, "status %v is not one of -1, 0 (failed), 1 (completed), 2, 3, 4 (partial) or 5 (cancelled)", v)
				}
				rec.Status = int(x)
				continue
			}
			setNumber(rec, f, x)
			continue
		}
		var s string
		switch t := v.(type) {
		case nil:
			s = smallInts[0]
		case string:
			s = t
		case []byte:
			s = string(t)
		case int64:
			s = strconv.FormatInt(t, 10)
		case float64:
			s = strconv.FormatFloat(t, 'f', -1, 64)
		default:
			return r.errorf(r.row, i+1, "unexpected %T value (GWF %s)", v, fieldName(f))
		}
		if s == "" {
			s = smallInts[0]
		}
		setString(rec, f, s)
	}
	return nil
}

// setNumber stores a numeric field other than Status.
func setNumber(rec *Record, f int, v float64) {
	switch f {
	case fSubmitTime:
		rec.SubmitTime = v
	case fWaitTime:
		rec.WaitTime = v
	case fRunTime:
		rec.RunTime = v
	case fNProcs:
		rec.NProcs = v
	case fAvgCPUTimeUsed:
		rec.AvgCPUTimeUsed = v
	case fUsedMemory:
		rec.UsedMemory = v
	case fReqNProcs:
		rec.ReqNProcs = v
	case fReqTime:
		rec.ReqTime = v
	case fReqMemory:
		rec.ReqMemory = v
	case fUsedNetwork:
		rec.UsedNetwork = v
	case fUsedLocalDiskSpace:
		rec.UsedLocalDiskSpace = v
	case fReqNetwork:
		rec.ReqNetwork = v
	case fReqLocalDiskSpace:
		rec.ReqLocalDiskSpace = v
	case fThinkTime:
		rec.ThinkTime = v
	}
}

func (r *sqliteReader) Close() error {
	if r.rows != nil {
		r.rows.Close()
	}
	return r.db.Close()
}
