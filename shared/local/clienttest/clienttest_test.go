package clienttest_test

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	standardwebhooks "github.com/standard-webhooks/standard-webhooks/libraries/go"

	"github.com/takapay/payments/shared/local/clienttest"
)

// The harness itself, driven by plain net/http as a client would drive it: a payment created
// through the recorder, approved and delivered through the control server, the delivery
// verified with the Standard Webhooks library, and the recorder's contract check passing for
// a conforming client and naming what a broken one sent.
func TestHarness(t *testing.T) {
	h := clienttest.Start(t)
	post := func(url, body string, headers ...string) *http.Response {
		t.Helper()
		req, _ := http.NewRequest("POST", url, strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("User-Agent", "clienttest/1")
		for i := 0; i+1 < len(headers); i += 2 {
			req.Header.Set(headers[i], headers[i+1])
		}
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { res.Body.Close() })
		return res
	}
	res := post(h.URL+"/v1/payment/create", `{"amount": 150.50, "reference": "order-1", "webhook_url": "`+h.ReceiverURL+`"}`,
		"Authorization", "Bearer "+h.API.Creds.SandboxKey, "Idempotency-Key", "harness-key-0000000001")
	var created struct {
		InvoiceID  string `json:"invoice_id"`
		PaymentURL string `json:"payment_url"`
	}
	if err := json.NewDecoder(res.Body).Decode(&created); err != nil || res.StatusCode != 201 {
		t.Fatalf("create: %d %v", res.StatusCode, err)
	}
	if r := post(h.ControlURL+"/approve", `{"payment_url": "`+created.PaymentURL+`"}`); r.StatusCode != 200 {
		t.Fatalf("approve: %d", r.StatusCode)
	}
	if r := post(h.ControlURL+"/drain", ``); r.StatusCode != 200 {
		t.Fatalf("drain: %d", r.StatusCode)
	}
	dres, err := http.Get(h.ControlURL + "/deliveries")
	if err != nil {
		t.Fatal(err)
	}
	defer dres.Body.Close()
	var ds []clienttest.Delivery
	if err := json.NewDecoder(dres.Body).Decode(&ds); err != nil || len(ds) != 1 || !strings.Contains(ds[0].Body, created.InvoiceID) {
		t.Fatalf("deliveries: %+v %v", ds, err)
	}
	wh, err := standardwebhooks.NewWebhook(h.Secret)
	if err != nil {
		t.Fatal(err)
	}
	hdr := http.Header{"Webhook-Id": {ds[0].ID}, "Webhook-Timestamp": {ds[0].Timestamp}, "Webhook-Signature": {ds[0].Signature}}
	if err := wh.Verify([]byte(ds[0].Body), hdr); err != nil {
		t.Fatalf("the delivery does not verify: %v", err)
	}
	if p := h.ContractProblems(); len(p) != 0 {
		t.Fatalf("a conforming client: %v", p)
	}

	// A client that sends a float amount, no Idempotency-Key and an unpublished method.
	post(h.URL+"/v1/payment/create", `{"amount": true, "reference": "order-2"}`, "Authorization", "Bearer "+h.API.Creds.SandboxKey)
	req, _ := http.NewRequest("DELETE", h.URL+"/v1/payment/verify", nil)
	req.Header.Set("User-Agent", "clienttest/1")
	if r, err := http.DefaultClient.Do(req); err == nil {
		r.Body.Close()
	}
	p := strings.Join(h.ContractProblems(), "\n")
	for _, want := range []string{"no Idempotency-Key", "DELETE /v1/payment/verify is not a published operation", "amount"} {
		if !strings.Contains(p, want) {
			t.Errorf("the contract check does not say %q:\n%s", want, p)
		}
	}
	h.Forget() // checked above: the harness's own check at the end would fail the test for them
}
