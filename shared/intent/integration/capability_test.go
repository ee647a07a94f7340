package integration_test

import (
	"bytes"
	"net/http"
	"net/url"
	"testing"

	"github.com/takapay/payments/shared/app/operator"
	"github.com/takapay/payments/shared/auth"
	"github.com/takapay/payments/shared/local/localapi"
)

// TestReadOnlyCallersGetNoPaymentURL is the attacker's test of issue 30 item 1: a payment_url
// is the payer's capability (with it one can lock the route, cancel the payment or, in the
// sandbox, approve it), so a caller who may only read payments — a payments:read key, a
// viewer's dashboard session — must never receive it, on any operation that answers an
// intent: get and list, on the bearer routes and the workspace routes. A payments:write key
// and a developer's session still get it. The attacker then tries to use what they were given:
// without the token there is nothing to lock.
func TestReadOnlyCallersGetNoPaymentURL(t *testing.T) {
	t.Parallel()
	a := localapi.StartTestAPI(t, localapi.Options{Env: map[string]string{"DASHBOARD_ORIGINS": dashboardOrigin}})
	op := &operator.Operator{Store: a.Store}
	ws := a.Creds.WorkspaceID
	session := func(role auth.Role) []string {
		return []string{"Cookie", auth.HostSessionCookie + "=" + memberSession(t, op, ws, role)}
	}
	viewer, developer := session(auth.RoleViewer), session(auth.RoleDeveloper)

	created, res := createIntent(t, a, idemKey(), `{"amount": 150.00, "reference": "cap-1"}`)
	if res.Status != http.StatusCreated || created.PaymentURL == "" {
		t.Fatalf("create with a payments:write key: %d %s", res.Status, res.Body)
	}
	u, err := url.Parse(created.PaymentURL)
	if err != nil {
		t.Fatal(err)
	}
	token := []byte(u.Path[len("/v1/public/checkout/"):])

	bearer := "/v1/payment-intents"
	wsBase := "/v1/workspaces/" + ws + "/payment-intents"
	env := "?environment=sandbox"
	type door struct {
		name, method, path, key string
		headers                 []string
		body                    string
	}
	readOnly := []door{
		{"payments:read key, get", "GET", bearer + "/" + created.ID, a.Creds.ReadonlyKey, nil, ""},
		{"payments:read key, list", "GET", bearer, a.Creds.ReadonlyKey, nil, ""},
		{"payments:read key, list by reference", "GET", bearer + "?reference=cap-1", a.Creds.ReadonlyKey, nil, ""},
		{"payments:read key, verify-transaction", "POST", bearer + "/" + created.ID + "/verify-transaction", a.Creds.ReadonlyKey, nil, "{}"},
		{"viewer session, get", "GET", wsBase + "/" + created.ID + env, "", viewer, ""},
		{"viewer session, list", "GET", wsBase + env, "", viewer, ""},
	}
	for _, d := range readOnly {
		res := a.Do(t, d.method, d.path, d.key, d.body, d.headers...)
		if res.Status != http.StatusOK {
			t.Fatalf("%s: %d %s", d.name, res.Status, res.Body)
		}
		if bytes.Contains(res.Body, []byte(`"payment_url"`)) || bytes.Contains(res.Body, token) {
			t.Errorf("%s: a read-only caller received the payer's capability: %s", d.name, res.Body)
		}
		if !bytes.Contains(res.Body, []byte(created.ID)) {
			t.Errorf("%s: the intent is missing from the answer: %s", d.name, res.Body)
		}
	}

	// Callers who may create payments still receive it, equal to the one create answered.
	writers := []door{
		{"payments:write key, get", "GET", bearer + "/" + created.ID, a.Creds.SandboxKey, nil, ""},
		{"developer session, get", "GET", wsBase + "/" + created.ID + env, "", developer, ""},
	}
	for _, d := range writers {
		res := a.Do(t, d.method, d.path, d.key, d.body, d.headers...)
		if res.Status != http.StatusOK {
			t.Fatalf("%s: %d %s", d.name, res.Status, res.Body)
		}
		if got := decode[intentResp](t, res).PaymentURL; got != created.PaymentURL {
			t.Errorf("%s: payment_url = %q, want %q", d.name, got, created.PaymentURL)
		}
	}
	for _, d := range []door{
		{"payments:write key, list", "GET", bearer, a.Creds.SandboxKey, nil, ""},
		{"developer session, list", "GET", wsBase + env, "", developer, ""},
	} {
		res := a.Do(t, d.method, d.path, d.key, d.body, d.headers...)
		found := false
		for _, it := range decode[listResp](t, res).Items {
			found = found || (it.ID == created.ID && it.PaymentURL == created.PaymentURL)
		}
		if res.Status != http.StatusOK || !found {
			t.Errorf("%s: the intent with its payment_url is not listed: %d %s", d.name, res.Status, res.Body)
		}
	}

	// The intent is untouched: nobody holding only read access locked or cancelled it.
	if got := decode[intentResp](t, a.Do(t, "GET", bearer+"/"+created.ID, a.Creds.ReadonlyKey, "")); got.Status != "PENDING" {
		t.Errorf("status = %s, want PENDING", got.Status)
	}
}
