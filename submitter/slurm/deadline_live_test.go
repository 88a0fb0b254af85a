package slurm

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gmark/gmark/printers"
	"github.com/gmark/gmark/submitter/slurm/slurmtest"
	"github.com/gmark/gmark/workload"
)

// The sbatch printer's start deadline (the script the slurm target submits) on a real Slurm controller (22.05):
// --begin makes the job eligible at its deadline, not before, and
// --deadline (the deadline plus the time limit and printers.SlurmDeadlineSlack) has
// Slurm remove a job that cannot start by then (state DEADLINE), so it
// never runs. On a cluster of 4 processors with 2 busy for 90 s, a job of
// 2 with a deadline 3 s away starts at it or within the slack (at Slurm's
// next scheduling pass); one of 4 is removed.
func TestSbatchDeadlineOnSlurm(t *testing.T) {
	t.Parallel() // Slurm clusters of its own, waited on in real time: runs beside the others
	if why := slurmtest.Available(); why != "" {
		t.Skip(why)
	}
	sbatch, err := printers.Lookup("sbatch")
	if err != nil {
		t.Fatal(err)
	}
	e := slurmtest.Start(t, slurmtest.Options{CPUs: 4}, "dl")
	c := e.Clusters[0]
	submit := func(name string, script []byte) string {
		t.Helper()
		path := filepath.Join(c.Dir, name+".sh")
		if err := os.WriteFile(path, script, 0o755); err != nil {
			t.Fatal(err)
		}
		out, err := c.Cmd("sbatch", "--parsable", path).CombinedOutput()
		if err != nil {
			t.Fatalf("sbatch %s: %v %s", name, err, out)
		}
		return strings.TrimSpace(string(out))
	}
	submit("busy", []byte("#!/bin/sh\n#SBATCH --ntasks=2\n#SBATCH --chdir="+c.Dir+"\n#SBATCH --output=busy.out\nsleep 90\n"))
	jobs := map[string]string{}
	// sbatch reads --begin=now+3 on its own clock, when it starts; Slurm's
	// SubmitTime is when the controller took the job, which on a loaded
	// machine is seconds later. So the job's start is measured from the
	// test's clock just before sbatch ran (Slurm's times are whole
	// seconds: that clock's second), and bounded above by how long sbatch
	// took as well.
	var sent, returned time.Time
	for _, size := range []int{2, 4} {
		j := &workload.Job{ID: "d-" + strconv.Itoa(size), Kind: workload.Unitary, Type: "hello", SiteType: workload.Single,
			Submit: time.Minute, Deadline: time.Minute + 3*time.Second, WallTime: time.Minute,
			App: workload.App{Name: "hello"}, Components: []workload.Component{{Site: workload.AnySite, Count: size}}}
		var buf bytes.Buffer
		if err := sbatch.Print(&buf, j, printers.Config{Executable: "/bin/true", WorkDir: c.Dir}); err != nil {
			t.Fatal(err)
		}
		if size == 2 {
			sent = time.Now()
		}
		jobs[submit(j.ID, buf.Bytes())] = j.ID
		if size == 2 {
			returned = time.Now()
		}
	}
	// The job completion log has one line per job that ended.
	lines := map[string]string{}
	for end := time.Now().Add(4 * time.Minute); len(lines) < 2; time.Sleep(500 * time.Millisecond) {
		if time.Now().After(end) {
			t.Fatalf("jobs did not end: %v", lines)
		}
		b, _ := os.ReadFile(c.JobComp)
		for _, l := range strings.Split(string(b), "\n") {
			for id, name := range jobs {
				if strings.HasPrefix(l, "JobId="+id+" ") {
					lines[name] = l
				}
			}
		}
	}
	field := func(l, key string) string {
		for _, f := range strings.Fields(l) {
			if v, ok := strings.CutPrefix(f, key+"="); ok {
				return v
			}
		}
		return ""
	}
	parse := func(s string) time.Time {
		v, err := time.ParseInLocation("2006-01-02T15:04:05", s, time.Local)
		if err != nil {
			t.Fatalf("time %q: %v", s, err)
		}
		return v
	}
	ok := lines["d-2"]
	start := parse(field(ok, "StartTime"))
	wait := start.Sub(sent.Truncate(time.Second))
	took := returned.Sub(sent).Round(time.Second) + time.Second
	if field(ok, "JobState") != "COMPLETED" || wait < 3*time.Second || wait > 3*time.Second+took+printers.SlurmDeadlineSlack ||
		start.Before(parse(field(ok, "EligibleTime"))) {
		t.Errorf("the job that fits: %s\nwant COMPLETED, started at or after its EligibleTime, and 3 s to %v after sbatch was run", ok, 3*time.Second+took+printers.SlurmDeadlineSlack)
	}
	t.Logf("the job that fits started %v after sbatch was run (its deadline: 3 s; sbatch took %v; Slurm's SubmitTime %s)", wait, returned.Sub(sent).Round(time.Millisecond), field(ok, "SubmitTime"))
	gone := lines["d-4"]
	if field(gone, "JobState") != "DEADLINE" || field(gone, "NodeCnt") != "0" {
		t.Errorf("the job that cannot start at its deadline: %s\nwant DEADLINE, never run", gone)
	}
}
