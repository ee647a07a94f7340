package integration_test

import (
	"errors"
	"testing"

	"github.com/google/uuid"

	"github.com/takapay/payments/shared/foundation/apierr"
	"github.com/takapay/payments/shared/payment"
	"github.com/takapay/payments/shared/refund"
)

// TestRefundListAndPolicyOnDynalite runs decision 102's list and decision 103's policy against
// the real store: newest first across pages, filters, a payment's refunds through its ledger,
// another workspace seeing nothing, and the two-person rule reading the policy item.
func TestRefundListAndPolicyOnDynalite(t *testing.T) {
	s := store(t)
	ctx := t.Context()
	ws := uuid.NewString()
	svc := &refund.Service{Store: s, Policies: s}
	pid := completedPayment(t, s, ws, 10_000, payment.Completed)
	other := completedPayment(t, s, ws, 10_000, payment.Completed)
	var made []string
	for i := range 5 {
		p := pid
		if i == 2 {
			p = other
		}
		r, err := svc.Create(ctx, scopeOf(ws), refund.CreateInput{PaymentID: p, AmountMinor: 100,
			Reason: refund.ReasonDuplicate, RequestedBy: refund.ByMerchant})
		if err != nil {
			t.Fatal(err)
		}
		made = append([]string{r.ID}, made...) // newest first
	}
	var got []string
	q := refund.ListQuery{Limit: 2}
	for pages := 0; ; pages++ {
		if pages > 4 {
			t.Fatal("the cursor does not end")
		}
		page, err := svc.List(ctx, scopeOf(ws), q)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range page.Refunds {
			got = append(got, r.ID)
		}
		if page.NextCursor == "" {
			break
		}
		q.Cursor = page.NextCursor
	}
	if len(got) != len(made) {
		t.Fatalf("listed %v, want %v", got, made)
	}
	for i := range made {
		if got[i] != made[i] {
			t.Fatalf("listed %v, want newest first %v", got, made)
		}
	}
	page, err := svc.List(ctx, scopeOf(ws), refund.ListQuery{PaymentID: other})
	if err != nil || len(page.Refunds) != 1 || page.Refunds[0].ID != made[2] {
		t.Fatalf("the other payment's refunds: %v %v", page.Refunds, err)
	}
	if _, err := svc.Transition(ctx, scopeOf(ws), made[0], refund.Cancel, refund.TransitionInput{}); err != nil {
		t.Fatal(err)
	}
	page, err = svc.List(ctx, scopeOf(ws), refund.ListQuery{Status: refund.Cancelled})
	if err != nil || len(page.Refunds) != 1 || page.Refunds[0].ID != made[0] {
		t.Fatalf("cancelled: %v %v", page.Refunds, err)
	}
	for _, q := range []refund.ListQuery{{}, {PaymentID: pid}} {
		page, err := svc.List(ctx, scopeOf(uuid.NewString()), q)
		if err != nil || len(page.Refunds) != 0 {
			t.Fatalf("another workspace listed %d refunds, %v", len(page.Refunds), err)
		}
	}

	// The two-person rule reads the policy item.
	if err := svc.SetPolicy(ctx, ws, refund.Policy{TwoPersonMinor: 100}); err != nil {
		t.Fatal(err)
	}
	if p, err := s.RefundPolicy(ctx, ws); err != nil || p.TwoPersonMinor != 100 {
		t.Fatalf("policy read back %v %v", p, err)
	}
	_, err = svc.Transition(ctx, scopeOf(ws), made[1], refund.Approve, refund.TransitionInput{})
	var e *apierr.Error
	if !errors.As(err, &e) || e.Code != apierr.StateConflict {
		t.Fatalf("the asker approved their own refund at the threshold: %v", err)
	}
	second := scopeOf(ws)
	second.By = "user_second"
	if r, err := svc.Transition(ctx, second, made[1], refund.Approve, refund.TransitionInput{}); err != nil || r.Status != refund.Approved {
		t.Fatalf("a second approver: %v %v", r, err)
	}
}
