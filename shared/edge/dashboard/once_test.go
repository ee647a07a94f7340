package dashboard

import (
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/takapay/payments/shared/auth"
	"github.com/takapay/payments/shared/foundation/web"
)

// onceOf returns the one-use token of the form with id formID on a page.
func onceOf(t *testing.T, r *web.Response, formID string) string {
	t.Helper()
	m := regexp.MustCompile(`<form method="post" id="` + regexp.QuoteMeta(formID) + `"[^>]*>` +
		`<input type="hidden" name="csrf" value="[^"]*"><input type="hidden" name="once" value="([^"]+)">`).FindStringSubmatch(body(r))
	if m == nil {
		t.Fatalf("no one-use token in form %s:\n%s", formID, body(r))
	}
	return m[1]
}

// land follows a 303 to the page h serves, with the session.
func land(t *testing.T, h web.HandlerFunc, r *web.Response, session string) string {
	t.Helper()
	u, err := url.Parse(r.Headers["Location"])
	if err != nil || r.Status != 303 {
		t.Fatalf("not a redirect: %d to %q", r.Status, r.Headers["Location"])
	}
	q := map[string]string{}
	for k, v := range u.Query() {
		q[k] = v[0]
	}
	return body(do(t, h, call{method: "GET", path: u.Path, query: q, cookies: []string{SessionCookie + "=" + session}}))
}

// A create form sent twice (a refresh, a double click) creates once; both answers go to the
// same page, which shows the secret to the first GET of this session only; the claim holds
// the secret sealed, never as text; a form without its token creates nothing.
func TestCreateFormTakesEffectOnce(t *testing.T) {
	s, m := newService()
	forms := s.Forms.(*memForms)
	admin := m.signIn("admin", auth.RoleAdmin)
	other := m.signIn("other", auth.RoleAdmin)
	cookies := []string{SessionCookie + "=" + admin}
	keys := do(t, s.KeysPage, call{method: "GET", path: "/dashboard/keys", cookies: cookies})
	form := url.Values{"csrf": {csrfOf(t, keys)}, "once": {onceOf(t, keys, "create-key-form")}, "name": {"server"},
		"environment": {"sandbox"}, "scopes": {"payments:write"}}

	stale := url.Values{}
	for k, v := range form {
		stale[k] = v
	}
	stale.Del("once")
	if r := do(t, s.CreateKey, call{method: "POST", path: "/dashboard/keys", form: stale, cookies: cookies}); r.Status != 400 || len(m.keys["ws1"]) != 0 {
		t.Fatalf("a form without its token: %d, %d keys", r.Status, len(m.keys["ws1"]))
	}

	first := do(t, s.CreateKey, call{method: "POST", path: "/dashboard/keys", form: form, cookies: cookies})
	again := do(t, s.CreateKey, call{method: "POST", path: "/dashboard/keys", form: form, cookies: cookies})
	if first.Status != 303 || again.Status != 303 || first.Headers["Location"] != again.Headers["Location"] {
		t.Fatalf("two posts of one form: %d to %q, %d to %q", first.Status, first.Headers["Location"], again.Status, again.Headers["Location"])
	}
	if n := len(m.keys["ws1"]); n != 1 {
		t.Fatalf("two posts of one form made %d keys", n)
	}
	if strings.Contains(first.Headers["Location"], "SECRET") || len(first.Cookies) != 0 {
		t.Fatalf("the secret travels with the redirect: %q %q", first.Headers["Location"], first.Cookies)
	}
	for _, c := range forms.claims {
		if strings.Contains(string(c.sealed), "SECRET") {
			t.Fatal("the claim holds the secret as text")
		}
	}
	if p := land(t, s.KeysPage, first, other); strings.Contains(p, "sk_sandbox_SECRET") {
		t.Fatal("another session's GET of the landing shows the secret")
	}
	if p := land(t, s.KeysPage, first, admin); !strings.Contains(p, `id="issued-secret">sk_sandbox_SECRETkey_1<`) {
		t.Fatalf("the landing does not show the secret:\n%s", p)
	}
	if p := land(t, s.KeysPage, again, admin); strings.Contains(p, "sk_sandbox_SECRET") || !strings.Contains(p, "shown once") {
		t.Fatalf("a second GET of the landing:\n%s", p)
	}

	// A form the service refuses releases its token: corrected and sent again, it creates.
	retry := url.Values{"csrf": form["csrf"], "once": {randomToken()}, "name": {"refused"}, "environment": {"sandbox"}, "scopes": {"payments:write"}}
	bad := do(t, s.CreateKey, call{method: "POST", path: "/dashboard/keys", form: retry, cookies: cookies})
	if bad.Status != 422 || len(m.keys["ws1"]) != 1 || len(forms.claims) != 1 {
		t.Fatalf("a refused form: %d, %d keys, %d claims", bad.Status, len(m.keys["ws1"]), len(forms.claims))
	}
	retry.Set("name", "server 2")
	if r := do(t, s.CreateKey, call{method: "POST", path: "/dashboard/keys", form: retry, cookies: cookies}); r.Status != 303 || len(m.keys["ws1"]) != 2 {
		t.Fatalf("the corrected form: %d, %d keys", r.Status, len(m.keys["ws1"]))
	}
}

// A repeat that arrives while the first is still creating goes to the landing, which says so.
func TestCreateFormRepeatWhileRunning(t *testing.T) {
	s, m := newService()
	admin := m.signIn("admin", auth.RoleAdmin)
	cookies := []string{SessionCookie + "=" + admin}
	page := do(t, s.SecretsPage, call{method: "GET", path: "/dashboard/webhook-secrets", cookies: cookies})
	once := regexp.MustCompile(`name="once" value="([^"]+)"`).FindStringSubmatch(body(page))
	if once == nil {
		t.Fatal("the issue form has no one-use token")
	}
	id, _ := formKeys(admin, once[1])
	s.Forms.(*memForms).claims = map[string]*memClaim{id: {expires: s.now().Add(FormTokenLifetime)}}
	r := do(t, s.IssueSecret, call{method: "POST", path: "/dashboard/webhook-secrets", cookies: cookies,
		form: url.Values{"csrf": {csrfOf(t, page)}, "once": {once[1]}, "environment": {"sandbox"}}})
	if p := land(t, s.SecretsPage, r, admin); !strings.Contains(p, "still being created") || strings.Contains(p, "whsec_") {
		t.Fatalf("the repeat's landing while the first runs:\n%s", p)
	}
}
