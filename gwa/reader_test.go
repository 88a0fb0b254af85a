package gwa

import (
	"bytes"
	"compress/gzip"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// Each oddity of real traces is handled and counted, and no record is lost.
func TestReaderOddities(t *testing.T) {
	swfLine := func(id, submit, wait, run string) string {
		return id + " " + submit + " " + wait + " " + run + " 1 -1 -1 1 -1 -1 1 1 1 -1 -1 1 -1 -1"
	}
	gwfLine := func(id, submit, wait, run string) string {
		f := []string{id, submit, wait, run, "2", "-1", "-1", "2", "-1", "-1", "1", "u1", "g1", "-1", "-1", "-1", "siteA", "siteA", "UNITARY", "-1", "-1", "-1", "-1", "-1", "-1", "-1", "-1", "-1", "-1"}
		return strings.Join(f, "\t")
	}
	cases := []struct {
		name    string
		text    string
		records int
		want    Oddities
		check   func(t *testing.T, recs []Record, h *Header)
	}{
		{"absolute submit times (GWF)", "# " + strings.Join(GWFFields, "\t") + "\n" + gwfLine("1", "1136073600", "5", "10") + "\n" + gwfLine("2", "1136073660", "-3", "10") + "\n",
			2, Oddities{AbsoluteSubmit: 2, NegativeWait: 1}, func(t *testing.T, recs []Record, h *Header) {
				if h.UnixStartTime != 1136073600 || !h.AbsoluteBase || recs[0].SubmitTime != 0 || recs[1].SubmitTime != 60 {
					t.Errorf("base %d abs %v submits %g %g", h.UnixStartTime, h.AbsoluteBase, recs[0].SubmitTime, recs[1].SubmitTime)
				}
			}},
		{"absolute times with a header base (SWF)", "; UnixStartTime: 1136073000\n" + swfLine("1", "1136073600", "0", "5") + "\n",
			1, Oddities{AbsoluteSubmit: 1}, func(t *testing.T, recs []Record, h *Header) {
				if recs[0].SubmitTime != 600 {
					t.Errorf("submit %g, want 600 from the header's base", recs[0].SubmitTime)
				}
			}},
		{"negative waits and cancelled jobs", swfLine("1", "0", "-60", "100") + "\n" + swfLine("2", "5", "-1", "-1") + "\n" + swfLine("3", "9", "-1", "20") + "\n",
			3, Oddities{NegativeWait: 1, CancelledBeforeStart: 1}, func(t *testing.T, recs []Record, h *Header) {
				if recs[0].WaitTime != -60 || recs[1].RunTime != Missing {
					t.Errorf("values changed: %+v", recs[:2])
				}
			}},
		{"comments in the middle and at the end", "; Note: head\n" + swfLine("1", "0", "0", "1") + "\n; a comment\n" + swfLine("2", "1", "0", "1") + "\n; gmark-user: 1 alice\n",
			2, Oddities{LateComments: 1}, func(t *testing.T, recs []Record, h *Header) {
				if len(h.Lines) != 1 || h.Lines[0] != "Note: head" {
					t.Errorf("header lines %q", h.Lines)
				}
			}},
		{"trailing whitespace and CRLF", swfLine("1", "0", "0", "1") + "   \n" + swfLine("2", "1", "0", "1") + "\r\n" + swfLine("3", "2", "0", "1") + "\n",
			3, Oddities{TrailingSpace: 2}, nil},
		{"trailing whitespace (GWF)", gwfLine("1", "0", "0", "1") + "\t \n", 1, Oddities{TrailingSpace: 1}, func(t *testing.T, recs []Record, h *Header) {
			if recs[0].ProjectID != "-1" || recs[0].LastRunSiteID != "siteA" {
				t.Errorf("fields %+v", recs[0])
			}
		}},
		{"blank lines, extra fields, out of order", "\n" + swfLine("1", "10", "0", "1") + " 7 8\n\n" + swfLine("2", "5", "0", "1") + "\n",
			2, Oddities{BlankLines: 2, ExtraFields: 1, OutOfOrder: 1}, nil},
		{"leading spaces and tabs as separators", "\t " + strings.ReplaceAll(swfLine("1", "0", "0", "1"), " ", "\t") + "\n", 1, Oddities{}, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			recs, r := readAll(t, "t", c.text, ReadOptions{Strict: true})
			if len(recs) != c.records {
				t.Fatalf("%d records, want %d", len(recs), c.records)
			}
			if got := r.Stats().Oddities; got != c.want {
				t.Errorf("oddities %+v, want %+v", got, c.want)
			}
			if r.Stats().Records != int64(c.records) {
				t.Errorf("stats count %d records", r.Stats().Records)
			}
			if c.check != nil {
				c.check(t, recs, r.Header())
			}
		})
	}
}

