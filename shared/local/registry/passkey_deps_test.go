package registry

import (
	"strings"
	"testing"

	"github.com/takapay/payments/shared/local/samtemplate"
)

// go-webauthn costs a Lambda binary about 1.8 MB from its package initialisation alone
// (measured on linux/arm64 with the Makefile's flags). Only a function that runs passkey
// ceremonies may link it; shared/aws/dynamo implements the passkey store against the plain
// shared/passkey/record types so that every other function stays as small as before.
// shared/passkey itself is plain Go (no AWS SDK, no store adapter).
func TestOnlyPasskeyFunctionsLinkWebAuthn(t *testing.T) {
	tpl, err := samtemplate.LoadRepoTemplate()
	if err != nil {
		t.Fatal(err)
	}
	root, err := samtemplate.FindRepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	pkgs := []string{module + "/shared/aws/dynamo", module + "/shared/passkey"}
	for _, f := range tpl.Functions {
		pkgs = append(pkgs, module+"/"+samtemplate.FunctionDir(f.LogicalID))
	}
	for pkg, deps := range goListDeps(t, root, pkgs...) {
		passkeys := pkg == module+"/shared/passkey" || strings.HasSuffix(pkg, "/functions/dashboard-passkeys")
		for _, d := range deps {
			if strings.HasPrefix(d, "github.com/go-webauthn/") && !passkeys {
				t.Errorf("%s links %s: only a function that runs passkey ceremonies may", pkg, d)
			}
			if pkg == module+"/shared/passkey" && (strings.HasPrefix(d, "github.com/aws/") || d == module+"/shared/aws/dynamo" ||
				d == module+"/shared/edge/httpapi" || d == module+"/shared/aws/awsx" || strings.HasPrefix(d, module+"/shared/local/")) {
				t.Errorf("domain package %s depends on %s", pkg, d)
			}
		}
	}
}
