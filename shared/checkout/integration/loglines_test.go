package integration_test

import (
	"encoding/hex"
	"encoding/json"
	"net/http"
	"net/url"
	"testing"

	"github.com/takapay/payments/shared/local/localapi"
)

// Every payment create and verify and every checkout request logs the invoice id it is about
// (invoice_id), so one query finds a payment's requests; an event a checkout request records
// keeps the request's correlation id.
func TestRequestLogLinesCarryInvoiceID(t *testing.T) {
	t.Parallel()
	a := start(t, nil)
	logged := func(what string, res *localapi.Result, status int, invoiceID string) {
		t.Helper()
		if res.Status != status {
			t.Fatalf("%s: %d %s", what, res.Status, res.Body)
		}
		line := a.Logs.Request(res.Header.Get("X-Correlation-Id"))
		if line == nil || line["invoice_id"] != invoiceID {
			t.Errorf("%s: request line %v, want invoice_id %s", what, line, invoiceID)
		}
	}
	body := `{"amount": 12, "webhook_url": "https://hooks.shop.com.bd/takapay"}`
	res := a.Do(t, "POST", "/v1/payment/create", a.Creds.SandboxKey, body, "Idempotency-Key", "log-line-create-0001")
	var c struct {
		InvoiceID  string `json:"invoice_id"`
		PaymentURL string `json:"payment_url"`
	}
	if err := json.Unmarshal(res.Body, &c); err != nil {
		t.Fatal(err)
	}
	logged("create", res, http.StatusCreated, c.InvoiceID)
	logged("create replay", a.Do(t, "POST", "/v1/payment/create", a.Creds.SandboxKey, body, "Idempotency-Key", "log-line-create-0001"),
		http.StatusCreated, c.InvoiceID)
	logged("create with the key reused", a.Do(t, "POST", "/v1/payment/create", a.Creds.SandboxKey, `{"amount": 13}`, "Idempotency-Key", "log-line-create-0001"),
		http.StatusConflict, c.InvoiceID)
	logged("verify", a.Do(t, "POST", "/v1/payment/verify", a.Creds.SandboxKey, `{"invoice_id":"`+c.InvoiceID+`"}`), http.StatusOK, c.InvoiceID)
	other := "0196a000-0000-7000-8000-000000000001"
	logged("verify of no such payment", a.Do(t, "POST", "/v1/payment/verify", a.Creds.SandboxKey, `{"invoice_id":"`+other+`"}`),
		http.StatusNotFound, other)

	u, _ := url.Parse(c.PaymentURL)
	logged("view", a.Do(t, "GET", u.Path, "", ""), http.StatusOK, c.InvoiceID)
	logged("lock", a.Do(t, "POST", u.Path+"/lock", "", `{"route":"bkash","payer":"01712345678"}`), http.StatusOK, c.InvoiceID)
	approve := a.Do(t, "POST", u.Path+"/notices/approve", "", "")
	logged("approve", approve, http.StatusOK, c.InvoiceID)
	logged("approve again", a.Do(t, "POST", u.Path+"/notices/approve", "", ""), http.StatusOK, c.InvoiceID)
	logged("decline after approve", a.Do(t, "POST", u.Path+"/notices/decline", "", ""), http.StatusConflict, c.InvoiceID)

	p, err := a.Store.GetPayment(t.Context(), c.InvoiceID)
	if err != nil || p.Outbox == nil || hex.EncodeToString(p.Outbox.CID) != approve.Header.Get("X-Correlation-Id") {
		t.Errorf("the approve's event: %+v (%v), want the approve's correlation id %s", p.Outbox, err, approve.Header.Get("X-Correlation-Id"))
	}
}
