package targets

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/gmark/gmark/submitter/gridtest"
)

// settingCase is one setting of a target's section: a value that decodes
// to want, the value the made target uses when the setting is left out
// (def), and a value that is refused with err at the setting's line.
type settingCase struct {
	key  string // section.key, or section.table.key for a key of a [[section.table]]
	good string // TOML
	want string // the decoded field, fmt.Sprint
	def  string // the made target's configuration without the key, fmt.Sprint; "-": not compared (see the case)
	bad  string // TOML
	err  string // after "FILE:LINE: "
}

var long = `"` + strings.Repeat("x", MaxString+1) + `"`

const tooLong = "longer than 4096 bytes or holds a NUL"

// settingCases are every setting of every target's section. def may name
// $run (the run directory), $self (the test binary) and $cpus; a table's
// name, url and contact have none (they are required).
var settingCases = []settingCase{
	{"local.processors", "8", "8", "$cpus", "-4", "local.processors: -4 is out of range (1 to 1000000)"},
	{"local.executable", `"/bin/true"`, "/bin/true", "$self", long, "local.executable: " + tooLong},
	{"local.env", `["A=1"]`, "[A=1]", "[]", `["NOEQUALS"]`, `local.env: "NOEQUALS" is not KEY=VALUE`},

	{"condor.workdir", `"/w"`, "/w", "$run/condor", long, "condor.workdir: " + tooLong},
	{"condor.executable", `"/bin/true"`, "/bin/true", "$self", long, "condor.executable: " + tooLong},
	{"condor.submit_args", `["-a"]`, "[-a]", "[]", many(MaxArgs + 1), "condor.submit_args: 101 items; at most 100"},
	{"condor.poll", `"5s"`, "5s", "2s", "1", "condor.poll: 1ns is out of range (100ms to 1h0m0s; a bare number is nanoseconds)"},
	{"condor.unreachable_after", `"3m"`, "3m0s", "2m0s", `"9000h"`, "condor.unreachable_after: 9000h0m0s is out of range (1s to 168h0m0s"},
	{"condor.command_timeout", `"30s"`, "30s", "1m0s", `"0s"`, "condor.command_timeout: 0s is out of range (1s to 1h0m0s"},

	{"sge.workdir", `"/w"`, "/w", "$run/sge", long, "sge.workdir: " + tooLong},
	{"sge.executable", `"/bin/true"`, "/bin/true", "$self", long, "sge.executable: " + tooLong},
	{"sge.submit_args", `["-a"]`, "[-a]", "[]", many(MaxArgs + 1), "sge.submit_args: 101 items; at most 100"},
	{"sge.poll", `"5s"`, "5s", "2s", `"-1s"`, "sge.poll: -1s is out of range"},
	{"sge.unreachable_after", `"3m"`, "3m0s", "2m0s", `"0s"`, "sge.unreachable_after: 0s is out of range"},
	{"sge.command_timeout", `"30s"`, "30s", "1m0s", `"2h"`, "sge.command_timeout: 2h0m0s is out of range"},

	{"slurm.clusters.name", `"alpha"`, "alpha", "-", `"a,b"`, `slurm.clusters.name: cluster name "a,b": use letters, digits, '-' and '_'`},
	{"slurm.clusters.conf", `"/etc/slurm/slurm.conf"`, "/etc/slurm/slurm.conf", "", long, "slurm.clusters.conf: " + tooLong},
	{"slurm.clusters.partition", `"batch"`, "batch", "", long, "slurm.clusters.partition: " + tooLong},
	{"slurm.poll", `"2s"`, "2s", "1s", "1", "slurm.poll: 1ns is out of range"},
	{"slurm.poll_cpu_factor", "20", "20", "100", "0", "slurm.poll_cpu_factor: 0 is out of range (1 to 100000)"},
	{"slurm.unreachable_after", `"3m"`, "3m0s", "2m0s", `"1ms"`, "slurm.unreachable_after: 1ms is out of range"},
	{"slurm.hetjob", "false", "false", "true", `"yes"`, "slurm.hetjob: incompatible types"},
	{"slurm.claim_retry", `"20s"`, "20s", "1m0s", `"25h"`, "slurm.claim_retry: 25h0m0s is out of range (1s to 24h0m0s"},
	{"slurm.claim_tries", "5", "5", "3", "0", "slurm.claim_tries: 0 is out of range (1 to 100)"},
	{"slurm.workdir", `"/w"`, "/w", "$run/slurm", long, "slurm.workdir: " + tooLong},
	{"slurm.executable", `"/bin/true"`, "/bin/true", "$self", long, "slurm.executable: " + tooLong},
	{"slurm.sbatch_args", `["--account=x"]`, "[--account=x]", "[]", many(MaxArgs + 1), "slurm.sbatch_args: 101 items; at most 100"},
	{"slurm.command_timeout", `"30s"`, "30s", "1m0s", `"0s"`, "slurm.command_timeout: 0s is out of range"},
	{"slurm.dependencies", `"slurm"`, "slurm", "", `"make"`, `slurm.dependencies: "make": gmark or slurm`},

	// The arc and gram targets leave poll, unreachable_after and the
	// claiming's settings to the engine they share (submitter/ce), which
	// takes 0 for its defaults: their configurations record 0.
	{"arc.ce.name", `"fs1"`, "fs1", "-", `"a:b"`, `arc.ce.name: CE name "a:b": use letters, digits, '-' and '_'`},
	{"arc.ce.url", `"https://ce:443/arex"`, "https://ce:443/arex", "-", `"http://ce/arex"`, `arc.ce.url: CE a: url "http://ce/arex" is not https://host:port/arex`},
	{"arc.ce.queue", `"main"`, "main", "", long, "arc.ce.queue: " + tooLong},
	{"arc.proxy", `"/p"`, "/p", "-", long, "arc.proxy: " + tooLong},   // the base section gives one
	{"arc.ca_dir", `"/c"`, "/c", "-", long, "arc.ca_dir: " + tooLong}, // the base section gives one
	{"arc.poll", `"5s"`, "5s", "0s", `"10ms"`, "arc.poll: 10ms is out of range"},
	{"arc.unreachable_after", `"3m"`, "3m0s", "0s", `"0s"`, "arc.unreachable_after: 0s is out of range"},
	{"arc.claim_retry", `"20s"`, "20s", "0s", `"0s"`, "arc.claim_retry: 0s is out of range"},
	{"arc.claim_tries", "5", "5", "0", "101", "arc.claim_tries: 101 is out of range (1 to 100)"},
	{"arc.workdir", `"/w"`, "/w", "$run/arc", long, "arc.workdir: " + tooLong},
	{"arc.executable", `"/bin/true"`, "/bin/true", "$self", long, "arc.executable: " + tooLong},
	{"arc.request_timeout", `"30s"`, "30s", "1m0s", `"0s"`, "arc.request_timeout: 0s is out of range (1s to 1h0m0s"},
	{"arc.keep", "true", "true", "false", "1", "arc.keep: incompatible types"},

	{"gram.ce.name", `"fs1"`, "fs1", "-", `"a b"`, `gram.ce.name: CE name "a b": use letters, digits, '-' and '_'`},
	{"gram.ce.contact", `"ce:2119/jobmanager-slurm"`, "ce:2119/jobmanager-slurm", "-", `"ce:2119"`,
		`gram.ce.contact: gatekeeper a: contact "ce:2119" is not host:port/jobmanager-LRM`},
	{"gram.ce.queue", `"main"`, "main", "", long, "gram.ce.queue: " + tooLong},
	{"gram.proxy", `"/p"`, "/p", "-", long, "gram.proxy: " + tooLong},   // the base section gives one
	{"gram.ca_dir", `"/c"`, "/c", "-", long, "gram.ca_dir: " + tooLong}, // $X509_CERT_DIR, else the system's
	{"gram.poll", `"5s"`, "5s", "3s", "1", "gram.poll: 1ns is out of range"},
	{"gram.parallel", "8", "8", "4", "65", "gram.parallel: 65 is out of range (1 to 64)"},
	{"gram.unreachable_after", `"3m"`, "3m0s", "0s", `"9000h"`, "gram.unreachable_after: 9000h0m0s is out of range"},
	{"gram.claim_retry", `"20s"`, "20s", "0s", `"0s"`, "gram.claim_retry: 0s is out of range"},
	{"gram.claim_tries", "5", "5", "0", "0", "gram.claim_tries: 0 is out of range"},
	{"gram.two_phase", `"5m"`, "5m0s", "10m0s", `"5s"`, "gram.two_phase: 5s is out of range (1m0s to 24h0m0s"},
	{"gram.workdir", `"/w"`, "/w", "$run/gram", long, "gram.workdir: " + tooLong},
	{"gram.executable", `"/bin/true"`, "/bin/true", "$self", long, "gram.executable: " + tooLong},
	{"gram.command_timeout", `"30s"`, "30s", "1m0s", `"0s"`, "gram.command_timeout: 0s is out of range"},
}

