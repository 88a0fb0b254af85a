package jdf

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/gmark/gmark/koala/grid"
	"github.com/gmark/gmark/printers"
	"github.com/gmark/gmark/workload"
)

const goldenDir = "../../printers/testdata/golden"

// The jobs of the round trip, as literals.
func testJobs() []*workload.Job {
	app := func(name string, kv ...string) workload.App {
		a := workload.App{Name: name}
		for i := 0; i < len(kv); i += 2 {
			a.Params = append(a.Params, workload.Param{Key: kv[i], Value: kv[i+1]})
		}
		return a
	}
	job := func(id string, st workload.SiteType, wall time.Duration, a workload.App, files []workload.File, comps ...workload.Component) *workload.Job {
		return &workload.Job{ID: id, Kind: workload.Unitary, Type: a.Name, Submit: time.Minute,
			SiteType: st, WallTime: wall, App: a, Components: comps, Files: files}
	}
	any := func(n int) workload.Component { return workload.Component{Site: workload.AnySite, Count: n} }
	at := func(site string, n int) workload.Component { return workload.Component{Site: site, Count: n} }
	files := []workload.File{{Name: "input-a.dat", Size: 1 << 20}, {Name: `odd "name" (1).dat`, Size: 0}}
	return []*workload.Job{
		job("1-0", workload.Single, 10*time.Minute, app("sser", "n", "5", "m", "100"), nil, any(1)),
		job("2-3", workload.Single, 15*time.Minute,
			app("smpi", "n", "10", "x", "5000", "tag", `it's a "big" $run (really)`, "noinput", "", "last", "1"), nil, any(8)),
		job("3-1", workload.SemiOrdered, 90*time.Second, app("smpi", "n", "20", "x", "1000"), files,
			any(4), any(2), at("fs2", 2)),
		job("5-2", workload.Ordered, 2*time.Hour, app("smpi", "n", "50"), nil, at("fs0", 16), at("fs1", 8)),
		job("6-0", workload.Flexible, 0, app("sser", "verbose", ""), nil, any(6), any(2)),
		job("7-4", workload.SemiOrdered, 61*time.Second, app("smpi"), files[:1], at("fs3", 4), any(4)),
		job("8-1", workload.Single, time.Second, app("sser", "n", "1"), nil, at("fs0", 1)),
		job("9-9", workload.Unordered, time.Hour, app("exec", "executable", "/bin/hostname", "arg", "-f"), nil, any(1), any(3)),
	}
}

func named(c workload.Component) bool { return c.Site != workload.AnySite }

// koalaSiteType is the site type a koala JDF of j reads back as: the
// printer's request type, mapped back.
func koalaSiteType(j *workload.Job) workload.SiteType {
	switch j.SiteType {
	case workload.Ordered, workload.Unordered, workload.SemiOrdered, workload.Flexible:
		return j.SiteType
	}
	return rslSiteType(j, false)
}

// rslSiteType is the site type of a JDF without koalaRequestType (single: a
// one-component job without a named site is single, not unordered).
func rslSiteType(j *workload.Job, single bool) workload.SiteType {
	n := 0
	for _, c := range j.Components {
		if named(c) {
			n++
		}
	}
	switch {
	case n == 0 && len(j.Components) == 1 && single:
		return workload.Single
	case n == len(j.Components):
		return workload.Ordered
	case n > 0:
		return workload.SemiOrdered
	}
	return workload.Unordered
}

func print(t testing.TB, format string, j *workload.Job, cfg printers.Config) []byte {
	t.Helper()
	p, err := printers.Lookup(format)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := p.Print(&buf, j, cfg); err != nil {
		t.Fatalf("print %s: %v", format, err)
	}
	return buf.Bytes()
}

