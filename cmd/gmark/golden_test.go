package main

import (
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"
)

var (
	updateGolden = flag.Bool("update", false, "TestShippedExamplesGolden: rewrite testdata/golden from what the commands write")
	goldenOut    = flag.String("golden-out", "", "TestShippedExamplesGolden: also write every output whole into this directory (to diff two revisions' outputs)")
)

// goldenWhole is the size up to which an output is kept whole in its
// golden; a larger one is kept as the digests of its sections (a store's
// tables), so that the goldens stay small and a difference still names
// its table. -golden-out writes them whole, to compare two revisions.
const goldenWhole = 128 << 10

// goldenCase is one shipped example taken through the commands: gmark's
// argument lists, run in turn in one directory, and what they leave there
// to compare.
type goldenCase struct {
	name string
	// wall: the run is timed by the wall clock (a dryrun submission), so
	// every time and duration of it differs from one run to the next.
	wall   bool
	steps  [][]string
	stdout []string // names of the steps' standard outputs kept, by step ("" drops one)
	stores []string // results stores, dumped table by table
	files  []string // output files compared whole
	dirs   []string // output directories, every file by its digest
}

var goldenCases = []goldenCase{{
	name: "dryrun-quickstart",
	wall: true,
	steps: [][]string{
		{"generate", "--seed", "7", "-q", "-o", "qs", "examples/quickstart.wdl"},
		{"submit", "--target", "dryrun", "--db", "dry.db", "--run-id", "golden-dry", "--speedup", "20", "--workers", "1", "-q", "qs"},
		{"report", "--db", "dry.db", "--format", "text"},
		{"report", "--db", "dry.db", "--format", "json"},
	},
	stdout: []string{"", "submit.out", "report.txt", "report.json"},
	stores: []string{"dry.db"},
}, {
	name: "simulate-w30",
	steps: [][]string{
		{"generate", "--seed", "7", "-q", "-o", "w30", "examples/koala-w30.wdl"},
		{"koala", "simulate", "--db", "sim.db", "--run-id", "golden-sim", "w30"},
		{"report", "--db", "sim.db", "--format", "text"},
		{"report", "--db", "sim.db", "--format", "json"},
		{"report", "--db", "sim.db", "--format", "html", "-q", "-o", "html"},
	},
	stdout: []string{"", "simulate.out", "report.txt", "report.json", ""},
	stores: []string{"sim.db"},
	files:  []string{"html/index.html"},
	dirs:   []string{"html/figures"},
}, {
	name: "simulate-deadlines",
	steps: [][]string{
		{"generate", "--seed", "3", "-q", "-o", "dl", "examples/deadlines/global-d600.wdl"},
		{"koala", "simulate", "--grid", "examples/deadlines/grid.toml", "--db", "dl.db", "--run-id", "golden-dl", "dl"},
		{"report", "--db", "dl.db", "--format", "text"},
		{"report", "--db", "dl.db", "--format", "json"},
	},
	stdout: []string{"", "simulate.out", "report.txt", "report.json"},
	stores: []string{"dl.db"},
}, {
	name: "sim-t1-selftest",
	steps: [][]string{
		{"sim", "run", "-j", "2", "examples/sim/t1-selftest.toml", "--db", "exp.db"},
		{"sim", "report", "--db", "exp.db"},
		{"sim", "report", "--db", "exp.db", "--format", "json"},
		{"sim", "report", "--db", "exp.db", "-o", "out"},
	},
	stdout: []string{"run.out", "report.txt", "report.json", ""},
	stores: []string{"exp.db"},
	dirs:   []string{"out"},
}, {
	name: "sim-sweep",
	steps: [][]string{
		{"sim", "run", "-j", "2", "--scale", "0.01", "examples/sim/sweep.toml", "--db", "exp.db"},
		{"sim", "report", "--db", "exp.db"},
		{"sim", "report", "--db", "exp.db", "--format", "json"},
		{"sim", "report", "--db", "exp.db", "-o", "out"},
	},
	stdout: []string{"run.out", "report.txt", "report.json", ""},
	stores: []string{"exp.db"},
	dirs:   []string{"out"},
}, {
	name: "sim-dynamics-traces",
	steps: [][]string{
		{"sim", "run", "-j", "2", "--scale", "0.01", "examples/sim/dynamics.toml", "--db", "exp.db"},
		{"sim", "run", "-j", "2", "--scale", "0.01", "examples/sim/t3-traces.toml", "--db", "exp.db"},
		{"sim", "report", "--db", "exp.db"},
		{"sim", "report", "--db", "exp.db", "--format", "json"},
	},
	stdout: []string{"run-dynamics.out", "run-t3.out", "report.txt", "report.json"},
	stores: []string{"exp.db"},
}, {
	name: "sim-deadlines-fig5",
	steps: [][]string{
		{"sim", "run", "-j", "2", "--scale", "0.05", "examples/deadlines/fig5-deadline.toml", "--db", "exp.db"},
		{"sim", "report", "--db", "exp.db"},
		{"sim", "report", "--db", "exp.db", "--format", "json"},
	},
	stdout: []string{"run.out", "report.txt", "report.json"},
	stores: []string{"exp.db"},
}, {
	name: "placeholder",
	steps: [][]string{
		{"placeholder", "experiment", "examples/placeholder/exp1.toml", "-o", "exp1"},
		{"placeholder", "experiment", "examples/placeholder/exp1-faults.toml", "-o", "exp1-faults"},
		{"placeholder", "experiment", "examples/placeholder/ciss1.toml", "-o", "ciss1"},
	},
	stdout: []string{"exp1.out", "exp1-faults.out", "ciss1.out"},
	files:  []string{"exp1/report.txt", "exp1/report.json", "exp1-faults/report.txt", "ciss1/report.txt"},
	dirs:   []string{"exp1", "exp1-faults", "ciss1"},
}}

