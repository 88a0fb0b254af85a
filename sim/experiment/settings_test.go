package experiment

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/gmark/gmark/sim"
	"github.com/gmark/gmark/sim/topology"
)

// settingCases: for every setting, an architecture that reads it, a
// value (TOML) and the field it decodes to, and a value its check refuses
// with part of the message ("" where the type admits no wrong value).
var settingCases = []struct {
	key, arch, good, field, bad, why string
}{
	{"cool_down", "sep-c", "true", "true", "", ""},
	{"cool_down_limit", "sep-c", `"2h"`, "2h0m0s", "-5", "cool_down_limit = -5: out of range [0, 100 years]"},
	{"aligned_cycles", "condor", "true", "true", "", ""},
	{"info_period", "central", `"5m"`, "5m0s", `"200h"`, "info_period = 200h0m0s is out of range"},
	{"info_delay", "central", `"30s"`, "30s", `"200h"`, "info_delay = 200h0m0s is out of range"},
	{"keep_alive_period", "condor", `"10m"`, "10m0s", `"0s"`, "keep_alive_period = 0s is out of range"},
	{"lease_term", "dmm", `"1h"`, "1h0m0s", `"1s"`, "lease_term = 1s is shorter than keep_alive_period"},
	{"slowdown_bound", "sep-c", "20", "20s", `"200h"`, "slowdown_bound = 200h0m0s is out of range"},
	{"local_scheduler", "sep-c", `"easy"`, "easy", `"sjf"`, `local_scheduler "sjf": use "fcfs", "easy" or "conservative"`},
	{"selection", "sep-c", `"window:4"`, "window:4", `"window:0"`, `job selection "window:0"`},
	{"failures", "sep-c", `"thesis"`, "thesis", `"weibull"`, `failures "weibull": use "none" or "thesis"`},
	{"failure_scale", "sep-c", "2.5", "2.5", "-2.0", "failure_scale = -2 is out of range"},
	{"growth", "sep-c", `"thesis"`, "thesis", `"linear"`, `growth "linear": use "none" or "thesis"`},
	{"growth_per_year", "sep-c", "0.3", "0.3", "1e6", "growth_per_year = 1e+06 is out of range"},
	{"growth_size_per_year", "sep-c", "1", "1", "-0.5", "growth_size_per_year = -0.5 is out of range"},
	{"growth_span", "sep-c", `"30d"`, "720h0m0s", `"-1d"`, "growth_span"},
	{"match_period", "condor", `"10m"`, "10m0s", `"0s"`, "match_period = 0s is out of range"},
	{"dispatch", "condor", `"fcfs-bypass"`, "fcfs-bypass", `"lifo"`, `local dispatch "lifo"`},
	{"central_reserve", "hier", "false", "false", "", ""},
	{"placement", "central", `"close-to-files"`, "close-to-files", `"XX"`, `placement "XX": unknown placement policy "XX" (WF, CF, CM`},
	{"central_model", "central", `"core"`, "core", `"koala"`, `central_model "koala": use "placement" or "core"`},
	{"core_grid", "central", `"das2.toml"`, "das2", `"other-grid.toml"`, "core_grid (the core's grid) has 1 clusters, the topology das2 5"},
	{"deadline_policy", "central", `"rpp"`, "rpp", `"soon"`, "deadline_policy: scheduler.deadline_policy"},
	{"deadline_l", "central", "0.5", "0.5", "2.0", "deadline_l: scheduler.deadline_l = 2 is out of range"},
	{"deadline_priority", "central", `"local"`, "local", `"medium"`, "deadline_priority: scheduler.deadline_priority"},
	{"local_load", "central", "0.3", "0.3", "2.0", "local_load: "},
	{"gp_kill", "central", `"every-try"`, "every-try", `"never"`, `gp_kill "never": use "at-deadline" or "every-try"`},
	{"waitx_first_try", "central", `"skip"`, "skip", `"never"`, `waitx_first_try "never": use "restart" or "skip"`},
	{"local_warmup", "central", `"1h"`, "1h0m0s", `"9000h"`, "local_warmup: scheduler.local_warmup"},
	{"distribution", "hier", `"load"`, "load", `"nearest"`, `distribution "nearest": use worst-fit`},
	{"half_life", "fcondor", `"12h"`, "12h0m0s", `"0s"`, "half_life = 0s is out of range"},
	{"delegation_period", "dmm", `"2m"`, "2m0s", `"0s"`, "delegation_period = 0s is out of range"},
	{"threshold", "dmm", "1.5", "1.5", "0.0", "threshold = 0 is out of range: must be in (0, 100]"},
	{"dttl", "dmm", "3", "3", "65", "dttl = 65 is out of range: must be in [0, 64]"},
	{"seen_memory", "dmm", `"2h"`, "2h0m0s", `"200h"`, "seen_memory = 200h0m0s is out of range"},
	{"delegation_order", "dmm", `"lifo"`, "lifo", `"random"`, `delegation order "random"`},
	{"target_order", "dmm", `"most-free"`, "most-free", `"random"`, `target order "random"`},
	{"dmm_information", "dmm", `"global"`, "", `"all"`, `dmm_information "all": use "local" or "global"`},
	{"dmm_pass_on", "dmm", "false", "false", "", ""},
}

