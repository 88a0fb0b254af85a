package wdl

import (
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gmark/gmark/internal/heappeak"
	"github.com/gmark/gmark/stats"
)

// Every number of the WDL is checked against its documented range where it is
// written (docs/wdl.md#limits), before anything of its size is allocated:
// NSites=10000000 took 1.7 GB before it was rejected.
func TestNumbersOutOfRange(t *testing.T) {
	long := strings.Repeat("*:1,", MaxComponents) + "*:1"
	cases := []struct {
		name, line string
		want       string // the first error, from its position on
	}{
		{"NSites", "5\tsmpi\tunordered\t?\t*:1\tPoisson(60s)\tNSites=10000000",
			"w.wdl:1:44: NSites must be a whole number from 1 to 1024, got 10000000"},
		{"NSites beyond int32", "5\tsmpi\tunordered\t?\t*:1\tPoisson(60s)\tNSites=99999999999",
			`w.wdl:1:44: NSites: "99999999999" is too large: whole numbers here are at most 2147483647`},
		{"NTimes", "1000000001\tsser\tsingle\t1\t*:?\tZero",
			"w.wdl:1:1: the number of jobs \"1000000001\" must be a whole number from 0 to 1000000000"},
		{"NTimes beyond int64", "99999999999999999999\tsser\tsingle\t1\t*:?\tZero",
			"w.wdl:1:1: the number of jobs"},
		{"unit ID", "1000000000\tunitary\t1\tsser\tsingle\t1\t*:?\tZero\t-",
			"w.wdl:1:1: unit ID \"1000000000\" must be a whole number from 0 to 999999999"},
		{"Total", "5\tsser\tsingle\t16777217\t*:?\tZero",
			"w.wdl:1:15: Total \"16777217\" must be a whole number from 1 to 16777216, or ?"},
		{"SiteInfo amount", "5\tsser\tordered\t?\tfs1:16777217\tZero",
			"w.wdl:1:22: SiteInfo amount \"16777217\" must be a whole number from 1 to 16777216, or ?"},
		{"SiteInfo amounts add up", "5\tsser\tordered\t?\tfs1:16777216,fs2:1\tZero",
			"w.wdl:1:16: the SiteInfo amounts add up to 16777217 processors; a job has at most 16777216"},
		{"SiteInfo entries", "5\tsser\tunordered\t?\t" + long + "\tZero",
			"a job may have"},
		{"NComponentsWithWeights", "5\tsmpi\tsingle\t1\t*:?\tZero\tNComponentsWithWeights=1;2000",
			"w.wdl:1:51: NComponentsWithWeights: \"2000\" must be a whole number from 1 to 1024"},
		{"TotalCPUsWithWeights", "5\tsmpi\tsingle\t1\t*:?\tZero\tTotalCPUsWithWeights=99999999",
			"w.wdl:1:47: TotalCPUsWithWeights: \"99999999\" must be a whole number from 1 to 16777216"},
		{"NJobs", "5\tchain\tsingle\t1\t*:?\tZero\tNJobs=1-200000",
			"w.wdl:1:33: NJobs must be a range of whole numbers from 1 to 100000, got 1-200000"},
		{"StartAt", "5\tsser\tsingle\t1\t*:?\tZero\tStartAt=40000d",
			"w.wdl:1:34: StartAt: duration \"40000d\" is too long: durations are at most 3153600000 s (100 years)"},
		{"RunTimeInMinutes", "5\tsser\tsingle\t1\t*:?\tZero\tRunTimeInMinutes=1e12",
			"w.wdl:1:43: RunTimeInMinutes must be > 0 and at most 52560000 (100 years), got 1e+12"},
		{"weight", "5\tsmpi\tsingle\t1\t*:?\tZero\tNComponentsWithWeights=1/1e13",
			"w.wdl:1:49: NComponentsWithWeights: weight of \"1/1e13\" is above 1e+12, the largest weight"},
		{"arrival of infinite mean", "5\tsser\tsingle\t1\t*:?\tPareto(0.5,10s)",
			"w.wdl:1:21: Pareto(0.5,10) has no finite mean"},
		{"arrival beyond 100 years", "5\tsser\tsingle\t1\t*:?\tPow2(N(40,1))",
			"w.wdl:1:21: Pow2(N(40,1)) gives values above 3.154e+09 s (100 years)"},
		{"arrival far beyond", "5\tsser\tsingle\t1\t*:?\tC(1e300)",
			"w.wdl:1:21: C(1e+300) gives values above"},
		{"Poisson named as written", "5\tsser\tsingle\t1\t*:?\tPoisson(1e300s)",
			"w.wdl:1:21: Poisson(1e300s) (Exp(1e-300)) gives values above 3.154e+09 s (100 years)"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var err error
			bytes := heappeak.Allocated(func() { _, err = Parse("w.wdl", []byte(c.line+"\n"), memFS{}.open) })
			if err == nil {
				t.Fatal("accepted")
			}
			first := strings.SplitN(err.Error(), "\n", 2)[0]
			if !strings.Contains(first, c.want) || !positioned.MatchString(first) {
				t.Errorf("error\n  %s\nwant\n  %s", first, c.want)
			}
			if bytes > 16<<20 {
				t.Errorf("rejecting it allocated %d MB", bytes>>20)
			}
		})
	}
}

