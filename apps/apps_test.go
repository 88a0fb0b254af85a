package apps

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gmark/gmark/apps/lunar"
	"github.com/gmark/gmark/apps/output"
)

// result is one in-process run of Main.
type result struct {
	stdout, stderr string
	err            error
	sum            map[string]any
}

// run runs `gmark app args...` in this process with the given environment
// (and nothing of the test's own, so that a Slurm or gmark variable around
// the test cannot change it).
func run(t *testing.T, env map[string]string, args ...string) result {
	t.Helper()
	var out, errb bytes.Buffer
	err := Main(context.Background(), args, &out, &errb, func(k string) string { return env[k] })
	r := result{stdout: out.String(), stderr: errb.String(), err: err}
	if ExitCode(err) != 2 && len(args) > 0 && !strings.Contains(strings.Join(args, " "), "help") {
		s, perr := output.ParseSummary(out.Bytes())
		if perr != nil {
			t.Fatalf("%v: %v\nstdout:\n%s", args, perr, out.String())
		}
		r.sum = s
	}
	return r
}

func num(s map[string]any, k string) int64 {
	f, _ := s[k].(float64)
	return int64(f)
}

// records returns the record lines of the given kind.
func records(t *testing.T, stdout, kind string) []output.ParsedRecord {
	t.Helper()
	var out []output.ParsedRecord
	for _, line := range strings.Split(stdout, "\n") {
		rec, ok, err := output.ParseRecord(line)
		if err != nil {
			t.Fatal(err)
		}
		if ok && rec.Kind == kind {
			out = append(out, rec)
		}
	}
	return out
}

func TestFlagValidation(t *testing.T) {
	dir := t.TempDir()
	cases := []struct {
		args []string
		want string // in the message
	}{
		{[]string{"sser", "--supersteps", "-3"}, `--supersteps must be a whole number >= 1, got "-3"`},
		{[]string{"sser", "--supersteps", "0"}, "--supersteps must be a whole number >= 1"},
		{[]string{"sser", "--supersteps", "1.5"}, "--supersteps must be a whole number"},
		{[]string{"sser", "--supersteps=ten"}, "--supersteps must be a whole number"},
		{[]string{"sser", "--memory", "0"}, "--memory must be a whole number >= 1"},
		{[]string{"sser", "--elements", "x"}, "--elements must be"},
		{[]string{"sser", "--compute", "-1"}, "--compute must be"},
		{[]string{"sser", "--max-memory", "12Q"}, "--max-memory must be a size"},
		{[]string{"sser", "--memory", "2000000000", "--elements", "2000000000", "--compute", "1000"}, "too large"},
		{[]string{"sser", "--supersteps"}, "--supersteps needs a value"},
		{[]string{"sser", "--bogus", "1"}, "unknown flag --bogus"},
		{[]string{"sser", "extra"}, `unexpected argument "extra"`},
		{[]string{"sserio", "--input1", "-1"}, "--input1 must be a whole number from 0 to"},
		{[]string{"sserio", "--output3", "many"}, "--output3 must be"},
		{[]string{"smpi", "--exchange", "-5"}, "--exchange must be"},
		{[]string{"smpi", "--peer-timeout", "0"}, "--peer-timeout must be a duration > 0"},
		{[]string{"smpi1", "--rendezvous-timeout", "never"}, "--rendezvous-timeout must be a duration"},
		{[]string{"lunar", "--dimension", "0"}, "--dimension must be a whole number from 1 to 32"},
		{[]string{"lunar", "--dimension", "33"}, "--dimension must be a whole number from 1 to 32"},
		{[]string{"lunar", "--flavour", "huge"}, "--flavour must be one of normal, large"},
		{[]string{"lunar", "--report-interval", "0"}, "--report-interval must be a duration > 0"},
		{[]string{"swf", "--runtime", "-1"}, "--runtime must be a number >= 0"},
		{[]string{"swf", "--runtime", "NaN"}, "--runtime must be a number"},
		{[]string{"swf", "--scale", "0"}, "--scale must be a number > 0"},
		{[]string{"swf", "--scale", "-2"}, "--scale must be a number > 0"},
		{[]string{"swf", "--procs", "0"}, "--procs must be a whole number >= 1"},
		{[]string{"swf", "--mode", "fast"}, "--mode must be one of sleep, cpu"},
		{[]string{"swf", "--runtime", "1e300", "--scale", "1e10"}, "too long"},
		{[]string{"hello", "--walltime", "-1s"}, "--walltime must be a duration >= 0"},
		{[]string{"hello", "--walltime", "soon"}, "--walltime must be a duration"},
		{[]string{"hello", "--quiet=maybe"}, "--quiet takes no value"},
		{[]string{"hello", "--workdir", filepath.Join(dir, "missing")}, "--workdir"},
		{[]string{"nosuch"}, `unknown application "nosuch"`},
		{nil, "which application?"},
	}
	for _, c := range cases {
		r := run(t, nil, c.args...)
		var ue *UsageError
		if !errors.As(r.err, &ue) || ExitCode(r.err) != 2 || !strings.Contains(r.err.Error(), c.want) {
			t.Errorf("%v: got %v (exit %d), want a usage error containing %q", c.args, r.err, ExitCode(r.err), c.want)
		}
		if r.stdout != "" {
			t.Errorf("%v: a usage error printed on stdout: %q", c.args, r.stdout)
		}
	}
}

