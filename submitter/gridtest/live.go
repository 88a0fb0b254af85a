package gridtest

import (
	"bufio"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gmark/gmark/analyzer/store"
	"github.com/gmark/gmark/record"
	"github.com/gmark/gmark/workload"
)

// What the live tests of the grid targets (arc, gram) share: running the
// real gmark, reading a run's rows, comparing a run through the middleware
// with the Slurm target's, reading the summary lines the jobs print, and a
// bound on how many of a package's tests run their daemons at once.

// RunGmark runs the real gmark in dir and fails the test on an exit other
// than 0; it returns what gmark printed.
func RunGmark(t testing.TB, bin, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command(bin, args...)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("gmark %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

// RowsOf reads the jobs of the only run of a store: the run's id and its
// rows by job id.
func RowsOf(t testing.TB, db string) (string, map[string]store.Job) {
	t.Helper()
	st, err := store.OpenReadOnly(db)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	runs, err := st.Runs()
	if err != nil || len(runs) != 1 {
		t.Fatalf("%s: runs %v %v", db, runs, err)
	}
	list, err := st.Jobs(runs[0].ID)
	if err != nil {
		t.Fatal(err)
	}
	rows := map[string]store.Job{}
	for _, r := range list {
		rows[r.JobID] = r
	}
	return runs[0].ID, rows
}

// SameRecords compares a run's rows with the Slurm target's run of the
// same workload but for what the target decides: ids, times, and the
// clusters of components that name none (the Slurm target sends a job's
// unnamed components to one cluster, the CE targets to the CEs in turn).
func SameRecords(t testing.TB, what string, got, want map[string]store.Job) {
	t.Helper()
	if len(got) != len(want) {
		t.Errorf("%s: %d rows, the Slurm target's run %d", what, len(got), len(want))
	}
	type fields struct {
		Parent, Kind, Type, App, SiteType, Components, State string
		Processors, Attempts                                 int
		Exit                                                 any
		Sites                                                string
	}
	f := func(r store.Job) fields {
		x := fields{r.ParentID, r.Kind, r.Type, r.App, r.SiteType, r.Components, r.State, r.Processors, r.Attempts, nil, ""}
		if r.ExitStatus != nil {
			x.Exit = *r.ExitStatus
		}
		if r.SiteType == string(workload.Ordered) {
			x.Sites = r.Sites
		}
		return x
	}
	for id, w := range want {
		g, ok := got[id]
		if !ok {
			t.Errorf("%s: no row of %s", what, id)
			continue
		}
		if f(g) != f(w) {
			t.Errorf("%s: %s differs from the Slurm target's run:\n%+v\n%+v", what, id, f(g), f(w))
		}
	}
}

// Summary is what the tests read of the summary line a process of a
// synthetic application prints.
type Summary struct {
	App          string `json:"app"`
	OK           bool   `json:"ok"`
	JobID        string `json:"job_id"`
	Rank         int    `json:"rank"`
	Size         int    `json:"size"`
	Component    int    `json:"component"`
	Peers        int    `json:"peers"`
	Sent         int64  `json:"sent_elements"`
	Received     int64  `json:"received_elements"`
	BytesRead    int64  `json:"bytes_read"`
	BytesStaged  int64  `json:"bytes_staged"`
	ElapsedS     float64
	StartedEarly bool
}

// Summaries reads the summary lines of the files matching pattern (the
// output the target copied back, one file per middleware job).
func Summaries(t testing.TB, pattern string) []Summary {
	t.Helper()
	files, _ := filepath.Glob(pattern)
	return SummariesOf(t, files)
}

// SummariesOf reads the summary lines of the files.
func SummariesOf(t testing.TB, files []string) []Summary {
	t.Helper()
	var out []Summary
	for _, f := range files {
		fh, err := os.Open(f)
		if err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(fh)
		for sc.Scan() {
			var s Summary
			if line := sc.Bytes(); len(line) > 0 && line[0] == '{' && json.Unmarshal(line, &s) == nil && s.App != "" {
				out = append(out, s)
			}
		}
		fh.Close()
	}
	return out
}

// Slots bounds the tests of a package whose middleware runs at once: each
// CE or gatekeeper is several daemons and scripts that wake every few
// seconds, and all of a package's parallel tests at once (make test runs
// six) loaded a 2-core machine past a load of 100.
type Slots chan struct{}

// NewSlots makes n slots.
func NewSlots(n int) Slots { return make(Slots, n) }

// Hold waits for a slot and gives it back when the test ends, after the
// daemons it started are stopped (cleanups run last-registered first).
func (s Slots) Hold(t testing.TB) {
	s <- struct{}{}
	t.Cleanup(func() { <-s })
}

// CheckComponentStarts holds the component-start records of the job of row
// r of run against the row: one of each of its n components, of its last
// attempt, on one of its sites, the latest of them the job's start (a
// co-allocated job starts when its last component does).
func CheckComponentStarts(t testing.TB, st *store.Store, run string, r store.Job, n int) {
	t.Helper()
	notes, err := st.Annotations(run, record.AnnotationComponentStart)
	if err != nil {
		t.Fatal(err)
	}
	seen := map[int]bool{}
	var last int64
	for _, a := range notes {
		var c record.ComponentStart
		if err := json.Unmarshal([]byte(a.Value), &c); err != nil || c.Job != r.JobID {
			continue
		}
		sites := "," + r.Sites + ","
		if a.Key != record.Key(run, c.Job, c.Attempt) || c.Attempt != r.Attempts || c.StartNS <= 0 || c.Clock == "" ||
			seen[c.Component] || c.Component < 0 || c.Component >= n || !strings.Contains(sites, ","+c.Site+",") {
			t.Errorf("%s: component start %s under %s (sites %s, attempt %d)", r.JobID, a.Value, a.Key, r.Sites, r.Attempts)
		}
		seen[c.Component] = true
		last = max(last, c.StartNS)
	}
	if len(seen) != n || last != r.StartNS {
		t.Errorf("%s: component-start records of %d of its %d components, the last at %d; the job started at %d", r.JobID, len(seen), n, last, r.StartNS)
	}
}
