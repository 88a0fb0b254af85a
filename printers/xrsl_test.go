package printers

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/gmark/gmark/apps"
	"github.com/gmark/gmark/workload"
)

// xrslRequests are the requests of an xRSL description: the one "&", or
// each "&" of a "+".
func xrslRequests(t reporter, out string, components int) []*rslSpec {
	t.Helper()
	spec, err := parseRSL(out)
	if err != nil {
		t.Fatalf("not xRSL: %v", err)
	}
	if components == 1 {
		if spec.op != "&" {
			t.Fatalf("a job of one component is a %q request, want &", spec.op)
		}
		return []*rslSpec{spec}
	}
	if spec.op != "+" || len(spec.subs) != components {
		t.Fatalf("a job of %d components is a %q request of %d, want a + of one request each", components, spec.op, len(spec.subs))
	}
	return spec.subs
}

// xrslCommand is the command a request runs: the program's words, once
// the launch script (/bin/sh -c SCRIPT gmark-job WORDS…) is taken off; and
// the script ("" for none).
func xrslCommand(t reporter, req *rslSpec) (words []string, script string) {
	t.Helper()
	exe, _ := req.relation("executable")
	args, _ := req.relation("arguments")
	if len(exe) != 1 {
		t.Fatalf("executable %q", values(exe))
	}
	words = append([]string{exe[0].text}, values(args)...)
	if words[0] != "/bin/sh" {
		return words, ""
	}
	if len(words) < 4 || words[1] != "-c" || words[3] != "gmark-job" {
		t.Fatalf("a launch script must be /bin/sh -c SCRIPT gmark-job WORDS…, not %q", words)
	}
	return words[4:], words[2]
}

// checkXRSL checks every request against its component: one relation each
// of the attributes written, the program's words, the count, the wall
// time in seconds, the output files kept, the environment of its rank
// space, the staged inputs, and a launch script exactly where there are
// several processes or a hold, free of what ARC's back ends expand.
func checkXRSL(t reporter, j *workload.Job, cfg Config, out string) {
	t.Helper()
	multi := len(j.Components) > 1
	for i, req := range xrslRequests(t, out, len(j.Components)) {
		c := j.Components[i]
		name, files := "gmark-"+j.ID, j.ID
		if multi {
			name, files = fmt.Sprintf("gmark-%s.c%d", j.ID, i), componentName(j.ID, i)
		}
		if cfg.Name != "" {
			name, files = cfg.Name, cfg.Name
		}
		want := map[string][]string{
			"jobname":     {name},
			"count":       {strconv.Itoa(c.Count)},
			"stdout":      {files + ".out"},
			"stderr":      {files + ".err"},
			"outputFiles": {fmt.Sprintf("(%s.out )", files), fmt.Sprintf("(%s.err )", files)},
			"environment": xrslWantEnv(j, cfg, i, multi),
		}
		if j.WallTime > 0 {
			want["wallTime"] = []string{fmt.Sprintf("%d seconds", wallSeconds(j.WallTime))}
		}
		if ins := StagedInputs(j); len(ins) > 0 {
			var v []string
			for _, in := range ins {
				v = append(v, "("+in+" )")
			}
			want["inputFiles"] = v
		}
		for attr, w := range want {
			got, ok := req.relation(attr)
			if !ok || !slices.Equal(values(got), w) || req.relations(attr) != 1 {
				t.Errorf("request %d: %s = %q (%d relations), want %q once", i, attr, values(got), req.relations(attr), w)
			}
		}
		for _, attr := range []string{"executable", "arguments", "jobname", "count", "stdout", "stderr", "outputFiles", "environment"} {
			if req.relations(attr) != 1 {
				t.Errorf("request %d: %d %s relations, want 1", i, req.relations(attr), attr)
			}
		}
		words, script := xrslCommand(t, req)
		if !slices.Equal(words, commandLine(j, cfg.withDefaults())) {
			t.Errorf("request %d runs %q, want %q", i, words, commandLine(j, cfg.withDefaults()))
		}
		if (script != "") != (c.Count > 1 || cfg.HoldUntil != "") {
			t.Errorf("request %d of %d processes (hold %q) has launch script %q", i, c.Count, cfg.HoldUntil, script)
		}
		if c.Count > 1 {
			// Each process is started once, and waited for.
			cmd := string(appendShellCommand(nil, j, cfg.withDefaults()))
			for r := range c.Count {
				if n := strings.Count(script, fmt.Sprintf("GMARK_LOCAL_RANK=%d %s & ", r, cmd)); n != 1 {
					t.Errorf("request %d: process %d started %d times: %s", i, r, n, script)
				}
				if !strings.Contains(script, fmt.Sprintf("wait %%%d ", r+1)) && !strings.HasSuffix(script, fmt.Sprintf("wait %%%d", r+1)) {
					t.Errorf("request %d: process %d not waited for: %s", i, r, script)
				}
			}
			if n := strings.Count(script, "GMARK_LOCAL_RANK="); n != c.Count {
				t.Errorf("request %d: %d processes started, want %d", i, n, c.Count)
			}
		}
		if strings.ContainsAny(script, xrslUnsafe) {
			t.Errorf("request %d: the launch script has one of %q, which ARC's back ends expand: %s", i, xrslUnsafe, script)
		}
	}
}

