package registry

import (
	"go/ast"
	"go/parser"
	"go/printer"
	"go/token"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/takapay/payments/shared/app"
	"github.com/takapay/payments/shared/foundation/apierr"
	"github.com/takapay/payments/shared/local/samtemplate"
	"github.com/takapay/payments/shared/openapi"
)

func loadTemplate(t *testing.T) (*samtemplate.Template, string) {
	t.Helper()
	tpl, err := samtemplate.LoadRepoTemplate()
	if err != nil {
		t.Fatal(err)
	}
	root, err := samtemplate.FindRepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	if len(tpl.Functions) == 0 {
		t.Fatal("template.yaml declares no functions")
	}
	return tpl, root
}

func templateIDs(tpl *samtemplate.Template) []string {
	var ids []string
	for _, f := range tpl.Functions {
		ids = append(ids, f.LogicalID)
	}
	slices.Sort(ids)
	return ids
}

// (a) template functions and registry entries are the same set: functions with HttpApi
// routes are HTTP functions, the others workers; log names are unique.
func TestRegistryMatchesTemplate(t *testing.T) {
	tpl, _ := loadTemplate(t)
	if got, want := LogicalIDs(), templateIDs(tpl); !slices.Equal(got, want) {
		t.Errorf("registry = %v, template.yaml functions = %v", got, want)
	}
	for _, fn := range tpl.Functions {
		_, isHTTP := HTTP[fn.LogicalID]
		if isHTTP != (len(fn.Routes) > 0) {
			t.Errorf("%s: registered as HTTP function = %v, but has %d template routes", fn.LogicalID, isHTTP, len(fn.Routes))
		}
	}
	for id, f := range HTTP {
		if f.LogicalID != id || f.Name == "" || f.Build == nil {
			t.Errorf("HTTP[%s] = {LogicalID: %q, Name: %q, Build nil: %v}", id, f.LogicalID, f.Name, f.Build == nil)
		}
	}
	for id, f := range Workers {
		if f.LogicalID != id || f.Name == "" || f.Build == nil {
			t.Errorf("Workers[%s] = {LogicalID: %q, Name: %q, Build nil: %v}", id, f.LogicalID, f.Name, f.Build == nil)
		}
	}
	names := map[string]string{}
	for _, id := range LogicalIDs() {
		name := Name(id)
		if prev, ok := names[name]; ok {
			t.Errorf("functions %s and %s share the log name %q", prev, id, name)
		}
		names[name] = id
	}
}

// (a2) each HTTP function's route table lists exactly its template routes, keyed by the
// template's route key, and no route is served by two functions.
func TestRouteTablesMatchTemplate(t *testing.T) {
	tpl, _ := loadTemplate(t)
	served := map[string]string{}
	for _, fn := range tpl.Functions {
		f, ok := HTTP[fn.LogicalID]
		if !ok {
			continue
		}
		var want []string
		for _, r := range fn.Routes {
			want = append(want, r.String())
		}
		slices.Sort(want)
		got := slices.Sorted(maps.Keys(f.Build(&app.Deps{}).Routes))
		if !slices.Equal(got, want) {
			t.Errorf("%s route table = %q\ntemplate.yaml routes = %q", fn.LogicalID, got, want)
		}
		for _, k := range got {
			if prev, dup := served[k]; dup {
				t.Errorf("route %q is served by both %s and %s", k, prev, fn.LogicalID)
			}
			served[k] = fn.LogicalID
		}
	}
	if len(served) == 0 {
		t.Fatal("no routes served")
	}
}

// mainCall returns the import paths of a main.go and the call its func main makes
// ("app.StartHTTP(handler.Function)").
func mainCall(t *testing.T, path string) ([]string, string) {
	t.Helper()
	fset := token.NewFileSet()
	file, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
	if err != nil {
		t.Fatalf("parse %s: %v", path, err)
	}
	if file.Name.Name != "main" {
		t.Errorf("%s: package %s, want main", path, file.Name.Name)
	}
	var imports []string
	for _, imp := range file.Imports {
		p, _ := strconv.Unquote(imp.Path.Value)
		imports = append(imports, p)
	}
	slices.Sort(imports)
	call := ""
	for _, d := range file.Decls {
		fd, ok := d.(*ast.FuncDecl)
		if !ok || fd.Recv != nil || fd.Name.Name != "main" || len(fd.Body.List) != 1 {
			continue
		}
		if es, ok := fd.Body.List[0].(*ast.ExprStmt); ok {
			var b strings.Builder
			_ = printer.Fprint(&b, fset, es.X)
			call = b.String()
		}
	}
	return imports, call
}

