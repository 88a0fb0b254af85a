package gwa

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"errors"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
)

// Honest numbers: every statistic of `trace stats` says what it
// rests on, and what a reader reads back is what was written.

// swfJob is an SWF record line: job id, submit, wait, run, size (allocated
// and requested), user and partition.
func swfJob(id, submit, wait, run, procs, user, part string) string {
	return strings.Join([]string{id, submit, wait, run, procs, "-1", "-1", procs, "-1", "-1", "1", user, "1", "-1", "-1", part, "-1", "-1"}, " ") + "\n"
}

// writeTrace writes text to a file named name in a new directory.
func writeTrace(t *testing.T, name, text string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// analysisText is the text summary of a.
func analysisText(a *Analysis) string {
	var b bytes.Buffer
	a.WriteText(&b)
	return b.String()
}

// Item 1: a negative run time (an end time recorded as 0) is an unknown run
// time in every statistic, and counted. Before, it entered the run-time
// distribution (min -7200) while CPU time left it out.
func TestNegativeRunTimeIsUnknownEverywhere(t *testing.T) {
	text := "; MaxProcs: 4\n" +
		swfJob("1", "0", "0", "100", "1", "1", "1") +
		swfJob("2", "10", "0", "-7200", "2", "1", "1") + // end recorded as 0
		swfJob("3", "20", "-1", "-1", "1", "2", "1") +
		swfJob("4", "30", "0", "300", "1", "2", "2")
	a := analyzeFile(t, writeTrace(t, "neg.swf", text))
	rt := a.Distributions.RunTime
	if rt.Count != 2 || rt.Missing != 2 || rt.Min.Value != 100 || rt.Mean.Value != 200 {
		t.Errorf("run-time distribution: count %d missing %d min %v mean %v, want 2, 2, 100, 200", rt.Count, rt.Missing, rt.Min, rt.Mean)
	}
	if cpu := a.Totals.CPUYears * 365 * 86400; math.Abs(cpu-400) > 1e-6 {
		t.Errorf("CPU seconds %g, want 400 (the two known run times)", cpu)
	}
	if a.Read.NegativeRunTime != 1 || a.Read.CancelledBeforeStart != 1 {
		t.Errorf("read %+v, want 1 negative run time, 1 cancelled before start", a.Read.Oddities)
	}
	for _, s := range a.Sites {
		if s.Site == "1" && s.MeanRun.Value != 100 {
			t.Errorf("site 1 mean run time %v, want 100 (its known run time)", s.MeanRun)
		}
	}
	if out := analysisText(a); !strings.Contains(out, "negative run time 1 (counted as unknown run time)") {
		t.Errorf("the text does not state the negative run times:\n%s", out)
	}
	// A run-time filter treats it as unknown: it fails a set range.
	r, err := NewReader(strings.NewReader(text), ReadOptions{Strict: true})
	if err != nil {
		t.Fatal(err)
	}
	recs, err := drain(Filtered(r, Filter{RunTime: Range{Max: 200, HasMax: true}}))
	if err != nil || ids(recs) != "1" {
		t.Errorf("--max-runtime 200 kept %q (%v), want 1", ids(recs), err)
	}
	// Bags-of-tasks: user 1's batch has one known run time.
	r, _ = NewReader(strings.NewReader(text), ReadOptions{Strict: true})
	var batches []Batch
	if _, err := AnalyzeBoTs(r, []float64{60}, func(b *Batch) { batches = append(batches, *b) }); err != nil {
		t.Fatal(err)
	}
	if len(batches) == 0 || batches[0].MeanRunTime() != 100 {
		t.Errorf("batches %+v, want user 1's mean run time 100", batches)
	}
}

// Items 2 and 3: the system size comes from --procs, MaxProcs, MaxNodes
// (one processor per node), else it is estimated as the peak of processors
// in use at once, said to be an estimate, and never gives a utilization
// above 100%. Before, MaxNodes was ignored and the estimate (the busiest
// hour's average load) gave 655% on this trace.
func TestSystemSize(t *testing.T) {
	jobs := swfJob("1", "0", "0", "100", "64", "1", "1") +
		swfJob("2", "10", "0", "200", "32", "2", "1") +
		swfJob("3", "50", "5", "300", "16", "3", "2") +
		swfJob("4", "400", "0", "60", "8", "1", "2")
	busy := 100*64 + 200*32 + 300*16 + 60*8.0
	span := 460.0 // first submit 0, last end 460
	cases := []struct {
		name, header string
		opts         AnalysisOptions
		procs        int
		source       string
		estimated    bool
	}{
		{"MaxProcs", "; MaxProcs: 256\n; MaxNodes: 128\n", AnalysisOptions{}, 256, "header MaxProcs", false},
		{"MaxNodes alone", "; MaxNodes: 128\n", AnalysisOptions{}, 128, "header MaxNodes", false},
		{"--procs over the header", "; MaxNodes: 128\n", AnalysisOptions{Processors: 1000}, 1000, "option", false},
		// Jobs 1, 2 and 3 run together over [55, 100): 64 + 32 + 16.
		{"no size: the peak in use", "", AnalysisOptions{}, 112, ProcessorsEstimate, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r, err := Open(writeTrace(t, "t.swf", c.header+jobs), ReadOptions{Strict: true})
			if err != nil {
				t.Fatal(err)
			}
			a, err := Analyze(r, c.opts, nil)
			r.Close()
			if err != nil {
				t.Fatal(err)
			}
			u := a.Utilization
			if u.Processors != c.procs || u.ProcessorsSource != c.source || u.ProcessorsEstimated != c.estimated || a.Totals.ProcessorsEstimated != c.estimated {
				t.Errorf("processors %d (%s, estimated %v), want %d (%s, %v)", u.Processors, u.ProcessorsSource, u.ProcessorsEstimated, c.procs, c.source, c.estimated)
			}
			if want := busy / (float64(c.procs) * span); math.Abs(u.Average.Value-want) > 1e-12 {
				t.Errorf("utilization %v, want %g", u.Average, want)
			}
			sig := a.Ranking
			if sig.Estimated[CatCores] != c.estimated || sig.Estimated[CatUtilization] != c.estimated || sig.Estimated[CatUsers] {
				t.Errorf("ranking estimated %v", sig.Estimated)
			}
			text := analysisText(a)
			b, err := json.Marshal(a)
			if err != nil {
				t.Fatal(err)
			}
			says := strings.Contains(text, "cores * (estimated)") && strings.Contains(text, "(on the estimated system size: an upper bound)") &&
				strings.Contains(string(b), `"processors_estimated":true`)
			if says != c.estimated {
				t.Errorf("estimate stated %v, want %v:\n%s\n%s", says, c.estimated, text, b)
			}
			var rank bytes.Buffer
			ranked, err := Rank([]Category{CatCores, CatUtilization}, []string{"t"}, []Signature{sig})
			if err != nil {
				t.Fatal(err)
			}
			WriteRankingText(&rank, []Category{CatCores, CatUtilization}, ranked)
			if strings.Contains(rank.String(), "rest on an estimated system size") != c.estimated {
				t.Errorf("rank text:\n%s", rank.String())
			}
		})
	}
}

