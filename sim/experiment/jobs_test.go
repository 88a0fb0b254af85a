package experiment

import (
	"bytes"
	"context"
	"encoding/csv"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/gmark/gmark/analyzer/store"
	"github.com/gmark/gmark/gwa"
	"github.com/gmark/gmark/internal/testkit"
)

// tiesSchedule is the EASY schedule of testdata/easy/ties.swf on one
// cluster of 10 processors, worked out by hand (sim's TestEASYTiesAtShadow
// has the working): job (the replay's id) → submit, start, end.
var tiesSchedule = map[string][3]float64{
	"1-0": {0, 0, 100}, "1-1": {0, 0, 100}, "1-2": {0, 0, 100}, // A, B, X: end together at H's shadow time
	"1-3": {1, 100, 150},                                       // H (6)
	"1-4": {3, 3, 503}, "1-5": {4, 4, 504}, "1-6": {5, 5, 505}, // backfilled on the 4 extra at 100
	"1-7": {6, 150, 650}, "1-8": {7, 150, 160}, // nothing idle until H ends
}

func tiesExperiment(t *testing.T, dir, extra string) *Experiment {
	t.Helper()
	src, err := os.ReadFile("testdata/easy/ties.toml")
	if err != nil {
		t.Fatal(err)
	}
	abs, _ := filepath.Abs("testdata/easy")
	s := strings.NewReplacer(`"one.toml"`, strconv.Quote(filepath.Join(abs, "one.toml")), `"ties.swf"`, strconv.Quote(filepath.Join(abs, "ties.swf"))).Replace(string(src))
	return load(t, dir, s+extra)
}

func simJobs(t *testing.T, db, digest string) []store.SimJob {
	t.Helper()
	st, err := store.OpenReadOnly(db)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	var out []store.SimJob
	if err := st.SimJobs(digest, func(j *store.SimJob) error { out = append(out, *j); return nil }); err != nil {
		t.Fatal(err)
	}
	return out
}

func secondsOf(ns *int64) float64 {
	if ns == nil {
		return math.NaN()
	}
	return float64(*ns) / 1e9
}

// gmark sim run --jobs of a hand-made trace, replayed as recorded under
// EASY: the per-job rows are the hand-checked schedule, ties included;
// their waits average to the run's AWT; the run's result is the one
// recorded without --jobs, byte for byte; and a store without the rows
// gets them by running again.
func TestSimRunJobs(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	e := tiesExperiment(t, dir, "")
	ctx := context.Background()
	withJobs, without := filepath.Join(dir, "jobs.db"), filepath.Join(dir, "plain.db")
	if _, err := Execute(ctx, e, RunOptions{DB: withJobs, Jobs: true}); err != nil {
		t.Fatal(err)
	}
	r, _ := e.Run(0)
	jobs := simJobs(t, withJobs, r.Digest)
	if len(jobs) != len(tiesSchedule) {
		t.Fatalf("%d job rows, want %d", len(jobs), len(tiesSchedule))
	}
	wait := 0.0
	for i, j := range jobs {
		want, ok := tiesSchedule[j.ID]
		got := [3]float64{float64(j.SubmitNS) / 1e9, secondsOf(j.StartNS), secondsOf(j.EndNS)}
		if !ok || got != want || j.Seq != i || j.State != "finished" || j.Cluster != "c" || j.EstimateNS == nil {
			t.Errorf("job %+v: submit, start, end %v; want %v", j, got, want)
		}
		wait += got[1] - got[0]
	}
	// AWT over the hand schedule: (0+0+0+99+0+0+0+144+143)/9.
	res := result(t, withJobs, r.Digest)
	if awt := wait / float64(len(jobs)); math.Abs(awt-res.AWT) > 1e-9 || math.Abs(awt-386.0/9) > 1e-9 {
		t.Errorf("AWT: %v from the rows, %v in the result, want %v", awt, res.AWT, 386.0/9)
	}
	// The same run without --jobs: the same result.
	if _, err := Execute(ctx, e, RunOptions{DB: without}); err != nil {
		t.Fatal(err)
	}
	plain := result(t, without, r.Digest)
	if d := sameResult(plain, res); d != "" || plain.AWT != res.AWT || plain.Utilization != res.Utilization {
		t.Errorf("with and without --jobs the results differ: %s", d)
	}
	// --jobs over the store without them: the run again, its rows added.
	sum, err := Execute(ctx, e, RunOptions{DB: without, Jobs: true})
	if err != nil || sum.JobsAdded != 1 || sum.Ran != 0 {
		t.Fatalf("adding the jobs: %+v %v", sum, err)
	}
	if again := simJobs(t, without, r.Digest); !reflect.DeepEqual(again, jobs) {
		t.Errorf("the added rows differ from those recorded with the run:\n%+v\n%+v", again, jobs)
	}
	if sum, err := Execute(ctx, e, RunOptions{DB: without, Jobs: true}); err != nil || sum.JobsAdded != 0 || sum.AlreadyDone != 1 {
		t.Errorf("a third execution: %+v %v", sum, err)
	}
}

