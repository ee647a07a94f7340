//go:build !race

// Excluded from -race builds like the other browser tests (chromedp v0.23 races on its own).

package passkey_test

import (
	"errors"
	"fmt"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	cdppage "github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/webauthn"
	"github.com/chromedp/chromedp"
	"github.com/google/uuid"

	"github.com/takapay/payments/shared/foundation/h"
	"github.com/takapay/payments/shared/foundation/page"
	"github.com/takapay/payments/shared/foundation/ui"
	"github.com/takapay/payments/shared/local/browsertest"
	"github.com/takapay/payments/shared/passkey"
)

// testSite is a tiny dashboard stand-in: a register page for one signed-in user and a sign-in
// page, each a form of the package's contract with the package's script, served with a
// strict CSP (the script allowed by its hash only).
type testSite struct {
	t      *testing.T
	e      *env
	userID string

	mu        sync.Mutex
	errs      []error  // every Finish error, in order (nil for success)
	responses []string // every "response" field posted to /login
	tamper    func(string) string
}

var siteStyle = page.NewStyle("")

func (s *testSite) headers(w http.ResponseWriter) {
	for k, v := range page.Headers(page.Policy{Style: siteStyle, Script: passkey.Script, FormAction: []string{"'self'"}}) {
		w.Header().Set(k, v)
	}
}

func (s *testSite) form(w http.ResponseWriter, mode string, c *passkey.Ceremony) {
	doc := ui.Document{Lang: page.EN, Title: "Passkey " + mode, Style: siteStyle, Script: passkey.Script, Body: []h.Node{
		h.Main(
			h.P(h.ID("unsupported"), h.Attr("data-passkey-unsupported", ""), h.Bool("hidden", true), h.Text("No passkeys here.")),
			h.Form(h.ID("pk"), h.Method("post"), h.Bool("hidden", true), h.Action("/"+mode),
				h.Data("passkey", mode), h.Data("passkey-options", c.Options),
				ui.Hidden("ceremony", c.ID), ui.Hidden("response", ""),
				h.If(mode == "register", h.Group{
					h.Label(h.For("name"), h.Text("Name")),
					h.Input(h.ID("name"), h.Name("name"), h.Required(true), h.Attr("maxlength", "64")),
				}),
				h.P(h.ID("pk-error"), h.Attr("data-passkey-error", ""), h.Role("alert"), h.Bool("hidden", true), h.Text("The passkey was not used.")),
				h.Button(h.ID("submit"), h.Type("submit"), h.Text("Go")),
			),
		),
	}}
	s.headers(w)
	_, _ = w.Write(doc.Bytes())
}

func (s *testSite) result(w http.ResponseWriter, err error, text string) {
	s.mu.Lock()
	s.errs = append(s.errs, err)
	s.mu.Unlock()
	if err != nil {
		text = "refused"
	}
	s.headers(w)
	doc := ui.Document{Lang: page.EN, Title: "Result", Style: siteStyle, Body: []h.Node{h.Main(h.P(h.ID("result"), h.Text(text)))}}
	_, _ = w.Write(doc.Bytes())
}

func (s *testSite) lastErr() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.errs[len(s.errs)-1]
}

func (s *testSite) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	ctx := s.e.ctx
	switch r.Method + " " + r.URL.Path {
	case "GET /register":
		c, err := s.e.svc.BeginRegistration(ctx, s.userID, "alice@example.com", s.e.clock.Now())
		if err != nil {
			http.Error(w, err.Error(), 500)
			return
		}
		s.form(w, "register", c)
	case "POST /register":
		rec, err := s.e.svc.FinishRegistration(ctx, s.userID, r.PostFormValue("ceremony"), r.PostFormValue("name"), r.PostFormValue("response"), s.e.clock.Now())
		text := ""
		if err == nil && !rec.Pending {
			err = errors.New("a new passkey is active before its owner was told")
		}
		if err == nil {
			// What the dashboard does once the owner was emailed.
			err = s.e.store.ActivatePasskey(ctx, s.userID, rec.ID)
		}
		if err == nil {
			text = "registered " + rec.Name
		}
		s.result(w, err, text)
	case "GET /login":
		c, err := s.e.svc.BeginLogin(ctx)
		if err != nil {
			http.Error(w, err.Error(), 500)
			return
		}
		s.form(w, "login", c)
	case "POST /login":
		resp := r.PostFormValue("response")
		s.mu.Lock()
		s.responses = append(s.responses, resp)
		tamper := s.tamper
		s.mu.Unlock()
		if tamper != nil {
			resp = tamper(resp)
		}
		sess, err := s.e.svc.FinishLogin(ctx, r.PostFormValue("ceremony"), resp, passkey.Client{IP: r.RemoteAddr, UserAgent: r.UserAgent()})
		text := ""
		if err == nil {
			text = "signed in " + sess.UserID + " " + sess.Token
		}
		s.result(w, err, text)
	default:
		http.NotFound(w, r)
	}
}

