package experiment

import (
	"fmt"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/gmark/gmark/sim"
)

// every is a head naming every architecture, for the sections' tests.
var every = fmt.Sprintf("name = \"e\"\ntopology = \"das2\"\narchitectures = [%s]\nloads = [30]\n", quoted(sim.ArchNames()))

func quoted(names []string) string {
	q := make([]string, len(names))
	for i, n := range names {
		q[i] = fmt.Sprintf("%q", n)
	}
	return strings.Join(q, ", ")
}

// readersOf are the architectures that read a setting, and whether it is
// every architecture's.
func readersOf(t *testing.T, key string) ([]string, bool) {
	t.Helper()
	for _, s := range new(sim.Config).Settings() {
		if s.Key == key {
			r := sim.Readers(s.Group)
			return r, len(r) == len(sim.ArchNames())
		}
	}
	t.Fatalf("no setting %s", key)
	return nil, false
}

// digests are the run digests of an experiment and its architectures'
// configurations, in expansion order.
func digests(t *testing.T, dir, src string) ([]string, []sim.Config) {
	t.Helper()
	e, err := parse(t, dir, src, Options{})
	if err != nil {
		t.Fatalf("%v\n%s", err, src)
	}
	var ds []string
	var cs []sim.Config
	for i := 0; i < e.NumRuns(); i++ {
		r, err := e.Run(i)
		if err != nil {
			t.Fatal(err)
		}
		ds, cs = append(ds, r.Arch+" "+r.Digest), append(cs, r.Config)
	}
	return ds, cs
}

// Every architecture's setting given in the section of each architecture
// that reads it makes the same runs, digest for digest, as given in the
// [settings] table: at the top and in a scenario, under every
// architecture (those that do not read it carry it, as they always did).
func TestSectionsMakeTheSameRuns(t *testing.T) {
	dir := settingsDir(t)
	for _, c := range settingCases {
		readers, everyones := readersOf(t, c.key)
		if everyones {
			continue
		}
		t.Run(c.key, func(t *testing.T) {
			var secs, scSecs string
			for _, r := range readers {
				secs += fmt.Sprintf("[settings.%s]\n%s = %s\n", r, c.key, c.good)
				scSecs += fmt.Sprintf("[scenario.settings.%s]\n%s = %s\n", r, c.key, c.good)
			}
			sc := "[[scenario]]\nname = \"s\"\n"
			for _, pair := range [][2]string{
				{"[settings]\n" + c.key + " = " + c.good + "\n", secs},
				{sc + "[scenario.settings]\n" + c.key + " = " + c.good + "\n", sc + scSecs},
				{sc + "settings = { " + c.key + " = " + c.good + " }\n", sc + "settings = { " + readers[0] + " = { " + c.key + " = " + c.good + " } }\n"},
			} {
				if len(readers) > 1 && strings.HasPrefix(pair[1], sc+"settings = {") {
					continue // one reader's inline section is not the flat form
				}
				flat, _ := digests(t, dir, every+pair[0])
				sect, cfgs := digests(t, dir, every+pair[1])
				if !reflect.DeepEqual(flat, sect) {
					t.Errorf("flat:\n%s\nsections:\n%s\nruns\n%v\n%v", pair[0], pair[1], flat, sect)
				}
				plain, _ := digests(t, dir, every)
				for i, cfg := range cfgs {
					if cfg.Arch == readers[0] && sect[i] == plain[i] {
						t.Errorf("%s: the section changed nothing of its run", cfg.Arch)
					}
				}
			}
		})
	}
}

