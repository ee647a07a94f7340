package webhook

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/takapay/payments/shared/payment"
)

// PendingStore lists events still waiting for delivery and payments past their expiry.
type PendingStore interface {
	PendingDeliveries(ctx context.Context, dueBefore time.Time, limit int) ([]payment.EventRef, error)
	RescheduleDelivery(ctx context.Context, invoiceID, eventID string, next time.Time) error
	// ExpiredPending lists the invoice ids of PENDING payments with a webhook_url whose expiry
	// has passed.
	ExpiredPending(ctx context.Context, now time.Time, limit int) ([]string, error)
	ExpirePayment(ctx context.Context, invoiceID string, d *payment.Delivery, now time.Time) (*payment.Payment, error)
}

// Redrive recovers what a crash or a failed SQS send can lose. A state change records its event
// before the event is enqueued, and every failed attempt records when the next one is due; a
// message lost on the way (the process died before SendMessage, SQS refused it) leaves its
// event pending and overdue. The re-drive re-enqueues exactly those: events whose next attempt
// is overdue by more than Overdue (the queue's visibility timeout, so a message still being
// handled or waiting out its retry delay is never doubled), and moves their next attempt to
// now+Overdue so the following runs leave the new message alone. Sending twice stays harmless:
// the sender reads the delivery state first, and receivers dedupe on webhook-id.
type Redrive struct {
	Store PendingStore
	Queue Enqueuer
	// Overdue is how late a pending event's next attempt must be before it is re-enqueued
	// (default DefaultOverdue: the queue's visibility timeout).
	Overdue time.Duration
	Limit   int
	Now     func() time.Time
	// Documents settles linked intents' outcomes on their documents (Settle; nil: none).
	Documents DocumentLedger
	// Metrics receives, after every sweep of pending events, one CloudWatch Embedded Metric
	// Format line with OldestPendingMetric (OldestPendingAge; nil: none). The Lambda function
	// gives it stdout, which CloudWatch Logs reads the metric from.
	Metrics io.Writer
}

// DefaultOverdue is the webhook queue's visibility timeout (template.yaml).
const DefaultOverdue = 180 * time.Second

func (r *Redrive) now() time.Time {
	if r.Now != nil {
		return r.Now().UTC()
	}
	return time.Now().UTC()
}

// Expire records EXPIRED (and its event) for payments past their expiry that nobody has
// looked at since, and enqueues those events; it returns how many it expired. One payment's
// failure does not stop the others: the errors come back joined.
func (r *Redrive) Expire(ctx context.Context) (int, error) {
	now := r.now()
	ids, err := r.Store.ExpiredPending(ctx, now, 100)
	if err != nil {
		return 0, err
	}
	n := 0
	var errs []error
	for _, id := range ids {
		// Only payments that need events (a webhook_url, or a document to tell) are in the
		// sweep's index: each expiry emits an event.
		d, err := payment.NewEvent(payment.Expired, now)
		if err != nil {
			return n, err
		}
		if _, err := r.Store.ExpirePayment(ctx, id, d, now); err != nil {
			if !errors.Is(err, payment.ErrStateChanged) { // finished or expired meanwhile: nothing to do
				errs = append(errs, fmt.Errorf("expire %s: %w", id, err))
			}
			continue
		}
		n++
		if err := r.Queue.Enqueue(ctx, id, d.EventID); err != nil {
			errs = append(errs, fmt.Errorf("enqueue %s: %w", d.EventID, err)) // recorded: a later run sends it
		}
	}
	return n, errors.Join(errs...)
}

// Run expires overdue payments, settles linked intents' outcomes on their documents, then
// re-enqueues one round of overdue events; it returns how many events it re-enqueued. A failure of one step or one event does not stop the rest; the
// errors come back joined. Every run whose sweep succeeds writes the OldestPendingMetric line
// to Metrics.
func (r *Redrive) Run(ctx context.Context) (int, error) {
	_, expireErr := r.Expire(ctx)
	_, settleErr := r.Settle(ctx)
	now := r.now()
	overdue, limit := r.Overdue, r.Limit
	if overdue <= 0 {
		overdue = DefaultOverdue
	}
	if limit <= 0 {
		limit = 500
	}
	dueBefore := now.Add(-overdue)
	refs, err := r.Store.PendingDeliveries(ctx, dueBefore, limit)
	if err != nil {
		return 0, errors.Join(expireErr, settleErr, err) // no metric: the sweep saw nothing
	}
	n := 0
	errs := []error{expireErr, settleErr}
	if r.Metrics != nil {
		if err := writeOldestPendingAge(r.Metrics, now, OldestPendingAge(now, dueBefore, refs)); err != nil {
			errs = append(errs, fmt.Errorf("metric %s: %w", OldestPendingMetric, err))
		}
	}
	for _, ref := range refs {
		if err := r.Queue.Enqueue(ctx, ref.InvoiceID, ref.EventID); err != nil {
			errs = append(errs, fmt.Errorf("enqueue %s: %w", ref.EventID, err))
			continue
		}
		n++
		if err := r.Store.RescheduleDelivery(ctx, ref.InvoiceID, ref.EventID, now.Add(overdue)); err != nil &&
			!errors.Is(err, payment.ErrStateChanged) { // delivered meanwhile: nothing to move
			errs = append(errs, fmt.Errorf("reschedule %s: %w", ref.EventID, err))
		}
	}
	return n, errors.Join(errs...)
}
