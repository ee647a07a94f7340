package clienttest_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/takapay/payments/shared/local/clienttest"
	"github.com/takapay/payments/shared/local/devstack"
	"github.com/takapay/payments/shared/local/samtemplate"
)

// The TypeScript client (clients/typescript, @takapay/client) runs its journey against the
// stack: built with tsc first (npm ci when its node_modules is missing), then
// examples/journey.mjs, which imports the built package.
func TestTypescriptClientJourney(t *testing.T) {
	dir, _ := typescriptClient(t)

	h := clienttest.Start(t)
	out := h.Run(t, dir, "node", "examples/journey.mjs")
	t.Log(out)
	for _, want := range []string{"ok 1 create ", "ok 2 approve", "ok 3 verify COMPLETED match=true mismatch=amount_minor",
		"ok 4 webhook payment.completed", "ok 5 retry ", "ok 6 error 404 NOT_FOUND retryable=false", "ok 7 intent "} {
		if !strings.Contains(out, want) {
			t.Errorf("the journey did not print %q", want)
		}
	}
	// Step 5's create was sent more than once (DynamoDB paused), every time with one key and one body.
	var keys, bodies = map[string]bool{}, map[string]bool{}
	for _, r := range h.Requests() {
		if ua := r.Header.Get("User-Agent"); !strings.HasPrefix(ua, "takapay-typescript/") {
			t.Errorf("%s %s: User-Agent %q", r.Method, r.Path, ua)
		}
		if r.Path == "/v1/payment/create" && strings.Contains(string(r.Body), `"journey-ts-retry-`) {
			keys[r.Header.Get("Idempotency-Key")] = true
			bodies[string(r.Body)] = true
		}
	}
	if len(keys) != 1 || len(bodies) != 1 {
		t.Errorf("the retried create: %d keys and %d bodies, want one of each", len(keys), len(bodies))
	}
}

// typescriptClient builds clients/typescript with tsc (npm ci first when its node_modules is
// missing) and returns its folder and npm there, which fails the test unless npm exits 0. It
// skips under -short and without node and npm (fails on CI's full tier: devstack.RequireNode)
// and fails on a Node older than 20.
func typescriptClient(t *testing.T) (dir string, npm func(args ...string)) {
	t.Helper()
	root, err := samtemplate.FindRepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	dir = filepath.Join(root, "clients", "typescript")
	devstack.RequireNode(t)
	if out, err := exec.Command("node", "-p", "process.versions.node.split('.')[0] >= 20").Output(); err != nil || strings.TrimSpace(string(out)) != "true" {
		t.Fatalf("@takapay/client needs Node.js 20 or later: %s %v", out, err)
	}
	npm = func(args ...string) {
		t.Helper()
		cmd := exec.Command("npm", args...)
		cmd.Dir = dir
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("npm %s: %v\n%s", strings.Join(args, " "), err, out)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "node_modules")); err != nil {
		npm("ci", "--no-audit", "--no-fund")
	}
	npm("run", "build")
	return dir, npm
}
