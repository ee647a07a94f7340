package integration_test

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/takapay/payments/shared/auth"
	"github.com/takapay/payments/shared/local/apitest"
	"github.com/takapay/payments/shared/local/localapi"
	"github.com/takapay/payments/shared/refund"
)

type payerRefund struct {
	Object, ID, PaymentID, Status, Reason, Note, RequestedBy, RejectionReason string
	AmountMinor                                                               int64
}

func decodeRefund(t *testing.T, res *localapi.Result) payerRefund {
	t.Helper()
	var r struct {
		Object          string `json:"object"`
		ID              string `json:"id"`
		PaymentID       string `json:"payment_id"`
		Status          string `json:"status"`
		Reason          string `json:"reason"`
		Note            string `json:"note"`
		RequestedBy     string `json:"requested_by"`
		RejectionReason string `json:"rejection_reason"`
		AmountMinor     int64  `json:"amount_minor"`
	}
	if err := json.Unmarshal(res.Body, &r); err != nil {
		t.Fatalf("refund %s: %v", res.Body, err)
	}
	return payerRefund{r.Object, r.ID, r.PaymentID, r.Status, r.Reason, r.Note, r.RequestedBy, r.RejectionReason, r.AmountMinor}
}

// completedPayment is a sandbox payment the payer paid (locked, approved).
func completedPayment(t *testing.T, a *localapi.TestAPI) created {
	t.Helper()
	p := newPayment(t, a, merchantBody)
	if res := a.Do(t, "POST", p.Page+"/lock", "", `{"route": "bkash", "payer": "01712345678"}`); res.Status != 200 {
		t.Fatalf("lock: %d %s", res.Status, res.Body)
	}
	if res := a.Do(t, "POST", p.Page+"/notices/approve", "", ""); res.Status != 200 {
		t.Fatalf("approve: %d %s", res.Status, res.Body)
	}
	return p
}

// The payer's JSON door: bad input is 422 naming each field and writes nothing; a request is
// 201 REQUESTED of the whole amount, asked by the payer, showing nothing of the contact, the
// merchant or who acted; a second answers it (200); a PENDING payment is 409; once the
// merchant rejects it, the next is a new one; nothing left to refund is 409.
func TestPayerRefundRequest(t *testing.T) {
	t.Parallel()
	a := start(t, nil)
	pending := newPayment(t, a, merchantBody)
	apitest.Envelope(t, a.Do(t, "POST", pending.Page+"/refunds", "", `{"reason":"other","contact":"01712345678"}`), 409, "STATE_CONFLICT")
	p := completedPayment(t, a)
	res := a.Do(t, "POST", p.Page+"/refunds", "", `{"reason":"angry","note":"`+strings.Repeat("ন", 256)+`","contact":"0171"}`)
	apitest.Envelope(t, res, 422, "VALIDATION_FAILED")
	for _, field := range []string{"body.reason", "body.note", "body.contact"} {
		if !strings.Contains(string(res.Body), field) {
			t.Errorf("422 does not name %s: %s", field, res.Body)
		}
	}
	apitest.Envelope(t, a.Do(t, "POST", p.Page+"/refunds", "", `{"reason":"other","contact":"01712345678","amount_minor":5}`), 422, "VALIDATION_FAILED")
	apitest.Envelope(t, a.Do(t, "POST", p.Page+"/refunds", "", `{"reason":`), 400, "MALFORMED_REQUEST")
	if l, _ := ledger(t, a, p.InvoiceID); l.PayerRequest != "" || l.Promised != 0 {
		t.Fatalf("a refusal wrote: %+v", l)
	}
	body := `{"reason":"not_delivered","note":"<b>never came</b>","contact":"+880 1812-345678"}`
	res = a.Do(t, "POST", p.Page+"/refunds", "", body)
	r := decodeRefund(t, res)
	if res.Status != 201 || r.Object != "refund" || r.Status != "REQUESTED" || r.AmountMinor != 150000 || r.RequestedBy != "payer" ||
		r.PaymentID != p.InvoiceID || r.Note != "<b>never came</b>" {
		t.Fatalf("request: %d %s", res.Status, res.Body)
	}
	for _, hidden := range []string{"01812345678", "history", "metadata", "key_", a.Creds.WorkspaceID} {
		if strings.Contains(string(res.Body), hidden) {
			t.Errorf("the payer's view shows %q: %s", hidden, res.Body)
		}
	}
	// The first request of a payment: the page's read, the ledger's read, naming the request
	// on the payment, the refund PENDING_CLAIM, the payment's first claim (an update that finds
	// no map, a read, the map written whole), the refund REQUESTED; and, counted apart, one
	// lease write per limit.
	if n := apitest.DDBRequests(t, a, res); n != 8 {
		t.Errorf("a payer's first request made %d DynamoDB requests, want 8", n)
	}
	again := a.Do(t, "POST", p.Page+"/refunds", "", `{"reason":"other","contact":"a@b.com"}`)
	if again.Status != 200 || decodeRefund(t, again).ID != r.ID {
		t.Fatalf("again: %d %s", again.Status, again.Body)
	}
	if n := apitest.DDBRequests(t, a, again); n != 3 { // the page's read, the ledger's, the open request's
		t.Errorf("a repeat made %d DynamoDB requests, want 3 (no write)", n)
	}
	stored, err := a.Store.GetRefund(t.Context(), a.Creds.WorkspaceID, auth.Sandbox, r.ID)
	if err != nil || stored.PayerContact != "01812345678" || stored.History[0].By != "payer" {
		t.Fatalf("stored %+v %v", stored, err)
	}
	// The merchant rejects it (as the dashboard would): the payer's page says so, with the reason.
	svc := &refund.Service{Store: a.Store}
	if _, err := svc.Transition(t.Context(), refund.Scope{WorkspaceID: a.Creds.WorkspaceID, Environment: auth.Sandbox, By: "user_test"},
		r.ID, refund.Reject, refund.TransitionInput{Reason: "Delivered on the 3rd <i>signed</i>"}); err != nil {
		t.Fatal(err)
	}
	page := a.Do(t, "GET", p.Page, "", "", "Accept", "text/html")
	if n := apitest.DDBRequests(t, a, page); n != 3 { // the payment, its ledger, the request
		t.Errorf("a COMPLETED page with a request made %d DynamoDB requests, want 3", n)
	}
	for _, want := range []string{`data-status="REJECTED"`, "Delivered on the 3rd &lt;i&gt;signed&lt;/i&gt;", `id="refund-form"`} {
		if !strings.Contains(string(page.Body), want) {
			t.Errorf("the page lacks %q", want)
		}
	}
	next := a.Do(t, "POST", p.Page+"/refunds", "", body)
	if next.Status != 201 || decodeRefund(t, next).ID == r.ID {
		t.Fatalf("after the rejection: %d %s", next.Status, next.Body)
	}
	if _, err := svc.Transition(t.Context(), refund.Scope{WorkspaceID: a.Creds.WorkspaceID, Environment: auth.Sandbox, By: "user_test"},
		decodeRefund(t, next).ID, refund.Approve, refund.TransitionInput{}); err != nil {
		t.Fatal(err)
	}
	if _, err := svc.Transition(t.Context(), refund.Scope{WorkspaceID: a.Creds.WorkspaceID, Environment: auth.Sandbox, By: "user_test"},
		decodeRefund(t, next).ID, refund.ReportReturned, refund.TransitionInput{ProviderReference: "TRX9"}); err != nil {
		t.Fatal(err)
	}
	apitest.Envelope(t, a.Do(t, "POST", p.Page+"/refunds", "", body), 409, "STATE_CONFLICT")
}

