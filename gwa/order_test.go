package gwa

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/gmark/gmark/internal/testkit"
	"github.com/gmark/gmark/stats"
)

// The line-order property: every figure gmark gives of a trace is a
// function of its set of jobs, not of the order of its lines. Each test
// trace, written in each format gmark reads (SWF, GWF, GWF-SQLite, GWF's
// workflow variant) in its own order and shuffled, gives the same analysis
// (trace stats and the figures drawn from it), fits (gmark fit, the
// bags-of-tasks fields included), bags-of-tasks (trace bots), selections
// (the first N jobs, a representative area, rebasing: trace select and
// wl:trace) and jobs in flight (a warm start). Before, the estimated system
// size, the inter-arrival times, the bags-of-tasks, the first N jobs and
// the replay's origin followed the lines.

// recordsReader serves records held in memory.
type recordsReader struct {
	h    *Header
	recs []Record
	i    int
}

func (r *recordsReader) Next() (Record, error) {
	if r.i >= len(r.recs) {
		return Record{}, io.EOF
	}
	r.i++
	return r.recs[r.i-1], nil
}
func (r *recordsReader) Header() *Header   { return r.h }
func (r *recordsReader) Stats() *ReadStats { return &ReadStats{} }
func (r *recordsReader) Close() error      { return nil }

// orderTraces are the test traces: the overlay grids, and traces made for
// the orders that matter: no system size (the estimate is the peak), waits
// (negative ones too) and fractions, ties in submit time, users with bags
// of tasks, and a workflow trace grouped by workflow.
func orderTraces(t *testing.T) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, name := range []string{"grid-a.swf", "grid-b.gwf", "grid-c.swf"} {
		b, err := os.ReadFile(filepath.Join("testdata", "overlay", name))
		if err != nil {
			t.Fatal(err)
		}
		out[name] = string(b)
	}
	rng := rand.New(rand.NewPCG(29, 11))
	var sw strings.Builder
	sw.WriteString("; Version: 2.2\n; UnixStartTime: 1300000000\n")
	submit := 0.0
	for i := 1; i <= 400; i++ {
		if rng.IntN(4) > 0 {
			submit += float64(rng.IntN(90)) + 0.25*float64(rng.IntN(4))
		}
		wait := float64(rng.IntN(600) - 60)
		run := float64(rng.IntN(7200)) + 0.5*float64(rng.IntN(2))
		if rng.IntN(12) == 0 {
			run = -1
		}
		if rng.IntN(15) == 0 {
			run = 0
		}
		procs := 1 << rng.IntN(5)
		fmt.Fprintf(&sw, "%d %s %s %s %d -1 %d %d %d -1 1 %d %d -1 -1 %d -1 -1\n", i, ftoa(submit), ftoa(wait), ftoa(run), procs,
			rng.IntN(5000), procs, 7200, 1+rng.IntN(8), 1+rng.IntN(3), 1+rng.IntN(4))
	}
	out["nosize.swf"] = sw.String()
	// Workflows whose tasks share their submit time, lines grouped by
	// workflow, later workflows first: the file order is far from the
	// submit order.
	var wf strings.Builder
	wf.WriteString("WorkflowID,JobID,SubmitTime,RunTime,NProcs,ReqNProcs,Dependencies\n")
	for w := 30; w >= 1; w-- {
		at := 100 * w
		n := 2 + rng.IntN(8)
		for k := 1; k <= n; k++ {
			deps := ""
			if k > 1 {
				deps = itoa(1 + rng.IntN(k-1))
			}
			p := 1 + rng.IntN(16)
			fmt.Fprintf(&wf, "%d,%d,%d,%d,%d,%d,%s\n", w, k, at, 10+rng.IntN(900), p, p, deps)
		}
	}
	out["grouped.wf.gwf"] = wf.String()
	return out
}

