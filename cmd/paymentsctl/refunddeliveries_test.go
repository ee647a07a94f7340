package main

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/takapay/payments/shared/auth"
	"github.com/takapay/payments/shared/refund"
)

// webhook deliveries lists a payment's refunds' events after its own (decision 116), each
// naming its refund.
func TestWebhookDeliveriesListRefundEvents(t *testing.T) {
	t.Parallel()
	c := newAPICLI(t)
	ws := c.a.Creds.WorkspaceID
	secret := fields(mustOut(c.ok(t, "webhook", "secret", "issue", "--workspace", ws, "--env", "sandbox")))["secret"]
	rc := newHookServer(t, secret)
	id, _ := c.pay(t, rc.srv.URL+"/hook")
	svc := &refund.Service{Store: c.a.Store}
	sc := refund.Scope{WorkspaceID: ws, Environment: auth.Sandbox, By: "key_cli"}
	r, err := svc.Create(c.ctx, sc, refund.CreateInput{PaymentID: id, AmountMinor: 500, Reason: refund.ReasonOther, RequestedBy: refund.ByMerchant})
	if err != nil {
		t.Fatal(err)
	}
	if r, err = svc.Transition(c.ctx, sc, r.ID, refund.Approve, refund.TransitionInput{}); err != nil {
		t.Fatal(err)
	}
	out, _ := c.ok(t, "webhook", "deliveries", "--invoice", id, "--json")
	var list []struct {
		InvoiceID string `json:"invoice_id"`
		RefundID  string `json:"refund_id"`
		EventID   string `json:"event_id"`
		Kind      string `json:"kind"`
		Status    string `json:"status"`
	}
	if err := json.Unmarshal([]byte(out), &list); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if len(list) != 3 || list[0].Kind != "payment.completed" || list[0].RefundID != "" ||
		list[1].Kind != "refund.requested" || list[1].RefundID != r.ID || list[1].EventID != r.Events[0].EventID ||
		list[2].Kind != "refund.approved" || list[2].RefundID != r.ID || list[2].Status != "pending" {
		t.Fatalf("deliveries: %+v", list)
	}
	table, _ := c.ok(t, "webhook", "deliveries", "--invoice", id)
	if lines := strings.Split(strings.TrimSpace(table), "\n"); len(lines) != 4 || !strings.Contains(lines[0], "REFUND_ID") ||
		!strings.HasSuffix(strings.TrimSpace(lines[3]), r.ID) {
		t.Fatalf("table:\n%s", table)
	}
}