func many(n int) string { return `[` + strings.TrimSuffix(strings.Repeat(`"a",`, n), ",") + `]` }

// TestEverySetting: every key of every target's section (its settings'
// toml keys, found by reflection, so that a setting added to a target's
// configuration needs its case here) is documented in docs/submit.md,
// decodes, takes its default when left out, and is checked at its line;
// an unknown key of each section and table, and a section of a target
// that takes none, are errors that name the file, the line and what is
// known.
func TestEverySetting(t *testing.T) {
	docs, err := os.ReadFile("../../docs/submit.md")
	if err != nil {
		t.Fatal(err)
	}
	var tested []string
	for _, c := range settingCases {
		tested = append(tested, c.key)
	}
	var all []string
	for _, s := range Targets {
		if s.section == nil {
			continue
		}
		for _, k := range settingKeys(s.section.typ(), s.Name) {
			all = append(all, k)
			if !slices.Contains(tested, k) {
				t.Errorf("setting %s has no case in settingCases", k)
			}
			last := k[strings.LastIndex(k, ".")+1:]
			if !strings.Contains(string(docs), "`"+last+"`") && !strings.Contains(string(docs), last+" = ") {
				t.Errorf("setting %s is not documented in docs/submit.md", k)
			}
		}
	}
	env := newSettingEnv(t)
	for _, c := range settingCases {
		t.Run(c.key, func(t *testing.T) {
			if !slices.Contains(all, c.key) {
				t.Fatalf("%s is no target's setting", c.key)
			}
			env.check(t, c)
		})
	}
	t.Run("unknown", func(t *testing.T) {
		for _, s := range Targets {
			if s.section == nil {
				wantError(t, "["+s.Name+"]\n", "t.toml:1: unknown section "+s.Name+" (known: sections "+strings.Join(sections(), ", ")+")")
				continue
			}
			known := strings.Join(keysOf(s.section.typ()), ", ")
			wantError(t, "["+s.Name+"]\nnope = 1\n", "t.toml:2: unknown key "+s.Name+".nope (known: "+known+")")
			for _, table := range []string{"clusters", "ce"} {
				if sub, ok := tableOf(s.section.typ(), table); ok {
					wantError(t, "[["+s.Name+"."+table+"]]\nnope = 1\n",
						"t.toml:2: unknown key "+s.Name+"."+table+".nope (known: "+strings.Join(keysOf(sub), ", ")+")")
				}
			}
		}
		wantError(t, "[local]\n[nope]\nx = 1\n", "t.toml:2: unknown section nope (known: sections "+strings.Join(sections(), ", ")+")")
	})
}

