package main

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/takapay/payments/shared/local/devstack"
	"github.com/takapay/payments/shared/local/samtemplate"
)

// TestAPIReferenceBuilds builds the API reference as `make docs` does (Redocly CLI's
// build-docs of shared/openapi/openapi.yaml, from node_modules) into a temporary directory and
// checks the page carries the contract: its title and an operationId. Under -short, or without
// node or the installed CLI, it skips, except in CI's full tier (CI set), where a missing tool
// fails it.
func TestAPIReferenceBuilds(t *testing.T) {
	html, err := os.ReadFile(buildReference(t))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"Takapay payments API", "createPayment", "verifyPayment"} {
		if !strings.Contains(string(html), want) {
			t.Errorf("the API reference lacks %q", want)
		}
	}
}

// buildReference runs `redocly build-docs` as `make docs` does and returns the page's path.
func buildReference(t *testing.T) string {
	t.Helper()
	root, err := samtemplate.FindRepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	devstack.RequireNode(t) // skipped under -short: the unit tier needs no Node
	cli := filepath.Join(root, "node_modules", ".bin", "redocly")
	if _, err := os.Stat(cli); err != nil {
		devstack.MissingTool(t, "Redocly CLI is not installed (make deps runs npm ci): %v", err)
	}
	out := filepath.Join(t.TempDir(), "index.html")
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, cli, "build-docs", filepath.Join(root, "shared", "openapi", "openapi.yaml"), "--inlineBundle", "--openapi.routingBasePath=/docs", "-o", out)
	cmd.Dir = root
	cmd.Env = append(os.Environ(), "REDOCLY_TELEMETRY=off", "REDOCLY_SUPPRESS_UPDATE_NOTICE=true")
	start := time.Now()
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("redocly build-docs: %v\n%s", err, b)
	}
	t.Logf("redocly build-docs took %s", time.Since(start).Round(time.Millisecond))
	return out
}
