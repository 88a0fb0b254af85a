package layout

import (
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
)

const module = "github.com/gmark/gmark/"

// rule is a row of the package table of docs/architecture.md: the
// packages it names and the packages they may import ("dir/*": any package
// under dir; "*": any).
type rule struct {
	line     int
	packages []string
	allowed  []string
}

var backticked = regexp.MustCompile("`([^`]+)`")

// architectureRules reads the package table of docs/architecture.md.
func architectureRules(t *testing.T, root string) []rule {
	t.Helper()
	var rules []rule
	in := false
	for n, line := range fileLines(t, filepath.Join(root, "docs", "architecture.md")) {
		switch {
		case strings.HasPrefix(line, "## "):
			in = line == "## Packages"
		case in && strings.HasPrefix(line, "| `"):
			cells := strings.Split(strings.Trim(line, "| "), " | ")
			if len(cells) != 3 {
				t.Fatalf("docs/architecture.md:%d: %d cells, want 3 (package, its job, may import)", n+1, len(cells))
			}
			r := rule{line: n + 1}
			for _, m := range backticked.FindAllStringSubmatch(cells[0], -1) {
				r.packages = append(r.packages, m[1])
			}
			for _, m := range backticked.FindAllStringSubmatch(cells[2], -1) {
				r.allowed = append(r.allowed, m[1])
			}
			rules = append(rules, r)
		}
	}
	if len(rules) < 20 {
		t.Fatalf("docs/architecture.md: only %d rows in its package table", len(rules))
	}
	return rules
}

