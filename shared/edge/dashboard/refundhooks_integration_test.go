package dashboard_test

import (
	"encoding/json"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/takapay/payments/shared/auth"
	"github.com/takapay/payments/shared/payment"
	"github.com/takapay/payments/shared/refund"
)

// Refund events on the webhooks page: listed with the payments' (their kind, status and
// payment), each with a Resend button for developers and up; a resend makes the event pending
// and due now (the form's one effect), a viewer has no button and is refused (403), and
// another workspace's refund is not found (404).
func TestWebhooksPageRefundEvents(t *testing.T) {
	s := startStack(t, map[string]string{"ALLOW_LOCALHOST_URLS": "true"})
	a := s.api
	ctx := t.Context()
	res := a.Do(t, "POST", "/v1/payment/create", a.Creds.SandboxKey, `{"amount": 80, "reference": "order-refund-page", "webhook_url": "https://shop.com.bd/hooks"}`)
	var c struct {
		InvoiceID  string `json:"invoice_id"`
		PaymentURL string `json:"payment_url"`
	}
	if err := json.Unmarshal(res.Body, &c); err != nil || res.Status != 201 {
		t.Fatalf("create: %d %s", res.Status, res.Body)
	}
	u, _ := url.Parse(c.PaymentURL)
	if r := a.Do(t, "POST", u.Path+"/lock", "", `{"route":"bkash","payer":"01712345678"}`); r.Status != 200 {
		t.Fatalf("lock: %d %s", r.Status, r.Body)
	}
	if r := a.Do(t, "POST", u.Path+"/notices/approve", "", ""); r.Status != 200 {
		t.Fatalf("approve: %d %s", r.Status, r.Body)
	}
	svc := &refund.Service{Store: a.Store} // recorded, not enqueued: the page shows it waiting
	sc := refund.Scope{WorkspaceID: a.Creds.WorkspaceID, Environment: auth.Sandbox, By: "key_page"}
	r, err := svc.Create(ctx, sc, refund.CreateInput{PaymentID: c.InvoiceID, AmountMinor: 1000, Reason: refund.ReasonDuplicate, RequestedBy: refund.ByMerchant})
	if err != nil {
		t.Fatal(err)
	}
	if r, err = svc.Transition(ctx, sc, r.ID, refund.Review, refund.TransitionInput{}); err != nil {
		t.Fatal(err)
	}
	if len(r.Events) != 2 {
		t.Fatalf("events %+v", r.Events)
	}
	ev := r.Events[0] // refund.requested

	dev := s.member(t, "dev-refund-hooks@example.com", auth.RoleDeveloper)
	wp := dev.get("/dashboard/webhooks")
	for _, want := range []string{`id="delivery-refund-` + ev.EventID + `"`, `id="delivery-refund-` + r.Events[1].EventID + `"`,
		"refund.requested", "refund.in_review", `id="resend-` + ev.EventID + `"`, `href="/dashboard/payments/` + c.InvoiceID + `"`,
		"the 50 latest refunds"} {
		if !strings.Contains(wp.body, want) {
			t.Fatalf("webhooks page lacks %s:\n%.6000s", want, wp.body)
		}
	}
	later := time.Now().UTC().Add(time.Second)
	p := dev.post("/dashboard/webhooks/resend", url.Values{"csrf": {csrf(t, wp)}, "refund_id": {r.ID}, "event_id": {ev.EventID}})
	if p.status != 200 || !strings.HasSuffix(strings.SplitN(p.url, "?", 2)[0], "/dashboard/webhooks") {
		t.Fatalf("resend: %d at %s\n%.3000s", p.status, p.url, p.body)
	}
	stored, err := a.Store.GetRefund(ctx, sc.WorkspaceID, auth.Sandbox, r.ID)
	if err != nil {
		t.Fatal(err)
	}
	if e := stored.Event(ev.EventID); e.Status != payment.DeliveryPending || e.NextAttemptAt.Before(ev.NextAttemptAt) || e.NextAttemptAt.After(later) {
		t.Fatalf("after the resend: %+v", e)
	}

	viewer := s.member(t, "viewer-refund-hooks@example.com", auth.RoleViewer)
	vp := viewer.get("/dashboard/webhooks")
	if vp.status != 200 || !strings.Contains(vp.body, "refund.requested") || strings.Contains(vp.body, `id="resend-`) {
		t.Fatalf("viewer's page: %d\n%.4000s", vp.status, vp.body)
	}
	if p := viewer.post("/dashboard/webhooks/resend", url.Values{"csrf": {csrf(t, vp)}, "refund_id": {r.ID}, "event_id": {ev.EventID}}); p.status != 403 {
		t.Fatalf("viewer resends: %d", p.status)
	}
	otherWS := uuid.NewString()
	if _, err := a.Operator(t).CreateWorkspace(ctx, otherWS, "Other shop"); err != nil {
		t.Fatal(err)
	}
	other := s.memberIn(t, otherWS, "owner-other-refund-hooks@example.com", auth.RoleOwner)
	op := other.get("/dashboard/webhooks")
	if strings.Contains(op.body, ev.EventID) {
		t.Fatal("another workspace sees the refund's events")
	}
	if p := other.post("/dashboard/webhooks/resend", url.Values{"csrf": {csrf(t, op)}, "refund_id": {r.ID}, "event_id": {ev.EventID}}); p.status != 404 {
		t.Fatalf("another workspace resends: %d", p.status)
	}
}
