package payment

import (
	"context"
	"log/slog"
	"time"

	"github.com/takapay/payments/shared/foundation/obs"
)

// Enqueuer hands a recorded webhook event to the delivery queue (package sqsqueue).
type Enqueuer interface {
	Enqueue(ctx context.Context, invoiceID, eventID string) error
}

// DefaultEnqueueTimeout bounds the enqueue that follows a recorded state change.
const DefaultEnqueueTimeout = 500 * time.Millisecond

// Emit enqueues the event a state change recorded, waiting at most timeout
// (DefaultEnqueueTimeout when 0): the caller's answer never waits on the queue. A failure is
// logged, not returned: the event is already in the payment's outbox, and the re-drive
// re-enqueues it once it is overdue. Nothing happens for a nil event or queue.
func Emit(ctx context.Context, q Enqueuer, timeout time.Duration, invoiceID string, d *Delivery) {
	if d == nil || q == nil {
		return
	}
	if timeout <= 0 {
		timeout = DefaultEnqueueTimeout
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	if err := q.Enqueue(ctx, invoiceID, d.EventID); err != nil {
		obs.Annotate(ctx, slog.String("enqueue_error", err.Error()), slog.String("event_id", d.EventID))
	}
}
