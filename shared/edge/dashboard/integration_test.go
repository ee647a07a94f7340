package dashboard_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/takapay/payments/shared/edge/dashboard"
	"github.com/takapay/payments/shared/local/devstack"
	"github.com/takapay/payments/shared/local/localapi"
)

// The dashboard over the local gateway: the real handlers on dynalite and aws-ses-v2-local
// (mail read back from it), as a browser's forms would post them.

type stack struct {
	api *localapi.TestAPI
	ses *devstack.Server
}

func startStack(t *testing.T, env map[string]string) *stack {
	t.Helper()
	devstack.RequireServers(t)
	ses := devstack.StartTestSES(t)
	if env == nil {
		env = map[string]string{}
	}
	env["SES_ENDPOINT"] = ses.Endpoint
	env["MAIL_FROM"] = "Takapay <no-reply@takapay.localhost>"
	api := localapi.StartTestAPI(t, localapi.Options{Env: env, Localhost: true})
	return &stack{api: api, ses: ses}
}

// clearOfWindowEdge waits, when fewer than need remain before the next edge of the form
// limits' fixed windows (aligned to multiples of FormWindow since the Unix epoch, as every
// instance aligns them), until that edge has passed: a test that counts a window's posts to
// its limit must make them all inside one window, or the new window would admit the post
// the test expects refused (what failed one CI run in a hundred).
func clearOfWindowEdge(t *testing.T, need time.Duration) {
	t.Helper()
	w := dashboard.FormWindow.Nanoseconds()
	if left := time.Duration(w - time.Now().UnixNano()%w); left < need {
		t.Logf("waiting %s for the form limits' window to turn", left.Round(time.Second))
		time.Sleep(left + time.Second)
	}
}

// browser is one person's cookie jar, posting forms with the headers a browser sends.
type browser struct {
	t      *testing.T
	s      *stack
	c      *http.Client
	origin string
}

func (s *stack) browser(t *testing.T) *browser {
	jar, _ := cookiejar.New(nil)
	return &browser{t: t, s: s, c: &http.Client{Jar: jar, Timeout: 30 * time.Second}, origin: s.api.URL}
}

type page struct {
	status int
	url    string
	header http.Header
	body   string
}

