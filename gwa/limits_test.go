package gwa

import (
	"bytes"
	"compress/gzip"
	"database/sql"
	"errors"
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/gmark/gmark/internal/readlimit"
	"github.com/gmark/gmark/internal/testkit"
)

// swfRecord is an SWF line with fields 2-5 (submit, wait, run, allocated
// processors) given.
func swfRecord(submit, wait, run, procs string) string {
	return "1 " + submit + " " + wait + " " + run + " " + procs + " -1 -1 -1 -1 -1 1 1 1 -1 -1 1 -1 -1\n"
}

// Every number read from a trace is checked against its documented range
// (docs/trace.md, "Ranges"): a value out of range is a malformed line with
// its file:line and field, never a value that overflows later.
func TestNumbersOutOfRange(t *testing.T) {
	gwfRest := strings.Repeat("\t-1", 25)
	cases := []struct {
		name, text, want string
	}{
		{"huge run time", swfRecord("0", "0", "1e300", "1"), `t:1: field 4: RunTime 1e+300 is out of range (at most 9223372036 s in magnitude)`},
		{"run time past a time.Duration", swfRecord("0", "0", "9223372037", "1"), "t:1: field 4: RunTime 9223372037 is out of range"},
		{"negative huge wait", swfRecord("0", "-1e10", "1", "1"), "t:1: field 3: WaitTime -10000000000 is out of range"},
		{"huge size", swfRecord("0", "0", "1", "3e9"), "t:1: field 5: NProcs 3000000000 is out of range (at most 2147483647 in magnitude)"},
		{"infinite number", swfRecord("0", "0", "1e999", "1"), `t:1: field 4: "1e999" is not a number`},
		{"NaN", swfRecord("0", "0", "NaN", "1"), `t:1: field 4: "NaN" is not a number`},
		{"submit past 2106", swfRecord("5e9", "0", "1", "1"), "t:1: field 2: SubmitTime 5000000000 is out of range"},
		{"offset of 20 years from the base", swfRecord("700000000", "0", "1", "1") + swfRecord("1400000000", "0", "1", "1"),
			"t:2: SubmitTime 1400000000 is 700000000 s after the time base 700000000"},
		{"GWF memory", "j\t0\t0\t1\t1\t-1\t1e16" + strings.Repeat("\t-1", 22) + "\n", "t:1: field 7: Used Memory 1e+16 is out of range"},
		{"GWF think time", "# JobID\tSubmitTime\tThinkTime\nj\t0\t1e12\n", "t:2: field 3: ThinkTime 1000000000000 is out of range"},
		{"GWF requested time", "j\t0\t0\t1\t1\t-1\t-1\t1\t-1e10\t-1" + gwfRest[:len(gwfRest)-6] + "\n", "t:1: field 9: ReqTime -10000000000 is out of range"},
		{"header size", "; MaxProcs: 99999999999\n" + swfRecord("0", "0", "1", "1"), `t:1: MaxProcs: "99999999999" is not a whole number from 0 to 2147483647`},
		{"header base negative", "; UnixStartTime: -5\n" + swfRecord("0", "0", "1", "1"), `t:1: UnixStartTime: "-5" is not a whole number from 0 to 4294967296`},
		{"header base not a number", "# UnixStartTime: soon\nj\t0" + strings.Repeat("\t-1", 27) + "\n", `t:1: UnixStartTime: "soon" is not a whole number`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := NewReader(strings.NewReader(c.text), ReadOptions{Name: "t", Strict: true})
			if err == nil {
				var r Reader
				r, err = NewReader(strings.NewReader(c.text), ReadOptions{Name: "t", Strict: true})
				if err == nil {
					_, err = drain(r)
				}
			}
			var pe *ParseError
			if !errors.As(err, &pe) || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("strict: %v (%T), want a *ParseError with %q", err, err, c.want)
			}
			// Leniently, the line is skipped and counted, and any valid
			// record still comes through.
			r, err := NewReader(strings.NewReader(c.text+swfLineOrGWF(c.text)), ReadOptions{Name: "t"})
			if err != nil {
				t.Fatalf("lenient: %v", err)
			}
			recs, err := drain(r)
			if err != nil || len(recs) == 0 || r.Stats().Skipped != 1 || !strings.Contains(r.Stats().Errors[0].Error(), c.want) {
				t.Fatalf("lenient: %d records, %v, stats %+v", len(recs), err, r.Stats())
			}
		})
	}
}

