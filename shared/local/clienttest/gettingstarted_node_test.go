package clienttest_test

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestGettingStartedNode runs docs/getting-started-node.md. @takapay/client is not on a
// public registry, so the page's `npm install @takapay/client` installs it from this checkout
// instead: built, then packed as the registry would serve it (package.json's files only), and
// installed offline, which also shows the package needs nothing from a registry.
func TestGettingStartedNode(t *testing.T) {
	_, npm := typescriptClient(t)
	packed := t.TempDir()
	npm("pack", "--ignore-scripts", "--pack-destination", packed) // typescriptClient has built it
	tgz, err := filepath.Glob(filepath.Join(packed, "takapay-client-*.tgz"))
	if err != nil || len(tgz) != 1 {
		t.Fatalf("npm pack made %v (%v), want one takapay-client-*.tgz", tgz, err)
	}
	out, h := runPage(t, page{
		file:    "docs/getting-started-node.md",
		tools:   []string{"node", "npm"},
		install: "npm install @takapay/client",
		local: func(string) string {
			return "npm install --no-audit --no-fund --offline '" + tgz[0] + "'"
		},
	})
	checkShop(t, out, h)
	// The shop's API calls are the client's: its User-Agent, and an Idempotency-Key on the create.
	for _, r := range h.Requests() {
		if !strings.HasPrefix(r.Path, "/v1/payment/") {
			continue // the payer's checkout, which the page drives with curl
		}
		if ua := r.Header.Get("User-Agent"); !strings.HasPrefix(ua, "takapay-typescript/") {
			t.Errorf("%s %s: User-Agent %q, want takapay-typescript/…", r.Method, r.Path, ua)
		}
		if r.Path == "/v1/payment/create" && !strings.HasPrefix(r.Header.Get("Idempotency-Key"), "tkp_") {
			t.Errorf("the create's Idempotency-Key %q is not the client's", r.Header.Get("Idempotency-Key"))
		}
	}
}
