package clienttest_test

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/takapay/payments/shared/local/clienttest"
	"github.com/takapay/payments/shared/local/devstack"
	"github.com/takapay/payments/shared/local/samtemplate"
)

// The TypeScript client (clients/typescript, @takapay/client) runs its journey against the
// stack: built with tsc first (npm ci when its node_modules is missing), then
// examples/journey.mjs, which imports the built package. Step 8 is refunds: the create and its
// replay under one key, the money rule's 409, every transition, paging, the refund webhooks.
func TestTypescriptClientJourney(t *testing.T) {
	dir, _ := typescriptClient(t)

	h := clienttest.Start(t)
	out := h.Run(t, dir, "node", "examples/journey.mjs")
	t.Log(out)
	for _, want := range []string{"ok 1 create ", "ok 2 approve", "ok 3 verify COMPLETED match=true mismatch=amount_minor",
		"ok 4 webhook payment.completed", "ok 5 retry ", "ok 6 error 404 NOT_FOUND retryable=false", "ok 7 intent ", "ok 8 refund "} {
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
// missing), once per test process, and returns its folder and npm there, which fails the test unless npm exits 0. It
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
		if err := run(dir, "npm", args...); err != nil {
			t.Fatal(err)
		}
	}
	// The package is built once per test process: the journey and the getting-started page
	// use the same build, and nothing changes it in between.
	tsBuild.once.Do(func() {
		if _, err := os.Stat(filepath.Join(dir, "node_modules")); err != nil {
			if tsBuild.err = run(dir, "npm", "ci", "--no-audit", "--no-fund"); tsBuild.err != nil {
				return
			}
		}
		tsBuild.err = run(dir, "npm", "run", "build")
	})
	if tsBuild.err != nil {
		t.Fatal(tsBuild.err)
	}
	return dir, npm
}

// tsBuild is the one build of clients/typescript in this test process, and how it ended.
var tsBuild struct {
	once sync.Once
	err  error
}

// run runs name with args in dir, and fails with its output unless it exits 0.
func run(dir, name string, args ...string) error {
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("%s %s: %v\n%s", name, strings.Join(args, " "), err, out)
	}
	return nil
}
