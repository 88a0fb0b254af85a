package slurmlrm

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gmark/gmark/internal/slurmcli"
	"github.com/gmark/gmark/koala/core"
	"github.com/gmark/gmark/koala/grid"
	"github.com/gmark/gmark/workload"
)

func TestParseJobID(t *testing.T) {
	cases := []struct {
		out  string
		want int64
		err  string
	}{
		{"17\n", 17, ""},
		{"17;fs0\n", 17, ""},
		{"  42 \nsbatch: warning: something\n", 42, ""},
		{"", 0, "not a job id"},
		{"0\n", 0, "not a job id"},
		{"-3\n", 0, "not a job id"},
		{"4294967296\n", 0, "not a job id"},
		{"Submitted batch job 5\n", 0, "not a job id"},
	}
	for _, c := range cases {
		id, err := ParseJobID([]byte(c.out))
		if id != c.want || (err == nil) != (c.err == "") || err != nil && !strings.Contains(err.Error(), c.err) {
			t.Errorf("%q: %d, %v; want %d, %q", c.out, id, err, c.want, c.err)
		}
	}
}

func FuzzParseJobID(f *testing.F) {
	for _, s := range []string{"17\n", "17;fs0", "", "x;y\n1", "99999999999999999999"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		id, err := ParseJobID(b)
		if err == nil && (id < 1 || id > maxJobID) || err != nil && id != 0 {
			t.Fatalf("%q: %d, %v", b, id, err)
		}
	})
}

func TestDefaultPartition(t *testing.T) {
	cases := []struct{ out, want, err string }{
		{"main*\n", "main", ""},
		{"debug\nbatch*\nlong\n", "batch", ""},
		{"debug\nlong\n", "", `sinfo lists "debug long"`},
		{"", "", "no default partition"},
		{"*\n", "", "no default partition"},
	}
	for _, c := range cases {
		p, err := DefaultPartition([]byte(c.out))
		if p != c.want || (err == nil) != (c.err == "") || err != nil && !strings.Contains(err.Error(), c.err) {
			t.Errorf("%q: %q, %v; want %q, %q", c.out, p, err, c.want, c.err)
		}
	}
}

func FuzzDefaultPartition(f *testing.F) {
	for _, s := range []string{"main*\n", "a\nb*\n", "", "**"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		p, err := DefaultPartition(b)
		if err == nil && (p == "" || strings.ContainsAny(p, " \t\n")) || err != nil && p != "" {
			t.Fatalf("%q: %q, %v", b, p, err)
		}
	})
}

// The environment of the Slurm commands (and so of the jobs): no token, no
// job variables of gmark's or Slurm's from the core's own environment, and
// SLURM_CONF naming the cluster.
func TestCommandEnv(t *testing.T) {
	env := commandEnv([]string{"PATH=/bin", "GMARK_KOALA_TOKEN=secret", "GMARK_RANK=3", "GMARK_SIZE=9", "SLURM_JOB_ID=5",
		"SLURM_CONF=/other.conf", "HOME=/root"}, "/c/slurm.conf")
	got := strings.Join(env, " ")
	if got != "PATH=/bin HOME=/root SLURM_CONF=/c/slurm.conf" {
		t.Errorf("env %q", got)
	}
}

func TestPrefix(t *testing.T) {
	a, b := Prefix("/runs/1/koala.db"), Prefix("/runs/2/koala.db")
	if a == b || len(a) != 8 || a != Prefix("/runs/1/koala.db") || strings.ContainsAny(a, "-./") {
		t.Errorf("prefixes %q %q", a, b)
	}
	s := &Set{opts: Options{Prefix: a}}
	if n := s.jobName(core.Ref{Job: "k3", Component: 1, Attempt: 17}); n != "gmark-"+a+"-k3.c1.s17" {
		t.Errorf("name %q", n)
	}
}

