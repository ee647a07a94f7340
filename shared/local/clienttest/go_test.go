package clienttest_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/takapay/payments/shared/local/clienttest"
	"github.com/takapay/payments/shared/local/devstack"
	"github.com/takapay/payments/shared/local/samtemplate"
)

// The Go client's journey (clients/go/examples/journey) against a fresh stack: create, pay,
// verify (match and mismatch), the webhook verified in one call (tampered and stale copies
// rejected), a create retried through a DynamoDB pause with one Idempotency-Key (exactly one
// intent), a typed 4xx not retried, an intent and documents, and refunds (create and its
// replay under one key, the money rule's 409, every transition, paging, their webhooks verified
// with webhook.VerifyEvent). The harness checks every request the client sent against the
// contract when the test ends.
func TestGoClientJourney(t *testing.T) {
	goBin := filepath.Join(runtime.GOROOT(), "bin", "go")
	if _, err := os.Stat(goBin); err != nil {
		p, lerr := exec.LookPath("go")
		if lerr != nil {
			devstack.MissingTool(t, "go is not installed: %v", lerr)
		}
		goBin = p
	}
	root, err := samtemplate.FindRepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	h := clienttest.Start(t)
	out := h.Run(t, filepath.Join(root, "clients", "go"), goBin, "run", "./examples/journey")
	t.Log("\n" + out)
	for _, step := range []string{"ok 1 create ", "ok 2 approve ", "ok 3 verify COMPLETED match=true; wrong amount match=false",
		"ok 4 webhook ", "ok 5 retry ", "ok 6 error status=404 code=NOT_FOUND retryable=false", "ok 7 intent ", "ok 8 refund "} {
		if !strings.Contains(out, step) {
			t.Errorf("the journey printed no %q", step)
		}
	}
	var creates int
	for _, r := range h.Requests() {
		if ua := r.Header.Get("User-Agent"); !strings.HasPrefix(ua, "takapay-go/") {
			t.Errorf("%s %s: User-Agent %q", r.Method, r.Path, ua)
		}
		if r.Method == "POST" && r.Path == "/v1/payment/create" {
			creates++
		}
	}
	// Step 5's create was sent more than once (retried), each time with the same key.
	keys := map[string]int{}
	for _, r := range h.Requests() {
		if r.Method == "POST" && r.Path == "/v1/payment/create" {
			keys[r.Header.Get("Idempotency-Key")]++
		}
	}
	retried := 0
	for _, n := range keys {
		if n > 1 {
			retried++
		}
	}
	if creates < 3 || retried != 1 {
		t.Errorf("payment creates: %d sent, keys %v: want step 5's retried under one key", creates, keys)
	}
	// Step 8: every refund create carried a key; the replayed one was sent twice under the same key.
	refundKeys := map[string]int{}
	for _, r := range h.Requests() {
		if r.Method == "POST" && strings.HasSuffix(r.Path, "/refunds") {
			refundKeys[r.Header.Get("Idempotency-Key")]++
		}
	}
	var replays int
	for k, n := range refundKeys {
		if k == "" {
			t.Errorf("a refund create without an Idempotency-Key")
		}
		if strings.HasPrefix(k, "journey-refund-") && n == 2 {
			replays++
		}
	}
	if replays != 1 || len(refundKeys) != 3 {
		t.Errorf("refund creates by key %v: want 3 keys, the journey's sent twice", refundKeys)
	}
}