func result(t *testing.T, db, digest string) store.SimResult {
	t.Helper()
	st, err := store.OpenReadOnly(db)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	r, ok, err := st.SimResultOf(digest)
	if err != nil || !ok {
		t.Fatalf("result of %s: %v %v", digest, ok, err)
	}
	return r
}

// The exports of the hand-checked schedule: the CSV has Batsim's columns,
// every job's times, and processors that no two jobs running at once
// share; the SWF reads back with the simulated waits and run times.
func TestExportJobs(t *testing.T) {
	dir := t.TempDir()
	e := tiesExperiment(t, dir, "")
	db := filepath.Join(dir, "r.db")
	if _, err := Execute(context.Background(), e, RunOptions{DB: db, Jobs: true}); err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := ExportJobs(db, "ties", 1, JobsCSV, &b); err != nil {
		t.Fatal(err)
	}
	rows, err := csv.NewReader(&b).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(rows[0], JobsCSVColumns) || len(rows) != 1+len(tiesSchedule) {
		t.Fatalf("header %v, %d rows", rows[0], len(rows))
	}
	col := map[string]int{}
	for i, c := range rows[0] {
		col[c] = i
	}
	type busy struct {
		start, end float64
		procs      []int
	}
	var ran []busy
	for _, row := range rows[1:] {
		f := func(c string) float64 { v, _ := strconv.ParseFloat(row[col[c]], 64); return v }
		want := tiesSchedule[row[col["job_id"]]]
		if got := [3]float64{f("submission_time"), f("starting_time"), f("finish_time")}; got != want {
			t.Errorf("%v: times %v, want %v", row, got, want)
		}
		if f("waiting_time") != want[1]-want[0] || f("execution_time") != want[2]-want[1] || f("turnaround_time") != want[2]-want[0] ||
			row[col["success"]] != "1" || row[col["final_state"]] != "COMPLETED_SUCCESSFULLY" || row[col["workload_name"]] != "ties/run1" {
			t.Errorf("row %v", row)
		}
		if s := f("stretch"); math.Abs(s-(want[2]-want[0])/(want[2]-want[1])) > 1e-12 {
			t.Errorf("%v: stretch %v", row, s)
		}
		procs := procSet(t, row[col["allocated_resources"]])
		if n, _ := strconv.Atoi(row[col["requested_number_of_resources"]]); len(procs) != n {
			t.Errorf("%v: %d processors allocated", row, len(procs))
		}
		ran = append(ran, busy{want[1], want[2], procs})
	}
	for i, a := range ran {
		for _, o := range ran[i+1:] {
			if a.start < o.end && o.start < a.end && slices.ContainsFunc(a.procs, func(p int) bool { return slices.Contains(o.procs, p) }) {
				t.Errorf("processors %v and %v shared over [%v, %v) and [%v, %v)", a.procs, o.procs, a.start, a.end, o.start, o.end)
			}
		}
	}
	b.Reset()
	if err := ExportJobs(db, "ties", 1, JobsSWF, &b); err != nil {
		t.Fatal(err)
	}
	rd, err := gwa.NewReader(bytes.NewReader(b.Bytes()), gwa.ReadOptions{Strict: true, Format: gwa.SWF})
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for {
		rec, err := rd.Next()
		if err != nil {
			break
		}
		n++
		want := tiesSchedule[rec.JobID]
		if rec.SubmitTime != want[0] || rec.WaitTime != want[1]-want[0] || rec.RunTime != want[2]-want[1] || rec.Status != 1 || rec.PartitionID != "1" {
			t.Errorf("SWF record %+v, want %v", rec, want)
		}
	}
	if n != len(tiesSchedule) {
		t.Errorf("%d SWF records", n)
	}
	for _, tc := range []struct {
		name string
		run  int
		want error
	}{{"ties", 2, ErrNoRun}, {"ties", 0, ErrNoRun}, {"none", 1, ErrNoExperiment}} {
		if err := ExportJobs(db, tc.name, tc.run, JobsCSV, &b); !errors.Is(err, tc.want) || !BadInput(err) {
			t.Errorf("%s run %d: %v", tc.name, tc.run, err)
		}
	}
}