func TestRoundTrip(t *testing.T) {
	cfgs := []printers.Config{{}, {Executable: "/opt/gmark/bin/gmark", WorkDir: "/scratch/run 1"}}
	for _, want := range testJobs() {
		for _, format := range []string{"koala", "rsl"} {
			for ci, cfg := range cfgs {
				t.Run(want.ID+"/"+format, func(t *testing.T) {
					src := print(t, format, want, cfg)
					got, err := Parse("t", src)
					if err != nil {
						t.Fatalf("cfg %d: %v\n%s", ci, err, src)
					}
					if err := got.Validate(); err != nil {
						t.Errorf("Validate: %v", err)
					}
					wantST := koalaSiteType(want)
					var wantFiles []workload.File
					if format == "koala" {
						wantFiles = want.Files
					} else {
						wantST = rslSiteType(want, true)
					}
					check := []struct {
						what      string
						got, want any
					}{
						{"ID", got.ID, want.ID},
						{"Kind", got.Kind, workload.Unitary},
						{"Submit", got.Submit, time.Duration(0)},
						{"SiteType", got.SiteType, wantST},
						{"Components", got.Components, want.Components},
						{"Files", got.Files, wantFiles},
						{"WallTime", got.WallTime, (want.WallTime + time.Minute - 1) / time.Minute * time.Minute},
						{"App", got.App, want.App},
						{"Type", got.Type, want.App.Name},
					}
					for _, c := range check {
						if !reflect.DeepEqual(c.got, c.want) {
							t.Errorf("cfg %d: %s = %#v, want %#v\n%s", ci, c.what, c.got, c.want, src)
						}
					}
				})
			}
		}
	}
}

// splitStream cuts a --single-file stream at the printers' "(* job ID *)"
// comment lines into one JDF per job.
func splitStream(src []byte) [][]byte {
	var out [][]byte
	for _, part := range bytes.Split(src, []byte("(* job ")) {
		if len(bytes.TrimSpace(part)) > 0 {
			out = append(out, append([]byte("(* job "), part...))
		}
	}
	return out
}

func TestGoldens(t *testing.T) {
	paths, err := filepath.Glob(filepath.Join(goldenDir, "koala", "*"))
	if err != nil {
		t.Fatal(err)
	}
	rsl, _ := filepath.Glob(filepath.Join(goldenDir, "rsl", "*"))
	paths = append(paths, rsl...)
	if len(paths) < 10 {
		t.Fatalf("found %d golden files under %s", len(paths), goldenDir)
	}
	wantID := map[string]string{"single": "1-0", "smpi": "2-3", "coalloc": "3-1", "ordered": "5-2", "deadline": "6-0"}
	for _, path := range paths {
		src, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		base := strings.TrimSuffix(filepath.Base(path), filepath.Ext(path))
		rel := filepath.Base(filepath.Dir(path)) + "/" + filepath.Base(path)
		if base == "diamond" {
			// Four JDFs in one stream: whole, it has something after its first request.
			if _, err := Parse(rel, src); err == nil || !strings.Contains(err.Error(), "after the end of the request") {
				t.Errorf("%s whole: error %v, want one about what follows the request", rel, err)
			}
			parts := splitStream(src)
			if len(parts) != 4 {
				t.Fatalf("%s: %d parts, want 4", rel, len(parts))
			}
			for i, part := range parts {
				j, err := Parse(rel, part)
				if err != nil {
					t.Fatalf("%s part %d: %v", rel, i, err)
				}
				if id := "4-0." + string(rune('a'+i)); j.ID != id || j.App.Name != "sser" {
					t.Errorf("%s part %d: id %q app %q, want %q sser", rel, i, j.ID, j.App.Name, id)
				}
			}
			continue
		}
		j, err := Parse(rel, src)
		if err != nil {
			t.Fatalf("%v", err)
		}
		if err := j.Validate(); err != nil {
			t.Errorf("%s: %v", rel, err)
		}
		if j.ID != wantID[base] {
			t.Errorf("%s: ID %q, want %q", rel, j.ID, wantID[base])
		}
	}
	// Spot checks of the richest golden file.
	src, err := os.ReadFile(filepath.Join(goldenDir, "koala", "coalloc.jdf"))
	if err != nil {
		t.Fatal(err)
	}
	j, err := Parse("coalloc.jdf", src)
	if err != nil {
		t.Fatal(err)
	}
	want := &workload.Job{ID: "3-1", Kind: workload.Unitary, Type: "smpi", SiteType: workload.SemiOrdered,
		WallTime:   2 * time.Minute,
		App:        workload.App{Name: "smpi", Params: []workload.Param{{Key: "n", Value: "20"}, {Key: "x", Value: "1000"}}},
		Components: []workload.Component{{Site: "*", Count: 4}, {Site: "*", Count: 2}, {Site: "fs2", Count: 2}},
		Files:      []workload.File{{Name: "input-a.dat", Size: 1048576}, {Name: "input-b.dat", Size: 4096}},
	}
	if !reflect.DeepEqual(j, want) {
		t.Errorf("coalloc.jdf:\n got %#v\nwant %#v", j, want)
	}
}

