package gwa

import (
	"bytes"
	"reflect"
	"strings"
	"testing"
)

// awkwardStrings are string field values a whitespace-separated format
// cannot hold as they are: each must come back from GWF text unchanged.
var awkwardStrings = []struct{ name, s string }{
	{"hash", "#1"},
	{"hash alone", "#"},
	{"hash after blanks", "  #x"},
	{"space inside", "a b"},
	{"tab inside", "a\tb"},
	{"newline inside", "a\nb"},
	{"carriage return", "a\rb"},
	{"leading and trailing space", " a "},
	{"unicode space at the end", "a\u00a0"},
	{"ideographic space at the start", "\u3000a"},
	{"quote first", `"a"`},
	{"lone quote", `"`},
	{"quote inside", `a"b`},
	{"backslash", `a\x20b`},
	{"invalid UTF-8", "a\xffb"},
	{"NUL", "a\x00b"},
	{"only spaces", "   "},
	{"plain", "U17"},
}

// A job id beginning with '#' was written as it is and
// read back as a comment, so the job vanished; whitespace became '_'. Every
// string field of every record now reads back as written.
func TestGWFStringFieldsRoundTrip(t *testing.T) {
	for _, c := range awkwardStrings {
		t.Run(c.name, func(t *testing.T) {
			recs := []Record{NewRecord(), NewRecord()}
			recs[0].JobID, recs[0].SubmitTime, recs[0].Status = c.s, 10, 1
			r := &recs[1]
			r.JobID, r.SubmitTime = "2", 20
			for _, p := range []*string{&r.UserID, &r.GroupID, &r.ExecutableID, &r.QueueID, &r.PartitionID,
				&r.OrigSiteID, &r.LastRunSiteID, &r.JobStructure, &r.JobStructureParams, &r.UsedResources,
				&r.ReqPlatform, &r.ReqResources, &r.VOID, &r.ProjectID, &r.PrecedingJob} {
				*p = c.s
			}
			for _, swfFields := range []bool{false, true} {
				var buf bytes.Buffer
				w, err := NewGWFWriterHeader(&buf, &Header{SWFFields: swfFields})
				if err != nil {
					t.Fatal(err)
				}
				for i := range recs {
					if err := w.Write(&recs[i]); err != nil {
						t.Fatal(err)
					}
				}
				if err := w.Close(); err != nil {
					t.Fatal(err)
				}
				want := recs
				if !swfFields {
					want = append([]Record(nil), recs...)
					want[1].PrecedingJob = "-1"
				}
				got, _ := readAll(t, "back.gwf", buf.String(), ReadOptions{Strict: true})
				if !reflect.DeepEqual(got, want) {
					t.Fatalf("read back\n%+v\nwant\n%+v\nfrom\n%s", got, want, buf.String())
				}
				// The columns stay whitespace-free, so that readers that split
				// on any white space count 29 (or 31) fields too.
				for _, line := range strings.Split(strings.TrimSuffix(buf.String(), "\n"), "\n") {
					if strings.HasPrefix(line, "#") {
						continue
					}
					if n, want := len(strings.Fields(line)), 29+2*btoi(swfFields); n != want {
						t.Errorf("%d whitespace-separated fields, want %d: %q", n, want, line)
					}
				}
			}
		})
	}
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

// Fields that merely look quoted in a foreign trace are taken literally
// unless they are valid quoting; a missing value stays missing.
func TestGWFReadsUnquotedFieldsLiterally(t *testing.T) {
	rest := strings.Repeat("\t-1", 28)
	for _, c := range []struct{ tok, want string }{
		{`"abc`, `"abc`},
		{`"a\qb"`, `"a\qb"`},
		{`"abc"`, "abc"},
		{`""`, "-1"},
		{`"-1"`, "-1"},
		{`x"y"`, `x"y"`},
	} {
		recs, _ := readAll(t, "q.gwf", c.tok+rest+"\n", ReadOptions{Strict: true})
		if len(recs) != 1 || recs[0].JobID != c.want {
			t.Errorf("%s: read %+v, want job %q", c.tok, recs, c.want)
		}
	}
}

// The SWF writer's identifier tables quote names the same way, and header
// lines holding line breaks (possible in GWF-SQLite's gmark_header) cannot
// become records in either text format.
func TestWritersKeepLinesWhole(t *testing.T) {
	rec := NewRecord()
	rec.JobID, rec.SubmitTime, rec.UserID = "#job 1", 5, "alice smith\n1 2 3"
	h := &Header{Lines: []string{"Note: two\n1 0 -1 83 1 -1 -1 -1 1200 -1 -1 1 1 -1 -1 1 -1 -1\rlines"}}
	for _, f := range []Format{SWF, GWF} {
		var buf bytes.Buffer
		var w Writer
		if f == SWF {
			w, _ = NewSWFWriterHeader(&buf, h)
		} else {
			w, _ = NewGWFWriterHeader(&buf, h)
		}
		if err := w.Write(&rec); err != nil {
			t.Fatal(err)
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		recs, r := readAll(t, "back."+string(f), buf.String(), ReadOptions{Strict: true})
		if len(recs) != 1 {
			t.Fatalf("%s: %d records, want 1:\n%s", f, len(recs), buf.String())
		}
		if f == GWF && (recs[0].JobID != rec.JobID || recs[0].UserID != rec.UserID) {
			t.Errorf("GWF: %+v", recs[0])
		}
		if !strings.Contains(strings.Join(r.Header().Lines, "\n"), "Note: two") {
			t.Errorf("%s: header %q", f, r.Header().Lines)
		}
		if f == SWF {
			for _, want := range []string{`; gmark-job: 1 "#job\x201"`, `; gmark-user: 1 "alice\x20smith\n1\x202\x203"`} {
				if !strings.Contains(buf.String(), want+"\n") {
					t.Errorf("SWF tables: no %s in\n%s", want, buf.String())
				}
			}
		}
	}
}