func TestEnvironmentValidation(t *testing.T) {
	cases := []struct {
		env  map[string]string
		want string
	}{
		{map[string]string{"GMARK_RANK": "4", "GMARK_SIZE": "4"}, "rank 4 (from GMARK_RANK) is not below the job size 4"},
		{map[string]string{"GMARK_SIZE": "0"}, `GMARK_SIZE="0" must be a whole number >= 1`},
		{map[string]string{"GMARK_RANK": "x"}, "GMARK_RANK"},
		{map[string]string{"SLURM_PROCID": "-1"}, "SLURM_PROCID"},
	}
	for _, c := range cases {
		r := run(t, c.env, "hello")
		if ExitCode(r.err) != 2 || !strings.Contains(r.err.Error(), c.want) {
			t.Errorf("%v: got %v, want a usage error containing %q", c.env, r.err, c.want)
		}
	}
}

func TestAcceptedFlagForms(t *testing.T) {
	for _, args := range [][]string{
		{"sser", "--supersteps", "2", "--memory", "1", "--elements", "3", "--compute", "2"},
		{"sser", "-supersteps", "2", "-memory=1", "--elements=3", "--compute", "2", "--quiet"},
		{"sser", "--supersteps", "2", "--memory", "1", "--elements", "3", "--compute", "2", "--max-memory", "1KiB", "--"},
		{"swf", "--runtime", "0.05", "--procs", "4", "--scale", "0.5", "--mode", "sleep", "--walltime", "10"},
		{"smpi1", "--supersteps", "1", "--memory", "1", "--exchange", "0"},
	} {
		if r := run(t, nil, args...); r.err != nil || r.sum["ok"] != true {
			t.Errorf("%v: %v, summary %v", args, r.err, r.sum)
		}
	}
}

func TestHelp(t *testing.T) {
	for _, name := range append(Names(), "smpi1") {
		r := run(t, nil, name, "--help")
		if r.err != nil || !strings.Contains(r.stdout, "usage: gmark app ") || !strings.Contains(r.stdout, "--walltime") {
			t.Errorf("%s --help: %v\n%s", name, r.err, r.stdout)
		}
	}
	r := run(t, nil, "--help")
	for _, name := range Names() {
		if !strings.Contains(r.stdout, name) {
			t.Errorf("overview does not list %s", name)
		}
	}
}

// TestSuperstepsScale: doubling N doubles the supersteps done, the step
// records and the element updates.
func TestSuperstepsScale(t *testing.T) {
	var prev map[string]any
	for _, n := range []int{3, 6, 12} {
		r := run(t, nil, "sser", "--quiet", "--supersteps", fmt.Sprint(n), "--memory", "2", "--elements", "4", "--compute", "3")
		if r.err != nil {
			t.Fatal(r.err)
		}
		steps := records(t, r.stdout, "step")
		if num(r.sum, "supersteps") != int64(n) || len(steps) != n {
			t.Errorf("N=%d: summary says %v supersteps, %d step records", n, r.sum["supersteps"], len(steps))
		}
		for i, rec := range steps {
			if got, _ := rec.Int("step"); got != int64(i+1) {
				t.Errorf("N=%d: record %d has step=%d", n, i, got)
			}
			if got, _ := rec.Int("updates"); got != 2*1000*4*3 {
				t.Errorf("N=%d: record %d has updates=%d", n, i, got)
			}
		}
		if prev != nil && num(r.sum, "element_updates") != 2*num(prev, "element_updates") {
			t.Errorf("N=%d: %v updates, not twice %v", n, r.sum["element_updates"], prev["element_updates"])
		}
		prev = r.sum
	}
}

