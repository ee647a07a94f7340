package refund_test

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/takapay/payments/shared/auth"
	"github.com/takapay/payments/shared/payment"
	"github.com/takapay/payments/shared/refund"
)

type queue struct {
	mu   sync.Mutex
	sent []string
}

func (q *queue) EnqueueRefund(_ context.Context, ws string, env auth.Environment, refundID, eventID string) error {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.sent = append(q.sent, refundID+"/"+eventID)
	return nil
}

func hooked(hook string) (*fakeStore, *refund.Service, *queue, string) {
	f := newFake()
	pid := uuid.NewString()
	f.addPayment(&refund.Payment{ID: pid, WorkspaceID: ws, Environment: auth.Sandbox, Status: payment.Completed,
		AmountMinor: 1000, WebhookURL: hook})
	q := &queue{}
	return f, &refund.Service{Store: f, Events: q, Now: func() time.Time { return clock }}, q, pid
}

// Each status a refund reaches records its event in the write that reaches it (the refund as
// stored holds it pending) and enqueues it after; the refund copies its payment's webhook_url.
func TestRefundEventsRecordedWithTheirWrite(t *testing.T) {
	f, svc, q, pid := hooked("https://merchant.example/hook")
	ctx := context.Background()
	r, err := svc.Create(ctx, sc, input(pid, 100))
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"refund.requested"}
	for _, a := range []refund.Action{refund.Review, refund.Approve, refund.ReportReturned} {
		if r, err = svc.Transition(ctx, sc, r.ID, a, refund.TransitionInput{ProviderReference: "TRX1"}); err != nil {
			t.Fatal(err)
		}
		to, _ := a.Target()
		want = append(want, refund.EventKind(to))
	}
	// A repeat changes nothing and records nothing.
	if _, err = svc.Transition(ctx, sc, r.ID, refund.ReportReturned, refund.TransitionInput{ProviderReference: "TRX1"}); err != nil {
		t.Fatal(err)
	}
	stored, _ := f.GetRefund(ctx, ws, auth.Sandbox, r.ID)
	if stored.WebhookURL != "https://merchant.example/hook" || len(stored.Events) != len(want) || len(q.sent) != len(want) {
		t.Fatalf("events %+v, sent %v", stored.Events, q.sent)
	}
	ids := map[string]bool{}
	for i, e := range stored.Events {
		if e.Kind != want[i] || e.Status != payment.DeliveryPending || ids[e.EventID] || q.sent[i] != r.ID+"/"+e.EventID {
			t.Fatalf("event %d: %+v (sent %s)", i, e, q.sent[i])
		}
		ids[e.EventID] = true
	}
	if at, ok := stored.WakeAt(); !ok || !at.Equal(clock) {
		t.Fatalf("pending events must wake the sweep: %s %v", at, ok)
	}
	// The resource shows nothing internal.
	b, _ := json.Marshal(stored.Resource())
	for _, internal := range []string{"hook", "event", "follow", "Writes"} {
		if strings.Contains(string(b), internal) {
			t.Fatalf("resource shows %q: %s", internal, b)
		}
	}
}

// Without a webhook_url on the payment no event is recorded or sent.
func TestRefundNoWebhookURLNoEvents(t *testing.T) {
	f, svc, q, pid := hooked("")
	r, err := svc.Create(context.Background(), sc, input(pid, 100))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := svc.Transition(context.Background(), sc, r.ID, refund.Cancel, refund.TransitionInput{}); err != nil {
		t.Fatal(err)
	}
	stored, _ := f.GetRefund(context.Background(), ws, auth.Sandbox, r.ID)
	if len(stored.Events) != 0 || len(q.sent) != 0 {
		t.Fatalf("events %+v sent %v", stored.Events, q.sent)
	}
	if _, ok := stored.WakeAt(); ok {
		t.Fatal("a refund with nothing due is in the sweep index")
	}
}

// A crash after the write that made a refund REQUESTED: the event is recorded (the re-drive
// sends it), never enqueued; a crash in PENDING_CLAIM: the repair pass finishes the refund and
// records and enqueues its refund.requested.
func TestRefundEventSurvivesCrashes(t *testing.T) {
	f, svc, q, pid := hooked("https://merchant.example/hook")
	f.crashAt = 3 // PutRefund, claim, then the REQUESTED write lands and the process dies
	in := input(pid, 100)
	if _, err := svc.Create(context.Background(), sc, in); err == nil {
		t.Fatal("no crash")
	}
	stored, _ := f.GetRefund(context.Background(), ws, auth.Sandbox, in.ID)
	if stored.Status != refund.Requested || len(stored.Events) != 1 || len(q.sent) != 0 {
		t.Fatalf("after the crash: %+v sent %v", stored, q.sent)
	}
	f.crashAt = f.writes + 1 // the next create dies after writing PENDING_CLAIM
	in2 := input(pid, 100)
	_, _ = svc.Create(context.Background(), sc, in2)
	f.crashAt = 0
	later := clock.Add(refund.DefaultGrace + time.Second)
	if n, err := svc.Repair(context.Background(), later); err != nil || n != 1 {
		t.Fatalf("repair finished %d: %v", n, err)
	}
	r2, _ := f.GetRefund(context.Background(), ws, auth.Sandbox, in2.ID)
	if r2.Status != refund.Requested || len(r2.Events) != 1 || len(q.sent) != 1 || q.sent[0] != in2.ID+"/"+r2.Events[0].EventID {
		t.Fatalf("repaired %+v sent %v", r2, q.sent)
	}
}
