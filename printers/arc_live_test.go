package printers

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gmark/gmark/internal/arcrest"
	"github.com/gmark/gmark/submitter/arc/arctest"
	"github.com/gmark/gmark/workload"
)

// argvScript stands in for gmark in the jobs a real CE runs: it prints,
// on one line, its arguments each in brackets and the rank variables, so
// that the test sees what the job was started with, word for word. The
// line is written by one printf: a job's processes share its stdout, and
// a line written piece by piece came out interleaved with another
// process's on a loaded machine.
const argvScript = `#!/bin/sh
line=
for a; do line="$line[$a]"; done
printf '%s job=%s comp=%s base=%s size=%s local=%s\n' "$line" "$GMARK_JOB_ID" "$GMARK_COMPONENT" "$GMARK_RANK_BASE" "$GMARK_SIZE" "$GMARK_LOCAL_RANK"
`

// A real ARC CE (A-REX 6.17 on loopback, fork back end) takes and runs
// what the xrsl printer writes: every test job the printer does not
// refuse, whole (a co-allocated job's "+" makes one CE job per request in
// one call) and component by component as the arc target submits them
// (PrintComponent, named, held until a file exists). Each CE job must be
// created, end FINISHED with exit code 0, keep its stdout, have the slots
// and wall time asked for, and start every process with its words intact
// (quotes, parentheses, "*)" and blanks in a parameter) and its place in
// the job's rank space. A description the CE refuses fails the test, and
// so does one the CE reads otherwise than the printer meant. About 40 s
// on an idle machine: the CE's information provider runs every 5 s.
func TestXRSLAcceptedByARC(t *testing.T) {
	ce := arctest.Start(t, arctest.Options{Name: "xrsl", InfoPeriod: 5 * time.Second, WakeupPeriod: 2 * time.Second})
	exe := filepath.Join(ce.Dir, "argv")
	if err := os.WriteFile(exe, []byte(argvScript), 0o755); err != nil {
		t.Fatal(err)
	}
	release := filepath.Join(ce.Dir, "release")
	if err := os.WriteFile(release, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	client, err := arcrest.New(arcrest.Options{Endpoint: ce.URL, Proxy: ce.Proxy, CADir: ce.Creds.CADir})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	cfg := Config{Executable: exe}
	p := mustLookup(t, "xrsl")
	quoted := singleJob()
	quoted.ID = "7-0"
	quoted.App.Params = append(quoted.App.Params, workload.Param{Key: "tag", Value: `it's a "big" (run) *) #1`})
	cases := []*workload.Job{quoted}
	for _, c := range unitaryCases {
		if !refused["xrsl/"+c.name] {
			cases = append(cases, c.job())
		}
	}
	// want is one CE job: the job, its component, the configuration.
	type want struct {
		j    *workload.Job
		comp int
		cfg  Config
		id   string
	}
	var jobs []*want
	submit := func(desc []byte, ws ...*want) {
		t.Helper()
		got, err := client.Submit(ctx, desc)
		if err != nil || len(got) != len(ws) {
			t.Fatalf("the CE refused (%v) or made %d jobs of %d:\n%s", err, len(got), len(ws), desc)
		}
		for i, g := range got {
			if !g.OK() {
				t.Fatalf("the CE refused request %d: %s %s\n%s", i, g.Code, g.Reason, desc)
			}
			ws[i].id = g.ID
			jobs = append(jobs, ws[i])
		}
	}
	for _, j := range cases {
		var ws []*want
		for i := range j.Components {
			ws = append(ws, &want{j: j, comp: i, cfg: cfg})
		}
		submit([]byte(printToString(t, p, j, cfg)), ws...)
		// The last component again, as the arc target submits it.
		c := len(j.Components) - 1
		one := cfg
		one.Name, one.HoldUntil, one.Queue = "gmark-"+j.ID+".c"+strconv.Itoa(c)+".a1-run", release, "fork"
		var b bytes.Buffer
		if err := p.(ComponentPrinter).PrintComponent(&b, j, c, one); err != nil {
			t.Fatal(err)
		}
		submit(b.Bytes(), &want{j: j, comp: c, cfg: one})
	}
	ids := make([]string, len(jobs))
	for i, w := range jobs {
		ids[i] = w.id
	}
	infos := waitEnded(t, ce, client, ids)
	for i, w := range jobs {
		checkCEJob(t, ce, client, w.j, w.comp, w.cfg, w.id, infos[i])
	}

	// The CE refuses what is not xRSL, and a queue it does not have:
	// the check above would see a refusal.
	for _, bad := range []string{`&(executable="/bin/true"`, `&(executable="/bin/true")(queue="nosuch")`} {
		got, err := client.Submit(ctx, []byte(bad))
		if err == nil && (len(got) != 1 || got[0].OK()) {
			t.Errorf("the CE took %s: %+v", bad, got)
		}
	}
}

// waitEnded polls the CE (one status call for all) until every job has
// ended, and returns their records.
func waitEnded(t *testing.T, ce *arctest.CE, client *arcrest.Client, ids []string) []*arcrest.Info {
	t.Helper()
	ctx := context.Background()
	deadline := time.Now().Add(5 * time.Minute)
	for {
		st, err := client.Status(ctx, ids)
		done := err == nil
		for _, s := range st {
			done = done && (s.State == "FINISHED" || s.State == "FAILED" || s.State == "KILLED")
		}
		if done {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("jobs not ended after 5 minutes: %+v %v\n%s", st, err, ce.LogTail())
		}
		time.Sleep(time.Second)
	}
	got, err := client.Info(ctx, ids)
	if err != nil {
		t.Fatal(err)
	}
	out := make([]*arcrest.Info, len(got))
	for i, g := range got {
		if g.Info == nil {
			t.Fatalf("no record of %s: %+v", ids[i], g)
		}
		out[i] = g.Info
	}
	return out
}

// checkCEJob checks one ended CE job against component comp of j.
func checkCEJob(t *testing.T, ce *arctest.CE, client *arcrest.Client, j *workload.Job, comp int, cfg Config, id string, in *arcrest.Info) {
	t.Helper()
	c := j.Components[comp]
	what := fmt.Sprintf("job %s component %d (%s)", j.ID, comp, id)
	if in.State != "FINISHED" || in.ExitCode == nil || *in.ExitCode != 0 {
		t.Errorf("%s ended %s, exit code %v: %q", what, in.State, in.ExitCode, in.Errors)
	}
	if in.Slots != c.Count {
		t.Errorf("%s has %d slots, want %d", what, in.Slots, c.Count)
	}
	if want := wallSeconds(j.WallTime) * int64(c.Count); j.WallTime > 0 && int64(in.WallTime) != want {
		t.Errorf("%s has a total wall time of %d s, want %d", what, in.WallTime, want)
	}
	name, files := "gmark-"+j.ID, j.ID
	if len(j.Components) > 1 {
		name, files = name+".c"+strconv.Itoa(comp), componentName(j.ID, comp)
	}
	if cfg.Name != "" {
		name, files = cfg.Name, cfg.Name
	}
	if in.Name != name {
		t.Errorf("%s is named %q, want %q", what, in.Name, name)
	}
	var out bytes.Buffer
	if err := client.Get(context.Background(), id, files+".out", &out, 1<<20); err != nil {
		t.Errorf("%s: its stdout %s.out was not kept: %v", what, files, err)
		return
	}
	var argv strings.Builder
	for _, w := range commandLine(j, cfg)[1:] {
		argv.WriteString("[" + w + "]")
	}
	size, base, compEnv := "", "", ""
	if j.Processors() > 1 {
		size = strconv.Itoa(j.Processors())
		if len(j.Components) > 1 {
			base, compEnv = strconv.Itoa(rankBase(j, comp)), strconv.Itoa(comp)
		}
	}
	var wantLines []string
	for r := range c.Count {
		local := ""
		if c.Count > 1 {
			local = strconv.Itoa(r)
		}
		wantLines = append(wantLines, fmt.Sprintf("%s job=%s comp=%s base=%s size=%s local=%s", argv.String(), j.ID, compEnv, base, size, local))
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	slices.Sort(lines)
	slices.Sort(wantLines)
	if !slices.Equal(lines, wantLines) {
		t.Errorf("%s ran\n%s\nwant\n%s", what, strings.Join(lines, "\n"), strings.Join(wantLines, "\n"))
	}
}