// The estimate is the exact peak of processors in use at once, checked
// against a brute-force count on random traces, and so never below the
// average load: utilization and every hourly and daily value stay at most
// 100%. Within the budget of exact statistics it is exact whatever the
// order of the records (before, out-of-order records gave a lower bound:
// 942 processors on a workflow trace grouped by workflow, 13,263 sorted).
// Past the budget (none here), the streaming sweep of records out of order
// or limited to a few pending events gives a lower bound, still at least
// the average load.
func TestEstimatedSizeIsThePeak(t *testing.T) {
	rng := rand.New(rand.NewPCG(13, 1))
	for trial := 0; trial < 200; trial++ {
		n := 1 + rng.IntN(40)
		var text strings.Builder
		type iv struct{ s, e, p float64 }
		var ivs []iv
		submit := 0.0
		shuffled := trial%4 == 3
		for i := 0; i < n; i++ {
			submit += float64(rng.IntN(3000))
			wait, run, p := float64(rng.IntN(500)-50), float64(rng.IntN(5000)), float64(1+rng.IntN(16))
			if rng.IntN(5) == 0 {
				run = -1
			}
			sub := submit
			if shuffled {
				sub = float64(rng.IntN(20000))
			}
			text.WriteString(swfJob(itoa(i+1), ftoa(sub), ftoa(wait), ftoa(run), ftoa(p), "1", "1"))
			if run > 0 {
				s := sub + math.Max(wait, 0)
				ivs = append(ivs, iv{s, s + run, p})
			}
		}
		// Brute force: the load just after each start.
		peak := 0.0
		for _, a := range ivs {
			load := 0.0
			for _, b := range ivs {
				if b.s <= a.s && a.s < b.e {
					load += b.p
				}
			}
			peak = math.Max(peak, load)
		}
		for _, c := range []struct {
			budget int64
			limit  int
		}{{0, 0}, {-1, 0}, {-1, 4}} {
			limit := c.limit
			r, err := NewReader(strings.NewReader(text.String()), ReadOptions{Strict: true})
			if err != nil {
				t.Fatal(err)
			}
			an := NewAnalyzer(r.Header(), AnalysisOptions{ExactBudget: c.budget})
			an.peak.limit = limit
			if _, err := ForEach(r, func(rec *Record) error { an.Add(rec); return nil }); err != nil {
				t.Fatal(err)
			}
			a := an.Result()
			u := a.Utilization
			exact := c.budget == 0 || limit == 0 && !shuffled
			if exact && u.PeakProcessors != peak {
				t.Fatalf("trial %d budget %d limit %d: peak %g, brute force %g", trial, c.budget, limit, u.PeakProcessors, peak)
			}
			if exact && u.Processors != int(peak) || !exact && u.Processors > int(peak) {
				t.Fatalf("trial %d limit %d: estimate %d, brute-force peak %g\n%s", trial, limit, u.Processors, peak, text.String())
			}
			if u.Average.OK() && u.Average.Value > 1+1e-12 {
				t.Fatalf("trial %d limit %d: utilization %g > 100%%\n%s", trial, limit, u.Average.Value, text.String())
			}
			for _, v := range append(append([]float64{}, u.Daily...), u.BusiestHourly...) {
				if v > 1+1e-12 && exact {
					t.Fatalf("trial %d: hourly or daily utilization %g > 100%%", trial, v)
				}
			}
		}
	}
}

