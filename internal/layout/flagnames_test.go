package layout

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// flagGetters are the methods of urfave/cli's Context that read a flag by
// its name.
var flagGetters = map[string]bool{"String": true, "Int": true, "Int64": true, "Uint": true, "Uint64": true,
	"Float64": true, "Bool": true, "Duration": true, "Timestamp": true, "Generic": true, "Path": true,
	"StringSlice": true, "IntSlice": true, "Int64Slice": true, "UintSlice": true, "Uint64Slice": true,
	"Float64Slice": true, "Value": true, "IsSet": true, "Count": true}

// contextNames are what cmd/gmark calls a *cli.Context.
var contextNames = map[string]bool{"c": true, "ctx": true, "cCtx": true}

// byNameReads are the flag reads by name in the Go source src (a file
// named path): a getter of flagGetters called with a string literal first,
// or on a context (contextNames) with any name. Each is "file:line: call".
func byNameReads(path string, src any) ([]string, error) {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, path, src, 0)
	if err != nil {
		return nil, err
	}
	var reads []string
	ast.Inspect(f, func(n ast.Node) bool {
		call, ok := n.(*ast.CallExpr)
		if !ok || len(call.Args) == 0 {
			return true
		}
		sel, ok := call.Fun.(*ast.SelectorExpr)
		if !ok || !flagGetters[sel.Sel.Name] {
			return true
		}
		lit, isLit := call.Args[0].(*ast.BasicLit)
		recv, isIdent := sel.X.(*ast.Ident)
		if (isLit && lit.Kind == token.STRING) || (isIdent && contextNames[recv.Name]) {
			arg := "…"
			if isLit {
				arg = lit.Value
			}
			p := fset.Position(call.Pos())
			reads = append(reads, fmt.Sprintf("%s:%d: %s.%s(%s)", filepath.Base(p.Filename), p.Line, exprName(sel.X), sel.Sel.Name, arg))
		}
		return true
	})
	return reads, nil
}

func exprName(e ast.Expr) string {
	if id, ok := e.(*ast.Ident); ok {
		return id.Name
	}
	return "…"
}

// No command reads a flag by its name: each flag binds to a field of its
// command's options (Destination), and cliflag.Given tells whether it was
// given, so that a misspelt flag fails to compile (CONTRIBUTING.md). The
// commands are cmd/gmark and every other file that imports urfave/cli, but
// internal/cliflag, whose machinery goes from a flag to its name.
func TestCommandReadsNoFlagByName(t *testing.T) {
	root := repoRoot(t)
	var files []string
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if name := d.Name(); path != root && (strings.HasPrefix(name, ".") || name == "testdata") || path == filepath.Join(root, "internal", "cliflag") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		command := filepath.Dir(path) == filepath.Join(root, "cmd", "gmark")
		for _, im := range f.Imports {
			command = command || im.Path.Value == `"github.com/urfave/cli/v2"`
		}
		if command {
			files = append(files, path)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(files) < 10 {
		t.Fatalf("%d command files: is the walk looking at the repository?", len(files))
	}
	for _, path := range files {
		src, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		reads, err := byNameReads(path, src)
		if err != nil {
			t.Fatal(err)
		}
		rel, _ := filepath.Rel(root, filepath.Dir(path))
		for _, r := range reads {
			t.Errorf("%s/%s reads a flag by its name: bind the flag to a field (Destination), and ask cliflag.Given whether it was given", rel, r)
		}
	}
}

// The check finds what it is for, and nothing else.
func TestByNameReads(t *testing.T) {
	src := `package main
func f(c *cli.Context, name string, b strings.Builder, x T) {
	_ = c.String("db")
	_ = c.IsSet(name)
	_ = ctx.Duration("tail")
	_ = x.Other.Bool("quiet")
	_, _ = c.Args().First(), b.String()
	_ = version.String()
	_ = x.Value()
	_ = c.NArg()
	_ = cliflag.Given(c, &o.db)
	_ = strconv.Itoa(3)
}`
	reads, err := byNameReads("x.go", src)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{`x.go:3: c.String("db")`, `x.go:4: c.IsSet(…)`, `x.go:5: ctx.Duration("tail")`, `x.go:6: ….Bool("quiet")`}
	if strings.Join(reads, "\n") != strings.Join(want, "\n") {
		t.Errorf("found\n%s\nwant\n%s", strings.Join(reads, "\n"), strings.Join(want, "\n"))
	}
}
