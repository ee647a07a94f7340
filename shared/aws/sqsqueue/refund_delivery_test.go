package sqsqueue_test

import (
	"context"
	"encoding/json"
	"errors"
	"testing"
	"time"

	"github.com/takapay/payments/shared/auth"
	"github.com/takapay/payments/shared/aws/dynamo"
	"github.com/takapay/payments/shared/aws/sqsqueue"
	"github.com/takapay/payments/shared/foundation/money"
	"github.com/takapay/payments/shared/local/registry"
	"github.com/takapay/payments/shared/payment"
	"github.com/takapay/payments/shared/refund"
	"github.com/takapay/payments/shared/webhook"
)

// refundEvent is a refund webhook as the receiver got it.
type refundEvent struct {
	ID   string `json:"id"`
	Type string `json:"type"`
	Data struct {
		ID                string  `json:"id"`
		Object            string  `json:"object"`
		Status            string  `json:"status"`
		PaymentID         string  `json:"payment_id"`
		AmountMinor       int64   `json:"amount_minor"`
		DueBy             *string `json:"due_by"`
		ProviderReference string  `json:"provider_reference"`
		RejectionReason   string  `json:"rejection_reason"`
	} `json:"data"`
}

// refundService is the refund rule over the test stack's table, its events enqueued to the
// stack's webhook queue (nil queue: recorded only, as after a crash before the enqueue).
func (h *harness) refundService(q refund.EventQueue) (*refund.Service, refund.Scope) {
	return &refund.Service{Store: h.a.Store, Events: q},
		refund.Scope{WorkspaceID: h.a.Creds.WorkspaceID, Environment: auth.Sandbox, By: "key_refund_test"}
}

func (h *harness) queue() *sqsqueue.Queue {
	return &sqsqueue.Queue{SQS: h.a.Stack.Queue, URL: h.poller.QueueURL}
}

// received waits for n accepted deliveries and returns the refund events among them by type.
func (h *harness) received(t *testing.T, rc *receiver, n int) map[string]refundEvent {
	t.Helper()
	h.drain(t, 1, func() bool { rc.mu.Lock(); defer rc.mu.Unlock(); return len(rc.ok) >= n })
	rc.mu.Lock()
	defer rc.mu.Unlock()
	if rc.badSigs != 0 || len(rc.ok) != n {
		t.Fatalf("%d accepted, want %d (%d bad signatures)", len(rc.ok), n, rc.badSigs)
	}
	out := map[string]refundEvent{}
	for id, body := range rc.ok {
		var e refundEvent
		if err := json.Unmarshal(body, &e); err != nil || e.ID != id {
			t.Fatalf("body %s: %v", body, err)
		}
		out[e.Type] = e
	}
	return out
}

// Each step of a refund sends its webhook to the payment's webhook_url, signed (the receiver
// verifies it with the Standard Webhooks library) and carrying the refund resource: created →
// reviewed → approved (due_by set) → reported returned with a TrxID; another refund rejected,
// another cancelled. Each event is delivered once and recorded delivered on its refund.
func TestRefundEventsDeliveredEndToEnd(t *testing.T) {
	t.Parallel()
	h := setup(t, nil)
	rc := newReceiver(t, h.secret, nil)
	pay := h.pay(t, rc.srv.URL+"/hook", "order-refund-hooks")
	h.received(t, rc, 1) // payment.completed
	svc, sc := h.refundService(h.queue())
	ctx := context.Background()
	r, err := svc.Create(ctx, sc, refund.CreateInput{PaymentID: pay, AmountMinor: 5000, Reason: refund.ReasonGoodsReturned, RequestedBy: refund.ByMerchant})
	if err != nil {
		t.Fatal(err)
	}
	steps := []struct {
		action refund.Action
		in     refund.TransitionInput
	}{{"", refund.TransitionInput{}}, {refund.Review, refund.TransitionInput{}}, {refund.Approve, refund.TransitionInput{}},
		{refund.ReportReturned, refund.TransitionInput{ProviderReference: "BK7A8C9D0E"}}}
	for i, st := range steps {
		if st.action != "" {
			if r, err = svc.Transition(ctx, sc, r.ID, st.action, st.in); err != nil {
				t.Fatal(err)
			}
		}
		got := h.received(t, rc, i+2)
		e, ok := got[refund.EventKind(r.Status)]
		if !ok || e.Data.ID != r.ID || e.Data.Object != "refund" || e.Data.Status != string(r.Status) ||
			e.Data.PaymentID != pay || e.Data.AmountMinor != 5000 {
			t.Fatalf("step %d (%s): %+v", i, r.Status, got)
		}
		if r.Status == refund.Approved && e.Data.DueBy == nil {
			t.Fatal("refund.approved without due_by")
		}
		if r.Status == refund.Returned && e.Data.ProviderReference != "BK7A8C9D0E" {
			t.Fatalf("refund.returned %+v", e.Data)
		}
	}
	// Rejected and cancelled refunds send theirs too.
	rj, err := svc.Create(ctx, sc, refund.CreateInput{PaymentID: pay, AmountMinor: 100, Reason: refund.ReasonOther, RequestedBy: refund.ByPayer})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := svc.Transition(ctx, sc, rj.ID, refund.Reject, refund.TransitionInput{Reason: "already refunded in cash"}); err != nil {
		t.Fatal(err)
	}
	cn, err := svc.Create(ctx, sc, refund.CreateInput{PaymentID: pay, AmountMinor: 100, Reason: refund.ReasonDuplicate, RequestedBy: refund.ByMerchant})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := svc.Transition(ctx, sc, cn.ID, refund.Cancel, refund.TransitionInput{}); err != nil {
		t.Fatal(err)
	}
	got := h.received(t, rc, 9)
	if e := got["refund.rejected"]; e.Data.ID != rj.ID || e.Data.RejectionReason != "already refunded in cash" {
		t.Fatalf("refund.rejected %+v", e)
	}
	if e := got["refund.cancelled"]; e.Data.ID != cn.ID || e.Data.Status != "CANCELLED" {
		t.Fatalf("refund.cancelled %+v", e)
	}
	for _, id := range []string{r.ID, rj.ID, cn.ID} {
		stored, err := h.a.Store.GetRefund(ctx, sc.WorkspaceID, auth.Sandbox, id)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range stored.Events {
			if e.Status != payment.DeliveryDelivered || e.Attempts != 1 {
				t.Fatalf("refund %s event %+v", id, e)
			}
		}
	}
	rc.mu.Lock()
	defer rc.mu.Unlock()
	for id, n := range rc.attempts {
		if n != 1 {
			t.Fatalf("event %s arrived %d times", id, n)
		}
	}
}

