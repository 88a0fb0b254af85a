package printers

import (
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gmark/gmark/workload"
)

// Structural checks: what each format's reader requires of a description,
// checked on every description the golden tests print. A check that passes
// on a wrong file is worthless, so each one parses rather than greps where
// the format has structure.

// reporter is the part of *testing.T the checks use, so that a test can run
// a check on broken output and see it fail.
type reporter interface {
	Helper()
	Errorf(format string, args ...any)
	Fatalf(format string, args ...any)
}

type structureCheck func(t reporter, j *workload.Job, cfg Config, out string)

var structureChecks = map[string]structureCheck{
	"rsl":     checkRSL,
	"koala":   checkKoala,
	"classad": checkClassad,
	"sbatch":  checkSbatch,
	"sge":     checkSGE,
	"pbs":     checkPBS,
	"dagman":  checkDAGMan,
	"dot":     checkDOT,
	"xrsl":    checkXRSL,
}

func TestEveryPrinterHasAStructureCheck(t *testing.T) {
	for _, name := range Names() {
		if structureChecks[name] == nil {
			t.Errorf("printer %s has no structure check", name)
		}
	}
}

func values(vs []rslValue) []string {
	out := make([]string, len(vs))
	for i, v := range vs {
		out[i] = v.String()
	}
	return out
}

// checkRSLRequest checks one "&" request against component i of j.
func checkRSLRequest(t reporter, req *rslSpec, j *workload.Job, cfg Config, i int, multi bool) {
	t.Helper()
	c := j.Components[i]
	if req.op != "&" {
		t.Fatalf("component %d: request op %q, want &", i, req.op)
	}
	for _, sub := range req.subs {
		if sub.op != "" || sub.relOp != "=" {
			t.Errorf("component %d: %q is not an attribute = value relation", i, sub.attr)
		}
	}
	want := map[string][]string{
		"count":      {strconv.Itoa(c.Count)},
		"executable": {cfg.withDefaults().Executable},
		"arguments":  commandLine(j, cfg.withDefaults())[1:],
	}
	if j.WallTime > 0 {
		want["maxWallTime"] = []string{strconv.FormatInt(wallMinutes(j.WallTime), 10)}
	}
	want["environment"] = rslWantEnv(j, i, multi)
	if multi {
		want["label"] = []string{fmt.Sprintf("subjob %d", i)}
	}
	if c.Site != workload.AnySite {
		want["resourceManagerContact"] = []string{c.Site}
	} else if req.relations("resourceManagerContact") != 0 {
		t.Errorf("component %d names no site but has a resourceManagerContact", i)
	}
	for attr, w := range want {
		got, ok := req.relation(attr)
		if !ok {
			t.Errorf("component %d: no %s relation", i, attr)
			continue
		}
		if !slices.Equal(values(got), w) {
			t.Errorf("component %d: %s = %q, want %q", i, attr, values(got), w)
		}
		if n := req.relations(attr); n != 1 {
			t.Errorf("component %d: %d %s relations, want 1", i, n, attr)
		}
	}
	jobType, _ := req.relation("jobType")
	wantType := "single"
	switch {
	case isMPIApp(j.App.Name):
		wantType = "mpi"
	case c.Count > 1:
		wantType = "multiple"
	}
	if len(jobType) != 1 || jobType[0].text != wantType {
		t.Errorf("component %d: jobType %q, want %s", i, values(jobType), wantType)
	}
}

// rslWantEnv is the environment of request i: the job id, the DUROC
// subjob index in a multi-request, and, when every process of the job gets
// a distinct rank within its request (an MPI program, or requests of one
// process each) and there is more than one, the job's size and, in a
// multi-request, the global rank of the request's first process.
func rslWantEnv(j *workload.Job, i int, multi bool) []string {
	env := []string{fmt.Sprintf("(%s %s)", JobIDEnv, j.ID)}
	if multi {
		env = append(env, fmt.Sprintf("(GLOBUS_DUROC_SUBJOB_INDEX %d)", i))
	}
	distinct, base := isMPIApp(j.App.Name), 0
	if !distinct {
		distinct = !slices.ContainsFunc(j.Components, func(c workload.Component) bool { return c.Count > 1 })
	}
	for _, c := range j.Components[:i] {
		base += c.Count
	}
	if distinct && j.Processors() > 1 {
		env = append(env, fmt.Sprintf("(GMARK_SIZE %d)", j.Processors()))
		if multi {
			env = append(env, fmt.Sprintf("(GMARK_RANK_BASE %d)", base))
		}
	}
	return env
}