// documentedSettings are the keys of docs/sim.md's [settings] table.
func documentedSettings(t *testing.T) []string {
	b, err := os.ReadFile("../../docs/sim.md")
	if err != nil {
		t.Fatal(err)
	}
	doc := string(b)
	start := strings.Index(doc, "**`[settings]`**")
	if start < 0 {
		t.Fatal("docs/sim.md has no [settings] table")
	}
	end := start + strings.Index(doc[start:], "\n\n`central_model`")
	var keys []string
	row := regexp.MustCompile("^\\| `([a-z_]+)`[^|]*\\|[^|]*\\|(?: `([a-z_]+)`)?")
	for _, l := range strings.Split(doc[start:end], "\n") {
		if m := row.FindStringSubmatch(l); m != nil {
			keys = append(keys, m[1])
			if m[2] != "" {
				keys = append(keys, m[2])
			}
		}
	}
	return keys
}

// fieldText is a setting's field as the cases write it.
func fieldText(v reflect.Value) string {
	switch x := v.Interface().(type) {
	case time.Duration:
		return x.String()
	case *float64:
		if x == nil {
			return "nil"
		}
		return fmt.Sprint(*x)
	}
	if v.Kind() == reflect.Pointer && !v.IsNil() && v.Elem().FieldByName("Name").IsValid() {
		return v.Elem().FieldByName("Name").String() // a grid, by its name
	}
	return fmt.Sprint(v.Interface())
}

