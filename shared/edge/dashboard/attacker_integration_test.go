package dashboard_test

import (
	"context"
	"io"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/takapay/payments/shared/auth"
	"github.com/takapay/payments/shared/local/devstack"
	"github.com/takapay/payments/shared/passkey/record"
)

// Issue 30, items 3 and 4: what an attacker tries through the real doors (the gateway, the
// dashboard and passkeys functions on dynalite, the emails read back from aws-ses-v2-local).

// sessionToken is the browser's session cookie value (plain http: the plain name).
func (b *browser) sessionToken() string {
	b.t.Helper()
	u, _ := url.Parse(b.s.api.URL + "/dashboard")
	for _, c := range b.c.Jar.Cookies(u) {
		if c.Name == auth.SessionCookie {
			return c.Value
		}
	}
	b.t.Fatal("no session cookie")
	return ""
}

// A stolen session cookie alone cannot add a passkey: once the session's proof (its sign-in)
// is older than 5 minutes, the passkeys page begins no ceremony and asks for the password,
// and a ceremony begun earlier cannot be finished; the password typed again brings the
// form back.
func TestStolenSessionCannotAddPasskey(t *testing.T) {
	s := startStack(t, nil)
	owner := s.signUp(t, "owner@stolen.example.com.bd", "Stolen Shop", "")
	ctx := context.Background()

	// Within 5 minutes of the sign-in the form is there (a ceremony begun).
	p := owner.get("/dashboard/passkeys")
	m := regexp.MustCompile(`name="ceremony" value="([^"]+)"`).FindStringSubmatch(p.body)
	if p.status != 200 || m == nil || strings.Contains(p.body, `id="passkey-confirm-form"`) {
		t.Fatalf("fresh session's passkeys page: %d\n%.3000s", p.status, p.body)
	}
	ceremony := m[1]

	// The cookie is stolen; the attacker uses it after the proof went stale (the session item
	// says the last proof was 6 minutes ago).
	hash := auth.HashSessionToken(owner.sessionToken())
	if err := s.api.Store.ProveSession(ctx, hash, time.Now().Add(-6*time.Minute)); err != nil {
		t.Fatal(err)
	}
	attacker := owner // the same cookie
	p = attacker.get("/dashboard/passkeys")
	if p.status != 200 || !strings.Contains(p.body, `id="passkey-confirm-form"`) || strings.Contains(p.body, `name="ceremony"`) {
		t.Fatalf("stale session's passkeys page: %d\n%.3000s", p.status, p.body)
	}
	p = attacker.post("/dashboard/passkeys/register", url.Values{"csrf": {csrf(t, p)}, "ceremony": {ceremony},
		"name": {"attacker's key"}, "response": {`{"id":"x","rawId":"x","type":"public-key","response":{}}`}})
	if p.status != 403 || !strings.Contains(p.body, `id="passkey-confirm-form"`) {
		t.Fatalf("finish with a stale proof: %d\n%.3000s", p.status, p.body)
	}
	// A wrong password is refused (and counted as a failed sign-in).
	p = attacker.post("/dashboard/confirm-password", url.Values{"csrf": {csrf(t, p)}, "password": {"guessed passphrase 1"}})
	if p.status != 422 || !strings.Contains(p.body, `id="passkey-confirm-form"`) {
		t.Fatalf("confirm with a wrong password: %d\n%.3000s", p.status, p.body)
	}
	users, err := s.api.Store.EmailOwner(ctx, "owner@stolen.example.com.bd")
	if err != nil {
		t.Fatal(err)
	}
	if keys, err := s.api.Store.ListPasskeys(ctx, users); err != nil || len(keys) != 0 {
		t.Fatalf("passkeys stored: %v, %v", keys, err)
	}

	// The owner types the password: the form is back (a ceremony can begin).
	p = owner.post("/dashboard/confirm-password", url.Values{"csrf": {csrf(t, p)}, "password": {"a long sandbox passphrase"}})
	if p.status != 200 || !strings.Contains(p.body, `name="ceremony"`) || strings.Contains(p.body, `id="passkey-confirm-form"`) {
		t.Fatalf("after confirming: %d\n%.3000s", p.status, p.body)
	}
}