// Item 4: a file in which every line is malformed is an error at its first
// bad line, whatever its format; so is content of no format at all.
func TestEveryLineMalformed(t *testing.T) {
	var gz bytes.Buffer
	z := gzip.NewWriter(&gz)
	z.Write([]byte("a b c\nd e f\n"))
	z.Close()
	cases := []struct{ name, text, want string }{
		{"t.swf", "; MaxProcs: 4\n\n1 2 3\nx\n", "t.swf:3: 3 fields, SWF records have 18; no line is a valid record (2 malformed)"},
		{"t.gwf", "# JobID\tSubmitTime\nj\tsoon\n", `t.gwf:2: field 2: "soon" is not a number (GWF SubmitTime); no line is a valid record (1 malformed)`},
		{"t.swf.gz", gz.String(), `t.swf.gz:1: field 1: "a" is not a number; no line is a valid record (2 malformed)`},
		{"t.txt", "\nhello world\nfoo\n", "t.txt:2: not a trace gmark can read: its first line has 2 fields"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p := writeTrace(t, c.name, c.text)
			r, err := Open(p, ReadOptions{Name: c.name})
			if err == nil {
				recs, _ := drain(r)
				t.Fatalf("read %d records, want an error", len(recs))
			}
			var pe *ParseError
			if !errors.As(err, &pe) || !strings.HasPrefix(err.Error(), c.want) {
				t.Errorf("error %v (%T), want %q", err, err, c.want)
			}
		})
	}
	// GWF-SQLite: every row malformed.
	p := filepath.Join(t.TempDir(), "t.db3")
	if !sqliteFromText(t, p, "JobID\tSubmitTime\nj1\tsoon\nj2\tlater") {
		t.Fatal("sqlite")
	}
	_, err := OpenSQLite(p, ReadOptions{Name: "t.db3"})
	var ne *NoRecordsError
	if !errors.As(err, &ne) || !strings.HasPrefix(err.Error(), `t.db3:1: field 2: "soon" is not a number`) {
		t.Errorf("GWF-SQLite: %v", err)
	}
}

