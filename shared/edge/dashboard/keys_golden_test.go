package dashboard

import (
	"context"
	"net/url"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/takapay/payments/shared/activity"
	"github.com/takapay/payments/shared/auth"
	"github.com/takapay/payments/shared/foundation/page/pagetest"
	"github.com/takapay/payments/shared/foundation/web"
)

// The keys, webhook-secrets, team, activity and passkeys pages' markup, each page and state in
// both languages, in testdata/golden/keys/<page>-<lang>.html (go test -run TestGoldenKeysPages
// -update rewrites them). A file holds the page's <main> only: the shell around it (head, top
// bar, navigation, footer) is render.go's and has its own golden files; the forms' tokens,
// random on every rendering, read CSRF and ONCE.
var keysGolden = pagetest.Golden{Dir: filepath.Join("testdata", "golden", "keys")}

// goldenKeys holds fixed lists, in a fixed order, for the golden pages and the Chromium fit
// test: long names (one of 63 characters without a space), emails and ids, every state.
type goldenKeys struct {
	*mem
}

func (g goldenKeys) ListKeys(ctx context.Context, ws string) ([]Key, error) {
	used := time.Date(2026, 11, 27, 0, 0, 0, 0, time.UTC)
	until := goldenAt.Add(24 * time.Hour)
	return []Key{
		{ID: "key_01J9Z8Q4W6X0ACTIVE0000000001", Name: "Shop server (Dhaka branch, main checkout)", Prefix: "sk_sandbox_ab12",
			Environment: auth.Sandbox, Scopes: []auth.Scope{auth.PaymentsWrite, auth.PaymentsRead}, CreatedBy: "owner.with.a.long.address@shop.example.com.bd",
			CreatedAt: goldenAt, LastUsed: &used, State: "active"},
		{ID: "key_2", Name: "production_checkout_server_dhaka_main_branch_mirpur_ten_counter", Prefix: "sk_sandbox_cd34", Environment: auth.Sandbox, Scopes: []auth.Scope{auth.PaymentsRead},
			CreatedBy: "owner@shop.com.bd", CreatedAt: goldenAt.Add(-48 * time.Hour), State: "active", ExpiresAt: &until},
		{ID: "key_3", Name: "leaked", Prefix: "sk_live_ef56", Environment: auth.Live, Scopes: []auth.Scope{auth.DocumentsRead},
			CreatedBy: "owner@shop.com.bd", CreatedAt: goldenAt.Add(-72 * time.Hour), State: "revoked"},
	}, nil
}

func (g goldenKeys) ListWebhookSecrets(ctx context.Context, ws string, env auth.Environment) ([]WebhookSecret, error) {
	if env == auth.Live {
		return nil, nil
	}
	until := goldenAt.Add(time.Hour)
	return []WebhookSecret{{ID: "whs_01J9Z8Q4W6X0CURRENT00000001", CreatedAt: goldenAt, Current: true},
		{ID: "whs_2", CreatedAt: goldenAt.Add(-24 * time.Hour), ExpiresAt: &until}}, nil
}

func (g goldenKeys) ListMembers(ctx context.Context, a Actor) ([]Member, error) {
	return []Member{
		{UserID: "owner", Email: "owner@shop.com.bd", Role: auth.RoleOwner, Since: goldenAt.Add(-720 * time.Hour)},
		{UserID: "u2", Email: "a.very.long.email.address.of.the.accountant@accounts.example.com.bd", Role: auth.RoleAdmin, Since: goldenAt},
	}, nil
}

func (g goldenKeys) ListInvites(ctx context.Context, a Actor) ([]Invite, error) {
	return []Invite{{ID: "inv_1", Email: "dev@shop.com.bd", Role: auth.RoleDeveloper, ExpiresAt: goldenAt.Add(7 * 24 * time.Hour)}}, nil
}

func (g goldenKeys) List(ctx context.Context, ws, cursor string, limit int) (*activity.Page, error) {
	return &activity.Page{Items: []activity.Entry{
		{Event: activity.Event{At: goldenAt, ActorEmail: "owner@shop.com.bd", Action: "key.created", Target: "key_01J9Z8Q4W6X0ACTIVE0000000001",
			IP: "203.0.113.7", UserAgent: "Mozilla/5.0 (Linux; Android 14; SM-A155F) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0 Mobile Safari/537.36"}},
	}, NextCursor: "next-page"}, nil
}

// goldenPasskeys is a user with one active and one pending passkey, and a ceremony begun.
type goldenPasskeys struct{ Passkeys }