// A reset removes the passkeys when the owner keeps the box ticked (the email lists them
// first), and ends every other reset link of the account.
func TestResetRemovesPasskeysAndEndsOtherLinks(t *testing.T) {
	s := startStack(t, nil)
	email := "owner@reset.example.com.bd"
	s.signUp(t, email, "Reset Shop", "")
	ctx := context.Background()
	userID, err := s.api.Store.EmailOwner(ctx, email)
	if err != nil || userID == "" {
		t.Fatal(userID, err)
	}
	// A passkey the attacker added while they held the account.
	put := func(name string) {
		t.Helper()
		raw := []byte(name + time.Now().String())
		if err := s.api.Store.PutPasskey(ctx, &record.Passkey{ID: record.CredentialHash(raw), UserID: userID, Name: name,
			CreatedAt: time.Now().UTC(), Credential: []byte(`{}`)}); err != nil {
			t.Fatal(err)
		}
	}
	put("Attacker's laptop")

	b := s.browser(t)
	forgot := func(after int) (string, int) {
		t.Helper()
		p := b.get("/dashboard/forgot-password")
		p = b.post("/dashboard/forgot-password", url.Values{"csrf": {csrf(t, p)}, "email": {email}})
		if p.status != 200 {
			t.Fatalf("forgot: %d\n%.2000s", p.status, p.body)
		}
		return s.mailLink(t, email, "/dashboard/reset-password", after)
	}
	first, n := forgot(0)
	second, n := forgot(n)
	mails, err := devstack.ReceivedMail(ctx, s.ses.Endpoint)
	if err != nil {
		t.Fatal(err)
	}
	if last := devstack.MailTo(mails, email); !strings.Contains(last[len(last)-1].Text, "Attacker's laptop") {
		t.Fatalf("the reset email does not list the passkey:\n%s", last[len(last)-1].Text)
	}

	// The form offers the box, ticked; the owner keeps it.
	p := b.get(second)
	if !regexp.MustCompile(`<input type="checkbox" value="yes" name="remove_passkeys" id="remove-passkeys" checked>`).MatchString(p.body) {
		t.Fatalf("reset form without the ticked box:\n%.3000s", p.body)
	}
	p = b.post(second, url.Values{"csrf": {csrf(t, p)}, "password": {"the owner's new passphrase"}, "remove_passkeys": {"yes"}})
	if p.status != 200 || !strings.Contains(p.url, "/dashboard/sign-in") {
		t.Fatalf("reset: %d at %s\n%.2000s", p.status, p.url, p.body)
	}
	if keys, err := s.api.Store.ListPasskeys(ctx, userID); err != nil || len(keys) != 0 {
		t.Fatalf("passkeys after the reset: %d, %v", len(keys), err)
	}
	// The other link is spent: it sets no password.
	p = b.get(first)
	p = b.post(first, url.Values{"csrf": {csrf(t, p)}, "password": {"the attacker's passphrase"}})
	if p.status != 404 {
		t.Fatalf("the older reset link after a reset: %d\n%.2000s", p.status, p.body)
	}
	signIn := func(pw string) int {
		c := s.browser(t)
		p := c.get("/dashboard/sign-in")
		return c.post("/dashboard/sign-in", url.Values{"csrf": {csrf(t, p)}, "email": {email}, "password": {pw}}).status
	}
	if st := signIn("the attacker's passphrase"); st == 200 {
		t.Fatal("the older link set the password")
	}
	if st := signIn("the owner's new passphrase"); st != 200 {
		t.Fatalf("sign in with the new password: %d", st)
	}

	// Unticked, the passkeys stay.
	put("Owner's phone")
	third, _ := forgot(n)
	p = b.get(third)
	p = b.post(third, url.Values{"csrf": {csrf(t, p)}, "password": {"yet another passphrase"}})
	if p.status != 200 {
		t.Fatalf("reset without the box: %d", p.status)
	}
	if keys, err := s.api.Store.ListPasskeys(ctx, userID); err != nil || len(keys) != 1 {
		t.Fatalf("passkeys after a reset without the box: %d, %v", len(keys), err)
	}

	// Sign out everywhere offers the same box, unticked: without it the passkey stays, with
	// it every passkey goes.
	signOut := func(remove bool) {
		t.Helper()
		c := s.browser(t)
		p := c.get("/dashboard/sign-in")
		c.post("/dashboard/sign-in", url.Values{"csrf": {csrf(t, p)}, "email": {email}, "password": {"yet another passphrase"}})
		home := c.get("/dashboard")
		if !strings.Contains(home.body, `id="sign-out-remove-passkeys">`) {
			t.Fatalf("no unticked box on the sign-out-everywhere form:\n%.3000s", home.body)
		}
		form := url.Values{"csrf": {csrf(t, home)}}
		if remove {
			form.Set("remove_passkeys", "yes")
		}
		if p := c.post("/dashboard/sign-out-everywhere", form); p.status != 200 || !strings.Contains(p.url, "/dashboard/sign-in") {
			t.Fatalf("sign out everywhere: %d at %s", p.status, p.url)
		}
	}
	signOut(false)
	if keys, _ := s.api.Store.ListPasskeys(ctx, userID); len(keys) != 1 {
		t.Fatalf("sign out everywhere without the box removed passkeys: %d left", len(keys))
	}
	signOut(true)
	if keys, _ := s.api.Store.ListPasskeys(ctx, userID); len(keys) != 0 {
		t.Fatalf("sign out everywhere with the box: %d passkeys left", len(keys))
	}
}