// A crash after a refund's write (the event recorded, the enqueue never made) loses nothing:
// the re-drive sends the event once it is overdue, and only once.
func TestRefundEventCrashAfterWriteRedriven(t *testing.T) {
	t.Parallel()
	h := setup(t, nil)
	rc := newReceiver(t, h.secret, nil)
	pay := h.pay(t, rc.srv.URL+"/hook", "order-refund-crash")
	h.received(t, rc, 1)
	svc, sc := h.refundService(nil) // the process dies after the write, before the enqueue
	r, err := svc.Create(context.Background(), sc, refund.CreateInput{PaymentID: pay, Reason: refund.ReasonNotDelivered, RequestedBy: refund.ByMerchant})
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Events) != 1 || r.Events[0].Status != payment.DeliveryPending {
		t.Fatalf("the write did not record its event: %+v", r.Events)
	}
	redrive := registry.WebhookRedrive(h.a.Deps["WebhookRedriveFunction"])
	redrive.Queue.(*sqsqueue.Queue).URL = h.poller.QueueURL
	if n, err := redrive.Run(context.Background()); err != nil || n != 0 {
		t.Fatalf("re-drive sent %d (%v) before the event was overdue", n, err)
	}
	later := time.Now().Add(webhook.DefaultOverdue + time.Second)
	redrive.Now = func() time.Time { return later }
	if n, err := redrive.Run(context.Background()); err != nil || n != 1 {
		t.Fatalf("re-drive sent %d (%v), want 1", n, err)
	}
	if n, err := redrive.Run(context.Background()); err != nil || n != 0 {
		t.Fatalf("a second run sent %d (%v), want 0", n, err)
	}
	if e := h.received(t, rc, 2)["refund.requested"]; e.Data.ID != r.ID || e.Data.Status != "REQUESTED" || e.Data.AmountMinor != 25075 {
		t.Fatalf("refund.requested %+v", e)
	}
}

// claimCrash is the store of a create that dies after writing its refund PENDING_CLAIM,
// before the claim on the payment.
type claimCrash struct{ *dynamo.Store }

func (claimCrash) ClaimRefund(context.Context, string, string, money.Paisa, money.Paisa) (refund.Claim, error) {
	return 0, errors.New("crashed before the claim")
}

// The re-drive runs the refunds' repair pass every run: a refund a crash left in
// PENDING_CLAIM is claimed and REQUESTED once its writer's grace has passed, and its
// refund.requested webhook is sent.
func TestRedriveRepairsPendingClaimRefund(t *testing.T) {
	t.Parallel()
	h := setup(t, nil)
	rc := newReceiver(t, h.secret, nil)
	pay := h.pay(t, rc.srv.URL+"/hook", "order-refund-repair")
	h.received(t, rc, 1)
	_, sc := h.refundService(nil)
	crashing := &refund.Service{Store: claimCrash{h.a.Store}}
	in := refund.CreateInput{ID: "0193a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b", PaymentID: pay, AmountMinor: 1000, Reason: refund.ReasonOther, RequestedBy: refund.ByMerchant}
	if _, err := crashing.Create(context.Background(), sc, in); err == nil {
		t.Fatal("no crash")
	}
	stuck, err := h.a.Store.GetRefund(context.Background(), sc.WorkspaceID, auth.Sandbox, in.ID)
	if err != nil || stuck == nil || stuck.Status != refund.PendingClaim {
		t.Fatalf("not stuck: %+v %v", stuck, err)
	}
	redrive := registry.WebhookRedrive(h.a.Deps["WebhookRedriveFunction"])
	redrive.Queue.(*sqsqueue.Queue).URL = h.poller.QueueURL
	if _, err := redrive.Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	if r, _ := h.a.Store.GetRefund(context.Background(), sc.WorkspaceID, auth.Sandbox, in.ID); r.Status != refund.PendingClaim {
		t.Fatalf("repaired within the writer's grace: %s", r.Status)
	}
	later := time.Now().Add(refund.DefaultGrace + time.Second)
	redrive.Now = func() time.Time { return later }
	if _, err := redrive.Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	r, err := h.a.Store.GetRefund(context.Background(), sc.WorkspaceID, auth.Sandbox, in.ID)
	if err != nil || r.Status != refund.Requested || r.FollowUp != refund.NoFollowUp {
		t.Fatalf("after the repair: %+v %v", r, err)
	}
	if e := h.received(t, rc, 2)["refund.requested"]; e.Data.ID != in.ID || e.Data.AmountMinor != 1000 {
		t.Fatalf("refund.requested %+v", e)
	}
	l, err := h.a.Store.RefundPayment(context.Background(), pay)
	if err != nil || l.Promised != 1000 {
		t.Fatalf("ledger %+v %v", l, err)
	}
}