// TestForms covers what the printers do not write but RSL allows.
func TestForms(t *testing.T) {
	tests := []struct {
		name, src string
		check     func(*workload.Job) bool
	}{
		{"minimal", "&(executable=gmark)", func(j *workload.Job) bool {
			return j.ID == "" && j.SiteType == workload.Single && j.Components[0] == workload.Component{Site: "*", Count: 1} &&
				reflect.DeepEqual(j.App, workload.App{Name: "exec", Params: []workload.Param{{Key: "executable", Value: "gmark"}}}) &&
				j.WallTime == 0 && j.Files == nil
		}},
		{"names ignore case and underscores", `& (RESOURCE_MANAGER_CONTACT = fs0) (Count=3) (max_wall_time=7) (EXECUTABLE=/usr/bin/gmark)
			(Arguments=app sser --n 5) (environment=(PATH /bin) (GMARK_JOB_ID "x-1"))`, func(j *workload.Job) bool {
			return j.ID == "x-1" && j.SiteType == workload.Ordered && j.Components[0] == workload.Component{Site: "fs0", Count: 3} &&
				j.WallTime == 7*time.Minute && j.App.Name == "sser" && j.App.Params[0] == workload.Param{Key: "n", Value: "5"}
		}},
		{"quoted attribute names and values", `&("executable"="gmark")("count"="2")`, func(j *workload.Job) bool {
			return j.Components[0].Count == 2
		}},
		{"single quotes and ^ delimiters", `&(executable='gmark')(arguments='app' 'it''s' '--tag' ^*a "b" 'c' ** d*)`, func(j *workload.Job) bool {
			return j.App.Name == "it's" && reflect.DeepEqual(j.App.Params, []workload.Param{{Key: "tag", Value: `a "b" 'c' * d`}})
		}},
		{"comments and blank lines anywhere", "\uFEFF(* head *)\r\n+ (* a *) ( (* b *) & (* c *) ( (* d *) count (* e *) = (* f *) 2 (* g *) ) (executable=gmark) (* h *) )\n\n(* tail *)\n",
			func(j *workload.Job) bool { return j.Components[0].Count == 2 && j.SiteType == workload.Single }},
		{"exec form", `&(executable=/bin/hostname)(arguments=-f "--x" "")`, func(j *workload.Job) bool {
			return reflect.DeepEqual(j.App, workload.App{Name: "exec", Params: []workload.Param{
				{Key: "executable", Value: "/bin/hostname"}, {Key: "arg", Value: "-f"}, {Key: "arg", Value: "--x"}, {Key: "arg", Value: ""}}})
		}},
		{"gmark without app is exec", `&(executable=gmark)(arguments=version)`, func(j *workload.Job) bool {
			return j.App.Name == "exec" && len(j.App.Params) == 2
		}},
		{"gmark with a stray word is exec", `&(executable=gmark)(arguments=app sser --n 5 6)`, func(j *workload.Job) bool {
			return j.App.Name == "exec" && len(j.App.Params) == 6
		}},
		{"flags and values", `&(executable=gmark)(arguments=app a --f --k v --g)`, func(j *workload.Job) bool {
			return reflect.DeepEqual(j.App.Params, []workload.Param{{Key: "f"}, {Key: "k", Value: "v"}, {Key: "g"}})
		}},
		{"--key=value is a key and its value", `&(executable=gmark)(arguments=app a "--workdir=/x/y" "--e=" --k v)`, func(j *workload.Job) bool {
			return reflect.DeepEqual(j.App.Params, []workload.Param{{Key: "workdir", Value: "/x/y"}, {Key: "e"}, {Key: "k", Value: "v"}})
		}},
		{"--key=value takes no next word", `&(executable=gmark)(arguments=app a "--k=v" w)`, func(j *workload.Job) bool {
			return j.App.Name == "exec"
		}},
		{"per-site gmark paths", `+(&(executable=/a/gmark)(arguments=app x))(&(executable=/b/gmark)(arguments=app x))`, func(j *workload.Job) bool {
			return j.App.Name == "x" && j.SiteType == workload.Unordered && len(j.Components) == 2
		}},
		{"wall time is the largest", `+(&(executable=g)(maxWallTime=3))(&(executable=g))(&(executable=g)(maxWallTime=9))`, func(j *workload.Job) bool {
			return j.WallTime == 9*time.Minute
		}},
		{"rsl site types: semi-ordered", `+(&(executable=g)(resourceManagerContact=fs0))(&(executable=g))`, func(j *workload.Job) bool {
			return j.SiteType == workload.SemiOrdered
		}},
		{"request type in any case", `+(&(executable=g)(koalaRequestType=SemiFixed))`, func(j *workload.Job) bool {
			return j.SiteType == workload.SemiOrdered
		}},
		{"ignored GRAM relations", `&(executable=g)(queue=short)(hostCount=2)(rslSubstitution=(A b))(jobType=mpi)(label="subjob 0")`, func(j *workload.Job) bool {
			return j.App.Name == "exec"
		}},
		{"star site", `&(executable=g)(resourceManagerContact=*)`, func(j *workload.Job) bool {
			return j.Components[0].Site == workload.AnySite && j.SiteType == workload.Single
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			j, err := Parse("t", []byte(tt.src))
			if err != nil {
				t.Fatal(err)
			}
			if !tt.check(j) {
				t.Errorf("unexpected job %#v", j)
			}
			if j.ID == "" {
				if j.Validate() == nil {
					t.Error("Validate accepts a job without an ID")
				}
				j.ID = "assigned"
			}
			if err := j.Validate(); err != nil {
				t.Error(err)
			}
		})
	}
}

