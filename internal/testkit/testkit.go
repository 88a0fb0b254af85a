// Package testkit holds the helpers that tests of several packages share,
// so that each exists once: where the shared traces are, and how a test
// writes a workload directory.
package testkit

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gmark/gmark/stats"
	"github.com/gmark/gmark/workload"
)

// RepoRoot is the module's root: the nearest directory above the working
// directory (a test's is its package's) that holds go.mod.
func RepoRoot(t testing.TB) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatal("no go.mod above the working directory")
		}
		dir = parent
	}
}

// Shared is the path of a file of ../shared, beside the repository (the
// real traces live there, not in the repository); the test is skipped,
// saying so, when it is not there.
func Shared(t testing.TB, elem ...string) string {
	t.Helper()
	p := filepath.Join(append([]string{RepoRoot(t), "..", "shared"}, elem...)...)
	if _, err := os.Stat(p); err != nil {
		t.Skipf("%s is not there (../shared/ lives beside the repository): %v", p, err)
	}
	return p
}

// LCG is the path of the LCG grid trace, ../shared/traces/LCG.swf.gz.
func LCG(t testing.TB) string {
	t.Helper()
	return Shared(t, "traces", "LCG.swf.gz")
}

// WriteWorkload writes jobs, each checked by Job.Validate, as a workload
// directory (workload.WriteDir, with a manifest) and returns its path.
func WriteWorkload(t testing.TB, jobs ...workload.Job) string {
	t.Helper()
	for i := range jobs {
		if err := jobs[i].Validate(); err != nil {
			t.Fatal(err)
		}
	}
	dir := filepath.Join(t.TempDir(), "workload")
	m := &workload.Manifest{GmarkVersion: "test", Spec: workload.FileDigest{Path: "test.wdl", SHA256: "00"}, Seed: 42}
	if err := workload.WriteDir(dir, jobs, m, false); err != nil {
		t.Fatal(err)
	}
	return dir
}

// SyntheticSWF is an SWF trace of n jobs drawn from seed: run times
// 2^W(2.5, 9) s rounded (every 100th 0), sizes 1-4, inter-arrival times
// 2^W(4.25, 7.86) s, three users, no memory recorded. Fit and trace tests
// read it where the LCG trace is too large or may be missing.
func SyntheticSWF(n int, seed uint64) string {
	r := stats.NewStream(seed, 0, "synthetic")
	rt := stats.Pow2{Of: stats.Weibull{Shape: 2.5, Scale: 9}}
	iat := stats.Pow2{Of: stats.Weibull{Shape: 4.25, Scale: 7.86}}
	var b strings.Builder
	b.WriteString("; Version: 2.2\n; UnixStartTime: 1200000000\n; TimeZoneString: UTC\n; MaxProcs: 64\n")
	s := 0.0
	for k := 1; k <= n; k++ {
		run := math.Round(rt.Rand(r))
		if k%100 == 0 {
			run = 0
		}
		fmt.Fprintf(&b, "%d %.3f 5 %g %d -1 -1 %d 3600 -1 1 %d 1 -1 -1 1 -1 -1\n", k, s, run, 1+k%4, 1+k%4, 1+k%3)
		s += iat.Rand(r)
	}
	return b.String()
}

// WindowSWF is a hand-made SWF trace of a system of 8 processors, for the
// tests of a replayed window [100, 500) (analyzer/fidelity, gmark report
// --fidelity). Columns: id, submit, wait, run, size.
//
//	1:   0 +   0, runs   0–400 on 2: in flight when the window [100, 500) opens
//	2: 100 +   0, runs 100–200 on 1
//	3: 150 +  50, runs 200–250 on 1
//	4: 200 + 100, runs 300–500 on 2
//	5: 300 +   0, runs 300–320 on 1
//	6: 500 +   0: after the window
const WindowSWF = `; Version: 2.2
; MaxProcs: 8
1 0 0 400 2 -1 -1 2 -1 -1 1 1 1 -1 -1 1 -1 -1
2 100 0 100 1 -1 -1 1 -1 -1 1 1 1 -1 -1 1 -1 -1
3 150 50 50 1 -1 -1 1 -1 -1 1 1 1 -1 -1 1 -1 -1
4 200 100 200 2 -1 -1 2 -1 -1 1 1 1 -1 -1 1 -1 -1
5 300 0 20 1 -1 -1 1 -1 -1 1 1 1 -1 -1 1 -1 -1
6 500 0 10 1 -1 -1 1 -1 -1 1 1 1 -1 -1 1 -1 -1
`
