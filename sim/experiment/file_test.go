package experiment

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// parse parses src as dir/exp.toml.
func parse(t *testing.T, dir, src string, o Options) (*Experiment, error) {
	t.Helper()
	return Parse(filepath.Join(dir, "exp.toml"), []byte(src), o)
}

const base = `name = "e"
topology = "das2"
architectures = ["sep-c", "dmm"]
loads = [30, 70]
`

// b1 is base with one load level (a burst's).
const b1 = `name = "e"
topology = "das2"
architectures = ["sep-c", "dmm"]
loads = [100]
`

// Every problem of a file is reported at its line, with what is wrong;
// nothing panics and nothing is left unsaid.
func TestParseErrors(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "t.swf"), []byte("1 0 0 10 1 -1 -1 1 -1 -1 1 1 1 -1 -1 1 -1 -1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for name, src := range map[string]string{
		"bad-grid.toml":   "[[cluster]]\nname = \"fs0\"\nprocessors = -144\n",
		"other-grid.toml": "[[cluster]]\nname = \"x\"\nprocessors = 8\n",
		"g.wdl":           "1\tunitary\t10\tsleep\tsingle\t1\t-\tPoisson(10s)\tRunTime=60\n",
		"bad.wdl":         "1\tunitary\tx\tsleep\tsingle\t1\t-\tPoisson(10s)\n",
	} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	central := "name = \"e\"\ntopology = \"das2\"\narchitectures = [\"central\", \"dmm\"]\nloads = [1]\n"
	tests := []struct {
		name, src string
		want      []string // each "LINE: text" (the line in the file, and a part of the message)
	}{
		{"no name", "topology = \"das2\"\narchitectures = [\"dmm\"]\nloads = [1]\n", []string{"0: name \"\": the experiment's name is required"}},
		{"bad name", "name = \"a b\"\n" + strings.SplitN(base, "\n", 2)[1], []string{"1: name \"a b\""}},
		{"negative seed", base + "seed = -1\n", []string{"5: seed -1"}},
		{"seed type", base + "seed = \"x\"\n", []string{"5: seed: incompatible types"}},
		{"no topology", "name = \"e\"\narchitectures = [\"dmm\"]\nloads = [1]\n", []string{"0: topology is required"}},
		{"missing topology file", strings.Replace(base, `"das2"`, `"nowhere.toml"`, 1), []string{"2: topology \"nowhere.toml\" is neither a preset (das2, das2-g5k, t1) nor a file: no such file or directory"}},
		{"bad topology file", strings.Replace(base, `"das2"`, `"t.swf"`, 1), []string{"2: topology \"t.swf\": "}},
		{"unknown architecture", base + "[[scenario]]\nname = \"s\"\narchitectures = [\"dmm\", \"koala2\"]\n", []string{"7: architecture \"koala2\" is unknown (known: central, cern, condor, dmm, fcondor, hier, sep-c)"}},
		{"duplicate architecture", strings.Replace(base, `"sep-c", "dmm"`, `"dmm", "dmm"`, 1), []string{"3: architecture \"dmm\" is named twice"}},
		{"no architectures", strings.Replace(base, `"sep-c", "dmm"`, ``, 1), []string{"3: architectures is empty: the experiment would have no run"}},
		{"architectures missing", "name = \"e\"\ntopology = \"das2\"\nloads = [1]\n", []string{"0: architectures is required"}},
		{"no loads", strings.Replace(base, `30, 70`, ``, 1), []string{"4: loads is empty: the experiment would have no run"}},
		{"load 0", strings.Replace(base, `30, 70`, `0, 70`, 1), []string{"4: load 0: a load level must be above 0%"}},
		{"negative load", strings.Replace(base, `30, 70`, `-5`, 1), []string{"4: load -5: a load level is in (0, 10000] percent"}},
		{"duplicate load", strings.Replace(base, `30, 70`, `30, 30.0`, 1), []string{"4: load 30 is given twice"}},
		{"zero repetitions", base + "repetitions = 0\n", []string{"5: repetitions = 0: must be from 1 to 10000"}},
		{"too many runs", base + "repetitions = 10000\n[[scenario]]\nname = \"a\"\nloads = [1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,23,24,25,26,27,28,29,30,31,32,33,34,35,36,37,38,39,40,41,42,43,44,45,46,47,48,49,50,51]\n",
			[]string{"0: the experiment expands into 1020000 runs: at most 1000000"}},
		{"unknown setting", base + "[settings]\nthreshhold = 1.0\n", []string{"6: unknown setting settings.threshhold"}},
		{"unknown scenario setting", base + "[[scenario]]\nname = \"a\"\n[[scenario]]\nname = \"b\"\nloadz = [3]\n", []string{"9: unknown setting scenario.loadz"}},
		{"duplicate scenario", base + "[[scenario]]\nname = \"a\"\n[[scenario]]\nname = \"a\"\n", []string{"8: scenario \"a\": a second scenario of this name"}},
		{"bad scenario name", base + "[[scenario]]\nname = \"\"\n", []string{"6: scenario name \"\""}},
		{"bad kind", base + "[workload]\nkind = \"lublin\"\n", []string{"6: workload kind \"lublin\": grid-lf, trace, wdl or burst"}},
		{"span too short", base + "[workload]\nspan = \"10s\"\n", []string{"6: span 10s: must be from 1 minute to 365 days"}},
		{"span not a duration", base + "[workload]\nspan = \"a day\"\n", []string{"6: span: \"a day\" is not a duration"}},
		{"span of a trace", base + "[workload]\nkind = \"trace\"\ntrace = \"t.swf\"\nspan = \"1d\"\n", []string{"8: span is a setting of a grid-lf workload"}},
		{"lf unknown key", base + "[workload.lf]\nUProb = 0\nuprob = 1\n", []string{"5: lf: unknown wl:lublin parameter \"uprob\""}},
		{"lf out of range", base + "[workload.lf]\nUProb = 2\nSerialProb = -1\n", []string{"5: lf: SerialProb must be in [0, 1], got -1; UProb must be in [0, 1], got 2"}},
		{"lf size range", base + "[workload.lf]\nULow = 3\nUMed = 1\n", []string{"5: lf: the size range needs ULow ≤ UMed ≤ UHi, got 3, 1, 7"}},
		{"lf set by gmark", base + "[workload.lf]\nProcessors = 8\n", []string{"5: lf: unknown wl:lublin parameter \"Processors\""}},
		{"lf not a number", base + "[workload.lf]\nUProb = \"0\"\n", []string{"6: "}},
		{"lf of a trace", base + "[workload]\nkind = \"trace\"\ntrace = \"t.swf\"\n[workload.lf]\nUProb = 0\n", []string{"8: lf is a setting of a grid-lf workload"}},
		{"trace setting on grid-lf", base + "[[scenario]]\nname = \"s\"\n[scenario.workload]\nfrom = \"1h\"\n", []string{"8: from is a setting of a trace workload"}},
		{"trace missing", base + "[workload]\nkind = \"trace\"\n", []string{"6: a trace workload needs trace = \"FILE\""}},
		{"trace file missing", base + "[workload]\nkind = \"trace\"\ntrace = \"none.swf\"\n", []string{"7: trace \"none.swf\": no such file or directory"}},
		{"trace window", base + "[workload]\nkind = \"trace\"\ntrace = \"t.swf\"\nfrom = \"2h\"\nto = \"1h\"\n", []string{"9: to (1h0m0s) must be after from (2h0m0s)"}},
		{"trace site to unknown node", base + "[workload]\nkind = \"trace\"\ntrace = \"t.swf\"\n[workload.sites]\n1 = \"fs9\"\n", []string{"9: sites: \"fs9\" is not a cluster or site of the topology"}},
		{"fixed load of unknown node", base + "[workload.fixed_load]\nnowhere = 60\n", []string{"6: fixed_load: \"nowhere\" is not a cluster or site"}},
		{"fixed and scaled", base + "[workload.fixed_load]\nfs0 = 60\n[workload.load_scale]\nfs0 = 2\n", []string{"8: \"fs0\" is in both fixed_load and load_scale"}},
		{"trace load below a grid", base + "[workload]\nkind = \"trace\"\ntrace = \"t.swf\"\n[workload.fixed_load]\nfs0 = 60\n", []string{"9: fixed_load: \"fs0\" is not a grid"}},
		{"threshold 0", base + "[settings]\nthreshold = 0.0\n", []string{"6: scenario \"default\", architecture sep-c: threshold = 0 is out of range: must be in (0, 100]"}},
		{"dttl", base + "[[scenario]]\nname = \"s\"\n[scenario.settings]\ndttl = 100\n", []string{"8: scenario \"s\", architecture sep-c: dttl = 100 is out of range: must be in [0, 64]"}},
		{"placement", "name = \"e\"\ntopology = \"das2\"\narchitectures = [\"central\"]\nloads = [1]\n[settings]\nplacement = \"XX\"\n", []string{"6: scenario \"default\", architecture central: "}},
		{"central model", central + "[settings]\ncentral_model = \"koala\"\n", []string{"6: scenario \"default\", architecture central: central_model \"koala\": use \"placement\" or \"core\""}},
		{"core grid missing", central + "[settings]\ncore_grid = \"none.toml\"\n", []string{"6: core_grid \"none.toml\": no such file or directory"}},
		{"core grid bad", central + "[settings]\ncore_grid = \"bad-grid.toml\"\n", []string{"6: core_grid \"bad-grid.toml\": ", "6: bad-grid.toml:3: cluster 1: processors = -144 is out of range"}},
		{"core grid of other clusters", central + "[settings]\ncore_grid = \"other-grid.toml\"\n", []string{"6: scenario \"default\", architecture central: core_grid (the core's grid) has 1 clusters, the topology das2 5"}},
		{"wdl without spec", base + "[workload]\nkind = \"wdl\"\n", []string{"6: a wdl workload needs spec = \"FILE\""}},
		{"wdl spec missing", base + "[workload]\nkind = \"wdl\"\nspec = \"none.wdl\"\n", []string{"7: spec \"none.wdl\": no such file or directory"}},
		{"wdl spec bad", base + "[workload]\nkind = \"wdl\"\nspec = \"bad.wdl\"\n", []string{"7: spec \"bad.wdl\": ", "7: bad.wdl:1:"}},
		{"wdl with span", base + "[workload]\nkind = \"wdl\"\nspec = \"g.wdl\"\nspan = \"1d\"\n", []string{"8: span is not a setting of a wdl workload"}},
		{"wdl with fixed load", base + "[workload]\nkind = \"wdl\"\nspec = \"g.wdl\"\n[workload.fixed_load]\nfs0 = 50\n", []string{"9: fixed_load is not a setting of a wdl workload"}},
		{"spec on grid-lf", base + "[workload]\nspec = \"g.wdl\"\n", []string{"6: spec is a setting of a wdl workload"}},
		{"local warm-up out of range", central + "[settings]\nlocal_warmup = \"9000h\"\n", []string{"6: scenario \"default\", architecture central: local_warmup: scheduler.local_warmup"}},
		{"local warm-up not a duration", central + "[settings]\nlocal_warmup = \"soon\"\n", []string{"6: local_warmup: \"soon\" is not a duration"}},
		{"core setting out of range", central + "[settings]\ndeadline_l = 2.0\n", []string{"6: scenario \"default\", architecture central: deadline_l: scheduler.deadline_l = 2 is out of range"}},
		{"period", base + "[settings]\nmatch_period = \"0s\"\n", []string{"6: scenario \"default\", architecture sep-c: match_period = 0s is out of range"}},
		{"duration type", base + "[settings]\ninfo_delay = true\n", []string{"6: info_delay: a duration is a string with a unit"}},
		{"burst without jobs", b1 + "[workload]\nkind = \"burst\"\nruntime = \"1h\"\n", []string{"6: a burst workload needs jobs = N"}},
		{"burst of 0 jobs", b1 + "[workload]\nkind = \"burst\"\njobs = 0\nruntime = \"1h\"\n", []string{"7: jobs = 0: must be from 1 to 1000000"}},
		{"burst without runtime", b1 + "[workload]\nkind = \"burst\"\njobs = 5\n", []string{"6: a burst workload needs runtime = DURATION"}},
		{"burst runtime 0", b1 + "[workload]\nkind = \"burst\"\njobs = 5\nruntime = 0\n", []string{"8: runtime = 0s: a job runs for some time"}},
		{"burst processors", b1 + "[workload]\nkind = \"burst\"\njobs = 5\nruntime = 9\nprocessors = -1\n", []string{"9: processors = -1: must be from 1 to 1048576"}},
		{"burst site", b1 + "[workload]\nkind = \"burst\"\njobs = 5\nruntime = 9\nsite = \"fs9\"\n", []string{"9: site \"fs9\" is not a cluster or site of the topology"}},
		{"burst span", b1 + "[workload]\nkind = \"burst\"\njobs = 5\nruntime = 9\nspan = \"1d\"\n", []string{"9: span is not a setting of a burst workload"}},
		{"burst loads", base + "[workload]\nkind = \"burst\"\njobs = 5\nruntime = 9\n", []string{"4: 2 loads: a burst workload is the same at every load level"}},
		{"jobs on grid-lf", base + "[workload]\njobs = 5\n", []string{"6: jobs is a setting of a burst workload, not of grid-lf"}},
		{"failures model", base + "[settings]\nfailures = \"weibull\"\n", []string{"6: scenario \"default\", architecture sep-c: failures \"weibull\": use \"none\" or \"thesis\""}},
		{"failure scale", base + "[[scenario]]\nname = \"s\"\n[scenario.settings]\nfailures = \"thesis\"\nfailure_scale = -2.0\n", []string{"9: scenario \"s\", architecture sep-c: failure_scale = -2 is out of range"}},
		{"failure scale nan", base + "[settings]\nfailure_scale = nan\n", []string{"6: scenario \"default\", architecture sep-c: failure_scale = NaN is out of range"}},
		{"growth rate", base + "[settings]\ngrowth_per_year = 1e6\n", []string{"6: scenario \"default\", architecture sep-c: growth_per_year = 1e+06 is out of range"}},
		{"growth too large", base + "[settings]\ngrowth_per_year = 100.0\ngrowth_span = \"520w\"\n", []string{"6: scenario \"default\", architecture sep-c: growth_per_year = 100 over 87360h0m0s adds"}},
		{"growth size", base + "[settings]\ngrowth_size_per_year = -0.5\n", []string{"6: scenario \"default\", architecture sep-c: growth_size_per_year = -0.5 is out of range"}},
		{"growth span", base + "[settings]\ngrowth_span = \"soon\"\n", []string{"6: growth_span: \"soon\" is not a duration"}},
		{"growth model", base + "[settings]\ngrowth = \"linear\"\n", []string{"6: scenario \"default\", architecture sep-c: growth \"linear\": use \"none\" or \"thesis\""}},
		{"failures type", base + "[settings]\nfailures = true\n", []string{"6: failures: incompatible types"}},
		{"plot without scenarios", base + "[plot]\nx = \"L_p\"\n", []string{"5: [plot] places scenarios on an x-axis, and the file has no [[scenario]]"}},
		{"plot without label", base + "[plot]\nx = \" \"\n[[scenario]]\nname = \"a\"\nplot = { x = 1 }\n", []string{"6: plot.x \" \": the x-axis label is required"}},
		{"plot label of two lines", base + "[plot]\nx = \"a\\nb\"\n[[scenario]]\nname = \"a\"\nplot = { x = 1 }\n", []string{"6: plot.x \"a\\nb\": the x-axis label is required"}},
		{"plot unknown metric", base + "[plot]\nx = \"L\"\nmetrics = [\"awt_s\", \"success\"]\n[[scenario]]\nname = \"a\"\nplot = { x = 1 }\n", []string{"7: plot.metrics: \"success\" is not a metric of the report (utilization, awt_s"}},
		{"scenario placed without plot", base + "[[scenario]]\nname = \"a\"\nplot = { x = 1 }\n", []string{"7: scenario \"a\": plot without [plot]: name the x-axis first"}},
		{"scenario not placed", base + "[plot]\nx = \"L\"\n[[scenario]]\nname = \"a\"\nplot = { x = 1 }\n[[scenario]]\nname = \"b\"\n", []string{"10: scenario \"b\" has no plot: with [plot], every scenario says where it goes"}},
		{"placement without x", base + "[plot]\nx = \"L\"\n[[scenario]]\nname = \"a\"\nplot = { line = \"A\" }\n", []string{"9: scenario \"a\": plot.x is required"}},
		{"placement at nan", base + "[plot]\nx = \"L\"\n[[scenario]]\nname = \"a\"\nplot = { x = nan }\n", []string{"9: scenario \"a\": plot.x = NaN: must be a finite number"}},
		{"placement at infinity", base + "[plot]\nx = \"L\"\n[[scenario]]\nname = \"a\"\nplot = { x = -inf }\n", []string{"9: scenario \"a\": plot.x = -Inf: must be a finite number"}},
		{"placement too far", base + "[plot]\nx = \"L\"\n[[scenario]]\nname = \"a\"\nplot = { x = 1e300 }\n", []string{"9: scenario \"a\": plot.x = 1e+300: must be a finite number of at most"}},
		{"placement x not a number", base + "[plot]\nx = \"L\"\n[[scenario]]\nname = \"a\"\nplot = { x = \"1\" }\n", []string{"9: "}},
		{"line of two lines", base + "[plot]\nx = \"L\"\n[[scenario]]\nname = \"a\"\nplot = { x = 1, line = \"A\\nB\" }\n", []string{"9: scenario \"a\": plot.line \"A\\nB\": at most 100 characters, on one line"}},
		{"two scenarios at one point", base + "[plot]\nx = \"L\"\n[[scenario]]\nname = \"a\"\nplot = { x = 1, line = \"A\" }\n[[scenario]]\nname = \"b\"\nplot = { x = 1.0, line = \"A\" }\n", []string{"12: scenario \"b\" is at the same point as scenario \"a\" (line \"A\", x = 1)"}},
		{"unknown placement key", base + "[plot]\nx = \"L\"\n[[scenario]]\nname = \"a\"\nplot = { x = 1, y = 2 }\n", []string{"9: unknown setting scenario.plot.y"}},
		{"plot load label", base + "[plot]\nx = \"L\"\nload = \"\"\"a\nb\"\"\"\n[[scenario]]\nname = \"a\"\nplot = { x = 1 }\n", []string{"7: plot.load \"a\\nb\": the name of the load level in the legends: at most 100 characters, on one line"}},
		{"syntax", base + "[settings\n", []string{"6: expected '.' or ']' to end table name"}},
		{"several at once", "name = \"\"\ntopology = \"das2\"\narchitectures = [\"x\"]\nloads = [0]\n", []string{"1: name", "3: architecture \"x\"", "4: load 0"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := parse(t, dir, tc.src, Options{})
			if err == nil {
				t.Fatalf("no error for\n%s", tc.src)
			}
			msg := err.Error()
			lines := strings.Split(msg, "\n")
			for _, w := range tc.want {
				line, text, _ := strings.Cut(w, ": ")
				prefix := filepath.Join(dir, "exp.toml") + ":" + line + ": "
				if line == "0" {
					prefix = filepath.Join(dir, "exp.toml") + ": "
				}
				found := false
				for _, l := range lines {
					if strings.HasPrefix(l, prefix) && strings.Contains(l, text) {
						found = true
					}
				}
				if !found {
					t.Errorf("want %q at %q in:\n%s", text, prefix, msg)
				}
			}
		})
	}
}