// ledger reads the payment's refund ledger.
func ledger(t *testing.T, a *localapi.TestAPI, id string) (*refund.Payment, error) {
	t.Helper()
	p, err := a.Store.RefundPayment(t.Context(), id)
	if err != nil || p == nil {
		t.Fatalf("payment %s: %v", id, err)
	}
	return p, err
}

// The page's form works without script: a refused form comes back (422) with the payer's
// words and values, HTML in them escaped; a good one is 303 back to the page, which then
// shows the request; a cross-site form is refused; the limits per payment answer 429 with
// Retry-After.
func TestPayerRefundForm(t *testing.T) {
	t.Parallel()
	a := start(t, nil)
	p := completedPayment(t, a)
	form := []string{"Content-Type", "application/x-www-form-urlencoded", "Origin", a.URL}
	res := a.DoNoRedirect(t, "POST", p.Page+"/refunds?lang=bn", "", "reason=&note=%3Cscript%3Ex%3C%2Fscript%3E&contact=017", form...)
	if res.Status != 422 || !strings.Contains(string(res.Body), `id="error-summary"`) ||
		!strings.Contains(string(res.Body), "&lt;script&gt;x&lt;/script&gt;</textarea>") || !strings.Contains(string(res.Body), `value="017"`) ||
		!strings.Contains(string(res.Body), "একটি কারণ বেছে নিন।") {
		t.Fatalf("refused form: %d %s", res.Status, res.Body)
	}
	res = a.DoNoRedirect(t, "POST", p.Page+"/refunds", "", "reason=other&contact=01712345678",
		"Content-Type", "application/x-www-form-urlencoded", "Origin", "https://evil.example.net")
	if res.Status != 403 {
		t.Fatalf("cross-site form: %d", res.Status)
	}
	res = a.DoNoRedirect(t, "POST", p.Page+"/refunds", "", "reason=duplicate&contact=payer%40example.com", form...)
	if res.Status != http.StatusSeeOther || res.Header.Get("Location") != p.Page+"#refund" {
		t.Fatalf("form: %d -> %q", res.Status, res.Header.Get("Location"))
	}
	page := a.Do(t, "GET", p.Page, "", "", "Accept", "text/html")
	if !strings.Contains(string(page.Body), `data-status="REQUESTED"`) || strings.Contains(string(page.Body), `id="refund-form"`) {
		t.Fatalf("the page after the request: %s", page.Body)
	}
	// The same form again (a double submission) is the same request: one refund.
	if res := a.DoNoRedirect(t, "POST", p.Page+"/refunds", "", "reason=duplicate&contact=payer%40example.com", form...); res.Status != http.StatusSeeOther {
		t.Fatalf("again: %d", res.Status)
	}
	if l, _ := ledger(t, a, p.InvoiceID); len(l.Claims) != 1 {
		t.Fatalf("%d refunds", len(l.Claims))
	}
	// Three more spend the payment's burst of five; the next is 429 with Retry-After.
	for i := range 3 {
		if res := a.Do(t, "POST", p.Page+"/refunds", "", `{"reason":"other","contact":"01712345678"}`); res.Status != 200 {
			t.Fatalf("request %d: %d %s", i, res.Status, res.Body)
		}
	}
	res = a.Do(t, "POST", p.Page+"/refunds", "", `{"reason":"other","contact":"01712345678"}`)
	apitest.Envelope(t, res, http.StatusTooManyRequests, "RATE_LIMITED")
	if res.Header.Get("Retry-After") == "" {
		t.Error("429 without Retry-After")
	}
	res = a.DoNoRedirect(t, "POST", p.Page+"/refunds", "", "reason=other&contact=01712345678", form...)
	if res.Status != http.StatusTooManyRequests || res.Header.Get("Retry-After") == "" {
		t.Fatalf("limited form: %d", res.Status)
	}
}
