package webhook

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/takapay/payments/shared/intent"
	"github.com/takapay/payments/shared/payment"
)

// PendingStore lists events still waiting for delivery and payments past their expiry.
type PendingStore interface {
	PendingDeliveries(ctx context.Context, dueBefore time.Time, limit int) ([]payment.EventRef, error)
	RescheduleDelivery(ctx context.Context, invoiceID, eventID string, next time.Time) error
	// ExpiredPending lists PENDING payments that need events (a webhook_url, or a linked
	// intent) whose expiry has passed.
	ExpiredPending(ctx context.Context, now time.Time, limit int) ([]payment.Expiring, error)
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
	// Limit is how many keys one round of a drain reads (DefaultSweepBatch when 0); Workers
	// how many items of a round are handled at once (DefaultWorkers); no round starts within
	// Reserve of the run's deadline (DefaultReserve).
	Limit   int
	Workers int
	Reserve time.Duration
	Now     func() time.Time
	// Documents settles linked intents' outcomes on their documents (Settle; nil: none).
	Documents intent.Ledger
	// Refunds is the refunds' sweep index and items: each run re-enqueues their overdue
	// events (nil: none). Queue must then also send refund messages (RefundEnqueuer).
	Refunds RefundPendingStore
	// Repair is the refunds' crash-repair pass (refund.Service.Repair, decision 100), run at
	// the start of every refund sweep (nil: not run).
	Repair func(ctx context.Context, now time.Time) (int, error)
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
// looked at since, and enqueues those events; it returns how many it expired. It drains the
// expiry index the way Settle drains the settle index (rounds, Workers at a time, until the
// backlog is gone or the run's time is nearly up), and sends the events in batches. One
// payment's failure does not stop the others: the errors come back joined.
func (r *Redrive) Expire(ctx context.Context) (int, error) {
	total := 0
	var errs []error
	for r.timeLeft(ctx) {
		now := r.now()
		due, err := r.Store.ExpiredPending(ctx, now, r.batch())
		if err != nil {
			return total, errors.Join(append(errs, err)...)
		}
		refs := make([]payment.EventRef, len(due))
		found := make(map[string]payment.Expiring, len(due))
		for i, e := range due {
			refs[i], found[e.InvoiceID] = payment.EventRef{InvoiceID: e.InvoiceID}, e
		}
		var mu sync.Mutex
		var events []payment.EventRef
		n, roundErrs := r.each(ctx, refs, func(ctx context.Context, ref payment.EventRef) (bool, error) {
			// A payment that needs events (a webhook_url, or a document to tell) emits one; a
			// quiet one is recorded EXPIRED with its ttl only, so it ages out too.
			var d *payment.Delivery
			if e := found[ref.InvoiceID]; !e.Quiet {
				var err error
				if d, err = payment.NewEvent(payment.Expired, now); err != nil {
					return false, err
				}
				d.Settle = e.Linked
			}
			if _, err := r.Store.ExpirePayment(ctx, ref.InvoiceID, d, now); err != nil {
				if errors.Is(err, payment.ErrStateChanged) { // finished or expired meanwhile: nothing to do
					return false, nil
				}
				return false, fmt.Errorf("expire %s: %w", ref.InvoiceID, err)
			}
			if d != nil {
				mu.Lock()
				events = append(events, payment.EventRef{InvoiceID: ref.InvoiceID, EventID: d.EventID})
				mu.Unlock()
			}
			return true, nil
		})
		total += n
		errs = append(errs, roundErrs...)
		// Recorded: a failed send is re-enqueued by a later run once overdue.
		_, enqErrs := r.enqueue(ctx, events)
		errs = append(errs, enqErrs...)
		if len(due) < r.batch() || n == 0 {
			break
		}
	}
	return total, errors.Join(errs...)
}

// BatchEnqueuer sends many delivery messages at once (package sqsqueue: SendMessageBatch); it
// returns the ones that were sent.
type BatchEnqueuer interface {
	EnqueueBatch(ctx context.Context, refs []payment.EventRef) ([]payment.EventRef, error)
}

// enqueue sends events to the queue, in batches when the queue takes them; it returns the ones
// sent and an error for the others.
func (r *Redrive) enqueue(ctx context.Context, refs []payment.EventRef) ([]payment.EventRef, []error) {
	if len(refs) == 0 {
		return nil, nil
	}
	if b, ok := r.Queue.(BatchEnqueuer); ok {
		sent, err := b.EnqueueBatch(ctx, refs)
		if err != nil {
			return sent, []error{fmt.Errorf("enqueue %d of %d events: %w", len(refs)-len(sent), len(refs), err)}
		}
		return sent, nil
	}
	var sent []payment.EventRef
	var errs []error
	for _, ref := range refs {
		if err := r.Queue.Enqueue(ctx, ref.InvoiceID, ref.EventID); err != nil {
			errs = append(errs, fmt.Errorf("enqueue %s: %w", ref.EventID, err))
			continue
		}
		sent = append(sent, ref)
	}
	return sent, errs
}

// Run expires overdue payments, settles linked intents' outcomes on their documents, then
// re-enqueues overdue events; then runs the refunds' repair pass and re-enqueues refunds'
// overdue events; it returns how many events it re-enqueued. Each step drains its
// backlog within the run's time. A failure of one step or one event does not stop the rest;
// the errors come back joined. Every run whose first sweep of pending events succeeds writes
// the OldestPendingMetric line to Metrics.
func (r *Redrive) Run(ctx context.Context) (int, error) {
	_, expireErr := r.Expire(ctx)
	_, settleErr := r.Settle(ctx)
	overdue := r.Overdue
	if overdue <= 0 {
		overdue = DefaultOverdue
	}
	errs := []error{expireErr, settleErr}
	n := 0
	for first := true; first || r.timeLeft(ctx); first = false {
		now := r.now()
		dueBefore := now.Add(-overdue)
		refs, err := r.Store.PendingDeliveries(ctx, dueBefore, r.batch())
		if err != nil {
			errs = append(errs, err) // no metric when the first sweep fails; the refunds still run
			break
		}
		if first && r.Metrics != nil {
			if err := writeOldestPendingAge(r.Metrics, now, OldestPendingAge(now, dueBefore, refs)); err != nil {
				errs = append(errs, fmt.Errorf("metric %s: %w", OldestPendingMetric, err))
			}
		}
		sent, enqErrs := r.enqueue(ctx, refs)
		errs = append(errs, enqErrs...)
		// Each sent event's next attempt moves Overdue ahead, so the following runs leave the
		// new message alone.
		_, roundErrs := r.each(ctx, sent, func(ctx context.Context, ref payment.EventRef) (bool, error) {
			err := r.Store.RescheduleDelivery(ctx, ref.InvoiceID, ref.EventID, now.Add(overdue))
			if err != nil && !errors.Is(err, payment.ErrStateChanged) { // delivered meanwhile: nothing to move
				return false, fmt.Errorf("reschedule %s: %w", ref.EventID, err)
			}
			return true, nil
		})
		errs = append(errs, roundErrs...)
		n += len(sent)
		if len(refs) < r.batch() || len(sent) == 0 {
			break
		}
	}
	rn, err := r.redriveRefunds(ctx, overdue)
	return n + rn, errors.Join(append(errs, err)...)
}
