package account

import (
	"os/exec"
	"strings"
	"testing"
)

// Package account is plain Go: no AWS SDK, no store or HTTP adapter, directly or not (the rule
// registry's TestDomainPackagesArePlainGo states for the older domain packages).
func TestAccountIsPlainGo(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", ".").Output()
	if err != nil {
		t.Fatalf("go list -deps: %v", err)
	}
	const module = "github.com/takapay/payments"
	for _, d := range strings.Fields(string(out)) {
		if strings.HasPrefix(d, "github.com/aws/") || d == module+"/shared/dynamo" || d == module+"/shared/httpapi" ||
			d == module+"/shared/awsx" || d == module+"/shared/sesmail" || strings.HasPrefix(d, module+"/shared/local/") {
			t.Errorf("package account depends on %s", d)
		}
	}
}