// procSet reads an interval set ("0-3 8").
func procSet(t *testing.T, s string) []int {
	t.Helper()
	var out []int
	for _, f := range strings.Fields(s) {
		lo, hi, found := strings.Cut(f, "-")
		a, err1 := strconv.Atoi(lo)
		b := a
		var err2 error
		if found {
			b, err2 = strconv.Atoi(hi)
		}
		if err1 != nil || err2 != nil || b < a {
			t.Fatalf("interval set %q", s)
		}
		for p := a; p <= b; p++ {
			out = append(out, p)
		}
	}
	return out
}

// Jobs that do not finish have rows too: rejected (larger than the
// cluster), and, without the cool-down, those still waiting or running
// when the last job arrived; the export says so.
func TestSimRunJobsUnfinished(t *testing.T) {
	dir := t.TempDir()
	trace := filepath.Join(dir, "t.swf")
	// 4 processors: A (4) runs 0-100; B (8) cannot fit; C (2) waits for A;
	// D arrives at 10, the last arrival: the run stops there.
	swf := "1 0 0 100 4 -1 -1 4 100 -1 1 1 -1 -1 -1 -1 -1 -1\n2 1 0 10 8 -1 -1 8 10 -1 1 1 -1 -1 -1 -1 -1 -1\n" +
		"3 2 0 10 2 -1 -1 2 10 -1 1 1 -1 -1 -1 -1 -1 -1\n4 10 0 10 2 -1 -1 2 10 -1 1 1 -1 -1 -1 -1 -1 -1\n"
	if err := os.WriteFile(trace, []byte(swf), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "top.toml"), []byte("name = \"four\"\n[[cluster]]\nname = \"c\"\nprocessors = 4\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	e := load(t, dir, "name = \"u\"\ntopology = \"top.toml\"\narchitectures = [\"sep-c\"]\nloads = [\"as-recorded\"]\n[workload]\nkind = \"trace\"\ntrace = \"t.swf\"\n")
	db := filepath.Join(dir, "r.db")
	if _, err := Execute(context.Background(), e, RunOptions{DB: db, Jobs: true}); err != nil {
		t.Fatal(err)
	}
	r, _ := e.Run(0)
	var got []string
	for _, j := range simJobs(t, db, r.Digest) {
		got = append(got, fmt.Sprintf("%s %s %v %v", j.ID, j.State, secondsOf(j.StartNS), secondsOf(j.EndNS)))
	}
	want := []string{"1-0 running 0 NaN", "1-1 rejected NaN NaN", "1-2 waiting NaN NaN", "1-3 waiting NaN NaN"}
	if !slices.Equal(got, want) {
		t.Errorf("rows\n%v\nwant\n%v", got, want)
	}
	var b bytes.Buffer
	if err := ExportJobs(db, "u", 1, JobsCSV, &b); err != nil {
		t.Fatal(err)
	}
	if out := b.String(); !strings.Contains(out, ",REJECTED,") || !strings.Contains(out, ",NOT_FINISHED,0,,,0,,,0-3,") {
		t.Errorf("CSV:\n%s", out)
	}
}

