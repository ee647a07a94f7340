package dashboard_test

import (
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/takapay/payments/shared/auth"
	"github.com/takapay/payments/shared/document"
	"github.com/takapay/payments/shared/local/devstack"
)

// submit posts a form as post does but does not follow the answer's redirect: what a
// browser's POST gets back.
func (b *browser) submit(path string, form url.Values) *page {
	b.t.Helper()
	return (&formsBrowser{browser: b, front: b.s.api.URL}).fetch("POST", path, form)
}

// twice posts one form body twice (a refresh of the POST, a double click) and wants two 303s
// to the same place, which it returns.
func (b *browser) twice(path string, form url.Values) string {
	b.t.Helper()
	first, again := b.submit(path, form), b.submit(path, form)
	loc := first.header.Get("Location")
	if first.status != 303 || again.status != 303 || loc == "" || again.header.Get("Location") != loc {
		b.t.Fatalf("%s posted twice: %d to %q, then %d to %q", path, first.status, loc, again.status, again.header.Get("Location"))
	}
	return loc
}

var whsecAnyRE = regexp.MustCompile(`id="issued-secret">(whsec_[^<]+)<`)

// A newcomer's refresh and an impatient double click, through the real door on dynalite:
// each create form of the dashboard posted twice with the same body creates one thing; the
// first POST answers 303; a new secret is on the page it lands on for the first GET only
// (not for another session, not for a second GET), and never in the redirect.
func TestCreateFormsTakeEffectOnceOverTheGateway(t *testing.T) {
	s := startStack(t, nil)
	owner := s.signUp(t, "owner@once.example.com.bd", "Once shop", "")
	ctx := t.Context()
	var ws string
	all, err := s.api.Store.ListWorkspaces(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range all {
		if w.Name == "Once shop" {
			ws = w.ID
		}
	}
	if ws == "" {
		t.Fatal("no workspace Once shop")
	}
	countKeys := func() int {
		keys, err := s.api.Store.ListKeys(ctx, ws)
		if err != nil {
			t.Fatal(err)
		}
		return len(keys)
	}
	// Another admin of the workspace: their session cannot read the owner's landing.
	other := s.memberIn(t, ws, "admin@once.example.com.bd", auth.RoleAdmin)

	// An API key.
	kp := owner.get("/dashboard/keys")
	loc := owner.twice("/dashboard/keys", url.Values{"csrf": {csrf(t, kp)}, "once": {once(t, kp, "/dashboard/keys")},
		"name": {"server"}, "environment": {"sandbox"}, "scopes": {"payments:read", "documents:read", "documents:write"}})
	if n := countKeys(); n != 1 {
		t.Fatalf("the key form posted twice made %d keys", n)
	}
	if strings.Contains(loc, "sk_") || !strings.HasPrefix(loc, "/dashboard/keys?shown=") {
		t.Fatalf("the redirect: %q", loc)
	}
	if p := other.get(loc); p.status != 200 || strings.Contains(p.body, `id="issued-secret"`) {
		t.Fatalf("another session's GET of the landing: %d, shows a secret: %v", p.status, strings.Contains(p.body, `id="issued-secret"`))
	}
	p := owner.get(loc)
	m := secretRE.FindStringSubmatch(p.body)
	if p.status != 200 || m == nil {
		t.Fatalf("the landing does not show the key: %d\n%.3000s", p.status, p.body)
	}
	key := m[1]
	if r := s.api.Do(t, "GET", "/v1/merchant/context", key, ""); r.Status != 200 {
		t.Fatalf("the shown key does not authenticate: %d", r.Status)
	}
	if p := owner.get(loc); strings.Contains(p.body, key) || strings.Contains(p.body, `id="issued-secret"`) || !strings.Contains(p.body, "shown once") {
		t.Fatalf("a second GET of the landing:\n%.3000s", p.body)
	}

	// Rolling it: one new key.
	kp = owner.get("/dashboard/keys")
	roll := regexp.MustCompile(`action="(/dashboard/keys/[^/"]+/roll)"`).FindStringSubmatch(kp.body)
	if roll == nil {
		t.Fatal("no roll form")
	}
	loc = owner.twice(roll[1], url.Values{"csrf": {csrf(t, kp)}, "once": {once(t, kp, roll[1])}, "grace": {"1h"}})
	if n := countKeys(); n != 2 {
		t.Fatalf("the roll form posted twice: %d keys, want 2", n)
	}
	if p := owner.get(loc); secretRE.FindStringSubmatch(p.body) == nil {
		t.Fatalf("the roll's landing does not show the new key:\n%.2000s", p.body)
	}
	if p := owner.get(loc); strings.Contains(p.body, `id="issued-secret"`) {
		t.Fatal("a second GET of the roll's landing shows the key again")
	}

	// A webhook signing secret.
	sp := owner.get("/dashboard/webhook-secrets")
	loc = owner.twice("/dashboard/webhook-secrets", url.Values{"csrf": {csrf(t, sp)}, "once": {once(t, sp, "/dashboard/webhook-secrets")},
		"environment": {"sandbox"}})
	secrets, _, err := s.api.Store.GetWebhookSecrets(ctx, ws, auth.Sandbox)
	if err != nil || len(secrets) != 1 {
		t.Fatalf("the secret form posted twice: %d secrets (%v)", len(secrets), err)
	}
	if p := owner.get(loc); whsecAnyRE.FindStringSubmatch(p.body) == nil {
		t.Fatalf("the landing does not show the webhook secret:\n%.2000s", p.body)
	}
	if p := owner.get(loc); strings.Contains(p.body, "whsec_") || !strings.Contains(p.body, "shown once") {
		t.Fatal("a second GET of the secret's landing shows it again")
	}

	// An invitation: one invitation, one email.
	tp := owner.get("/dashboard/team")
	owner.twice("/dashboard/team/invites", url.Values{"csrf": {csrf(t, tp)}, "once": {once(t, tp, "/dashboard/team/invites")},
		"email": {"new@once.example.com.bd"}, "role": {"developer"}})
	invites, err := s.api.Store.ListInvites(ctx, ws)
	if err != nil || len(invites) != 1 {
		t.Fatalf("the invitation form posted twice: %d invitations (%v)", len(invites), err)
	}
	mails, err := devstack.ReceivedMail(ctx, s.ses.Endpoint)
	if err != nil {
		t.Fatal(err)
	}
	if n := len(devstack.MailTo(mails, "new@once.example.com.bd")); n != 1 {
		t.Fatalf("the invitation form posted twice sent %d emails", n)
	}

	// A document and a customer (their forms carry the API's Idempotency-Key).
	ip := owner.get("/dashboard/invoices/new")
	f := formValues(t, ip)
	f.Set("reference", "INV-ONCE-1")
	f.Set("item-0-title", "Rice")
	f.Set("item-0-quantity", "1")
	f.Set("item-0-unit_amount", "500")
	owner.twice("/dashboard/invoices", f)
	docs, _, err := s.api.Store.ListDocuments(ctx, document.ListQuery{WorkspaceID: ws, Environment: auth.Sandbox, Kind: document.Invoices, Limit: 10})
	if err != nil || len(docs) != 1 {
		t.Fatalf("the invoice form posted twice: %d invoices (%v)", len(docs), err)
	}
	cp := owner.get("/dashboard/customers/new")
	f = url.Values{"csrf": {csrf(t, cp)}, "reference": {"CUST-ONCE"}, "name": {"Rahim"}}
	for _, m := range hiddenRE.FindAllStringSubmatch(cp.body, -1) {
		if m[1] != "csrf" {
			f.Set(m[1], m[2])
		}
	}
	owner.twice("/dashboard/customers", f)
	custs, _, err := s.api.Store.ListDocuments(ctx, document.ListQuery{WorkspaceID: ws, Environment: auth.Sandbox, Kind: document.Customers, Limit: 10})
	if err != nil || len(custs) != 1 {
		t.Fatalf("the customer form posted twice: %d customers (%v)", len(custs), err)
	}
}