// xrslWantEnv is request i's environment as the checks read it.
func xrslWantEnv(j *workload.Job, cfg Config, i int, multi bool) []string {
	env := []string{fmt.Sprintf("(%s %s)", JobIDEnv, j.ID)}
	if p := j.Processors(); p > 1 {
		env = append(env, fmt.Sprintf("(GMARK_SIZE %d)", p))
		if multi {
			env = append(env, fmt.Sprintf("(GMARK_COMPONENT %d)", i), fmt.Sprintf("(GMARK_RANK_BASE %d)", rankBase(j, i)))
		}
	}
	for _, kv := range cfg.Env {
		k, v, _ := strings.Cut(kv, "=")
		env = append(env, "("+k+" "+v+")")
	}
	return env
}

// The xrsl printer refuses what ARC's back ends would expand, wherever it
// is, and takes everything else, quotes and parentheses included.
func TestXRSLRefusesWhatTheShellExpands(t *testing.T) {
	p := mustLookup(t, "xrsl")
	for _, bad := range []string{"a$b", "`id`", `back\slash`, "$(x)"} {
		for _, where := range []string{"param", "executable", "hold", "env", "queue"} {
			j, cfg := singleJob(), Config{}
			switch where {
			case "param":
				j.App.Params = append(j.App.Params, workload.Param{Key: "tag", Value: bad})
			case "executable":
				cfg.Executable = "/opt/" + bad
			case "hold":
				cfg.HoldUntil = "/tmp/" + bad
			case "env":
				cfg.Env = []string{"X=" + bad}
			case "queue":
				cfg.Queue = bad
			}
			err := p.Print(&strings.Builder{}, j, cfg)
			if err == nil || !strings.Contains(err.Error(), "ARC's back ends") {
				t.Errorf("%s %q: %v, want a refusal", where, bad, err)
			}
			if err := p.(ComponentPrinter).PrintComponent(&strings.Builder{}, j, 0, cfg); err == nil {
				t.Errorf("PrintComponent took %s %q", where, bad)
			}
		}
	}
	j := singleJob()
	j.App.Params = append(j.App.Params, workload.Param{Key: "tag", Value: `it's a "big" (run) *) #1`})
	out := printToString(t, p, j, Config{})
	checkXRSL(t, j, Config{}, out)
}

