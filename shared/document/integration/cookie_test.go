package integration_test

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/takapay/payments/shared/app/operator"
	"github.com/takapay/payments/shared/auth"
	"github.com/takapay/payments/shared/local/apitest"
	"github.com/takapay/payments/shared/local/localapi"
)

const dashboard = "https://dashboard.shop.com.bd"

// Dashboard session cookies: roles, the Origin rule for unsafe methods, workspace isolation.
func TestSessionCookieAuth(t *testing.T) {
	t.Parallel()
	a := localapi.StartTestAPI(t, localapi.Options{Env: map[string]string{"DASHBOARD_ORIGINS": dashboard}})
	ctx := t.Context()
	op := &operator.Operator{Store: a.Store}
	session := func(ws string, role auth.Role) string {
		t.Helper()
		u, err := op.CreateUser(ctx, string(role)+"@shop.com.bd")
		if err != nil {
			t.Fatal(err)
		}
		if _, err := op.Grant(ctx, u.ID, ws, role); err != nil {
			t.Fatal(err)
		}
		s, err := op.CreateSession(ctx, u.ID, time.Hour)
		if err != nil {
			t.Fatal(err)
		}
		return s.Token
	}
	dev := session(a.Creds.WorkspaceID, auth.RoleDeveloper)
	viewer := session(a.Creds.WorkspaceID, auth.RoleViewer)
	other, err := op.CreateWorkspace(ctx, "", "Other")
	if err != nil {
		t.Fatal(err)
	}
	outsider := session(other.ID, auth.RoleOwner)

	url := docs(a, "customers") + "?environment=sandbox"
	cookie := func(token string) string { return auth.HostSessionCookie + "=" + token } // an https dashboard: the __Host- name
	body := `{"reference": "cookie-1"}`

	res := a.Do(t, "GET", url, "", "", "Cookie", cookie(dev))
	if res.Status != http.StatusOK {
		t.Fatalf("developer list: %d %s", res.Status, res.Body)
	}
	if n := apitest.DDBRequests(t, a, res); n != 3 {
		t.Errorf("cookie list made %d DynamoDB requests, want 3 (session, membership, Query)", n)
	}
	// Unsafe methods need an allowed Origin.
	apitest.Envelope(t, a.Do(t, "POST", url, "", body, "Cookie", cookie(dev), "Idempotency-Key", idemKey()), 403, "SCOPE_OR_ENVIRONMENT_DENIED")
	apitest.Envelope(t, a.Do(t, "POST", url, "", body, "Cookie", cookie(dev), "Origin", "https://evil.example.net", "Idempotency-Key", idemKey()), 403, "SCOPE_OR_ENVIRONMENT_DENIED")
	res = a.Do(t, "POST", url, "", body, "Cookie", cookie(dev), "Origin", dashboard, "Idempotency-Key", idemKey())
	if res.Status != http.StatusCreated {
		t.Fatalf("developer create with Origin: %d %s", res.Status, res.Body)
	}
	rec := decode[record](t, res)
	// Sessions work in both environments.
	if res := a.Do(t, "GET", docs(a, "customers")+"?environment=live", "", "", "Cookie", cookie(dev)); res.Status != 200 {
		t.Fatalf("developer live list: %d %s", res.Status, res.Body)
	}
	// Viewers read but never write.
	if res := a.Do(t, "GET", docs(a, "customers")+"/"+rec.ID+"?environment=sandbox", "", "", "Cookie", cookie(viewer)); res.Status != 200 {
		t.Fatalf("viewer get: %d %s", res.Status, res.Body)
	}
	apitest.Envelope(t, a.Do(t, "POST", url, "", body, "Cookie", cookie(viewer), "Origin", dashboard, "Idempotency-Key", idemKey()), 403, "SCOPE_OR_ENVIRONMENT_DENIED")
	apitest.Envelope(t, a.Do(t, "PATCH", docs(a, "customers")+"/"+rec.ID+"?environment=sandbox", "", `{"name":"x"}`, "Cookie", cookie(viewer), "Origin", dashboard, "Idempotency-Key", idemKey()), 403, "SCOPE_OR_ENVIRONMENT_DENIED")
	// A member of another workspace sees nothing here.
	apitest.Envelope(t, a.Do(t, "GET", url, "", "", "Cookie", cookie(outsider)), 404, "NOT_FOUND")
	// Junk and revoked sessions.
	apitest.Envelope(t, a.Do(t, "GET", url, "", "", "Cookie", cookie("junk")), 401, "INVALID_API_KEY")
	if _, err := op.RevokeSession(ctx, dev); err != nil {
		t.Fatal(err)
	}
	apitest.Envelope(t, a.Do(t, "GET", url, "", "", "Cookie", cookie(dev)), 401, "INVALID_API_KEY")
	// No credentials at all.
	apitest.Envelope(t, a.Do(t, "GET", url, "", ""), 401, "INVALID_API_KEY")
	for _, tok := range []string{dev, viewer, outsider} {
		if strings.Contains(a.Logs.String(), tok) {
			t.Fatal("a session token appears in the log")
		}
	}
}