func TestMalformed(t *testing.T) {
	const ok = `(executable=gmark)`
	tests := []struct{ src, want string }{
		{"", "t:1:1: empty JDF: expected '&' (a request) or '+' (a multi-request)"},
		{"  \n (* nothing *) \n", "t:3:1: empty JDF"},
		{"&(count=x)" + ok, `t:1:9: count must be a whole number >= 1, got "x"`},
		{"&(count=0)" + ok, `t:1:9: count must be a whole number >= 1, got "0"`},
		{"&(count=-2)" + ok, `t:1:9: count must be a whole number >= 1, got "-2"`},
		{"&(count=99999999999999999999)" + ok, `t:1:9: count must be a whole number from 1 to 1048576, got 99999999999999999999`},
		{"&(count=2000000)" + ok, `t:1:9: count must be a whole number from 1 to 1048576, got 2000000`},
		{"&(count=1 2)" + ok, `t:1:11: expected ')' after the value of count, which takes one value`},
		{"&(count=(1))" + ok, `t:1:9: count must be a whole number >= 1, got a list`},
		{"&\n  (count=1\n  (executable=gmark)", "t:3:3: expected ')' to close the relation opened at 2:3 before the next relation"},
		{"&(count=1", "t:1:10: expected ')' to close the relation opened at 1:2, found the end of the input"},
		{"&(count=1)\n (COUNT=2)" + ok, "t:2:3: duplicate relation count (first at 1:3)"},
		{"&(count=1)(co_unt=2)" + ok, "t:1:12: duplicate relation count (first at 1:3)"},
		{"+", "t:1:2: empty multi-request: expected '(' to start a subrequest after the '+' at 1:1, found the end of the input"},
		{"+ (* only a comment *)", "t:1:23: empty multi-request"},
		{"+ &" + ok, `t:1:3: empty multi-request: expected '(' to start a subrequest after the '+' at 1:1, found '&'`},
		{"&" + ok + " x", `t:1:21: unexpected "x" after the end of the request: a JDF describes one job`},
		{"+(&" + ok + "))", `t:1:23: unexpected ')' after the end of the request`},
		{"&" + ok + "\n&" + ok, `t:2:1: unexpected '&' after the end of the request`},
		{"+(&" + ok + "(koalaRequestType=sometimes))", `t:1:40: unknown koalaRequestType "sometimes": expected fixed, nonfixed, semifixed or flexible`},
		{`&(executable="gmark)`, `t:1:14: unterminated quoted string: expected a closing "`},
		{`&(executable=^)`, `t:1:14: unterminated quoted string: expected a closing )`},
		{`&(executable=^ x)`, `t:1:14: expected a delimiter character after '^'`},
		{"(* x", "t:1:1: unterminated comment: expected '*)' to close the comment opened here"},
		{"&" + ok + "(environment=(((((((((x))))))))))", "t:1:41: value lists nested more than 8 deep"},
		{"|(count=1)", "t:1:1: expected '&' (a request) or '+' (a multi-request): disjunctive requests ('|') are not supported"},
		{"(count=1)", `t:1:1: expected '&' (a request) or '+' (a multi-request), found '('`},
		{"&(count>=2)", "t:1:8: expected '=' after count, found '>=': only '=' relations describe a job"},
		{"&(count 2)", `t:1:9: expected '=' after count, found "2"`},
		{"&(executable=$(HOME)/gmark)", "t:1:14: RSL variable references ($(NAME)) are not supported"},
		{`&(executable="a"#"b")`, "t:1:17: RSL concatenation ('#') is not supported"},
		{"&(cuont=4)" + ok, `t:1:3: unknown relation "cuont": expected one of resourceManagerContact, count,`},
		{"&(count=1)", "t:1:1: the request has no executable: expected an (executable=…) relation"},
		{"+(&" + ok + ")\n (&(count=2))", "t:2:3: this subrequest has no executable"},
		{"&" + ok + "(maxWallTime=0)", `t:1:33: maxWallTime must be a whole number of minutes >= 1, got "0"`},
		{"&(&(count=1))", "t:1:3: expected an attribute name after the '(' at 1:2: requests inside a request are not supported"},
		{"+(+(&" + ok + "))", "t:1:3: expected '&' to start the subrequest opened at 1:2: a multi-request cannot hold another"},
		{"+((count=1))", `t:1:3: expected '&' to start the subrequest opened at 1:2, found '('`},
		{"+(&" + ok, "t:1:22: expected ')' to close the subrequest opened at 1:2, found the end of the input"},
		{"+(&" + ok + " x)", `t:1:23: expected ')' to close the subrequest opened at 1:2, found "x"`},
		{"&()", "t:1:3: expected an attribute name after the '(' at 1:2, found ')'"},
		{"&", "t:1:2: expected '(' to start a relation after the '&' at 1:1, found the end of the input"},
		{"&(count=)", "t:1:9: expected a value for count before ')'"},
		{"&" + ok + "(environment=())", "t:1:33: empty list '()': expected at least one value"},
		{"&" + ok + "(environment=(A))", "t:1:33: environment entries are (NAME value) pairs of words"},
		{"&" + ok + "(environment=(GMARK_JOB_ID a)(GMARK_JOB_ID b))", "t:1:49: GMARK_JOB_ID is set twice (first at 1:33)"},
		{"&" + ok + "(arguments=a (b))", "t:1:33: arguments are words: expected a quoted or unquoted word, got a list"},
		{"&" + ok + "(koalaInputFiles=(\"a\" big))", `t:1:42: file size must be a whole number of bytes from 0 to 1125899906842624, got "big"`},
		{"&" + ok + "(koalaInputFiles=(\"\" 1))", `t:1:38: an input file needs a name, got ""`},
		{"&" + ok + "(koalaInputFiles=\"a\" 1)", `t:1:37: koalaInputFiles entries are ("NAME" SIZE) pairs`},
		{"&(resourceManagerContact=\"\")" + ok, `t:1:26: resourceManagerContact must name a site, got ""`},
		{"&(executable=\"a\nb\")", "t:1:16: control character U+000A in a quoted string: gmark values are single-line"},
		{"&(executable=\"\xff\")", "t:1:14: invalid UTF-8 in a quoted string"},
		{"&(executable=a\x01)", "t:1:15: expected a value or ')' to close the relation opened at 1:2, found control character U+0001"},
		{"+(&(executable=g)(koalaInputFiles=(a 1)))\n(&(executable=g)(koalaInputFiles=(a 2)))",
			"t:2:18: koalaInputFiles differ from the first subrequest's (at 1:19): every subrequest lists the job's input files"},
		{"+(&(executable=g)(koalaInputFiles=(a 1)))\n(&(executable=g))",
			"t:2:2: this subrequest has no koalaInputFiles but the first has one (at 1:19)"},
		{"+(&(executable=g)(arguments=app x))\n(&(executable=g)(arguments=app y))",
			"t:2:18: these arguments differ from those of the first subrequest (at 1:19): the subrequests of a KOALA co-allocated job run one application"},
		{"+(&(executable=/a/gmark)(arguments=x))\n(&(executable=/b/gmark)(arguments=x))",
			`t:2:4: executable "/b/gmark" differs from the first subrequest's "/a/gmark" (at 1:5)`},
		{"+(&(executable=g)(koalaRequestType=fixed))\n(&(executable=g)(koalaRequestType=nonfixed))",
			"t:2:18: koalaRequestType differs from the first subrequest's (at 1:19)"},
		{"+(&(executable=g))\n(&(executable=g)(koalaRequestType=nonfixed))",
			"t:2:18: koalaRequestType here but not in the first subrequest"},
		{"+(&(executable=g)(environment=(GMARK_JOB_ID a)))\n(&(executable=g)(environment=(GMARK_JOB_ID b)))",
			`t:2:30: GMARK_JOB_ID "b" differs from the first subrequest's "a" (at 1:31)`},
		{"&" + ok + "(executable=h)", "t:1:21: duplicate relation executable (first at 1:3)"},
		{"&" + ok + "(count=1 = 2)", "t:1:29: expected a value or ')' to close the relation opened at 1:20, found '='"},
		{"&" + ok + "(environment=(A b) = )", "t:1:39: expected a value or ')' to close the relation opened at 1:20, found '='"},
		{"&" + ok + "(environment=(A (b = c)))", "t:1:39: expected a value or ')' to close the list opened at 1:36, found '='"},
	}
	if len(tests) < 15 {
		t.Fatal("too few cases")
	}
	for _, tt := range tests {
		j, err := Parse("t", []byte(tt.src))
		if err == nil {
			t.Errorf("%q: no error, job %+v", tt.src, j)
			continue
		}
		var perr *Error
		if !errors.As(err, &perr) {
			t.Errorf("%q: error %T, want *Error", tt.src, err)
		}
		if !strings.HasPrefix(err.Error(), tt.want) {
			t.Errorf("%q:\n got %s\nwant %s…", tt.src, err, tt.want)
		}
	}
}