// Content of a kind gmark does not read (a JSON workflow instance, XML,
// plain CSV) is named as such, with the formats gmark does read, rather
// than counted in fields with advice to force a format; forced to one, the
// same is said after the malformed lines.
func TestForeignContent(t *testing.T) {
	const reads = "gmark reads SWF (18 fields a line, ';' comments), GWF (29 fields, '#' comments), GWF's workflow variant"
	wfJSON := "{\n  \"name\": \"montage\",\n  \"schemaVersion\": \"1.4\",\n  \"workflow\": {\"tasks\": []}\n}\n"
	cases := []struct {
		name, text string
		format     Format
		want       []string
	}{
		// A JSON object is read as a WfFormat instance: an error is then
		// the instance's, at its position.
		{"wf.json", strings.Replace(wfJSON, `"1.4"`, `"0.9"`, 1), "", []string{`wf.json:3:20: schemaVersion "0.9": gmark reads WfFormat 1.4 and later`}},
		{"w.txt", "\ufeff[{\"id\": 1}]\n", "", []string{"w.txt:1: not a trace gmark reads: this is JSON, an array"}},
		{"dax.xml", "<?xml version=\"1.0\"?>\n<adag>\n", "", []string{"dax.xml:1: not a trace gmark reads: this is XML", reads}},
		{"t.csv", "\nid,submit,run\n1,2,3\n", "", []string{"t.csv:2: not a trace gmark reads: this is comma-separated values without the workflow variant's WorkflowID, JobID and SubmitTime columns", reads}},
		{"t.txt", "hello\n", "", []string{"t.txt:1: not a trace gmark can read: its first line has 1 field (", reads, "if it is one of them, --input-format names it"}},
		{"wf.json", wfJSON, SWF, []string{`wf.json:1: field 1: "{" is not a number; no line is a valid record (5 malformed); the content is JSON`, reads}},
	}
	// The instance itself, a BOM before it or not, is a trace of its tasks
	// (here none).
	for _, text := range []string{wfJSON, "\ufeff" + wfJSON} {
		r, err := Open(writeTrace(t, "ok.json", text), ReadOptions{Name: "ok.json"})
		if err != nil || r.Header().Format != WfFormat {
			t.Errorf("a WfFormat instance: %v", err)
		} else {
			r.Close()
		}
	}
	for _, c := range cases {
		p := writeTrace(t, c.name, c.text)
		_, err := Open(p, ReadOptions{Name: c.name, Format: c.format})
		for _, w := range c.want {
			if err == nil || !strings.Contains(err.Error(), w) {
				t.Errorf("%s (format %q): %v\nwant it to say %q", c.name, c.format, err, w)
			}
		}
		if err != nil && strings.Contains(err.Error(), " 1 fields") {
			t.Errorf("%s: %v: 1 field, not 1 fields", c.name, err)
		}
	}
}