// The LCG trace as recorded on one cluster, with --scale 0.02: a row per
// job, in arrival order, whose waits average to the run's AWT and whose
// count of finished jobs is the run's.
func TestSimRunJobsLCG(t *testing.T) {
	t.Parallel()
	lcg := testkit.LCG(t)
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "top.toml"), []byte("name = \"one\"\n[[cluster]]\nname = \"c\"\nprocessors = 24\nscheduler = \"easy\"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "exp.toml")
	src := fmt.Sprintf("name = \"lcg\"\ntopology = \"top.toml\"\narchitectures = [\"sep-c\"]\nloads = [\"as-recorded\"]\n[workload]\nkind = \"trace\"\ntrace = %q\n[settings]\ncool_down = true\n", lcg)
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	e, err := Load(path, Options{Scale: 0.02})
	if err != nil {
		t.Fatal(err)
	}
	db := filepath.Join(dir, "r.db")
	if _, err := Execute(context.Background(), e, RunOptions{DB: db, Jobs: true}); err != nil {
		t.Fatal(err)
	}
	r, _ := e.Run(0)
	res := result(t, db, r.Digest)
	jobs := simJobs(t, db, r.Digest)
	finished, wait, last := 0, 0.0, int64(-1)
	for i, j := range jobs {
		if j.Seq != i || j.SubmitNS < last {
			t.Fatalf("row %d: seq %d, submitted at %d after %d", i, j.Seq, j.SubmitNS, last)
		}
		last = j.SubmitNS
		if j.State == "finished" {
			finished++
			wait += float64(*j.StartNS-j.SubmitNS) / 1e9
		}
	}
	if len(jobs) != res.Jobs || finished != res.Finished || math.Abs(wait/float64(finished)-res.AWT) > 1e-6*max(1, res.AWT) {
		t.Errorf("%d rows, %d finished, AWT %v; the result: %d jobs, %d finished, AWT %v", len(jobs), finished, wait/float64(finished), res.Jobs, res.Finished, res.AWT)
	}
	t.Logf("%d jobs, AWT %.1f s", len(jobs), res.AWT)
}

// loads = ["as-recorded"] is a trace's, alone with its level (no
// fixed_load, no load_scale), once; other strings are not load levels.
func TestAsRecordedRefused(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "t.swf"), []byte("1 0 0 10 1 -1 -1 1 10 -1 1 1 -1 -1 -1 -1 -1 -1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	head := "name = \"e\"\ntopology = \"das2\"\narchitectures = [\"sep-c\"]\n"
	trace := "[workload]\nkind = \"trace\"\ntrace = \"t.swf\"\n"
	for _, tc := range []struct{ src, want string }{
		{head + "loads = [\"as-recorded\"]\n", `4: "as-recorded" is a load level of a trace workload (its own arrival times); a grid-lf workload has none`},
		{head + "loads = [\"as-recorded\"]\n[workload]\nkind = \"burst\"\njobs = 1\nruntime = 1\n", `4: "as-recorded" is a load level of a trace workload`},
		{head + "loads = [\"as-recorded\"]\n" + trace + "[workload.fixed_load]\ndas2 = 50\n", `4: "as-recorded" replays the whole trace unscaled`},
		{head + "loads = [\"as-recorded\", 50, \"as-recorded\"]\n" + trace, `4: "as-recorded" is given twice`},
		{head + "loads = [\"natural\"]\n" + trace, `4: load "natural": a load level is a number (percent) or "as-recorded"`},
		{head + "loads = [true]\n" + trace, `4: load true: a load level is a number (percent) or "as-recorded", not bool`},
		{head + "loads = [-1]\n" + trace, `4: load -1: a load level is in (0, 10000] percent`},
	} {
		_, err := parse(t, dir, tc.src, Options{})
		if err == nil || !strings.Contains(err.Error(), "exp.toml:"+tc.want) {
			t.Errorf("%s: %v\nwant %s", tc.src, err, tc.want)
		}
	}
	e, err := parse(t, dir, head+"loads = [\"as-recorded\", 50]\n"+trace, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if e.NumRuns() != 2 || e.Scenarios[0].Loads[0] != AsRecorded {
		t.Errorf("%d runs, loads %v", e.NumRuns(), e.Scenarios[0].Loads)
	}
}
