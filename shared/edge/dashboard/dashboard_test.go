package dashboard

import (
	"context"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"unicode"

	"github.com/takapay/payments/shared/auth"
	"github.com/takapay/payments/shared/foundation/page"
	"github.com/takapay/payments/shared/foundation/web"
)

const origin = "https://pay.example.com.bd"

type call struct {
	method, path string
	params       map[string]string
	query        map[string]string
	form         url.Values
	cookies      []string
	headers      map[string]string
}

func newService() (*Service, *mem) {
	m := newMem()
	return &Service{Accounts: m, Team: m, Keys: m, Activity: m, Forms: &memForms{}}, m
}

// do calls h like the edge would, with a same-origin browser's headers unless overridden.
func do(t *testing.T, h web.HandlerFunc, c call) *web.Response {
	t.Helper()
	headers := map[string]string{"accept-language": "en"}
	if c.method == "POST" {
		headers["origin"] = origin
		headers["sec-fetch-site"] = "same-origin"
		headers["content-type"] = "application/x-www-form-urlencoded"
	}
	for k, v := range c.headers {
		if v == "-" {
			delete(headers, strings.ToLower(k))
			continue
		}
		headers[strings.ToLower(k)] = v
	}
	r := &web.Request{Method: c.method, Path: c.path, PathParams: c.params, Query: c.query, Headers: headers,
		Cookies: c.cookies, Body: []byte(c.form.Encode()), BaseURL: origin, SourceIP: "203.0.113.9"}
	if r.Query == nil {
		r.Query = map[string]string{}
	}
	resp, err := h(context.Background(), r)
	if err != nil {
		t.Fatalf("%s %s: %v", c.method, c.path, err)
	}
	return resp
}

func body(r *web.Response) string { return string(r.Raw) }

func setCookie(r *web.Response, name string) string {
	for _, c := range r.Cookies {
		if strings.HasPrefix(c, name+"=") {
			return c
		}
	}
	return ""
}

var csrfInput = regexp.MustCompile(`name="csrf" value="([^"]*)"`)

func csrfOf(t *testing.T, r *web.Response) string {
	t.Helper()
	m := csrfInput.FindStringSubmatch(body(r))
	if m == nil {
		t.Fatalf("no csrf field in the page:\n%s", body(r))
	}
	return m[1]
}

// A public form: its GET sets the double-submit cookie; the POST needs cookie and field equal,
// the exact Origin and a same-origin Sec-Fetch-Site. A good sign-in sets the session cookie.
func TestPublicFormCSRF(t *testing.T) {
	s, _ := newService()
	page := do(t, s.SignInPage, call{method: "GET", path: "/dashboard/sign-in"})
	pre := setCookie(page, preCSRFCookie)
	if pre == "" || !strings.Contains(pre, "HttpOnly") || !strings.Contains(pre, "Secure") {
		t.Fatalf("sign-in page's csrf cookie = %q", pre)
	}
	token := csrfOf(t, page)
	cookie := preCSRFCookie + "=" + token
	good := url.Values{"csrf": {token}, "email": {"owner@shop.com.bd"}, "password": {"correct horse battery"}}
	for name, c := range map[string]call{
		"no cookie":        {form: good},
		"other cookie":     {form: good, cookies: []string{preCSRFCookie + "=" + randomToken()}},
		"no field":         {form: url.Values{"email": {"a@b.cd"}, "password": {"x"}}, cookies: []string{cookie}},
		"cross-site fetch": {form: good, cookies: []string{cookie}, headers: map[string]string{"Sec-Fetch-Site": "cross-site"}},
		"same-site fetch":  {form: good, cookies: []string{cookie}, headers: map[string]string{"Sec-Fetch-Site": "same-site"}},
		"other origin":     {form: good, cookies: []string{cookie}, headers: map[string]string{"Origin": "https://evil.example"}},
		"lookalike origin": {form: good, cookies: []string{cookie}, headers: map[string]string{"Origin": origin + ".evil.example"}},
		"null origin":      {form: good, cookies: []string{cookie}, headers: map[string]string{"Origin": "null"}},
		"no origin":        {form: good, cookies: []string{cookie}, headers: map[string]string{"Origin": "-"}},
	} {
		c.method, c.path = "POST", "/dashboard/sign-in"
		r := do(t, s.SignIn, c)
		if r.Status != 403 || setCookie(r, SessionCookie) != "" {
			t.Errorf("%s: status %d, session cookie %q; want 403 and none", name, r.Status, setCookie(r, SessionCookie))
		}
	}
	r := do(t, s.SignIn, call{method: "POST", path: "/dashboard/sign-in", form: good, cookies: []string{cookie}})
	sc := setCookie(r, SessionCookie)
	if r.Status != 303 || r.Headers["Location"] != "/dashboard" {
		t.Fatalf("good sign-in: %d to %q", r.Status, r.Headers["Location"])
	}
	for _, attr := range []string{"HttpOnly", "Secure", "SameSite=Lax", "Path=/;"} {
		if !strings.Contains(sc+";", attr) {
			t.Errorf("session cookie %q lacks %s", sc, attr)
		}
	}
}