// Item 5: in a tab-separated GWF line an empty field is missing wherever it
// is: first, middle or last. Before, an empty last field made the line
// malformed ("28 fields").
func TestGWFEmptyTabFields(t *testing.T) {
	full := []string{"j1", "0", "3", "60", "2", "-1", "-1", "2", "-1", "-1", "1", "u1", "g1", "-1", "-1", "-1", "siteA", "siteB", "UNITARY", "-1", "-1", "-1", "-1", "-1", "-1", "-1", "-1", "vo", "proj"}
	with := func(i int) string {
		f := append([]string(nil), full...)
		f[i] = ""
		return strings.Join(f, "\t") + "\n"
	}
	cols := "# " + strings.Join(GWFFields, "\t") + "\n"
	cases := []struct {
		name, line string
		check      func(r Record) bool
		odd        Oddities
	}{
		{"empty first", with(0), func(r Record) bool { return r.JobID == "-1" && r.ProjectID == "proj" }, Oddities{}},
		{"empty middle", with(12), func(r Record) bool { return r.GroupID == "-1" && r.ProjectID == "proj" }, Oddities{}},
		{"empty last", with(28), func(r Record) bool { return r.ProjectID == "-1" && r.VOID == "vo" }, Oddities{TrailingSpace: 1}},
		{"empty last, numeric column", strings.Join(full[:3], "\t") + "\t\n", func(r Record) bool { return r.WaitTime == 3 && r.RunTime == Missing }, Oddities{TrailingSpace: 1}},
		{"a trailing tab past the columns", strings.Join(full, "\t") + "\t\n", func(r Record) bool { return r.ProjectID == "proj" }, Oddities{TrailingSpace: 1}},
		{"a field past the columns", strings.Join(full, "\t") + "\tx\n", func(r Record) bool { return r.ProjectID == "proj" }, Oddities{ExtraFields: 1}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			head := cols
			if strings.Count(c.line, "\t") < 5 {
				head = "# JobID\tSubmitTime\tWaitTime\tRunTime\n"
			}
			recs, r := readAll(t, "t.gwf", head+c.line, ReadOptions{Strict: true})
			if len(recs) != 1 || !c.check(recs[0]) {
				t.Fatalf("records %+v", recs)
			}
			if r.Stats().Oddities != c.odd {
				t.Errorf("oddities %+v, want %+v", r.Stats().Oddities, c.odd)
			}
		})
	}
}

