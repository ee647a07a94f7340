package integration_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/takapay/payments/shared/local/localapi"
	"github.com/takapay/payments/shared/refund"
)

// A paid invoice's page offers the payer's refund request: its form (posted to the page's own
// path, form=refund) refused comes back with the payer's words and values; sent, it is 303
// back to the page, which shows the request; a second is the same request; a cross-site form
// is refused.
func TestPaidInvoiceRefundForm(t *testing.T) {
	t.Parallel()
	a := localapi.StartTestAPI(t, localapi.Options{})
	_, token := newDocument(t, a, "invoices", `{"reference": "INV-REFUND-1",
		"items": [{"title": "Saree", "quantity": 1, "unit_amount_minor": 90000}]}`, "issue")
	page := "/v1/public/documents/" + token
	if res := a.Do(t, "GET", page, "", "", "Accept", "text/html"); strings.Contains(string(res.Body), `id="refund"`) {
		t.Fatal("a payable invoice offers a refund")
	}
	_, pay := postPay(t, a, token, `{"payer": {"name": "Karim", "phone": "01712345678"}}`)
	for _, step := range []struct{ suffix, body string }{{"/lock", `{"route":"bkash","payer":"01712345678"}`}, {"/notices/approve", ""}} {
		if r := a.Do(t, "POST", checkoutPath(pay.PaymentURL)+step.suffix, "", step.body); r.Status != 200 {
			t.Fatalf("%s: %d %s", step.suffix, r.Status, r.Body)
		}
	}
	settle(t, a)
	res := a.Do(t, "GET", page, "", "", "Accept", "text/html")
	if !strings.Contains(string(res.Body), `id="refund-form"`) || !strings.Contains(string(res.Body), `name="form" value="refund"`) {
		t.Fatalf("the paid invoice's page has no refund form: %s", res.Body)
	}
	form := []string{"Content-Type", "application/x-www-form-urlencoded", "Origin", a.URL, "Accept", "text/html"}
	res = a.DoNoRedirect(t, "POST", page+"?lang=bn", "", "form=refund&reason=other&note=%3Cb%3Ex%3C%2Fb%3E&contact=nope", form...)
	if res.Status != 422 || !strings.Contains(string(res.Body), `id="error-summary"`) || !strings.Contains(string(res.Body), "&lt;b&gt;x&lt;/b&gt;</textarea>") ||
		!strings.Contains(string(res.Body), `value="nope"`) {
		t.Fatalf("refused: %d %s", res.Status, res.Body)
	}
	res = a.DoNoRedirect(t, "POST", page, "", "form=refund&reason=other&contact=01712345678",
		"Content-Type", "application/x-www-form-urlencoded", "Sec-Fetch-Site", "cross-site", "Accept", "text/html")
	if res.Status != 403 {
		t.Fatalf("cross-site: %d", res.Status)
	}
	for range 2 {
		res = a.DoNoRedirect(t, "POST", page, "", "form=refund&reason=goods_returned&contact=karim%40example.com", form...)
		if res.Status != http.StatusSeeOther || res.Header.Get("Location") != page+"#refund" {
			t.Fatalf("sent: %d -> %q", res.Status, res.Header.Get("Location"))
		}
	}
	res = a.Do(t, "GET", page, "", "", "Accept", "text/html")
	if !strings.Contains(string(res.Body), `data-status="REQUESTED"`) || strings.Contains(string(res.Body), `id="refund-form"`) {
		t.Fatalf("the page after the request: %s", res.Body)
	}
	p, err := a.Store.RefundPayment(t.Context(), pay.IntentID)
	if err != nil || p == nil || len(p.Claims) != 1 || p.Promised != 90000 {
		t.Fatalf("ledger %+v %v", p, err)
	}
	r, err := a.Store.GetRefund(t.Context(), a.Creds.WorkspaceID, p.Environment, p.PayerRequest)
	if err != nil || r.PayerContact != "karim@example.com" || r.RequestedBy != refund.ByPayer {
		t.Fatalf("refund %+v %v", r, err)
	}
}