// TestElementUpdatesScale: the updates are exactly N × M×1000 × S × C,
// whatever the memory cap.
func TestElementUpdatesScale(t *testing.T) {
	cases := []struct{ n, m, s, c int64 }{
		{1, 1, 3, 2}, {1, 2, 3, 2}, {1, 2, 6, 2}, {1, 2, 6, 4}, {2, 10, 100, 2},
	}
	for _, c := range cases {
		for _, capArg := range []string{"128MiB", "64KiB"} {
			r := run(t, nil, "sser", "--quiet", "--supersteps", fmt.Sprint(c.n), "--memory", fmt.Sprint(c.m),
				"--elements", fmt.Sprint(c.s), "--compute", fmt.Sprint(c.c), "--max-memory", capArg)
			want := c.n * c.m * 1000 * c.s * c.c
			if r.err != nil || num(r.sum, "element_updates") != want {
				t.Errorf("%+v cap %s: %v, %v updates, want %d", c, capArg, r.err, r.sum["element_updates"], want)
			}
			if capArg == "64KiB" && num(r.sum, "memory_bytes") > 64<<10 && c.s*8 <= 64<<10 {
				t.Errorf("%+v: %v bytes allocated over a 64KiB cap", c, r.sum["memory_bytes"])
			}
		}
	}
	// The same run twice gives the same checksum: the work is deterministic.
	a := run(t, nil, "sser", "--quiet", "--supersteps", "2", "--memory", "1")
	b := run(t, nil, "sser", "--quiet", "--supersteps", "2", "--memory", "1")
	if a.sum["checksum"] != b.sum["checksum"] || a.sum["checksum"] == 0.0 {
		t.Errorf("checksums %v and %v", a.sum["checksum"], b.sum["checksum"])
	}
}

func TestSserioFiles(t *testing.T) {
	dir := t.TempDir()
	env := map[string]string{"GMARK_JOB_ID": "u1-j7"}
	args := []string{"sserio", "--quiet", "--workdir", dir, "--supersteps", "2", "--memory", "1",
		"--input1", "16", "--input2", "0", "--output1", "32", "--output2", "0", "--output3", "5"}
	r := run(t, env, args...)
	if r.err != nil {
		t.Fatal(r.err)
	}
	sizes := map[string]int64{
		"gmark-input1-16KB.dat": 16 * 1024,
		"u1-j7.sserio-out1":     32 * 1024,
		"u1-j7.sserio-out3":     5 * 1024,
	}
	for name, want := range sizes {
		st, err := os.Stat(filepath.Join(dir, name))
		if err != nil || st.Size() != want {
			t.Errorf("%s: %v, size %d, want %d", name, err, sizeOf(st), want)
		}
	}
	for _, absent := range []string{"gmark-input2-0KB.dat", "u1-j7.sserio-out2"} {
		if _, err := os.Stat(filepath.Join(dir, absent)); err == nil {
			t.Errorf("%s exists for a size of 0", absent)
		}
	}
	if num(r.sum, "bytes_read") != 16*1024 || num(r.sum, "bytes_staged") != 16*1024 ||
		num(r.sum, "bytes_written") != 37*1024 || num(r.sum, "files_read") != 1 || num(r.sum, "files_written") != 2 {
		t.Errorf("first run: %v", r.sum)
	}
	// The second run finds the input staged, and reads it.
	r2 := run(t, env, args...)
	if r2.err != nil || num(r2.sum, "bytes_read") != 16*1024 || num(r2.sum, "bytes_staged") != 0 {
		t.Errorf("second run: %v %v", r2.err, r2.sum)
	}
	// The input is really read: its content changes the result.
	os.WriteFile(filepath.Join(dir, "gmark-input1-16KB.dat"), bytes.Repeat([]byte{7}, 16*1024), 0o644)
	r3 := run(t, env, args...)
	if r3.err != nil || r3.sum["checksum"] == r2.sum["checksum"] {
		t.Errorf("a different input gives the same checksum %v", r3.sum["checksum"])
	}
	// An input of the wrong size is an I/O failure.
	os.WriteFile(filepath.Join(dir, "gmark-input1-16KB.dat"), []byte("short"), 0o644)
	r4 := run(t, env, args...)
	var f *Failure
	if !errors.As(r4.err, &f) || f.Reason != "io" || r4.sum["reason"] != "io" || !strings.Contains(r4.err.Error(), "--input1") {
		t.Errorf("wrong-size input: %v, summary %v", r4.err, r4.sum)
	}
	// Several processes of one job write distinct outputs.
	os.Remove(filepath.Join(dir, "gmark-input1-16KB.dat"))
	r5 := run(t, map[string]string{"GMARK_JOB_ID": "j", "GMARK_RANK": "1", "GMARK_SIZE": "2"}, args...)
	if _, err := os.Stat(filepath.Join(dir, "j.r1.sserio-out1")); r5.err != nil || err != nil {
		t.Errorf("rank 1 of 2: %v %v", r5.err, err)
	}
}