func TestParseScale(t *testing.T) {
	for _, s := range []float64{-1, 1.5, 2} {
		if _, err := parse(t, t.TempDir(), base, Options{Scale: s}); err == nil || !strings.Contains(err.Error(), "scale") {
			t.Errorf("scale %g: %v", s, err)
		}
	}
}

// A scenario's settings are the experiment's with its own over them, key
// by key; the configuration of a run is the architecture's defaults with
// them over.
func TestParseMerges(t *testing.T) {
	src := `name = "m"
seed = 42
topology = "das2-g5k"
architectures = ["dmm", "central"]
loads = [60]
repetitions = 3

[workload]
span = "12h"
tolerance = 2

[settings]
threshold = 0.8
info_delay = "2m"

[[scenario]]
name = "plain"

[[scenario]]
name = "imbalanced"
architectures = ["dmm"]
loads = [100, 150]
repetitions = 1
[scenario.workload]
span = 7200
[scenario.workload.fixed_load]
das2 = 60
[scenario.workload.load_scale]
site1 = 0.5
[scenario.settings]
threshold = 1.25
dttl = 3
`
	e, err := parse(t, t.TempDir(), src, Options{Scale: 0.5})
	if err != nil {
		t.Fatal(err)
	}
	if e.Seed != 42 || e.Scale != 0.5 || len(e.Scenarios) != 2 || e.NumRuns() != 2*3+2 {
		t.Fatalf("%+v, %d runs", e, e.NumRuns())
	}
	plain, imb := e.Scenarios[0], e.Scenarios[1]
	if plain.Workload.Span != 12*time.Hour || plain.Workload.Tolerance != 2 || imb.Workload.Span != 2*time.Hour || imb.Workload.Tolerance != 2 {
		t.Errorf("workloads %+v %+v", plain.Workload, imb.Workload)
	}
	c := plain.Config("dmm", 9)
	if c.Threshold != 0.8 || c.InfoDelay != 2*time.Minute || c.DTTL != 5 || c.Seed != 9 || c.Dispatch != "fcfs-bypass" {
		t.Errorf("plain dmm: %+v", c)
	}
	c = imb.Config("dmm", 0)
	if c.Threshold != 1.25 || c.InfoDelay != 2*time.Minute || c.DTTL != 3 {
		t.Errorf("imbalanced dmm: %+v", c)
	}
	if c := plain.Config("central", 0); c.InfoPeriod != time.Minute || c.Threshold != 0.8 {
		t.Errorf("central: %+v", c)
	}
	top := e.Topology()
	loads := ClusterLoads(top, &imb.Workload, 150)
	for i := 0; i < top.Clusters; i++ {
		n := top.Nodes[i]
		want := 150.0
		switch {
		case top.Nodes[n.Grid].Name == "das2":
			want = 60
		case top.Nodes[n.Parent].Name == "site1":
			want = 75
		}
		if loads[i] != want {
			t.Errorf("cluster %s: load %g, want %g", n.Name, loads[i], want)
		}
	}
}