func checkRSL(t reporter, j *workload.Job, cfg Config, out string) {
	spec, err := parseRSL(out)
	if err != nil {
		t.Fatalf("not RSL: %v", err)
	}
	if len(j.Components) == 1 {
		checkRSLRequest(t, spec, j, cfg, 0, false)
		return
	}
	checkMultiRequest(t, spec, j, cfg)
}

func checkMultiRequest(t reporter, spec *rslSpec, j *workload.Job, cfg Config) {
	t.Helper()
	if spec.op != "+" {
		t.Fatalf("a co-allocated job is a %q request, want a + multi-request", spec.op)
	}
	if len(spec.subs) != len(j.Components) {
		t.Fatalf("%d subrequests for %d components", len(spec.subs), len(j.Components))
	}
	for i, sub := range spec.subs {
		checkRSLRequest(t, sub, j, cfg, i, true)
	}
}

func checkKoala(t reporter, j *workload.Job, cfg Config, out string) {
	spec, err := parseRSL(out)
	if err != nil {
		t.Fatalf("not RSL: %v", err)
	}
	checkMultiRequest(t, spec, j, cfg)
	var wantFiles []string
	for _, f := range j.Files {
		wantFiles = append(wantFiles, fmt.Sprintf("(%s %d)", f.Name, f.Size))
	}
	for i, sub := range spec.subs {
		rt, _ := sub.relation("koalaRequestType")
		if len(rt) != 1 || !slices.Contains([]string{KoalaFixed, KoalaNonFixed, KoalaSemiFixed, KoalaFlexible}, rt[0].text) {
			t.Errorf("subrequest %d: koalaRequestType %q", i, values(rt))
		} else if rt[0].text != koalaRequestType(j) {
			t.Errorf("subrequest %d: koalaRequestType %s, want %s", i, rt[0].text, koalaRequestType(j))
		}
		files, ok := sub.relation("koalaInputFiles")
		if ok != (len(j.Files) > 0) || !slices.Equal(values(files), wantFiles) {
			t.Errorf("subrequest %d: koalaInputFiles %q, want %q", i, values(files), wantFiles)
		}
	}
}

// submitCommands are the condor_submit commands the classad printer may
// write, as the HTCondor manual spells them.
var submitCommands = []string{
	"universe", "executable", "transfer_executable", "arguments", "initialdir", "output", "error",
	"log", "machine_count", "request_cpus", "requirements", "environment", "periodic_remove",
}

func checkClassad(t reporter, j *workload.Job, cfg Config, out string) {
	t.Helper()
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	queues := 0
	keys := map[string]string{}
	for n, line := range lines {
		switch {
		case line == "queue":
			queues++
			if n != len(lines)-1 {
				t.Errorf("line %d: queue is not the last line", n+1)
			}
			continue
		case strings.HasPrefix(line, "#"):
			continue
		}
		key, value, ok := strings.Cut(line, " = ")
		if !ok {
			t.Errorf("line %d: %q is not key = value", n+1, line)
			continue
		}
		if !strings.HasPrefix(key, "+") && !slices.Contains(submitCommands, key) {
			t.Errorf("line %d: %q is not a submit command", n+1, key)
		}
		if _, dup := keys[key]; dup {
			t.Errorf("line %d: %s given twice", n+1, key)
		}
		keys[key] = value
	}
	if queues != 1 {
		t.Errorf("%d queue lines, want exactly 1", queues)
	}
	parallel := j.Processors() > 1 || len(j.Components) > 1
	wantUniverse := map[bool]string{false: "vanilla", true: "parallel"}[parallel]
	if keys["universe"] != wantUniverse {
		t.Errorf("universe = %q, want %s", keys["universe"], wantUniverse)
	}
	if parallel && keys["machine_count"] != strconv.Itoa(j.Processors()) {
		t.Errorf("machine_count = %q, want %d", keys["machine_count"], j.Processors())
	}
	if keys["+GmarkJobId"] != strconv.Quote(j.ID) {
		t.Errorf("+GmarkJobId = %q, want %q", keys["+GmarkJobId"], strconv.Quote(j.ID))
	}
	wantEnv := []string{JobIDEnv + "=" + j.ID}
	if parallel {
		wantEnv = append(wantEnv, fmt.Sprintf("GMARK_SIZE=%d", j.Processors()))
	}
	if env := keys["environment"]; len(env) < 2 || env[0] != '"' || env[len(env)-1] != '"' {
		t.Errorf("environment %s not in the new (double-quoted) syntax", env)
	} else if got, err := splitCondorArgs(env[1 : len(env)-1]); err != nil || !slices.Equal(got, wantEnv) {
		t.Errorf("environment %s read back as %q (%v), want %q", env, got, err, wantEnv)
	}
	args := keys["arguments"]
	if len(args) < 2 || args[0] != '"' || args[len(args)-1] != '"' {
		t.Errorf("arguments %s not in the new (double-quoted) syntax", args)
	} else if got, err := splitCondorArgs(args[1 : len(args)-1]); err != nil || !slices.Equal(got, commandLine(j, cfg.withDefaults())[1:]) {
		t.Errorf("arguments %s read back as %q (%v)", args, got, err)
	}
}

