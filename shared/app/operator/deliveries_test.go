package operator

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/takapay/payments/shared/auth"
	"github.com/takapay/payments/shared/payment"
)

// queue records what ResendWebhook enqueues (or fails with err).
type queue struct {
	mu  sync.Mutex
	got []payment.EventRef
	err error
}

func (q *queue) Enqueue(_ context.Context, invoiceID, eventID string) error {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.err != nil {
		return q.err
	}
	q.got = append(q.got, payment.EventRef{InvoiceID: invoiceID, EventID: eventID})
	return nil
}

// finished stores a payment with a webhook_url that reached COMPLETED at now, recording its
// event as the functions do.
func (e *env) finished(t *testing.T, now time.Time) (string, *payment.Delivery) {
	t.Helper()
	id := uuid.NewString()
	p := &payment.Payment{InvoiceID: id, WorkspaceID: uuid.NewString(), Environment: auth.Sandbox, Status: payment.Pending,
		AmountMinor: 100, Currency: payment.Currency, Reference: "ref", WebhookURL: "https://hooks.example.com/x",
		CreatedAt: now, UpdatedAt: now, ExpiresAt: now.Add(time.Hour), RequestHash: "00"}
	if _, err := e.store.CreatePayment(e.ctx, p); err != nil {
		t.Fatal(err)
	}
	d, _ := payment.NewEvent(payment.Completed, now)
	d.CID = []byte("0123456789ab")
	if _, err := e.store.FinishPayment(e.ctx, id, payment.Completed, false, d, now); err != nil {
		t.Fatal(err)
	}
	return id, d
}

func (e *env) due(t *testing.T, before time.Time) []payment.EventRef {
	t.Helper()
	refs, err := e.store.PendingDeliveries(e.ctx, before, 10)
	if err != nil {
		t.Fatal(err)
	}
	return refs
}