// The stores, reports and figures of the shipped examples are the
// goldens' under testdata/golden, byte for byte once what differs from run
// to run is masked (wall-clock times, the directory, the host, the build;
// for a dryrun, every time and duration). A change of the code that is not
// meant to change an output (a move, a refactoring) must leave this test
// passing; one that is meant to rewrites the goldens with
//
//	go test ./cmd/gmark -run TestShippedExamplesGolden -update
//
// and the diff of testdata/golden shows what it changed.
//
// Slow: 42 s at load 4–30, 43 s at load 20–40 (2 cores, whole package
// run): the shipped examples' simulations (CPU), the cases side by side.
func TestShippedExamplesGolden(t *testing.T) {
	t.Parallel()
	for _, c := range goldenCases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel() // each case in a directory of its own
			dir := t.TempDir()
			m := newMasker(t, dir, c.wall)
			got := map[string]string{}
			for i, args := range c.steps {
				out, stderr, code := run(t, dir, args...)
				if code != 0 {
					t.Fatalf("gmark %s: exit %d\n%s", strings.Join(args, " "), code, stderr)
				}
				if name := c.stdout[i]; name != "" {
					got[name] = out
				}
			}
			for _, s := range c.stores {
				m.learnDigests(t, filepath.Join(dir, s))
			}
			for name, out := range got {
				got[name] = m.report(out)
			}
			for _, s := range c.stores {
				got[s+".dump"] = m.store(t, filepath.Join(dir, s))
			}
			for _, f := range c.files {
				b, err := os.ReadFile(filepath.Join(dir, f))
				if err != nil {
					t.Fatal(err)
				}
				got[strings.ReplaceAll(f, "/", "_")] = m.report(string(b))
			}
			for _, d := range c.dirs {
				got[strings.ReplaceAll(d, "/", "_")+".sha256"] = m.digests(t, filepath.Join(dir, d))
			}
			if *goldenOut != "" {
				writeOutputs(t, filepath.Join(*goldenOut, c.name), got)
			}
			for name, content := range got {
				if len(content) > goldenWhole {
					delete(got, name)
					got[name+".sha256"] = sectionDigests(content)
				}
			}
			compareGolden(t, filepath.Join("testdata", "golden", c.name), got)
		})
	}
}

// compareGolden holds got (file name → content) against the files of dir,
// or writes them there with -update.
func compareGolden(t *testing.T, dir string, got map[string]string) {
	t.Helper()
	names := make([]string, 0, len(got))
	for n := range got {
		names = append(names, n)
	}
	sort.Strings(names)
	if *updateGolden {
		writeOutputs(t, dir, got)
		return
	}
	have, _ := filepath.Glob(filepath.Join(dir, "*"))
	for _, p := range have {
		if _, ok := got[filepath.Base(p)]; !ok {
			t.Errorf("%s: no longer written", p)
		}
	}
	for _, n := range names {
		p := filepath.Join(dir, n)
		want, err := os.ReadFile(p)
		if err != nil {
			t.Errorf("%s: %v (run with -update to write it)", p, err)
			continue
		}
		if string(want) != got[n] {
			t.Errorf("%s differs: %s", p, firstDifference(string(want), got[n]))
		}
	}
}

