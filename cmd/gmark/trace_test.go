package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gmark/gmark/internal/testkit"
)

// writeSmallTrace writes an SWF of ten jobs and a copy with a bad line.
func writeSmallTrace(t *testing.T, dir string) {
	t.Helper()
	var b strings.Builder
	b.WriteString("; Version: 2.2\n; UnixStartTime: 1200000000\n; MaxProcs: 64\n; Partition: 1 alpha\n; Partition: 2 beta\n")
	for k := 1; k <= 10; k++ {
		fmt.Fprintf(&b, "%d %d 5 %d %d -1 -1 %d %d -1 1 %d 1 -1 -1 %d -1 -1\n", k, 60*k, 100*k, k%3+1, k%3+1, 200*k, k%3+1, k%2+1)
	}
	os.WriteFile(filepath.Join(dir, "small.swf"), []byte(b.String()), 0o644)
	bad := strings.Replace(b.String(), "\n3 180 5 300", "\n3 180 5 3x0", 1)
	os.WriteFile(filepath.Join(dir, "bad.swf"), []byte(bad), 0o644)
}

func statsJSON(t *testing.T, dir string, args ...string) map[string]any {
	t.Helper()
	out, stderr, code := run(t, dir, append([]string{"trace", "stats", "--json"}, args...)...)
	if code != 0 {
		t.Fatalf("trace stats %v: exit %d\n%s", args, code, stderr)
	}
	var m map[string]any
	if err := json.Unmarshal([]byte(out), &m); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	return m
}

func jobsOf(m map[string]any) float64 {
	return m["totals"].(map[string]any)["jobs"].(float64)
}