// The poller's reading of squeue, without a controller: a core whose one
// Slurm cluster's controller is this package's, its sbatch answered by
// hand, and squeue's records made up. Each record is reported once, in
// order; the core's running components are "ours"; a job of the core's
// prefix it did not submit is an orphan to cancel.
func TestCompare(t *testing.T) {
	dir := t.TempDir()
	conf := filepath.Join(dir, "slurm.conf")
	if err := os.WriteFile(conf, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	g, err := grid.Parse("g.toml", []byte("[[cluster]]\nname = \"s\"\nlrm = \"slurm\"\nslurm_conf = \""+conf+"\"\nprocessors = 8\n"))
	if err != nil {
		t.Fatal(err)
	}
	set, err := New(g, Options{Gmark: "gmark", Dir: dir, Prefix: "p1"})
	if err != nil {
		t.Skipf("no Slurm commands: %v", err)
	}
	t0 := time.Unix(1_800_000_000, 0)
	k, err := core.NewWith(g, t0, nil, nil, set.Controllers())
	if err != nil {
		t.Fatal(err)
	}
	spec := workload.Job{ID: "a", Kind: workload.Unitary, App: workload.App{Name: "swf"}, SiteType: workload.Single,
		Components: []workload.Component{{Site: "s", Count: 3}}}
	j, err := k.Submit(spec, core.Options{Runner: core.KRunner})
	if err != nil {
		t.Fatal(err)
	}
	k.Advance(t0)
	c := set.clusters[0]
	if len(c.kit.Subs) != 1 || c.kit.Queued() != 1 {
		t.Fatalf("after the claim: %d submissions, %d commands queued", len(c.kit.Subs), c.kit.Queued())
	}
	var sb *sub
	for _, s := range c.kit.Subs {
		sb = s
	}
	name := sb.Name
	apply := func(recs []slurmcli.Record) (int, []slurmcli.Record) {
		reports, ours, orphans := c.compare(recs)
		for _, r := range reports {
			r(k)
		}
		return ours, orphans
	}
	// sbatch has not answered: nothing to say.
	if ours, orphans := apply(nil); ours != 0 || len(orphans) != 0 || j.Components[0].LRMID != "" {
		t.Fatalf("before sbatch answered: ours %d, orphans %v", ours, orphans)
	}
	sb.ID = 41
	orphan := slurmcli.Record{ID: 7, Name: "gmark-p1-k9.c0.s1", State: "RUNNING", Source: "squeue"}
	running := slurmcli.Record{ID: 41, Name: name, State: "RUNNING", Start: t0.Unix() + 2, Source: "squeue"}
	ours, orphans := apply([]slurmcli.Record{running, orphan})
	if ours != 3 || len(orphans) != 1 || orphans[0].ID != 7 || j.Components[0].LRMID != "41" || !j.Components[0].Executing {
		t.Fatalf("running: ours %d, orphans %v, component %+v", ours, orphans, j.Components[0])
	}
	// Said once: the same record again reports nothing new.
	if reports, _, _ := c.compare([]slurmcli.Record{running}); len(reports) != 0 {
		t.Errorf("%d reports of news already told", len(reports))
	}
	done := running
	done.State, done.End, done.Exit = "FAILED", t0.Unix()+9, 3
	apply([]slurmcli.Record{done})
	if j.State != core.Failed || !strings.Contains(j.Reason, "FAILED (exit 3)") || len(c.kit.Subs) != 0 {
		t.Errorf("after the end: %s %q, %d followed", j.State, j.Reason, len(c.kit.Subs))
	}
	// A job that vanishes from squeue unseen ends, its outcome unknown.
	j2, _ := k.Submit(spec, core.Options{Runner: core.KRunner})
	k.Advance(t0.Add(10 * time.Second))
	for _, s := range c.kit.Subs {
		s.ID = 42
	}
	for i := 0; i < missingPolls; i++ {
		apply(nil)
	}
	if j2.State != core.Failed || !strings.Contains(j2.Reason, "left the controller's queue") {
		t.Errorf("vanished: %s %q", j2.State, j2.Reason)
	}
	// A cancelled submission says nothing more, and is forgotten once gone.
	j3, _ := k.Submit(spec, core.Options{Runner: core.KRunner})
	k.Advance(t0.Add(20 * time.Second))
	if err := k.Cancel(j3.ID, "test"); err != nil {
		t.Fatal(err)
	}
	for _, s := range c.kit.Subs {
		if s.Cancel == "" {
			t.Errorf("submission %s not cancelled", s.Name)
		}
		s.ID = 43
		r := slurmcli.Record{ID: 43, Name: s.Name, State: "CANCELLED", Source: "squeue"}
		if ours, _ := apply([]slurmcli.Record{r}); ours != 0 || len(c.kit.Subs) != 0 {
			t.Errorf("cancelled: ours %d, %d followed", ours, len(c.kit.Subs))
		}
	}
}

// The jobs the core may kill on a preempt_local cluster: running, in its
// partition, of known size, not gmark's, not a heterogeneous job's.
func TestLocalJobs(t *testing.T) {
	run := func(id int64, name, comment, part string, cpus int64) slurmcli.Record {
		return slurmcli.Record{ID: id, Name: name, Comment: comment, State: "RUNNING", Partition: part, CPUs: cpus, Start: 1795362920}
	}
	pending := run(2, "other", "", "main", 2)
	pending.State = "PENDING"
	completing := run(3, "other", "", "main", 2)
	completing.State = "COMPLETING"
	het := run(4, "other", "", "main", 2)
	het.HetJobID = 4
	cases := []struct {
		name      string
		recs      []slurmcli.Record
		partition string
		want      string
	}{
		{"none", nil, "main", ""},
		{"one other user's job", []slurmcli.Record{run(1, "someone", "", "main", 3)}, "main", "1:3"},
		{"not running", []slurmcli.Record{pending, completing}, "main", ""},
		{"heterogeneous", []slurmcli.Record{het}, "main", ""},
		{"gmark's by name", []slurmcli.Record{run(5, "gmark-ab12cd34-7.c0.s3", "", "main", 2)}, "main", ""},
		{"gmark's by comment", []slurmcli.Record{run(6, "x.sh", "gmark:1-0", "main", 2)}, "main", ""},
		{"another partition", []slurmcli.Record{run(7, "other", "", "debug", 2)}, "main", ""},
		{"any partition", []slurmcli.Record{run(7, "other", "", "debug", 2)}, "", "7:2"},
		{"size unknown", []slurmcli.Record{run(8, "other", "", "main", 0)}, "main", ""},
		{"order kept", []slurmcli.Record{run(10, "a", "", "main", 1), run(9, "b", "", "main", 2)}, "main", "10:1 9:2"},
	}
	for _, c := range cases {
		var got []string
		for _, lj := range LocalJobs(c.recs, c.partition) {
			if !lj.Start.Equal(time.Unix(1795362920, 0)) {
				t.Errorf("%s: start %v", c.name, lj.Start)
			}
			got = append(got, lj.ID+":"+strconv.Itoa(lj.Size))
		}
		if strings.Join(got, " ") != c.want {
			t.Errorf("%s: %v, want %q", c.name, got, c.want)
		}
	}
}