// The limits themselves are accepted: a range is inclusive.
func TestNumbersAtTheirLimits(t *testing.T) {
	lines := []string{
		"1000000000\tsser\tsingle\t1\t*:?\tZero",
		"999999999\tunitary\t0\tsser\tsingle\t16777216\t*:?\tZero\t-",
		"5\tsmpi\tunordered\t1024\t-\tZero\tNSites=1024",
		"5\tsser\tordered\t?\tfs1:16777215,fs2:1\tZero",
		"5\tsser\tsingle\t1\t*:?\tZero\tStartAt=36500d,RunTimeInMinutes=52560000",
		"5\tsmpi\tsingle\t1\t*:?\tZero\tNComponentsWithWeights=1/1e12;1024/0,TotalCPUsWithWeights=16777216",
		"5\tsser\tsingle\t1\t*:?\tU(5s,5s)",
	}
	for _, l := range lines {
		hdr := ""
		if strings.Count(l, "\t") == 8 {
			hdr = "# File-version: 1.1\n"
		}
		if _, err := Parse("w.wdl", []byte(hdr+l+"\n"), memFS{}.open); err != nil {
			t.Errorf("%q: %v", l, err)
		}
	}
}

// A file of more than MaxUnits units, or of more than MaxFileBytes, is
// refused with one error, and reading it allocates about its own size.
func TestFileLimits(t *testing.T) {
	var b strings.Builder
	for i := 0; i <= MaxUnits; i++ {
		b.WriteString("1\thello\tsingle\t1\t*:?\tZero\n")
	}
	_, err := Parse("w.wdl", []byte(b.String()), memFS{}.open)
	if err == nil || !strings.Contains(err.Error(), "w.wdl:10001:1: more than 10000 units") {
		t.Errorf("10001 units: %v", err)
	}

	dir := t.TempDir()
	big := filepath.Join(dir, "big.wdl")
	f, err := os.Create(big)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Truncate(MaxFileBytes + 1); err != nil {
		t.Fatal(err)
	}
	f.Close()
	var perr error
	bytes := heappeak.Allocated(func() { _, perr = ParseFile(big) })
	if perr == nil || !strings.Contains(perr.Error(), "larger than 16 MiB") {
		t.Errorf("a 16 MiB + 1 file: %v", perr)
	}
	if bytes > 2*MaxFileBytes+(8<<20) {
		t.Errorf("reading it allocated %d MB", bytes>>20)
	}
	if _, err := Parse("w.wdl", make([]byte, MaxFileBytes+1), memFS{}.open); err == nil || !strings.Contains(err.Error(), "w.wdl:1:1: the file is larger than 16 MiB") {
		t.Errorf("Parse of 16 MiB + 1: %v", err)
	}
}