// splitCondorArgs reads back an HTCondor new-syntax argument string (without
// its outer quotes), as condor_submit does, with $(DOLLAR) expanded.
func splitCondorArgs(s string) ([]string, error) {
	s = strings.ReplaceAll(s, "$(DOLLAR)", "$")
	var args []string
	var cur strings.Builder
	inArg, quoted := false, false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '"':
			if i+1 >= len(s) || s[i+1] != '"' {
				return nil, fmt.Errorf("lone double quote at %d", i)
			}
			cur.WriteByte('"')
			i++
			inArg = true
		case c == '\'' && quoted && i+1 < len(s) && s[i+1] == '\'':
			cur.WriteByte('\'')
			i++
		case c == '\'':
			quoted = !quoted
			inArg = true
		case (c == ' ' || c == '\t') && !quoted:
			if inArg {
				args = append(args, cur.String())
				cur.Reset()
				inArg = false
			}
		default:
			cur.WriteByte(c)
			inArg = true
		}
	}
	if quoted {
		return nil, fmt.Errorf("unterminated single quote")
	}
	if inArg {
		args = append(args, cur.String())
	}
	return args, nil
}

// scriptLines splits a batch script into its directive lines (those with the
// given prefix) and checks that they all come before the first command, where
// every batch system stops reading them.
func scriptLines(t reporter, out, prefix string) (directives []string) {
	t.Helper()
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	if lines[0] != "#!/bin/sh" {
		t.Errorf("first line %q, want #!/bin/sh", lines[0])
	}
	commands := 0
	for n, line := range lines {
		switch {
		case strings.HasPrefix(line, prefix):
			if commands > 0 {
				t.Errorf("line %d: directive %q after the first command", n+1, line)
			}
			directives = append(directives, strings.TrimPrefix(line, prefix))
		case strings.HasPrefix(line, "#") || line == "":
		default:
			commands++
		}
	}
	if commands == 0 {
		t.Errorf("script has no command")
	}
	if !strings.Contains(out, "export "+JobIDEnv+"=") {
		t.Errorf("script does not export %s", JobIDEnv)
	}
	return directives
}

var sbatchDirective = regexp.MustCompile(`^ (hetjob|--(job-name|comment|time|chdir|output|error|clusters|ntasks|begin|deadline)=(\S+))$`)