func TestLimits(t *testing.T) {
	big := make([]byte, MaxSize+1)
	if _, err := Parse("big", big); err == nil || err.Error() != "big:1:1: the JDF is 1048577 bytes, more than the 1048576 accepted" {
		t.Errorf("oversized input: %v", err)
	}
	// Values are capped: the 65537th value is an error.
	many := "&(executable=g)(arguments=" + strings.Repeat("a ", MaxValues) + ")"
	if _, err := Parse("many", []byte(many)); err == nil || err.Error() != "many:1:131097: more than 65536 values in one JDF" {
		t.Errorf("too many values: %v", err)
	}
	// Large inputs within the limits parse in reasonable time: many
	// subrequests, each with every relation and some files (15 values each).
	var b strings.Builder
	b.WriteString("+")
	for i := 0; i < MaxValues/15; i++ {
		b.WriteString("\n(&(executable=gmark)(arguments=app x --n 1)(count=2)(koalaInputFiles=(a 1)(b 2)(c 3)))")
	}
	start := time.Now()
	j, err := Parse("subs", []byte(b.String()))
	if err != nil {
		t.Fatal(err)
	}
	if len(j.Components) != MaxValues/15 || time.Since(start) > 2*time.Second {
		t.Errorf("%d components in %v", len(j.Components), time.Since(start))
	}
	for _, src := range []string{
		"&(executable=g)(arguments=" + strings.Repeat("(* *)", MaxSize/5-10) + "a)",
		"&(executable=g)(arguments=\"" + strings.Repeat(`""`, MaxSize/2-30) + "\")",
		"&(executable=g)(environment=" + strings.Repeat("(", MaxSize-30),
	} {
		start := time.Now()
		Parse("big", []byte(src))
		if el := time.Since(start); el > time.Second {
			t.Errorf("%.40q…: %v", src, el)
		}
	}
	if _, err := Parse("", []byte("&")); err == nil || !strings.HasPrefix(err.Error(), "jdf:1:2: ") {
		t.Errorf("empty name: %v", err)
	}
}

