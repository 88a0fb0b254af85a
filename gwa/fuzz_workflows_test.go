package gwa

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// FuzzWfFormat: the WfFormat reader never panics, fails only with a
// positioned error, and what it reads survives its writer.
func FuzzWfFormat(f *testing.F) {
	for _, n := range wfformatInstances {
		b, err := os.ReadFile(instancePath(n))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		r, err := NewReader(bytes.NewReader(b), ReadOptions{Name: "f.json", Format: WfFormat})
		if err != nil {
			var pe *ParseError
			if isJSONHead(b) && !errors.As(err, &pe) {
				t.Fatalf("an error without a position: %v", err)
			}
			return
		}
		if r.Header().Format != WfFormat {
			return // the content is another format's
		}
		recs, err := drain(r)
		if err != nil {
			t.Fatal(err)
		}
		var out bytes.Buffer
		w := NewWfFormatWriter(&out, r.Header())
		for i := range recs {
			if err := w.Write(&recs[i]); err != nil {
				t.Fatal(err)
			}
		}
		if err := w.Close(); err != nil {
			if len(recs) == 0 {
				return
			}
			t.Fatal(err)
		}
		back, err := NewReader(bytes.NewReader(out.Bytes()), ReadOptions{Name: "back.json"})
		if err != nil {
			t.Fatalf("%v\n%s", err, out.String())
		}
		again, err := drain(back)
		if err != nil || !reflect.DeepEqual(again, recs) {
			t.Fatalf("round trip: %v\n%+v\n%+v", err, again, recs)
		}
	})
}

// fuzzWorkflow makes one workflow's records from fuzz bytes: ids that need
// escaping, dependencies on earlier tasks, whole milliseconds, files.
func fuzzWorkflow(b []byte, wfName string) []Record {
	n := 1 + len(b)%20
	recs := make([]Record, n)
	at := func(i int) int {
		if len(b) == 0 {
			return i
		}
		return int(b[i%len(b)])
	}
	for i := range recs {
		r := NewRecord()
		r.WorkflowID = wfName
		r.JobID = fmt.Sprintf("t%d\"%c", i, rune('a'+at(i)%26))
		r.ExecutableID = fmt.Sprintf("exe %d", at(i+1)%3)
		r.RunTime = float64(at(i+2)*37) / 1000
		if at(i+3)%4 != 0 {
			r.WaitTime = float64(at(i+4)*1013) / 1000
		}
		if at(i+5)%3 == 0 {
			r.ReqNProcs = float64(1 + at(i+6)%16)
		}
		if at(i+7)%2 == 0 {
			r.UsedMemory = float64(at(i+8)*4096+1) / 1024 / max(r.ReqNProcs, 1)
		}
		if at(i+9)%5 == 0 {
			r.LastRunSiteID = fmt.Sprintf("node%d;node%d", at(i+10)%3, at(i+11)%3)
		}
		for k := 0; k < i; k++ {
			if at(i*7+k)%3 == 0 {
				r.Dependencies = append(r.Dependencies, recs[k].JobID)
			}
		}
		if at(i+12)%2 == 0 {
			r.Files = []TaskFile{{Name: fmt.Sprintf("f%d", at(i)%5), Size: int64(at(i+13) % 7 * 1000)}, {Name: fmt.Sprintf("o%d", i), Size: -1, Output: true}}
		}
		recs[i] = r
	}
	// A file has one size in a workflow.
	size := map[string]int64{}
	for i := range recs {
		for k := range recs[i].Files {
			f := &recs[i].Files[k]
			if s, ok := size[f.Name]; ok {
				f.Size = s
			}
			size[f.Name] = f.Size
		}
	}
	return recs
}

