//go:build !race

// Excluded from -race builds like the other browser tests (chromedp v0.23 races on its own).

package integration_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/takapay/payments/shared/auth"
	"github.com/takapay/payments/shared/local/browsertest"
	"github.com/takapay/payments/shared/local/localapi"
	"github.com/takapay/payments/shared/refund"
)

// A payer on the completed checkout page asks for a refund, in Bangla and in English, in
// Chromium without help from script: the form (axe 0, 360 px without sideways scroll), an
// empty post refused with the error summary, the request sent (the page says requested);
// the merchant rejects it through the rule (as the dashboard does) and the payer's page says
// rejected, with the merchant's reason. Screenshots in .artifacts/refund/.
func TestBrowserPayerRefund(t *testing.T) {
	if testing.Short() {
		t.Skip("browser test")
	}
	chromiumPath(t)
	a := localapi.StartTestAPI(t, localapi.Options{AllowLocalhostURLs: true})
	p := browsertest.NewPage(t, "", "refund/")
	axe := browsertest.AxeSource(t)
	svc := &refund.Service{Store: a.Store}
	merchant := refund.Scope{WorkspaceID: a.Creds.WorkspaceID, Environment: auth.Sandbox, By: "user_merchant"}
	for _, c := range []struct{ lang, requested, rejected, summary string }{
		{"bn", "রিফান্ডের অনুরোধ করেছেন", "প্রত্যাখ্যান", "ফর্মটি আবার দেখুন"},
		{"en", "You asked for a refund of ৳1,500.00", "rejected your request", "Please check the form"},
	} {
		res := a.Do(t, "POST", "/v1/payment/create", a.Creds.SandboxKey, `{"amount": 1500, "reference": "refund-`+c.lang+`"}`)
		var cr struct {
			InvoiceID  string `json:"invoice_id"`
			PaymentURL string `json:"payment_url"`
		}
		if err := json.Unmarshal(res.Body, &cr); err != nil || res.Status != 201 {
			t.Fatalf("create: %d %s", res.Status, res.Body)
		}
		path := cr.PaymentURL[strings.Index(cr.PaymentURL, "/v1/"):]
		for _, step := range []struct{ suffix, body string }{{"/lock", `{"route":"bkash","payer":"01712345678"}`}, {"/notices/approve", ""}} {
			if r := a.Do(t, "POST", path+step.suffix, "", step.body); r.Status != 200 {
				t.Fatalf("%s: %d %s", step.suffix, r.Status, r.Body)
			}
		}
		page := browsertest.WithLang(cr.PaymentURL, c.lang)
		p.Do(chromedp.Navigate(page), chromedp.WaitVisible(chromedp.ID("refund-form")))
		p.Check("form-" + c.lang)
		browsertest.CheckWidths(t, p.Ctx, axe, "refund/form", c.lang)
		p.Do(chromedp.Click(chromedp.ID("refund-submit")), chromedp.WaitVisible(chromedp.ID("error-summary")))
		if got := p.Text("#error-summary"); !strings.Contains(got, c.summary) {
			t.Errorf("%s: the refused form says %q", c.lang, got)
		}
		p.Check("refused-" + c.lang)
		p.Do(
			chromedp.SetValue(chromedp.ID("refund-reason"), "not_delivered"),
			chromedp.SendKeys(chromedp.ID("refund-note"), "<b>never came</b>"),
			chromedp.SendKeys(chromedp.ID("refund-contact"), "০১৮১২-৩৪৫৬৭৮"),
			chromedp.Click(chromedp.ID("refund-submit")),
			chromedp.WaitVisible(chromedp.ID("refund-status")),
		)
		if got := p.Text("#refund-status"); !strings.Contains(got, c.requested) {
			t.Errorf("%s: the page says %q, want %q", c.lang, got, c.requested)
		}
		if got := p.Text("#refund-note-shown"); !strings.Contains(got, "<b>never came</b>") {
			t.Errorf("%s: the note shows as %q", c.lang, got)
		}
		p.Check("requested-" + c.lang)
		browsertest.CheckWidths(t, p.Ctx, axe, "refund/requested", c.lang)

		r, _, err := svc.PayerRequest(t.Context(), cr.InvoiceID)
		if err != nil || r == nil || r.PayerContact != "01812345678" || r.RequestedBy != refund.ByPayer {
			t.Fatalf("%s: the request %+v %v", c.lang, r, err)
		}
		if _, err := svc.Transition(t.Context(), merchant, r.ID, refund.Reject, refund.TransitionInput{Reason: "The parcel was signed for on 3 December"}); err != nil {
			t.Fatal(err)
		}
		p.Do(chromedp.Navigate(page), chromedp.WaitVisible(chromedp.ID("refund-rejection")))
		if got := p.Text("#refund-status"); !strings.Contains(got, c.rejected) {
			t.Errorf("%s: the page says %q, want %q", c.lang, got, c.rejected)
		}
		if got := p.Text("#refund-rejection"); !strings.Contains(got, "The parcel was signed for on 3 December") {
			t.Errorf("%s: the rejection reads %q", c.lang, got)
		}
		p.Check("rejected-" + c.lang)
	}
}