// checkJob is the fuzz invariant on a parsed job: sane fields, and a koala
// re-print that reads back as the same job.
func checkJob(t *testing.T, src []byte, j *workload.Job) {
	t.Helper()
	if j.Kind != workload.Unitary || len(j.Components) == 0 || j.App.Name == "" || j.Type != j.App.Name || j.Submit != 0 ||
		j.WallTime < 0 || j.WallTime > grid.LongestRun {
		t.Fatalf("insane job %#v from %q", j, src)
	}
	for _, c := range j.Components {
		if c.Count < 1 || c.Count > MaxCount || c.Site == "" {
			t.Fatalf("bad component %+v from %q", c, src)
		}
	}
	switch j.SiteType {
	case workload.Single, workload.Ordered, workload.Unordered, workload.SemiOrdered, workload.Flexible:
	default:
		t.Fatalf("site type %q from %q", j.SiteType, src)
	}
	if j.SiteType == workload.Single && len(j.Components) != 1 {
		t.Fatalf("single job with %d components from %q", len(j.Components), src)
	}
	v := *j
	if v.ID == "" {
		v.ID = "assigned"
	}
	if err := v.Validate(); err != nil {
		t.Fatalf("Validate: %v from %q", err, src)
	}
	out := print(t, "koala", j, printers.Config{})
	k, err := Parse("reprint", out)
	if err != nil {
		t.Fatalf("re-parse: %v\nfrom %q\nprinted %s", err, src, out)
	}
	if k.ID != j.ID || k.SiteType != koalaSiteType(j) || !reflect.DeepEqual(k.Components, j.Components) ||
		!reflect.DeepEqual(k.Files, j.Files) || k.WallTime != j.WallTime {
		t.Fatalf("re-parse differs:\n got %#v\nwant %#v\nfrom %q\nprinted %s", k, j, src, out)
	}
	// App.Args cannot be inverted when a value starts with "--".
	invertible := true
	for _, p := range j.App.Params {
		invertible = invertible && !strings.HasPrefix(p.Value, "--")
	}
	if invertible && !reflect.DeepEqual(k.App, j.App) {
		t.Fatalf("re-parse app %#v, want %#v\nfrom %q\nprinted %s", k.App, j.App, src, out)
	}
}