// A section gives its architecture's runs their values: of a setting
// several architectures read, each its own; the scenario's section over
// the scenario's table over the experiment's section over its table.
func TestSectionPrecedence(t *testing.T) {
	dir := t.TempDir()
	period := func(src string) map[string]string {
		t.Helper()
		e, err := parse(t, dir, every+src, Options{})
		if err != nil {
			t.Fatalf("%v\n%s", err, src)
		}
		out := map[string]string{}
		for _, a := range sim.ArchNames() {
			out[a] = e.Scenarios[len(e.Scenarios)-1].Config(a, 1).MatchPeriod.String()
		}
		return out
	}
	sc := "[[scenario]]\nname = \"s\"\n"
	for _, tc := range []struct {
		src  string
		want map[string]string // the rest: 5m0s
	}{
		// Each reader its own; those that do not read it keep the default
		// when the readers' sections disagree.
		{"[settings.condor]\nmatch_period = \"1m\"\n[settings.dmm]\nmatch_period = \"2m\"\n", map[string]string{"condor": "1m0s", "dmm": "2m0s"}},
		// One reader's: carried to those that do not read it, as the flat
		// table would.
		{"[settings.condor]\nmatch_period = \"1m\"\n", map[string]string{"condor": "1m0s", "sep-c": "1m0s", "cern": "1m0s", "central": "1m0s", "hier": "1m0s"}},
		// Agreeing sections: carried.
		{"[settings.condor]\nmatch_period = \"1m\"\n[settings.dmm]\nmatch_period = \"1m\"\n", map[string]string{"condor": "1m0s", "dmm": "1m0s", "sep-c": "1m0s", "cern": "1m0s", "central": "1m0s", "hier": "1m0s"}},
		// The experiment's table, a reader's section of the scenario over
		// it (carried, as the scenario's over the experiment's).
		{"[settings]\nmatch_period = \"1m\"\n[settings.dmm]\n" + "\n" + sc + "[scenario.settings.dmm]\nmatch_period = \"3m\"\n",
			map[string]string{"condor": "1m0s", "fcondor": "1m0s", "dmm": "3m0s", "sep-c": "3m0s", "cern": "3m0s", "central": "3m0s", "hier": "3m0s"}},
		// The scenario's table over the experiment's section.
		{"[settings.dmm]\nmatch_period = \"2m\"\n" + sc + "[scenario.settings]\nmatch_period = \"4m\"\n",
			map[string]string{"condor": "4m0s", "fcondor": "4m0s", "dmm": "4m0s", "sep-c": "4m0s", "cern": "4m0s", "central": "4m0s", "hier": "4m0s"}},
		// Another scenario's section is not this one's; the scenario's,
		// carried, over the experiment's.
		{"[settings.dmm]\nmatch_period = \"2m\"\n" + sc + sc[:len(sc)-2] + "2\"\n[scenario.settings.fcondor]\nmatch_period = \"6m\"\n",
			map[string]string{"dmm": "2m0s", "fcondor": "6m0s", "sep-c": "6m0s", "cern": "6m0s", "central": "6m0s", "hier": "6m0s"}},
		// An empty section changes nothing.
		{"[settings.dmm]\n" + sc + "[scenario.settings.dmm]\n", map[string]string{}},
	} {
		got := period(tc.src)
		for _, a := range sim.ArchNames() {
			want := tc.want[a]
			if want == "" {
				want = "5m0s"
			}
			if got[a] != want {
				t.Errorf("%s\n%s: match_period %s, want %s", tc.src, a, got[a], want)
			}
		}
	}
	// An empty section: the same runs as none.
	plain, _ := digests(t, dir, every)
	empty, _ := digests(t, dir, every+"[settings.dmm]\n[settings]\n")
	if !reflect.DeepEqual(plain, empty) {
		t.Errorf("an empty section changed the runs:\n%v\n%v", plain, empty)
	}
}