// A signed-in form needs the session's own token: another session's, or none, is 403.
func TestSessionFormCSRF(t *testing.T) {
	s, m := newService()
	admin := m.signIn("admin", auth.RoleAdmin)
	other := m.signIn("other", auth.RoleAdmin)
	keys := do(t, s.KeysPage, call{method: "GET", path: "/dashboard/keys", cookies: []string{SessionCookie + "=" + admin}})
	token := csrfOf(t, keys)
	if token != sessionCSRF(admin) || token == sessionCSRF(other) {
		t.Fatal("the page's token is not the session's")
	}
	form := func(tok string) url.Values {
		return url.Values{"csrf": {tok}, "once": {onceOf(t, keys, "create-key-form")}, "name": {"server"}, "environment": {"sandbox"}, "scopes": {"payments:write"}}
	}
	for name, c := range map[string]call{
		"no token":          {form: form("")},
		"other's token":     {form: form(sessionCSRF(other))},
		"pre-session token": {form: form(randomToken()), cookies: []string{SessionCookie + "=" + admin, preCSRFCookie + "=x"}},
		"cross-site":        {form: form(token), headers: map[string]string{"Sec-Fetch-Site": "cross-site"}},
		"other origin":      {form: form(token), headers: map[string]string{"Origin": "http://pay.example.com.bd"}},
	} {
		c.method, c.path = "POST", "/dashboard/keys"
		if c.cookies == nil {
			c.cookies = []string{SessionCookie + "=" + admin}
		}
		if r := do(t, s.CreateKey, c); r.Status != 403 {
			t.Errorf("%s: %d, want 403", name, r.Status)
		}
	}
	if n := len(m.keys["ws1"]); n != 0 {
		t.Fatalf("%d keys created by refused posts", n)
	}
	r := do(t, s.CreateKey, call{method: "POST", path: "/dashboard/keys", form: form(token), cookies: []string{SessionCookie + "=" + admin}})
	if r.Status != 303 || !strings.Contains(land(t, s.KeysPage, r, admin), "sk_sandbox_SECRETkey_1") {
		t.Fatalf("create: %d to %q", r.Status, r.Headers["Location"])
	}
	// Without a session, a page sends the browser to sign in and back.
	r = do(t, s.KeysPage, call{method: "GET", path: "/dashboard/keys"})
	if r.Status != 303 || r.Headers["Location"] != "/dashboard/sign-in?next=/dashboard/keys" {
		t.Errorf("no session: %d to %q", r.Status, r.Headers["Location"])
	}
}