func sizeOf(st os.FileInfo) int64 {
	if st == nil {
		return -1
	}
	return st.Size()
}

func TestLunarScalesWithDimension(t *testing.T) {
	var prev int64
	for dim := 4; dim <= 11; dim++ {
		var c lunar.Counts
		lunar.Explore(dim, 1, &c, nil)
		for _, flavour := range []string{"normal", "large"} {
			r := run(t, nil, "lunar", "--quiet", "--dimension", fmt.Sprint(dim), "--flavour", flavour)
			if r.err != nil {
				t.Fatal(r.err)
			}
			states := num(r.sum, "states_explored")
			if states != c.States.Load() || num(r.sum, "interesting_found") != c.Interesting.Load() {
				t.Errorf("S=%d %s: %v", dim, flavour, r.sum)
			}
			if states <= prev {
				t.Errorf("S=%d explores %d states, not more than S=%d's %d", dim, states, dim-1, prev)
			}
			counters := records(t, r.stdout, "counter")
			last := counters[len(counters)-1]
			if n, _ := last.Int("app.states_explored"); n != states {
				t.Errorf("S=%d: final counter %d, summary %d", dim, n, states)
			}
			if n, _ := last.Int("service.interesting_found"); n != num(r.sum, "interesting_found") {
				t.Errorf("S=%d: final interesting counter %d", dim, n)
			}
			if last.Fields["final"] != "1" {
				t.Errorf("S=%d: last counter is not final: %v", dim, last.Fields)
			}
		}
		prev = c.States.Load()
	}
	// Known: 92 solutions, 12 of them canonical, for S=8.
	r := run(t, nil, "lunar", "--quiet")
	if num(r.sum, "solutions") != 92 || num(r.sum, "interesting_found") != 12 {
		t.Errorf("S=8: %v", r.sum)
	}
}

func TestLunarReportsWhileRunning(t *testing.T) {
	r := run(t, nil, "lunar", "--quiet", "--dimension", "14", "--report-interval", "20ms")
	if r.err != nil {
		t.Fatal(r.err)
	}
	counters := records(t, r.stdout, "counter")
	if len(counters) < 2 {
		t.Skipf("the machine explored S=14 in under one report interval (%d records)", len(counters))
	}
	var prev int64 = -1
	for _, c := range counters {
		n, _ := c.Int("app.states_explored")
		if n < prev {
			t.Errorf("counter went down: %d after %d", n, prev)
		}
		prev = n
	}
}

func TestSwfHoldsForScaledRuntime(t *testing.T) {
	cases := []struct {
		runtime, scale, mode string
		hold                 time.Duration
	}{
		{"100", "0.01", "sleep", time.Second},
		{"30", "0.01", "cpu", 300 * time.Millisecond},
	}
	for _, c := range cases {
		start := time.Now()
		r := run(t, nil, "swf", "--quiet", "--runtime", c.runtime, "--scale", c.scale, "--mode", c.mode, "--procs", "8")
		took := time.Since(start)
		if r.err != nil {
			t.Fatal(r.err)
		}
		// A lower bound only: it must not return before its scaled run time.
		if took < c.hold {
			t.Errorf("%+v returned after %v", c, took)
		}
		if got := r.sum["hold_s"].(float64); got != c.hold.Seconds() {
			t.Errorf("%+v: hold_s %v", c, got)
		}
		if num(r.sum, "procs") != 8 {
			t.Errorf("%+v: procs %v", c, r.sum["procs"])
		}
		if c.mode == "cpu" && (num(r.sum, "spin_ops") <= 0 || r.sum["cpu_s"].(float64) <= 0) {
			t.Errorf("cpu mode did not use the CPU: %v", r.sum)
		}
	}
}