// orderFigures are the figures of one form of a trace, as text and JSON.
type orderFigures struct {
	text        string
	analysis    []byte
	fits        []byte
	bots        []byte
	batches     string
	selections  string
	inFlight    string
	interArrive *Summary
}

// figuresOf computes every figure of the trace at path.
func figuresOf(t *testing.T, path string) orderFigures {
	t.Helper()
	open := func() (Reader, error) { return Open(path, ReadOptions{Strict: true}) }
	var f orderFigures
	r, err := open()
	if err != nil {
		t.Fatal(err)
	}
	a, err := Analyze(r, AnalysisOptions{TopN: 5}, nil)
	h := r.Header()
	r.Close()
	if err != nil {
		t.Fatal(err)
	}
	var text bytes.Buffer
	a.WriteText(&text)
	var keep []string
	for i, line := range strings.Split(text.String(), "\n") {
		// The trace's name and format, and the reader's line counts
		// (out-of-order lines among them), describe the file, not its jobs.
		if i > 0 && !strings.HasPrefix(line, "  read:") {
			keep = append(keep, line)
		}
	}
	f.text = strings.Join(keep, "\n")
	f.analysis = []byte(analysisJSON(t, a))
	f.interArrive = a.Distributions.InterArrival

	r, _ = open()
	data, err := ReadFields(r, FieldOptions{Fields: []string{"runtime", "interarrival", "wait", "size", "bot-size", "bot-interarrival", "bot-art"}, Delta: 120}, nil)
	r.Close()
	if err != nil {
		t.Fatal(err)
	}
	tf := FitTrace(path, h, data, FitOptions{FieldOptions: FieldOptions{Fields: []string{"runtime", "interarrival", "wait", "size", "bot-size", "bot-interarrival", "bot-art"}},
		Families: []string{"Exp", "LogNorm", "W"}, Stats: stats.FitOptions{Log2: true}})
	recs := map[string]stats.FitRecord{}
	for field, fits := range tf.Fits {
		recs[field] = stats.Best(fits).Record()
	}
	if f.fits, err = json.Marshal(recs); err != nil {
		t.Fatal(err)
	}

	r, _ = open()
	var batches strings.Builder
	res, err := AnalyzeBoTs(r, []float64{60, 120}, func(b *Batch) {
		fmt.Fprintf(&batches, "%s %d %s..%s %g..%g %g\n", b.User, b.Size, b.FirstJob, b.LastJob, b.Start, b.LastSubmit, b.End)
	})
	r.Close()
	if err != nil {
		t.Fatal(err)
	}
	f.batches = batches.String()
	if f.bots, err = json.Marshal(res); err != nil {
		t.Fatal(err)
	}

	var sel strings.Builder
	for _, s := range []Selection{
		{Filter: Filter{FirstN: 25}, Rebase: true},
		{AreaWidth: 3600, AreaTargets: []Target{{Char: CharArrivals, Percentile: true, Value: 90}}},
		{Filter: Filter{FirstN: 7, Submit: Range{Min: 1000, HasMin: true}}, Rebase: true, Scale: Scale{Submit: 0.5, RunTime: 2}},
	} {
		r, opened, err := SelectOpened(open, s)
		if err != nil {
			t.Fatal(err)
		}
		recs, err := drain(r)
		r.Close()
		if err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(&sel, "origin %g:", opened.Origin)
		for _, rec := range recs {
			fmt.Fprintf(&sel, " %s@%g/%g", rec.JobID, rec.SubmitTime, rec.RunTime)
		}
		sel.WriteString("\n")
	}
	f.selections = sel.String()

	r, _ = open()
	fl, unknown, err := InFlight(r, Filter{}, 2000)
	r.Close()
	if err != nil {
		t.Fatal(err)
	}
	var inf strings.Builder
	fmt.Fprintf(&inf, "unknown %d:", unknown)
	for _, j := range fl {
		fmt.Fprintf(&inf, " %s/%v", j.JobID, j.Running)
	}
	f.inFlight = inf.String()
	return f
}

