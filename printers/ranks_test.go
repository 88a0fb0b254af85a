package printers

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/gmark/gmark/apps/jobenv"
	"github.com/gmark/gmark/apps/output"
	"github.com/gmark/gmark/workload"
)

// The rank tests: a printed job, run by a stand-in for its batch system
// that sets only what that system sets, starts the real gmark smpi on
// every processor, and every process must learn a distinct global rank
// 0..P−1 of P and exchange data with all the others. Nothing here sets
// GMARK_RANK or a SLURM_ variable: the printed job must make up for what
// its system does not say.

// The smpi parameters of the rank tests: small work, a real exchange.
const (
	rankSupersteps = 3
	rankExchange   = 50
)

// smpiRankJob is an smpi job with one component per count.
func smpiRankJob(id string, counts ...int) *workload.Job {
	j := &workload.Job{
		ID: id, Kind: workload.Unitary, Type: "smpi",
		App: workload.App{Name: "smpi", Params: []workload.Param{
			{Key: "supersteps", Value: strconv.Itoa(rankSupersteps)}, {Key: "memory", Value: "1"},
			{Key: "exchange", Value: strconv.Itoa(rankExchange)}, {Key: "rendezvous-timeout", Value: "1m"},
			{Key: "quiet"},
		}},
	}
	for _, n := range counts {
		j.Components = append(j.Components, workload.Component{Site: workload.AnySite, Count: n})
	}
	return j
}

// A system runs a printed job description in a stand-in of the batch
// system and returns the files its processes wrote their output to.
type system func(r *rankRun, description string) (outputs []string, err error)

// rankRun is one job's run: the submission directory, the home directory
// of the job's user, and a PATH with only the tools a script may call.
type rankRun struct {
	t                *testing.T
	submit, home     string
	bin, standInConf string
	mpi              string // the mpiexec stand-in on PATH: "", hydra or openmpi
	host             string
}

// newRankRun prepares a run; tools are the stand-ins put on PATH
// (mpiexec, pbsdsh), besides the shell utilities the scripts use.
func newRankRun(t *testing.T, mpi string, tools ...string) *rankRun {
	t.Helper()
	r := &rankRun{t: t, submit: t.TempDir(), home: t.TempDir(), bin: t.TempDir(), mpi: mpi}
	r.standInConf = filepath.Join(t.TempDir(), "standin.json")
	for _, tool := range []string{"grep", "hostname"} {
		path, err := exec.LookPath(tool)
		if err != nil {
			t.Skipf("%s is not installed", tool)
		}
		if err := os.Symlink(path, filepath.Join(r.bin, tool)); err != nil {
			t.Fatal(err)
		}
	}
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	for _, tool := range tools {
		if err := os.Symlink(self, filepath.Join(r.bin, tool)); err != nil {
			t.Fatal(err)
		}
	}
	if r.host, err = os.Hostname(); err != nil {
		t.Fatal(err)
	}
	return r
}

// env is the environment every system gives a job, with the stand-ins'
// configuration, plus the system's own variables.
func (r *rankRun) env(vars ...string) []string {
	return append([]string{"PATH=" + r.bin, "HOME=" + r.home, standInConfEnv + "=" + r.standInConf}, vars...)
}

// writeStandInConf records the job's first environment for pbsdsh.
func (r *rankRun) writeStandInConf(jobEnv []string) {
	b, err := json.Marshal(standInConf{MPI: r.mpi, JobEnv: jobEnv})
	if err != nil {
		r.t.Fatal(err)
	}
	if err := os.WriteFile(r.standInConf, b, 0o644); err != nil {
		r.t.Fatal(err)
	}
}

func (r *rankRun) write(path, text string) string {
	r.t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		r.t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		r.t.Fatal(err)
	}
	return path
}

// appendTo opens an output file as a batch system does for all the
// processes of a job that share it.
func (r *rankRun) appendTo(path string) *os.File {
	r.t.Helper()
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o644)
	if err != nil {
		r.t.Fatal(err)
	}
	r.t.Cleanup(func() { f.Close() })
	return f
}

