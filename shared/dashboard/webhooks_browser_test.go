//go:build !race

// Excluded from -race builds like the other browser tests (chromedp races on its own).

package dashboard_test

import (
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"

	"github.com/takapay/payments/shared/auth"
	"github.com/takapay/payments/shared/local/browsertest"
	"github.com/takapay/payments/shared/local/samtemplate"
)

// The webhooks page in Chromium, in both languages, phone and desktop, checked with axe-core
// (WCAG 2.1 AA, 0 violations) and photographed (.artifacts/dashboard/webhooks-*.png): the
// owner's page, a delivered test event, a refused URL; the viewer's read-only page.
func TestBrowserWebhooksPage(t *testing.T) {
	if testing.Short() {
		t.Skip("browser test")
	}
	s := startStack(t, map[string]string{"ALLOW_LOCALHOST_URLS": "true"})
	base := s.api.URL
	hook := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusNoContent) }))
	t.Cleanup(hook.Close)
	ctx := browsertest.New(t, "en")
	axe := browsertest.AxeSource(t)
	root, _ := samtemplate.FindRepoRoot()
	_ = os.MkdirAll(filepath.Join(root, ".artifacts", "dashboard"), 0o755)
	run := func(steps ...chromedp.Action[chromedp.Void]) {
		t.Helper()
		if err := browsertest.Do(ctx, steps...); err != nil {
			browsertest.Screenshot(t, ctx, "dashboard/webhooks-failed.png")
			body, _ := chromedp.Run(ctx, chromedp.Text(chromedp.CSS("body")))
			t.Fatalf("%v\npage: %.1500s", err, body)
		}
	}
	check := func(name string) {
		t.Helper()
		if v, _ := browsertest.Axe(t, ctx, axe); len(v) > 0 {
			t.Errorf("%s: %d axe violations: %v", name, len(v), v)
		}
		browsertest.Screenshots(t, ctx, "dashboard/"+name)
	}
	text := func(id string) string {
		t.Helper()
		s, err := chromedp.Run(ctx, chromedp.Text(chromedp.ID(id)))
		if err != nil {
			t.Fatal(err)
		}
		return s
	}

	run(chromedp.Navigate(base+"/dashboard/sign-in?lang=en"), chromedp.WaitVisible(chromedp.ID("f-email")),
		chromedp.SendKeys(chromedp.ID("f-email"), s.api.Creds.DashboardEmail),
		chromedp.SendKeys(chromedp.ID("f-password"), s.api.Creds.DashboardPassword),
		chromedp.Click(chromedp.ID("sign-in-submit")), chromedp.WaitVisible(chromedp.ID("home-workspace")))
	run(chromedp.Navigate(base+"/dashboard/webhook-secrets?lang=en"), chromedp.Click(chromedp.ID("secret-issue-sandbox")),
		chromedp.WaitVisible(chromedp.ID("issued-secret")))

	for _, l := range []string{"bn", "en"} {
		run(chromedp.Navigate(base+"/dashboard/webhooks?lang="+l), chromedp.WaitVisible(chromedp.ID("recent-deliveries")))
		check("webhooks-" + l)
		run(chromedp.SendKeys(chromedp.ID("test-url"), hook.URL+"/hook"), chromedp.Click(chromedp.ID("send-test")),
			chromedp.WaitVisible(chromedp.ID("test-result")))
		if got := text("test-result"); !strings.Contains(got, map[string]string{"en": "HTTP 204", "bn": "HTTP ২০৪"}[l]) {
			t.Errorf("%s test result: %q", l, got)
		}
		check("webhooks-test-sent-" + l)
		run(chromedp.Navigate(base+"/dashboard/webhooks?lang="+l), chromedp.WaitVisible(chromedp.ID("test-url")),
			chromedp.SendKeys(chromedp.ID("test-url"), "https://169.254.169.254/latest/meta-data/"), chromedp.Click(chromedp.ID("send-test")),
			chromedp.WaitVisible(chromedp.ID("test-url-error")))
		if got := text("test-result"); !strings.Contains(got, "must not be an IP address") {
			t.Errorf("%s refused URL: %q", l, got)
		}
		check("webhooks-test-refused-" + l)
	}

	// The viewer's page: everything shown, nothing to send.
	token := s.memberSession(t, "viewer@journey.example.com.bd", auth.RoleViewer)
	if _, err := chromedp.Call(ctx, network.SetCookie, network.SetCookieParams{Name: auth.SessionCookie, Value: token, URL: base + "/"}); err != nil {
		t.Fatal(err)
	}
	for _, l := range []string{"bn", "en"} {
		run(chromedp.Navigate(base+"/dashboard/webhooks?lang="+l), chromedp.WaitVisible(chromedp.ID("test-readonly")))
		check("webhooks-viewer-" + l)
	}
}