// writeOutputs replaces dir with the files of got.
func writeOutputs(t *testing.T, dir string, got map[string]string) {
	t.Helper()
	if err := os.RemoveAll(dir); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for n, content := range got {
		if err := os.WriteFile(filepath.Join(dir, n), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// sectionDigests is a large output as the SHA-256 of each of its sections
// (a store dump's schema and tables, each starting with a "== " line), one
// line each with the section's first line and its size.
func sectionDigests(s string) string {
	var b strings.Builder
	lines := strings.SplitAfter(s, "\n")
	for start := 0; start < len(lines); {
		end := start + 1
		for end < len(lines) && !strings.HasPrefix(lines[end], "== ") {
			end++
		}
		section := strings.Join(lines[start:end], "")
		if section != "" {
			sum := sha256.Sum256([]byte(section))
			head := strings.TrimSpace(lines[start])
			if len(head) > 80 {
				head = head[:80] + "…"
			}
			fmt.Fprintf(&b, "%s  %d lines, %d bytes  %s\n", hex.EncodeToString(sum[:]), end-start, len(section), head)
		}
		start = end
	}
	return b.String()
}

// firstDifference names the first line where got leaves want, with both.
func firstDifference(want, got string) string {
	w, g := strings.Split(want, "\n"), strings.Split(got, "\n")
	for i := 0; i < len(w) || i < len(g); i++ {
		var wl, gl string
		if i < len(w) {
			wl = w[i]
		}
		if i < len(g) {
			gl = g[i]
		}
		if wl != gl {
			return fmt.Sprintf("line %d\n  golden: %.400s\n  now:    %.400s\n(%d lines golden, %d now)", i+1, wl, gl, len(w), len(g))
		}
	}
	return "same lines, different bytes"
}

// masker replaces in an output what is not the example's but the run's:
// the directory, the machine, the build, the wall clock.
type masker struct {
	wall     bool
	pairs    []string // old, new
	replacer *strings.Replacer
	words    []*regexp.Regexp // the host's and user's names, as whole words
}

var (
	// A wall-clock time in Unix nanoseconds (2020 to 2096); the simulated
	// clocks start in 2000.
	wallNanos = regexp.MustCompile(`\b1[6-9]\d{17}\b`)
	// A wall-clock date, as the reports print it.
	wallDate = regexp.MustCompile(`\b20[2-9]\d-\d\d-\d\d[T ]\d\d:\d\d(:\d\d(\.\d+)?)?(Z| UTC)?`)
	// A duration or time in JSON, for a run timed by the wall clock.
	jsonNanos = regexp.MustCompile(`("\w*_ns"):\s*-?\d+`)
	// Any number, for a report of a run timed by the wall clock.
	anyNumber = regexp.MustCompile(`-?\d+(,\d{3})*(\.\d+)?(e[-+]?\d+)?`)
	// The dryrun target's ids, numbered in the order of submission.
	dryrunID = regexp.MustCompile(`\bdry-\d+\b`)
	spaces   = regexp.MustCompile(`[ \t]+`)
)

func newMasker(t *testing.T, dir string, wall bool) *masker {
	t.Helper()
	pairs := []string{}
	add := func(from, to string) {
		if from != "" && from != "/" {
			pairs = append(pairs, from, to)
		}
	}
	if real, err := filepath.EvalSymlinks(dir); err == nil && real != dir {
		add(real, "$DIR")
	}
	add(dir, "$DIR")
	add(buildGmark(t), "gmark")
	if cache, err := os.UserCacheDir(); err == nil {
		add(cache, "$CACHE")
	}
	m := &masker{wall: wall, pairs: pairs, replacer: strings.NewReplacer(pairs...)}
	for _, w := range []string{hostName(), os.Getenv("USER")} {
		if w != "" {
			m.words = append(m.words, regexp.MustCompile(`(^|[^\w.-])`+regexp.QuoteMeta(w)+`($|[^\w.-])`))
		}
	}
	return m
}

// learnDigests adds the digests of a store's runs' provenance, which
// cover the directory and the machine, to what is masked everywhere (the
// reports print them).
func (m *masker) learnDigests(t *testing.T, path string) {
	t.Helper()
	db, err := sql.Open("sqlite", "file:"+path+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var has int
	if err := db.QueryRow("SELECT count(*) FROM sqlite_master WHERE name = 'provenance'").Scan(&has); err != nil {
		t.Fatal(err)
	}
	if has == 0 {
		return
	}
	for _, d := range queryStrings(t, db, "SELECT digest FROM provenance UNION SELECT provenance_sha256 FROM runs") {
		if d != "" {
			m.pairs = append(m.pairs, d, "<run-digest>")
		}
	}
	m.replacer = strings.NewReplacer(m.pairs...)
}

func hostName() string {
	h, _ := os.Hostname()
	return h
}

func (m *masker) text(s string) string {
	s = m.replacer.Replace(s)
	for _, w := range m.words {
		s = w.ReplaceAllString(s, "${1}<machine>${2}")
	}
	s = wallNanos.ReplaceAllString(s, "<wall-ns>")
	s = wallDate.ReplaceAllString(s, "<date>")
	if m.wall {
		s = jsonNanos.ReplaceAllString(s, "$1: <ns>")
		s = dryrunID.ReplaceAllString(s, "dry-<n>")
	}
	return s
}

// report masks a command's output: for a run on the wall clock, every
// number too (its layout follows the numbers' widths, so runs of blanks
// are folded).
func (m *masker) report(s string) string {
	s = m.text(s)
	if m.wall {
		s = anyNumber.ReplaceAllString(s, "#")
		s = spaces.ReplaceAllString(s, " ")
	}
	return s
}

// Columns that are the run's, not the example's: its machine, its build,
// its command line and the digests over them.
var (
	machineColumns = []string{"host", "user", "os_arch", "go_version", "gmark_version", "gmark_revision", "gmark_modified", "command_line"}
	runDigests     = map[string][]string{"provenance": {"digest"}, "runs": {"provenance_sha256"}}
	// Row ids numbered in the order of concurrent writers (the runs of an
	// experiment, the workers of a submission); the rows are compared as
	// a set.
	orderIDs = map[string]bool{"events": true, "annotations": true, "sim_attempts": true, "sim_tasks": true}
	// Durations of the wall clock in a simulated run.
	wallColumns = map[string][]string{"sim_results": {"wall_ns"}}
	// Columns of a workload's job, not of its run.
	workloadNanos = []string{"offset_ns", "walltime_ns", "runtime_ns"}
)

// store dumps a results store: its schema, then every table's rows as
// sorted lines, each value masked.
func (m *masker) store(t *testing.T, path string) string {
	t.Helper()
	db, err := sql.Open("sqlite", "file:"+path+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var b strings.Builder
	tables := queryStrings(t, db, "SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")
	for _, s := range queryStrings(t, db, "SELECT type || ' ' || name || ': ' || sql FROM sqlite_master WHERE sql IS NOT NULL ORDER BY type, name") {
		b.WriteString(s + "\n")
	}
	for _, table := range tables {
		rows, err := db.Query("SELECT * FROM " + table)
		if err != nil {
			t.Fatal(err)
		}
		cols, _ := rows.Columns()
		var lines []string
		for rows.Next() {
			vals := make([]any, len(cols))
			ptrs := make([]any, len(cols))
			for i := range vals {
				ptrs[i] = &vals[i]
			}
			if err := rows.Scan(ptrs...); err != nil {
				t.Fatal(err)
			}
			var cells []string
			for i, c := range cols {
				if c == "id" && orderIDs[table] {
					continue
				}
				cells = append(cells, c+"="+m.cell(table, c, vals[i]))
			}
			lines = append(lines, strings.Join(cells, " "))
		}
		if err := rows.Err(); err != nil {
			t.Fatal(err)
		}
		rows.Close()
		sort.Strings(lines)
		fmt.Fprintf(&b, "\n== %s: %d rows\n", table, len(lines))
		for _, l := range lines {
			b.WriteString(l + "\n")
		}
	}
	return b.String()
}

func (m *masker) cell(table, col string, v any) string {
	switch {
	case slices.Contains(machineColumns, col) && v != nil:
		return "<machine>"
	case slices.Contains(runDigests[table], col):
		return "<run-digest>"
	case slices.Contains(wallColumns[table], col):
		return "<wall>"
	case m.wall && strings.HasSuffix(col, "_ns") && !slices.Contains(workloadNanos, col) && v != nil:
		return "<ns>"
	}
	switch x := v.(type) {
	case nil:
		return "NULL"
	case int64:
		return m.text(strconv.FormatInt(x, 10))
	case float64:
		return strconv.FormatFloat(x, 'g', -1, 64)
	case []byte:
		if !utf8.Valid(x) {
			sum := sha256.Sum256(x)
			return "blob:" + hex.EncodeToString(sum[:])
		}
		return strconv.Quote(m.text(string(x)))
	case string:
		return strconv.Quote(m.text(x))
	}
	return fmt.Sprintf("%T:%v", v, v)
}

func queryStrings(t *testing.T, db *sql.DB, q string) []string {
	t.Helper()
	rows, err := db.Query(q)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var s string
		if err := rows.Scan(&s); err != nil {
			t.Fatal(err)
		}
		out = append(out, s)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// digests lists every file under dir with the SHA-256 of its content, a
// text file's once masked (an HTML page names the directory and the date).
func (m *masker) digests(t *testing.T, dir string) string {
	t.Helper()
	var b strings.Builder
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		switch filepath.Ext(p) {
		case ".html", ".txt", ".json", ".csv":
			data = []byte(m.report(string(data)))
		}
		rel, _ := filepath.Rel(dir, p)
		sum := sha256.Sum256(data)
		fmt.Fprintf(&b, "%s  %s\n", hex.EncodeToString(sum[:]), filepath.ToSlash(rel))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return b.String()
}
