package account

import (
	"os/exec"
	"strings"
	"testing"
)

// Package account is plain Go: no AWS SDK, no store or HTTP adapter, directly or not (the rule
// registry's TestLayers states for every rule package).
func TestAccountIsPlainGo(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", ".").Output()
	if err != nil {
		t.Fatalf("go list -deps: %v", err)
	}
	const module = "github.com/takapay/payments"
	for _, d := range strings.Fields(string(out)) {
		if strings.HasPrefix(d, "github.com/aws/") || d == module+"/shared/aws/dynamo" || d == module+"/shared/edge/httpapi" ||
			d == module+"/shared/aws/awsx" || d == module+"/shared/aws/sesmail" || strings.HasPrefix(d, module+"/shared/local/") {
			t.Errorf("package account depends on %s", d)
		}
	}
}
