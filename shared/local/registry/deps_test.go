package registry

import (
	"os/exec"
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
			case strings.HasPrefix(d, module+"/shared/local/"), strings.HasPrefix(d, module+"/cmd/"), d == module+"/shared/foundation/page/pagetest",
				strings.HasPrefix(d, "github.com/chromedp/"), d == "testing", d == "go.yaml.in/yaml/v3" && !strings.HasSuffix(main, "/probes"):
				t.Errorf("%s links %s, which is local tooling or test code", main, d)
			}
		}
	}
}