// A malformed line is reported as file:line: field N: what is wrong; strict
// mode stops there, the default skips and counts it.
func TestMalformedLines(t *testing.T) {
	good := "1 0 -1 83 1 -1 -1 -1 1200 -1 -1 1 1 -1 -1 1 -1 -1"
	gwf := "1\t0\t-1\t83\t1\t-1\t-1\t-1\t1200\t-1\t-1\tu\tg\t-1\t-1\t-1\ts\ts\tUNITARY\t-1\t-1\t-1\t-1\t-1\t-1\t-1\t-1\t-1\t-1"
	cases := []struct {
		name, text, want string
	}{
		{"SWF bad number", "; h\n" + good + "\n" + strings.Replace(good, " 83 ", " 8x3 ", 1) + "\n", `t:3: field 4: "8x3" is not a number`},
		{"SWF too few fields", good + "\n1 2 3\n", "t:2: 3 fields, SWF records have 18"},
		{"SWF fractional user", good + "\n" + strings.Replace(good, " 1 1 -1 -1 1", " 1.5 1 -1 -1 1", 1) + "\n", `t:2: field 12: "1.5" is not a whole number (SWF user)`},
		{"SWF bad status", strings.Replace(good, "-1 -1 1 1 -1 -1 1 -1 -1", "-1 7 1 1 -1 -1 1 -1 -1", 1) + "\n" + good + "\n", "t:1: field 11: status 7 is not one of"},
		{"GWF bad wait", gwf + "\n" + strings.Replace(gwf, "0\t-1\t83", "0\tlong\t83", 1) + "\n", `t:2: field 3: "long" is not a number (GWF WaitTime)`},
		{"GWF short line", gwf + "\n1\t2\t3\n", "t:2: 3 fields, this GWF file has 29 columns"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, r := readAll(t, "t", c.text, ReadOptions{})
			s := r.Stats()
			if s.Skipped != 1 || s.Records != 1 || len(s.Errors) != 1 || !strings.HasPrefix(s.Errors[0].Error(), c.want) {
				t.Fatalf("skipped %d, records %d, errors %v; want one skipped: %s", s.Skipped, s.Records, s.Errors, c.want)
			}
			r2, err := NewReader(strings.NewReader(c.text), ReadOptions{Name: "t", Strict: true})
			if err == nil {
				_, err = drain(r2)
			}
			var pe *ParseError
			if !errors.As(err, &pe) || !strings.HasPrefix(pe.Error(), c.want) {
				t.Fatalf("strict: %v, want %s", err, c.want)
			}
		})
	}
}

// Both GWF column-name variants, columns in another order, an unknown
// extra column, and files without a column line.
func TestGWFColumnVariants(t *testing.T) {
	row := map[string]string{"JobID": "j7", "SubmitTime": "30", "WaitTime": "4", "RunTime": "50", "NProcs": "3",
		"AverageCPUTimeUsed": "45.5", "Used Memory": "1024", "Status": "0", "UserID": "U3", "LastRunSiteID": "s2"}
	check := func(t *testing.T, r Record) {
		if r.JobID != "j7" || r.SubmitTime != 30 || r.WaitTime != 4 || r.RunTime != 50 || r.NProcs != 3 || r.AvgCPUTimeUsed != 45.5 ||
			r.UsedMemory != 1024 || r.Status != 0 || r.UserID != "U3" || r.LastRunSiteID != "s2" || r.ReqTime != Missing || r.VOID != "-1" {
			t.Errorf("record %+v", r)
		}
	}
	variants := []struct {
		name string
		cols []string
		sep  string
	}{
		{"text names", []string{"JobID", "SubmitTime", "WaitTime", "RunTime", "NProcs", "AverageCPUTimeUsed", "Used Memory", "Status", "UserID", "LastRunSiteID"}, "\t"},
		{"SQLite names, reordered", []string{"UserID", "JobID", "NProc", "UsedCPUTime", "UsedMemory", "SubmitTime", "RunTime", "WaitTime", "Status", "LastRunSiteID"}, "\t"},
		{"space-separated with Used Memory", []string{"JobID", "SubmitTime", "WaitTime", "RunTime", "NProcs", "AverageCPUTimeUsed", "Used Memory", "Status", "UserID", "LastRunSiteID"}, " "},
		{"an unknown column", []string{"JobID", "SubmitTime", "UNKNOW", "WaitTime", "RunTime", "NProcs", "AverageCPUTimeUsed", "Used Memory", "Status", "UserID", "LastRunSiteID"}, "\t"},
	}
	for _, v := range variants {
		t.Run(v.name, func(t *testing.T) {
			var vals []string
			for _, c := range v.cols {
				x, ok := row[c]
				if !ok {
					x = row[map[string]string{"NProc": "NProcs", "UsedCPUTime": "AverageCPUTimeUsed", "UsedMemory": "Used Memory"}[c]]
				}
				if x == "" {
					x = "zz"
				}
				vals = append(vals, x)
			}
			text := "# Processors: 64\n# " + strings.Join(v.cols, v.sep) + "\n" + strings.Join(vals, "\t") + "\n"
			recs, r := readAll(t, "v.gwf", text, ReadOptions{Strict: true})
			if len(recs) != 1 {
				t.Fatalf("%d records", len(recs))
			}
			check(t, recs[0])
			if r.Header().MaxProcs != 64 || r.Header().Format != GWF {
				t.Errorf("header %+v", r.Header())
			}
		})
	}
}