// TestBrowserPasskeys registers a passkey in Chromium's virtual authenticator (CTAP2,
// internal, resident keys, user verification), signs in with it alone, and checks the
// attacker's cases: a bogus signature, a replayed response, a cloned authenticator.
func TestBrowserPasskeys(t *testing.T) {
	if testing.Short() {
		t.Skip("browser test")
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	// localhost is a secure context and the RP ID; 127.0.0.1 would not match it.
	origin := fmt.Sprintf("http://localhost:%d", ln.Addr().(*net.TCPAddr).Port)
	e := newEnv(t, origin, "localhost")
	site := &testSite{t: t, e: e, userID: uuid.NewString()}
	srv := &http.Server{Handler: site, ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = srv.Serve(ln) }()
	t.Cleanup(func() { _ = srv.Close() })

	ctx := browsertest.New(t, "en")
	if err := browsertest.Do(ctx, chromedp.Navigate("about:blank")); err != nil {
		t.Fatal(err)
	}
	if _, err := chromedp.Call(ctx, webauthn.Enable, webauthn.EnableParams{}); err != nil {
		t.Fatal(err)
	}
	auth, err := chromedp.Call(ctx, webauthn.AddVirtualAuthenticator, webauthn.AddVirtualAuthenticatorParams{
		Options: &webauthn.VirtualAuthenticatorOptions{
			Protocol: webauthn.AuthenticatorProtocolCtap2, Ctap2version: webauthn.Ctap2versionCtap21,
			Transport: webauthn.AuthenticatorTransportInternal, HasResidentKey: true,
			HasUserVerification: true, IsUserVerified: true, AutomaticPresenceSimulation: true,
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	authID := auth.AuthenticatorID

	resultText := func() string {
		t.Helper()
		if err := browsertest.Do(ctx, chromedp.WaitVisible(chromedp.ID("result"))); err != nil {
			browsertest.Screenshot(t, ctx, "passkey-failed.png")
			failure, _ := browsertest.Run(ctx, chromedp.Evaluate[string](`(document.getElementById("pk") || {getAttribute: () => "no form"}).getAttribute("data-passkey-failure") || ""`))
			t.Logf("browser failure: %q", failure)
			t.Fatal(err)
		}
		text, err := browsertest.Run(ctx, chromedp.Text(chromedp.ID("result")))
		if err != nil {
			t.Fatal(err)
		}
		return text
	}
	signIn := func() string {
		t.Helper()
		if err := browsertest.Do(ctx, chromedp.Navigate(origin+"/login"), chromedp.WaitVisible(chromedp.ID("submit")),
			chromedp.Click(chromedp.ID("submit"))); err != nil {
			t.Fatal(err)
		}
		return resultText()
	}

	// Register: the form appears only because the script ran under the CSP.
	if err := browsertest.Do(ctx, chromedp.Navigate(origin+"/register"), chromedp.WaitVisible(chromedp.ID("submit")),
		chromedp.SendKeys(chromedp.ID("name"), "Work laptop"), chromedp.Click(chromedp.ID("submit"))); err != nil {
		t.Fatal(err)
	}
	if got := resultText(); got != "registered Work laptop" {
		t.Fatalf("register: %q (%v)", got, site.lastErr())
	}
	if hidden, err := browsertest.Run(ctx, chromedp.Evaluate[bool](`document.querySelector("[data-passkey-unsupported]") === null`)); err != nil || !hidden {
		t.Fatalf("result page: %v %v", hidden, err)
	}
	list, err := e.svc.List(e.ctx, site.userID)
	if err != nil || len(list) != 1 || list[0].Name != "Work laptop" {
		t.Fatalf("list after register: %v, %v", list, err)
	}
	creds, err := chromedp.Call(ctx, webauthn.GetCredentials, webauthn.GetCredentialsParams{AuthenticatorID: authID})
	if err != nil || len(creds.Credentials) != 1 {
		t.Fatalf("authenticator credentials: %v, %v", creds, err)
	}
	cred := creds.Credentials[0]
	if !cred.IsResidentCredential || string(cred.UserHandle) != site.userID || passkey.CredentialHash(cred.CredentialID) != list[0].ID {
		t.Fatalf("stored credential: resident %v handle %q", cred.IsResidentCredential, cred.UserHandle)
	}

	// Registering the same authenticator again: it is excluded, the browser call fails and
	// the form shows its error; nothing is posted.
	if err := browsertest.Do(ctx, chromedp.Navigate(origin+"/register"), chromedp.WaitVisible(chromedp.ID("submit")),
		chromedp.SendKeys(chromedp.ID("name"), "Again"), chromedp.Click(chromedp.ID("submit")),
		chromedp.WaitVisible(chromedp.ID("pk-error"))); err != nil {
		t.Fatal(err)
	}
	if failure, err := browsertest.Run(ctx, chromedp.Evaluate[string](`document.getElementById("pk").getAttribute("data-passkey-failure")`)); err != nil || failure != "InvalidStateError" {
		t.Fatalf("registering an excluded authenticator: %q, %v", failure, err)
	}

	// Sign in with the passkey alone (discoverable): a session for the user.
	if got, want := signIn(), "signed in "+site.userID+" token-for-"+site.userID; got != want {
		t.Fatalf("sign in: %q, want %q (%v)", got, want, site.lastErr())
	}
	list, _ = e.svc.List(e.ctx, site.userID)
	if list[0].LastUsedAt == nil || list[0].SignCount == 0 {
		t.Fatalf("after sign-in: %+v", list[0])
	}

	// The attacker's cases. A bogus signature from the authenticator:
	if _, err := chromedp.Call(ctx, webauthn.SetResponseOverrideBits, webauthn.SetResponseOverrideBitsParams{
		AuthenticatorID: authID, IsBogusSignature: ptr(true)}); err != nil {
		t.Fatal(err)
	}
	if got := signIn(); got != "refused" || !errors.Is(site.lastErr(), passkey.ErrRefused) {
		t.Fatalf("bogus signature: %q, %v", got, site.lastErr())
	}
	if _, err := chromedp.Call(ctx, webauthn.SetResponseOverrideBits, webauthn.SetResponseOverrideBitsParams{AuthenticatorID: authID}); err != nil {
		t.Fatal(err)
	}
	// No user verification:
	if _, err := chromedp.Call(ctx, webauthn.SetResponseOverrideBits, webauthn.SetResponseOverrideBitsParams{
		AuthenticatorID: authID, IsBadUV: ptr(true)}); err != nil {
		t.Fatal(err)
	}
	if got := signIn(); got != "refused" || !errors.Is(site.lastErr(), passkey.ErrRefused) {
		t.Fatalf("no user verification: %q, %v", got, site.lastErr())
	}
	if _, err := chromedp.Call(ctx, webauthn.SetResponseOverrideBits, webauthn.SetResponseOverrideBitsParams{AuthenticatorID: authID}); err != nil {
		t.Fatal(err)
	}
	// A response tampered with on its way (the user handle names another user, then the
	// authenticator data is altered):
	site.mu.Lock()
	site.tamper = func(s string) string {
		return strings.Replace(s, `"userHandle":"`, `"userHandle":"`+"QUJD", 1)
	}
	site.mu.Unlock()
	if got := signIn(); got != "refused" || !errors.Is(site.lastErr(), passkey.ErrRefused) {
		t.Fatalf("tampered user handle: %q, %v", got, site.lastErr())
	}
	site.mu.Lock()
	site.tamper = func(s string) string {
		// Character 45 of the 50 is inside the signature counter (bytes 33-36).
		i := strings.Index(s, `"authenticatorData":"`) + len(`"authenticatorData":"`) + 45
		c := byte('A')
		if s[i] == 'A' {
			c = 'B'
		}
		return s[:i] + string(c) + s[i+1:]
	}
	site.mu.Unlock()
	if got := signIn(); got != "refused" || !errors.Is(site.lastErr(), passkey.ErrRefused) || !strings.Contains(site.lastErr().Error(), "signature") {
		t.Fatalf("tampered authenticator data: %q, %v", got, site.lastErr())
	}
	site.mu.Lock()
	site.tamper = nil
	replay := site.responses[len(site.responses)-1] // a genuine response, seen on its way
	site.mu.Unlock()
	// A genuine response replayed against a new ceremony (another challenge):
	c, err := e.svc.BeginLogin(e.ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.svc.FinishLogin(e.ctx, c.ID, replay, passkey.Client{}); !errors.Is(err, passkey.ErrRefused) {
		t.Fatalf("replayed response: %v", err)
	}

	// Still fine afterwards.
	if got := signIn(); !strings.HasPrefix(got, "signed in "+site.userID) {
		t.Fatalf("sign in again: %q (%v)", got, site.lastErr())
	}

	// A cloned authenticator: the same key with its counter back at 0.
	list, _ = e.svc.List(e.ctx, site.userID)
	stored := list[0].SignCount
	if _, err := chromedp.Call(ctx, webauthn.RemoveCredential, webauthn.RemoveCredentialParams{AuthenticatorID: authID, CredentialID: cred.CredentialID}); err != nil {
		t.Fatal(err)
	}
	clone := *cred
	clone.SignCount = 0
	clone.RpID = "localhost"
	if _, err := chromedp.Call(ctx, webauthn.AddCredential, webauthn.AddCredentialParams{AuthenticatorID: authID, Credential: &clone}); err != nil {
		t.Fatal(err)
	}
	if got := signIn(); got != "refused" || !errors.Is(site.lastErr(), passkey.ErrCloned) {
		t.Fatalf("cloned authenticator: %q, %v", got, site.lastErr())
	}
	if list, _ = e.svc.List(e.ctx, site.userID); list[0].SignCount != stored {
		t.Fatalf("a clone's counter was stored: %d, want %d", list[0].SignCount, stored)
	}

	// Removed: the passkey no longer signs in.
	if err := e.svc.Remove(e.ctx, site.userID, list[0].ID); err != nil {
		t.Fatal(err)
	}
	if got := signIn(); got != "refused" || !errors.Is(site.lastErr(), passkey.ErrRefused) {
		t.Fatalf("removed passkey: %q, %v", got, site.lastErr())
	}
	// A browser without WebAuthn: the passkey form stays hidden and the notice shows.
	if _, err := chromedp.Call(ctx, cdppage.AddScriptToEvaluateOnNewDocument, cdppage.AddScriptToEvaluateOnNewDocumentParams{
		Source: "delete window.PublicKeyCredential;"}); err != nil {
		t.Fatal(err)
	}
	if err := browsertest.Do(ctx, chromedp.Navigate(origin+"/login"), chromedp.WaitVisible(chromedp.ID("unsupported"))); err != nil {
		t.Fatal(err)
	}
	if hidden, err := browsertest.Run(ctx, chromedp.Evaluate[bool](`document.getElementById("pk").hidden`)); err != nil || !hidden {
		t.Fatalf("passkey form without WebAuthn: hidden %v, %v", hidden, err)
	}

	for i, err := range site.errs {
		t.Logf("finish %d: %v", i+1, err)
	}
	u := site.userID
	want := strings.Join([]string{
		"passkey.signin.succeeded//" + u,
		"passkey.signin.failed/refused/" + u, // bogus signature
		"passkey.signin.failed/refused/" + u, // no user verification
		"passkey.signin.failed/refused/",     // a user handle that names nobody
		"passkey.signin.failed/refused/" + u, // altered authenticator data
		"passkey.signin.failed/refused/" + u, // replayed
		"passkey.signin.succeeded//" + u,
		"passkey.signin.failed/cloned/" + u,
		"passkey.signin.failed/refused/", // removed: an unknown credential
	}, " ")
	if got := e.eventSummary(); got != want {
		t.Fatalf("events:\n got %s\nwant %s", got, want)
	}
	if n := len(e.sessions.users); n != 2 {
		t.Fatalf("%d sessions started, want 2", n)
	}
}

func ptr[T any](v T) *T { return &v }
