//go:build !race

// Excluded from -race builds like the other browser tests (chromedp races on its own).

package dashboard_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"

	"github.com/takapay/payments/shared/auth"
	"github.com/takapay/payments/shared/local/browsertest"
	"github.com/takapay/payments/shared/refund"
)

// The webhooks page in Chromium, in both languages, phone and desktop, checked with axe-core
// (WCAG 2.1 AA, 0 violations) and for sideways scroll at 360 and 390 px (noSidewaysScroll), and
// photographed (.artifacts/dashboard/webhooks-*.png): the owner's page, a delivered test
// event, a refused URL, a refund's event resent; the viewer's read-only page.
func TestBrowserWebhooksPage(t *testing.T) {
	if testing.Short() {
		t.Skip("browser test")
	}
	s := startStack(t, map[string]string{"ALLOW_LOCALHOST_URLS": "true"})
	base := s.api.URL
	hook := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusNoContent) }))
	t.Cleanup(hook.Close)
	p := browsertest.NewPage(t, "en", "dashboard/")
	run := p.Do
	check := func(name string) { t.Helper(); p.Check(name); noSidewaysScroll(t, p, name) }
	text := func(id string) string { t.Helper(); return p.Text("#" + id) }

	run(chromedp.Navigate(base+"/dashboard/sign-in?lang=en"), chromedp.WaitVisible(chromedp.ID("f-email")),
		chromedp.SendKeys(chromedp.ID("f-email"), s.api.Creds.DashboardEmail),
		chromedp.SendKeys(chromedp.ID("f-password"), s.api.Creds.DashboardPassword),
		chromedp.Click(chromedp.ID("sign-in-submit")), chromedp.WaitVisible(chromedp.ID("home-workspace")))
	run(chromedp.Navigate(base+"/dashboard/webhook-secrets?lang=en"), chromedp.Click(chromedp.ID("secret-issue-sandbox")),
		chromedp.WaitVisible(chromedp.ID("issued-secret")))
	ev := refundEvent(t, s, hook.URL+"/hook") // a refund's event, waiting: its row has a Resend button

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
		// The old page is marked: the resend's answer (a new page) is the one without the mark.
		run(chromedp.Navigate(base+"/dashboard/webhooks?lang="+l), chromedp.WaitVisible(chromedp.ID("resend-"+ev)),
			chromedp.Evaluate[chromedp.Void](`document.body.dataset.before = "1"`),
			chromedp.Click(chromedp.ID("resend-"+ev)), chromedp.WaitNotPresent(chromedp.CSS("body[data-before]")),
			chromedp.WaitVisible(chromedp.ID("delivery-refund-"+ev)))
		check("webhooks-refund-resent-" + l)
	}

	// The viewer's page: everything shown, nothing to send.
	token := s.memberSession(t, "viewer@journey.example.com.bd", auth.RoleViewer)
	cc, cancel := context.WithTimeout(p.Ctx, browsertest.StepTimeout)
	defer cancel()
	if _, err := chromedp.Call(cc, network.SetCookie, network.SetCookieParams{Name: auth.SessionCookie, Value: token, URL: base + "/"}); err != nil {
		t.Fatal(err)
	}
	for _, l := range []string{"bn", "en"} {
		run(chromedp.Navigate(base+"/dashboard/webhooks?lang="+l), chromedp.WaitVisible(chromedp.ID("test-readonly")))
		check("webhooks-viewer-" + l)
	}
}

// refundEvent completes a payment with webhook_url hook and asks for a refund of it (its
// refund.requested recorded, not enqueued); it returns the event's id.
func refundEvent(t *testing.T, s *stack, hook string) string {
	t.Helper()
	a := s.api
	res := a.Do(t, "POST", "/v1/payment/create", a.Creds.SandboxKey, `{"amount": 80, "webhook_url": "`+hook+`"}`)
	var c struct {
		InvoiceID  string `json:"invoice_id"`
		PaymentURL string `json:"payment_url"`
	}
	if err := json.Unmarshal(res.Body, &c); err != nil || res.Status != 201 {
		t.Fatalf("create: %d %s", res.Status, res.Body)
	}
	u, _ := url.Parse(c.PaymentURL)
	if r := a.Do(t, "POST", u.Path+"/lock", "", `{"route":"bkash","payer":"01712345678"}`); r.Status != 200 {
		t.Fatalf("lock: %d %s", r.Status, r.Body)
	}
	if r := a.Do(t, "POST", u.Path+"/notices/approve", "", ""); r.Status != 200 {
		t.Fatalf("approve: %d %s", r.Status, r.Body)
	}
	r, err := (&refund.Service{Store: a.Store}).Create(t.Context(), refund.Scope{WorkspaceID: a.Creds.WorkspaceID, Environment: auth.Sandbox, By: "key_browser"},
		refund.CreateInput{PaymentID: c.InvoiceID, AmountMinor: 1000, Reason: refund.ReasonNotDelivered, RequestedBy: refund.ByMerchant})
	if err != nil || len(r.Events) != 1 {
		t.Fatalf("refund: %+v %v", r, err)
	}
	return r.Events[0].EventID
}