func FuzzParse(f *testing.F) {
	for _, dir := range []string{"koala", "rsl"} {
		paths, _ := filepath.Glob(filepath.Join(goldenDir, dir, "*"))
		for _, path := range paths {
			src, err := os.ReadFile(path)
			if err != nil {
				f.Fatal(err)
			}
			f.Add(src)
			for _, part := range splitStream(src) {
				f.Add(part)
			}
		}
	}
	for _, j := range testJobs() {
		f.Add(print(f, "koala", j, printers.Config{}))
	}
	for _, s := range []string{
		"&(executable=g)", `&(executable='g')(arguments=^*a**b* "c""d")`, "+(&(executable=g))(&(executable=g)(count=2))",
		"&(executable=g)(environment=((((x)))))", "(* c *)&(count=1 (executable=g)", "&(executable=/bin/sh)(arguments=-c --x)",
		// The range checks: wall times and counts at and past their limits.
		"&(executable=g)(maxWallTime=0)", "&(executable=g)(maxWallTime=-1)", "&(executable=g)(maxWallTime=527040)",
		"&(executable=g)(maxWallTime=527041)", "&(executable=g)(maxWallTime=99999999999999999999)",
		"&(executable=g)(count=1048576)", "&(executable=g)(count=1048577)", "&(executable=g)(count=0)",
		`&(executable=g)(koalaInputFiles=("f" 9223372036854775807))`, `&(executable=g)(koalaInputFiles=("f" -1))`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, src []byte) {
		j, err := Parse("fuzz", src)
		if err != nil {
			var perr *Error
			if !errors.As(err, &perr) || perr.Line < 1 || perr.Col < 1 || !strings.HasPrefix(err.Error(), "fuzz:") {
				t.Fatalf("bad error %v", err)
			}
			return
		}
		checkJob(t, src, j)
	})
}

func BenchmarkParseKoalaJDF(b *testing.B) {
	for _, name := range []string{"single", "coalloc"} {
		src, err := os.ReadFile(filepath.Join(goldenDir, "koala", name+".jdf"))
		if err != nil {
			b.Fatal(err)
		}
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(src)))
			for b.Loop() {
				if _, err := Parse("bench", src); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// Columns count characters, as in every gmark position: the error in
// a JDF with "ééé" before it is at the same column as with "eee".
func TestErrorColumnsCountCharacters(t *testing.T) {
	var cols []int
	for _, s := range []string{`&(executable="ééé")(count=x)`, `&(executable="eee")(count=x)`} {
		_, err := Parse("t", []byte(s))
		var perr *Error
		if !errors.As(err, &perr) {
			t.Fatalf("%s: %v, want an *Error", s, err)
		}
		cols = append(cols, perr.Col)
	}
	if cols[0] != cols[1] || cols[0] != 27 {
		t.Fatalf("columns %v, want 27 for both", cols)
	}
}