func checkSbatch(t reporter, j *workload.Job, cfg Config, out string) {
	ntasks, hetjobs := 0, 0
	begin, deadline := -1, -1
	for _, d := range scriptLines(t, out, "#SBATCH") {
		m := sbatchDirective.FindStringSubmatch(d)
		if m == nil {
			t.Errorf("#SBATCH%s is not a directive this printer writes", d)
			continue
		}
		switch m[2] {
		case "":
			hetjobs++
		case "ntasks":
			n, _ := strconv.Atoi(m[3])
			ntasks += n
		case "comment":
			if m[3] != "gmark:"+j.ID {
				t.Errorf("--comment=%s, want gmark:%s", m[3], j.ID)
			}
		case "job-name":
			if m[3] != "gmark-"+j.ID {
				t.Errorf("--job-name=%s, want gmark-%s", m[3], j.ID)
			}
		case "time":
			if !regexp.MustCompile(`^(\d+|\d+:\d\d:\d\d)$`).MatchString(m[3]) {
				t.Errorf("--time=%s is not minutes or H:MM:SS", m[3])
			}
		case "begin", "deadline":
			n, err := strconv.Atoi(strings.TrimPrefix(m[3], "now+"))
			if err != nil || !strings.HasPrefix(m[3], "now+") {
				t.Errorf("--%s=%s is not now+SECONDS", m[2], m[3])
			}
			if m[2] == "begin" {
				begin = n
			} else {
				deadline = n
			}
		}
	}
	// A start deadline R after the submission: --begin=now+R, and with a
	// wall time T, --deadline=now+(R+T+slack), so that a later start is
	// removed.
	if j.Deadline > 0 {
		rel := int((max(0, j.Deadline-j.Submit) + time.Second - 1) / time.Second)
		limit := int((j.WallTime + time.Second - 1) / time.Second)
		if j.WallTime%time.Minute == 0 {
			limit = 60 * int((j.WallTime+time.Minute-1)/time.Minute)
		}
		slack := int(SlurmDeadlineSlack / time.Second)
		if begin != rel || (j.WallTime > 0 && deadline != rel+limit+slack) || (j.WallTime == 0 && deadline != -1) {
			t.Errorf("deadline %v after the submission, wall time %v: --begin=now+%d --deadline=now+%d, want %d and %d", j.Deadline-j.Submit, j.WallTime, begin, deadline, rel, rel+limit+slack)
		}
	} else if begin != -1 || deadline != -1 {
		t.Errorf("a job without a deadline has --begin or --deadline")
	}
	if ntasks != j.Processors() {
		t.Errorf("--ntasks add up to %d, want %d", ntasks, j.Processors())
	}
	if hetjobs != 0 && hetjobs != len(j.Components)-1 {
		t.Errorf("%d hetjob separators for %d components", hetjobs, len(j.Components))
	}
	// A heterogeneous step's tasks are numbered through its components;
	// the script says the whole job's size.
	size := regexp.MustCompile(`(?m)^export GMARK_SIZE=(\d+)$`).FindStringSubmatch(out)
	if hetjobs > 0 && (size == nil || size[1] != strconv.Itoa(j.Processors())) {
		t.Errorf("heterogeneous job: GMARK_SIZE export %q, want %d", size, j.Processors())
	}
	if hetjobs == 0 && size != nil {
		t.Errorf("a plain job exports %s: srun says the size, and a submitter's --export must stand", size[0])
	}
}

// checkBatchLaunch checks how a SGE or PBS script starts its program: a job
// of one processor execs it; a larger job exports GMARK_SIZE and starts its
// processes with mpiexec, (PBS) pbsdsh or a loop that gives each a
// GMARK_LOCAL_RANK, n processes each way.
func checkBatchLaunch(t reporter, j *workload.Job, cfg Config, out string, pbs bool) {
	t.Helper()
	var command []byte
	command = appendShellCommand(command, j, cfg.withDefaults())
	n := j.Processors()
	var want []string
	if n == 1 {
		want = []string{"exec " + string(command)}
	} else {
		want = []string{
			fmt.Sprintf("export GMARK_SIZE=%d", n),
			fmt.Sprintf("\texec mpiexec -n %d %s", n, command),
			fmt.Sprintf(`while [ "$r" -lt %d ]; do`, n),
			fmt.Sprintf("\tGMARK_LOCAL_RANK=$r %s &", command),
			`exit "$status"`,
		}
		if pbs {
			want = append(want, fmt.Sprintf("\texec pbsdsh -c %d -- /bin/sh -c 'cd \"$1\" || exit 1; export GMARK_JOB_ID=\"$2\" GMARK_SIZE=\"$3\"; "+
				`shift 3; exec "$@"' gmark-task "$PWD" "$GMARK_JOB_ID" "$GMARK_SIZE" %s`, n, command))
		}
	}
	lines := strings.Split(out, "\n")
	for _, w := range want {
		if !slices.Contains(lines, w) {
			t.Errorf("no line %q", w)
		}
	}
	if strings.Contains(out, "GMARK_SIZE") != (n > 1) {
		t.Errorf("GMARK_SIZE in a job of %d processors: %v", n, n > 1)
	}
}

func checkSGE(t reporter, j *workload.Job, cfg Config, out string) {
	directives := scriptLines(t, out, "#$ ")
	if !slices.Contains(directives, "-N "+batchJobName(j.ID)) {
		t.Errorf("no -N %s directive", batchJobName(j.ID))
	}
	pe := slices.Contains(directives, fmt.Sprintf("-pe mpi %d", j.Processors()))
	if pe != (j.Processors() > 1) {
		t.Errorf("-pe mpi %d directive present: %v, want %v", j.Processors(), pe, j.Processors() > 1)
	}
	checkBatchLaunch(t, j, cfg, out, false)
}

