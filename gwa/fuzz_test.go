package gwa

import (
	"bufio"
	"bytes"
	"strings"
	"testing"
)

// fuzzRead reads data with a reader made by mk, in both modes, and checks
// the invariants: no panic, no error but a *ParseError in strict mode and
// none at all otherwise, counts that add up, and records that survive
// writing as GWF and reading back.
func fuzzRead(t *testing.T, data []byte, mk func(src *lineSource, opts ReadOptions) (Reader, error)) {
	for _, strict := range []bool{false, true} {
		src := &lineSource{br: bufio.NewReaderSize(bytes.NewReader(data), 4096)}
		r, err := mk(src, ReadOptions{Name: "fuzz", Strict: strict})
		if err != nil {
			if _, ok := err.(*ParseError); !ok || !strict {
				t.Fatalf("strict=%v: open: %v", strict, err)
			}
			continue
		}
		recs, err := drain(r)
		if err != nil {
			if _, ok := err.(*ParseError); !ok || !strict {
				t.Fatalf("strict=%v: %v", strict, err)
			}
		}
		s := r.Stats()
		if s.Records != int64(len(recs)) || s.Records+s.Skipped > s.Lines || (strict && s.Skipped != 0) {
			t.Fatalf("strict=%v: stats %+v for %d records", strict, s, len(recs))
		}
		if strict || len(recs) == 0 {
			continue
		}
		// Whatever was read writes as GWF and reads back the same numbers.
		var buf bytes.Buffer
		h := *r.Header()
		w, _ := NewGWFWriterHeader(&buf, &h)
		for i := range recs {
			w.Write(&recs[i])
		}
		w.Close()
		back, err := NewReader(&buf, ReadOptions{Name: "back", Strict: true})
		if err != nil {
			t.Fatalf("reading back: %v\n%s", err, buf.String())
		}
		again, err := drain(back)
		if err != nil || len(again) != len(recs) {
			t.Fatalf("reading back: %d of %d records, %v\n%s", len(again), len(recs), err, buf.String())
		}
		for i := range recs {
			a, b := recs[i], again[i]
			if a.SubmitTime != b.SubmitTime || a.RunTime != b.RunTime || a.WaitTime != b.WaitTime || a.NProcs != b.NProcs || a.Status != b.Status {
				t.Fatalf("record %d changed:\n%+v\n%+v", i, a, b)
			}
		}
	}
}

func FuzzSWF(f *testing.F) {
	f.Add([]byte("; Version: 2.2\n; UnixStartTime: 1132444805\n; Partition: 1 a\n1 0 -1 83 1 -1 -1 -1 1200 -1 -1 1 1 -1 -1 1 -1 -1\n2 3 5 1.5 4 2.25 100 4 60 -1 1 2 2 3 1 2 1 10\n"))
	f.Add([]byte("1 1136073600 -60 -1 1 -1 -1 1 -1 -1 5 1 1 -1 -1 1 -1 -1   \r\n; late\n\n2 0 1 2 3 4 5 6 7 8 0 1 2 3 4 5 6 7 8 9\n"))
	f.Add([]byte("1 2 3\nx y z\n1 0 -1 83 1 -1 -1 -1 1e3 -1 9 1 1 -1 -1 1 -1 -1\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		fuzzRead(t, data, newSWFReader)
	})
}

func FuzzGWF(f *testing.F) {
	f.Add([]byte("# Processors: 10\n# " + strings.Join(GWFFields, "\t") + "\nj1\t0\t3\t60\t2\t55.5\t100\t2\t120\t200\t1\tU1\tG1\tapp\tq1\tp1\tsA\tsB\tBoT\tb7\t10\t20\tcpu:3\tx86,Linux\t30\t40\tmem:1\tvo1\tproj1\n"))
	f.Add([]byte("# UserID JobID NProc UsedCPUTime Used Memory SubmitTime\nu1 j1 4 3.5 1024 1200000000\n#c\nu2 j2 -1 -1 -1 1200000060 extra\n"))
	f.Add([]byte("1\t2\n\t\t\n1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24 25 26 27 28 29\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		fuzzRead(t, data, newGWFReader)
	})
}

// Open must never panic on arbitrary content either.
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