// The line index finds keys in tables, arrays of tables and their
// subtables, and falls back to the nearest enclosing setting.
func TestLineIndex(t *testing.T) {
	src := `a = 1
[[scenario]]
name = "x"
[scenario.workload]
span = "1d"
[[scenario]]
name = "y"
[scenario.settings]
"threshold" = 1
[scenario.workload.fixed_load]
das2 = 60
[workload]
sites = { 1 = "fs0" }
`
	ix := indexLines(src)
	for path, want := range map[string]int{
		"a": 1, "scenario[0]": 2, "scenario[0].name": 3, "scenario[0].workload.span": 5, "scenario[1].name": 7,
		"scenario[1].settings.threshold": 9, "scenario[1].workload.fixed_load.das2": 11, "workload.sites.1": 13,
		"scenario[1].settings.dttl": 8, "scenario[3].name": 0, "nothing": 0, "": 0,
	} {
		if got := ix.line(path); got != want {
			t.Errorf("%s: line %d, want %d", path, got, want)
		}
	}
}

// FuzzParse: any input is a valid experiment or errors that each name the
// file; never a panic. A valid experiment expands into runs it can name.
func FuzzParse(f *testing.F) {
	f.Add([]byte(base))
	f.Add([]byte(base + "[[scenario]]\nname = \"a\"\n[scenario.workload.load_scale]\ndas2 = 2\n[scenario.settings]\nthreshold = 0.6\n"))
	f.Add([]byte(base + "[workload]\nkind = \"trace\"\ntrace = \"x\"\n"))
	f.Add([]byte("name = \"x\"\ntopology = \"das2-g5k\"\narchitectures = [\"hier\"]\nloads = [1e9]\nrepetitions = 99999\n"))
	f.Add([]byte("[[scenario]]\n[[scenario]]\nname = 3\n"))
	f.Add([]byte("name = \"c\"\ntopology = \"das2\"\narchitectures = [\"central\"]\nloads = [20]\n[workload]\nkind = \"wdl\"\nspec = \"g.wdl\"\n[settings]\ncentral_model = \"core\"\ndeadline_policy = \"wait-10\"\ndeadline_l = 0.7\ndeadline_priority = \"local\"\nlocal_load = 0.3\ncore_grid = \"grid.toml\"\n"))
	f.Add([]byte(base + "[settings]\nfailures = \"thesis\"\nfailure_scale = 2.5\ngrowth = \"thesis\"\ngrowth_per_year = 0.2\ngrowth_span = \"30d\"\ngrowth_size_per_year = 0.1\n"))
	f.Add([]byte("name = \"t\"\ntopology = \"t1\"\narchitectures = [\"central\"]\nloads = [100]\n[workload]\nkind = \"burst\"\njobs = 100\nprocessors = 1\nruntime = \"10000s\"\nsite = \"c\"\n"))
	f.Add([]byte(base + "[workload.lf]\nUProb = 0\nSerialProb = 0.5\nULow = 3\nUMed = 1\n"))
	f.Add([]byte(base + "[plot]\nx = \"L_p\"\nload = \"U_g\"\nmetrics = [\"awt_s\"]\n[[scenario]]\nname = \"a\"\nplot = { x = 0.5, line = \"A\" }\n[[scenario]]\nname = \"b\"\nplot = { x = 1 }\n"))
	f.Add([]byte(base + "[settings]\ndttl = 3\n[settings.dmm]\nthreshold = 2\nmatch_period = \"1m\"\n[[scenario]]\nname = \"a\"\nsettings = { dmm = { dttl = 4 }, sep-c = {} }\n"))
	f.Fuzz(func(t *testing.T, src []byte) {
		e, err := Parse("f.toml", src, Options{})
		if err != nil {
			for _, l := range strings.Split(err.Error(), "\n") {
				if !strings.HasPrefix(l, "f.toml") {
					t.Fatalf("an error without the file name: %q", l)
				}
			}
			return
		}
		n := e.NumRuns()
		if n < 1 || n > MaxRuns {
			t.Fatalf("%d runs", n)
		}
		for _, i := range []int{0, n - 1} {
			r, err := e.Run(i)
			if err != nil || r.Digest == "" || r.Load <= 0 {
				t.Fatalf("run %d: %+v %v", i, r, err)
			}
		}
	})
}

