package webhook_test

import (
	"context"
	"errors"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/takapay/payments/shared/payment"
	"github.com/takapay/payments/shared/webhook"
)

// pendingStub is the re-drive's view of the store, scripted per test.
type pendingStub struct {
	mu          sync.Mutex
	refs        []payment.EventRef
	expired     []payment.Expiring
	expireErr   map[string]error
	dueBefore   time.Time
	rescheduled map[string]time.Time
}

func (s *pendingStub) PendingDeliveries(_ context.Context, dueBefore time.Time, limit int) ([]payment.EventRef, error) {
	s.dueBefore = dueBefore
	return s.refs, nil
}

func (s *pendingStub) ExpiredPending(context.Context, time.Time, int) ([]payment.Expiring, error) {
	return s.expired, nil
}

func (s *pendingStub) ExpirePayment(_ context.Context, invoiceID string, d *payment.Delivery, now time.Time) (*payment.Payment, error) {
	return nil, s.expireErr[invoiceID]
}

func (s *pendingStub) RescheduleDelivery(_ context.Context, invoiceID, eventID string, next time.Time) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.rescheduled == nil {
		s.rescheduled = map[string]time.Time{}
	}
	s.rescheduled[eventID] = next
	return nil
}

type queueStub struct {
	fail map[string]bool
	sent []string
}

func (q *queueStub) Enqueue(_ context.Context, invoiceID, eventID string) error {
	if q.fail[eventID] {
		return errors.New("queue unavailable")
	}
	q.sent = append(q.sent, eventID)
	return nil
}

// One failure in a re-drive run does not stop the rest of it, and the failures are reported.
func TestRedriveContinuesPastFailures(t *testing.T) {
	now := time.Date(2026, 11, 24, 10, 0, 0, 0, time.UTC)
	store := &pendingStub{
		refs:      []payment.EventRef{{InvoiceID: "a", EventID: "evt_a"}, {InvoiceID: "b", EventID: "evt_b"}, {InvoiceID: "c", EventID: "evt_c"}},
		expired:   []payment.Expiring{{InvoiceID: "x"}, {InvoiceID: "y"}},
		expireErr: map[string]error{"x": errors.New("throttled")},
	}
	q := &queueStub{fail: map[string]bool{"evt_b": true}}
	r := &webhook.Redrive{Store: store, Queue: q, Now: func() time.Time { return now }}
	n, err := r.Run(context.Background())
	if n != 2 {
		t.Errorf("re-enqueued %d, want 2 (a and c)", n)
	}
	if err == nil || !strings.Contains(err.Error(), "expire x") || !strings.Contains(err.Error(), "enqueue evt_b") {
		t.Errorf("error = %v, want both failures reported", err)
	}
	// y expired despite x's failure; a and c re-enqueued despite b's.
	if len(q.sent) != 3 || !slices.Contains(q.sent, "evt_a") || !slices.Contains(q.sent, "evt_c") {
		t.Errorf("sent %v, want y's new event, evt_a and evt_c", q.sent)
	}
	if !store.dueBefore.Equal(now.Add(-webhook.DefaultOverdue)) {
		t.Errorf("asked for events due before %s, want now less the visibility timeout", store.dueBefore)
	}
	if len(store.rescheduled) != 2 || !store.rescheduled["evt_a"].Equal(now.Add(webhook.DefaultOverdue)) {
		t.Errorf("rescheduled %v, want a and c moved to now + the visibility timeout", store.rescheduled)
	}
}
