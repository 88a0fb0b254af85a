package layout

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
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

// cmd/gmark reads no flag by its name: each binds to a field of its
// command's options (Destination), and cliflag.Given tells whether it was
// given, so that a misspelt flag fails to compile (CONTRIBUTING.md).
func TestCommandReadsNoFlagByName(t *testing.T) {
	dir := filepath.Join(repoRoot(t), "cmd", "gmark")
	files, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil || len(files) < 10 {
		t.Fatalf("%d files in %s: %v", len(files), dir, err)
	}
	for _, path := range files {
		if strings.HasSuffix(path, "_test.go") {
			continue
		}
		src, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		reads, err := byNameReads(path, src)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range reads {
			t.Errorf("%s reads a flag by its name: bind the flag to a field (Destination), and ask cliflag.Given whether it was given", r)
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
