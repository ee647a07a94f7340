package integration_test

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/takapay/payments/shared/local/apitest"
	"github.com/takapay/payments/shared/local/registry"
	"github.com/takapay/payments/shared/payment"
)

// A standalone intent that nobody touches — no webhook_url, never opened, never verified —
// still expires and ages out like a linked one (decision 35): the re-drive's sweep records it
// EXPIRED with the retention ttl, and past that ttl it is absent to every reader. Before, only
// payments that needed events were in the sweep's index, so such an intent stayed PENDING in
// the table for good.
func TestUntouchedStandaloneIntentExpiresAndAgesOut(t *testing.T) {
	t.Parallel()
	c := &clock{}
	a := startAt(t, c)
	ctx := context.Background()
	in, _ := createIntent(t, a, idemKey(), `{"amount": 10, "expires_in_minutes": 15}`)

	c.Advance(16 * time.Minute)
	if _, err := registry.WebhookRedrive(a.Deps["WebhookRedriveFunction"]).Expire(ctx); err != nil {
		t.Fatal(err)
	}
	p, err := a.Store.GetPayment(ctx, in.ID)
	if err != nil || p == nil {
		t.Fatalf("the expired intent: %v %v", p, err)
	}
	if p.Status != payment.Expired {
		t.Fatalf("stored status %s after the sweep, want EXPIRED", p.Status)
	}
	if p.FinishedAt == nil || !p.FinishedAt.Equal(p.ExpiresAt) {
		t.Errorf("finished_at %v, want its expiry %v", p.FinishedAt, p.ExpiresAt)
	}
	if p.Outbox != nil {
		t.Errorf("an intent without a webhook_url recorded an event: %+v", p.Outbox)
	}
	ttl := ttlOf(rawItem(t, a, "PAY#"+in.ID, "PAY"))
	if want := c.Now().Add(payment.Retention).Unix(); ttl < want-60 || ttl > want+60 {
		t.Fatalf("ttl %d, want about %d (retention after it ended)", ttl, want)
	}
	if left, _ := a.Store.ExpiredPending(ctx, c.Now(), 10); len(left) != 0 {
		t.Errorf("%d payments still in the expiry index after the sweep", len(left))
	}

	// Past its retention it reads as absent.
	pastTTL(t, a, in.ID)
	apitest.Envelope(t, a.Do(t, "GET", "/v1/payment-intents/"+in.ID, a.Creds.SandboxKey, ""), http.StatusNotFound, "NOT_FOUND")
	apitest.Envelope(t, a.Do(t, "POST", "/v1/payment/verify", a.Creds.SandboxKey, `{"invoice_id": "`+in.ID+`"}`), http.StatusNotFound, "NOT_FOUND")
}
