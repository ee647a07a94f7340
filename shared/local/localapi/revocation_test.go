package localapi_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/takapay/payments/shared/auth"
	"github.com/takapay/payments/shared/local/apitest"
	"github.com/takapay/payments/shared/local/localapi"
	"github.com/takapay/payments/shared/local/samtemplate"
)

// A revoked API key keeps working on a warm instance for up to KEY_CACHE_TTL_MS (the key
// cache), and only then is 401; an instance that never read it refuses it at once. A revoked
// session is refused on the very next request (sessions are not cached). docs/operations.md says exactly
// that: no sentence about keys claims the next request, and the delay is named.
func TestRevocationDelays(t *testing.T) {
	t.Parallel()
	const ttl = 2 * time.Second
	a := localapi.StartTestAPI(t, localapi.Options{Env: map[string]string{"KEY_CACHE_TTL_MS": "2000"}})
	ctx := t.Context()
	op := a.Operator(t)
	issued, err := op.IssueKey(ctx, a.Creds.WorkspaceID, auth.Sandbox, []auth.Scope{auth.PaymentsRead}, "revocation")
	if err != nil {
		t.Fatal(err)
	}
	key := issued.Plaintext
	merchantContext := func() *localapi.Result { return a.Do(t, "GET", "/v1/merchant/context", key, "") }
	if res := merchantContext(); res.Status != 200 {
		t.Fatalf("a new key: %d %s", res.Status, res.Body)
	}
	warmed := time.Now()
	if err := op.RevokeKey(ctx, a.Creds.WorkspaceID, issued.Record.KeyID); err != nil {
		t.Fatal(err)
	}
	// The instance that read the key still trusts it (unless this machine took the whole TTL).
	if res := merchantContext(); res.Status != 200 && time.Since(warmed) < ttl {
		t.Errorf("right after the revocation the warm instance answered %d, want 200 from its cache: %s", res.Status, res.Body)
	}
	// Another function's instance never read it: 401 at once.
	apitest.Envelope(t, a.Do(t, "POST", "/v1/payment/verify", key, `{"invoice_id": "0190f3a2-0000-7000-8000-000000000000"}`), 401, "INVALID_API_KEY")
	time.Sleep(time.Until(warmed.Add(ttl + 100*time.Millisecond)))
	apitest.Envelope(t, merchantContext(), 401, "INVALID_API_KEY")

	// Sessions: the next request after the revocation is refused.
	user, err := op.CreateUser(ctx, "revocation@shop.com.bd")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := op.Grant(ctx, user.ID, a.Creds.WorkspaceID, auth.RoleViewer); err != nil {
		t.Fatal(err)
	}
	sess, err := op.CreateSession(ctx, user.ID, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	list := func() *localapi.Result {
		return a.Do(t, "GET", "/v1/workspaces/"+a.Creds.WorkspaceID+"/documents/customers?environment=sandbox", "", "",
			"Cookie", auth.SessionCookie+"="+sess.Token)
	}
	if res := list(); res.Status != 200 {
		t.Fatalf("with the session: %d %s", res.Status, res.Body)
	}
	if _, err := op.RevokeSession(ctx, sess.Token); err != nil {
		t.Fatal(err)
	}
	apitest.Envelope(t, list(), 401, "INVALID_API_KEY")

	// docs/operations.md: the API keys section and the Configuration table.
	root, err := samtemplate.FindRepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(filepath.Join(root, "docs", "operations.md"))
	if err != nil {
		t.Fatal(err)
	}
	readme := string(data)
	start := strings.Index(readme, "\n## API keys and the operator CLI\n")
	if start < 0 {
		t.Fatal("docs/operations.md has no section \"API keys and the operator CLI\"")
	}
	end := len(readme)
	if i := strings.Index(readme[start+1:], "\n## "); i >= 0 {
		end = start + 1 + i
	}
	section := strings.Join(strings.Fields(readme[start:end]), " ")
	for sentence := range strings.SplitSeq(section, ". ") {
		lower := strings.ToLower(sentence)
		if strings.Contains(lower, "next request") && strings.Contains(lower, "key") && !strings.Contains(lower, "session") {
			t.Errorf("docs/operations.md says a key change takes effect on the next request; keys are cached for KEY_CACHE_TTL_MS: %q", sentence)
		}
	}
	if !strings.Contains(section, "KEY_CACHE_TTL_MS") {
		t.Error("docs/operations.md's API keys section does not name the revocation delay, KEY_CACHE_TTL_MS")
	}
	if !strings.Contains(section, "revoked session") || !strings.Contains(section, "next request") {
		t.Error("docs/operations.md's API keys section does not say a revoked session is refused on the next request")
	}
	if !strings.Contains(readme, "\n| `KEY_CACHE_TTL_MS` |") {
		t.Error("docs/operations.md's Configuration table has no KEY_CACHE_TTL_MS row")
	}
}