// The server refuses what a role may not do, whatever the page showed (auth.Role.Can).
func TestRoleMatrix(t *testing.T) {
	type route struct {
		name   string
		method string
		path   string
		h      func(s *Service) web.HandlerFunc
		form   url.Values
		perm   auth.Permission
	}
	routes := []route{
		{"keys page", "GET", "/dashboard/keys", func(s *Service) web.HandlerFunc { return s.KeysPage }, nil, auth.ViewKeys},
		{"secrets page", "GET", "/dashboard/webhook-secrets", func(s *Service) web.HandlerFunc { return s.SecretsPage }, nil, auth.ViewKeys},
		{"create key", "POST", "/dashboard/keys", func(s *Service) web.HandlerFunc { return s.CreateKey },
			url.Values{"name": {"k"}, "environment": {"sandbox"}, "scopes": {"payments:read"}}, auth.ManageKeys},
		{"revoke key", "POST", "/dashboard/keys/key_1/revoke", func(s *Service) web.HandlerFunc { return s.RevokeKey }, url.Values{}, auth.ManageKeys},
		{"roll key", "POST", "/dashboard/keys/key_1/roll", func(s *Service) web.HandlerFunc { return s.RollKey }, url.Values{"grace": {"1h"}}, auth.ManageKeys},
		{"issue secret", "POST", "/dashboard/webhook-secrets", func(s *Service) web.HandlerFunc { return s.IssueSecret }, url.Values{"environment": {"sandbox"}}, auth.ManageKeys},
		{"invite", "POST", "/dashboard/team/invites", func(s *Service) web.HandlerFunc { return s.InviteMember },
			url.Values{"email": {"x@shop.com.bd"}, "role": {"developer"}}, auth.ManageTeam},
		{"change role", "POST", "/dashboard/team/members/u9/role", func(s *Service) web.HandlerFunc { return s.ChangeRole }, url.Values{"role": {"viewer"}}, auth.ManageTeam},
		{"remove", "POST", "/dashboard/team/members/u9/remove", func(s *Service) web.HandlerFunc { return s.RemoveMember }, url.Values{}, auth.ManageTeam},
		{"revoke invite", "POST", "/dashboard/team/invites/i1/revoke", func(s *Service) web.HandlerFunc { return s.RevokeInvite }, url.Values{}, auth.ManageTeam},
		{"activity", "GET", "/dashboard/activity", func(s *Service) web.HandlerFunc { return s.ActivityPage }, nil, auth.ViewActivity},
		{"transfer", "POST", "/dashboard/team/transfer", func(s *Service) web.HandlerFunc { return s.TransferOwnership }, url.Values{"user": {"u9"}}, auth.TransferOwnership},
		{"team page", "GET", "/dashboard/team", func(s *Service) web.HandlerFunc { return s.TeamPage }, nil, auth.ViewWorkspace},
	}
	for _, role := range auth.AllRoles {
		s, m := newService()
		tok := m.signIn("u-"+string(role), role)
		for _, rt := range routes {
			c := call{method: rt.method, path: rt.path, cookies: []string{SessionCookie + "=" + tok},
				params: map[string]string{"keyID": "key_1", "userID": "u9", "inviteID": "i1"}}
			if rt.form != nil {
				c.form = url.Values{"csrf": {sessionCSRF(tok)}, "once": {randomToken()}}
				for k, v := range rt.form {
					c.form[k] = v
				}
			}
			r := do(t, rt.h(s), c)
			allowed := role.Can(rt.perm)
			if got := r.Status != 403; got != allowed {
				t.Errorf("%s %s: status %d; Can(%s) = %v", role, rt.name, r.Status, rt.perm, allowed)
			}
		}
		// The navigation shows only what the role allows.
		home := body(do(t, s.Home, call{method: "GET", path: "/dashboard", cookies: []string{SessionCookie + "=" + tok}}))
		for id, perm := range map[string]auth.Permission{`id="nav-keys"`: auth.ViewKeys, `id="nav-activity"`: auth.ViewActivity} {
			if strings.Contains(home, id) != role.Can(perm) {
				t.Errorf("%s: overview shows %s = %v, Can(%s) = %v", role, id, strings.Contains(home, id), perm, role.Can(perm))
			}
		}
		keys := body(do(t, s.KeysPage, call{method: "GET", path: "/dashboard/keys", cookies: []string{SessionCookie + "=" + tok}}))
		if role.Can(auth.ViewKeys) && strings.Contains(keys, `id="create-key-form"`) != role.Can(auth.ManageKeys) {
			t.Errorf("%s: keys page create form shown = %v", role, strings.Contains(keys, `id="create-key-form"`))
		}
	}
}