// swfLineOrGWF is a valid record in the format of text.
func swfLineOrGWF(text string) string {
	if strings.Contains(text, "\t") {
		if strings.HasPrefix(text, "# JobID\tSubmitTime\tThinkTime") {
			return "k\t1\t5\n"
		}
		return "k\t1" + strings.Repeat("\t-1", 27) + "\n"
	}
	return swfRecord("1", "0", "1", "1")
}

// The limits hold for GWF-SQLite cells too, whatever their SQLite type.
func TestSQLiteNumbersOutOfRange(t *testing.T) {
	for _, c := range []struct {
		name  string
		value any
		want  string
	}{
		{"infinite real", "+Inf", "fuzz.db3:1: field 2: RunTime +Inf is out of range"},
		{"huge integer", int64(1) << 62, "fuzz.db3:1: field 2: RunTime 4.611686018427388e+18 is out of range"},
		{"huge text", "1e300", "fuzz.db3:1: field 2: RunTime 1e+300 is out of range"},
	} {
		t.Run(c.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "fuzz.db3")
			db, err := sql.Open("sqlite", path)
			if err != nil {
				t.Fatal(err)
			}
			v := c.value
			if v == "+Inf" {
				v = math.Inf(1) // SQLite stores it as a REAL
			}
			if _, err := db.Exec("CREATE TABLE Jobs (JobID TEXT, RunTime REAL, SubmitTime REAL)"); err != nil {
				t.Fatal(err)
			}
			if _, err := db.Exec("INSERT INTO Jobs VALUES ('a', ?, 0), ('b', 5, 0)", v); err != nil {
				t.Fatal(err)
			}
			db.Close()
			_, err = OpenSQLite(path, ReadOptions{Name: "fuzz.db3", Strict: true})
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("strict: %v, want %q", err, c.want)
			}
			r, err := OpenSQLite(path, ReadOptions{Name: "fuzz.db3"})
			if err != nil {
				t.Fatal(err)
			}
			defer r.Close()
			recs, err := drain(r)
			if err != nil || len(recs) != 1 || recs[0].JobID != "b" || r.Stats().Skipped != 1 {
				t.Fatalf("lenient: %+v %v %+v", recs, err, r.Stats())
			}
		})
	}
}

// A file in which every line is malformed is not a
// trace of 0 jobs but an error naming the first bad line, in both modes;
// a trace with no record lines at all is a valid empty trace.
func TestNoValidRecord(t *testing.T) {
	for _, c := range []struct {
		name, text, want string
	}{
		{"every SWF line malformed", "; Version: 2.2\n1 2 3\nx y z\n", "t:2: 3 fields, SWF records have 18; no line is a valid record (2 malformed)"},
		{"every GWF line malformed", "# c\nj\tx\n", `t:2: field 2: "x" is not a number (GWF SubmitTime); no line is a valid record (1 malformed)`},
		{"only out-of-range records", swfRecord("0", "0", "1e300", "1"), "t:1: field 4: RunTime 1e+300 is out of range"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := NewReader(strings.NewReader(c.text), ReadOptions{Name: "t"})
			var ne *NoRecordsError
			var pe *ParseError
			if !errors.As(err, &ne) || !errors.As(err, &pe) || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("%v (%T), want a NoRecordsError with %q", err, err, c.want)
			}
		})
	}
	for _, text := range []string{"", "; Version: 2.2\n; MaxProcs: 4\n", "# a comment\n\n"} {
		name := "t.swf"
		if strings.HasPrefix(text, "#") {
			name = "t.gwf"
		}
		r, err := newTextReader(strings.NewReader(text), nil, ReadOptions{Name: name, Format: FormatFromName(name)}, true)
		if err != nil {
			t.Fatalf("%q: %v", text, err)
		}
		if recs, err := drain(r); err != nil || len(recs) != 0 {
			t.Errorf("%q: %d records, %v", text, len(recs), err)
		}
	}
}