// (b) each template function's main.go imports only app and its own handler package, and
// starts that package's Function, whose logical id is the template's.
func TestFunctionMainsStartTheirOwnHandler(t *testing.T) {
	tpl, root := loadTemplate(t)
	for _, f := range tpl.Functions {
		dir := samtemplate.FunctionDir(f.LogicalID)
		if f.Dir != dir {
			t.Errorf("%s: template Dir %q, FunctionDir %q", f.LogicalID, f.Dir, dir)
		}
		path := filepath.Join(root, dir, "main.go")
		if _, err := os.Stat(path); err != nil {
			t.Errorf("%s: %v", f.LogicalID, err)
			continue
		}
		imports, call := mainCall(t, path)
		wantImports := []string{"github.com/takapay/payments/" + dir + "/handler", "github.com/takapay/payments/shared/app"}
		if !slices.Equal(imports, wantImports) {
			t.Errorf("%s imports %q, want exactly %q", path, imports, wantImports)
		}
		wantCall := "app.StartWorker(handler.Function)"
		if len(f.Routes) > 0 {
			wantCall = "app.StartHTTP(handler.Function)"
		}
		if call != wantCall {
			t.Errorf("%s: func main is %q, want exactly %q", path, call, wantCall)
		}
	}
}

// (c) every directory under functions/ belongs to a template function.
func TestNoStrayFunctionDirectories(t *testing.T) {
	tpl, root := loadTemplate(t)
	want := map[string]bool{}
	for _, f := range tpl.Functions {
		want[samtemplate.FunctionDir(f.LogicalID)] = true
	}
	entries, err := os.ReadDir(filepath.Join(root, "functions"))
	if err != nil {
		t.Fatal(err)
	}
	seen := 0
	for _, e := range entries {
		if !e.IsDir() {
			continue
		}
		seen++
		if dir := "functions/" + e.Name(); !want[dir] {
			t.Errorf("%s is not the directory of any template.yaml function", dir)
		}
	}
	if seen != len(want) {
		t.Errorf("functions/ has %d directories, template.yaml %d functions", seen, len(want))
	}
}

// (d) the Makefile's FUNCTIONS list is exactly <LogicalID>:<dir> for every template function.
func TestMakefileFunctions(t *testing.T) {
	tpl, root := loadTemplate(t)
	data, err := os.ReadFile(filepath.Join(root, "Makefile"))
	if err != nil {
		t.Fatal(err)
	}
	var lines []string
	for line := range strings.Lines(string(data)) {
		if rest, ok := strings.CutPrefix(line, "FUNCTIONS"); ok {
			if rest, ok := strings.CutPrefix(strings.TrimLeft(rest, " \t"), ":="); ok {
				lines = append(lines, strings.TrimSpace(rest))
			}
		}
	}
	if len(lines) != 1 {
		t.Fatalf("Makefile has %d FUNCTIONS := lines, want 1", len(lines))
	}
	if strings.HasSuffix(lines[0], "\\") {
		t.Fatalf("FUNCTIONS := continues on the next line; this test reads one line: %q", lines[0])
	}
	got := strings.Fields(lines[0])
	slices.Sort(got)
	var want []string
	for _, f := range tpl.Functions {
		want = append(want, f.LogicalID+":"+strings.TrimPrefix(samtemplate.FunctionDir(f.LogicalID), "functions/"))
	}
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Errorf("Makefile FUNCTIONS = %v, want %v", got, want)
	}
}

// (e) template routes and the contract's deployed operations are the same set.
func TestRoutesMatchDeployedOperations(t *testing.T) {
	tpl, _ := loadTemplate(t)
	ops, err := openapi.Operations()
	if err != nil {
		t.Fatal(err)
	}
	type route struct{ method, path string }
	byRoute := map[route]openapi.Operation{}
	for _, op := range ops {
		byRoute[route{op.Method, op.Path}] = op
	}
	templateRoutes := map[route]string{}
	defaults := 0
	for r, fn := range tpl.Routes() {
		if r.Path == "$default" {
			defaults++
			continue
		}
		if r.Path == "/dashboard" || strings.HasPrefix(r.Path, "/dashboard/") {
			continue // the dashboard's pages (HTML for browsers), not operations of the JSON API
		}
		templateRoutes[route{r.Method, r.Path}] = fn
		op, ok := byRoute[route{r.Method, r.Path}]
		switch {
		case !ok:
			t.Errorf("template route %s (%s) is not an operation of openapi.yaml", r, fn)
		case !op.Deployed:
			t.Errorf("template route %s (%s) is operation %s, which openapi.yaml marks x-deployed: false", r, fn, op.OperationID)
		}
	}
	if defaults != 1 {
		t.Errorf("template.yaml has %d $default routes, want 1", defaults)
	}
	deployed := 0
	for _, op := range ops {
		if !op.Deployed {
			continue
		}
		deployed++
		if _, ok := templateRoutes[route{op.Method, op.Path}]; !ok {
			t.Errorf("openapi.yaml operation %s (%s %s) is x-deployed: true but template.yaml has no such route", op.OperationID, op.Method, op.Path)
		}
	}
	if deployed != len(templateRoutes) {
		t.Errorf("%d deployed operations, %d template routes", deployed, len(templateRoutes))
	}
}