// SWF → GWF → SWF and GWF → SQLite → GWF lose nothing, including strings,
// fractions and the SWF-only fields, and .gz output reads back.
func TestRoundTrips(t *testing.T) {
	swf := `; Version: 2.2
; UnixStartTime: 1000000000
; MaxProcs: 128
; Partition: 1 alpha
; Partition: 2 beta
1 0 10 100.5 4 90.25 2048 4 200 4096 1 3 2 7 1 1 -1 -1
2 5 -1 -1 8 -1 -1 8 -1 -1 5 4 2 7 1 2 1 30
3 9 -20 40 1 -1 -1 1 60 -1 0 3 1 -1 -1 2 2 0.5
`
	dir := t.TempDir()
	in := filepath.Join(dir, "in.swf")
	if err := os.WriteFile(in, []byte(swf), 0o644); err != nil {
		t.Fatal(err)
	}
	orig, oh := openAll(t, in)
	steps := []struct {
		name string
		f    Format
	}{{"a.gwf", GWF}, {"b.db3", SQLite}, {"c.gwf.gz", GWF}, {"d.swf", SWF}, {"e.sqlite", SQLite}, {"f.swf.gz", SWF}}
	prev := in
	for _, s := range steps {
		out := filepath.Join(dir, s.name)
		convertFile(t, prev, out, "")
		recs, h := openAll(t, out)
		if !reflect.DeepEqual(recs, orig) {
			t.Fatalf("%s: records\n%+v\nwant\n%+v", s.name, recs, orig)
		}
		if h.UnixStartTime != oh.UnixStartTime || h.MaxProcs != 128 || !reflect.DeepEqual(h.Partitions, oh.Partitions) || !h.SWFFields {
			t.Errorf("%s: header %+v", s.name, h)
		}
		prev = out
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "d.swf")); !bytes.Equal(b, []byte(swf)) {
		t.Errorf("SWF → GWF → SQLite → GWF → SWF changed the text:\n%s\nwant\n%s", b, swf)
	}

	// GWF with string identifiers through SQLite.
	gwf := "# UnixStartTime: 1200000000\n# " + strings.Join(GWFFields, "\t") + "\n" +
		"j1\t0\t3\t60\t2\t55.5\t100\t2\t120\t200\t1\tU1\tG1\tapp.x\tq1\tp1\tsiteA\tsiteB\tBoT\tb7\t10\t20\tcpu:3\tx86,Linux,2.6\t30\t40\tmem:1\tvo1\tproj1\n" +
		"j2\t1.25\t-1\t-1\t-1\t-1\t-1\t1\t-1\t-1\t5\tU2\t-1\t-1\t-1\t-1\t-1\t-1\tUNITARY\t-1\t-1\t-1\t-1\t-1\t-1\t-1\t-1\t-1\t-1\n"
	gin := filepath.Join(dir, "g.gwf")
	os.WriteFile(gin, []byte(gwf), 0o644)
	gorig, _ := openAll(t, gin)
	convertFile(t, gin, filepath.Join(dir, "g.db3"), SQLite)
	convertFile(t, filepath.Join(dir, "g.db3"), filepath.Join(dir, "g2.gwf"), GWF)
	back, _ := openAll(t, filepath.Join(dir, "g2.gwf"))
	if !reflect.DeepEqual(back, gorig) {
		t.Errorf("GWF → SQLite → GWF:\n%+v\nwant\n%+v", back, gorig)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "g2.gwf")); string(b) != gwf {
		t.Errorf("GWF text changed:\n%s\nwant\n%s", b, gwf)
	}
}

// Gzip input is read transparently, whatever the file is called, and the
// format is detected from the content.
func TestGzipAndDetection(t *testing.T) {
	dir := t.TempDir()
	var buf bytes.Buffer
	z := gzip.NewWriter(&buf)
	z.Write([]byte("1 0 -1 83 1 -1 -1 -1 1200 -1 -1 1 1 -1 -1 1 -1 -1\n"))
	z.Close()
	p := filepath.Join(dir, "trace.data")
	os.WriteFile(p, buf.Bytes(), 0o644)
	recs, h := openAll(t, p)
	if len(recs) != 1 || h.Format != SWF || recs[0].RunTime != 83 {
		t.Fatalf("%+v %+v", recs, h)
	}
	os.WriteFile(p, []byte("hello world\n"), 0o644)
	if _, err := Open(p, ReadOptions{}); err == nil || !strings.Contains(err.Error(), "not a trace") {
		t.Errorf("error %v", err)
	}
}
