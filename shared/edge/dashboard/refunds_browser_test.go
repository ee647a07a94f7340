//go:build !race

// Excluded from -race builds like the other browser tests (chromedp races on its own); make
// test's browser line runs it.

package dashboard_test

import (
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/takapay/payments/shared/auth"
	"github.com/takapay/payments/shared/local/browsertest"
	"github.com/takapay/payments/shared/refund"
)

// The refund pages' states a GET does not reach, sent from the pages' own forms in Chromium, in
// both languages at 360×740, 390×844 and 1366×900: no sideways scroll and 0 axe-core
// violations (TestBrowserWidths opens the pages themselves). The Refund form refused (its
// amount and reason named in the summary), the asker's own refund above the two-person amount
// (the message instead of Approve), a reject without its reason, and a bad two-person amount.
// Screenshots: .artifacts/widths/dashboard/refund-state-<state>-<lang>-<width>.png.
func TestBrowserRefundStates(t *testing.T) {
	if testing.Short() {
		t.Skip("browser test")
	}
	s := startPaymentsStack(t)
	a := s.api
	pay := paidPayment(t, a, "refund-states", "1000")
	if err := a.Store.PutRefundPolicy(t.Context(), a.Creds.WorkspaceID, refund.Policy{TwoPersonMinor: 5000}); err != nil {
		t.Fatal(err)
	}
	ctx := browsertest.New(t, "en")
	axeSource := browsertest.AxeSource(t)
	if err := browsertest.Do(ctx, chromedp.Navigate(a.URL+"/dashboard/sign-in"), chromedp.WaitVisible(chromedp.ID("f-email")),
		chromedp.SendKeys(chromedp.ID("f-email"), a.Creds.DashboardEmail), chromedp.SendKeys(chromedp.ID("f-password"), a.Creds.DashboardPassword),
		chromedp.Click(chromedp.ID("sign-in-submit")), chromedp.WaitVisible(chromedp.ID("home-workspace"))); err != nil {
		t.Fatalf("sign in: %v", err)
	}
	step := func(what string, actions ...chromedp.Action[chromedp.Void]) {
		t.Helper()
		if err := browsertest.Do(ctx, actions...); err != nil {
			body, _ := browsertest.Run(ctx, chromedp.Text(chromedp.CSS("main")))
			t.Fatalf("%s: %v\n%.1500s", what, err, body)
		}
	}
	svc := &refund.Service{Store: a.Store}
	scope := refund.Scope{WorkspaceID: a.Creds.WorkspaceID, Environment: auth.Sandbox}
	for _, l := range []string{"bn", "en"} {
		payURL := a.URL + browsertest.WithLang("/dashboard/payments/"+pay, l)
		step("refund form refused", chromedp.Navigate(payURL), chromedp.WaitVisible(chromedp.ID("f-amount")),
			chromedp.SetValue(chromedp.ID("f-amount"), "12.345"), chromedp.Submit(chromedp.ID("refund-form")),
			chromedp.WaitVisible(chromedp.ID("f-amount-error")))
		browsertest.CheckWidths(t, ctx, axeSource, "widths/dashboard/refund-state-form-invalid", l)

		step("refund asked for", chromedp.Navigate(payURL), chromedp.WaitVisible(chromedp.ID("f-amount")),
			chromedp.SetValue(chromedp.ID("f-amount"), "60"), chromedp.Submit(chromedp.ID("refund-form")),
			chromedp.WaitVisible(chromedp.ID("payment-refunds")))
		pg, err := svc.List(t.Context(), scope, refund.ListQuery{PaymentID: pay, Limit: 1})
		if err != nil || len(pg.Refunds) != 1 {
			t.Fatalf("the refund just asked for: %v %v", pg, err)
		}
		refURL := a.URL + browsertest.WithLang("/dashboard/refunds/"+pg.Refunds[0].ID, l)
		step("the asker's own refund", chromedp.Navigate(refURL), chromedp.WaitVisible(chromedp.ID("two-person")))
		browsertest.CheckWidths(t, ctx, axeSource, "widths/dashboard/refund-state-two-person", l)

		step("reject without a reason", chromedp.Submit(chromedp.ID("refund-reject-form")), chromedp.WaitVisible(chromedp.ID("f-reject-reason-error")))
		browsertest.CheckWidths(t, ctx, axeSource, "widths/dashboard/refund-state-reject-invalid", l)

		step("a bad two-person amount", chromedp.Navigate(a.URL+browsertest.WithLang("/dashboard/refunds", l)), chromedp.WaitVisible(chromedp.ID("f-two_person")),
			chromedp.SetValue(chromedp.ID("f-two_person"), "-5"), chromedp.Submit(chromedp.ID("refund-policy-form")),
			chromedp.WaitVisible(chromedp.ID("f-two_person-error")))
		browsertest.CheckWidths(t, ctx, axeSource, "widths/dashboard/refund-state-policy-invalid", l)
	}
}