// directives are the fields of a script's directive lines.
func directives(script, prefix string) [][]string {
	var out [][]string
	for _, line := range strings.Split(script, "\n") {
		if rest, ok := strings.CutPrefix(line, prefix); ok {
			out = append(out, strings.Fields(rest))
		}
	}
	return out
}

// sgeSystem is a Grid Engine execution daemon: it reads the "#$" lines,
// grants the parallel environment's slots on this host, and runs the
// script (a copy in its spool directory) with the job's shell, in the
// working directory, its output and error appended to -o and -e, with
// the variables sge_execd sets.
func sgeSystem(r *rankRun, script string) ([]string, error) {
	slots, shell, cwd := 1, "/bin/sh", ""
	var stdout, stderr string
	for _, d := range directives(script, "#$ ") {
		switch d[0] {
		case "-pe":
			slots, _ = strconv.Atoi(d[2])
		case "-S":
			shell = d[1]
		case "-cwd":
			cwd = r.submit
		case "-wd":
			cwd = d[1]
		case "-o":
			stdout = d[1]
		case "-e":
			stderr = d[1]
		}
	}
	if cwd == "" || stdout == "" || stderr == "" {
		return nil, fmt.Errorf("the script names no working directory or outputs")
	}
	tmp := r.t.TempDir()
	env := r.env("JOB_ID=4711", "JOB_NAME=gmark", "NSLOTS="+strconv.Itoa(slots), "NHOSTS=1", "TMPDIR="+tmp,
		"ENVIRONMENT=BATCH", "SGE_O_WORKDIR="+r.submit, "QUEUE=all.q", "HOSTNAME="+r.host)
	if slots > 1 {
		hostFile := r.write(filepath.Join(tmp, "pe_hostfile"), fmt.Sprintf("%s %d all.q@%s UNDEFINED\n", r.host, slots, r.host))
		env = append(env, "PE=mpi", "PE_HOSTFILE="+hostFile)
	}
	r.writeStandInConf(env)
	cmd := exec.Command(shell, r.write(filepath.Join(r.home, "spool", "4711"), script))
	cmd.Env, cmd.Dir = env, cwd
	out := filepath.Join(cwd, stdout)
	cmd.Stdout, cmd.Stderr = r.appendTo(out), r.appendTo(filepath.Join(cwd, stderr))
	return []string{out}, cmd.Run()
}

// pbsSystem is a PBS MOM: it reads the "#PBS" lines, writes one line per
// requested MPI process in $PBS_NODEFILE, and runs the script with the
// job's shell in the home directory, with the variables pbs_mom sets; -o
// and -e are relative to the submission directory.
func pbsSystem(r *rankRun, script string) ([]string, error) {
	procs, shell := 1, "/bin/sh"
	var stdout, stderr string
	for _, d := range directives(script, "#PBS ") {
		switch {
		case d[0] == "-l" && strings.HasPrefix(d[1], "select="):
			procs, _ = strconv.Atoi(strings.TrimPrefix(strings.SplitN(d[1], ":", 2)[0], "select="))
		case d[0] == "-S":
			shell = d[1]
		case d[0] == "-o":
			stdout = filepath.Join(r.submit, d[1])
		case d[0] == "-e":
			stderr = filepath.Join(r.submit, d[1])
		}
	}
	if stdout == "" || stderr == "" {
		return nil, fmt.Errorf("the script names no outputs")
	}
	tmp := r.t.TempDir()
	nodeFile := r.write(filepath.Join(tmp, "nodefile"), strings.Repeat(r.host+"\n", procs))
	env := r.env("PBS_JOBID=4711.server", "PBS_JOBNAME=gmark", "PBS_NODEFILE="+nodeFile, "PBS_O_WORKDIR="+r.submit,
		"PBS_O_HOME="+r.home, "PBS_ENVIRONMENT=PBS_BATCH", "PBS_QUEUE=workq", "TMPDIR="+tmp)
	r.writeStandInConf(env)
	cmd := exec.Command(shell, r.write(filepath.Join(tmp, "4711.server.SC"), script))
	cmd.Env, cmd.Dir = env, r.home
	cmd.Stdout, cmd.Stderr = r.appendTo(stdout), r.appendTo(stderr)
	return []string{stdout}, cmd.Run()
}

