package gwa

import (
	"bufio"
	"bytes"
	"database/sql"
	"encoding/binary"
	"errors"
	"math"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"
)

// readerError checks the error a reader returned: a *ParseError in strict
// mode; otherwise only a *NoRecordsError (every record line malformed).
func readerError(t *testing.T, strict bool, what string, err error) {
	t.Helper()
	var pe *ParseError
	var ne *NoRecordsError
	if !errors.As(err, &pe) || (!strict && !errors.As(err, &ne)) {
		t.Fatalf("strict=%v: %s: %v (%T)", strict, what, err, err)
	}
}

// checkRead checks what a reader read: counts that add up, every record in
// range, and records and header that survive GWF text (and GWF-SQLite: slow,
// so only for the GWF-SQLite reader).
func checkRead(t *testing.T, r Reader, recs []Record, strict, viaSQLite bool) {
	t.Helper()
	s := r.Stats()
	if s.Records != int64(len(recs)) || s.Records+s.Skipped > s.Lines || (strict && s.Skipped != 0) {
		t.Fatalf("strict=%v: stats %+v for %d records", strict, s, len(recs))
	}
	for i := range recs {
		if msg := checkRecord(&recs[i]); msg != "" {
			t.Fatalf("record %d read but out of range: %s\n%+v", i, msg, recs[i])
		}
	}
	if len(recs) == 0 {
		return
	}
	h := *r.Header()
	var buf bytes.Buffer
	w, err := NewGWFWriterHeader(&buf, &h)
	if err != nil {
		t.Fatal(err)
	}
	writeAll(t, w, recs)
	back, err := NewReader(&buf, ReadOptions{Name: "back", Strict: true})
	if err != nil {
		t.Fatalf("reading back: %v\n%s", err, buf.String())
	}
	sameRecords(t, "GWF", back, recs, &h)
	if !viaSQLite {
		return
	}
	path := filepath.Join(t.TempDir(), "back.db3")
	sw, err := CreateSQLite(path, &h)
	if err != nil {
		t.Fatal(err)
	}
	writeAll(t, sw, recs)
	sback, err := OpenSQLite(path, ReadOptions{Strict: true})
	if err != nil {
		t.Fatalf("reading GWF-SQLite back: %v", err)
	}
	sameRecords(t, "GWF-SQLite", sback, recs, &h)
}

