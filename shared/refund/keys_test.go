package refund_test

import (
	"context"
	"sync"
	"testing"

	"github.com/google/uuid"

	"github.com/takapay/payments/shared/auth"
	"github.com/takapay/payments/shared/foundation/apierr"
	"github.com/takapay/payments/shared/payment"
	"github.com/takapay/payments/shared/refund"
)

// fakeKeys is refund.Keys in memory (one conditional write per PutRefundKey).
type fakeKeys struct {
	mu   sync.Mutex
	ids  map[string]string
	puts int
}

func (k *fakeKeys) RefundKey(_ context.Context, ws string, env auth.Environment, key string) (string, error) {
	k.mu.Lock()
	defer k.mu.Unlock()
	return k.ids[ws+"|"+string(env)+"|"+key], nil
}

func (k *fakeKeys) PutRefundKey(_ context.Context, ws string, env auth.Environment, key, id string) (string, error) {
	k.mu.Lock()
	defer k.mu.Unlock()
	k.puts++
	if got, ok := k.ids[ws+"|"+string(env)+"|"+key]; ok {
		return got, nil
	}
	k.ids[ws+"|"+string(env)+"|"+key] = id
	return id, nil
}

// An Idempotency-Key names a fresh uuid v7 from its first use: the same request replays the
// refund (Replayed, nothing written), another body under it is 409, and a refused create
// leaves no key behind.
func TestRefundIdempotencyKey(t *testing.T) {
	f, svc, pid := setup(1000, payment.Completed)
	keys := &fakeKeys{ids: map[string]string{}}
	svc.Keys = keys
	ctx := context.Background()
	in := refund.CreateInput{PaymentID: pid, AmountMinor: 400, Reason: refund.ReasonDuplicate, RequestedBy: refund.ByMerchant,
		IdempotencyKey: "order-1234-refund-1", RequestHash: "h1"}
	r, err := svc.Create(ctx, sc, in)
	if err != nil {
		t.Fatal(err)
	}
	if u, err := uuid.Parse(r.ID); err != nil || u.Version() != 7 || r.Replayed || r.Status != refund.Requested {
		t.Fatalf("first create: id %s (%v), replayed %v, %s", r.ID, err, r.Replayed, r.Status)
	}
	writes := f.writes
	again, err := svc.Create(ctx, sc, in)
	if err != nil || again.ID != r.ID || !again.Replayed || f.writes != writes || keys.puts != 1 {
		t.Fatalf("replay: %+v %v (writes %d → %d, key puts %d)", again, err, writes, f.writes, keys.puts)
	}
	other := in
	other.RequestHash = "h2"
	_, err = svc.Create(ctx, sc, other)
	wantCode(t, err, apierr.IdempotencyKeyReused)
	refused := in
	refused.IdempotencyKey, refused.AmountMinor = "order-1234-refund-2", 700 // 600 left
	_, err = svc.Create(ctx, sc, refused)
	wantCode(t, err, apierr.StateConflict, "600")
	if keys.puts != 1 || f.writes != writes {
		t.Errorf("the refused create wrote (key puts %d, writes %d → %d)", keys.puts, writes, f.writes)
	}
	if id, _ := keys.RefundKey(ctx, ws, auth.Sandbox, "order-1234-refund-2"); id != "" {
		t.Errorf("the refused create recorded its key: %s", id)
	}
	// A key from another environment is another key; live is refused before any read.
	live := refund.Scope{WorkspaceID: ws, Environment: auth.Live, By: "key_1"}
	_, err = svc.Create(ctx, live, in)
	wantCode(t, err, apierr.ScopeOrEnvironmentDenied)
	_, err = svc.Transition(ctx, live, r.ID, refund.Approve, refund.TransitionInput{})
	wantCode(t, err, apierr.ScopeOrEnvironmentDenied)
}
