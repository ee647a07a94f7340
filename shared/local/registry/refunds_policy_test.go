package registry_test

import (
	"context"
	"encoding/json"
	"net/url"
	"slices"
	"testing"

	"github.com/takapay/payments/shared/auth"
	"github.com/takapay/payments/shared/local/localapi"
	"github.com/takapay/payments/shared/refund"
)

// RefundsFunction's policy, as run: a journey through every refund operation — create (and a
// replay and a refused one), review, approve under the two-person policy, report-returned,
// reject, cancel, get and the lists, by keys and by a dashboard session — sends only requests
// its template.yaml statements allow; on a payment it writes only the refund ledger; and its
// statements reach no document, secret or outbox item.
func TestRefundsStayWithinTheirPolicy(t *testing.T) {
	const fn = "RefundsFunction"
	sts := functionStatements(t)[fn]
	for _, k := range []string{"DOC#ws#sandbox#invoices", "IDEM#ws#sandbox#invoices#key", "HIST#ws#sandbox#invoices#id",
		"WHSEC#ws#sandbox", "OUTBOX#1", "EVT#id"} {
		for _, s := range sts {
			if s.reaches(k) {
				t.Errorf("%s statement %s reaches %s", fn, s.Sid, k)
			}
		}
	}
	for _, req := range []ddbRequest{
		{action: "dynamodb:PutItem", keys: []string{"PAY#id"}, attrs: []string{"pk", "sk", "status"}},
		{action: "dynamodb:UpdateItem", keys: []string{"PAY#id"}, attrs: []string{"pk", "sk", "amount_minor"}},
		{action: "dynamodb:UpdateItem", keys: []string{"REFUND#ws#sandbox"}, attrs: []string{"pk", "sk", "status"}},
		{action: "dynamodb:PutItem", keys: []string{"WS#ws"}, attrs: []string{"pk", "sk"}},
		{action: "dynamodb:DeleteItem", keys: []string{"REFUND#ws#sandbox"}},
	} {
		if allows(sts, req) {
			t.Errorf("%s may %s %v naming %v", fn, req.action, req.keys, req.attrs)
		}
	}

	rec := &allRecorder{fn: fn}
	a := localapi.StartTestAPI(t, localapi.Options{ConfigureAWS: rec.configure})
	ctx := context.Background()
	ws := a.Creds.WorkspaceID
	approver, err := a.Operator(t).IssueKey(ctx, ws, auth.Sandbox, []auth.Scope{auth.RefundsApprove}, "policy approver")
	if err != nil {
		t.Fatal(err)
	}
	if err := a.Store.PutRefundPolicy(ctx, ws, refund.Policy{TwoPersonMinor: 100}); err != nil {
		t.Fatal(err)
	}
	res := a.Do(t, "POST", "/v1/payment/create", a.Creds.SandboxKey, `{"amount": 99.5}`)
	var c struct {
		InvoiceID  string `json:"invoice_id"`
		PaymentURL string `json:"payment_url"`
	}
	if err := json.Unmarshal(res.Body, &c); err != nil || res.Status != 201 {
		t.Fatalf("create: %d %s", res.Status, res.Body)
	}
	u, _ := url.Parse(c.PaymentURL)
	for _, step := range []struct{ path, body string }{{u.Path + "/lock", `{"route":"bkash","payer":"01712345678"}`}, {u.Path + "/notices/approve", ""}} {
		if r := a.Do(t, "POST", step.path, "", step.body); r.Status != 200 {
			t.Fatalf("%s: %d %s", step.path, r.Status, r.Body)
		}
	}
	base := "/v1/workspaces/" + ws + "/refunds"
	create := func(key string, amount string, want int) string {
		t.Helper()
		r := a.Do(t, "POST", base+"?environment=sandbox", a.Creds.SandboxKey,
			`{"payment_id":"`+c.InvoiceID+`","amount_minor":`+amount+`,"reason":"other"}`, "Idempotency-Key", key)
		if r.Status != want {
			t.Fatalf("create %s: %d %s", amount, r.Status, r.Body)
		}
		var v struct{ ID string }
		_ = json.Unmarshal(r.Body, &v)
		return v.ID
	}
	step := func(key, path, body string, want int) {
		t.Helper()
		if r := a.Do(t, "POST", base+path+"?environment=sandbox", key, body); r.Status != want {
			t.Fatalf("%s: %d %s", path, r.Status, r.Body)
		}
	}
	id := create("policy-refund-key-0001", "5000", 201)
	create("policy-refund-key-0001", "5000", 201)
	create("policy-refund-key-0002", "9000", 409)
	step(a.Creds.SandboxKey, "/"+id+"/review", "", 200)
	step(a.Creds.SandboxKey, "/"+id+"/approve", "", 409) // the two-person rule
	step(approver.Plaintext, "/"+id+"/approve", "", 200)
	step(a.Creds.SandboxKey, "/"+id+"/report-returned", `{"provider_reference":"TRX-POLICY-1"}`, 200)
	rej := create("policy-refund-key-0003", "100", 201)
	step(approver.Plaintext, "/"+rej+"/reject", `{"reason":"no"}`, 200)
	can := create("policy-refund-key-0004", "100", 201)
	step(a.Creds.SandboxKey, "/"+can+"/cancel", "", 200)
	for _, q := range []string{"", "&payment_id=" + c.InvoiceID, "&overdue=true"} {
		if r := a.Do(t, "GET", base+"?environment=sandbox"+q, a.Creds.ReadonlyKey, ""); r.Status != 200 {
			t.Fatalf("list %s: %d %s", q, r.Status, r.Body)
		}
	}
	if r := a.Do(t, "GET", base+"/"+id+"?environment=sandbox", "", "", "Cookie", auth.SessionCookie+"="+a.Creds.SessionToken); r.Status != 200 {
		t.Fatalf("get by session: %d %s", r.Status, r.Body)
	}

	seen, written := rec.judge(t, sts, nil)
	for _, want := range []string{"dynamodb:PutItem  REFUND", "dynamodb:PutItem  REFUNDKEY", "dynamodb:Query  REFUND",
		"dynamodb:UpdateItem  PAY", "dynamodb:GetItem  WS", "dynamodb:GetItem  SESSION"} {
		if !seen[want] {
			t.Errorf("the journey sent no %q: the test lost its coverage (sent %v)", want, seen)
		}
	}
	ledger := []string{"pk", "sk", "status", "refund_promised", "refund_returned", "refund_claims", "refund_counted"}
	for a := range written["dynamodb:UpdateItem  PAY"] {
		if !slices.Contains(ledger, a) {
			t.Errorf("%s updates the payment attribute %s", fn, a)
		}
	}
}