func TestWalltime(t *testing.T) {
	cases := [][]string{
		{"sser", "--supersteps", "100", "--memory", "10", "--compute", "1000"},
		{"sserio", "--supersteps", "100", "--memory", "10", "--compute", "1000", "--input1", "0", "--input2", "0"},
		{"smpi", "--supersteps", "100", "--memory", "10", "--compute", "1000"},
		{"lunar", "--dimension", "20"},
		{"swf", "--runtime", "100"},
		{"swf", "--runtime", "100", "--mode", "cpu"},
	}
	for _, args := range cases {
		args = append(args, "--walltime", "200ms", "--quiet", "--workdir", t.TempDir())
		r := run(t, nil, args...)
		var f *Failure
		if !errors.As(r.err, &f) || f.Reason != "walltime" || ExitCode(r.err) != 1 {
			t.Errorf("%v: %v", args, r.err)
			continue
		}
		if r.sum["ok"] != false || r.sum["reason"] != "walltime" || !strings.Contains(r.sum["error"].(string), "walltime of 200ms") {
			t.Errorf("%v: summary %v", args, r.sum)
		}
	}
}

func TestInterrupted(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(100*time.Millisecond, cancel)
	var out bytes.Buffer
	err := Main(ctx, []string{"swf", "--runtime", "100", "--quiet"}, &out, &out, func(string) string { return "" })
	s, perr := output.ParseSummary(out.Bytes())
	var f *Failure
	if !errors.As(err, &f) || f.Reason != "interrupted" || perr != nil || s["reason"] != "interrupted" {
		t.Fatalf("%v %v %v", err, perr, s)
	}
}

// TestOneSummaryLast: every application ends its output with exactly one
// JSON line, and everything else is a record line.
func TestOneSummaryLast(t *testing.T) {
	dir := t.TempDir()
	for _, args := range [][]string{
		{"sser", "--supersteps", "2", "--memory", "1"},
		{"sserio", "--supersteps", "2", "--memory", "1", "--workdir", dir},
		{"smpi", "--supersteps", "2", "--memory", "1"},
		{"lunar", "--dimension", "6"},
		{"swf", "--runtime", "0.01"},
		{"hello"},
	} {
		r := run(t, map[string]string{"GMARK_JOB_ID": "j1"}, args...)
		lines := strings.Split(strings.TrimSuffix(r.stdout, "\n"), "\n")
		for i, line := range lines {
			isJSON := strings.HasPrefix(line, "{")
			if isJSON != (i == len(lines)-1) {
				t.Errorf("%v: line %d: %q", args, i, line)
			}
			if !isJSON {
				if _, ok, err := output.ParseRecord(line); !ok || err != nil {
					t.Errorf("%v: not a record line: %q (%v)", args, line, err)
				}
			}
		}
		if r.sum["v"] != 1.0 || r.sum["app"] != args[0] || r.sum["ok"] != true || r.sum["job_id"] != "j1" {
			t.Errorf("%v: summary %v", args, r.sum)
		}
		for _, k := range []string{"rank", "size", "component", "elapsed_s", "cpu_s", "max_rss_kb"} {
			if _, ok := r.sum[k]; !ok {
				t.Errorf("%v: summary has no %s", args, k)
			}
		}
	}
}

// BenchmarkSser measures a default-sized sser superstep end to end
// (M=100, S=10, C=10: 10 million updates).
func BenchmarkSser(b *testing.B) {
	for b.Loop() {
		var out bytes.Buffer
		if err := Main(context.Background(), []string{"sser", "--quiet", "--supersteps", "1"}, &out, &out, func(string) string { return "" }); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/1e7, "ns/update")
}

// TestSMPIWaitsBoundedForPeers: a process whose peers never come gives up
// at the rendezvous timeout, or at the walltime when that comes first.
func TestSMPIWaitsBoundedForPeers(t *testing.T) {
	env := map[string]string{"GMARK_JOB_ID": "lonely", "GMARK_RANK": "0", "GMARK_SIZE": "2"}
	cases := []struct {
		flags  []string
		reason string
	}{
		{[]string{"--rendezvous-timeout", "200ms"}, "rendezvous"},
		{[]string{"--walltime", "200ms"}, "walltime"},
	}
	for _, c := range cases {
		dir := t.TempDir()
		r := run(t, env, append([]string{"smpi", "--quiet", "--workdir", dir}, c.flags...)...)
		var f *Failure
		if !errors.As(r.err, &f) || f.Reason != c.reason || r.sum["reason"] != c.reason {
			t.Errorf("%v: %v, summary %v", c.flags, r.err, r.sum)
		}
		if left, _ := filepath.Glob(filepath.Join(dir, ".gmark-rendezvous-*")); len(left) != 0 {
			t.Errorf("%v: rendezvous file left behind: %v", c.flags, left)
		}
	}
}