// A gzip-compressed trace cut short is an error at the line where it ends,
// not a shorter trace.
func TestTruncatedGzip(t *testing.T) {
	var text strings.Builder
	for i := 0; i < 20000; i++ {
		text.WriteString(swfRecord("1", "0", "1", "1"))
	}
	var buf bytes.Buffer
	z := gzip.NewWriter(&buf)
	z.Write([]byte(text.String()))
	z.Close()
	full := buf.Bytes()
	for _, cut := range []int{len(full) - 4, len(full) / 2, 30} {
		r, err := NewReader(bytes.NewReader(full[:cut]), ReadOptions{Name: "t.swf.gz"})
		if err == nil {
			_, err = drain(r)
		}
		var pe *ParseError
		if !errors.As(err, &pe) || !strings.Contains(err.Error(), "gzip: unexpected EOF") {
			t.Errorf("cut at %d of %d: %v, want a gzip error", cut, len(full), err)
		}
	}
	r, err := NewReader(bytes.NewReader(full), ReadOptions{Name: "t.swf.gz"})
	if err != nil {
		t.Fatal(err)
	}
	if recs, err := drain(r); err != nil || len(recs) != 20000 {
		t.Fatalf("whole: %d records, %v", len(recs), err)
	}
}

// Writers refuse what a reader could not read back as it was, and so does
// scaling that pushes a number out of range.
func TestWritersRefuseOutOfRange(t *testing.T) {
	for _, c := range []struct {
		name string
		set  func(r *Record)
		want string
	}{
		{"infinite run time", func(r *Record) { r.RunTime = math.Inf(1) }, "RunTime +Inf is out of range"},
		{"NaN memory", func(r *Record) { r.UsedMemory = math.NaN() }, "Used Memory NaN is out of range"},
		{"status 7", func(r *Record) { r.Status = 7 }, "Status 7 is not one of -1 … 5"},
		{"offset of 20 years", func(r *Record) { r.SubmitTime = absoluteThreshold }, "reads back as an absolute Unix time"},
	} {
		t.Run(c.name, func(t *testing.T) {
			rec := NewRecord()
			rec.JobID, rec.SubmitTime = "#j", 0
			c.set(&rec)
			var buf bytes.Buffer
			gw, _ := NewGWFWriter(&buf)
			sw, _ := NewSWFWriter(&buf)
			sq, err := CreateSQLite(filepath.Join(t.TempDir(), "o.db3"), &Header{})
			if err != nil {
				t.Fatal(err)
			}
			defer sq.Close()
			for _, w := range []Writer{gw, sw, sq} {
				err := w.Write(&rec)
				if !errors.Is(err, ErrOutOfRange) || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), `job "#j"`) {
					t.Errorf("%T: %v, want %q", w, err, c.want)
				}
			}
		})
	}
	r, err := NewReader(strings.NewReader(swfRecord("0", "0", "1000", "1")+swfRecord("10", "0", "5e9", "1")), ReadOptions{Strict: true})
	if err != nil {
		t.Fatal(err)
	}
	recs, err := drain(Transform(r, 0, Scale{RunTime: 2}))
	if len(recs) != 1 || !errors.Is(err, ErrOutOfRange) || !strings.Contains(err.Error(), "after rebasing and scaling, job 1: RunTime 10000000000 is out of range") {
		t.Errorf("scaled: %v", err)
	}
}

// Durations given by a user (flags, WDL keys) are bounded like a trace's.
func TestParseDurationSecondsRange(t *testing.T) {
	for _, c := range []struct {
		in   string
		want float64
		err  string
	}{
		{"90", 90, ""},
		{"1.5d", 129600, ""},
		{"-2h", -7200, ""},
		{"9223372036s", 9223372036, ""},
		{"9223372037", 0, "out of range"},
		{"1e300", 0, "out of range"},
		{"-300y", 0, "not a duration"},
		{"1e6w", 0, "out of range"},
		{"1e999", 0, "not a duration"},
		{"NaN", 0, "not a duration"},
		{"inf", 0, "not a duration"},
		// Compound durations, largest unit first, each unit once.
		{"7d1h", 7*86400 + 3600, ""},
		{"1h30m", 5400, ""},
		{"2w3.5d", 14*86400 + 3.5*86400, ""},
		{"-1m30s", -90, ""},
		{"1m30s250ms", 90.25, ""},
		{"1e1m", 600, ""},
		{"1h1h", 0, "not a duration"},
		{"30m1h", 0, "not a duration"},
		{"1h30", 0, "not a duration"},
		{"1h-30m", 0, "not a duration"},
		{"h", 0, "not a duration"},
		{"", 0, "not a duration"},
		{"1d 1h", 0, "not a duration"},
		{"15251w1d", 0, "out of range"},
	} {
		got, err := ParseDurationSeconds(c.in)
		if c.err == "" && (err != nil || got != c.want) || c.err != "" && (err == nil || !strings.Contains(err.Error(), c.err)) {
			t.Errorf("%q: %g, %v; want %g, %q", c.in, got, err, c.want, c.err)
		}
	}
}

