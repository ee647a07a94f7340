package registry

import (
	"bytes"
	"encoding/json"
	"fmt"
	"go/ast"
	"go/importer"
	"go/parser"
	"go/token"
	"go/types"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/takapay/payments/shared/local/samtemplate"
)

// componentLibrary is where markup may be written by hand (decision 75): the escaping writer,
// the node tree and the components.
var componentLibrary = []string{"shared/foundation/htmlw/", "shared/foundation/h/", "shared/foundation/ui/"}

// rawMarkupAllowed names the files outside the library that still make unescaped markup calls,
// with how many calls and why. A file that writes fewer fails too, so the list only shrinks.
var rawMarkupAllowed = map[string]int{
	// The payment link's QR code: an SVG that package qr draws from the encoded modules (its
	// own elements and numbers, no text of the link), inlined so the page needs no second
	// request and the policy no data: image (decision 91).
	"shared/edge/dashboard/documents_page.go": 1,
}

// TestPagesAreWrittenFromComponents counts the calls of htmlw.Builder.Raw and h.Raw (the
// unescaped writes) in the production packages, outside the component library: pages are
// trees of h and ui nodes, whose escaping the node type decides, and unescaped markup lives in
// the library alone. The calls are found by type (go/types over the packages' export data), so
// a page type that embeds the Builder is counted and jsonbody's Object.Raw is not.
func TestPagesAreWrittenFromComponents(t *testing.T) {
	root, err := samtemplate.FindRepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	got := rawMarkupCalls(t, root)
	total := 0
	var files []string
	for f, n := range got {
		total += n
		files = append(files, f)
	}
	t.Logf("unescaped markup calls outside the component library: %d", total)
	for f := range rawMarkupAllowed {
		if _, ok := got[f]; !ok {
			files = append(files, f)
		}
	}
	sort.Strings(files)
	for _, f := range files {
		if got[f] != rawMarkupAllowed[f] {
			t.Errorf("%s makes %d unescaped markup calls, %d allowed: build it from h and ui nodes (or name it in rawMarkupAllowed with the reason)", f, got[f], rawMarkupAllowed[f])
		}
	}
}

type listedPackage struct {
	Dir, ImportPath, Export string
	GoFiles, Imports        []string
	Standard                bool
}

// rawMarkupCalls type-checks every production package of ours that imports htmlw or h
// (outside the library and local tooling) and counts, per repository-relative file, the calls
// of a method or function named Raw declared in htmlw or h.
func rawMarkupCalls(t *testing.T, root string) map[string]int {
	cmd := exec.Command("go", "list", "-export", "-deps", "-json=Dir,ImportPath,Export,GoFiles,Imports,Standard", "./shared/...", "./functions/...", "./cmd/...")
	cmd.Dir = root
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	exports := map[string]string{}
	var ours []listedPackage
	dec := json.NewDecoder(bytes.NewReader(out))
	for dec.More() {
		var p listedPackage
		if err := dec.Decode(&p); err != nil {
			t.Fatal(err)
		}
		exports[p.ImportPath] = p.Export
		if !p.Standard && strings.HasPrefix(p.ImportPath, modulePath+"/") {
			ours = append(ours, p)
		}
	}
	fset := token.NewFileSet()
	imp := importer.ForCompiler(fset, "gc", func(path string) (io.ReadCloser, error) {
		if f, ok := exports[path]; ok && f != "" {
			return os.Open(f)
		}
		return nil, fmt.Errorf("no export data for %s", path)
	})
	got := map[string]int{}
	for _, p := range ours {
		rel := strings.TrimPrefix(p.ImportPath, modulePath+"/")
		if strings.HasPrefix(rel, "shared/local/") || strings.HasPrefix(rel, "cmd/") && !strings.HasPrefix(rel, "cmd/lambda") || inLibrary(rel+"/") || !writesHTML(p.Imports) {
			continue
		}
		countRawCalls(t, fset, imp, p, rel, got)
	}
	return got
}

const modulePath = "github.com/takapay/payments"

func writesHTML(imports []string) bool {
	for _, i := range imports {
		if i == modulePath+"/shared/foundation/htmlw" || i == modulePath+"/shared/foundation/h" {
			return true
		}
	}
	return false
}

func countRawCalls(t *testing.T, fset *token.FileSet, imp types.Importer, p listedPackage, rel string, got map[string]int) {
	var files []*ast.File
	for _, name := range p.GoFiles {
		f, err := parser.ParseFile(fset, filepath.Join(p.Dir, name), nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, f)
	}
	info := &types.Info{Uses: map[*ast.Ident]types.Object{}}
	if _, err := (&types.Config{Importer: imp}).Check(p.ImportPath, fset, files, info); err != nil {
		t.Fatalf("type-check %s: %v", p.ImportPath, err)
	}
	for i, f := range files {
		ast.Inspect(f, func(node ast.Node) bool {
			call, ok := node.(*ast.CallExpr)
			if !ok {
				return true
			}
			sel, ok := call.Fun.(*ast.SelectorExpr)
			if !ok || sel.Sel.Name != "Raw" {
				return true
			}
			if obj := info.Uses[sel.Sel]; obj != nil && obj.Pkg() != nil && inLibrary(strings.TrimPrefix(obj.Pkg().Path(), modulePath+"/")+"/") {
				got[rel+"/"+p.GoFiles[i]]++
			}
			return true
		})
	}
}

// inLibrary reports whether the repository-relative path (a file, or a package path with a
// trailing slash) is in the component library.
func inLibrary(rel string) bool {
	for _, l := range componentLibrary {
		if strings.HasPrefix(rel, l) {
			return true
		}
	}
	return false
}
