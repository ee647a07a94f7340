//go:build !race

package dashboard_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/takapay/payments/shared/auth"
	"github.com/takapay/payments/shared/local/browsertest"
	"github.com/takapay/payments/shared/local/registry"
	"github.com/takapay/payments/shared/webhook"
)

// TestBrowserPaymentsPages: the payments pages in Chromium, signed in as the seeded owner —
// the list, a refused filter, a paid payment with its delivery attempts, a pending one — each
// checked with axe-core (WCAG 2.1 AA, 0 violations), for sideways scroll at 360 and 390 px
// (noSidewaysScroll) and photographed in both languages:
// .artifacts/dashboard/payments-*.png. Then the pending payment is cancelled with its button.
func TestBrowserPaymentsPages(t *testing.T) {
	if testing.Short() {
		t.Skip("browser test")
	}
	api := startPaymentsStack(t).api
	rc := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusNoContent) }))
	t.Cleanup(rc.Close)
	if _, err := api.Operator(t).IssueWebhookSecret(context.Background(), api.Creds.WorkspaceID, auth.Sandbox); err != nil {
		t.Fatal(err)
	}
	var ids []string
	for i, body := range []string{`{"amount": 2500, "reference": "শাড়ি-১"}`, `{"amount": 99.99, "reference": "order-pending"}`} {
		res := api.Do(t, "POST", "/v1/payment-intents", api.Creds.SandboxKey, body, "Idempotency-Key", fmt.Sprintf("browser-payments-%04d", i))
		if res.Status != 201 {
			t.Fatalf("create: %d %s", res.Status, res.Body)
		}
		ids = append(ids, jsonField(t, res.Body, "id"))
	}
	p := browsertest.NewPage(t, "en", "dashboard/")
	base := api.URL
	run := p.Do
	both := func(name, path string) { t.Helper(); bothFit(t, p, name, base+path) }
	c := api.Creds
	run(chromedp.Navigate(base+"/dashboard/sign-in"), chromedp.WaitVisible(chromedp.ID("f-email")),
		chromedp.SendKeys(chromedp.ID("f-email"), c.DashboardEmail), chromedp.SendKeys(chromedp.ID("f-password"), c.DashboardPassword),
		chromedp.Click(chromedp.ID("sign-in-submit")), chromedp.WaitVisible(chromedp.ID("home-workspace")))

	// The first one is paid with a webhook: create it with one, pay it, deliver it.
	res := api.Do(t, "POST", "/v1/payment-intents", api.Creds.SandboxKey,
		`{"amount": 1500.50, "reference": "order-hook", "webhook_url": "`+rc.URL+`/hooks"}`, "Idempotency-Key", "browser-payments-hook")
	if res.Status != 201 {
		t.Fatalf("create: %d %s", res.Status, res.Body)
	}
	hook, payURL := jsonField(t, res.Body, "id"), jsonField(t, res.Body, "payment_url")
	path := payURL[strings.Index(payURL, "/v1/"):]
	if r := api.Do(t, "POST", path+"/lock", "", `{"route":"nagad","payer":"01812345678"}`); r.Status != 200 {
		t.Fatalf("lock: %d", r.Status)
	}
	if r := api.Do(t, "POST", path+"/notices/approve", "", ""); r.Status != 200 {
		t.Fatalf("approve: %d", r.Status)
	}
	pay, _ := api.Store.GetPayment(context.Background(), hook)
	registry.WebhookSender(api.Deps["WebhookSenderFunction"]).Deliver(context.Background(), webhook.Message{InvoiceID: hook, EventID: pay.Outbox.EventID})

	both("payments-list", "/dashboard/payments")
	both("payments-invalid", "/dashboard/payments?from=2026-02-31&status=PAID")
	both("payments-empty", "/dashboard/payments?status=FAILED")
	both("payment-completed", "/dashboard/payments/"+hook)
	both("payment-pending", "/dashboard/payments/"+ids[1])
	run(chromedp.Navigate(base+"/dashboard/payments/"+ids[1]), chromedp.WaitVisible(chromedp.ID("cancel-payment")),
		chromedp.Click(chromedp.ID("cancel-payment")), chromedp.WaitVisible(chromedp.ID("notice")))
	text, err := browsertest.Run(p.Ctx, chromedp.Text(chromedp.ID("payment-status")))
	if err != nil || !strings.Contains(text, "Cancelled") {
		t.Errorf("after cancel the status reads %q (%v)", text, err)
	}
	both("payment-cancelled", "/dashboard/payments/"+ids[1]+"?notice=cancelled")
}