// A representative-area width so small that the window index overflowed an
// int panicked (index out of range); it is now an error.
func TestAreaWidthTooSmall(t *testing.T) {
	for _, w := range []float64{1e-300, 1e-9} {
		r, _ := NewReader(strings.NewReader(swfRecord("0", "0", "1", "1")+swfRecord("5", "0", "1", "1")), ReadOptions{})
		_, err := SelectArea(r, w, nil)
		if !errors.Is(err, ErrOutOfRange) || !strings.Contains(err.Error(), "windows over the trace") {
			t.Errorf("width %g: %v", w, err)
		}
	}
}

// Writers refuse a header they could not read back: a time base moved past
// 2106 by a selection, a negative system size.
func TestWritersRefuseHeadersOutOfRange(t *testing.T) {
	for _, h := range []*Header{{UnixStartTime: MaxSubmitTime + 1}, {UnixStartTime: -5}, {MaxProcs: -3}, {MaxNodes: MaxProcs + 1}} {
		var buf bytes.Buffer
		_, e1 := NewGWFWriterHeader(&buf, h)
		_, e2 := NewSWFWriterHeader(&buf, h)
		_, e3 := CreateSQLite(filepath.Join(t.TempDir(), "h.db3"), h)
		for _, err := range []error{e1, e2, e3} {
			if !errors.Is(err, ErrOutOfRange) || !strings.Contains(err.Error(), "is out of range") {
				t.Errorf("%+v: %v", h, err)
			}
		}
	}
}

// A trace comes through a pipe by NewReader (gmark trace stats - <
// t.swf.gz), which peeks at its start instead of seeking back; Open, given
// a path, takes regular files only: a FIFO is refused at once, without
// waiting for a writer (it blocked in open(2) before), and so are a device
// that never ends and a loop of symbolic links.
func TestOpenReadsAPipe(t *testing.T) {
	text := swfRecord("0", "0", "1", "1") + swfRecord("5", "0", "1", "1")
	var buf bytes.Buffer
	z := gzip.NewWriter(&buf)
	z.Write([]byte(text))
	z.Close()
	for _, content := range [][]byte{[]byte(text), buf.Bytes()} {
		pr, pw, err := os.Pipe()
		if err != nil {
			t.Fatal(err)
		}
		go func() {
			pw.Write(content)
			pw.Close()
		}()
		r, err := NewReader(pr, ReadOptions{Strict: true})
		if err != nil {
			t.Fatal(err)
		}
		recs, err := drain(r)
		r.Close()
		pr.Close()
		if err != nil || len(recs) != 2 {
			t.Errorf("%d records, %v", len(recs), err)
		}
	}
	dir := t.TempDir()
	fifo := filepath.Join(dir, "pipe")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	loop := filepath.Join(dir, "loop")
	if err := os.Symlink("loop", loop); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{fifo, "/dev/zero", loop} {
		for _, format := range []Format{"", SQLite} {
			r, err := Open(p, ReadOptions{Format: format})
			if err == nil {
				r.Close()
			}
			if want := "open " + p + ": "; !errors.Is(err, readlimit.ErrNotRegular) || !strings.HasPrefix(err.Error(), want) {
				t.Errorf("Open(%s, %q): %v, want %s… not a regular file", p, format, err, want)
			}
		}
	}
}

// A line of 1 MiB or more ends the read, --strict or not, with an error
// at its line: the reader stops at the bound rather than read on to the
// line's end, which /dev/zero never reaches. Here the line is 64 MiB of
// zeros and a record follows it: the reader takes a few MiB at most, and
// never the record after.
func TestLongLineEndsTheRead(t *testing.T) {
	for _, strict := range []bool{false, true} {
		var read countingReader
		read.r = io.MultiReader(strings.NewReader(swfRecord("0", "0", "1", "1")+"1 "),
			io.LimitReader(zeros{}, 64<<20), strings.NewReader("\n"+swfRecord("5", "0", "1", "1")))
		r, err := NewReader(&read, ReadOptions{Name: "z.swf", Strict: strict, Format: SWF})
		if err != nil {
			t.Fatal(err)
		}
		recs, err := drain(r)
		var pe *ParseError
		if !errors.As(err, &pe) || err.Error() != "z.swf:2: line longer than 1048575 bytes: not a trace's line; the read stops here" || len(recs) != 1 {
			t.Errorf("strict %v: %d records, %v", strict, len(recs), err)
		}
		if _, err := r.Next(); !errors.As(err, &pe) {
			t.Errorf("strict %v: after the long line, Next gives %v", strict, err)
		}
		if read.n > 4<<20 {
			t.Errorf("strict %v: the reader took %d bytes; it stops at the long line's bound", strict, read.n)
		}
	}
}