func writeAll(t *testing.T, w Writer, recs []Record) {
	t.Helper()
	for i := range recs {
		if err := w.Write(&recs[i]); err != nil {
			t.Fatalf("writing record %d: %v\n%+v", i, err, recs[i])
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
}

// sameRecords reads r to the end and compares with want, and its header's
// time base and system size with h's.
func sameRecords(t *testing.T, what string, r Reader, want []Record, h *Header) {
	t.Helper()
	defer r.Close()
	got, err := drain(r)
	if err != nil {
		t.Fatalf("%s: reading back: %v", what, err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("%s: records changed:\n%+v\nwant\n%+v", what, got, want)
	}
	g := r.Header()
	if g.SWFFields != h.SWFFields || !reflect.DeepEqual(headerValues(g), headerValues(h)) {
		t.Fatalf("%s: header changed: %+v\nwant %+v", what, g, h)
	}
}

// headerValues are what a reader takes from a header's lines: a
// conversion keeps every one.
func headerValues(h *Header) map[string]any {
	parts := map[string]string{}
	for k, v := range h.Partitions {
		parts[k] = v
	}
	return map[string]any{"UnixStartTime": h.UnixStartTime, "TimeZoneString": h.TimeZone, "MaxProcs": h.MaxProcs,
		"MaxNodes": h.MaxNodes, "MaxJobs": h.MaxJobs, "Partition": parts}
}

// fuzzRead reads data with a reader made by mk, in both modes, and checks
// the invariants: no panic, only the errors readerError allows, and what
// checkRead checks.
func fuzzRead(t *testing.T, data []byte, mk func(src *lineSource, opts ReadOptions) (Reader, error)) {
	for _, strict := range []bool{false, true} {
		src := &lineSource{br: bufio.NewReaderSize(bytes.NewReader(data), 4096), name: "fuzz"}
		r, err := mk(src, ReadOptions{Name: "fuzz", Strict: strict})
		if err != nil {
			readerError(t, strict, "open", err)
			continue
		}
		recs, err := drain(r)
		if err != nil {
			readerError(t, strict, "read", err)
			continue
		}
		checkRead(t, r, recs, strict, false)
	}
}

func FuzzSWF(f *testing.F) {
	f.Add([]byte("; Version: 2.2\n; UnixStartTime: 1132444805\n; Partition: 1 a\n1 0 -1 83 1 -1 -1 -1 1200 -1 -1 1 1 -1 -1 1 -1 -1\n2 3 5 1.5 4 2.25 100 4 60 -1 1 2 2 3 1 2 1 10\n"))
	f.Add([]byte("1 1136073600 -60 -1 1 -1 -1 1 -1 -1 5 1 1 -1 -1 1 -1 -1   \r\n; late\n\n2 0 1 2 3 4 5 6 7 8 0 1 2 3 4 5 6 7 8 9\n"))
	f.Add([]byte("1 2 3\nx y z\n1 0 -1 83 1 -1 -1 -1 1e3 -1 9 1 1 -1 -1 1 -1 -1\n"))
	// Out of range: a run time past 2^31 s, a header size past 2^31 - 1,
	// a job 20 years after the first.
	f.Add([]byte("; MaxProcs: 99999999999\n1 0 0 1e300 1e300 -1 -1 -1 -1 -1 1 1 1 -1 -1 1 -1 -1\n"))
	f.Add([]byte("1 700000000 0 1 1 -1 -1 -1 -1 -1 1 1 1 -1 -1 1 -1 -1\n2 1400000000 0 1 1 -1 -1 -1 -1 -1 1 1 1 -1 -1 1 -1 -1\n"))
	// Identifier tables before the records that use them (one
	// quoted, one malformed, one redefining a number), a negative run time.
	f.Add([]byte("; Version: 2.2   \r\n; gmark-job: 7 \"#j\\x201\"\n; gmark-user: 3 U17\n; gmark-group: x\n7 0 0 -50 1 -1 -1 -1 -1 -1 1 3 1 -1 -1 1 7 -1\n; gmark-user: 3 \"\"\n8 1 0 5 2 -1 -1 -1 -1 -1 1 3 1 -1 -1 1 -1 -1\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		fuzzRead(t, data, newSWFReader)
	})
}

func FuzzGWF(f *testing.F) {
	f.Add([]byte("# Processors: 10\n# " + strings.Join(GWFFields, "\t") + "\nj1\t0\t3\t60\t2\t55.5\t100\t2\t120\t200\t1\tU1\tG1\tapp\tq1\tp1\tsA\tsB\tBoT\tb7\t10\t20\tcpu:3\tx86,Linux\t30\t40\tmem:1\tvo1\tproj1\n"))
	f.Add([]byte("# UserID JobID NProc UsedCPUTime Used Memory SubmitTime\nu1 j1 4 3.5 1024 1200000000\n#c\nu2 j2 -1 -1 -1 1200000060 extra\n"))
	f.Add([]byte("1\t2\n\t\t\n1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24 25 26 27 28 29\n"))
	// A job id starting with '#' (here from a column
	// other than the first) was written first on its line, unquoted, and
	// read back as a comment.
	f.Add([]byte("# SubmitTime\tJobID\tUserID\n0\t#a\tb c\n5\t\"#b\"\t\"\n"))
	// Empty first and last tab-separated fields, a
	// trailing tab past the columns.
	f.Add([]byte("# JobID\tSubmitTime\tRunTime \n\t0\t5\nj\t1\t\nk\t2\t3\t\t\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		fuzzRead(t, data, newGWFReader)
	})
}

// Open must never panic on arbitrary content either, and a compressed
// trace cut short is an error, not a shorter trace.
func FuzzDetect(f *testing.F) {
	f.Add([]byte("; x\n"))
	f.Add([]byte{0x1f, 0x8b, 0, 0})
	f.Add([]byte("SQLite format 3\x00"))
	f.Fuzz(func(t *testing.T, data []byte) {
		r, err := NewReader(bytes.NewReader(data), ReadOptions{})
		if err != nil {
			return
		}
		for {
			if _, err := r.Next(); err != nil {
				break
			}
		}
		r.Close()
	})
}

// sqliteFromText builds a GWF-SQLite file from a description: the first
// line names the Jobs columns (tab-separated), every other line is a row
// of cells, except lines starting with '#', which go to gmark_header. A
// cell is NULL ("\N"), an integer ("i:N"), a real ("f:X", any ParseFloat
// accepts, infinities included), a blob ("b:..."), else text. ok is false
// when SQLite refuses the description (a duplicate column name).
func sqliteFromText(t *testing.T, path, text string) (ok bool) {
	t.Helper()
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	// No journal and no syncs: each row would otherwise be a transaction
	// synced to disk, and the fuzzer would mostly wait.
	for _, p := range []string{"PRAGMA journal_mode=OFF", "PRAGMA synchronous=OFF"} {
		if _, err := db.Exec(p); err != nil {
			t.Fatal(err)
		}
	}
	lines := strings.Split(text, "\n")
	var cols []string
	for _, c := range strings.Split(lines[0], "\t") {
		cols = append(cols, `"`+strings.ReplaceAll(c, `"`, `""`)+`"`)
	}
	if _, err := db.Exec("CREATE TABLE Jobs (" + strings.Join(cols, ", ") + ")"); err != nil {
		return false
	}
	if _, err := db.Exec("CREATE TABLE gmark_header (line INTEGER PRIMARY KEY, text TEXT NOT NULL)"); err != nil {
		t.Fatal(err)
	}
	ins := "INSERT INTO Jobs VALUES (" + strings.TrimSuffix(strings.Repeat("?,", len(cols)), ",") + ")"
	for _, l := range lines[1:] {
		if strings.HasPrefix(l, "#") {
			if _, err := db.Exec("INSERT INTO gmark_header (text) VALUES (?)", l[1:]); err != nil {
				t.Fatal(err)
			}
			continue
		}
		cells := strings.Split(l, "\t")
		args := make([]any, len(cols))
		for i := range args {
			if i >= len(cells) {
				continue
			}
			c := cells[i]
			switch {
			case c == `\N`:
			case strings.HasPrefix(c, "i:"):
				n, _ := strconv.ParseInt(c[2:], 10, 64)
				args[i] = n
			case strings.HasPrefix(c, "f:"):
				x, _ := strconv.ParseFloat(c[2:], 64)
				args[i] = x
			case strings.HasPrefix(c, "b:"):
				args[i] = []byte(c[2:])
			default:
				args[i] = c
			}
		}
		if _, err := db.Exec(ins, args...); err != nil {
			t.Fatal(err)
		}
	}
	return true
}

// The GWF-SQLite reader takes any table Jobs: any columns, any cell types,
// any values. It must never panic, must refuse what is out of range with a
// file:ROW error, and what it reads must survive writing and reading back.
func FuzzGWFSQLite(f *testing.F) {
	f.Add(strings.Join(SQLiteColumns, "\t") + "\nj1\tf:0\ti:3\tf:60.5\ti:2\t-1\t\\N\t2\t120\t200\ti:1\tU1\tG1\tapp\tq1\tp1\tsA\tsB\tBoT\tb7\t10\t20\tcpu:3\tx86,Linux\t30\t40\tmem:1\tvo1\tproj1\n#UnixStartTime: 1200000000\n#MaxProcs: 64")
	f.Add("SubmitTime\tRunTime\tJobID\tStatus\tUserID\tExtra\nf:1e300\tf:+Inf\t#x\ti:9\tb:a b\tz\ni:1200000000\tf:-1\ta\tf:1.5\t\\N\n#MaxProcs: -5")
	f.Add("JobID\tSubmitTime\n#a\ti:700000000\nb\ti:1400000000\n#Note: a\nb")
	f.Add("NProc\tNProc\nx")
	f.Fuzz(func(t *testing.T, text string) {
		path := filepath.Join(t.TempDir(), "fuzz.db3")
		if !sqliteFromText(t, path, text) {
			return
		}
		for _, strict := range []bool{false, true} {
			r, err := OpenSQLite(path, ReadOptions{Name: "fuzz", Strict: strict})
			var pe *ParseError
			if err != nil && errors.As(err, &pe) && strings.Contains(err.Error(), noGWFColumns) {
				continue // no SubmitTime: not a trace, in either mode (as text of no known format)
			}
			if err != nil {
				readerError(t, strict, "open", err)
				continue
			}
			recs, err := drain(r)
			if err != nil {
				r.Close()
				readerError(t, strict, "read", err)
				continue
			}
			checkRead(t, r, recs, strict, true)
			r.Close()
		}
	})
}

// fuzzRecords makes records from fuzz input: strings from the lines of ids
// (cycled), numbers from 5-byte groups of nums: an int32 scaled by 2^-k, or
// with the top bit of the fifth byte a special value (NaN, infinities,
// values at and past the range limits).
func fuzzRecords(ids string, nums []byte, n int) []Record {
	strs := strings.Split(ids, "\n")
	si, ni := 0, 0
	str := func() string {
		s := strs[si%len(strs)]
		si++
		return s
	}
	special := []float64{math.NaN(), math.Inf(1), math.Inf(-1), MaxDuration, MaxDuration + 1, MaxSubmitTime, -MaxSubmitTime - 1,
		absoluteThreshold, absoluteThreshold - 0.5, 1e300, -0.0, 0.1, Missing, MaxProcs, MaxAmount, MaxAmount * 2}
	num := func() float64 {
		if len(nums) < 5 {
			return Missing
		}
		g := nums[(ni*5)%(len(nums)-4):]
		ni++
		if g[4]&0x80 != 0 {
			return special[int(g[4])%len(special)]
		}
		return float64(int32(binary.LittleEndian.Uint32(g))) / float64(uint64(1)<<(g[4]%24))
	}
	recs := make([]Record, n)
	for i := range recs {
		r := &recs[i]
		r.JobID, r.SubmitTime, r.WaitTime, r.RunTime, r.NProcs = str(), num(), num(), num(), num()
		r.AvgCPUTimeUsed, r.UsedMemory, r.ReqNProcs, r.ReqTime, r.ReqMemory = num(), num(), num(), num(), num()
		r.Status = int(num())%8 - 1
		r.UserID, r.GroupID, r.ExecutableID, r.QueueID, r.PartitionID = str(), str(), str(), str(), str()
		r.OrigSiteID, r.LastRunSiteID, r.JobStructure, r.JobStructureParams = str(), str(), str(), str()
		r.UsedNetwork, r.UsedLocalDiskSpace, r.UsedResources, r.ReqPlatform = num(), num(), str(), str()
		r.ReqNetwork, r.ReqLocalDiskSpace, r.ReqResources, r.VOID, r.ProjectID = num(), num(), str(), str(), str()
		r.PrecedingJob, r.ThinkTime = str(), num()
	}
	return recs
}

// normalized is a record as a reader gives it: a missing string is "-1".
func normalized(r Record) Record {
	for _, p := range []*string{&r.JobID, &r.UserID, &r.GroupID, &r.ExecutableID, &r.QueueID, &r.PartitionID,
		&r.OrigSiteID, &r.LastRunSiteID, &r.JobStructure, &r.JobStructureParams, &r.UsedResources,
		&r.ReqPlatform, &r.ReqResources, &r.VOID, &r.ProjectID, &r.PrecedingJob} {
		if missingString(*p) {
			*p = "-1"
		}
	}
	return r
}

// Writing GWF and reading it back gives the same records, whatever their
// strings; a record the writer refuses is one out of range.
func FuzzRoundTripGWF(f *testing.F) {
	f.Add("#1\na b\n\"q\"\n\t\n-1\n\nx\u00a0", []byte{1, 0, 0, 0, 0, 2, 0, 0, 0, 1, 0, 0, 0, 0, 0x81, 7, 0, 0, 0, 3})
	f.Add("j", []byte{0, 0, 0, 0, 0x87})
	f.Fuzz(func(t *testing.T, ids string, nums []byte) {
		recs := fuzzRecords(ids, nums, 3)
		for _, swf := range []bool{false, true} {
			var buf bytes.Buffer
			w, _ := NewGWFWriterHeader(&buf, &Header{SWFFields: swf, MaxProcs: 8})
			var want []Record
			for i := range recs {
				err := w.Write(&recs[i])
				if err != nil && strings.Contains(err.Error(), "1 MiB") {
					continue // a line no reader takes, refused
				}
				if (err != nil) != (checkRecord(&recs[i]) != "") {
					t.Fatalf("write: %v, but the range check says %q\n%+v", err, checkRecord(&recs[i]), recs[i])
				}
				if err == nil {
					r := normalized(recs[i])
					if !swf {
						r.PrecedingJob, r.ThinkTime = "-1", Missing
					}
					want = append(want, r)
				}
			}
			if err := w.Close(); err != nil {
				t.Fatal(err)
			}
			r, err := NewReader(&buf, ReadOptions{Name: "back", Strict: true, Format: GWF})
			if err != nil {
				t.Fatalf("%v\n%s", err, buf.String())
			}
			got, err := drain(r)
			if err != nil || !reflect.DeepEqual(got, want) {
				t.Fatalf("read back (%v):\n%+v\nwant\n%+v\n%s", err, got, want, buf.String())
			}
		}
	})
}

// swfTables reads the "; gmark-KIND: N name" lines of an SWF written by
// gmark: the names behind renumbered identifiers.
func swfTables(t *testing.T, text string) map[string]map[string]string {
	tables := map[string]map[string]string{}
	for _, l := range strings.Split(text, "\n") {
		rest, ok := strings.CutPrefix(l, "; gmark-")
		if !ok {
			continue
		}
		kind, entry, _ := strings.Cut(rest, ": ")
		num, name, _ := strings.Cut(entry, " ")
		if s, ok := unquoteField([]byte(name)); ok {
			name = s
		}
		if tables[kind] == nil {
			tables[kind] = map[string]string{}
		}
		if _, dup := tables[kind][num]; dup {
			t.Fatalf("%s %s numbered twice", kind, num)
		}
		tables[kind][num] = name
	}
	return tables
}

// Writing SWF and reading it back gives the same records: the same
// numbers, and the same identifiers, renumbered ones read back from the
// writer's tables (they were written but not read);
// GWF-only fields are not in SWF, so the records are made without them.
func FuzzRoundTripSWF(f *testing.F) {
	f.Add("x\n5\n6\n#1\na b", []byte{1, 0, 0, 0, 0, 2, 0, 0, 0, 1, 0, 0, 0, 0, 0x81}, "Version: 2.2\nMaxProcs: 8")
	f.Add("1\n007\n1", []byte{0, 0, 0, 0, 0x87, 9, 0, 0, 0, 0}, "")
	// A header line holding a bare CR was written as two lines, and its
	// key lost its value.
	f.Add("1", []byte{0, 0, 0, 0, 0x87}, "UnixStartTime:\r1132444805\nPartition: 1\ra\nTimeZoneString: Europe/\rLondon")
	f.Fuzz(func(t *testing.T, ids string, nums []byte, header string) {
		recs := fuzzRecords(ids, nums, 4)
		h := fuzzHeader(t, header)
		if h.MaxProcs == 0 {
			h.MaxProcs = 8
		}
		var buf bytes.Buffer
		w, err := NewSWFWriterHeader(&buf, h)
		if err != nil {
			t.Fatalf("a header read is refused by the writer: %v\n%+v", err, h)
		}
		var want []Record
		for i := range recs {
			r := &recs[i]
			r.OrigSiteID, r.LastRunSiteID, r.JobStructure, r.JobStructureParams = "-1", "-1", "-1", "-1"
			r.UsedNetwork, r.UsedLocalDiskSpace, r.UsedResources, r.ReqPlatform = Missing, Missing, "-1", "-1"
			r.ReqNetwork, r.ReqLocalDiskSpace, r.ReqResources, r.VOID, r.ProjectID = Missing, Missing, "-1", "-1", "-1"
			err := w.Write(r)
			if (err != nil) != (checkRecord(r) != "") {
				t.Fatalf("write: %v, but the range check says %q\n%+v", err, checkRecord(r), *r)
			}
			if err == nil {
				want = append(want, normalized(*r))
			}
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		swfTables(t, buf.String()) // no number is given two names
		r, err := NewReader(bytes.NewReader(buf.Bytes()), ReadOptions{Name: "back", Strict: true})
		if err != nil {
			t.Fatalf("%v\n%s", err, buf.String())
		}
		got, err := drain(r)
		if err != nil || len(got) != len(want) {
			t.Fatalf("read back %d of %d (%v)\n%s", len(got), len(want), err, buf.String())
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("read back:\n%+v\nwant\n%+v\n%s", got, want, buf.String())
		}
		if g := r.Header(); !reflect.DeepEqual(headerValues(g), headerValues(h)) {
			t.Fatalf("header read back %+v\nwant %+v\n%s", headerValues(g), headerValues(h), buf.String())
		}
	})
}

// fuzzHeader is the header of an SWF trace whose comment lines are text's
// lines (gmark-KIND identifier tables left out: the records' names are
// fuzzRecords'), as a reader reads it: what `gmark trace convert` writes.
func fuzzHeader(t *testing.T, text string) *Header {
	var b strings.Builder
	for _, l := range strings.Split(text, "\n") {
		if !strings.HasPrefix(strings.TrimSpace(l), "gmark-") {
			b.WriteString("; " + l + "\n")
		}
	}
	r, err := NewReader(strings.NewReader(b.String()), ReadOptions{Name: "header", Format: SWF})
	if err != nil {
		t.Skip() // not a header the reader takes
	}
	defer r.Close()
	if _, err := drain(r); err != nil {
		t.Skip()
	}
	h := *r.Header()
	return &h
}
