package dynamo

import (
	"errors"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/takapay/payments/shared/auth"
	"github.com/takapay/payments/shared/export"
	"github.com/takapay/payments/shared/payment"
)

// EachPayment streams exactly the workspace's environment's payments created in [From, To),
// in index order either way, across index pages and BatchGetItem chunks, and stops on ErrStop.
func TestEachPaymentRangeOrderAndStop(t *testing.T) {
	s, ctx := newStore(t)
	ws, other := "0195f3a4-0000-7000-8000-0000000000e1", "0195f3a4-0000-7000-8000-0000000000e2"
	base := time.Date(2026, 11, 20, 0, 0, 0, 0, time.UTC)
	put := func(id string, w string, env auth.Environment, at time.Time) {
		p := &payment.Payment{InvoiceID: id, WorkspaceID: w, Environment: env, Status: payment.Pending, AmountMinor: 100,
			Currency: "BDT", Reference: "r", CheckoutHash: []byte{1}, RequestHash: "00", CreatedAt: at, UpdatedAt: at,
			ExpiresAt: at.Add(time.Hour)}
		if _, err := s.CreatePayment(ctx, p); err != nil {
			t.Fatal(err)
		}
	}
	var want []string
	for i := 0; i < 230; i++ {
		id := fmt.Sprintf("0195f3a4-3333-7000-8000-%012d", i)
		at := base.Add(time.Duration(i) * time.Minute)
		put(id, ws, auth.Sandbox, at)
		if i >= 5 && i < 225 { // From = minute 5 (inclusive), To = minute 225 (exclusive)
			want = append(want, id)
		}
	}
	put("0195f3a4-3333-7000-8000-900000000001", ws, auth.Live, base.Add(10*time.Minute))
	put("0195f3a4-3333-7000-8000-900000000002", other, auth.Sandbox, base.Add(10*time.Minute))

	q := export.Query{WorkspaceID: ws, Environment: auth.Sandbox, From: base.Add(5 * time.Minute), To: base.Add(225 * time.Minute), PageSize: 150}
	var got []string
	if err := s.EachPayment(ctx, q, func(p *payment.Payment) error { got = append(got, p.InvoiceID); return nil }); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(got, want) {
		t.Fatalf("oldest first: %d payments, want %d (first %v)", len(got), len(want), got[:min(3, len(got))])
	}
	q.NewestFirst, got = true, nil
	if err := s.EachPayment(ctx, q, func(p *payment.Payment) error { got = append(got, p.InvoiceID); return nil }); err != nil {
		t.Fatal(err)
	}
	slices.Reverse(want)
	if !slices.Equal(got, want) {
		t.Fatalf("newest first: %d payments, want %d", len(got), len(want))
	}
	// Open ends; stop after three.
	got = nil
	err := s.EachPayment(ctx, export.Query{WorkspaceID: ws, Environment: auth.Sandbox, NewestFirst: true, PageSize: 10},
		func(p *payment.Payment) error {
			got = append(got, p.InvoiceID)
			if len(got) == 3 {
				return export.ErrStop
			}
			return nil
		})
	if err != nil || len(got) != 3 || got[0] != "0195f3a4-3333-7000-8000-000000000229" {
		t.Fatalf("stopped stream: %v %v", got, err)
	}
	boom := errors.New("boom")
	if err := s.EachPayment(ctx, q, func(*payment.Payment) error { return boom }); !errors.Is(err, boom) {
		t.Fatalf("fn's error: %v", err)
	}
	// The live one only.
	got = nil
	if err := s.EachPayment(ctx, export.Query{WorkspaceID: ws, Environment: auth.Live}, func(p *payment.Payment) error {
		got = append(got, p.InvoiceID)
		return nil
	}); err != nil || len(got) != 1 {
		t.Fatalf("live: %v %v", got, err)
	}
}