// settingsDir is a directory with the grid files the cases name.
func settingsDir(t *testing.T) string {
	dir := t.TempDir()
	top, err := topology.Preset("das2")
	if err != nil {
		t.Fatal(err)
	}
	g := []byte("name = \"das2\"\n")
	for i := 0; i < top.Clusters; i++ {
		g = fmt.Appendf(g, "[[cluster]]\nname = %q\nprocessors = %d\n", top.Nodes[i].Name, top.Nodes[i].Processors)
	}
	for name, src := range map[string][]byte{"das2.toml": g, "other-grid.toml": []byte("[[cluster]]\nname = \"x\"\nprocessors = 8\n")} {
		if err := os.WriteFile(filepath.Join(dir, name), src, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// Every setting of every architecture — every key sim.Config declares,
// and every key docs/sim.md documents, which must be the same — decodes
// into its field under an architecture that reads it (at the top and in
// a scenario), keeps its default when not given, and has its range
// checked, the problem at the setting's line naming its key.
func TestEverySetting(t *testing.T) {
	dir := settingsDir(t)
	var declared []string
	for _, s := range new(sim.Config).Settings() {
		declared = append(declared, s.Key)
	}
	cases := map[string]bool{}
	for _, c := range settingCases {
		cases[c.key] = true
	}
	for _, k := range documentedSettings(t) {
		if !cases[k] {
			t.Errorf("docs/sim.md documents %s, which has no case here", k)
		}
		if !strings.Contains(" "+strings.Join(declared, " ")+" ", " "+k+" ") {
			t.Errorf("docs/sim.md documents %s, which sim.Config does not declare", k)
		}
	}
	for _, c := range settingCases {
		t.Run(c.key, func(t *testing.T) {
			head := fmt.Sprintf("name = \"e\"\ntopology = \"das2\"\narchitectures = [%q]\nloads = [30]\n", c.arch)
			for _, src := range []string{
				head + "[settings]\n" + c.key + " = " + c.good + "\n",
				head + "[[scenario]]\nname = \"s\"\n[scenario.settings]\n" + c.key + " = " + c.good + "\n",
			} {
				e, err := parse(t, dir, src, Options{})
				if err != nil {
					t.Fatalf("%s = %s: %v", c.key, c.good, err)
				}
				sc := e.Scenarios[0]
				cfg := sc.Config(c.arch, 1)
				got := ""
				for _, s := range cfg.Settings() {
					if s.Key == c.key {
						got = fieldText(s.Field)
					}
				}
				if got != c.field {
					t.Errorf("%s = %s decodes to %q, want %q", c.key, c.good, got, c.field)
				}
				if sc.Settings[c.key] == "" {
					t.Errorf("%s = %s is not in the scenario's record: %v", c.key, c.good, sc.Settings)
				}
			}
			// Not given: the architecture's default.
			e, err := parse(t, dir, head, Options{})
			if err != nil {
				t.Fatal(err)
			}
			cfg, def := e.Scenarios[0].Config(c.arch, 1), sim.DefaultConfig(c.arch)
			def.Seed = 1
			if !reflect.DeepEqual(cfg, def) {
				t.Errorf("without settings, %s's config is\n%+v\nnot its default\n%+v", c.arch, cfg, def)
			}
			if c.bad == "" {
				return
			}
			src := head + "[settings]\n" + c.key + " = " + c.bad + "\n"
			_, err = parse(t, dir, src, Options{})
			at := filepath.Join(dir, "exp.toml") + ":6: "
			if err == nil || !strings.HasPrefix(err.Error(), at) || !strings.Contains(err.Error(), c.why) || strings.Count(err.Error(), "\n") > 0 {
				t.Errorf("%s = %s: error\n%v\nwant one line at %q saying %q", c.key, c.bad, err, at, c.why)
			}
		})
	}
}

// A setting the architecture does not read and that is its group's own
// (dmm's readings, central's core) stays at its default in the other
// architectures' runs, so their digests do not depend on it; one that is
// shared (dttl) is in every run's configuration, as it always was.
func TestOwnSettingsStayHome(t *testing.T) {
	e, err := parse(t, t.TempDir(), "name = \"e\"\ntopology = \"das2\"\narchitectures = [\"condor\", \"dmm\"]\nloads = [30]\n[settings]\ndmm_pass_on = false\ndttl = 3\n", Options{})
	if err != nil {
		t.Fatal(err)
	}
	condor, dmm := e.Scenarios[0].Config("condor", 1), e.Scenarios[0].Config("dmm", 1)
	if condor.DMMPassOn || dmm.DMMPassOn || condor.DTTL != 3 || dmm.DTTL != 3 || dmm.DMMInformation != sim.DMMLocal || condor.DMMInformation != "" {
		t.Errorf("condor %+v\ndmm %+v", condor.DMMSettings, dmm.DMMSettings)
	}
	c := sim.DefaultConfig("condor")
	c.DMMPassOn = true
	if err := c.Check(); err == nil || !strings.Contains(err.Error(), "dmm_pass_on is a setting of dmm, not condor") {
		t.Errorf("condor with dmm_pass_on: %v", err)
	}
}

// Every setting sim.Config declares, documented or not, refuses a value of
// another type, at its line, naming it.
func TestEverySettingRefusesAnotherType(t *testing.T) {
	dir := t.TempDir()
	for _, st := range new(sim.Config).Settings() {
		wrong := `"x"`
		switch ft := st.Field.Type(); {
		case ft == reflect.TypeOf(time.Duration(0)):
			wrong = "true"
		case ft.Kind() == reflect.String || ft.Kind() == reflect.Pointer && ft.Elem().Kind() == reflect.Struct:
			wrong = "7"
		}
		_, err := parse(t, dir, base+"[settings]\n"+st.Key+" = "+wrong+"\n", Options{})
		at := filepath.Join(dir, "exp.toml") + ":6: " + st.Key + ": "
		if err == nil || !strings.HasPrefix(err.Error(), at) {
			t.Errorf("%s = %s: error\n%v\nwant one at %q", st.Key, wrong, err, at)
		}
	}
}

// An unknown key, a key of the wrong type, a table where a value belongs:
// each a clear error at its line.
func TestSettingErrors(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct{ src, want string }{
		{"[settings]\ndtl = 3\n", "6: unknown setting settings.dtl"},
		{"[[scenario]]\nname = \"s\"\n[scenario.settings]\ndtl = 3\n", "8: unknown setting scenario.settings.dtl"},
		{"[settings.dmm]\ndtl = 3\n", "6: unknown setting settings.dmm.dtl"},
		{"[settings]\ndttl = \"3\"\n", "6: dttl: incompatible types: TOML value has type string; the setting is an integer"},
		{"[settings]\ndttl = 3.5\n", "6: dttl: incompatible types: TOML value has type float; the setting is an integer"},
		{"[settings]\ndttl = 9223372036854775807\n", "6: dttl = 9223372036854775807 is out of range: must be in [0, 64]"},
		{"[settings]\nthreshold = \"high\"\n", "6: threshold: incompatible types: TOML value has type string; the setting is a float"},
		{"[settings]\nthreshold = 2\n", ""},
		{"[settings]\ncool_down = 1\n", "6: cool_down: incompatible types: TOML value has type integer; the setting is a boolean"},
		{"[settings]\nplacement = 7\n", "6: placement: incompatible types: TOML value has type integer; the setting is a string"},
		{"[settings]\nmatch_period = [1]\n", "6: match_period: a duration is a string with a unit"},
		{"[settings]\ncore_grid = 1\n", "6: core_grid: incompatible types: TOML value has type integer; the setting is the name of a grid file"},
		{"[settings]\ngrowth_size_per_year = true\n", "6: growth_size_per_year: incompatible types: TOML value has type boolean; the setting is a float"},
		// Checks whose messages did not name the setting's field were put
		// at no line when errors were matched to settings by their text.
		{"[settings]\ndttl = \"3\"\n[[scenario]]\nname = \"a\"\n[[scenario]]\nname = \"b\"\n", "6: dttl: incompatible types"},
		{"[settings]\ndelegation_order = \"random\"\n", "6: scenario \"default\", architecture sep-c: delegation order \"random\""},
		{"[settings]\ntarget_order = \"random\"\n", "6: scenario \"default\", architecture sep-c: target order \"random\""},
		{"[settings]\nselection = \"window:0\"\n", "6: scenario \"default\", architecture sep-c: job selection \"window:0\""},
	} {
		_, err := parse(t, dir, base+tc.src, Options{})
		if tc.want == "" {
			if err != nil {
				t.Errorf("%q: %v", tc.src, err)
			}
			continue
		}
		line, text, _ := strings.Cut(tc.want, ": ")
		at := filepath.Join(dir, "exp.toml") + ":" + line + ": "
		if err == nil || !strings.HasPrefix(err.Error(), at) || !strings.Contains(err.Error(), text) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%q: error\n%v\nwant %q at %q, once", tc.src, err, text, at)
		}
	}
}