// Someone signs up with the victim's address and their own password; the victim signs up
// too and clicks the first link. The account is never made with the first sign-up's
// password: the verification asks for the password, and only the victim's own works.
func TestPendingSignUpCannotBeCompletedWithTheFirstPassword(t *testing.T) {
	s := startStack(t, nil)
	victim := "victim@pending.example.com.bd"
	signUp := func(pw string) {
		t.Helper()
		b := s.browser(t)
		p := b.get("/dashboard/sign-up")
		p = b.post("/dashboard/sign-up", url.Values{"csrf": {csrf(t, p)}, "email": {victim}, "password": {pw}, "workspace": {"Shop"}})
		if p.status != 200 {
			t.Fatalf("sign up: %d", p.status)
		}
	}
	signUp("attacker chosen passphrase")
	attackers, n := s.mailLink(t, victim, "/dashboard/verify-email", 0)
	signUp("the victim's own passphrase")
	own, _ := s.mailLink(t, victim, "/dashboard/verify-email", n)

	b := s.browser(t)
	p := b.get(attackers)
	p = b.post(attackers, url.Values{"csrf": {csrf(t, p)}, "password": {"the victim's own passphrase"}})
	if p.status != 422 || !strings.Contains(p.body, `id="f-password-error"`) {
		t.Fatalf("the first sign-up's link with the victim's password: %d\n%.2000s", p.status, p.body)
	}
	// Without a password it creates nothing either.
	p = b.post(attackers, url.Values{"csrf": {csrf(t, p)}})
	if p.status != 422 {
		t.Fatalf("the first sign-up's link without a password: %d", p.status)
	}
	if owner, err := s.api.Store.EmailOwner(context.Background(), victim); err != nil || owner != "" {
		t.Fatalf("an account was made: %q, %v", owner, err)
	}
	p = b.get(own)
	p = b.post(own, url.Values{"csrf": {csrf(t, p)}, "password": {"the victim's own passphrase"}})
	if p.status != 200 || !strings.Contains(p.body, `id="home-workspace"`) {
		t.Fatalf("the victim's own link: %d at %s\n%.2000s", p.status, p.url, p.body)
	}
	a := s.browser(t)
	p = a.get("/dashboard/sign-in")
	if p = a.post("/dashboard/sign-in", url.Values{"csrf": {csrf(t, p)}, "email": {victim}, "password": {"attacker chosen passphrase"}}); p.status == 200 {
		t.Fatal("the first sign-up's password signs in")
	}
}

// A request carrying two session cookies is refused, not resolved by order: the dashboard
// sends it to the sign-in page (clearing its own session cookies), the API answers 401.
func TestTwoSessionCookiesAreRefused(t *testing.T) {
	s := startStack(t, nil)
	victim := s.signUp(t, "victim@cookies.example.com.bd", "Victim Shop", "")
	attacker := s.signUp(t, "attacker@cookies.example.com.bd", "Attacker Shop", "")
	v, a := victim.sessionToken(), attacker.sessionToken()
	noRedirect := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	for name, header := range map[string]string{
		"attacker's first": auth.SessionCookie + "=" + a + "; " + auth.SessionCookie + "=" + v,
		"victim's first":   auth.SessionCookie + "=" + v + "; " + auth.SessionCookie + "=" + a,
		"plain and __Host": auth.HostSessionCookie + "=" + v + "; " + auth.SessionCookie + "=" + a,
	} {
		req, _ := http.NewRequest("GET", s.api.URL+"/dashboard", nil)
		req.Header.Set("Cookie", header)
		resp, err := noRedirect.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != 303 || !strings.HasPrefix(resp.Header.Get("Location"), "/dashboard/sign-in") ||
			!strings.Contains(strings.Join(resp.Header.Values("Set-Cookie"), "\n"), auth.SessionCookie+"=;") {
			t.Errorf("%s: dashboard %d, Location %q, Set-Cookie %q", name, resp.StatusCode, resp.Header.Get("Location"), resp.Header.Values("Set-Cookie"))
		}
	}
	// The API's session door: 401 in the envelope.
	req, _ := http.NewRequest("GET", s.api.URL+"/v1/workspaces/0195f3a4-0000-7000-8000-00000000000a/documents/invoices?environment=sandbox", nil)
	req.Header.Set("Cookie", auth.SessionCookie+"="+v+"; "+auth.SessionCookie+"="+a)
	resp, err := noRedirect.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	raw, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	body := string(raw)
	if resp.StatusCode != 401 || !strings.Contains(body, `"correlation_id"`) || !strings.Contains(body, "more than one session cookie") {
		t.Fatalf("API with two session cookies: %d %s", resp.StatusCode, body)
	}
}