func TestValidationAndLimits(t *testing.T) {
	s, _ := newService()
	tok := randomToken()
	ck := []string{preCSRFCookie + "=" + tok}
	r := do(t, s.SignUp, call{method: "POST", path: "/dashboard/sign-up", cookies: ck,
		form: url.Values{"csrf": {tok}, "email": {"not an email"}, "password": {"short"}, "workspace": {""}}})
	if r.Status != 422 {
		t.Fatalf("sign-up: %d", r.Status)
	}
	for _, want := range []string{`id="f-email-error"`, `id="f-workspace-error"`, `aria-invalid="true"`, `id="error-summary"`} {
		if !strings.Contains(body(r), want) {
			t.Errorf("sign-up 422 lacks %s", want)
		}
	}
	// The service's own rule (password length), worded by the page, in Bangla too.
	r = do(t, s.SignUp, call{method: "POST", path: "/dashboard/sign-up", cookies: ck, query: map[string]string{"lang": "bn"},
		form: url.Values{"csrf": {tok}, "email": {"a@shop.com.bd"}, "password": {"short"}, "workspace": {"Shop"}}})
	if r.Status != 422 || !strings.Contains(body(r), messagesBN["dash.rule.password.min_length"]) {
		t.Errorf("sign-up bn: %d\n%s", r.Status, body(r))
	}
	for i := 0; i < 10; i++ {
		r = do(t, s.SignIn, call{method: "POST", path: "/dashboard/sign-in", cookies: ck,
			form: url.Values{"csrf": {tok}, "email": {"a@shop.com.bd"}, "password": {"wrong password!"}}})
		if r.Status != 422 || !strings.Contains(body(r), messagesEN["dash.sign_in.bad"]) {
			t.Fatalf("wrong password %d: %d", i, r.Status)
		}
	}
	r = do(t, s.SignIn, call{method: "POST", path: "/dashboard/sign-in", cookies: ck,
		form: url.Values{"csrf": {tok}, "email": {"a@shop.com.bd"}, "password": {"wrong password!"}}})
	if r.Status != 429 || r.Headers["Retry-After"] != "90" || !strings.Contains(body(r), "2 minutes") {
		t.Errorf("limited: %d, Retry-After %q\n%s", r.Status, r.Headers["Retry-After"], body(r))
	}
	// An open redirect through next is refused.
	for _, next := range []string{"https://evil.example", "//evil.example", "/dashboardevil", "/v1/x", "/dashboard/../v1/x", "/dashboard/%2e%2e/v1"} {
		if got := safeNext(next); got != "/dashboard" {
			t.Errorf("safeNext(%q) = %q", next, got)
		}
	}
	if got := safeNext("/dashboard/invite/abc"); got != "/dashboard/invite/abc" {
		t.Errorf("safeNext(invite) = %q", got)
	}
}

// Every page escapes what people typed (a workspace named "Shop <BD>", a user agent
// "<script>") and carries the kit's security headers.
func TestPagesEscapeAndHeaders(t *testing.T) {
	s, m := newService()
	tok := m.signIn("owner", auth.RoleOwner)
	for _, h := range []web.HandlerFunc{s.Home, s.KeysPage, s.TeamPage, s.ActivityPage, s.SecretsPage} {
		for _, lang := range []string{"en", "bn"} {
			r := do(t, h, call{method: "GET", path: "/dashboard", query: map[string]string{"lang": lang},
				cookies: []string{SessionCookie + "=" + tok}})
			b := body(r)
			if r.Status != 200 || strings.Contains(b, "<BD>") || strings.Contains(b, "<script>\"") || strings.Contains(b, ">dash.") {
				t.Errorf("%s page: %d, unescaped or untranslated:\n%s", lang, r.Status, b)
			}
			csp := r.Headers["Content-Security-Policy"]
			if !strings.Contains(csp, "default-src 'none'") || !strings.Contains(csp, "form-action 'self'") ||
				!strings.Contains(csp, "frame-ancestors 'none'") || r.Headers["Cache-Control"] != "no-store" {
				t.Errorf("headers: %v", r.Headers)
			}
			if !strings.Contains(b, `<html lang="`+lang+`"`) {
				t.Errorf("page not in %s", lang)
			}
		}
	}
}

// The two catalogues have the same keys and placeholders; Bangla is in Bangla script with no
// Western digits; English has no Bangla.
func TestCatalogues(t *testing.T) {
	ph := regexp.MustCompile(`\{[a-z_]+\}`)
	messagesEN, messagesBN := catalogue(page.EN), catalogue(page.BN) // every group is in (messages_groups_test.go)
	for k, en := range messagesEN {
		bn, ok := messagesBN[k]
		if !ok {
			t.Errorf("%s: no Bangla", k)
			continue
		}
		if a, b := ph.FindAllString(en, -1), ph.FindAllString(bn, -1); strings.Join(sorted(a), ",") != strings.Join(sorted(b), ",") {
			t.Errorf("%s: placeholders %v vs %v", k, a, b)
		}
		bengali := false
		for _, r := range ph.ReplaceAllString(bn, "") {
			if r >= '0' && r <= '9' {
				t.Errorf("%s: Western digit in Bangla %q", k, bn)
				break
			}
			if unicode.Is(unicode.Bengali, r) {
				bengali = true
			}
		}
		if !bengali {
			t.Errorf("%s: Bangla message %q has no Bangla", k, bn)
		}
		for _, r := range en {
			if unicode.Is(unicode.Bengali, r) {
				t.Errorf("%s: English message has Bangla", k)
				break
			}
		}
	}
	for k := range messagesBN {
		if _, ok := messagesEN[k]; !ok {
			t.Errorf("%s: Bangla only", k)
		}
	}
}

