package dashboard

import (
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/takapay/payments/shared/auth"
	"github.com/takapay/payments/shared/foundation/h"
	"github.com/takapay/payments/shared/foundation/page"
	"github.com/takapay/payments/shared/foundation/web"
)

// testDoc is a page being written in l by a signed-in owner, for the node helpers' tests.
func testDoc(l page.Lang) *doc {
	r := &req{Request: &web.Request{Path: "/dashboard/keys", Query: map[string]string{}}, lang: page.Choice{Lang: l},
		viewer: &viewer{csrf: "tok", ws: Membership{WorkspaceID: "ws1", Role: auth.RoleOwner}}}
	return &doc{r: r, l: l}
}

// A key's state is a pill that differs by colour (its tone's class) and by its words, in
// the page's language: active, expiring (a rolled key in its grace, with the end), revoked,
// expired.
func TestKeyStatePills(t *testing.T) {
	until := time.Date(2026, 11, 29, 9, 30, 0, 0, time.UTC)
	for _, c := range []struct {
		key           Key
		class, status string
		en, bn        string
	}{
		{Key{State: "active"}, "pill-good", "active", "Active", "চালু"},
		{Key{State: "active", ExpiresAt: &until}, "pill-waiting", "expiring", "Expiring", "মেয়াদ ফুরোচ্ছে"},
		{Key{State: "revoked"}, "pill-bad", "revoked", "Revoked", "বাতিল"},
		{Key{State: "expired"}, "pill-off", "expired", "Expired", "মেয়াদ শেষ"},
	} {
		for l, words := range map[page.Lang]string{page.EN: c.en, page.BN: c.bn} {
			got := h.String(testDoc(l).keyState(c.key))
			want := `<span class="pill ` + c.class + `" data-status="` + c.status + `">` + words + `</span>`
			if !strings.HasPrefix(got, want) {
				t.Errorf("%s %s: %s, want it to start %s", l, c.status, got, want)
			}
			if c.status == "expiring" && !strings.Contains(got, `<time datetime="2026-11-29T09:30:00Z">`) {
				t.Errorf("%s: an expiring key does not say until when: %s", l, got)
			}
		}
	}
}

var cellLabel = regexp.MustCompile(`<td data-label="([^"]*)">`)

// The keys table is ui.Table (cards below 40em): every cell carries its column's header for
// the card, the name and state lead, the prefix (an id) comes after them, and an active key's
// roll form has its labelled select whole.
func TestKeysTableReadsAsCards(t *testing.T) {
	used := time.Date(2026, 11, 27, 0, 0, 0, 0, time.UTC)
	keys := []Key{{ID: "k1", Name: "Shop server", Prefix: "sk_sandbox_ab12", Environment: auth.Sandbox, Scopes: []auth.Scope{auth.PaymentsRead},
		CreatedBy: "owner@shop.com.bd", CreatedAt: used, LastUsed: &used, State: "active"}}
	got := h.String(testDoc(page.EN).keysTable(keys, true))
	for _, want := range []string{`<table class="cards" id="keys-table">`, `<tr id="key-k1">`, `<p class="hint" id="keys-count">1 key · 1 active</p>`,
		`<time datetime="2026-11-27">27 November 2026</time>`, `<label for="grace-k1">Old key works</label><select class="inline-field" name="grace" id="grace-k1">`,
		`id="revoke-k1"`, `id="roll-k1"`} {
		if !strings.Contains(got, want) {
			t.Errorf("keys table lacks %s:\n%s", want, got)
		}
	}
	var labels []string
	for _, m := range cellLabel.FindAllStringSubmatch(got, -1) {
		labels = append(labels, m[1])
	}
	if want := "Name,State,Created,Last used,Key starts with,Actions"; strings.Join(labels, ",") != want {
		t.Errorf("cells' labels %v, want %s", labels, want)
	}
	if i, j := strings.Index(got, "Shop server"), strings.Index(got, "sk_sandbox_ab12"); i < 0 || j < i {
		t.Errorf("the prefix comes before the name: %s", got)
	}
	if empty := h.String(testDoc(page.BN).keysTable(nil, true)); !strings.Contains(empty, `id="keys-none"`) || !strings.Contains(empty, "এখনো কোনো কি নেই।") {
		t.Errorf("no keys: %s", empty)
	}
}

// A member's role is a pill (the owner's good, the others' informative), the viewer's own row
// says "you", and an invitation is a card with an "invited" pill and its end.
func TestTeamCardsAndPills(t *testing.T) {
	since := time.Date(2026, 10, 1, 0, 0, 0, 0, time.UTC)
	d := testDoc(page.BN)
	got := h.String(d.membersTable([]Member{{UserID: "me", Email: "me@shop.com.bd", Role: auth.RoleOwner, Since: since},
		{UserID: "u2", Email: "dev@shop.com.bd", Role: auth.RoleDeveloper, Since: since}}, true, "me"))
	for _, want := range []string{`<table class="cards" id="members-table">`, `<p class="hint" id="members-count">২ জন সদস্য</p>`,
		`<span class="pill pill-good" data-status="owner">মালিক</span>`, `<span class="pill pill-info" data-status="developer">ডেভেলপার</span>`,
		`<span class="tag">আপনি</span>`, `id="role-u2"`, `id="remove-u2"`} {
		if !strings.Contains(got, want) {
			t.Errorf("members lack %s:\n%s", want, got)
		}
	}
	if strings.Contains(got, `id="remove-me"`) {
		t.Error("the viewer may remove themselves from the members table")
	}
	inv := h.String(testDoc(page.EN).invites([]Invite{{ID: "i1", Email: "new@shop.com.bd", Role: auth.RoleViewer, ExpiresAt: since}}))
	for _, want := range []string{`<table class="cards" id="invites">`, `<caption>1 pending invitation</caption>`, `<tr id="invite-i1">`,
		`<span class="pill pill-waiting" data-status="invited">Invited</span>`, `id="revoke-invite-i1"`} {
		if !strings.Contains(inv, want) {
			t.Errorf("invitations lack %s:\n%s", want, inv)
		}
	}
}