// PrintComponent writes one component alone, as its own job, with the
// name, queue, hold and environment the submitter gives; a component that
// is not there is an error.
func TestXRSLPrintComponent(t *testing.T) {
	p := mustLookup(t, "xrsl").(ComponentPrinter)
	j := coallocJob()
	cfg := Config{Name: "gmark-3-1.c2.t2.a1-r7", Queue: "main", HoldUntil: "/work/release/3-1.a1-r7", Env: []string{"GMARK_RENDEZVOUS_FILE=/work/rdv/3-1"}}
	var b strings.Builder
	if err := p.PrintComponent(&b, j, 2, cfg); err != nil {
		t.Fatal(err)
	}
	one := *j
	one.Components = j.Components[2:]
	reqs := xrslRequests(t, b.String(), 1)
	if q, _ := reqs[0].relation("queue"); len(q) != 1 || q[0].text != "main" {
		t.Errorf("queue %q", values(q))
	}
	env, _ := reqs[0].relation("environment")
	want := []string{"(GMARK_JOB_ID 3-1)", "(GMARK_SIZE 8)", "(GMARK_COMPONENT 2)", "(GMARK_RANK_BASE 6)", "(GMARK_RENDEZVOUS_FILE /work/rdv/3-1)"}
	if !slices.Equal(values(env), want) {
		t.Errorf("environment %q, want %q", values(env), want)
	}
	if _, script := xrslCommand(t, reqs[0]); !strings.HasPrefix(script, "while [ ! -e /work/release/3-1.a1-r7 ]") {
		t.Errorf("the component does not hold first: %s", script)
	}
	for _, i := range []int{-1, 3} {
		if err := p.PrintComponent(&b, j, i, cfg); err == nil || !strings.Contains(err.Error(), "has 3 components") {
			t.Errorf("component %d: %v", i, err)
		}
	}
}

// StagedInputs names the files sserio reads (apps.InputName), by its
// defaults and its flags, and nothing for other applications.
func TestStagedInputs(t *testing.T) {
	j := singleJob()
	j.App.Name = "sserio"
	if got, want := StagedInputs(j), []string{apps.InputName(1, 64), apps.InputName(2, 64)}; !slices.Equal(got, want) {
		t.Errorf("defaults: %q, want %q", got, want)
	}
	j.App.Params = []workload.Param{{Key: "input1", Value: "0"}, {Key: "input2", Value: "2048"}}
	if got, want := StagedInputs(j), []string{apps.InputName(2, 2048)}; !slices.Equal(got, want) {
		t.Errorf("input1 0, input2 2048: %q, want %q", got, want)
	}
	if got := StagedInputs(singleJob()); got != nil {
		t.Errorf("sser: %q", got)
	}
}

// arcSystem runs an xRSL description as an ARC CE's back end does: each
// request is a job of its own in a session directory of its own, its
// executable started once with its arguments and environment, whatever
// its count.
func arcSystem(r *rankRun, description string) ([]string, error) {
	spec, err := parseRSL(description)
	if err != nil {
		return nil, err
	}
	requests := []*rslSpec{spec}
	if spec.op == "+" {
		requests = spec.subs
	}
	var procs []*exec.Cmd
	var outputs []string
	for i, req := range requests {
		words, _ := xrslCommand(r.t, req)
		exe, _ := req.relation("executable")
		args, _ := req.relation("arguments")
		if exe[0].text == "/bin/sh" {
			words = append([]string{"/bin/sh"}, values(args)...)
		}
		env := r.env()
		envRel, _ := req.relation("environment")
		for _, pair := range envRel {
			env = append(env, pair.seq[0].text+"="+pair.seq[1].text)
		}
		session := filepath.Join(r.submit, "session"+strconv.Itoa(i))
		if err := os.MkdirAll(session, 0o755); err != nil {
			return nil, err
		}
		so, _ := req.relation("stdout")
		se, _ := req.relation("stderr")
		out := filepath.Join(session, so[0].text)
		cmd := exec.Command(words[0], words[1:]...)
		cmd.Env, cmd.Dir = env, session
		cmd.Stdout, cmd.Stderr = r.appendTo(out), r.appendTo(filepath.Join(session, se[0].text))
		procs = append(procs, cmd)
		outputs = append(outputs, out)
	}
	return outputs, startAll(procs)
}
