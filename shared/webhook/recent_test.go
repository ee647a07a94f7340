package webhook

import (
	"context"
	"testing"
	"time"

	"github.com/takapay/payments/shared/auth"
	"github.com/takapay/payments/shared/intent"
	"github.com/takapay/payments/shared/payment"
)

type listerFunc func(context.Context, intent.ListQuery) ([]intent.Stored, string, error)

func (f listerFunc) ListIntents(ctx context.Context, q intent.ListQuery) ([]intent.Stored, string, error) {
	return f(ctx, q)
}

// Failures first: failed, retrying, not yet tried, delivered; newest first within each; one
// page of RecentDeliveryPayments payments, those without an event left out.
func TestRecentDeliveriesFailuresFirst(t *testing.T) {
	t0 := time.Date(2026, 11, 27, 10, 0, 0, 0, time.UTC)
	pay := func(id, status string, attempts, minute int) intent.Stored {
		p := &payment.Payment{InvoiceID: id}
		if status != "" {
			p.Outbox = &payment.Delivery{EventID: "evt-" + id, Status: status, Attempts: attempts, CreatedAt: t0.Add(time.Duration(minute) * time.Minute)}
		}
		return intent.Stored{Payment: p}
	}
	var got intent.ListQuery
	l := listerFunc(func(_ context.Context, q intent.ListQuery) ([]intent.Stored, string, error) {
		got = q
		return []intent.Stored{
			pay("d-new", payment.DeliveryDelivered, 1, 9), pay("none", "", 0, 8), pay("w", payment.DeliveryPending, 0, 7),
			pay("r", payment.DeliveryPending, 2, 6), pay("f-new", payment.DeliveryFailed, 12, 5), pay("d-old", payment.DeliveryDelivered, 1, 4),
			pay("f-old", payment.DeliveryFailed, 12, 3),
		}, "next", nil
	})
	out, err := RecentDeliveries(context.Background(), l, "ws", auth.Live)
	if err != nil {
		t.Fatal(err)
	}
	if got.WorkspaceID != "ws" || got.Environment != auth.Live || got.Limit != RecentDeliveryPayments || got.Cursor != "" || got.Keep != nil {
		t.Errorf("query %+v", got)
	}
	var ids []string
	for _, d := range out {
		ids = append(ids, d.InvoiceID)
	}
	want := []string{"f-new", "f-old", "r", "w", "d-new", "d-old"}
	if len(ids) != len(want) {
		t.Fatalf("order %v, want %v", ids, want)
	}
	for i := range want {
		if ids[i] != want[i] {
			t.Fatalf("order %v, want %v", ids, want)
		}
	}
	if !Failing(out[2].Delivery) || Failing(out[3].Delivery) || Failing(out[4].Delivery) || !Failing(out[0].Delivery) {
		t.Error("Failing: failed and retrying only")
	}
}