func (goldenPasskeys) List(ctx context.Context, userID string) ([]Passkey, error) {
	return []Passkey{{ID: "pk1", Name: "My phone", CreatedAt: goldenAt}, {ID: "pk2", Name: "Office laptop", CreatedAt: goldenAt, Pending: true}}, nil
}

func (goldenPasskeys) BeginRegistration(ctx context.Context, userID, email string, provedAt time.Time) (string, string, error) {
	return `{"publicKey":{}}`, "ceremony-1", nil
}

var (
	goldenTokens = regexp.MustCompile(`name="(csrf|once)" value="[^"]*"`)
	// goldenBlock is where a golden file breaks its lines: before a block's start tag, so that
	// a difference shows as the block it is in.
	goldenBlock = regexp.MustCompile(`\n?(<(?:div|p|h2|h3|table|caption|thead|tbody|tr|form|ul|li|fieldset|label|select|code class="secret")[ >])`)
)

// goldenMain is a page's <main>, its tokens replaced.
func goldenMain(t *testing.T, doc string) string {
	t.Helper()
	start, end := strings.Index(doc, "<main"), strings.Index(doc, "</main>")
	if start < 0 || end < start {
		t.Fatalf("no main in:\n%s", doc)
	}
	main := goldenTokens.ReplaceAllStringFunc(doc[start:end+len("</main>")], func(s string) string {
		name := goldenTokens.FindStringSubmatch(s)[1]
		return `name="` + name + `" value="` + strings.ToUpper(name) + `"`
	})
	return goldenBlock.ReplaceAllString(main, "\n$1") + "\n"
}

func TestGoldenKeysPages(t *testing.T) {
	m := newMem()
	g := goldenKeys{m}
	s := &Service{Accounts: m, Team: g, Keys: g, Activity: g, Forms: &memForms{}, Passkeys: goldenPasskeys{}}
	owner := m.signIn("owner", auth.RoleOwner)
	cookies := []string{SessionCookie + "=" + owner}
	get := func(h web.HandlerFunc, path, lang string) string {
		r := do(t, h, call{method: "GET", path: path, query: map[string]string{"lang": lang}, cookies: cookies})
		if r.Status != 200 {
			t.Fatalf("%s: %d\n%s", path, r.Status, body(r))
		}
		return body(r)
	}
	pages := map[string]string{}
	for _, lang := range []string{"en", "bn"} {
		// The keys page as a create lands on it: the new key's secret, this once.
		keys := do(t, s.KeysPage, call{method: "GET", path: "/dashboard/keys", cookies: cookies})
		created := do(t, s.CreateKey, call{method: "POST", path: "/dashboard/keys", query: map[string]string{"lang": lang}, cookies: cookies,
			form: url.Values{"csrf": {csrfOf(t, keys)}, "once": {onceOf(t, keys, "create-key-form")}, "name": {"Shop server"},
				"environment": {"sandbox"}, "scopes": {"payments:write"}}})
		pages["keys-secret-shown-"+lang] = goldenMain(t, land(t, s.KeysPage, created, owner))
		pages["webhook-secrets-"+lang] = goldenMain(t, get(s.SecretsPage, "/dashboard/webhook-secrets", lang))
		pages["team-invitation-"+lang] = goldenMain(t, get(s.TeamPage, "/dashboard/team", lang))
		pages["activity-"+lang] = goldenMain(t, get(s.ActivityPage, "/dashboard/activity", lang))
		pages["passkeys-"+lang] = goldenMain(t, get(s.PasskeysPage, "/dashboard/passkeys", lang))
		pages["invite-"+lang] = goldenMain(t, body(do(t, s.InvitePage, call{method: "GET", path: "/dashboard/invite",
			query: map[string]string{"lang": lang, "token": "inv"}, cookies: cookies})))
		// The create and invite forms refused (422): the summary, each field's message.
		refused := do(t, s.CreateKey, call{method: "POST", path: "/dashboard/keys", query: map[string]string{"lang": lang}, cookies: cookies,
			form: url.Values{"csrf": {sessionCSRF(owner)}, "once": {randomToken()}, "name": {""}, "environment": {"sandbox"}}})
		pages["keys-refused-"+lang] = goldenMain(t, body(refused))
		refused = do(t, s.InviteMember, call{method: "POST", path: "/dashboard/team/invites", query: map[string]string{"lang": lang}, cookies: cookies,
			form: url.Values{"csrf": {sessionCSRF(owner)}, "once": {randomToken()}, "email": {"not an email"}, "role": {"owner"}}})
		pages["team-refused-"+lang] = goldenMain(t, body(refused))
	}
	keysGolden.CheckAll(t, pages)
}