func TestTraceCommands(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeSmallTrace(t, dir)

	m := statsJSON(t, dir, "small.swf")
	if jobsOf(m) != 10 || m["totals"].(map[string]any)["sites"].(float64) != 2 {
		t.Errorf("stats: %v", m["totals"])
	}
	out, _, code := run(t, dir, "trace", "stats", "small.swf")
	if code != 0 || !strings.Contains(out, "small.swf: SWF, 10 jobs, 3 users") || !strings.Contains(out, "ranking:") {
		t.Errorf("stats text (exit %d):\n%s", code, out)
	}

	// convert, both ways, and refuse to overwrite.
	for _, f := range []string{"small.gwf", "small.db3", "small.gwf.gz"} {
		if _, stderr, code := run(t, dir, "trace", "convert", "small.swf", f); code != 0 {
			t.Fatalf("convert to %s: %d %s", f, code, stderr)
		}
		if n := jobsOf(statsJSON(t, dir, f)); n != 10 {
			t.Errorf("%s: %g jobs", f, n)
		}
	}
	if _, stderr, code := run(t, dir, "trace", "convert", "small.swf", "small.gwf"); code != 2 || !strings.Contains(stderr, "--force") {
		t.Errorf("overwrite without --force: exit %d %s", code, stderr)
	}

	// select: a window, scaled, written as SWF.
	out, stderr, code := run(t, dir, "trace", "select", "small.swf", "-o", "sel.swf", "--from", "3m", "--to", "6m", "--rebase", "--submit-scale", "0.5", "--status", "completed")
	if code != 0 || !strings.Contains(out, "selected 3 jobs") {
		t.Fatalf("select: exit %d\n%s%s", code, out, stderr)
	}
	b, _ := os.ReadFile(filepath.Join(dir, "sel.swf"))
	if !strings.Contains(string(b), "\n3 0 5 300 ") || !strings.Contains(string(b), "\n5 60 5 500 ") || !strings.Contains(string(b), "UnixStartTime: 1200000180") {
		t.Errorf("selected trace:\n%s", b)
	}
	// select with an area and a mix of two traces.
	out, stderr, code = run(t, dir, "trace", "select", "small.swf", "small.gwf", "-o", "mix.gwf", "--area-width", "5m", "--target", "arrivals:p100")
	if code != 0 || !strings.Contains(out, "selected 10 jobs") || !strings.Contains(out, "area: window 1 of 1") {
		t.Fatalf("select with area: exit %d\n%s%s", code, out, stderr)
	}
	if m := statsJSON(t, dir, "mix.gwf"); m["totals"].(map[string]any)["users"].(float64) != 6 {
		t.Errorf("mixed users: %v", m["totals"])
	}

	// bots, rank and plot.
	out, _, code = run(t, dir, "trace", "bots", "small.swf", "--delta", "200s", "--delta", "60s", "--list", "2")
	if code != 0 || !strings.Contains(out, "size classes") || !strings.Contains(out, "batch user") {
		t.Errorf("bots (exit %d):\n%s", code, out)
	}
	out, _, code = run(t, dir, "trace", "rank", "small.swf", "small.gwf")
	if code != 0 || !strings.Contains(out, "distances D(C, row, column)") {
		t.Errorf("rank (exit %d):\n%s", code, out)
	}
	out, stderr, code = run(t, dir, "trace", "plot", "small.swf", "-o", "figs")
	if code != 0 || !strings.Contains(out, "wrote") {
		t.Fatalf("plot: exit %d %s %s", code, out, stderr)
	}
	for _, f := range []string{"utilization_daily.png", "utilization_daily.svg", "cdf_run_time.png", "arrivals_by_hour.svg", "cdf_run_time.csv", "index.html"} {
		if st, err := os.Stat(filepath.Join(dir, "figs", f)); err != nil || st.Size() == 0 {
			t.Errorf("figure %s: %v", f, err)
		}
	}
	// Three traces overlaid: one page, each trace's own figures beside.
	out, stderr, code = run(t, dir, "trace", "plot", "small.swf", "small.gwf", abs(t, "../../gwa/testdata/overlay/grid-b.gwf"), "-o", "cmp")
	if code != 0 || !strings.Contains(out, "and index.html to cmp") {
		t.Fatalf("plot of three traces: exit %d %s %s", code, out, stderr)
	}
	for _, f := range []string{"index.html", "cdf_run_time.svg", "cumulative_jobs.png", "1_small.swf/index.html", "3_grid-b.gwf/groups_VO_shares.svg", "cdf_run_time.csv", "2_small.gwf/cdf_run_time.csv"} {
		if st, err := os.Stat(filepath.Join(dir, "cmp", f)); err != nil || st.Size() == 0 {
			t.Errorf("overlay %s: %v", f, err)
		}
	}
}

// Malformed lines: file:line: field N: message; --strict exits 2, the
// default skips, counts and reports.
func TestTraceBadInput(t *testing.T) {
	dir := t.TempDir()
	writeSmallTrace(t, dir)
	_, stderr, code := run(t, dir, "trace", "stats", "--strict", "bad.swf")
	if code != 2 || !strings.Contains(stderr, `bad.swf:8: field 4: "3x0" is not a number`) {
		t.Errorf("strict: exit %d\n%s", code, stderr)
	}
	out, stderr, code := run(t, dir, "trace", "stats", "bad.swf")
	if code != 0 || !strings.Contains(stderr, "skipped 1 malformed line") || !strings.Contains(stderr, `bad.swf:8: field 4:`) || !strings.Contains(out, "9 jobs") {
		t.Errorf("lenient: exit %d\n%s\n%s", code, out, stderr)
	}
	_, stderr, code = run(t, dir, "trace", "convert", "--strict", "bad.swf", "x.gwf")
	if code != 2 {
		t.Errorf("strict convert: exit %d %s", code, stderr)
	}
	if _, err := os.Stat(filepath.Join(dir, "x.gwf")); err == nil {
		t.Errorf("a failed convert left its output")
	}
	for _, args := range [][]string{{"trace", "stats"}, {"trace", "stats", "missing.swf"}, {"trace", "select", "small.swf", "-o", "o.swf", "--target", "arrivals:p90"},
		{"trace", "select", "small.swf", "-o", "o.txt"}, {"trace", "bots", "small.swf", "--delta", "soon"}} {
		if _, stderr, code := run(t, dir, args...); code != 2 {
			t.Errorf("%v: exit %d, want 2\n%s", args, code, stderr)
		}
	}
}