// Counts say one thing and many things right in each language: English changes the noun
// after one, Bangla does not (its classifier), and writes the number in Bangla digits.
func TestPluralCounts(t *testing.T) {
	for _, c := range []struct {
		l    page.Lang
		key  string
		n    int
		want string
	}{
		{page.EN, "dash.keys.count", 1, "1 key"}, {page.EN, "dash.keys.count", 0, "0 keys"}, {page.EN, "dash.keys.count", 3, "3 keys"},
		{page.EN, "dash.team.count", 1, "1 member"}, {page.EN, "dash.passkeys.count", 2, "2 passkeys"},
		{page.EN, "dash.activity.count", 1, "1 event on this page"}, {page.EN, "dash.team.invites_count", 2, "2 pending invitations"},
		{page.BN, "dash.keys.count", 1, "১টি কি"}, {page.BN, "dash.keys.count", 12, "১২টি কি"}, {page.BN, "dash.team.count", 1, "১ জন সদস্য"},
	} {
		if got := plural(c.l, c.key, c.n); got != c.want {
			t.Errorf("plural(%s, %s, %d) = %q, want %q", c.l, c.key, c.n, got, c.want)
		}
	}
}

// A Bangla page's forms are novalidate (the browser's own messages would be English); an
// English page's keep the browser's checks. A one-button action form (ui.ActionButton, class
// "action": revoke, remove, leave) has no field for a browser to check, in either language.
func TestBanglaFormsAreNovalidate(t *testing.T) {
	s, m := newService()
	tok := m.signIn("owner", auth.RoleOwner)
	formTag := regexp.MustCompile(`<form [^>]*>`)
	for _, c := range []struct {
		h    web.HandlerFunc
		path string
	}{{s.KeysPage, "/dashboard/keys"}, {s.TeamPage, "/dashboard/team"}, {s.SecretsPage, "/dashboard/webhook-secrets"}} {
		for _, lang := range []string{"bn", "en"} {
			b := body(do(t, c.h, call{method: "GET", path: c.path, query: map[string]string{"lang": lang}, cookies: []string{SessionCookie + "=" + tok}}))
			forms := formTag.FindAllString(b, -1)
			if len(forms) == 0 {
				t.Fatalf("%s %s: no form", lang, c.path)
			}
			for _, f := range forms {
				if strings.Contains(f, "sign-out") || strings.Contains(f, `class="action"`) {
					continue // the top bar's (render.go), and the one-button forms
				}
				if strings.Contains(f, " novalidate") != (lang == "bn") {
					t.Errorf("%s %s: %s", lang, c.path, f)
				}
			}
		}
	}
}

// The credential service and the URL check state their rules in English; the page says them
// in its own language, next to the field.
func TestRefusalsInThePagesLanguage(t *testing.T) {
	s, m := newService()
	tok := m.signIn("owner", auth.RoleOwner)
	for lang, want := range map[string]string{"bn": "https:// দিয়ে শুরু হওয়া একটি ঠিকানা দিন।", "en": "Use an address that starts with https://."} {
		r := do(t, s.SetEndpoint, call{method: "POST", path: "/dashboard/webhook-secrets/endpoint", query: map[string]string{"lang": lang},
			cookies: []string{SessionCookie + "=" + tok},
			form:    url.Values{"csrf": {sessionCSRF(tok)}, "environment": {"sandbox"}, "url-sandbox": {"http://hooks.example.com/x"}}})
		if b := body(r); r.Status != 422 || !strings.Contains(b, `<p class="field-error" id="f-url-sandbox-error">`+want+`</p>`) || strings.Contains(b, "must use https") {
			t.Errorf("%s: %d\n%s", lang, r.Status, b)
		}
	}
	for _, c := range []struct{ field, rule, key string }{
		{"name", "must be at most 64 characters", "dash.rule.key_name.max_length"},
		{"name", "must not contain control characters", "dash.rule.control"},
		{"url", "must not be an IP address", "dash.rule.url.public"},
		{"url", "must have a valid DNS host name", "dash.rule.url.host"},
		{"url", "something new", "dash.rule.url.invalid"},
		{"name", "something new", "dash.rule.format"},
	} {
		if got, want := refusalMessage(page.BN, &refusal{field: c.field, rule: c.rule}), catalogue(page.BN)[c.key]; got != want {
			t.Errorf("%s %q: %q, want %q", c.field, c.rule, got, want)
		}
	}
}
