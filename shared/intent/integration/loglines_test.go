package integration_test

import (
	"encoding/hex"
	"net/http"
	"testing"

	"github.com/takapay/payments/shared/local/localapi"
)

// Every request about one payment intent logs its id as invoice_id (the one id space of
// payments and intents); a cancel's event keeps the cancel's correlation id.
func TestIntentRequestLogLinesCarryInvoiceID(t *testing.T) {
	t.Parallel()
	a := start(t)
	logged := func(what string, res *localapi.Result, status int, id string) {
		t.Helper()
		if res.Status != status {
			t.Fatalf("%s: %d %s", what, res.Status, res.Body)
		}
		line := a.Logs.Request(res.Header.Get("X-Correlation-Id"))
		if line == nil || line["invoice_id"] != id {
			t.Errorf("%s: request line %v, want invoice_id %s", what, line, id)
		}
	}
	key := idemKey()
	body := `{"amount": 10, "webhook_url": "https://hooks.shop.com.bd/takapay"}`
	it, res := createIntent(t, a, key, body)
	logged("create", res, http.StatusCreated, it.ID)
	logged("create replay", a.Do(t, "POST", "/v1/payment-intents", a.Creds.SandboxKey, body, "Idempotency-Key", key), http.StatusCreated, it.ID)
	logged("get", a.Do(t, "GET", "/v1/payment-intents/"+it.ID, a.Creds.SandboxKey, ""), http.StatusOK, it.ID)
	logged("verify-transaction", a.Do(t, "POST", "/v1/payment-intents/"+it.ID+"/verify-transaction", a.Creds.SandboxKey, ""), http.StatusOK, it.ID)
	cancel := a.Do(t, "POST", "/v1/payment-intents/"+it.ID+"/cancel", a.Creds.SandboxKey, "")
	logged("cancel", cancel, http.StatusOK, it.ID)
	other := "0196a000-0000-7000-8000-000000000002"
	logged("get of no such intent", a.Do(t, "GET", "/v1/payment-intents/"+other, a.Creds.SandboxKey, ""), http.StatusNotFound, other)

	p, err := a.Store.GetPayment(t.Context(), it.ID)
	if err != nil || p.Outbox == nil || hex.EncodeToString(p.Outbox.CID) != cancel.Header.Get("X-Correlation-Id") {
		t.Errorf("the cancel's event: %+v (%v), want the cancel's correlation id", p.Outbox, err)
	}
}