// The real LCG trace through the command, when it is there.
func TestTraceStatsLCG(t *testing.T) {
	t.Parallel()
	lcg := testkit.LCG(t)
	m := statsJSON(t, t.TempDir(), lcg)
	if jobsOf(m) != 188041 || m["totals"].(map[string]any)["sites"].(float64) != 170 {
		t.Errorf("LCG: %v", m["totals"])
	}
}

// trace stats: a trace whose CPU time overflowed
// made --json fail on +Inf and the text print "+Inf CPU-years" and "NaN%".
// Now the numbers are range-checked when read, and every statistic of a
// degenerate trace is finite or "n/a" (null with a reason in JSON), in
// stats, bots and rank.
func TestTraceStatsDegenerate(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	job := func(id, submit int, wait, run, procs string) string {
		return fmt.Sprintf("%d %d %s %s %s -1 -1 -1 -1 -1 1 1 1 -1 -1 1 -1 -1\n", id, submit, wait, run, procs)
	}
	traces := map[string]string{
		"empty.swf":     "; Version: 2.2\n",
		"one.swf":       job(1, 0, "5", "10", "2"),
		"equal.swf":     job(1, 0, "5", "10", "2") + job(2, 0, "5", "10", "2"),
		"zeros.swf":     job(1, 0, "0", "0", "0") + job(2, 0, "0", "0", "0"),
		"nospan.swf":    "; MaxProcs: 8\n" + job(1, 100, "0", "0", "1") + job(2, 100, "-1", "-1", "4"),
		"overflow.swf":  job(1, 0, "0", "1e300", "1e300") + job(2, 5, "0", "10", "1"),
		"limits.swf":    job(1, 0, "9223372036", "9223372036", "2147483647") + job(2, 1, "0", "9223372036", "2147483647"),
		"allbad.swf":    "1 2 3\n4 5 6\n",
		"outrange.swf":  job(1, 0, "0", "1e300", "1e300"),
		"noheader.swf":  "",
		"onlyzero.swf":  job(1, 0, "-1", "-1", "-1"),
		"negative.swf":  job(1, 10, "-20", "-5", "-3"),
		"tinyspan.swf":  job(1, 0, "0", "0.001", "1"),
		"bigvalue.swf":  job(1, 4294967296, "0", "1", "1"),
		"absbase.swf":   job(1, 1200000000, "0", "60", "1") + job(2, 1200000060, "0", "60", "1"),
		"manyzero.swf":  strings.Repeat(job(1, 0, "0", "0", "1"), 5),
		"equalruns.swf": job(1, 0, "0", "7", "1") + job(2, 9, "0", "7", "1") + job(3, 18, "0", "7", "1"),
	}
	for name, text := range traces {
		os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644)
	}
	for name := range traces {
		t.Run(name, func(t *testing.T) {
			wantCode := 0
			switch name {
			case "allbad.swf", "outrange.swf": // no valid record: bad input
				wantCode = 2
			}
			out, stderr, code := run(t, dir, "trace", "stats", name)
			if code != wantCode {
				t.Fatalf("stats: exit %d, want %d\n%s%s", code, wantCode, out, stderr)
			}
			if wantCode != 0 {
				if !strings.Contains(stderr, name+":1:") || !strings.Contains(stderr, "no line is a valid record") {
					t.Errorf("stats: want the first bad line, got %s", stderr)
				}
				return
			}
			for _, bad := range []string{"NaN", "Inf", "inf"} {
				if strings.Contains(out, bad) {
					t.Errorf("stats text holds %s:\n%s", bad, out)
				}
			}
			js, stderr, code := run(t, dir, "trace", "stats", "--json", "--cdf", name)
			var m map[string]any
			if code != 0 || json.Unmarshal([]byte(js), &m) != nil {
				t.Fatalf("stats --json: exit %d\n%s%s", code, js, stderr)
			}
			for _, args := range [][]string{{"trace", "bots", name}, {"trace", "bots", "--json", name}} {
				out, stderr, code := run(t, dir, args...)
				if code != 0 || strings.Contains(out, "NaN") || strings.Contains(out, "Inf") {
					t.Errorf("%v: exit %d\n%s%s", args, code, out, stderr)
				}
			}
			// rank over the categories the trace tells.
			if _, stderr, code := run(t, dir, "trace", "rank", "--categories", "sites,users,jobs", name); code != 0 {
				t.Errorf("rank: exit %d %s", code, stderr)
			}
		})
	}
	// The text of a trace with no system size and no time span.
	out, _, _ := run(t, dir, "trace", "stats", "zeros.swf")
	for _, want := range []string{"goodput n/a; utilization n/a", "0 sequential (n/a of CPU)", "busiest month n/a", "1 100.0%/n/a"} {
		if !strings.Contains(out, want) {
			t.Errorf("zeros.swf: no %q in\n%s", want, out)
		}
	}
	// rank names the categories a trace cannot tell.
	if _, stderr, code := run(t, dir, "trace", "rank", "zeros.swf"); code != 2 || !strings.Contains(stderr, "categories cores, utilization are unknown") {
		t.Errorf("rank zeros.swf: exit %d %s", code, stderr)
	}
}