// Item 6: trace select's scaling writes whole seconds (rounded; a positive
// run time at least 1 s) where it wrote 53.400000000000006, and the header
// no longer claims the source's job count and end. wl:trace keeps the
// exact products (Scale.Exact).
func TestSelectWritesWholeSecondsAndFreshHeader(t *testing.T) {
	src := "; MaxJobs: 3\n; MaxRecords: 3\n; UnixStartTime: 1000000000\n; TimeZoneString: UTC\n" +
		"; StartTime: Sun Sep 09 01:46:40 UTC 2001\n; EndTime: Sun Sep 09 02:00:00 UTC 2001\n; MaxProcs: 8\n" +
		swfJob("1", "100", "0", "7", "2", "1", "1") +
		swfJob("2", "634", "0", "1", "2", "1", "1") +
		swfJob("3", "700", "0", "-1", "2", "1", "1")
	in := writeTrace(t, "in.swf", src)
	open := func() (Reader, error) { return Open(in, ReadOptions{Strict: true}) }
	sel := Selection{Rebase: true, Scale: Scale{Submit: 0.1, RunTime: 0.37}}
	r, _, err := Select(open, sel)
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "out.swf")
	if _, err := WriteTrace(out, SWF, sel.Header(r.Header(), []string{"in.swf"}), r, nil); err != nil {
		t.Fatal(err)
	}
	r.Close()
	b, _ := os.ReadFile(out)
	text := string(b)
	var submits, runs []string
	for _, l := range strings.Split(strings.TrimSpace(text), "\n") {
		if !strings.HasPrefix(l, ";") {
			f := strings.Fields(l)
			submits, runs = append(submits, f[1]), append(runs, f[3])
		}
	}
	// Offsets 0, 534, 600 from the first job, times 0.1; run times 7 and
	// 1 times 0.37 (2.59 and 0.37); the unknown one stays unknown.
	if strings.Join(submits, " ") != "0 53 60" || strings.Join(runs, " ") != "3 1 -1" {
		t.Errorf("submits %v run times %v, want 0 53 60 and 3 1 -1\n%s", submits, runs, text)
	}
	for _, gone := range []string{"MaxJobs", "MaxRecords", "EndTime"} {
		if strings.Contains(text, gone) {
			t.Errorf("the selection's header still has %s:\n%s", gone, text)
		}
	}
	for _, kept := range []string{"; UnixStartTime: 1000000100\n", "; StartTime: Sun Sep 09 01:48:20 UTC 2001\n", "; MaxProcs: 8\n", "; Note: selected by gmark from in.swf: "} {
		if !strings.Contains(text, kept) {
			t.Errorf("the selection's header lacks %q:\n%s", kept, text)
		}
	}
	// A selection that keeps everything as it was keeps the header's counts.
	if h := (Selection{}).Header(&Header{Lines: []string{"MaxJobs: 3"}, MaxJobs: 3}, []string{"x"}); h.MaxJobs != 3 || h.Lines[0] != "MaxJobs: 3" {
		t.Errorf("all jobs: header %+v", h)
	}
	// Exact scaling (wl:trace) keeps the products.
	sel.Scale.Exact = true
	r, _, err = Select(open, sel)
	if err != nil {
		t.Fatal(err)
	}
	recs, _ := drain(r)
	r.Close()
	offset, run, f, g := 534.0, 7.0, 0.1, 0.37 // the products at run time, not as constants
	if recs[1].SubmitTime != offset*f || recs[0].RunTime != run*g {
		t.Errorf("exact: submit %g run %g", recs[1].SubmitTime, recs[0].RunTime)
	}
}

// Item 7: string identifiers numbered in SWF read back as the strings, from
// a file, a compressed file or a pipe (the numbering is written before the
// first record that uses it). Before, the tables were written at the end
// and never read.
func TestSWFIdentifiersReadBack(t *testing.T) {
	gwf := "# " + strings.Join(GWFFields, "\t") + "\n"
	row := func(job, user, group, part, site string) string {
		f := []string{job, "0", "1", "60", "2", "-1", "-1", "2", "-1", "-1", "1", user, group, "app x", "-1", part, "-1", site, "UNITARY", "-1", "-1", "-1", "-1", "-1", "-1", "-1", "-1", "-1", "-1"}
		return strings.Join(f, "\t") + "\n"
	}
	// Jobs: "7" keeps its number, "x" gets 8, so "8" is renumbered (9).
	// Users: "U17" gets 1, so "1" is renumbered (2). The partition of a
	// job with none is its site.
	gwf += row("7", "U17", "G1", "p1", "-1") + row("x", "3", "G1", "-1", "siteB") + row("8", "U17", "1", "p1", "-1") + row("#y z", "1", "\"q\"", "p2", "-1")
	in := writeTrace(t, "in.gwf", gwf)
	orig, _ := openAll(t, in)
	dir := t.TempDir()
	for _, name := range []string{"out.swf", "out.swf.gz"} {
		t.Run(name, func(t *testing.T) {
			out := filepath.Join(dir, name)
			convertFile(t, in, out, SWF)
			recs, _ := openAll(t, out)
			b, _ := os.ReadFile(out)
			if name == "out.swf" {
				// Through a pipe: one pass, no seeking.
				r, err := NewReader(bytes.NewReader(b), ReadOptions{Strict: true})
				if err != nil {
					t.Fatal(err)
				}
				piped, err := drain(r)
				if err != nil || !reflect.DeepEqual(piped, recs) {
					t.Errorf("through a pipe: %+v (%v)", piped, err)
				}
			}
			for i := range orig {
				o, g := orig[i], recs[i]
				site := o.PartitionID
				if missingString(site) {
					site = o.Site()
				}
				if g.JobID != o.JobID || g.UserID != o.UserID || g.GroupID != o.GroupID || g.ExecutableID != o.ExecutableID || g.PartitionID != site {
					t.Errorf("record %d: job %q user %q group %q exec %q part %q, want %q %q %q %q %q", i, g.JobID, g.UserID, g.GroupID, g.ExecutableID, g.PartitionID,
						o.JobID, o.UserID, o.GroupID, o.ExecutableID, site)
				}
			}
		})
	}
	// A malformed table line is a malformed line.
	_, err := NewReader(strings.NewReader("; gmark-user: x alice\n"+swfJob("1", "0", "0", "1", "1", "1", "1")), ReadOptions{Strict: true, Name: "t.swf"})
	if err == nil || !strings.Contains(err.Error(), "t.swf:1: gmark-user:") {
		t.Errorf("malformed table line: %v", err)
	}
}

