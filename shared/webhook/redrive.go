package webhook

import (
	"context"
	"errors"
	"time"

	"github.com/takapay/payments/shared/payment"
)

// PendingStore lists events still waiting for delivery and payments past their expiry.
type PendingStore interface {
	PendingDeliveries(ctx context.Context, olderThan time.Time, limit int) ([]payment.EventRef, error)
	ExpiredPending(ctx context.Context, now time.Time, limit int) ([]*payment.Payment, error)
	ExpirePayment(ctx context.Context, invoiceID string, d *payment.Delivery, now time.Time) (*payment.Payment, error)
}

// Redrive re-enqueues events still pending after a while: the recovery for a crash between a
// state change (which recorded the event) and its SQS send. Sending twice is harmless: the
// sender reads the delivery state first, and receivers dedupe on webhook-id.
type Redrive struct {
	Store PendingStore
	Queue Enqueuer
	// After is how old a pending event must be to be re-enqueued (default 5 minutes).
	After time.Duration
	Limit int
	Now   func() time.Time
}

// Expire records EXPIRED (and its event) for payments past their expiry that nobody has
// looked at since, and enqueues those events; it returns how many it expired.
func (r *Redrive) Expire(ctx context.Context) (int, error) {
	now := time.Now().UTC()
	if r.Now != nil {
		now = r.Now().UTC()
	}
	ps, err := r.Store.ExpiredPending(ctx, now, 100)
	if err != nil {
		return 0, err
	}
	n := 0
	for _, p := range ps {
		d, err := p.NewDelivery(payment.Expired, now)
		if err != nil {
			return n, err
		}
		if _, err := r.Store.ExpirePayment(ctx, p.InvoiceID, d, now); err != nil {
			if errors.Is(err, payment.ErrStateChanged) {
				continue // finished or expired meanwhile
			}
			return n, err
		}
		n++
		if d != nil {
			if err := r.Queue.Enqueue(ctx, p.InvoiceID, d.EventID); err != nil {
				return n, err // recorded: the next round's re-drive sends it
			}
		}
	}
	return n, nil
}

// Run expires overdue payments, then re-enqueues one round of pending events; it returns how
// many events it re-enqueued.
func (r *Redrive) Run(ctx context.Context) (int, error) {
	if _, err := r.Expire(ctx); err != nil {
		return 0, err
	}
	now := time.Now
	if r.Now != nil {
		now = r.Now
	}
	after, limit := r.After, r.Limit
	if after <= 0 {
		after = 5 * time.Minute
	}
	if limit <= 0 {
		limit = 500
	}
	refs, err := r.Store.PendingDeliveries(ctx, now().Add(-after), limit)
	if err != nil {
		return 0, err
	}
	for i, ref := range refs {
		if err := r.Queue.Enqueue(ctx, ref.InvoiceID, ref.EventID); err != nil {
			return i, err
		}
	}
	return len(refs), nil
}