// packageImports are the module's packages with non-test files, each with
// the module's packages those files import.
func packageImports(t *testing.T, root string) map[string][]string {
	t.Helper()
	imports := map[string][]string{}
	fset := token.NewFileSet()
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if name := d.Name(); p != root && (strings.HasPrefix(name, ".") || name == "testdata") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, p, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, filepath.Dir(p))
		pkg := filepath.ToSlash(rel)
		if _, ok := imports[pkg]; !ok {
			imports[pkg] = nil
		}
		for _, spec := range f.Imports {
			ip, _ := strconv.Unquote(spec.Path.Value)
			if dep, ok := strings.CutPrefix(ip, module); ok && !slices.Contains(imports[pkg], dep) {
				imports[pkg] = append(imports[pkg], dep)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return imports
}

func allows(allowed []string, dep string) bool {
	if strings.HasPrefix(dep, "internal/") {
		return true // every package may use the helpers
	}
	for _, a := range allowed {
		if a == "*" || a == dep {
			return true
		}
		if dir, ok := strings.CutSuffix(a, "/*"); ok && strings.HasPrefix(dep, dir+"/") {
			return true
		}
	}
	return false
}

// Every package is on the map of docs/architecture.md, and imports only
// what its row allows: the layers the page describes are the code's. A
// row naming a package that does not exist is stale.
func TestImportsFollowArchitecture(t *testing.T) {
	root := repoRoot(t)
	imports := packageImports(t, root)
	rules := architectureRules(t, root)
	ruleOf := map[string]rule{}
	for _, r := range rules {
		for _, p := range r.packages {
			if _, dup := ruleOf[p]; dup {
				t.Errorf("docs/architecture.md:%d: %s has two rows", r.line, p)
			}
			ruleOf[p] = r
			if _, ok := imports[p]; !ok && p != "internal/layout" {
				t.Errorf("docs/architecture.md:%d: no package %s in the repository", r.line, p)
			}
		}
	}
	pkgs := make([]string, 0, len(imports))
	for p := range imports {
		pkgs = append(pkgs, p)
	}
	sort.Strings(pkgs)
	for _, p := range pkgs {
		r, ok := ruleOf[p]
		if !ok {
			t.Errorf("package %s is not in the package table of docs/architecture.md: add its row (its job, what it may import)", p)
			continue
		}
		may := strings.Join(r.allowed, ", ")
		if may == "" {
			may = "internal/… only"
		}
		for _, dep := range imports[p] {
			if !allows(r.allowed, dep) {
				t.Errorf("%s imports %s, which docs/architecture.md:%d does not allow (%s may import %s)", p, dep, r.line, p, may)
			}
		}
	}
}

func TestAllows(t *testing.T) {
	for _, c := range []struct {
		allowed []string
		dep     string
		want    bool
	}{
		{nil, "internal/outfile", true},
		{nil, "workload", false},
		{[]string{"apps/*"}, "apps/launch", true},
		{[]string{"apps/*"}, "apps", false},
		{[]string{"apps/*"}, "appsx/y", false},
		{[]string{"*"}, "koala/core", true},
		{[]string{"koala/grid"}, "koala/gridx", false},
	} {
		if got := allows(c.allowed, c.dep); got != c.want {
			t.Errorf("allows(%v, %q) = %v", c.allowed, c.dep, got)
		}
	}
}

// forbidden are the edges of the layering that no row of the package
// table may allow and no package may have, whatever the table says: a row
// loosened by mistake fails here.
var forbidden = []struct{ from, dep, why string }{
	// The kit is below the runner, as database/sql/driver is below
	// database/sql: a target's tools must not need the runner.
	{"submitter/target", "submitter", "the targets' kit knows nothing of the runner"},
	{"submitter/target", "submitter/*", "the targets' kit knows nothing of the runner or the targets"},
	// Submission does not run the simulator: what runs both (koala
	// simulate, the Slurm job arrays, the cross-validation) is above them,
	// in sim/coresim, sim/slurmarray and sim/xval.
	{"submitter", "sim", "submission does not import the simulator"},
	{"submitter", "sim/*", "submission does not import the simulator"},
	{"submitter/*", "sim", "submission does not import the simulator"},
	{"submitter/*", "sim/*", "submission does not import the simulator"},
	// Traces and analysis are siblings: what a replay's fidelity needs of
	// the trace meets in the job model (workload.TraceWindow), and the
	// workflow graph both use is a shared model (dag).
	{"analyzer/*", "gwa", "the analyzer does not import the trace readers"},
	{"analyzer/*", "gwa/*", "the analyzer does not import the trace readers"},
	{"gwa", "analyzer/*", "the trace readers do not import the analyzer"},
	{"gwa/*", "analyzer/*", "the trace readers do not import the analyzer"},
}

// covers reports whether pattern a ("x", "x/*" or "*") takes in some
// package that pattern b takes in.
func covers(a, b string) bool {
	if a == "*" || b == "*" || a == b {
		return true
	}
	ad, aglob := strings.CutSuffix(a, "/*")
	bd, bglob := strings.CutSuffix(b, "/*")
	switch {
	case aglob && bglob:
		return strings.HasPrefix(ad+"/", bd+"/") || strings.HasPrefix(bd+"/", ad+"/")
	case aglob:
		return strings.HasPrefix(b, ad+"/")
	case bglob:
		return strings.HasPrefix(a, bd+"/")
	}
	return false
}

// The layering's fixed rules hold in the table of docs/architecture.md
// and in the code.
func TestForbiddenImports(t *testing.T) {
	root := repoRoot(t)
	imports := packageImports(t, root)
	rules := architectureRules(t, root)
	for _, f := range forbidden {
		for _, r := range rules {
			for _, p := range r.packages {
				if !covers(f.from, p) {
					continue
				}
				for _, a := range r.allowed {
					if covers(a, f.dep) {
						t.Errorf("docs/architecture.md:%d: %s may import %s, but %s must not import %s: %s", r.line, p, a, f.from, f.dep, f.why)
					}
				}
			}
		}
		for p, deps := range imports {
			if !covers(f.from, p) {
				continue
			}
			for _, dep := range deps {
				if covers(f.dep, dep) {
					t.Errorf("%s imports %s: %s", p, dep, f.why)
				}
			}
		}
	}
}

func TestCovers(t *testing.T) {
	for _, c := range []struct {
		a, b string
		want bool
	}{
		{"sim", "sim", true},
		{"sim", "simx", false},
		{"sim/*", "sim", false},
		{"sim/*", "sim/xval", true},
		{"sim/xval", "sim/*", true},
		{"submitter/*", "sim/*", false},
		{"submitter/*", "submitter/target/x", true},
		{"submitter/target/*", "submitter/*", true},
		{"*", "sim", true},
		{"workload", "*", true},
		{"submitter", "submitter/target", false},
	} {
		if got := covers(c.a, c.b); got != c.want {
			t.Errorf("covers(%q, %q) = %v, want %v", c.a, c.b, got, c.want)
		}
	}
}

// reach is every package of the module that p imports, directly or
// through others.
func reach(imports map[string][]string, p string) map[string]bool {
	seen := map[string]bool{}
	next := append([]string(nil), imports[p]...)
	for len(next) > 0 {
		q := next[len(next)-1]
		next = next[:len(next)-1]
		if !seen[q] {
			seen[q] = true
			next = append(next, imports[q]...)
		}
	}
	return seen
}

// aboveRecord are the packages above the run record's layer: those that
// make runs (the submitter, the simulators, the bundled core, the
// generator, placeholders), the languages and formats they read, and the
// analysis and commands above them. The run record reaches none of them.
var aboveRecord = []string{"submitter", "sim", "koala", "generator", "placeholder", "gwa", "wdl", "printers",
	"analyzer/metrics", "analyzer/report", "analyzer/gate", "analyzer/fidelity", "examples", "cmd"}

// recordLayerProblems says how imports break the place of the run record:
// below every producer of runs (record reaches none of them through its
// imports) and above the store (record reaches analyzer/store, which does
// not reach record).
func recordLayerProblems(imports map[string][]string) []string {
	var problems []string
	if _, ok := imports["record"]; !ok {
		return []string{"no package record"}
	}
	rec := reach(imports, "record")
	for q := range rec {
		for _, p := range aboveRecord {
			if q == p || strings.HasPrefix(q, p+"/") {
				problems = append(problems, "record reaches "+q+", which is above the run record")
			}
		}
	}
	if !rec["analyzer/store"] {
		problems = append(problems, "record does not import analyzer/store")
	}
	if reach(imports, "analyzer/store")["record"] {
		problems = append(problems, "analyzer/store reaches record, which is above it")
	}
	sort.Strings(problems)
	return problems
}

// The run record is a layer: every producer of runs records through it,
// so it imports none of them, not even through another package, and the
// store is below it. The package table says so too; this holds whatever
// the table is edited to.
func TestRecordBetweenProducersAndStore(t *testing.T) {
	for _, p := range recordLayerProblems(packageImports(t, repoRoot(t))) {
		t.Error(p)
	}
}

// recordLayerProblems finds each way of breaking the layer.
func TestRecordLayerProblems(t *testing.T) {
	base := map[string][]string{"record": {"analyzer/store", "workload"}, "analyzer/store": nil, "workload": nil,
		"submitter": {"record"}, "koala/core": {"workload"}, "helper": {"koala/core"}}
	with := func(p string, deps ...string) map[string][]string {
		m := map[string][]string{}
		for k, v := range base {
			m[k] = v
		}
		m[p] = append(append([]string(nil), m[p]...), deps...)
		return m
	}
	for _, c := range []struct {
		name    string
		imports map[string][]string
		want    string
	}{
		{"as it is", base, ""},
		{"a producer", with("record", "submitter"), "record reaches submitter, which is above the run record"},
		{"a producer's subpackage", with("record", "koala/core"), "record reaches koala/core, which is above the run record"},
		{"a producer through a helper", with("record", "helper"), "record reaches koala/core, which is above the run record"},
		{"the store above it", with("analyzer/store", "workload", "record"), "analyzer/store reaches record, which is above it"},
		{"no store", map[string][]string{"record": {"workload"}}, "record does not import analyzer/store"},
		{"no record", map[string][]string{"analyzer/store": nil}, "no package record"},
	} {
		got := strings.Join(recordLayerProblems(c.imports), "; ")
		if got != c.want {
			t.Errorf("%s: %q, want %q", c.name, got, c.want)
		}
	}
}