// sameFigures reports how two forms' figures differ: text exactly, JSON
// numbers within a relative 1e-9 (sums of fractional times may round
// differently in another order), everything else exactly.
func sameFigures(t *testing.T, what string, want, got orderFigures) {
	t.Helper()
	if got.text != want.text {
		t.Errorf("%s: trace stats differs:\n%s\nwant:\n%s", what, got.text, want.text)
	}
	for _, c := range []struct {
		name      string
		want, got []byte
	}{{"the analysis (JSON)", want.analysis, got.analysis}, {"the fits", want.fits, got.fits}, {"the bags-of-tasks", want.bots, got.bots}} {
		if err := jsonClose(c.want, c.got); err != nil {
			t.Errorf("%s: %s differs: %v", what, c.name, err)
		}
	}
	for _, c := range []struct{ name, want, got string }{
		{"the batches", want.batches, got.batches}, {"the selections", want.selections, got.selections}, {"the jobs in flight", want.inFlight, got.inFlight},
	} {
		if c.got != c.want {
			t.Errorf("%s: %s differ:\n%s\nwant:\n%s", what, c.name, c.got, c.want)
		}
	}
}

// jsonClose compares two JSON documents, numbers within a relative 1e-9.
func jsonClose(a, b []byte) error {
	var x, y any
	if err := json.Unmarshal(a, &x); err != nil {
		return err
	}
	if err := json.Unmarshal(b, &y); err != nil {
		return err
	}
	return closeValues("", x, y)
}

func closeValues(at string, x, y any) error {
	switch xv := x.(type) {
	case float64:
		yv, ok := y.(float64)
		if !ok || math.Abs(xv-yv) > 1e-9*math.Max(math.Abs(xv), math.Abs(yv)) {
			return fmt.Errorf("%s: %v, want %v", at, y, x)
		}
	case map[string]any:
		yv, ok := y.(map[string]any)
		if !ok || len(xv) != len(yv) {
			return fmt.Errorf("%s: %v, want %v", at, y, x)
		}
		for k := range xv {
			if err := closeValues(at+"."+k, xv[k], yv[k]); err != nil {
				return err
			}
		}
	case []any:
		yv, ok := y.([]any)
		if !ok || len(xv) != len(yv) {
			return fmt.Errorf("%s: %d values, want %d", at, len(yv), len(xv))
		}
		for i := range xv {
			if err := closeValues(fmt.Sprintf("%s[%d]", at, i), xv[i], yv[i]); err != nil {
				return err
			}
		}
	default:
		if !reflect.DeepEqual(x, y) {
			return fmt.Errorf("%s: %v, want %v", at, y, x)
		}
	}
	return nil
}

// writeRecords writes recs in format f to a new file.
func writeRecords(t *testing.T, dir, name string, f Format, h *Header, recs []Record) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if _, err := WriteTrace(p, f, h, &recordsReader{h: h, recs: recs}, nil); err != nil {
		t.Fatal(err)
	}
	return p
}

// shuffleLines shuffles the record lines of a text trace: the header
// (comment lines, the column line) stays first.
func shuffleLines(text string, rng *rand.Rand) string {
	lines := strings.SplitAfter(text, "\n")
	if lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	head := 0
	for head < len(lines) && (strings.HasPrefix(lines[head], ";") || strings.HasPrefix(lines[head], "#") || strings.HasPrefix(lines[head], "WorkflowID")) {
		head++
	}
	body := lines[head:]
	for i := range body {
		if !strings.HasSuffix(body[i], "\n") {
			body[i] += "\n"
		}
	}
	rng.Shuffle(len(body), func(i, j int) { body[i], body[j] = body[j], body[i] })
	return strings.Join(lines, "")
}