// Durations in an experiment file take compound forms ("7d1h", "1h30m"),
// as a trace's window and a stream's span need them.
func TestParseCompoundDurations(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "t.swf"), []byte("1 0 0 10 1 -1 -1 1 -1 -1 1 1 1 -1 -1 1 -1 -1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	src := base + "[workload]\nkind = \"trace\"\ntrace = \"t.swf\"\nfrom = \"1h30m\"\nto = \"7d1h\"\n[settings]\ninfo_delay = \"1m30s\"\n"
	e, err := parse(t, dir, src, Options{})
	if err != nil {
		t.Fatal(err)
	}
	w := e.Scenarios[0].Workload
	if w.From == nil || *w.From != 90*time.Minute || w.To == nil || *w.To != 7*24*time.Hour+time.Hour {
		t.Errorf("window %v .. %v, want 1h30m .. 169h", w.From, w.To)
	}
	if c := e.Scenarios[0].Config("dmm", 1); c.InfoDelay != 90*time.Second {
		t.Errorf("info_delay %v, want 1m30s", c.InfoDelay)
	}
	_, err = parse(t, dir, base+"[workload]\nspan = \"1h7d\"\n", Options{})
	if err == nil || !strings.Contains(err.Error(), "largest unit down") {
		t.Errorf("1h7d: %v", err)
	}
}
