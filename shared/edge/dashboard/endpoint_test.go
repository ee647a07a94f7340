package dashboard_test

import (
	"net/url"
	"strings"
	"testing"
)

// joinAs invites email into the owner's workspace with role; the person signs up through
// the invitation and accepts it. It returns their browser, signed in.
func (s *stack) joinAs(t *testing.T, owner *browser, email, role string) *browser {
	t.Helper()
	team := owner.get("/dashboard/team")
	p := owner.post("/dashboard/team/invites", url.Values{"csrf": {csrf(t, team)}, "once": {once(t, team, "/dashboard/team/invites")}, "email": {email}, "role": {role}})
	if p.status != 200 || !strings.Contains(p.url, "notice=invited") {
		t.Fatalf("invite %s: %d at %s\n%.2000s", email, p.status, p.url, p.body)
	}
	invite, _ := s.mailLink(t, email, "/dashboard/invite", 0)
	b := s.signUp(t, email, "", invite)
	inv := b.get(invite)
	p = b.post(actionRE.FindAllStringSubmatch(inv.body, -1)[1][1], url.Values{"csrf": {csrf(t, inv)}})
	if p.status != 200 || !strings.Contains(p.body, `id="home-workspace"`) {
		t.Fatalf("accept %s: %d at %s\n%.3000s", email, p.status, p.url, p.body)
	}
	return b
}

// The document webhook on the webhook-secrets page: an owner sets it (the API's webhook_url
// rule shown next to the field when broken), a developer sees it and cannot change it.
func TestDocumentWebhookPage(t *testing.T) {
	s := startStack(t, nil)
	owner := s.signUp(t, "owner@hooks.example.com.bd", "Hooks", "")
	page := owner.get("/dashboard/webhook-secrets")
	if page.status != 200 || !strings.Contains(page.body, `id="endpoint-form-sandbox"`) || !strings.Contains(page.body, `id="endpoint-live"`) {
		t.Fatalf("secrets page: %d\n%.3000s", page.status, page.body)
	}
	p := owner.post("/dashboard/webhook-secrets/endpoint", url.Values{"csrf": {csrf(t, page)}, "environment": {"sandbox"},
		"url-sandbox": {"https://10.1.2.3/hooks"}})
	if p.status != 422 || !strings.Contains(p.body, `id="f-url-sandbox-error"`) || !strings.Contains(p.body, `aria-invalid="true"`) ||
		!strings.Contains(p.body, "10.1.2.3") {
		t.Fatalf("a private address: %d\n%.3000s", p.status, p.body)
	}
	p = owner.post("/dashboard/webhook-secrets/endpoint", url.Values{"csrf": {csrf(t, page)}, "environment": {"sandbox"},
		"url-sandbox": {"https://hooks.example.com/takapay"}})
	if p.status != 200 || !strings.Contains(p.url, "notice=endpoint") || !strings.Contains(p.body, "<code>https://hooks.example.com/takapay</code>") {
		t.Fatalf("set: %d at %s\n%.3000s", p.status, p.url, p.body)
	}
	if act := owner.get("/dashboard/activity"); !strings.Contains(act.body, "https://hooks.example.com/takapay") {
		t.Errorf("activity does not record the change:\n%.3000s", act.body)
	}
	// A receiver that authenticates by a token in the query: the activity log, read by every
	// admin for 90 days, keeps the scheme, host and path, never the token (issue 30 item 6).
	p = owner.post("/dashboard/webhook-secrets/endpoint", url.Values{"csrf": {csrf(t, page)}, "environment": {"sandbox"},
		"url-sandbox": {"https://hooks.example.com/takapay/q?token=hook-s3cret-token"}})
	if p.status != 200 || !strings.Contains(p.url, "notice=endpoint") {
		t.Fatalf("set with a query: %d at %s\n%.3000s", p.status, p.url, p.body)
	}
	if act := owner.get("/dashboard/activity"); !strings.Contains(act.body, "https://hooks.example.com/takapay/q") ||
		strings.Contains(act.body, "hook-s3cret-token") || strings.Contains(act.body, "token=") {
		t.Errorf("activity keeps the webhook URL's query, or lost the change:\n%.3000s", act.body)
	}

	dev := s.joinAs(t, owner, "dev@hooks.example.com.bd", "developer")
	dp := dev.get("/dashboard/webhook-secrets?lang=bn")
	if dp.status != 200 || !strings.Contains(dp.body, "https://hooks.example.com/takapay") || strings.Contains(dp.body, "endpoint-form-") {
		t.Fatalf("developer's page: %d\n%.3000s", dp.status, dp.body)
	}
	if p := dev.post("/dashboard/webhook-secrets/endpoint", url.Values{"csrf": {csrf(t, dp)}, "environment": {"sandbox"},
		"url-sandbox": {"https://evil.example.com/steal"}}); p.status != 403 {
		t.Errorf("developer sets the webhook: %d", p.status)
	}
	p = owner.post("/dashboard/webhook-secrets/endpoint", url.Values{"csrf": {csrf(t, page)}, "environment": {"sandbox"}, "url-sandbox": {""}})
	if p.status != 200 || strings.Contains(p.body, "https://hooks.example.com/takapay</code>") {
		t.Fatalf("clear: %d\n%.3000s", p.status, p.body)
	}
}