func sorted(s []string) []string {
	out := append([]string(nil), s...)
	for i := range out {
		for j := i + 1; j < len(out); j++ {
			if out[j] < out[i] {
				out[i], out[j] = out[j], out[i]
			}
		}
	}
	return out
}

// Where the dashboard's origin is https (HostCookies, set from the configured origin), the
// session and form-token cookies are __Host- cookies: Secure, Path=/, no Domain; the plain
// names are not read. Plain http (make dev) keeps the plain names.
func TestHostCookies(t *testing.T) {
	s, m := newService()
	s.HostCookies = true
	page := do(t, s.SignInPage, call{method: "GET", path: "/dashboard/sign-in"})
	pre := setCookie(page, "__Host-takapay_csrf")
	if pre == "" || setCookie(page, preCSRFCookie) != "" || !strings.Contains(pre, "; Path=/;") || !strings.Contains(pre, "Secure") || strings.Contains(pre, "Domain") {
		t.Fatalf("form-token cookie %q (cookies %q)", pre, page.Cookies)
	}
	token := csrfOf(t, page)
	good := url.Values{"csrf": {token}, "email": {"owner@shop.com.bd"}, "password": {"correct horse battery"}}
	// The plain name is not the form token any more.
	if r := do(t, s.SignIn, call{method: "POST", path: "/dashboard/sign-in", form: good, cookies: []string{preCSRFCookie + "=" + token}}); r.Status != 403 {
		t.Fatalf("sign-in with the plain form-token cookie: %d", r.Status)
	}
	r := do(t, s.SignIn, call{method: "POST", path: "/dashboard/sign-in", form: good, cookies: []string{"__Host-takapay_csrf=" + token}})
	sc := setCookie(r, "__Host-takapay_session")
	if r.Status != 303 || sc == "" || strings.Contains(sc, "Domain") {
		t.Fatalf("sign-in: %d, cookies %q", r.Status, r.Cookies)
	}
	for _, attr := range []string{"HttpOnly", "Secure", "SameSite=Lax", "; Path=/;"} {
		if !strings.Contains(sc+";", attr) {
			t.Errorf("session cookie %q lacks %s", sc, attr)
		}
	}
	sess := strings.TrimPrefix(strings.SplitN(sc, ";", 2)[0], "__Host-takapay_session=")
	if r := do(t, s.Home, call{method: "GET", path: "/dashboard", cookies: []string{"__Host-takapay_session=" + sess}}); r.Status != 200 {
		t.Fatalf("home with the __Host- cookie: %d", r.Status)
	}
	if r := do(t, s.Home, call{method: "GET", path: "/dashboard", cookies: []string{SessionCookie + "=" + sess}}); r.Status != 303 {
		t.Fatalf("home with the plain name on an https dashboard: %d", r.Status)
	}

	// Plain http keeps today's names.
	s2 := &Service{Accounts: m, Team: m, Keys: m, Activity: m, InsecureCookies: true}
	page = do(t, s2.SignInPage, call{method: "GET", path: "/dashboard/sign-in"})
	if c := setCookie(page, preCSRFCookie); c == "" || strings.Contains(c, "Secure") || !strings.Contains(c, "Path=/dashboard") {
		t.Fatalf("http form-token cookie %q", page.Cookies)
	}
}

// Two session cookies on one request (the same name twice, or both names) are refused, not
// resolved by order: the page goes to sign in and the session cookies are cleared.
func TestTwoSessionCookies(t *testing.T) {
	s, m := newService()
	a, b := m.signIn("owner", auth.RoleOwner), m.signIn("viewer", auth.RoleViewer)
	for name, cookies := range map[string][]string{
		"same name twice":      {SessionCookie + "=" + a, SessionCookie + "=" + b},
		"the same value twice": {SessionCookie + "=" + a, SessionCookie + "=" + a},
		"both names":           {"__Host-takapay_session=" + b, SessionCookie + "=" + a},
		"in one entry":         {SessionCookie + "=" + a + "; " + SessionCookie + "=" + b},
	} {
		r := do(t, s.Home, call{method: "GET", path: "/dashboard", cookies: cookies})
		if r.Status != 303 || !strings.HasPrefix(r.Headers["Location"], "/dashboard/sign-in") || !strings.Contains(setCookie(r, SessionCookie), "Max-Age=0") {
			t.Errorf("%s: %d to %q, cookies %q", name, r.Status, r.Headers["Location"], r.Cookies)
		}
	}
	if r := do(t, s.Home, call{method: "GET", path: "/dashboard", cookies: []string{SessionCookie + "=" + a}}); r.Status != 200 {
		t.Fatalf("one cookie: %d", r.Status)
	}
}