// condorSystem is HTCondor's schedd and starters for one submit
// description: it reads the submit commands as condor_submit does
// ($(DOLLAR) and $(Node) expanded, arguments and environment in the new
// syntax) and starts machine_count copies in the parallel universe, one
// per node, each with _CONDOR_PROCNO (its node) and _CONDOR_NPROCS, or one
// in the vanilla universe, in initialdir, with the submit file's
// environment.
func condorSystem(r *rankRun, description string) ([]string, error) {
	keys := map[string]string{}
	for _, line := range strings.Split(description, "\n") {
		if k, v, ok := strings.Cut(line, " = "); ok && !strings.HasPrefix(line, "#") {
			keys[k] = v
		}
	}
	words := func(key string) []string {
		v := keys[key]
		if len(v) < 2 || v[0] != '"' || v[len(v)-1] != '"' {
			r.t.Fatalf("%s = %s is not in the new syntax", key, v)
		}
		w, err := splitCondorArgs(v[1 : len(v)-1])
		if err != nil {
			r.t.Fatalf("%s: %v", key, err)
		}
		return w
	}
	expand := func(s string, node int) string {
		return strings.ReplaceAll(strings.ReplaceAll(s, "$(Node)", strconv.Itoa(node)), "$(DOLLAR)", "$")
	}
	nodes := 1
	parallel := keys["universe"] == "parallel"
	if parallel {
		nodes, _ = strconv.Atoi(keys["machine_count"])
	}
	dir := filepath.Join(r.submit, keys["initialdir"])
	var procs []*exec.Cmd
	var outputs []string
	for node := range nodes {
		env := r.env(append(words("environment"), "_CONDOR_SCRATCH_DIR="+r.t.TempDir())...)
		if parallel {
			env = append(env, "_CONDOR_PROCNO="+strconv.Itoa(node), "_CONDOR_NPROCS="+strconv.Itoa(nodes))
		}
		cmd := exec.Command(expand(keys["executable"], node), words("arguments")...)
		cmd.Env, cmd.Dir = env, dir
		out := filepath.Join(dir, expand(keys["output"], node))
		cmd.Stdout, cmd.Stderr = r.appendTo(out), r.appendTo(filepath.Join(dir, expand(keys["error"], node)))
		procs, outputs = append(procs, cmd), append(outputs, out)
	}
	return outputs, startAll(procs)
}

// gramSystem is Globus GRAM with DUROC for an RSL (or KOALA) description:
// every request is a subjob started at once (co-allocated), its count
// processes in its directory with its environment and, in a multi-request,
// GLOBUS_DUROC_SUBJOB_INDEX. A jobType=mpi request runs under mpirun,
// which gives its processes PMI_RANK (0..count−1 within the subjob) and
// PMI_SIZE = count. KOALA's relations are for the scheduler, not GRAM.
func gramSystem(r *rankRun, description string) ([]string, error) {
	spec, err := parseRSL(description)
	if err != nil {
		return nil, err
	}
	requests := []*rslSpec{spec}
	if spec.op == "+" {
		requests = spec.subs
	}
	one := func(req *rslSpec, attr string) string {
		v, ok := req.relation(attr)
		if !ok || len(v) != 1 {
			r.t.Fatalf("request has no single %s", attr)
		}
		return v[0].text
	}
	var procs []*exec.Cmd
	var outputs []string
	for i, req := range requests {
		count, _ := strconv.Atoi(one(req, "count"))
		env := r.env()
		envRel, _ := req.relation("environment")
		for _, pair := range envRel {
			if !pair.isSeq || len(pair.seq) != 2 {
				return nil, fmt.Errorf("environment entry %v is not (NAME value)", pair)
			}
			env = append(env, pair.seq[0].text+"="+pair.seq[1].text)
		}
		if spec.op == "+" {
			env = append(env, "GLOBUS_DUROC_SUBJOB_INDEX="+strconv.Itoa(i))
		}
		argVals, _ := req.relation("arguments")
		dir := filepath.Join(r.submit, one(req, "directory"))
		out := filepath.Join(dir, one(req, "stdout"))
		stdout, stderr := r.appendTo(out), r.appendTo(filepath.Join(dir, one(req, "stderr")))
		for k := range count {
			cmd := exec.Command(one(req, "executable"), values(argVals)...)
			cmd.Env, cmd.Dir = env, dir
			if one(req, "jobType") == "mpi" {
				cmd.Env = append(slices.Clip(env), "PMI_RANK="+strconv.Itoa(k), "PMI_SIZE="+strconv.Itoa(count))
			}
			cmd.Stdout, cmd.Stderr = stdout, stderr
			procs = append(procs, cmd)
		}
		outputs = append(outputs, out)
	}
	return outputs, startAll(procs)
}

