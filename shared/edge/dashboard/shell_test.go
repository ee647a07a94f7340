package dashboard

import (
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/takapay/payments/shared/auth"
	"github.com/takapay/payments/shared/foundation/money"
	"github.com/takapay/payments/shared/foundation/page"
	"github.com/takapay/payments/shared/foundation/page/pagetest"
	"github.com/takapay/payments/shared/foundation/web"
	"github.com/takapay/payments/shared/payment"
)

// The navigation is a <details> menu (no script needed) listing what the role may see, each
// link with its nav-* id, the current page marked aria-current and named in the summary.
func TestNavMenuByRole(t *testing.T) {
	all := []string{"nav-", "nav-payments", "nav-invoices", "nav-payment-links", "nav-customers", "nav-webhooks",
		"nav-export", "nav-keys", "nav-webhook-secrets", "nav-team", "nav-activity", "nav-passkeys"}
	shown := func(role auth.Role, id string) bool {
		switch id {
		case "nav-keys", "nav-webhook-secrets":
			return role.Can(auth.ViewKeys)
		case "nav-activity":
			return role.Can(auth.ViewActivity)
		case "nav-", "nav-team", "nav-passkeys":
			return true
		}
		return role.Can(auth.ViewWorkspace)
	}
	for _, role := range auth.AllRoles {
		s, m := newService()
		tok := m.signIn("u-"+string(role), role)
		for _, pg := range []struct {
			path, current string
			h             web.HandlerFunc
		}{{"/dashboard", "nav-", s.Home}, {"/dashboard/team", "nav-team", s.TeamPage}} {
			b := body(do(t, pg.h, call{method: "GET", path: pg.path, cookies: []string{SessionCookie + "=" + tok}}))
			nav := between(b, `<nav class="nav"`, "</nav>")
			if !strings.Contains(nav, `<details class="menu" id="nav-menu"><summary id="nav-toggle">`) {
				t.Fatalf("%s %s: no details menu in\n%s", role, pg.path, nav)
			}
			for _, id := range all {
				if got := strings.Contains(nav, `id="`+id+`"`); got != shown(role, id) {
					t.Errorf("%s %s: %s shown %v, want %v", role, pg.path, id, got, shown(role, id))
				}
			}
			if n := strings.Count(nav, `aria-current="page"`); n != 1 ||
				!regexp.MustCompile(`id="`+pg.current+`" href="[^"]*" aria-current="page"`).MatchString(nav) {
				t.Errorf("%s %s: aria-current %d times, want once on #%s:\n%s", role, pg.path, n, pg.current, nav)
			}
			want := map[string]string{"/dashboard": "Menu · Overview", "/dashboard/team": "Menu · Team"}[pg.path]
			if !strings.Contains(nav, `id="nav-toggle">`+want+`</summary>`) {
				t.Errorf("%s %s: summary is not %q:\n%s", role, pg.path, want, nav)
			}
		}
	}
}

// The dashboard's footer is its own in both languages, not the payer pages' "Secure checkout".
func TestDashboardFooter(t *testing.T) {
	s, m := newService()
	tok := m.signIn("owner", auth.RoleOwner)
	for _, l := range []page.Lang{page.EN, page.BN} {
		want := map[page.Lang]string{page.EN: "Takapay dashboard · Sandbox", page.BN: "Takapay ড্যাশবোর্ড · স্যান্ডবক্স"}[l]
		for name, b := range map[string]string{
			"overview": body(do(t, s.Home, call{method: "GET", path: "/dashboard", query: map[string]string{"lang": string(l)},
				cookies: []string{SessionCookie + "=" + tok}})),
			"sign-in": body(do(t, s.SignInPage, call{method: "GET", path: "/dashboard/sign-in", query: map[string]string{"lang": string(l)}})),
		} {
			if !strings.Contains(b, `<footer class="footer">`+want+`</footer>`) || strings.Contains(b, l.T("page.footer")) {
				t.Errorf("%s (%s): footer is not %q:\n%s", name, l, want, between(b, "<footer", "</footer>"))
			}
		}
	}
}

