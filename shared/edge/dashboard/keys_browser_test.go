//go:build !race

// Excluded from -race builds like the other browser tests (chromedp races on its own).

package dashboard

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/takapay/payments/shared/auth"
	"github.com/takapay/payments/shared/foundation/web"
	"github.com/takapay/payments/shared/local/browsertest"
)

// TestBrowserKeysPagesFitAPhone opens the keys, webhook-secrets, team, activity, passkeys and
// invitation pages, filled with the golden files' long names, emails and ids (goldenKeys),
// and the states their forms lead to (a new key's secret, a webhook secret, a refused key
// and invitation), at 360×740, 390×844 and 1366×900 in both languages: none scrolls
// sideways (the document is no wider than the window), no table is wider than its card, and
// axe-core finds no WCAG 2.1 AA violation. Screenshots: .artifacts/dashboard-keys/<page>-<lang>-<width>.png. The service
// runs in the test over plain HTTP (the journey, browser_test.go, runs the real stack).
func TestBrowserKeysPagesFitAPhone(t *testing.T) {
	if testing.Short() {
		t.Skip("browser test")
	}
	m := newMem()
	g := goldenKeys{m}
	s := &Service{Accounts: m, Team: g, Keys: g, Activity: g, Forms: &memForms{}, Passkeys: goldenPasskeys{}}
	owner := m.signIn("owner", auth.RoleOwner)
	axe := browsertest.AxeSource(t)
	routes := map[string]web.HandlerFunc{
		"GET /dashboard/keys": s.KeysPage, "GET /dashboard/webhook-secrets": s.SecretsPage, "GET /dashboard/team": s.TeamPage,
		"GET /dashboard/activity": s.ActivityPage, "GET /dashboard/passkeys": s.PasskeysPage, "GET /dashboard/invite": s.InvitePage,
		"POST /dashboard/keys": s.CreateKey, "POST /dashboard/webhook-secrets": s.IssueSecret, "POST /dashboard/team/invites": s.InviteMember,
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, hr *http.Request) {
		h, ok := routes[hr.Method+" "+hr.URL.Path]
		if !ok {
			http.NotFound(w, hr)
			return
		}
		serveOnce(t, w, hr, h, owner)
	}))
	t.Cleanup(srv.Close)

	p := browsertest.NewPage(t, "en", "dashboard-keys/")
	fits := func(name string) {
		t.Helper()
		for _, sz := range []struct {
			name string
			w, h int64
		}{{"360", 360, 740}, {"390", 390, 844}, {"1366", 1366, 900}} {
			p.Do(chromedp.EmulateViewport(sz.w, sz.h))
			wide, err := browsertest.Run(p.Ctx, chromedp.Evaluate[[]int](`[document.documentElement.scrollWidth, window.innerWidth]`))
			if err != nil || len(wide) != 2 || wide[0] > wide[1] {
				t.Errorf("%s at %s scrolls sideways: scrollWidth, innerWidth = %v (%v)", name, sz.name, wide, err)
			}
			// A table wider than its card scrolls inside its wrapper (the page does not): the
			// keys table did at 1366 px, its roll form's select cut off.
			clipped, err := browsertest.Run(p.Ctx, chromedp.Evaluate[[]string](`[...document.querySelectorAll(".table-wrap")]`+
				`.filter(w => w.scrollWidth > w.clientWidth).map(w => w.querySelector("table").id)`))
			if err != nil || len(clipped) > 0 {
				t.Errorf("%s at %s: tables wider than their card: %v (%v)", name, sz.name, clipped, err)
			}
			if v, _ := browsertest.Axe(t, p.Ctx, axe); len(v) > 0 {
				t.Errorf("%s at %s: %d axe violations: %v", name, sz.name, len(v), v)
			}
			browsertest.Screenshot(t, p.Ctx, "dashboard-keys/"+name+"-"+sz.name+".png")
		}
	}
	// submit sends a form as it is (without the browser's own checks: a Bangla form has none).
	submit := func(formID string) chromedp.Action[chromedp.Void] {
		return chromedp.Evaluate[chromedp.Void](`(f => { f.noValidate = true; f.requestSubmit(); })(document.getElementById("` + formID + `"))`)
	}
	for _, l := range []string{"bn", "en"} {
		for _, path := range []string{"/dashboard/keys", "/dashboard/webhook-secrets", "/dashboard/team", "/dashboard/activity",
			"/dashboard/passkeys", "/dashboard/invite?token=inv"} {
			p.Do(chromedp.Navigate(browsertest.WithLang(srv.URL+path, l)), chromedp.WaitVisible(chromedp.ID("main")))
			fits(strings.TrimSuffix(strings.TrimPrefix(path, "/dashboard/"), "?token=inv") + "-" + l)
		}
		// The states a form leads to: a new key's secret, the create form refused, a new
		// webhook secret, the invitation refused.
		p.Do(chromedp.Navigate(srv.URL+"/dashboard/keys?lang="+l), chromedp.WaitVisible(chromedp.ID("f-name")),
			chromedp.SendKeys(chromedp.ID("f-name"), "Phone shop counter"), chromedp.Click(chromedp.ID("create-key-submit")),
			chromedp.WaitVisible(chromedp.ID("issued-secret")))
		fits("keys-secret-shown-" + l)
		p.Do(chromedp.Navigate(srv.URL+"/dashboard/keys?lang="+l), chromedp.WaitVisible(chromedp.ID("f-name")),
			chromedp.Evaluate[chromedp.Void](`document.querySelectorAll("[name=scopes]").forEach(c => { c.checked = false })`),
			submit("create-key-form"), chromedp.WaitVisible(chromedp.ID("error-summary")))
		fits("keys-invalid-" + l)
		p.Do(chromedp.Navigate(srv.URL+"/dashboard/webhook-secrets?lang="+l), chromedp.WaitVisible(chromedp.ID("secret-issue-live")),
			chromedp.Click(chromedp.ID("secret-issue-live")), chromedp.WaitVisible(chromedp.ID("issued-secret")))
		fits("webhook-secret-issued-" + l)
		p.Do(chromedp.Navigate(srv.URL+"/dashboard/team?lang="+l), chromedp.WaitVisible(chromedp.ID("f-email")),
			chromedp.SendKeys(chromedp.ID("f-email"), "not an email"), submit("invite-form"), chromedp.WaitVisible(chromedp.ID("error-summary")))
		fits("team-invalid-" + l)
	}
}

// serveOnce answers one browser request with a dashboard handler, as the signed-in owner.
func serveOnce(t *testing.T, w http.ResponseWriter, hr *http.Request, h web.HandlerFunc, session string) {
	q := map[string]string{}
	for k, v := range hr.URL.Query() {
		q[k] = v[0]
	}
	b, _ := io.ReadAll(hr.Body)
	headers := map[string]string{}
	for k, v := range hr.Header {
		headers[strings.ToLower(k)] = v[0]
	}
	delete(headers, "cookie")
	r := &web.Request{Method: hr.Method, Path: hr.URL.Path, Query: q, Body: b, BaseURL: "http://" + hr.Host,
		Headers: headers, Cookies: []string{SessionCookie + "=" + session}, SourceIP: "203.0.113.9"}
	resp, err := h(context.Background(), r)
	if err != nil {
		t.Errorf("%s: %v", hr.URL, err)
		http.Error(w, err.Error(), 500)
		return
	}
	for k, v := range resp.Headers {
		w.Header().Set(k, v)
	}
	for _, c := range resp.Cookies {
		w.Header().Add("Set-Cookie", c)
	}
	w.WriteHeader(resp.Status)
	_, _ = w.Write(resp.Raw)
}
