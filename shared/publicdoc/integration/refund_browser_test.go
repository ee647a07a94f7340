//go:build !race

// Excluded from -race builds like the other browser tests (chromedp v0.23 races on its own).

package integration_test

import (
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/takapay/payments/shared/local/browsertest"
	"github.com/takapay/payments/shared/local/localapi"
)

// A paid invoice's payer asks for a refund from the invoice's page in Chromium, in Bangla and
// in English, without script: the form (axe 0, no sideways scroll at 360 px), then the page
// says requested. Screenshots in .artifacts/refund-invoice/.
func TestBrowserPaidInvoiceRefund(t *testing.T) {
	if testing.Short() {
		t.Skip("browser test")
	}
	browsertest.Chromium(t)
	a := localapi.StartTestAPI(t, localapi.Options{AllowLocalhostURLs: true})
	p := browsertest.NewPage(t, "", "refund-invoice/")
	axe := browsertest.AxeSource(t)
	for _, c := range []struct{ lang, requested string }{
		{"bn", "রিফান্ডের অনুরোধ করেছেন"},
		{"en", "You asked for a refund of ৳900.00"},
	} {
		_, token := newDocument(t, a, "invoices", `{"reference": "INV-REFUND-`+c.lang+`",
			"items": [{"title": "Saree", "quantity": 1, "unit_amount_minor": 90000}]}`, "issue")
		_, pay := postPay(t, a, token, `{"payer": {"name": "Karim", "phone": "01712345678"}}`)
		for _, step := range []struct{ suffix, body string }{{"/lock", `{"route":"bkash","payer":"01712345678"}`}, {"/notices/approve", ""}} {
			if r := a.Do(t, "POST", checkoutPath(pay.PaymentURL)+step.suffix, "", step.body); r.Status != 200 {
				t.Fatalf("%s: %d %s", step.suffix, r.Status, r.Body)
			}
		}
		settle(t, a)
		page := browsertest.WithLang(a.URL+"/v1/public/documents/"+token, c.lang)
		p.Do(chromedp.Navigate(page), chromedp.WaitVisible(chromedp.ID("refund-form")))
		p.Check("form-" + c.lang)
		browsertest.CheckWidths(t, p.Ctx, axe, "refund-invoice/form", c.lang)
		p.Do(
			chromedp.SetValue(chromedp.ID("refund-reason"), "goods_returned"),
			chromedp.SendKeys(chromedp.ID("refund-contact"), "karim@example.com"),
			chromedp.Click(chromedp.ID("refund-submit")),
			chromedp.WaitVisible(chromedp.ID("refund-status")),
		)
		if got := p.Text("#refund-status"); !strings.Contains(got, c.requested) {
			t.Errorf("%s: the page says %q, want %q", c.lang, got, c.requested)
		}
		p.Check("requested-" + c.lang)
	}
}