// A section's problems, each at its line: a setting given twice (in the
// table and a section of one level, naming both lines), a section of an
// unknown architecture (naming the known ones), of an architecture no
// run of it runs, a key of another architecture or of the engine, an
// unknown key, a value of the wrong type or out of range, a value where
// the section belongs.
func TestSectionErrors(t *testing.T) {
	dir := t.TempDir()
	sc := "[[scenario]]\nname = \"s\"\n"
	for _, tc := range []struct{ src, want string }{
		{"[settings]\ndttl = 3\n[settings.dmm]\ndttl = 4\n", "8: dttl is given twice: here, in [settings.dmm], and at line 6, in [settings]: give it once"},
		{"[settings.dmm]\ndttl = 4\n[settings]\ndttl = 3\n", "6: dttl is given twice: here, in [settings.dmm], and at line 8, in [settings]: give it once"},
		{"[settings]\ndmm.dttl = 4\ndttl = 3\n", "6: dttl is given twice: here, in [settings.dmm], and at line 7, in [settings]: give it once"},
		{sc + "[scenario.settings]\ndttl = 3\n[scenario.settings.dmm]\ndttl = 4\n", "10: dttl is given twice: here, in [scenario.settings.dmm], and at line 8, in [scenario.settings]: give it once"},
		{"[settings.dmn]\ndttl = 4\n", "5: [settings.dmn]: unknown architecture \"dmn\" (known: central, cern, condor, dmm, fcondor, hier, sep-c)"},
		{sc + "[scenario.settings.dmn]\ndttl = 4\n", "7: [scenario.settings.dmn]: unknown architecture \"dmn\" (known: central, cern"},
		{"[settings.condor]\ndttl = 4\n", "6: dttl is a setting of dmm, not condor: give it in [settings.dmm]"},
		{"[settings.central]\nmatch_period = \"1m\"\n", "6: match_period is a setting of condor and dmm and fcondor, not central: give it in [settings.condor]"},
		{"[settings.dmm]\ninfo_period = \"1m\"\n", "6: info_period is every architecture's: give it in [settings], not [settings.dmm]"},
		{"[settings.dmm]\nfailures = \"thesis\"\n", "6: failures is every architecture's: give it in [settings], not [settings.dmm]"},
		{"[settings.dmm]\ndtl = 4\n", "6: unknown setting settings.dmm.dtl"},
		{"[settings.dmm]\ndttl = \"4\"\n", "6: dttl: incompatible types: TOML value has type string; the setting is an integer"},
		{"[settings.dmm]\ndttl = 65\n", "6: scenario \"default\", architecture dmm: dttl = 65"},
		{"[settings.dmm]\ndttl = 65\n", "6: dttl = 65 is out of range: must be in [0, 64]"},
		{sc + "settings = { dmm = { dttl = true } }\n", "7: dttl: incompatible types: TOML value has type boolean"},
		{"[settings]\ndmm = 3\n", "6: settings.dmm = integer: dmm's settings are a section, [settings.dmm], not a value"},
		{"[settings.hier]\ndistribution = \"load\"\n", "5: [settings.hier]: the scenarios run no hier (architectures: dmm, sep-c): its settings would change nothing"},
		{sc + "[scenario.settings.hier]\ndistribution = \"load\"\n", "7: [scenario.settings.hier]: scenario \"s\" runs no hier (architectures: sep-c, dmm)"},
		{"[[settings.dmm]]\ndttl = 1\n", "5: settings.dmm = array of tables: dmm's settings are a section, [settings.dmm], not a value"},
		{sc + "[[scenario.settings.dmm]]\ndttl = 1\n", "7: scenario.settings.dmm = array of tables: dmm's settings are a section"},
		{"[settings.dmm.x]\ny = 1\n", "5: unknown setting settings.dmm.x"},
	} {
		_, err := parse(t, dir, base+tc.src, Options{})
		line, text, _ := strings.Cut(tc.want, ": ")
		at := filepath.Join(dir, "exp.toml") + ":" + line + ": "
		if err == nil || !strings.Contains("\n"+err.Error(), "\n"+at) || !strings.Contains(err.Error(), text) {
			t.Errorf("%q: error\n%v\nwant %q at %q", tc.src, err, text, at)
		}
	}
	// A hier section of an experiment whose scenarios run hier: fine.
	if _, err := parse(t, dir, base+"[settings.hier]\ndistribution = \"load\"\n"+sc+"architectures = [\"hier\"]\n", Options{}); err != nil {
		t.Error(err)
	}
}