// (f) apierr codes and the contract's Error.code enum are the same set.
func TestErrorCodesMatchContract(t *testing.T) {
	var doc struct {
		Components struct {
			Schemas struct {
				Error struct {
					Properties struct {
						Error struct {
							Properties struct {
								Code struct {
									Enum []string `yaml:"enum"`
								} `yaml:"code"`
							} `yaml:"properties"`
						} `yaml:"error"`
					} `yaml:"properties"`
				} `yaml:"Error"`
			} `yaml:"schemas"`
		} `yaml:"components"`
	}
	if err := yaml.Unmarshal(openapi.Document, &doc); err != nil {
		t.Fatal(err)
	}
	enum := doc.Components.Schemas.Error.Properties.Error.Properties.Code.Enum
	if len(enum) == 0 {
		t.Fatal("openapi.yaml components.schemas.Error.properties.error.properties.code has no enum")
	}
	contract := slices.Clone(enum)
	slices.Sort(contract)
	if len(slices.Compact(slices.Clone(contract))) != len(contract) {
		t.Errorf("Error code enum has duplicates: %v", enum)
	}
	var codes []string
	for _, c := range apierr.Codes() {
		codes = append(codes, string(c))
		if c.Status() < 400 || c.Status() > 599 {
			t.Errorf("%s maps to status %d", c, c.Status())
		}
	}
	slices.Sort(codes)
	for _, c := range codes {
		if _, ok := slices.BinarySearch(contract, c); !ok {
			t.Errorf("apierr code %s is missing from the contract's Error enum", c)
		}
	}
	for _, c := range contract {
		if _, ok := slices.BinarySearch(codes, c); !ok {
			t.Errorf("contract Error enum value %s is not an apierr code", c)
		}
	}
}

func readTemplateText(t *testing.T) []byte {
	t.Helper()
	root, err := samtemplate.FindRepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(filepath.Join(root, "template.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// (g) ALLOW_LOCALHOST_URLS is for `make dev` only: template.yaml never mentions it.
func TestTemplateNeverAllowsLocalhostURLs(t *testing.T) {
	data := readTemplateText(t)
	if i := strings.Index(strings.ToUpper(string(data)), "ALLOW_LOCALHOST_URLS"); i >= 0 {
		line := strings.Count(string(data[:i]), "\n") + 1
		t.Errorf("template.yaml line %d mentions ALLOW_LOCALHOST_URLS", line)
	}
	tpl, _ := loadTemplate(t)
	for _, f := range tpl.Functions {
		for k := range f.Environment {
			if strings.EqualFold(k, "ALLOW_LOCALHOST_URLS") {
				t.Errorf("%s sets %s", f.LogicalID, k)
			}
		}
	}
}

// (h) every function runs provided.al2023 on arm64, set once in Globals, built by the Makefile.
func TestFunctionsRuntimeFromGlobals(t *testing.T) {
	var doc struct {
		Globals struct {
			Function struct {
				Runtime       string   `yaml:"Runtime"`
				Architectures []string `yaml:"Architectures"`
				Handler       string   `yaml:"Handler"`
			} `yaml:"Function"`
		} `yaml:"Globals"`
		Resources map[string]struct {
			Type     string `yaml:"Type"`
			Metadata struct {
				BuildMethod string `yaml:"BuildMethod"`
			} `yaml:"Metadata"`
			Properties map[string]yaml.Node `yaml:"Properties"`
		} `yaml:"Resources"`
	}
	if err := yaml.Unmarshal(readTemplateText(t), &doc); err != nil {
		t.Fatal(err)
	}
	g := doc.Globals.Function
	if g.Runtime != "provided.al2023" || !slices.Equal(g.Architectures, []string{"arm64"}) || g.Handler != "bootstrap" {
		t.Errorf("Globals.Function: Runtime %q, Architectures %v, Handler %q; want provided.al2023, [arm64], bootstrap",
			g.Runtime, g.Architectures, g.Handler)
	}
	n := 0
	for id, r := range doc.Resources {
		if r.Type != samtemplate.TypeFunction {
			continue
		}
		n++
		for _, k := range []string{"Runtime", "Architectures", "Handler"} {
			if v, ok := r.Properties[k]; ok {
				t.Errorf("%s overrides Globals with its own %s (line %d)", id, k, v.Line)
			}
		}
		if r.Metadata.BuildMethod != "makefile" {
			t.Errorf("%s: Metadata.BuildMethod %q, want makefile (the Makefile's build-%s target)", id, r.Metadata.BuildMethod, id)
		}
	}
	tpl, _ := loadTemplate(t)
	if n != len(tpl.Functions) {
		t.Errorf("raw YAML has %d functions, samtemplate %d", n, len(tpl.Functions))
	}
}