func TestLineOrderEveryReader(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 29))
	for name, text := range orderTraces(t) {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			orig := writeTrace(t, name, text)
			base := figuresOf(t, orig)
			if !base.interArrive.Median.OK() {
				t.Fatalf("no inter-arrival times: %+v", base.interArrive)
			}
			for k := 0; k < 2; k++ {
				p := filepath.Join(dir, fmt.Sprintf("lines%d-%s", k, name))
				if err := os.WriteFile(p, []byte(shuffleLines(text, rng)), 0o644); err != nil {
					t.Fatal(err)
				}
				sameFigures(t, fmt.Sprintf("%s, lines shuffled (%d)", name, k), base, figuresOf(t, p))
			}
			// Each reader: the trace written in its format in file order,
			// then its records shuffled.
			recs, h := openAll(t, orig)
			for _, f := range []struct {
				format Format
				ext    string
			}{{SWF, ".swf"}, {GWF, ".gwf"}, {SQLite, ".db3"}, {Workflow, ".wf.gwf"}} {
				inOrder := figuresOf(t, writeRecords(t, dir, "ordered"+f.ext, f.format, h, recs))
				shuffled := append([]Record(nil), recs...)
				rng.Shuffle(len(shuffled), func(i, j int) { shuffled[i], shuffled[j] = shuffled[j], shuffled[i] })
				sameFigures(t, fmt.Sprintf("%s as %s, records shuffled", name, f.format), inOrder, figuresOf(t, writeRecords(t, dir, "shuffled"+f.ext, f.format, h, shuffled)))
			}
		})
	}
}

// The LCG trace (188,041 jobs), its lines shuffled: the same figures.
func TestLineOrderLCG(t *testing.T) {
	if testing.Short() {
		t.Skip("reads the LCG trace several times; skipped with -short")
	}
	path := testkit.LCG(t)
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	z, err := gzip.NewReader(bytes.NewReader(raw))
	if err != nil {
		t.Fatal(err)
	}
	text, err := io.ReadAll(z)
	if err != nil {
		t.Fatal(err)
	}
	base := figuresOf(t, path)
	p := filepath.Join(t.TempDir(), "lcg-shuffled.swf")
	if err := os.WriteFile(p, []byte(shuffleLines(string(text), rand.New(rand.NewPCG(188041, 29)))), 0o644); err != nil {
		t.Fatal(err)
	}
	got := figuresOf(t, p)
	sameFigures(t, "LCG, lines shuffled", base, got)
	// The figures the issue quotes: 188,040 gaps of mean 5.054 s, in both.
	if ia := got.interArrive; ia.Count != 188040 || math.Abs(ia.Mean.Value-5.054) > 5e-4 {
		t.Errorf("LCG shuffled: %d inter-arrival times of mean %v, want 188040 of 5.054 s", ia.Count, ia.Mean)
	}
}