// settingKeys are the keys of the settings of type t under prefix; a table
// (a list of structs) gives its own keys, not itself.
func settingKeys(t reflect.Type, prefix string) []string {
	var out []string
	for _, k := range keysOf(t) {
		if sub, ok := tableOf(t, k); ok {
			out = append(out, settingKeys(sub, prefix+"."+k)...)
			continue
		}
		out = append(out, prefix+"."+k)
	}
	return out
}

// settingEnv is what the cases' targets are made with: a run directory,
// and for the grid targets the credentials they read.
type settingEnv struct {
	dir, self string
	base      map[string]string // the lines a section needs besides the setting under test
	tables    map[string]string // the lines of a table's entry besides the setting
	skip      map[string]string // a target that cannot be made here: why
}

func newSettingEnv(t *testing.T) *settingEnv {
	dir := t.TempDir()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	e := &settingEnv{dir: dir, self: self, skip: map[string]string{},
		base: map[string]string{},
		tables: map[string]string{"slurm.clusters": `name = "a"`, "arc.ce": "name = \"a\"\nurl = \"https://a/arex\"",
			"gram.ce": "name = \"a\"\ncontact = \"a:2119/jobmanager-fork\""}}
	cred, err := gridtest.New(filepath.Join(dir, "cred"))
	if err != nil {
		t.Fatal(err)
	}
	cert, err1 := os.ReadFile(cred.UserCert)
	key, err2 := os.ReadFile(cred.UserKey)
	proxy := filepath.Join(dir, "proxy.pem")
	if err := os.WriteFile(proxy, append(cert, key...), 0o600); err1 != nil || err2 != nil || err != nil {
		t.Fatal(err, err1, err2)
	}
	e.base["arc"] = fmt.Sprintf("proxy = %q\nca_dir = %q", proxy, cred.CADir)
	e.base["gram"] = fmt.Sprintf("proxy = %q", proxy)
	if _, err := os.Stat("/usr/bin/globusrun"); err != nil {
		e.skip["gram"] = "globusrun is not installed"
	}
	return e
}