// Numbers given on the command line are checked against their ranges
// before any work: exit 2 with the flag named, never a panic (a tiny
// --area-width overflowed the window index) or a silently overflowing
// value (--runtime-scale Inf made NaN times).
func TestTraceFlagRanges(t *testing.T) {
	dir := t.TempDir()
	writeSmallTrace(t, dir)
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"trace", "select", "--area-width", "1e-300", "-o", "o.swf", "small.swf"}, "windows over the trace"},
		{[]string{"trace", "select", "--submit-scale", "Inf", "-o", "o.swf", "small.swf"}, "--submit-scale must be a finite number > 0"},
		{[]string{"trace", "select", "--runtime-scale", "NaN", "-o", "o.swf", "small.swf"}, "--runtime-scale must be a finite number > 0"},
		{[]string{"trace", "select", "--runtime-scale", "1e12", "-o", "o.swf", "small.swf"}, "after rebasing and scaling, job 1: RunTime 100000000000000 is out of range"},
		{[]string{"trace", "select", "--from", "1e300", "-o", "o.swf", "small.swf"}, `--from: "1e300" is out of range`},
		{[]string{"trace", "select", "--max-runtime", "1e10", "-o", "o.swf", "small.swf"}, `--max-runtime: "1e10" is out of range`},
		{[]string{"trace", "select", "--from", "4e9", "--rebase", "-o", "o.swf", "small.swf"}, "header UnixStartTime 5200000000 is out of range"},
		{[]string{"trace", "stats", "--procs", "99999999999", "small.swf"}, "--procs must be from 1 to 2147483647"},
		{[]string{"trace", "bots", "--delta", "1e300", "small.swf"}, "--delta"},
		{[]string{"fit", "--floor", "NaN", "small.swf"}, "--floor NaN"},
		{[]string{"fit", "--censor-at", "1e400", "small.swf"}, "--censor-at"},
	}
	for _, c := range cases {
		_, stderr, code := run(t, dir, c.args...)
		if code != 2 || !strings.Contains(stderr, c.want) || strings.Contains(stderr, "internal error") {
			t.Errorf("%v: exit %d, stderr %q; want 2 and %q", c.args, code, stderr, c.want)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "o.swf")); err == nil {
		t.Errorf("a refused selection left its output")
	}
}
