package webhook

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/takapay/payments/shared/payment"
)

// ResendStore is what resending a payment's event reads and writes (package dynamo).
type ResendStore interface {
	// WebhookDelivery reads a payment and the attempts its event made before earlier resends
	// (one strongly consistent GetItem); nil when there is no such payment.
	WebhookDelivery(ctx context.Context, invoiceID string) (*payment.Payment, int, error)
	// ResendDelivery makes the event (as seen: prev) pending and due now with one conditional
	// UpdateItem; payment.ErrStateChanged, with the current payment, when it changed meanwhile.
	ResendDelivery(ctx context.Context, invoiceID string, prev *payment.Delivery, detail string, now time.Time) (*payment.Payment, error)
}

// ErrNotResendable means the event cannot be resent as it is; the error says why.
var ErrNotResendable = errors.New("cannot resend")

// ErrNoPayment means there is no payment with the id.
var ErrNoPayment = errors.New("no such payment")

// ErrResendConflict means the event changed between the read and the resend: look again.
var ErrResendConflict = errors.New("the event changed meanwhile")

// Resent is the outcome of a resend: the event as it was, and as it is now (pending, due
// now, enqueued).
type Resent struct {
	InvoiceID string
	Before    payment.Delivery
	After     payment.Delivery
}

// Resend sends a payment's recorded event again — the one rule behind `paymentsctl webhook
// resend` and the dashboard's Resend button: the same event id and payload (the sender builds
// it from the stored payment), signed with a fresh timestamp. The event must be the payment's
// (eventID guards against resending another than the one looked at). First one conditional
// UpdateItem makes it pending and due now (ResendStore.ResendDelivery: a delivered or failed
// event starts a new attempt series; its earlier attempts are kept as prior attempts), then
// the message goes to queue. A lost message is not lost work: the event sits pending in the
// re-drive's index, which re-enqueues it once it is overdue. by names who resent it ("an
// operator", "the dashboard (<email>)"): the event's detail says so.
//
// Refused (ErrNotResendable): a payment without an event or without a webhook_url, another
// event id, and a linked intent's delivered or failed event until the re-drive has settled
// its document follow-up (which a pending event would hold back). ErrNoPayment when there is
// no such payment; ErrResendConflict when the event changed meanwhile.
func Resend(ctx context.Context, store ResendStore, queue Enqueuer, invoiceID, eventID, by string, now time.Time) (*Resent, error) {
	if queue == nil {
		return nil, errors.New("no webhook queue to send the event to")
	}
	p, prior, err := store.WebhookDelivery(ctx, invoiceID)
	if err != nil {
		return nil, err
	}
	if p == nil {
		return nil, fmt.Errorf("payment %s: %w", invoiceID, ErrNoPayment)
	}
	ob := p.Outbox
	switch {
	case ob == nil:
		return nil, fmt.Errorf("%w: payment %s has recorded no webhook event (status %s)", ErrNotResendable, invoiceID, p.Status)
	case ob.EventID != eventID:
		return nil, fmt.Errorf("%w: payment %s has no event %s (its event is %s)", ErrNotResendable, invoiceID, eventID, ob.EventID)
	case p.WebhookURL == "":
		return nil, fmt.Errorf("%w: payment %s has no webhook_url: there is nothing to send", ErrNotResendable, invoiceID)
	case p.Linked() && ob.Status != payment.DeliveryPending && !ob.Settled:
		return nil, fmt.Errorf("%w: the document follow-up of %s is not finished yet; the re-drive settles it within minutes, resend after that",
			ErrNotResendable, eventID)
	}
	detail := fmt.Sprintf("resent by %s after %d attempts (was %s)", by, prior+ob.Attempts, ob.Status)
	if ob.Status != payment.DeliveryPending && ob.LastHTTPStatus != 0 {
		detail = fmt.Sprintf("resent by %s after %d attempts (was %s, last HTTP %d)", by, prior+ob.Attempts, ob.Status, ob.LastHTTPStatus)
	}
	q, err := store.ResendDelivery(ctx, invoiceID, ob, detail, now)
	if errors.Is(err, payment.ErrStateChanged) {
		return nil, fmt.Errorf("%w: event %s is now %s after %d attempts: look again (webhook deliveries) and retry",
			ErrResendConflict, eventID, q.Outbox.Status, q.Outbox.Attempts)
	}
	if err != nil {
		return nil, err
	}
	if err := queue.Enqueue(ctx, invoiceID, eventID); err != nil {
		return nil, fmt.Errorf("event %s is pending and due now, but the enqueue failed (the re-drive re-enqueues it once it is %s overdue): %w",
			eventID, DefaultOverdue, err)
	}
	return &Resent{InvoiceID: invoiceID, Before: *ob, After: *q.Outbox}, nil
}