// GET /dashboard/ (and any page with a trailing slash that reaches its function) is sent to
// the one address without it, the query kept, signed in or not.
func TestTrailingSlashRedirects(t *testing.T) {
	s, m := newService()
	tok := m.signIn("owner", auth.RoleOwner)
	for _, c := range []struct {
		path    string
		query   map[string]string
		cookies []string
		want    string
	}{
		{"/dashboard/", nil, nil, "/dashboard"},
		{"/dashboard/", map[string]string{"lang": "bn", "env": "live"}, []string{SessionCookie + "=" + tok}, "/dashboard?env=live&lang=bn"},
		{"/dashboard/keys/", map[string]string{"lang": "bn"}, []string{SessionCookie + "=" + tok}, "/dashboard/keys?lang=bn"},
	} {
		r := do(t, s.Home, call{method: "GET", path: c.path, query: c.query, cookies: c.cookies})
		if r.Status != 308 || r.Headers["Location"] != c.want || r.Headers["Cache-Control"] != "no-store" {
			t.Errorf("GET %s %v: %d to %q, want 308 to %q", c.path, c.query, r.Status, r.Headers["Location"], c.want)
		}
	}
	if r := do(t, s.Home, call{method: "GET", path: "/dashboard", cookies: []string{SessionCookie + "=" + tok}}); r.Status != 200 {
		t.Errorf("GET /dashboard: %d", r.Status)
	}
}

// A Bangla page's forms carry novalidate: the browser's own tooltips (in the browser's
// language) never show; the server answers in Bangla. An English page keeps the browser's
// checks.
func TestBanglaFormsNovalidate(t *testing.T) {
	s, m := newService()
	tok := m.signIn("owner", auth.RoleOwner)
	session := []string{SessionCookie + "=" + tok}
	form := regexp.MustCompile(`<form [^>]*>`)
	for _, pg := range []struct {
		name    string
		h       web.HandlerFunc
		path    string
		query   map[string]string
		cookies []string
	}{
		{"sign-in", s.SignInPage, "/dashboard/sign-in", nil, nil},
		{"sign-up", s.SignUpPage, "/dashboard/sign-up", nil, nil},
		{"forgot", s.ForgotPage, "/dashboard/forgot-password", nil, nil},
		{"reset", s.ResetPage, "/dashboard/reset-password", map[string]string{"token": "t"}, nil},
		{"verify", s.VerifyPage, "/dashboard/verify-email", map[string]string{"token": "good"}, nil},
		{"overview", s.Home, "/dashboard", nil, session},
	} {
		for _, l := range []string{"en", "bn"} {
			q := map[string]string{"lang": l}
			for k, v := range pg.query {
				q[k] = v
			}
			b := body(do(t, pg.h, call{method: "GET", path: pg.path, query: q, cookies: pg.cookies}))
			forms := form.FindAllString(b, -1)
			if len(forms) == 0 {
				t.Fatalf("%s (%s): no form", pg.name, l)
			}
			for _, f := range forms {
				if got := strings.Contains(f, " novalidate"); got != (l == "bn") {
					t.Errorf("%s (%s): %s novalidate = %v", pg.name, l, f, got)
				}
			}
		}
	}
	// The server's own check answers in Bangla what the browser no longer checks.
	pre := randomToken()
	r := do(t, s.SignIn, call{method: "POST", path: "/dashboard/sign-in", query: map[string]string{"lang": "bn"},
		cookies: []string{preCSRFCookie + "=" + pre}, form: map[string][]string{"csrf": {pre}, "email": {""}, "password": {""}}})
	if r.Status != 422 || !strings.Contains(body(r), messagesBN["dash.rule.required"]) {
		t.Errorf("empty Bangla sign-in: %d\n%s", r.Status, body(r))
	}
}

// between is s from the first from to the next to (inclusive), or "" when absent.
func between(s, from, to string) string {
	i := strings.Index(s, from)
	if i < 0 {
		return ""
	}
	j := strings.Index(s[i:], to)
	if j < 0 {
		return s[i:]
	}
	return s[i : i+j+len(to)]
}

// golden holds the shell's pages with the inline stylesheet and script replaced by markers
// and every form's random token by "CSRF" (go test -run TestGolden -update rewrites them).
func golden(s *Service) pagetest.Golden {
	return pagetest.Golden{Dir: filepath.Join("testdata", "golden"), Markers: []pagetest.Marker{
		{Text: "<style>" + style.Source() + "</style>", Mark: "<style>@@page/assets/base.css + components.css + assets/dashboard.css@@</style>"},
		{Text: "<script>" + s.script().Source() + "</script>", Mark: "<script>@@assets/dashboard.js@@</script>"},
	}}
}

var tokenValue = regexp.MustCompile(`name="csrf" value="[^"]*"`)

