package registry

import (
	"strings"
	"testing"

	"github.com/takapay/payments/shared/local/samtemplate"
)

// The contract validator (pb33f/libopenapi and libopenapi-validator, used by package
// shared/local/contract for the integration tests) is test tooling: no Lambda binary and no
// production package links it, whether through shared/local or by importing it directly.
func TestNoLambdaLinksTheContractValidator(t *testing.T) {
	tpl, err := samtemplate.LoadRepoTemplate()
	if err != nil {
		t.Fatal(err)
	}
	root, err := samtemplate.FindRepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	pkgs := []string{module + "/shared/openapi", module + "/shared/edge/probes"}
	for _, f := range tpl.Functions {
		pkgs = append(pkgs, module+"/"+samtemplate.FunctionDir(f.LogicalID))
	}
	for pkg, deps := range goListDeps(t, root, pkgs...) {
		for _, d := range deps {
			if strings.HasPrefix(d, "github.com/pb33f/") || d == module+"/shared/local/contract" {
				t.Errorf("%s links %s, the contract validator of the tests", pkg, d)
			}
		}
	}
}