// A pending event's resend only makes it due now (its attempts go on); a final one starts a
// new series and keeps the count of the earlier attempts; a resend that races a change, or
// whose enqueue fails, says so.
func TestResendWebhook(t *testing.T) {
	t.Parallel()
	e := setup(t)
	q := &queue{}
	e.op.Queue = q
	c := e.useClock(time.Date(2026, 5, 1, 9, 0, 0, 0, time.UTC))
	id, d := e.finished(t, c.now())

	// Pending, after two failed attempts: the next is 30 minutes away.
	for n := 1; n <= 2; n++ {
		c.add(time.Minute)
		if err := e.store.RecordAttempt(e.ctx, id, d.EventID, n, payment.DeliveryPending, 503, "HTTP 503", nil, false, c.now(), c.now().Add(30*time.Minute)); err != nil {
			t.Fatal(err)
		}
	}
	c.add(time.Minute)
	r, err := e.op.ResendWebhook(e.ctx, id, d.EventID)
	if err != nil {
		t.Fatal(err)
	}
	if r.Before.Status != payment.DeliveryPending || r.After.Status != payment.DeliveryPending || r.After.Attempts != 2 ||
		!r.After.NextAttemptAt.Equal(c.now()) || r.After.Detail != "HTTP 503" || string(r.After.CID) != string(d.CID) {
		t.Fatalf("resend of a pending event: before %+v, after %+v", r.Before, r.After)
	}
	if refs := e.due(t, c.now().Add(time.Second)); len(refs) != 1 || refs[0].EventID != d.EventID {
		t.Fatalf("due after the resend: %+v", refs)
	}
	if len(q.got) != 1 || q.got[0] != (payment.EventRef{InvoiceID: id, EventID: d.EventID}) {
		t.Fatalf("enqueued %+v", q.got)
	}

	// Failed after the schedule: pending again with a fresh series, the 12 attempts kept.
	c.add(time.Minute)
	if err := e.store.RecordAttempt(e.ctx, id, d.EventID, 12, payment.DeliveryFailed, 500, "HTTP 500", nil, false, c.now(), c.now()); err != nil {
		t.Fatal(err)
	}
	if refs := e.due(t, c.now().Add(time.Hour)); len(refs) != 0 {
		t.Fatalf("a failed event is due: %+v", refs)
	}
	c.add(time.Minute)
	r, err = e.op.ResendWebhook(e.ctx, id, d.EventID)
	if err != nil {
		t.Fatal(err)
	}
	if r.After.Status != payment.DeliveryPending || r.After.Attempts != 0 || !r.After.NextAttemptAt.Equal(c.now()) ||
		r.After.LastHTTPStatus != 500 || r.After.Detail != "resent by an operator after 12 attempts (was failed, last HTTP 500)" {
		t.Fatalf("resend of a failed event: %+v", r.After)
	}
	list, err := e.op.WebhookDeliveries(e.ctx, id)
	if err != nil || len(list) != 1 || list[0].PriorAttempts != 12 || list[0].Attempts != 0 {
		t.Fatalf("deliveries: %+v (%v)", list, err)
	}
	if refs := e.due(t, c.now().Add(time.Second)); len(refs) != 1 {
		t.Fatalf("due after the resend: %+v", refs)
	}
	// Delivered, then resent again: the earlier attempts add up.
	if err := e.store.RecordAttempt(e.ctx, id, d.EventID, 1, payment.DeliveryDelivered, 204, "HTTP 204", nil, false, c.now(), c.now()); err != nil {
		t.Fatal(err)
	}
	if _, err := e.op.ResendWebhook(e.ctx, id, d.EventID); err != nil {
		t.Fatal(err)
	}
	list, _ = e.op.WebhookDeliveries(e.ctx, id)
	if list[0].PriorAttempts != 13 || list[0].Attempts != 0 {
		t.Fatalf("after a second resend: %+v", list)
	}

	// The event changed between the read and the write (delivered meanwhile): refused.
	seen := list[0].Delivery
	if err := e.store.RecordAttempt(e.ctx, id, d.EventID, 1, payment.DeliveryDelivered, 204, "HTTP 204", nil, false, c.now(), c.now()); err != nil {
		t.Fatal(err)
	}
	if _, err := e.store.ResendDelivery(e.ctx, id, &seen, "x", c.now()); !errors.Is(err, payment.ErrStateChanged) {
		t.Fatalf("a resend of a stale view = %v, want ErrStateChanged", err)
	}

	// The enqueue fails: the event is pending and due, for the re-drive to send.
	q.err = errors.New("SQS is down")
	if _, err := e.op.ResendWebhook(e.ctx, id, d.EventID); err == nil || !strings.Contains(err.Error(), "re-drive") ||
		!strings.Contains(err.Error(), "SQS is down") {
		t.Fatalf("resend with the queue down = %v", err)
	}
	if refs := e.due(t, c.now().Add(time.Second)); len(refs) != 1 {
		t.Fatalf("due after a failed enqueue: %+v", refs)
	}

	// No queue configured: refused before anything is read or written.
	e.op.Queue = nil
	if _, err := e.op.ResendWebhook(e.ctx, id, d.EventID); err == nil || !strings.Contains(err.Error(), "no webhook queue") {
		t.Fatalf("resend without a queue = %v", err)
	}
}

// A payment without a webhook_url records no event unless it is linked; a linked intent's
// event with no webhook_url has nothing to resend.
func TestResendWebhookNothingToSend(t *testing.T) {
	t.Parallel()
	e := setup(t)
	e.op.Queue = &queue{}
	now := time.Now().UTC()
	id := uuid.NewString()
	p := &payment.Payment{InvoiceID: id, WorkspaceID: uuid.NewString(), Environment: auth.Sandbox, Status: payment.Pending,
		AmountMinor: 100, Currency: payment.Currency, Reference: "ref", CreatedAt: now, UpdatedAt: now, ExpiresAt: now.Add(time.Hour),
		RequestHash: "00", Source: payment.Source{Kind: payment.SourceInvoice, DocumentID: uuid.NewString(), DocumentVersion: 1}}
	if _, err := e.store.CreatePayment(e.ctx, p); err != nil {
		t.Fatal(err)
	}
	d, _ := p.NewDelivery(payment.Cancelled, now)
	if _, err := e.store.FinishPayment(e.ctx, id, payment.Cancelled, false, d, now); err != nil {
		t.Fatal(err)
	}
	if _, err := e.op.ResendWebhook(e.ctx, id, d.EventID); !errors.Is(err, ErrNotResendable) || !strings.Contains(err.Error(), "no webhook_url") {
		t.Fatalf("resend without a webhook_url = %v", err)
	}
	if list, err := e.op.WebhookDeliveries(e.ctx, id); err != nil || len(list) != 1 || list[0].EventID != d.EventID || list[0].CID != nil {
		t.Fatalf("deliveries: %+v (%v)", list, err)
	}
}
