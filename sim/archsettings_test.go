package sim

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
)

// An architecture reads its own settings, handed to its constructor, and
// the engine's through the Sim's methods: no file of an architecture (nor
// the site managers' shared parts) names the Config, the Sim's cfg or a
// Config method, so that none reads another architecture's settings.
func TestArchitecturesReadTheirOwnSettings(t *testing.T) {
	files, err := filepath.Glob("arch_*.go")
	if err != nil {
		t.Fatal(err)
	}
	files = append(files, "sitemanager.go")
	checked := 0
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		fs := token.NewFileSet()
		file, err := parser.ParseFile(fs, f, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		checked++
		ast.Inspect(file, func(n ast.Node) bool {
			switch x := n.(type) {
			case *ast.SelectorExpr:
				if x.Sel.Name == "cfg" || x.Sel.Name == "Config" {
					t.Errorf("%s: %s reads the run's whole Config", fs.Position(x.Pos()), x.Sel.Name)
				}
			case *ast.Ident:
				if x.Name == "Config" {
					t.Errorf("%s: names the Config", fs.Position(x.Pos()))
				}
			}
			return true
		})
	}
	if checked < 8 {
		t.Fatalf("%d files checked: the architectures' files moved?", checked)
	}
}

// Each architecture reads the groups of its constructor's settings, and
// its constructor gets them as the run's Config has them (a setting given
// reaches it), its defaults as DefaultConfig gives them.
func TestArchitecturesGetTheirSettings(t *testing.T) {
	want := map[string][]string{
		"sep-c": nil, "cern": nil,
		"condor":  {"MatchSettings"},
		"fcondor": {"MatchSettings", "FCondorSettings"},
		"dmm":     {"MatchSettings", "DMMSettings"},
		"central": {"CentralSettings", "ReserveSettings"},
		"hier":    {"HierSettings", "ReserveSettings"},
	}
	for _, name := range ArchNames() {
		var got []string
		for _, g := range archs[name].reads {
			got = append(got, g.Name())
		}
		if !slices.Equal(got, want[name]) {
			t.Errorf("%s reads %v, want %v", name, got, want[name])
		}
	}
	cfg := DefaultConfig("dmm")
	cfg.DTTL, cfg.MatchPeriod, cfg.SeenMemory = 7, 17e9, 3e9
	a, err := archs["dmm"].new(&cfg)
	if err != nil {
		t.Fatal(err)
	}
	d := a.(*dmm)
	if d.set.DTTL != 7 || d.set.MatchPeriod != 17e9 || d.set.SeenMemory != 3e9 || d.set.Dispatch != "fcfs-bypass" || !d.local || !d.passOn {
		t.Errorf("dmm's settings: %+v", d.set)
	}
	h, _ := archs["hier"].new(ptrTo(DefaultConfig("hier")))
	if c := DefaultConfig("hier"); !h.(*hier).reserve || c.InfoPeriod != 60e9 || c.Distribution != "worst-fit" {
		t.Errorf("hier: reserve %v, info_period %v", h.(*hier).reserve, c.InfoPeriod)
	}
	if got := reflect.TypeOf(centralReads{}).NumField(); got != 2 {
		t.Errorf("centralReads has %d groups", got)
	}
}

func ptrTo[T any](v T) *T { return &v }

// A constructor's settings must be architecture groups of Config: the
// engine's, or a type that is no group, is refused when it registers.
func TestRegisterRefusesOtherSettings(t *testing.T) {
	for name, reg := range map[string]func(){
		"engine": func() {
			register("x-engine", func(struct{ EngineSettings }) (Architecture, error) { return nil, nil }, nil)
		},
		"no group": func() {
			register("x-int", func(struct{ N int }) (Architecture, error) { return nil, nil }, nil)
		},
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%s: registered", name)
				}
			}()
			reg()
		}()
	}
	for _, n := range ArchNames() {
		if strings.HasPrefix(n, "x-") {
			t.Errorf("%s was registered", n)
		}
	}
}