// check runs one case: the good value decoded, the default of the made
// target, the bad value refused at its line.
func (e *settingEnv) check(t *testing.T, c settingCase) {
	path := strings.Split(c.key, ".")
	sec := path[0]
	// The section's lines, the setting's (its line) and, for a key of a
	// table or a grid target (which needs a CE), the table's entry: a
	// setting of the section goes before its tables.
	src := func(value string) (string, int) {
		var b strings.Builder
		fmt.Fprintf(&b, "[%s]\n", sec)
		keep := func(lines string) {
			for _, l := range strings.Split(lines, "\n") {
				if l != "" && !strings.HasPrefix(l, path[len(path)-1]+" ") {
					fmt.Fprintln(&b, l)
				}
			}
		}
		keep(e.base[sec])
		table, entry := sec+".ce", e.tables[sec+".ce"] // slurm without clusters has its default cluster
		if len(path) == 3 {
			table, entry = sec+"."+path[1], e.tables[sec+"."+path[1]]
		}
		setting := func() int {
			line := strings.Count(b.String(), "\n") + 1
			if value != "" {
				fmt.Fprintf(&b, "%s = %s\n", path[len(path)-1], value)
			}
			return line
		}
		line := 0
		if len(path) == 2 {
			line = setting()
		}
		if entry != "" {
			fmt.Fprintf(&b, "[[%s]]\n", table)
			keep(entry)
		}
		if len(path) == 3 {
			line = setting()
		}
		return b.String(), line
	}
	good, _ := src(c.good)
	f, err := Parse("t.toml", []byte(good))
	if err != nil {
		t.Fatalf("%s = %s: %v\n%s", c.key, c.good, err, good)
	}
	if got, ok := field(f.sections[sec], path[1:]); !ok || got != c.want {
		t.Errorf("%s = %s decoded as %q, want %q", c.key, c.good, got, c.want)
	}
	bad, line := src(c.bad)
	wantError(t, bad, fmt.Sprintf("t.toml:%d: %s", line, c.err))
	if c.def == "-" || e.skip[sec] != "" {
		return
	}
	without, _ := src("")
	file := filepath.Join(e.dir, strings.ReplaceAll(c.key, ".", "_")+".toml")
	if err := os.WriteFile(file, []byte(without), 0o644); err != nil {
		t.Fatal(err)
	}
	run := filepath.Join(e.dir, "run-"+c.key)
	tg, cfg, err := New(context.Background(), sec, Options{File: file, RunDir: run}, nil)
	if err != nil {
		t.Fatalf("%s left out: %v\n%s", c.key, err, without)
	}
	defer tg.Close()
	want := strings.NewReplacer("$run", run, "$self", e.self, "$cpus", fmt.Sprint(runtime.NumCPU())).Replace(c.def)
	if got, ok := field(cfg, path[1:]); !ok || got != want {
		t.Errorf("%s left out: the target's configuration holds %q, want %q", c.key, got, want)
	}
}

// field is the setting at path (toml keys; a table's first entry) of v, a
// section's settings or a target's configuration, as fmt.Sprint shows it.
func field(v any, path []string) (string, bool) {
	rv := reflect.ValueOf(v)
	for _, k := range path {
		for rv.Kind() == reflect.Pointer || rv.Kind() == reflect.Slice {
			if rv.Kind() == reflect.Pointer {
				rv = rv.Elem()
			} else if rv.Len() > 0 {
				rv = rv.Index(0)
			} else {
				return "", false
			}
		}
		i := slices.IndexFunc(reflect.VisibleFields(rv.Type()), func(f reflect.StructField) bool { return tomlKey(f) == k })
		if i < 0 {
			return "", false
		}
		rv = rv.Field(i)
	}
	if rv.Kind() == reflect.Pointer {
		if rv.IsNil() {
			return "<nil>", true
		}
		rv = rv.Elem()
	}
	return fmt.Sprint(rv.Interface()), true
}

func wantError(t *testing.T, src, want string) {
	t.Helper()
	if _, err := Parse("t.toml", []byte(src)); err == nil || !strings.HasPrefix(err.Error(), want) {
		t.Errorf("%q: got %v, want %q…", src, err, want)
	}
}