// A look-alike address (Cyrillic а) is refused with 422 naming the email field at every
// dashboard door, never folded into alice@….
func TestLookAlikeEmailRefused(t *testing.T) {
	s := startStack(t, nil)
	owner := s.signUp(t, "owner@lookalike.example.com.bd", "Look Shop", "")
	const lookAlike = "\u0430lice@example.com"
	b := s.browser(t)
	for path, form := range map[string]url.Values{
		"/dashboard/sign-up":         {"email": {lookAlike}, "password": {"a long sandbox passphrase"}, "workspace": {"Shop"}},
		"/dashboard/sign-in":         {"email": {lookAlike}, "password": {"a long sandbox passphrase"}},
		"/dashboard/forgot-password": {"email": {lookAlike}},
	} {
		p := b.get(path)
		form.Set("csrf", csrf(t, p))
		p = b.post(path, form)
		if p.status != 422 || !strings.Contains(p.body, `id="f-email-error"`) {
			t.Errorf("%s: %d\n%.2000s", path, p.status, p.body)
		}
	}
	p := owner.get("/dashboard/team")
	p = owner.post("/dashboard/team/invites", url.Values{"csrf": {csrf(t, p)}, "email": {lookAlike}, "role": {"developer"}})
	if p.status != 422 || !strings.Contains(p.body, `id="f-email-error"`) {
		t.Errorf("invite: %d\n%.2000s", p.status, p.body)
	}
	mails, err := devstack.ReceivedMail(context.Background(), s.ses.Endpoint)
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range mails {
		for _, to := range []string{lookAlike, "alice@example.com"} {
			if len(devstack.MailTo([]devstack.ReceivedEmail{m}, to)) > 0 {
				t.Errorf("an email went to %s", to)
			}
		}
	}
}

// A passkey just registered is pending: it signs no one in until DashboardFunction has emailed
// its owner (naming it and saying what to do if it was not them) and activated it; the
// activity log says so.
func TestNewPasskeyIsEmailedBeforeItWorks(t *testing.T) {
	s := startStack(t, nil)
	email := "owner@added.example.com.bd"
	owner := s.signUp(t, email, "Added Shop", "")
	ctx := context.Background()
	userID, err := s.api.Store.EmailOwner(ctx, email)
	if err != nil {
		t.Fatal(err)
	}
	// What FinishRegistration stores.
	id := record.CredentialHash([]byte("new authenticator"))
	if err := s.api.Store.PutPasskey(ctx, &record.Passkey{ID: id, UserID: userID, Name: "Office laptop",
		CreatedAt: time.Now().UTC(), Credential: []byte(`{}`), Pending: true}); err != nil {
		t.Fatal(err)
	}
	p := owner.get("/dashboard/passkeys/activate")
	if p.status != 200 || !strings.Contains(p.url, "/dashboard/passkeys?notice=added") {
		t.Fatalf("activate: %d at %s\n%.2000s", p.status, p.url, p.body)
	}
	keys, err := s.api.Store.ListPasskeys(ctx, userID)
	if err != nil || len(keys) != 1 || keys[0].Pending {
		t.Fatalf("after activation: %+v, %v", keys, err)
	}
	mails, err := devstack.ReceivedMail(ctx, s.ses.Endpoint)
	if err != nil {
		t.Fatal(err)
	}
	to := devstack.MailTo(mails, email)
	last := to[len(to)-1]
	if !strings.Contains(last.Subject, "passkey was added") || !strings.Contains(last.Text, "“Office laptop”") ||
		!strings.Contains(last.Text, "/dashboard/forgot-password") {
		t.Fatalf("the passkey email: %q\n%s", last.Subject, last.Text)
	}
	if act := owner.get("/dashboard/activity"); !strings.Contains(act.body, "Passkey added") || !strings.Contains(act.body, "Office laptop") {
		t.Fatalf("activity:\n%.3000s", act.body)
	}
	// Nothing pending: loading it again sends nothing.
	owner.get("/dashboard/passkeys/activate")
	mails, _ = devstack.ReceivedMail(ctx, s.ses.Endpoint)
	if n := len(devstack.MailTo(mails, email)); n != len(to) {
		t.Fatalf("a second activation sent %d more emails", n-len(to))
	}
}