// TestGolden holds the overview (a workspace with completed, pending, failed, cancelled and
// expired payments and a failing delivery) and the sign-in page, in both languages.
func TestGolden(t *testing.T) {
	now := time.Date(2026, 11, 27, 9, 0, 0, 0, time.UTC)
	at := func(d time.Duration) *time.Time { v := now.Add(-d); return &v }
	pay := func(id string, st payment.Status, amount int64, ref string, ago time.Duration) *payment.Payment {
		return &payment.Payment{InvoiceID: id, WorkspaceID: "ws1", Environment: auth.Sandbox, Status: st,
			AmountMinor: money.Paisa(amount), Reference: ref, CreatedAt: now.Add(-ago), ExpiresAt: now.Add(-ago + time.Hour)}
	}
	done := pay("01JDASHGOLDEN000000000000001", payment.Completed, 15000000, "ORDER-1001", 2*time.Hour)
	done.FinishedAt = at(time.Hour)
	done.Outbox = &payment.Delivery{Kind: "payment.completed", Status: payment.DeliveryFailed, Attempts: 12,
		LastAttemptAt: at(30 * time.Minute), LastHTTPStatus: 500, Detail: "https://shop.example.com.bd/hooks/takapay answered 500"}
	failed := pay("01JDASHGOLDEN000000000000002", payment.Failed, 250050, "ORDER-1002", 3*time.Hour)
	failed.Outbox = &payment.Delivery{Kind: "payment.failed", Status: payment.DeliveryPending, Attempts: 2,
		LastAttemptAt: at(10 * time.Minute), NextAttemptAt: now.Add(20 * time.Minute)}
	pays := []*payment.Payment{
		pay("01JDASHGOLDEN000000000000000", payment.Pending, 9900, "a-very-long-reference-without-any-spaces-that-must-wrap-on-a-phone", 5*time.Minute),
		done, failed,
		pay("01JDASHGOLDEN000000000000003", payment.Cancelled, 100000, "ORDER-1003", 4*time.Hour),
		pay("01JDASHGOLDEN000000000000004", payment.Pending, 50000, "ORDER-1004", 30*time.Hour), // expired
	}
	s, m := newService()
	s.Payments, s.Now = &fakePayments{all: pays}, func() time.Time { return now }
	tok := m.signIn("owner", auth.RoleOwner)
	pages := map[string]string{}
	for _, l := range []string{"en", "bn"} {
		home := do(t, s.Home, call{method: "GET", path: "/dashboard", query: map[string]string{"lang": l}, cookies: []string{SessionCookie + "=" + tok}})
		signIn := do(t, s.SignInPage, call{method: "GET", path: "/dashboard/sign-in", query: map[string]string{"lang": l}})
		if home.Status != 200 || signIn.Status != 200 {
			t.Fatalf("%s: overview %d, sign-in %d", l, home.Status, signIn.Status)
		}
		pages["overview-"+l] = tokenValue.ReplaceAllString(body(home), `name="csrf" value="CSRF"`)
		pages["sign-in-"+l] = tokenValue.ReplaceAllString(body(signIn), `name="csrf" value="CSRF"`)
	}
	if !strings.Contains(pages["overview-en"], "৳1,50,000.00") && !strings.Contains(pages["overview-en"], "৳150,000.00") {
		t.Fatalf("the overview lacks the completed payment's amount")
	}
	golden(s).CheckAll(t, pages)
}

// The export's days, left empty on a Bangla page (novalidate: the browser does not stop it),
// are answered in Bangla as a day to choose, not as a format to type.
func TestExportEmptyDayInBangla(t *testing.T) {
	s, m := newService()
	s.Payments = &fakePayments{}
	tok := m.signIn("owner", auth.RoleOwner)
	r := do(t, s.ExportCSV, call{method: "GET", path: "/dashboard/export.csv", query: map[string]string{"lang": "bn", "from": "", "to": "2026-11-20"},
		cookies: []string{SessionCookie + "=" + tok}})
	b := body(r)
	if r.Status != 422 || !strings.Contains(b, `<p class="field-error" id="export-from-error">একটি দিন বেছে নিন।</p>`) ||
		!strings.Contains(b, `<a href="#export-from">একটি দিন বেছে নিন।</a>`) || !strings.Contains(b, `id="export-form" action="/dashboard/export.csv" novalidate`) {
		t.Errorf("empty first day (bn): %d\n%s", r.Status, between(b, "<main", "</main>"))
	}
}