func (b *browser) do(req *http.Request) *page {
	b.t.Helper()
	req.Header.Set("Accept", "text/html")
	resp, err := b.c.Do(req)
	if err != nil {
		b.t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	return &page{status: resp.StatusCode, url: resp.Request.URL.String(), header: resp.Header, body: string(body)}
}

func (b *browser) get(path string) *page {
	b.t.Helper()
	if !strings.HasPrefix(path, "http") {
		path = b.s.api.URL + path
	}
	req, _ := http.NewRequest("GET", path, nil)
	return b.do(req)
}

// post sends a form the way a same-origin page does; headers override (name, value pairs).
func (b *browser) post(path string, form url.Values, headers ...string) *page {
	b.t.Helper()
	req, _ := http.NewRequest("POST", b.s.api.URL+path, strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Origin", b.origin)
	req.Header.Set("Sec-Fetch-Site", "same-origin")
	for i := 0; i+1 < len(headers); i += 2 {
		if headers[i+1] == "" {
			req.Header.Del(headers[i])
		} else {
			req.Header.Set(headers[i], headers[i+1])
		}
	}
	return b.do(req)
}

var (
	csrfRE   = regexp.MustCompile(`name="csrf" value="([^"]+)"`)
	actionRE = regexp.MustCompile(`<form method="post"[^>]* action="([^"]+)"`)
)

// once returns the one-use token (dashboard/once.go) of the first form on p posting to action.
func once(t *testing.T, p *page, action string) string {
	t.Helper()
	m := regexp.MustCompile(`action="` + regexp.QuoteMeta(action) + `"><input type="hidden" name="csrf" value="[^"]*"><input type="hidden" name="once" value="([^"]+)">`).FindStringSubmatch(p.body)
	if m == nil {
		t.Fatalf("no one-use token in a form to %s on %s (%d):\n%.2000s", action, p.url, p.status, p.body)
	}
	return m[1]
}

func csrf(t *testing.T, p *page) string {
	t.Helper()
	m := csrfRE.FindStringSubmatch(p.body)
	if m == nil {
		t.Fatalf("no csrf on %s (%d):\n%.2000s", p.url, p.status, p.body)
	}
	return m[1]
}

// mailLink waits for the newest email to addr with a link to path and returns the link's
// path and query.
func (s *stack) mailLink(t *testing.T, addr, path string, after int) (string, int) {
	t.Helper()
	re := regexp.MustCompile(`https?://[^\s"<>]*` + regexp.QuoteMeta(path) + `\?token=[A-Za-z0-9_%-]+`)
	for i := 0; i < 100; i++ {
		mails, err := devstack.ReceivedMail(context.Background(), s.ses.Endpoint)
		if err != nil {
			t.Fatal(err)
		}
		to := devstack.MailTo(mails, addr)
		if len(to) > after {
			m := to[len(to)-1]
			link := re.FindString(m.Text)
			if link == "" {
				t.Fatalf("mail %q to %s has no %s link:\n%s", m.Subject, addr, path, m.Text)
			}
			u, _ := url.Parse(link)
			return u.Path + "?" + u.RawQuery, len(to)
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Fatalf("no mail to %s", addr)
	return "", 0
}

// signUp signs a person up and verifies their email; it returns their browser, signed in.
func (s *stack) signUp(t *testing.T, email, workspace, next string) *browser {
	t.Helper()
	b := s.browser(t)
	path := "/dashboard/sign-up"
	if next != "" {
		path += "?next=" + url.QueryEscape(next)
	}
	p := b.get(path)
	form := url.Values{"csrf": {csrf(t, p)}, "email": {email}, "password": {"a long sandbox passphrase"}, "next": {next}}
	if workspace != "" {
		form.Set("workspace", workspace)
	}
	p = b.post("/dashboard/sign-up", form)
	if p.status != 200 || !strings.Contains(p.url, "/dashboard/check-email") {
		t.Fatalf("sign up: %d at %s\n%.3000s", p.status, p.url, p.body)
	}
	link, _ := s.mailLink(t, email, "/dashboard/verify-email", 0)
	p = b.get(link)
	p = b.post(link, url.Values{"csrf": {csrf(t, p)}, "password": {"a long sandbox passphrase"}})
	if p.status != 200 {
		t.Fatalf("verify: %d at %s\n%.3000s", p.status, p.url, p.body)
	}
	return b
}

var secretRE = regexp.MustCompile(`id="issued-secret">(sk_sandbox_[A-Za-z0-9]+)<`)

func TestDashboardOverTheGateway(t *testing.T) {
	s := startStack(t, nil)
	owner := s.signUp(t, "owner@shop.example.com.bd", "Shop <BD>", "")
	home := owner.get("/dashboard")
	if home.status != 200 || !strings.Contains(home.body, "Shop &lt;BD&gt;") || !strings.Contains(home.body, `id="nav-keys"`) {
		t.Fatalf("owner's overview: %d\n%.3000s", home.status, home.body)
	}

	// A sandbox key, its secret shown once; it creates a payment; revoked, it is refused.
	keys := owner.get("/dashboard/keys")
	p := owner.post("/dashboard/keys", url.Values{"csrf": {csrf(t, keys)}, "once": {once(t, keys, "/dashboard/keys")}, "name": {"server"},
		"environment": {"sandbox"}, "scopes": {"payments:write", "payments:read"}})
	m := secretRE.FindStringSubmatch(p.body)
	if p.status != 200 || !strings.Contains(p.url, "/dashboard/keys?shown=") || m == nil {
		t.Fatalf("create key: %d\n%.3000s", p.status, p.body)
	}
	key := m[1]
	create := func() int {
		r := s.api.Do(t, "POST", "/v1/payment/create", key, `{"amount": 10}`, "Idempotency-Key", fmt.Sprintf("dash-%d", time.Now().UnixNano()))
		return r.Status
	}
	if st := create(); st != 201 {
		t.Fatalf("payment create with the dashboard's key: %d", st)
	}
	if again := owner.get("/dashboard/keys"); strings.Contains(again.body, key) {
		t.Fatal("the key list shows the secret again")
	}
	id := regexp.MustCompile(`action="(/dashboard/keys/[^/"]+/revoke)"`).FindStringSubmatch(owner.get("/dashboard/keys").body)
	if id == nil {
		t.Fatal("no revoke form")
	}
	// An attacker's page cannot revoke it: another origin, a cross-site fetch, no token.
	keys = owner.get("/dashboard/keys")
	tok := csrf(t, keys)
	for name, h := range map[string][]string{
		"evil origin": {"Origin", "https://evil.example"}, "cross-site": {"Sec-Fetch-Site", "cross-site"}, "no origin": {"Origin", ""},
	} {
		if p := owner.post(id[1], url.Values{"csrf": {tok}}, h...); p.status != 403 {
			t.Errorf("%s revoke: %d", name, p.status)
		}
	}
	if p := owner.post(id[1], url.Values{"csrf": {"forged"}}); p.status != 403 {
		t.Errorf("forged token revoke: %d", p.status)
	}
	if st := create(); st != 201 {
		t.Fatalf("the key stopped working after refused revokes: %d", st)
	}
	if p := owner.post(id[1], url.Values{"csrf": {tok}}); p.status != 200 || !strings.Contains(p.url, "notice=revoked") {
		t.Fatalf("revoke: %d at %s", p.status, p.url)
	}
	if st := create(); st != 401 {
		t.Fatalf("payment create with the revoked key: %d (the tests' key cache is off)", st)
	}

	// Invite a developer, who signs up through the invitation and joins; they see the keys
	// but cannot create one.
	team := owner.get("/dashboard/team")
	p = owner.post("/dashboard/team/invites", url.Values{"csrf": {csrf(t, team)}, "once": {once(t, team, "/dashboard/team/invites")},
		"email": {"dev@shop.example.com.bd"}, "role": {"developer"}})
	if p.status != 200 || !strings.Contains(p.url, "notice=invited") {
		t.Fatalf("invite: %d at %s\n%.2000s", p.status, p.url, p.body)
	}
	invite, _ := s.mailLink(t, "dev@shop.example.com.bd", "/dashboard/invite", 0)
	dev := s.signUp(t, "dev@shop.example.com.bd", "", invite)
	inv := dev.get(invite)
	p = dev.post(actionRE.FindAllStringSubmatch(inv.body, -1)[1][1], url.Values{"csrf": {csrf(t, inv)}})
	if p.status != 200 || !strings.Contains(p.body, "Shop &lt;BD&gt;") || !strings.Contains(p.body, `id="role">Developer`) {
		t.Fatalf("accept: %d at %s\n%.3000s", p.status, p.url, p.body)
	}
	dk := dev.get("/dashboard/keys")
	if dk.status != 200 || strings.Contains(dk.body, `id="create-key-form"`) {
		t.Errorf("developer's keys page: %d, create form shown", dk.status)
	}
	if p := dev.post("/dashboard/keys", url.Values{"csrf": {csrf(t, dk)}, "name": {"x"}, "environment": {"sandbox"}, "scopes": {"payments:read"}}); p.status != 403 {
		t.Errorf("developer creates a key: %d", p.status)
	}
	if p := dev.get("/dashboard/activity"); p.status != 403 {
		t.Errorf("developer reads activity: %d", p.status)
	}
	act := owner.get("/dashboard/activity")
	for _, want := range []string{"Key created", "Key revoked", "Invitation sent", "owner@shop.example.com.bd"} {
		if !strings.Contains(act.body, want) {
			t.Errorf("activity page lacks %q", want)
		}
	}

	// The developer forgets their password: the reset link from the email sets a new one,
	// ends their sessions, and the new password signs in.
	fp := dev.get("/dashboard/forgot-password")
	if p := dev.post("/dashboard/forgot-password", url.Values{"csrf": {csrf(t, fp)}, "email": {"dev@shop.example.com.bd"}}); !strings.Contains(p.url, "check-email?for=reset") {
		t.Fatalf("forgot: %d at %s", p.status, p.url)
	}
	reset, _ := s.mailLink(t, "dev@shop.example.com.bd", "/dashboard/reset-password", 0)
	rp := dev.get(reset)
	if p := dev.post(reset, url.Values{"csrf": {csrf(t, rp)}, "password": {"password"}}); p.status != 422 || !strings.Contains(p.body, `id="f-password-error"`) {
		t.Errorf("reset to a common password: %d", p.status)
	}
	rp = dev.get(reset)
	if p := dev.post(reset, url.Values{"csrf": {csrf(t, rp)}, "password": {"a brand new sandbox passphrase"}}); !strings.Contains(p.url, "notice=reset") {
		t.Fatalf("reset: %d at %s\n%.2000s", p.status, p.url, p.body)
	}
	if p := dev.get("/dashboard/keys"); !strings.Contains(p.url, "/dashboard/sign-in") {
		t.Errorf("after the reset the old session still opens the keys: %s", p.url)
	}
	again := dev.get(reset)
	if p := dev.post(reset, url.Values{"csrf": {csrf(t, again)}, "password": {"another new sandbox passphrase"}}); p.status != 404 {
		t.Errorf("a used reset link: %d", p.status)
	}
	si := dev.get("/dashboard/sign-in")
	if p := dev.post("/dashboard/sign-in", url.Values{"csrf": {csrf(t, si)}, "email": {"dev@shop.example.com.bd"},
		"password": {"a brand new sandbox passphrase"}}); !strings.HasSuffix(p.url, "/dashboard") {
		t.Errorf("sign in with the new password: %d at %s", p.status, p.url)
	}

	// Ten wrong passwords: the account is limited, 429 with Retry-After.
	guesser := s.browser(t)
	var last *page
	for i := 0; i < 10; i++ {
		sp := guesser.get("/dashboard/sign-in")
		last = guesser.post("/dashboard/sign-in", url.Values{"csrf": {csrf(t, sp)}, "email": {"owner@shop.example.com.bd"},
			"password": {fmt.Sprintf("wrong guess number %d", i)}})
	}
	if last.status != 429 || last.header.Get("Retry-After") == "" {
		t.Fatalf("after ten wrong passwords: %d, Retry-After %q", last.status, last.header.Get("Retry-After"))
	}

	// Sign out ends the session on the server: the old cookie no longer opens a page.
	home = owner.get("/dashboard")
	if p := owner.post("/dashboard/sign-out", url.Values{"csrf": {csrf(t, home)}}); !strings.Contains(p.url, "/dashboard/sign-in") {
		t.Fatalf("sign out: %d at %s", p.status, p.url)
	}
	if p := owner.get("/dashboard/keys"); !strings.Contains(p.url, "/dashboard/sign-in") {
		t.Errorf("after sign out, keys: %d at %s", p.status, p.url)
	}
}

// make dev's seeded owner (.dev/credentials.json: dashboard_email, dashboard_password)
// signs in with the sign-in form.
func TestSeededOwnerSignsIn(t *testing.T) {
	s := startStack(t, nil)
	c := s.api.Creds
	if c.DashboardEmail == "" || len(c.DashboardPassword) < 12 {
		t.Fatalf("seeded dashboard credentials: %q / %d characters", c.DashboardEmail, len(c.DashboardPassword))
	}
	b := s.browser(t)
	p := b.get("/dashboard/sign-in")
	p = b.post("/dashboard/sign-in", url.Values{"csrf": {csrf(t, p)}, "email": {c.DashboardEmail}, "password": {c.DashboardPassword}})
	if p.status != 200 || !strings.HasSuffix(p.url, "/dashboard") || !strings.Contains(p.body, "Demo merchant (local)") ||
		!strings.Contains(p.body, `id="role">Owner`) {
		t.Fatalf("seeded owner's sign-in: %d at %s\n%.2000s", p.status, p.url, p.body)
	}
}
