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

// TestBrowserKeysPagesFitAPhone opens the keys, webhook-secrets, team, activity and passkeys
// pages, filled with the golden files' long names, emails and ids (goldenKeys), at 360×740,
// 390×844 and 1366×900 in both languages: none scrolls sideways (the document is no wider
// than the window) and axe-core finds no WCAG 2.1 AA violation. Screenshots:
// .artifacts/dashboard-keys/<page>-<lang>-<width>.png. The service runs in the test over
// plain HTTP (the journey, browser_test.go, runs the real stack).
func TestBrowserKeysPagesFitAPhone(t *testing.T) {
	if testing.Short() {
		t.Skip("browser test")
	}
	m := newMem()
	g := goldenKeys{m}
	s := &Service{Accounts: m, Team: g, Keys: g, Activity: g, Forms: &memForms{}, Passkeys: goldenPasskeys{}}
	owner := m.signIn("owner", auth.RoleOwner)
	pages := map[string]web.HandlerFunc{
		"/dashboard/keys": s.KeysPage, "/dashboard/webhook-secrets": s.SecretsPage, "/dashboard/team": s.TeamPage,
		"/dashboard/activity": s.ActivityPage, "/dashboard/passkeys": s.PasskeysPage,
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, hr *http.Request) {
		h, ok := pages[hr.URL.Path]
		if !ok {
			http.NotFound(w, hr)
			return
		}
		serveOnce(t, w, hr, h, owner)
	}))
	t.Cleanup(srv.Close)

	p := browsertest.NewPage(t, "en", "dashboard-keys/")
	sizes := []struct {
		name string
		w, h int64
	}{{"360", 360, 740}, {"390", 390, 844}, {"1366", 1366, 900}}
	for _, path := range []string{"/dashboard/keys", "/dashboard/webhook-secrets", "/dashboard/team", "/dashboard/activity", "/dashboard/passkeys"} {
		for _, l := range []string{"bn", "en"} {
			for _, sz := range sizes {
				name := strings.TrimPrefix(path, "/dashboard/") + "-" + l + "-" + sz.name
				p.Do(chromedp.EmulateViewport(sz.w, sz.h), chromedp.Navigate(srv.URL+path+"?lang="+l), chromedp.WaitVisible(chromedp.ID("main")))
				wide, err := browsertest.Run(p.Ctx, chromedp.Evaluate[[]int](`[document.documentElement.scrollWidth, window.innerWidth]`))
				if err != nil || len(wide) != 2 || wide[0] > wide[1] {
					t.Errorf("%s scrolls sideways: scrollWidth, innerWidth = %v (%v)", name, wide, err)
				}
				if v, _ := browsertest.Axe(t, p.Ctx, browsertest.AxeSource(t)); len(v) > 0 {
					t.Errorf("%s: %d axe violations: %v", name, len(v), v)
				}
				browsertest.Screenshot(t, p.Ctx, "dashboard-keys/"+name+".png")
			}
		}
	}
}

// serveOnce answers one browser request with a dashboard handler, as the signed-in owner.
func serveOnce(t *testing.T, w http.ResponseWriter, hr *http.Request, h web.HandlerFunc, session string) {
	q := map[string]string{}
	for k, v := range hr.URL.Query() {
		q[k] = v[0]
	}
	b, _ := io.ReadAll(hr.Body)
	r := &web.Request{Method: hr.Method, Path: hr.URL.Path, Query: q, Body: b, BaseURL: "http://" + hr.Host,
		Headers: map[string]string{"accept-language": "en"}, Cookies: []string{SessionCookie + "=" + session}, SourceIP: "203.0.113.9"}
	resp, err := h(context.Background(), r)
	if err != nil {
		t.Errorf("%s: %v", hr.URL, err)
		http.Error(w, err.Error(), 500)
		return
	}
	for k, v := range resp.Headers {
		w.Header().Set(k, v)
	}
	w.WriteHeader(resp.Status)
	_, _ = w.Write(resp.Raw)
}