// InSubmitOrder sorts what it holds, streams a longer trace that comes in
// submit order past what it holds, and names the first record out of order
// past it; ties go by workflow, then job id, numbers before names.
func TestInSubmitOrderLimits(t *testing.T) {
	mk := func(submits ...float64) string {
		var b strings.Builder
		for i, s := range submits {
			b.WriteString(swfJob(itoa(i+1), ftoa(s), "0", "10", "1", "1", "1"))
		}
		return b.String()
	}
	read := func(text string, max int) ([]Record, error) {
		r, err := NewReader(strings.NewReader(text), ReadOptions{Strict: true, Name: "t.swf"})
		if err != nil {
			t.Fatal(err)
		}
		return drain(InSubmitOrder(r, max))
	}
	recs, err := read(mk(5, 1, 3, 2, 4), 5)
	if err != nil || ids(recs) != "2,4,3,5,1" {
		t.Errorf("held and sorted: %q, %v", ids(recs), err)
	}
	recs, err = read(mk(1, 2, 3, 4, 5, 6, 7), 3)
	if err != nil || ids(recs) != "1,2,3,4,5,6,7" {
		t.Errorf("in order past the limit: %q, %v", ids(recs), err)
	}
	recs, err = read(mk(1, 2, 3, 4, 6, 5, 7), 3)
	if !errors.Is(err, ErrNotInSubmitOrder) || !strings.Contains(err.Error(), "t.swf: not in submit order: record 6 (job 6) is submitted at 5 s, before a job at 6 s, and the trace has more than 3 records") || ids(recs) != "1,2,3,4,5" {
		t.Errorf("out of order past the limit: %q, %v", ids(recs), err)
	}
	if _, err = read(mk(3, 1, 2, 4), 3); !errors.Is(err, ErrNotInSubmitOrder) || !strings.Contains(err.Error(), "more than 3 records, more than gmark sorts in memory") {
		t.Errorf("out of order within the limit, more past it: %v", err)
	}
	a := Record{SubmitTime: 1, JobID: "10"}
	for _, c := range []struct {
		b    Record
		want int
	}{{Record{SubmitTime: 1, JobID: "9"}, 1}, {Record{SubmitTime: 1, JobID: "x"}, -1}, {Record{SubmitTime: 0, JobID: "99"}, 1}, {Record{SubmitTime: 1, JobID: "10", WorkflowID: "1"}, 1}} {
		if got := CompareSubmitOrder(a, c.b); got != c.want {
			t.Errorf("CompareSubmitOrder(%+v, %+v) = %d, want %d", a, c.b, got, c.want)
		}
	}
}

// InSubmitOrder holds a long trace in chunks: the records
// come out whole and in submit order across the chunks' bounds, whether
// the trace was already in that order (not sorted again), in submit time
// but with ties out of order (sorted), or shuffled; past the limit, in
// order, they stream as before, ties in file order.
func TestInSubmitOrderChunks(t *testing.T) {
	n := 3*holdChunk + 5
	mk := func(order func(i int) (submit float64, id int)) []Record {
		recs := make([]Record, n)
		for i := range recs {
			s, id := order(i)
			recs[i] = Record{JobID: itoa(id), SubmitTime: s, RunTime: float64(i), Dependencies: []string{itoa(i)}}
		}
		return recs
	}
	want := func(recs []Record) string {
		w := slices.Clone(recs)
		slices.SortStableFunc(w, CompareSubmitOrder)
		return ids(w)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	shuffled := mk(func(i int) (float64, int) { return float64(i / 3), i })
	rng.Shuffle(len(shuffled), func(a, b int) { shuffled[a], shuffled[b] = shuffled[b], shuffled[a] })
	for _, c := range []struct {
		name string
		recs []Record
		max  int
		want string // "" : the records sorted
	}{
		{"in order", mk(func(i int) (float64, int) { return float64(i / 3), i }), 0, ""},
		{"ties out of order", mk(func(i int) (float64, int) { return float64(i / 3), n - i }), 0, ""},
		{"shuffled", shuffled, 0, ""},
		{"one chunk exactly", mk(func(i int) (float64, int) { return float64(i), i })[:holdChunk], 0, ""},
		{"past the limit, ties in file order", mk(func(i int) (float64, int) { return float64(i / 3), n - i }), holdChunk + 1, "file"},
	} {
		r := &recordsReader{h: &Header{Format: SWF}, recs: c.recs}
		got, err := drain(InSubmitOrder(r, c.max))
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		w := want(c.recs)
		if c.want == "file" {
			w = ids(c.recs)
		}
		if len(got) != len(c.recs) || ids(got) != w {
			t.Errorf("%s: %d records, not in the order wanted", c.name, len(got))
			continue
		}
		for _, g := range got { // each record whole: its own fields together
			if g.Dependencies[0] != itoa(int(g.RunTime)) {
				t.Errorf("%s: record %s came out torn: %+v", c.name, g.JobID, g)
				break
			}
		}
	}
}