func checkPBS(t reporter, j *workload.Job, cfg Config, out string) {
	directives := scriptLines(t, out, "#PBS ")
	if !slices.Contains(directives, "-N "+batchJobName(j.ID)) {
		t.Errorf("no -N %s directive", batchJobName(j.ID))
	}
	if want := fmt.Sprintf("-l select=%d:ncpus=1:mpiprocs=1", j.Processors()); !slices.Contains(directives, want) {
		t.Errorf("no %s directive", want)
	}
	checkBatchLaunch(t, j, cfg, out, true)
}

func checkDAGMan(t reporter, j *workload.Job, cfg Config, out string) {
	nodes := []workload.Job{*j}
	if j.Kind == workload.Composite {
		nodes = j.Tasks
	}
	descriptions := map[string]string{} // name → body
	declared := map[string]int{}
	var edges []workload.Dependency
	retries := 0
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	for n := 0; n < len(lines); n++ {
		f := strings.Fields(lines[n])
		switch {
		case len(f) == 0 || strings.HasPrefix(f[0], "#"):
		case f[0] == "SUBMIT-DESCRIPTION" && len(f) == 3 && f[2] == "{":
			var body strings.Builder
			for n++; n < len(lines) && lines[n] != "}"; n++ {
				body.WriteString(strings.TrimPrefix(lines[n], "    ") + "\n")
			}
			if n == len(lines) {
				t.Fatalf("SUBMIT-DESCRIPTION %s is not closed", f[1])
			}
			descriptions[f[1]] = body.String()
		case f[0] == "JOB" && len(f) == 3:
			if _, ok := descriptions[f[2]]; !ok {
				t.Errorf("JOB %s uses undeclared description %s", f[1], f[2])
			}
			declared[f[1]]++
			for i := range nodes {
				if nodes[i].ID == f[1] {
					checkClassad(t, &nodes[i], cfg, descriptions[f[2]])
				}
			}
		case f[0] == "PARENT" && len(f) == 4 && f[2] == "CHILD":
			edges = append(edges, workload.Dependency{From: f[1], To: f[3]})
		case f[0] == "RETRY" && len(f) == 3:
			if f[2] != strconv.Itoa(cfg.Retries) {
				t.Errorf("RETRY %s %s, want %d", f[1], f[2], cfg.Retries)
			}
			retries++
		default:
			t.Errorf("line %d: %q is not a DAGMan command this printer writes", n+1, lines[n])
		}
	}
	for _, node := range nodes {
		if declared[node.ID] != 1 {
			t.Errorf("node %s declared %d times, want once", node.ID, declared[node.ID])
		}
	}
	if len(declared) != len(nodes) {
		t.Errorf("%d nodes declared for %d tasks", len(declared), len(nodes))
	}
	if !slices.Equal(edges, j.Deps) {
		t.Errorf("PARENT/CHILD lines %v, want %v", edges, j.Deps)
	}
	if want := map[bool]int{false: 0, true: len(nodes)}[cfg.Retries > 0]; retries != want {
		t.Errorf("%d RETRY lines, want %d", retries, want)
	}
}

var dotNode = regexp.MustCompile(`^\t"([^"]*)" \[label="([^"]*)"\];$`)
var dotEdge = regexp.MustCompile(`^\t"([^"]*)" -> "([^"]*)";$`)

func checkDOT(t reporter, j *workload.Job, cfg Config, out string) {
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	if lines[0] != fmt.Sprintf("digraph %q {", j.ID) || lines[len(lines)-1] != "}" {
		t.Fatalf("not a digraph named %s: %q … %q", j.ID, lines[0], lines[len(lines)-1])
	}
	nodes := []workload.Job{*j}
	if j.Kind == workload.Composite {
		nodes = j.Tasks
	}
	var gotNodes []string
	var gotEdges []workload.Dependency
	for _, line := range lines[1 : len(lines)-1] {
		if m := dotNode.FindStringSubmatch(line); m != nil {
			gotNodes = append(gotNodes, m[1])
		} else if m := dotEdge.FindStringSubmatch(line); m != nil {
			gotEdges = append(gotEdges, workload.Dependency{From: m[1], To: m[2]})
		} else {
			t.Errorf("line %q is neither a node nor an edge", line)
		}
	}
	var wantNodes []string
	for _, n := range nodes {
		wantNodes = append(wantNodes, n.ID)
	}
	if !slices.Equal(gotNodes, wantNodes) || !slices.Equal(gotEdges, j.Deps) {
		t.Errorf("graph has nodes %v edges %v, want %v and %v", gotNodes, gotEdges, wantNodes, j.Deps)
	}
}
