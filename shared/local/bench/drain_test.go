package bench

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/takapay/payments/shared/auth"
	"github.com/takapay/payments/shared/local/localapi"
	"github.com/takapay/payments/shared/local/registry"
	"github.com/takapay/payments/shared/payment"
)

// TestDrainBacklog (make bench only: TAKAPAY_BENCH=1) measures how the re-drive drains a
// backlog on the local servers `make dev` runs: 10,000 PENDING payments with a webhook_url past
// their expiry, then 2,000 linked intents of 100 payment links past theirs (each expiry then
// settles on its link). Each run gets the Lambda's 60 s with its 10 s reserve, as scheduled.
func TestDrainBacklog(t *testing.T) {
	if os.Getenv("TAKAPAY_BENCH") == "" {
		t.Skip("make bench only (TAKAPAY_BENCH=1)")
	}
	var off atomic.Int64
	now := func() time.Time { return time.Now().Add(time.Duration(off.Load())) }
	a := localapi.StartTestAPI(t, localapi.Options{Now: now})
	ctx := context.Background()
	each := func(n, workers int, do func(i int)) {
		var wg sync.WaitGroup
		next := make(chan int)
		for range workers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := range next {
					do(i)
				}
			}()
		}
		for i := range n {
			next <- i
		}
		close(next)
		wg.Wait()
	}
	past := time.Now().Add(-time.Hour)
	each(10000, 16, func(i int) {
		id, _ := payment.NewInvoiceID()
		p := &payment.Payment{InvoiceID: id, WorkspaceID: a.Creds.WorkspaceID, Environment: auth.Sandbox,
			Status: payment.Pending, AmountMinor: 1000, Currency: payment.Currency, Reference: fmt.Sprintf("drain-%d", i),
			WebhookURL: "https://shop.example.com.bd/hooks", CheckoutHash: []byte{1}, RequestHash: "00",
			CreatedAt: past, UpdatedAt: past, ExpiresAt: past.Add(5 * time.Minute)}
		if _, err := a.Store.CreatePayment(ctx, p); err != nil {
			t.Error(err)
		}
	})
	r := registry.WebhookRedrive(a.Deps["WebhookRedriveFunction"])
	run := func() (int, time.Duration) {
		c, cancel := context.WithTimeout(ctx, 60*time.Second)
		defer cancel()
		began := time.Now()
		n, err := r.Expire(c)
		if err != nil {
			t.Fatal(err)
		}
		return n, time.Since(began)
	}
	total, runs, spent := 0, 0, time.Duration(0)
	for total < 10000 && runs < 20 {
		n, d := run()
		total, runs, spent = total+n, runs+1, spent+d
	}
	fmt.Printf("drain: 10,000 pending expiries expired in %d run(s), %.1f s of re-drive time (%.0f a second)\n",
		runs, spent.Seconds(), float64(total)/spent.Seconds())
	if total != 10000 {
		t.Fatalf("expired %d of 10000", total)
	}

	// 2,000 linked intents on 100 payment links, abandoned: their expiry settles on the link.
	links := make([]string, 100)
	each(100, 8, func(i int) {
		body := fmt.Sprintf(`{"reference": "DRAIN-%d", "amount_minor": 1000}`, i)
		res := a.Do(t, "POST", "/v1/workspaces/"+a.Creds.WorkspaceID+"/documents/payment-links?environment=sandbox",
			a.Creds.SandboxKey, body, "Idempotency-Key", fmt.Sprintf("drain-link-key-%06d", i))
		var rec struct {
			ID string `json:"id"`
		}
		if res.Status != http.StatusCreated || json.Unmarshal(res.Body, &rec) != nil {
			t.Fatalf("link: %d %s", res.Status, res.Body)
		}
		a.Do(t, "POST", "/v1/workspaces/"+a.Creds.WorkspaceID+"/documents/payment-links/"+rec.ID+"/publish?environment=sandbox", a.Creds.SandboxKey, "")
		links[i] = rec.ID
	})
	each(2000, 8, func(i int) {
		res := a.Do(t, "POST", "/v1/payment-intents", a.Creds.SandboxKey, `{"document_id": "`+links[i%100]+`", "expires_in_minutes": 5}`,
			"Idempotency-Key", fmt.Sprintf("drain-intent-key-%06d", i))
		if res.Status != http.StatusCreated {
			t.Fatalf("intent: %d %s", res.Status, res.Body)
		}
	})
	off.Store(int64(6 * time.Minute))
	began := time.Now()
	expired, settled := 0, 0
	for runs = 0; (expired < 2000 || settled < 2000) && runs < 20; runs++ {
		c, cancel := context.WithTimeout(ctx, 60*time.Second)
		n, err := r.Expire(c)
		if err != nil {
			t.Fatal(err)
		}
		m, err := r.Settle(c)
		cancel()
		if err != nil {
			t.Fatal(err)
		}
		expired, settled = expired+n, settled+m
	}
	fmt.Printf("drain: 2,000 linked expiries on 100 payment links expired and settled in %d run(s), %.1f s\n",
		runs, time.Since(began).Seconds())
	if expired != 2000 || settled != 2000 {
		t.Fatalf("expired %d, settled %d of 2000", expired, settled)
	}
}