// summaries reads every process's summary line from the output files.
func summaries(t *testing.T, files []string) []map[string]any {
	t.Helper()
	var out []map[string]any
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, line := range bytes.Split(b, []byte("\n")) {
			if len(line) == 0 || line[0] != '{' {
				continue
			}
			s, err := output.ParseSummary(line)
			if err != nil {
				t.Fatalf("%s: %v: %s", f, err, line)
			}
			out = append(out, s)
		}
	}
	return out
}

func num(s map[string]any, key string) int {
	f, _ := s[key].(float64)
	return int(f)
}

// checkRanks wants one summary per process of j, with the ranks 0..P−1 of
// P, each in its component when the system keeps the components apart
// (else 0), and a complete exchange with the other P−1.
func checkRanks(t *testing.T, j *workload.Job, sums []map[string]any, components bool) {
	t.Helper()
	p := j.Processors()
	if len(sums) != p {
		t.Fatalf("%d summaries, want %d: %v", len(sums), p, sums)
	}
	var ranks []int
	for _, s := range sums {
		ranks = append(ranks, num(s, "rank"))
	}
	slices.Sort(ranks)
	for i, rank := range ranks {
		if rank != i {
			t.Fatalf("ranks %v, want 0..%d each once", ranks, p-1)
		}
	}
	for _, s := range sums {
		rank, wantComponent := num(s, "rank"), 0
		for c, first := 0, 0; components && c < len(j.Components); c++ {
			if rank >= first {
				wantComponent = c
			}
			first += j.Components[c].Count
		}
		elements := rankSupersteps * rankExchange * (p - 1)
		if s["ok"] != true || s["job_id"] != j.ID || num(s, "size") != p || num(s, "component") != wantComponent ||
			num(s, "peers") != p-1 || num(s, "sent_elements") != elements || num(s, "received_elements") != elements {
			t.Errorf("rank %d: summary %v; want ok, job %s, size %d, component %d, %d peers, %d elements sent and received",
				rank, s, j.ID, p, wantComponent, p-1, elements)
		}
	}
}

// TestRanksEverywhere: for every system, a job of one processor, of four,
// and a co-allocated job of two components of two, through each way the
// printed job may start its processes there.
func TestRanksEverywhere(t *testing.T) {
	systems := []struct {
		name, format string
		run          system
		mpi          string   // which mpiexec is on PATH ("" none)
		tools        []string // the stand-ins on PATH
		components   bool     // whether the system keeps the components apart
		// separate: each component runs in a directory of its own (an ARC
		// CE's session directories), so the job is told where its
		// processes meet (GMARK_RENDEZVOUS_FILE), as the arc target does.
		separate bool
	}{
		{"sge-hydra", "sge", sgeSystem, "hydra", []string{"mpiexec"}, false, false},
		{"sge-script", "sge", sgeSystem, "", nil, false, false},
		{"pbs-openmpi", "pbs", pbsSystem, "openmpi", []string{"mpiexec", "pbsdsh"}, false, false},
		{"pbs-pbsdsh", "pbs", pbsSystem, "", []string{"pbsdsh"}, false, false},
		{"pbs-script", "pbs", pbsSystem, "", nil, false, false},
		{"condor", "classad", condorSystem, "", nil, false, false},
		{"rsl", "rsl", gramSystem, "", nil, true, false},
		{"koala", "koala", gramSystem, "", nil, true, false},
		{"xrsl", "xrsl", arcSystem, "", nil, true, true},
	}
	jobs := []struct {
		name   string
		counts []int
	}{{"one", []int{1}}, {"four", []int{4}}, {"two-plus-two", []int{2, 2}}}
	bin := gmarkBin.Path(t)
	for _, sys := range systems {
		for _, jc := range jobs {
			t.Run(sys.name+"/"+jc.name, func(t *testing.T) {
				j := smpiRankJob("r-"+jc.name, jc.counts...)
				r := newRankRun(t, sys.mpi, sys.tools...)
				cfg := Config{Executable: bin}
				if sys.separate {
					cfg.Env = []string{jobenv.RendezvousFile + "=" + filepath.Join(r.submit, "rendezvous")}
				}
				description := printToString(t, mustLookup(t, sys.format), j, cfg)
				outputs, err := sys.run(r, description)
				if err != nil {
					logOutputs(t, r.submit)
					t.Fatalf("the job failed: %v\n%s", err, description)
				}
				checkRanks(t, j, summaries(t, outputs), sys.components)
			})
		}
	}
}

