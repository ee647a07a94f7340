// Package funcsize measures the production functions of the tree: their length in lines and
// their cyclomatic complexity (1 + each if, for, range, case, comm clause, && and ||, as
// gocyclo counts them). Local tooling: registry's TestFunctionSizes holds the bounds with it,
// and `go run ./shared/local/funcsize` prints every function over them.
package funcsize

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// Bounds every production function keeps unless it is a named exception.
const (
	MaxLines      = 100
	MaxComplexity = 20
)

// Func is one function or method and its measures.
type Func struct {
	Name       string // pkgdir.Recv.Name, e.g. shared/document.(*Service).create
	Pos        string // file:line
	Lines      int
	Complexity int
}

// Over reports whether f exceeds either bound.
func (f Func) Over() bool { return f.Lines > MaxLines || f.Complexity > MaxComplexity }

func (f Func) String() string {
	return fmt.Sprintf("%-70s %4d lines  complexity %3d  %s", f.Name, f.Lines, f.Complexity, f.Pos)
}

// Production reports whether a repository-relative Go file is production code: not a test,
// not generated, not local tooling (shared/local, cmd/ and clients/ hold no Lambda's code).
func Production(rel string, src []byte) bool {
	rel = filepath.ToSlash(rel)
	if !strings.HasSuffix(rel, ".go") || strings.HasSuffix(rel, "_test.go") {
		return false
	}
	for _, p := range []string{"shared/local/", "cmd/", "clients/", "node_modules/", ".build/"} {
		if strings.HasPrefix(rel, p) || strings.Contains(rel, "/node_modules/") {
			return false
		}
	}
	return !strings.Contains(string(src[:min(len(src), 4096)]), "// Code generated ")
}

// Measure walks root and measures every production function.
func Measure(root string) ([]Func, error) {
	var out []Func
	fset := token.NewFileSet()
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		if d.IsDir() {
			if strings.HasPrefix(d.Name(), ".") && rel != "." || d.Name() == "node_modules" || d.Name() == "testdata" {
				return filepath.SkipDir
			}
			return nil
		}
		// A worktree's node_modules may be a symlink (not a directory to WalkDir): only regular
		// .go files are read, and a path outside production is not read at all.
		if !d.Type().IsRegular() || !Production(rel, nil) {
			return nil
		}
		src, err := os.ReadFile(path)
		if err != nil || !Production(rel, src) {
			return err
		}
		f, err := parser.ParseFile(fset, path, src, 0)
		if err != nil {
			return err
		}
		dir := filepath.ToSlash(filepath.Dir(rel))
		for _, decl := range f.Decls {
			fn, ok := decl.(*ast.FuncDecl)
			if !ok || fn.Body == nil {
				continue
			}
			start, end := fset.Position(fn.Pos()), fset.Position(fn.End())
			out = append(out, Func{Name: dir + "." + name(fn), Pos: fmt.Sprintf("%s:%d", filepath.ToSlash(rel), start.Line),
				Lines: end.Line - start.Line + 1, Complexity: Complexity(fn)})
		}
		return nil
	})
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, err
}

func name(fn *ast.FuncDecl) string {
	if fn.Recv == nil || len(fn.Recv.List) == 0 {
		return fn.Name.Name
	}
	t := fn.Recv.List[0].Type
	star := ""
	if s, ok := t.(*ast.StarExpr); ok {
		star, t = "*", s.X
	}
	if ix, ok := t.(*ast.IndexExpr); ok {
		t = ix.X
	}
	if ix, ok := t.(*ast.IndexListExpr); ok {
		t = ix.X
	}
	id, _ := t.(*ast.Ident)
	recv := "?"
	if id != nil {
		recv = id.Name
	}
	if star != "" {
		return "(*" + recv + ")." + fn.Name.Name
	}
	return recv + "." + fn.Name.Name
}

// Complexity is the cyclomatic complexity of fn, counting its function literals with it.
func Complexity(fn *ast.FuncDecl) int {
	c := 1
	ast.Inspect(fn.Body, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.IfStmt, *ast.ForStmt, *ast.RangeStmt:
			c++
		case *ast.CaseClause:
			if n.List != nil { // default adds no path
				c++
			}
		case *ast.CommClause:
			if n.Comm != nil {
				c++
			}
		case *ast.BinaryExpr:
			if n.Op == token.LAND || n.Op == token.LOR {
				c++
			}
		}
		return true
	})
	return c
}