// ExternalFile= of a device that never ends (/dev/zero) is refused by its
// kind, before anything is read, instead of filling the memory.
func TestExternalFileDevice(t *testing.T) {
	if _, err := os.Stat("/dev/zero"); err != nil {
		t.Skip("no /dev/zero")
	}
	dir := t.TempDir()
	spec := filepath.Join(dir, "w.wdl")
	if err := os.WriteFile(spec, []byte("5\tsser\tsingle\t1\t*:?\tZero\tExternalFile=/dev/zero\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := ParseFile(spec)
	if err == nil || !strings.Contains(err.Error(), "w.wdl:1:39: ExternalFile /dev/zero: a character device, not a regular file") {
		t.Errorf("ExternalFile=/dev/zero: %v", err)
	}
}

// An error quotes at most a short, printable excerpt of what it read: an
// unrelated file named by ExternalFile= (a password file, a binary without
// NUL bytes) is not echoed line by line.
func TestErrorsQuoteShortExcerpts(t *testing.T) {
	passwd := "root:x:0:0:root:/root:/bin/bash\ndaemon:x:1:1:daemon:/usr/sbin:/usr/sbin/nologin\n" +
		"secret-user:x:1000:1000:Secret User,,,:/home/secret-user:/bin/bash\n"
	control := "\x1b[2J\x07\x1b]0;pwned\x07 and the rest of a long line of escape codes\r\n"
	cases := []struct {
		name, ext string
		want      string
	}{
		{"passwd", passwd, `e.xin:1:1: this is not a Key=Value extension file: line 1 starts "root:x:0:0:root:/root:/b…"`},
		{"control bytes", control, `e.xin:1:1: this is not a Key=Value extension file: line 1 starts "�[2J��]0;pwned� and the …"`},
		{"invalid UTF-8", "\xff\xfe\xfdgarbage line that goes on and on and on\n", `line 1 starts "���garbage line that goe…"`},
		{"bad line after good ones", "A=1\n" + strings.Repeat("x", 200) + "\n", `e.xin:2:1: expected Key=Value, got "xxxxxxxxxxxxxxxxxxxxxxxx…"`},
		{"bad key", "A=1\n" + strings.Repeat("é", 100) + "=2\n", `e.xin:2:1: bad key "éééééééééééééééééééééééé…"`},
		{"key too long", "A=1\nA" + strings.Repeat("0", 48) + "=\n", `e.xin:2:1: bad key "A00000000000000000000000…": keys are letters, digits, '_', '-' and '.', start with a letter and have at most 48 characters`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := Parse("w.wdl", []byte("5\tsser\tsingle\t1\t*:?\tZero\tExternalFile=e.xin\n"), memFS{"e.xin": c.ext}.open)
			if err == nil {
				t.Fatal("accepted")
			}
			msg := err.Error()
			if !strings.Contains(msg, c.want) {
				t.Errorf("error\n  %s\nwant\n  %s", msg, c.want)
			}
			for _, line := range strings.Split(c.ext, "\n") {
				if len(line) > maxExcerpt && strings.Contains(msg, line) {
					t.Errorf("the error echoes a whole line: %q", line)
				}
			}
			if strings.ContainsAny(msg, "\x1b\x07\r") || strings.Count(msg, "\n") > 0 {
				t.Errorf("the error has control characters or several lines: %q", msg)
			}
		})
	}
}

func TestExcerpt(t *testing.T) {
	cases := []struct{ in, want string }{
		{"", ""},
		{"short", "short"},
		{strings.Repeat("a", maxExcerpt), strings.Repeat("a", maxExcerpt)},
		{strings.Repeat("a", maxExcerpt+1), strings.Repeat("a", maxExcerpt) + "…"},
		{"tab\there", "tab�here"},
		{"nul\x00", "nul�"},
		{"bad\xffutf8", "bad�utf8"},
		{"ünïcödé", "ünïcödé"},
	}
	for _, c := range cases {
		if got := Excerpt(c.in); got != c.want {
			t.Errorf("Excerpt(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

// Draw is a draw of the distribution truncated to the range: a value out of
// it is drawn again; NaN, or a hundred draws in a row out of it, an error.
func TestLimitDraw(t *testing.T) {
	r := stats.NewStream(1, 1, "draw")
	rare, err := stats.NewEmpirical([]float64{-1, 5, 1e12}, []float64{1, 100, 1})
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 1000; i++ {
		if v, err := RunTimes.Draw(rare, r); err != nil || v != 5 {
			t.Fatalf("draw %d: %g, %v", i, v, err)
		}
	}
	if v, err := InterArrivals.Draw(stats.Constant{Value: -1}, r); err != nil || v != -1 {
		t.Errorf("a negative inter-arrival time: %g, %v (the caller counts it as 0)", v, err)
	}
	for _, c := range []struct {
		d    stats.Distribution
		want string
	}{
		{stats.Constant{Value: math.NaN()}, "C(NaN) drew NaN, not a number"},
		{stats.Constant{Value: -1}, "100 draws in a row of C(-1) were out of range, the last: a run time of -1 s is out of range"},
		{stats.Constant{Value: math.Inf(1)}, "100 draws in a row of C(+Inf) were out of range"},
	} {
		if _, err := RunTimes.Draw(c.d, r); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want %q", c.d, err, c.want)
		}
	}
}

// Limit is the one conversion of a float to a Duration or an int: NaN,
// infinities and values out of range are errors, never a wrapped int64.
func TestLimitConversions(t *testing.T) {
	durations := []struct {
		in   float64
		want time.Duration
		err  string
	}{
		{0, 0, ""},
		{0.0004, 0, ""},
		{1.2345, 1235 * time.Millisecond, ""},
		{MaxSeconds, MaxDuration, ""},
		{MaxSeconds + 1, 0, "a run time of 3.154e+09 s (100 years) is out of range: it must be from 0 s to 3.154e+09 s (100 years)"},
		{1e300, 0, "out of range"},
		{math.Inf(1), 0, "a run time of +Inf s is out of range"},
		{math.Inf(-1), 0, "out of range"},
		{-1, 0, "a run time of -1 s is out of range"},
		{math.NaN(), 0, "a run time is not a number (NaN)"},
	}
	for _, c := range durations {
		got, err := RunTimes.Duration(c.in)
		if c.err == "" && (err != nil || got != c.want) || c.err != "" && (err == nil || !strings.Contains(err.Error(), c.err)) {
			t.Errorf("RunTimes.Duration(%g) = %v, %v; want %v, %q", c.in, got, err, c.want, c.err)
		}
	}
	// Negative inter-arrival times are allowed by the limit (they count as
	// 0), but a Duration is never negative.
	if _, err := InterArrivals.Duration(-1); err == nil {
		t.Error("InterArrivals.Duration(-1) accepted")
	}
	size := Limit{What: "a size", Min: 1, Max: 100}
	ints := []struct {
		in   float64
		want int
		ok   bool
	}{{1, 1, true}, {1.4, 1, true}, {99.5, 100, true}, {100, 100, true}, {100.5, 0, false}, {0.5, 0, false}, {math.NaN(), 0, false}, {math.Inf(1), 0, false}}
	for _, c := range ints {
		got, err := size.Int(c.in)
		if (err == nil) != c.ok || got != c.want {
			t.Errorf("Int(%g) = %d, %v; want %d, ok %v", c.in, got, err, c.want, c.ok)
		}
	}
}

// CheckDist rejects, before any draw, the distributions whose draws overflow
// or go negative: RunTime=LogNorm(1000,1000) gave 0 s jobs, Pareto(0.5,10s)
// and Pow2(N(40,1)) negative run times.
func TestCheckDist(t *testing.T) {
	cases := []struct {
		dist string
		lim  Limit
		want string // "" when it passes
	}{
		{"LogNorm(1000,1000)", RunTimes, "LogNorm(1000,1000) has no finite mean"},
		{"Pareto(0.5,10s)", RunTimes, "Pareto(0.5,10) has no finite mean, so its draws grow without bound and one passes 3.154e+09 s (100 years) sooner or later; as a run time give it a lighter tail"},
		{"Pow2(N(40,1))", RunTimes, "Pow2(N(40,1)) gives values above 3.154e+09 s (100 years) (its 99.99th percentile is 1.448e+13 s (4.59e+05 years)); as a run time it must stay from 0 s to 3.154e+09 s (100 years): lower its scale"},
		{"U(1e308s,1.7e308s)", RunTimes, "U(1e+308,1.7e+308) gives values above 3.154e+09 s (100 years) (its 99.99th percentile is 1.7e+308 s"}, // not "no finite mean": its bounds' sum overflows, its mean does not
		{"N(60s,30s)", RunTimes, "N(60,30) gives values below 0 s (with probability 0.023); as a run time it must stay from 0 s to 3.154e+09 s (100 years)"},
		{"Emp(-5s/1;10s/1)", RunTimes, "gives values below 0 s (with probability 0.5)"},
		{"Exp(1e-12)", RunTimes, "gives values above"},
		{"W(0.001,1)", RunTimes, "has no finite mean"},
		{"N(60s,30s)", InterArrivals, ""},
		{"N(3600,60)", RunTimes, ""},
		{"U(5s,5s)", RunTimes, ""},
		{"Zero", RunTimes, ""},
		{"C(100y)", RunTimes, "not a duration"},
		{"C(36500d)", RunTimes, ""},
		{"Pareto(1.5,10s)", RunTimes, ""},
		{"Pow2(W(4.25,7.86))", InterArrivals, ""},
		{"LogNorm(4,1)", RunTimes, ""},
		{"HGamma2(0.78,4.2,0.94,312,0.03)", RunTimes, ""},
	}
	for _, c := range cases {
		d, err := ParseDistribution(c.dist)
		if err == nil {
			err = c.lim.CheckDist(d)
		}
		if c.want == "" && err != nil || c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)) {
			t.Errorf("%s as %s: %v\nwant %q", c.dist, c.lim.What, err, c.want)
		}
	}
	// The weights of an empirical distribution decide: a huge value with
	// probability 1e-5 passes (Draw draws again when it comes), with 1e-3
	// it does not.
	for _, c := range []struct {
		w    float64
		pass bool
	}{{1e5, true}, {1e3, false}} {
		d, err := stats.NewEmpirical([]float64{1, 1e12}, []float64{c.w, 1})
		if err != nil {
			t.Fatal(err)
		}
		if err := RunTimes.CheckDist(d); (err == nil) != c.pass {
			t.Errorf("Emp(1/%g;1e12/1): %v", c.w, err)
		}
	}
}

func TestReadFileErrors(t *testing.T) {
	if _, err := ReadFile(filepath.Join(t.TempDir(), "none")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing file: %v", err)
	}
	if _, err := ReadFile(t.TempDir()); err == nil {
		t.Error("a directory read as a file")
	}
}

// The size of the text bounds what it makes: a 16 MiB list of 8 million
// items took 1.3 GB and 14 s, a line of 4 million Key=Value pairs as much in
// warnings. Lists, pairs, warnings and the bytes of all included files have
// their own limits, checked before the work.
func TestTextLimits(t *testing.T) {
	items := strings.Repeat("1;", MaxListItems) + "1"
	pairs := strings.Repeat("a=1,", MaxPairs) + "a=1"
	cases := []struct{ name, line, want string }{
		{"weighted list", "5\tsmpi\tsingle\t1\t*:?\tZero\tNComponentsWithWeights=" + items, "w.wdl:1:49: NComponentsWithWeights: the list has 100001 items; a list has at most 100000"},
		{"empirical distribution", "5\tsser\tsingle\t1\t*:?\tEmp(" + items + ")", "Emp: the list has 100001 items"},
		{"pairs", "5\tsser\tsingle\t1\t*:?\tZero\t" + pairs, "w.wdl:1:40026: more than 10000 Key=Value pairs"},
	}
	for _, c := range cases {
		var err error
		bytes := heappeak.Allocated(func() { _, err = Parse("w.wdl", []byte(c.line+"\n"), memFS{}.open) })
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v\nwant %s", c.name, err, c.want)
		}
		if bytes > 16<<20 {
			t.Errorf("%s: refusing it allocated %d MB", c.name, bytes>>20)
		}
	}

	// A line of a million nested Pow2( overflowed the stack (a fatal error,
	// not even a panic); a million fields or parameters were all split out
	// before the count was checked.
	deep := strings.Repeat("Pow2(", 1_000_000) + "Zero" + strings.Repeat(")", 1_000_000)
	more := []struct{ name, line, want string }{
		{"nested Pow2", "5\tsser\tsingle\t1\t*:?\t" + deep, "w.wdl:1:61: Pow2: Pow2: Pow2: Pow2: Pow2: Pow2: Pow2: Pow2: Pow2 nests more than 8 deep"},
		{"fields", strings.Repeat("5 ", 1_000_000), "w.wdl:1:15: this line has more than 9 columns"},
		{"parameters", "5\tsser\tsingle\t1\t*:?\tC(" + strings.Repeat("1,", 1_000_000) + "1)", "w.wdl:1:25: C takes 1 parameter(s): C(a)"},
		{"SiteInfo", "5\tsser\tunordered\t?\t" + strings.Repeat("*:1,", 1_000_000) + "*:1\tZero", "SiteInfo has more than 1024 entries"},
	}
	for _, c := range more {
		var err error
		bytes := heappeak.Allocated(func() { _, err = Parse("w.wdl", []byte(c.line+"\n"), memFS{}.open) })
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %.300v\nwant %s", c.name, err, c.want)
		}
		if bytes > 64<<20 {
			t.Errorf("%s: refusing it allocated %d MB", c.name, bytes>>20)
		}
	}
	empty := strings.Repeat("\n", 4_000_000)
	if bytes := heappeak.Allocated(func() { Parse("w.wdl", []byte(empty), memFS{}.open) }); bytes > 64<<20 {
		t.Errorf("4 million empty lines: %d MB", bytes>>20)
	}

	// A chain of extension files, each including the next: 16 deep at most.
	chain := func(path string) ([]byte, error) {
		var n int
		fmt.Sscanf(path, "e%d.xin", &n)
		return []byte(fmt.Sprintf("A%d=1\nExternalFile=e%d.xin\n", n, n+1)), nil
	}
	_, err := Parse("w.wdl", []byte("5\tsser\tsingle\t1\t*:?\tZero\tExternalFile=e0.xin\n"), chain)
	if err == nil || !strings.Contains(err.Error(), "e15.xin:2:14: ExternalFile e16.xin: extension files nest more than 16 deep") {
		t.Errorf("a chain of includes: %v", err)
	}

	// One key defined 5000 times: the warnings stop at MaxWarnings.
	spec, err := Parse("w.wdl", []byte("5\tsser\tsingle\t1\t*:?\tZero\t"+strings.Repeat("a=1,", 5000)+"a=1\n"), memFS{}.open)
	if err != nil || len(spec.Warnings) != MaxWarnings {
		t.Errorf("%v, %d warnings; want %d", err, len(spec.Warnings), MaxWarnings)
	}

	// Seven units naming seven different files of 10 MiB: past 64 MiB in all.
	big := []byte("# " + strings.Repeat("x", 10<<20) + "\n")
	open := func(string) ([]byte, error) { return big, nil }
	var src strings.Builder
	for i := 0; i < 7; i++ {
		src.WriteString("5\tsser\tsingle\t1\t*:?\tZero\tExternalFile=f" + string(rune('0'+i)) + ".xin\n")
	}
	_, err = Parse("w.wdl", []byte(src.String()), open)
	if err == nil || !strings.Contains(err.Error(), "w.wdl:7:39: ExternalFile f6.xin: the spec and the files it names hold more than 64 MiB") {
		t.Errorf("seven files of 10 MiB: %v", err)
	}
	// The same file named by every unit is read once.
	reads := 0
	once := func(string) ([]byte, error) { reads++; return big, nil }
	var same strings.Builder
	for i := 0; i < 20; i++ {
		same.WriteString("5\tsser\tsingle\t1\t*:?\tZero\tExternalFile=f.xin,RunTime=Fit(f.xin,r)\n")
	}
	Parse("w.wdl", []byte(same.String()), once)
	if reads != 1 {
		t.Errorf("one file named by 20 units read %d times", reads)
	}
}
