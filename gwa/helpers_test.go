package gwa

import (
	"encoding/json"
	"io"
	"strings"
	"testing"
)

// readAll reads every record of a text trace held in a string.
func readAll(t testing.TB, name, text string, opts ReadOptions) ([]Record, Reader) {
	t.Helper()
	opts.Name = name
	r, err := NewReader(strings.NewReader(text), opts)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	recs, err := drain(r)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return recs, r
}

func drain(r Reader) ([]Record, error) {
	var recs []Record
	for {
		rec, err := r.Next()
		if err == io.EOF {
			return recs, nil
		}
		if err != nil {
			return recs, err
		}
		recs = append(recs, rec)
	}
}

func openAll(t testing.TB, path string) ([]Record, *Header) {
	t.Helper()
	r, err := Open(path, ReadOptions{Strict: true})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	recs, err := drain(r)
	if err != nil {
		t.Fatal(err)
	}
	return recs, r.Header()
}

// analysisJSON is an analysis without what legitimately differs between
// forms of one trace (its format and the reader's line counts).
func analysisJSON(t testing.TB, a *Analysis) string {
	t.Helper()
	c := *a
	c.Trace.Format = ""
	c.Read = nil
	b, err := json.Marshal(&c)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func analyzeFile(t testing.TB, path string) *Analysis {
	t.Helper()
	r, err := Open(path, ReadOptions{Strict: true})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	a, err := Analyze(r, AnalysisOptions{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// writeFile converts path into a new file of format f.
func convertFile(t testing.TB, path, out string, f Format) {
	t.Helper()
	r, err := Open(path, ReadOptions{Strict: true})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if _, err := WriteTrace(out, f, r.Header(), r, nil); err != nil {
		t.Fatal(err)
	}
}
