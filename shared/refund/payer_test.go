package refund_test

import (
	"context"
	"strings"
	"sync"
	"testing"

	"github.com/takapay/payments/shared/auth"
	"github.com/takapay/payments/shared/foundation/apierr"
	"github.com/takapay/payments/shared/foundation/money"
	"github.com/takapay/payments/shared/payment"
	"github.com/takapay/payments/shared/refund"
)

// MarkPayerRequest is the fake's refund_payer: one conditional write of the payment.
func (f *fakeStore) MarkPayerRequest(_ context.Context, pid, prev, id string) (bool, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	p := f.payments[pid]
	if p == nil || p.PayerRequest != prev {
		return false, nil
	}
	p.PayerRequest = id
	return true, f.wrote()
}

func payerInput() refund.PayerInput {
	return refund.PayerInput{Reason: refund.ReasonNotDelivered, Note: "never came", Contact: "+880 1712-345678"}
}

// TestPayerRequest: a payer's request is a REQUESTED refund of everything refundable, asked by
// the payer with their contact as stored; a second while it is open answers it and writes
// nothing; after a rejection a new one is made.
func TestPayerRequest(t *testing.T) {
	ctx := context.Background()
	f, svc, pid := setup(1000, payment.Completed)
	if _, err := svc.Create(ctx, sc, input(pid, 300)); err != nil { // the merchant refunded some already
		t.Fatal(err)
	}
	r, created, err := svc.RequestByPayer(ctx, pid, payerInput())
	if err != nil || !created {
		t.Fatal(err, created)
	}
	if r.Status != refund.Requested || r.AmountMinor != 700 || r.RequestedBy != refund.ByPayer ||
		r.PayerContact != "01712345678" || r.History[0].By != "payer" || r.Note != "never came" || r.Reason != refund.ReasonNotDelivered {
		t.Fatalf("%+v", r)
	}
	shown, ledger, err := svc.PayerRequest(ctx, pid)
	if err != nil || shown == nil || shown.ID != r.ID || ledger.Refundable() != 0 {
		t.Fatal(shown, ledger, err)
	}
	for _, st := range []refund.Action{"", refund.Review, refund.Approve} {
		if st != "" {
			if _, err := svc.Transition(ctx, sc, r.ID, st, refund.TransitionInput{}); err != nil {
				t.Fatal(err)
			}
		}
		writes := f.writes
		again, created, err := svc.RequestByPayer(ctx, pid, refund.PayerInput{Reason: refund.ReasonOther, Contact: "A@B.COM"})
		if err != nil || created || again.ID != r.ID || f.writes != writes {
			t.Fatalf("after %q: %v %v %v, %d writes", st, again, created, err, f.writes-writes)
		}
	}
	if _, err := svc.Transition(ctx, sc, r.ID, refund.Cancel, refund.TransitionInput{}); err != nil {
		t.Fatal(err)
	}
	next, created, err := svc.RequestByPayer(ctx, pid, refund.PayerInput{Reason: refund.ReasonOther, Contact: "A@B.COM"})
	if err != nil || !created || next.ID == r.ID || next.PayerContact != "a@b.com" || next.AmountMinor != 700 {
		t.Fatal(next, created, err)
	}
	if _, err := svc.Transition(ctx, sc, next.ID, refund.Reject, refund.TransitionInput{Reason: "delivered on the 3rd"}); err != nil {
		t.Fatal(err)
	}
	shown, ledger, _ = svc.PayerRequest(ctx, pid)
	if shown.Status != refund.Rejected || shown.RejectionReason != "delivered on the 3rd" || ledger.Refundable() != 700 {
		t.Fatalf("%+v", shown)
	}
	if err := f.check(pid); err != nil {
		t.Fatal(err)
	}
}

// TestPayerRequestRefusals: bad input is 422 naming each field and writes nothing; nothing
// refundable is 409; a payment not COMPLETED 409; live 403; none 404.
func TestPayerRequestRefusals(t *testing.T) {
	ctx := context.Background()
	f, svc, pid := setup(1000, payment.Completed)
	_, _, err := svc.RequestByPayer(ctx, pid, refund.PayerInput{Reason: "angry", Note: strings.Repeat("ন", 256), Contact: "01212345678"})
	e := wantCode(t, err, apierr.ValidationFailed)
	if len(e.Violations) != 3 || f.writes != 0 {
		t.Fatalf("%+v, %d writes", e.Violations, f.writes)
	}
	for _, c := range []string{"", "not an email@", "0171234567", "<b>@x"} {
		if _, _, err := svc.RequestByPayer(ctx, pid, refund.PayerInput{Reason: refund.ReasonOther, Contact: c}); err == nil {
			t.Fatalf("contact %q accepted", c)
		}
	}
	if _, err := svc.Create(ctx, sc, input(pid, 1000)); err != nil {
		t.Fatal(err)
	}
	writes := f.writes
	_, _, err = svc.RequestByPayer(ctx, pid, payerInput())
	wantCode(t, err, apierr.StateConflict, "nothing")
	if f.writes != writes {
		t.Fatal("a refusal wrote")
	}
	_, svc2, pending := setup(1000, payment.Pending)
	_, _, err = svc2.RequestByPayer(ctx, pending, payerInput())
	wantCode(t, err, apierr.StateConflict, "PENDING")
	_, _, err = svc2.RequestByPayer(ctx, "nope", payerInput())
	wantCode(t, err, apierr.NotFound)
	f3 := newFake()
	f3.addPayment(&refund.Payment{ID: "live", WorkspaceID: ws, Environment: auth.Live, Status: payment.Completed, AmountMinor: 5})
	_, _, err = (&refund.Service{Store: f3}).RequestByPayer(ctx, "live", payerInput())
	wantCode(t, err, apierr.ScopeOrEnvironmentDenied)
}

// TestPayerRequestRace: 20 racing requests make one refund; every one answers it.
func TestPayerRequestRace(t *testing.T) {
	f, svc, pid := setup(1000, payment.Completed)
	var wg sync.WaitGroup
	var mu sync.Mutex
	ids, created := map[string]bool{}, 0
	for range 20 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r, c, err := svc.RequestByPayer(context.Background(), pid, payerInput())
			mu.Lock()
			defer mu.Unlock()
			if err != nil {
				t.Error(err)
				return
			}
			ids[r.ID] = true
			if c {
				created++
			}
		}()
	}
	wg.Wait()
	if len(ids) != 1 || created != 1 || len(f.refunds) != 1 {
		t.Fatalf("%d ids, %d created, %d refunds", len(ids), created, len(f.refunds))
	}
	if err := f.check(pid); err != nil {
		t.Fatal(err)
	}
}

// TestPayerRequestCrash: a request stopped after each of its writes is finished by the next
// request (or the repair pass): one refund, the money rule holds.
func TestPayerRequestCrash(t *testing.T) {
	for at := 1; at <= 3; at++ {
		f, svc, pid := setup(1000, payment.Completed)
		f.crashAt = at
		if _, _, err := svc.RequestByPayer(context.Background(), pid, payerInput()); err == nil {
			t.Fatalf("crash at %d: no error", at)
		}
		r, _, err := svc.RequestByPayer(context.Background(), pid, payerInput())
		if err != nil || r.Status != refund.Requested || r.AmountMinor != money.Paisa(1000) {
			t.Fatalf("crash at %d: %v %v", at, r, err)
		}
		if len(f.refunds) != 1 {
			t.Fatalf("crash at %d: %d refunds", at, len(f.refunds))
		}
		if err := f.check(pid); err != nil {
			t.Fatalf("crash at %d: %v", at, err)
		}
	}
}
