package registry

import (
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/takapay/payments/shared/local/samtemplate"
)

const module = "github.com/takapay/payments"

// goListDeps returns the packages pkg depends on (itself included), as `go list -deps` says.
func goListDeps(t *testing.T, root string, pkgs ...string) map[string][]string {
	t.Helper()
	out := map[string][]string{}
	for _, pkg := range pkgs {
		cmd := exec.Command("go", "list", "-deps", pkg)
		cmd.Dir = root
		b, err := cmd.Output()
		if err != nil {
			t.Fatalf("go list -deps %s: %v", pkg, err)
		}
		out[pkg] = strings.Fields(string(b))
	}
	return out
}

// domainPackages are plain Go: no AWS SDK, no Lambda event types, no HTTP adapter. Storage
// comes through their store interfaces (package dynamo), HTTP through package web.
var domainPackages = []string{"payment", "document", "checkout", "webhook", "merchant", "auth", "ratelimit", "web", "apierr", "money", "jsonbody", "urlcheck", "publicdoc", "page", "htmlw", "dashboard", "export", "qr", "intent", "account", "mail", "credential", "team", "activity", "passkey"}

// The dependency rule: domain packages import nothing of their adapters, directly or not.
func TestDomainPackagesArePlainGo(t *testing.T) {
	root, err := samtemplate.FindRepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	var pkgs []string
	for _, p := range domainPackages {
		pkgs = append(pkgs, module+"/shared/"+p)
	}
	// The intent package joins the rule as soon as it exists.
	if matches, _ := filepath.Glob(filepath.Join(root, "shared", "intent", "*.go")); len(matches) > 0 {
		pkgs = append(pkgs, module+"/shared/intent")
	}
	for pkg, deps := range goListDeps(t, root, pkgs...) {
		for _, d := range deps {
			if strings.HasPrefix(d, "github.com/aws/") || d == module+"/shared/httpapi" || d == module+"/shared/awsx" ||
				d == module+"/shared/dynamo" || d == module+"/shared/sqsqueue" || strings.HasPrefix(d, module+"/shared/local/") {
				t.Errorf("domain package %s depends on %s", pkg, d)
			}
		}
	}
}

// Each Lambda links only its own handler: no other function's handler package and no local
// tooling (dev stack, local gateway, test harness, queue poller, registry).
func TestFunctionBinariesLinkOnlyTheirOwnHandler(t *testing.T) {
	tpl, err := samtemplate.LoadRepoTemplate()
	if err != nil {
		t.Fatal(err)
	}
	root, err := samtemplate.FindRepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	var mains []string
	for _, f := range tpl.Functions {
		mains = append(mains, module+"/"+samtemplate.FunctionDir(f.LogicalID))
	}
	for main, deps := range goListDeps(t, root, mains...) {
		own := main + "/handler"
		if !slices.Contains(deps, own) {
			t.Errorf("%s does not link its handler package %s", main, own)
		}
		for _, d := range deps {
			switch {
			case strings.HasPrefix(d, module+"/functions/") && d != main && d != own:
				t.Errorf("%s links another function's package %s", main, d)
			case strings.HasPrefix(d, module+"/shared/local/"), strings.HasPrefix(d, module+"/cmd/"), d == module+"/shared/page/pagetest",
				strings.HasPrefix(d, "github.com/chromedp/"), d == "testing", d == "go.yaml.in/yaml/v3" && !strings.HasSuffix(main, "/probes"):
				t.Errorf("%s links %s, which is local tooling or test code", main, d)
			}
		}
	}
}