// Item 8: header lines are kept verbatim (the spaces that pad PWA headers'
// columns included; only a CRLF line end goes), so a conversion keeps them.
// Before, they lost their trailing spaces.
func TestHeaderLinesVerbatim(t *testing.T) {
	swf := "; Version: 2.2\n; Partition:  1 grid.ici.ro       \r\n;   MaxProcs: 16  \n; Note:\t tabbed\t\n" + swfJob("1", "0", "0", "5", "1", "1", "1")
	in := writeTrace(t, "in.swf", swf)
	_, h := openAll(t, in)
	want := []string{"Version: 2.2", "Partition:  1 grid.ici.ro       ", "  MaxProcs: 16  ", "Note:\t tabbed\t"}
	if !reflect.DeepEqual(h.Lines, want) || h.MaxProcs != 16 || h.Partitions["1"] != "grid.ici.ro" {
		t.Fatalf("lines %q MaxProcs %d partitions %v, want %q", h.Lines, h.MaxProcs, h.Partitions, want)
	}
	dir := t.TempDir()
	prev := in
	for _, step := range []string{"a.gwf", "b.db3", "c.gwf", "d.swf"} {
		out := filepath.Join(dir, step)
		convertFile(t, prev, out, "")
		if _, h := openAll(t, out); !reflect.DeepEqual(h.Lines, want) {
			t.Errorf("%s: lines %q, want %q", step, h.Lines, want)
		}
		prev = out
	}
	b, _ := os.ReadFile(prev)
	if head := strings.ReplaceAll(swf[:strings.Index(swf, "1 0 0")], "\r", ""); !strings.HasPrefix(string(b), head) {
		t.Errorf("SWF → GWF → SQLite → GWF → SWF changed the header:\n%q", b)
	}
}

// Item 10: the share of jobs whose size is a power of two, 1 = 2^0
// counted, and among parallel jobs, in JSON and text.
func TestPowerOfTwoShare(t *testing.T) {
	var text strings.Builder
	for i, p := range []string{"1", "2", "3", "4", "6", "8", "-1", "1024", "1000"} {
		text.WriteString(swfJob(itoa(i+1), itoa(i), "0", "10", p, "1", "1"))
	}
	a := analyzeFile(t, writeTrace(t, "p.swf", text.String()))
	z := a.Size
	// Known sizes 1 2 3 4 6 8 1024 1000: powers of two 1 2 4 8 1024;
	// parallel 2 3 4 6 8 1024 1000: powers of two 2 4 8 1024.
	if z.PowerOfTwoJobs != 5 || z.PowerOfTwoShare.Value != 5.0/8 || z.ParallelPowerOfTwoShare.Value != 4.0/7 {
		t.Errorf("power of two: %d jobs, share %v, parallel share %v; want 5, 0.625, 4/7", z.PowerOfTwoJobs, z.PowerOfTwoShare, z.ParallelPowerOfTwoShare)
	}
	b, _ := json.Marshal(a)
	if !strings.Contains(string(b), `"power_of_two_share":0.625`) || !strings.Contains(analysisText(a), "power of two 62.5% of jobs (1 = 2^0 counted), 57.1% of parallel jobs") {
		t.Errorf("not reported:\n%s\n%s", b, analysisText(a))
	}
	// No parallel job: the parallel share is absent, with a reason.
	a = analyzeFile(t, writeTrace(t, "s.swf", swfJob("1", "0", "0", "10", "1", "1", "1")))
	if a.Size.PowerOfTwoShare.Value != 1 || a.Size.ParallelPowerOfTwoShare.OK() {
		t.Errorf("sequential only: %+v", a.Size)
	}
	for p, want := range map[float64]bool{1: true, 2: true, 3: false, 0.5: false, 1 << 30: true, 1<<30 + 1: false, 2.5: false} {
		if powerOfTwo(p) != want {
			t.Errorf("powerOfTwo(%g) = %v", p, !want)
		}
	}
}