// FuzzRoundTripWfFormat: gmark -> WfFormat -> gmark keeps every field
// WfFormat shares with gmark's records.
func FuzzRoundTripWfFormat(f *testing.F) {
	f.Add([]byte("diamond"), "w")
	f.Add([]byte{0, 1, 2, 3, 255, 7, 9}, "a\"b c")
	f.Fuzz(func(t *testing.T, b []byte, wf string) {
		if wf == "" || !validUTF8(wf) {
			return
		}
		recs := fuzzWorkflow(b, wf)
		h := &Header{UnixStartTime: 1700000000, AbsoluteBase: true}
		for i := range recs {
			recs[i].SubmitTime = 12.5 // one submission: a WfFormat task's is its workflow's
		}
		var out bytes.Buffer
		w := NewWfFormatWriter(&out, h)
		for i := range recs {
			if err := w.Write(&recs[i]); err != nil {
				t.Fatal(err)
			}
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		r, err := NewReader(bytes.NewReader(out.Bytes()), ReadOptions{Name: "w.json"})
		if err != nil {
			t.Fatalf("%v\n%s", err, out.String())
		}
		back, err := drain(r)
		if err != nil {
			t.Fatal(err)
		}
		for i := range back {
			// The time base is the whole second of the workflow's start.
			back[i].SubmitTime += float64(r.Header().UnixStartTime - h.UnixStartTime)
		}
		if !reflect.DeepEqual(back, recs) {
			for i := range recs {
				if !reflect.DeepEqual(back[i], recs[i]) {
					t.Fatalf("record %d\nback %+v\nwas  %+v\n%s", i, back[i], recs[i], out.String())
				}
			}
		}
	})
}

func validUTF8(s string) bool { return strings.ToValidUTF8(s, "\uFFFD") == s }

// FuzzWTA: the parquet reader never panics on a damaged file, and fails
// only with an error naming the file.
func FuzzWTA(f *testing.F) {
	dir := writeArchiveLikeWTA(f)
	b, err := os.ReadFile(filepath.Join(dir, "tasks", "schema-1.0", "part.0.parquet"))
	if err != nil {
		f.Fatal(err)
	}
	f.Add(b)
	f.Add([]byte("PAR1PAR1"))
	f.Fuzz(func(t *testing.T, b []byte) {
		path := filepath.Join(t.TempDir(), "f.parquet")
		if err := os.WriteFile(path, b, 0o644); err != nil {
			t.Fatal(err)
		}
		r, err := Open(path, ReadOptions{Format: WTA})
		if err != nil {
			if !strings.Contains(err.Error(), path) {
				t.Fatalf("an error that does not name the file: %v", err)
			}
			return
		}
		defer r.Close()
		if _, err := drain(r); err != nil && !strings.Contains(err.Error(), path) {
			t.Fatalf("an error that does not name the file: %v", err)
		}
	})
}

// FuzzRoundTripWTA: gmark -> WTA -> gmark keeps every field the WTA's
// tasks table shares with gmark's records.
func FuzzRoundTripWTA(f *testing.F) {
	f.Add([]byte("chain"), uint8(3))
	f.Add([]byte{9, 8, 7, 6, 5, 4, 3, 2, 1, 0}, uint8(1))
	f.Fuzz(func(t *testing.T, b []byte, nwf uint8) {
		var recs []Record
		id, seed := 0, 0
		if len(b) > 0 {
			seed = int(b[0])
		}
		for w := 0; w < 1+int(nwf)%4; w++ {
			wf := fuzzWorkflow(append([]byte{byte(w)}, b...), fmt.Sprint(w*10))
			names := map[string]string{}
			for i := range wf {
				names[wf[i].JobID] = fmt.Sprint(id)
				wf[i].JobID = fmt.Sprint(id)
				id++
				for k, d := range wf[i].Dependencies {
					wf[i].Dependencies[k] = names[d]
				}
				wf[i].Files, wf[i].ExecutableID, wf[i].UsedMemory, wf[i].LastRunSiteID = nil, "-1", Missing, "-1"
				wf[i].SubmitTime = float64(seed*w+i) + 0.25
				wf[i].UserID, wf[i].GroupID, wf[i].OrigSiteID = fmt.Sprint(i%3), "-1", fmt.Sprint(w)
			}
			recs = append(recs, wf...)
		}
		out := filepath.Join(t.TempDir(), "t")
		if _, err := WriteTrace(out, WTA, &Header{}, &sliceReader{recs: recs}, nil); err != nil {
			t.Fatal(err)
		}
		r, err := Open(out, ReadOptions{Strict: true})
		if err != nil {
			t.Fatal(err)
		}
		back, err := drain(r)
		r.Close()
		if err != nil || len(back) != len(recs) {
			t.Fatalf("%v: %d records of %d", err, len(back), len(recs))
		}
		for i := range recs {
			if !reflect.DeepEqual(back[i], recs[i]) {
				t.Fatalf("record %d\nback %+v\nwas  %+v", i, back[i], recs[i])
			}
		}
	})
}

// sliceReader serves records from a slice.
type sliceReader struct {
	recs []Record
	hdr  Header
	st   ReadStats
	next int
}

func (s *sliceReader) Next() (Record, error) {
	if s.next >= len(s.recs) {
		return Record{}, errEOF
	}
	s.next++
	return s.recs[s.next-1], nil
}
func (s *sliceReader) Header() *Header   { return &s.hdr }
func (s *sliceReader) Stats() *ReadStats { return &s.st }
func (s *sliceReader) Close() error      { return nil }
