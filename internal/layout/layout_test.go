// Package layout holds the tests of the repository's shape: the limits on
// function length and on the size of the command package that keep
// domain logic in the packages where CONTRIBUTING.md puts it.
package layout

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
)

const (
	maxFunctionLines    = 150  // anywhere in the repository
	maxCommandFuncLines = 80   // in cmd/gmark
	maxCommandLines     = 3000 // non-test lines of cmd/gmark
)

// repoRoot is the module's root: two directories up from this package.
func repoRoot(t *testing.T) string {
	t.Helper()
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(root, "go.mod")); err != nil {
		t.Fatalf("no go.mod at %s: %v", root, err)
	}
	return root
}

type function struct {
	name  string // file:line name
	lines int
	dir   string // the package's directory, relative to the root
}

// sourceFunctions parses every non-test Go file under root.
func sourceFunctions(t *testing.T, root string) (funcs []function, lines map[string]int) {
	t.Helper()
	lines = map[string]int{}
	fset := token.NewFileSet()
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if name := d.Name(); path != root && (strings.HasPrefix(name, ".") || name == "testdata" || name == "bin") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, 0)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		dir := filepath.Dir(rel)
		lines[dir] += fset.File(f.Pos()).LineCount()
		for _, decl := range f.Decls {
			fd, ok := decl.(*ast.FuncDecl)
			if !ok || fd.Body == nil {
				continue
			}
			start, end := fset.Position(fd.Pos()), fset.Position(fd.End())
			name := fd.Name.Name
			if fd.Recv != nil && len(fd.Recv.List) > 0 {
				name = recvName(fd.Recv.List[0].Type) + "." + name
			}
			funcs = append(funcs, function{name: rel + ":" + strconv.Itoa(start.Line) + " " + name, lines: end.Line - start.Line + 1, dir: dir})
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	sort.Slice(funcs, func(i, j int) bool { return funcs[i].lines > funcs[j].lines })
	return funcs, lines
}

func recvName(e ast.Expr) string {
	switch x := e.(type) {
	case *ast.StarExpr:
		return recvName(x.X)
	case *ast.IndexExpr:
		return recvName(x.X)
	case *ast.IndexListExpr:
		return recvName(x.X)
	case *ast.Ident:
		return x.Name
	}
	return "?"
}

func TestFunctionLength(t *testing.T) {
	funcs, _ := sourceFunctions(t, repoRoot(t))
	if len(funcs) < 100 {
		t.Fatalf("found only %d functions: is the walk looking at the repository?", len(funcs))
	}
	t.Logf("longest function: %s, %d lines", funcs[0].name, funcs[0].lines)
	for _, f := range funcs {
		limit := maxFunctionLines
		if f.dir == filepath.Join("cmd", "gmark") {
			limit = maxCommandFuncLines
		}
		if f.lines > limit {
			t.Errorf("%s: %d lines (limit %d)", f.name, f.lines, limit)
		}
	}
}

func TestCommandPackageIsThin(t *testing.T) {
	_, lines := sourceFunctions(t, repoRoot(t))
	n := lines[filepath.Join("cmd", "gmark")]
	if n == 0 {
		t.Fatal("no lines in cmd/gmark: is the walk looking at the repository?")
	}
	t.Logf("cmd/gmark: %d non-test lines (limit %d)", n, maxCommandLines)
	if n > maxCommandLines {
		t.Errorf("cmd/gmark has %d non-test lines (limit %d): domain logic belongs in the packages", n, maxCommandLines)
	}
}