// countingReader counts the bytes read through it.
type countingReader struct {
	r io.Reader
	n int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}

// zeros is /dev/zero as a reader: it never ends.
type zeros struct{}

func (zeros) Read(p []byte) (int, error) {
	clear(p)
	return len(p), nil
}

// A file named as a GWF-SQLite trace that is not one says so, in strict
// and lenient reading: a results store's jobs table (SQLite answers to Jobs
// for jobs, and it has a job_id) was read as 101 jobs of nothing, another
// program's database without a Jobs table said "no such table", an empty
// file "a GWF-SQLite database: open it by its path", and a text file named
// .db3 the same. (Text of a format that tells itself, SWF or GWF, is read
// as that format whatever the name: the name is only a hint.)
func TestNotGWFSQLite(t *testing.T) {
	dir := t.TempDir()
	mk := func(name string, stmts ...string) string {
		return testkit.SQLiteFile(t, filepath.Join(dir, name), stmts...)
	}
	empty := filepath.Join(dir, "empty.db3")
	text := filepath.Join(dir, "text.db3")
	for p, b := range map[string]string{empty: "", text: "hello\n"} {
		if err := os.WriteFile(p, []byte(b), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, c := range []struct {
		name, path, want string
	}{
		{"a results store's jobs", mk("store.db3", "CREATE TABLE jobs (run_id TEXT, job_id TEXT, state TEXT)", "INSERT INTO jobs VALUES ('r', '1', 'succeeded')"),
			"not a GWF-SQLite trace: its table Jobs has no column SubmitTime (it has run_id, job_id, state)"},
		{"no Jobs table", mk("other.db3", "CREATE TABLE accounts (id INTEGER)"), "not a GWF-SQLite trace: no table Jobs"},
		{"an empty file", empty, "not a GWF-SQLite trace: no table Jobs"},
		{"text named .db3", text, "not a GWF-SQLite trace: it is not a SQLite database"},
	} {
		for _, strict := range []bool{true, false} {
			r, err := Open(c.path, ReadOptions{Strict: strict})
			var pe *ParseError
			if err == nil {
				r.Close()
				t.Errorf("%s (strict %v): read as a trace", c.name, strict)
			} else if !errors.As(err, &pe) || !strings.Contains(err.Error(), c.want) || !strings.HasPrefix(err.Error(), c.path+": ") {
				t.Errorf("%s (strict %v): %v (%T); want a ParseError naming the file and saying %q", c.name, strict, err, err, c.want)
			}
		}
	}
}

// FuzzParseDurationSeconds: any text is a duration within the range, or an
// error; never a panic, NaN or an infinity. A compound duration is the sum
// of its terms: "7d1h" parses as "7d" plus "1h".
func FuzzParseDurationSeconds(f *testing.F) {
	for _, s := range []string{"90", "1.5d", "-2h", "7d1h", "1h30m", "2w3.5d", "1m30s250ms", "1e1m", "1h1h", "", "h", "1e999", "-", "+1d", "1d-1h", "0.5ms"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		v, err := ParseDurationSeconds(s)
		if err != nil {
			return
		}
		if math.IsNaN(v) || math.IsInf(v, 0) || math.Abs(v) > MaxDuration {
			t.Fatalf("%q: %v", s, v)
		}
		for i := 1; i < len(s); i++ {
			if s[i-1] >= 'a' && s[i-1] <= 'z' && (s[i] >= '0' && s[i] <= '9') && s[0] != '-' && s[0] != '+' {
				a, errA := ParseDurationSeconds(s[:i])
				b, errB := ParseDurationSeconds(s[i:])
				if errA == nil && errB == nil && math.Abs(a+b-v) > 1e-9*math.Max(1, math.Abs(v)) {
					t.Fatalf("%q = %g, but %q + %q = %g + %g", s, v, s[:i], s[i:], a, b)
				}
			}
		}
	})
}