// logOutputs shows what a failed job wrote.
func logOutputs(t *testing.T, dir string) {
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if b, err := os.ReadFile(filepath.Join(dir, e.Name())); err == nil && !e.IsDir() {
			t.Logf("%s:\n%s", e.Name(), b)
		}
	}
}

// TestRankEnvironmentConstants: the printers write the names apps/jobenv
// reads (printers may not import it).
func TestRankEnvironmentConstants(t *testing.T) {
	pairs := [][2]string{{JobIDEnv, jobenv.JobID}, {sizeEnv, jobenv.Size}, {rankBaseEnv, jobenv.RankBase}, {localRankEnv, jobenv.LocalRank},
		{componentEnv, jobenv.Component}}
	for _, p := range pairs {
		if p[0] != p[1] {
			t.Errorf("printers write %s, apps/jobenv reads %s", p[0], p[1])
		}
	}
}

// TestRankEnvironmentErrors: what a process makes of a launcher that gets
// it wrong, or of a job description that does not say the size: the real
// gmark exits 2 (bad usage, nothing ran) naming the variables.
func TestRankEnvironmentErrors(t *testing.T) {
	cases := []struct {
		name string
		env  []string
		want string
	}{
		{"launcher rank not below its size", []string{"GMARK_SIZE=4", "GMARK_RANK_BASE=2", "PMI_RANK=2", "PMI_SIZE=2"},
			"PMI_RANK=2 is not below PMI_SIZE=2"},
		{"component past the job's size", []string{"GMARK_SIZE=4", "GMARK_RANK_BASE=2", "GMARK_LOCAL_RANK=2"},
			"rank 4 (from GMARK_RANK_BASE+GMARK_LOCAL_RANK) is not below the job size 4"},
		{"PMIx rank without a size", []string{"PMIX_RANK=1"},
			"PMIX_RANK says the rank but not how many processes there are: set GMARK_SIZE"},
		{"pbsdsh task without a size", []string{"PBS_VNODENUM=3"},
			"PBS_VNODENUM says the rank but not how many processes there are: set GMARK_SIZE"},
		{"Condor node past its gang", []string{"_CONDOR_PROCNO=4", "_CONDOR_NPROCS=4"},
			"_CONDOR_PROCNO=4 is not below _CONDOR_NPROCS=4"},
	}
	bin := gmarkBin.Path(t)
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			cmd := exec.Command(bin, append([]string{"app", "smpi"}, smpiRankJob("e").App.Args()...)...)
			cmd.Env = append([]string{"PATH=" + os.Getenv("PATH"), "GMARK_JOB_ID=e"}, c.env...)
			cmd.Dir = t.TempDir()
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			err := cmd.Run()
			var ee *exec.ExitError
			if !errors.As(err, &ee) || ee.ExitCode() != 2 {
				t.Fatalf("exit %v, want status 2\n%s", err, stderr.String())
			}
			if !strings.Contains(stderr.String(), c.want) {
				t.Errorf("stderr %q does not say %q", stderr.String(), c.want)
			}
		})
	}
}