func itoa(i int) string     { return ftoa(float64(i)) }
func ftoa(v float64) string { return string(appendNum(nil, v)) }

// A file's name is a hint for content that does not tell its format, not
// an override: SWF content in a file named .gwf is read as SWF (it was read
// as GWF, every line malformed), and GWF content named .swf as GWF; a format
// the caller names still wins.
func TestContentBeatsTheFileName(t *testing.T) {
	dir := t.TempDir()
	swf := "; MaxProcs: 4\n1 0 0 10 1 -1 -1 1 -1 -1 1 1 -1 -1 -1 -1 -1 -1\n"
	gwf := "# GWF\n1 0 0 10 1 -1 -1 1 -1 -1 1 U1 G1 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1\n"
	for _, c := range []struct {
		name, content string
		format        Format
		want          Format
	}{
		{"swf-named.gwf", swf, "", SWF},
		{"gwf-named.swf", gwf, "", GWF},
		{"plain.swf", swf, "", SWF},
		{"undetectable.swf", "1 0 0 10 1 -1 -1 1 -1 -1 1 1 -1 -1 -1 -1 -1 -1\n", "", SWF},
	} {
		path := filepath.Join(dir, c.name)
		if err := os.WriteFile(path, []byte(c.content), 0o644); err != nil {
			t.Fatal(err)
		}
		r, err := Open(path, ReadOptions{Format: c.format})
		if err != nil {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		if got := r.Header().Format; got != c.want {
			t.Errorf("%s: read as %q, want %q", c.name, got, c.want)
		}
		n := 0
		for {
			_, err := r.Next()
			if err == io.EOF {
				break
			}
			if err != nil {
				t.Fatalf("%s: %v", c.name, err)
			}
			n++
		}
		r.Close()
		if n != 1 {
			t.Errorf("%s: %d records, want 1", c.name, n)
		}
	}
}

// A generated workload's times are written as the decimals they are:
// 5.488 s as 5.488, not Duration.Seconds's 5.4879999999999995.
func TestFromJobSecondsHaveNoNoise(t *testing.T) {
	for _, c := range []struct {
		d    time.Duration
		want string
	}{
		{5488 * time.Millisecond, "5.488"},
		{53400 * time.Millisecond, "53.4"},
		{time.Nanosecond, "0.000000001"},
		{0, "0"},
		{-1500 * time.Millisecond, "-1.5"},
		{200 * 24 * time.Hour, "17280000"},
	} {
		if got := string(appendNum(nil, seconds(c.d))); got != c.want {
			t.Errorf("%v written as %s, want %s", c.d, got, c.want)
		}
	}
	// The case the writer used to get wrong: Duration.Seconds is one ulp off.
	if got := string(appendNum(nil, (5488 * time.Millisecond).Seconds())); got == "5.488" {
		t.Errorf("Duration.Seconds of 5.488 s writes as %s: the first case no longer tells the two apart", got)
	}
}
