package checkout

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/takapay/payments/shared/auth"
	"github.com/takapay/payments/shared/document"
	"github.com/takapay/payments/shared/foundation/apierr"
	"github.com/takapay/payments/shared/payment"
)

// fakeStore is the checkout's Store in memory: one payment, conditional writes by status and
// lock as the store's, and the status of its document.
type fakeStore struct {
	p         *payment.Payment
	docStatus string
	writes    int
}

func (f *fakeStore) GetPayment(_ context.Context, id string) (*payment.Payment, error) {
	if f.p == nil || f.p.InvoiceID != id {
		return nil, nil
	}
	c := *f.p
	return &c, nil
}

func (f *fakeStore) LockPayment(_ context.Context, _ *payment.Payment, route, payer string, now time.Time) (*payment.Payment, error) {
	c := *f.p
	if f.p.LockRoute != "" || f.p.Status != payment.Pending {
		return &c, payment.ErrStateChanged
	}
	f.writes++
	f.p.LockRoute, f.p.LockPayer, f.p.LockedAt = route, payer, &now
	c = *f.p
	return &c, nil
}

func (f *fakeStore) FinishPayment(_ context.Context, _ string, to payment.Status, requireLock bool, _ *payment.Delivery, now time.Time) (*payment.Payment, error) {
	c := *f.p
	if f.p.Status != payment.Pending || (requireLock && f.p.LockRoute == "") {
		return &c, payment.ErrStateChanged
	}
	f.writes++
	f.p.Status, f.p.FinishedAt = to, &now
	c = *f.p
	return &c, nil
}

func (f *fakeStore) ExpirePayment(ctx context.Context, id string, d *payment.Delivery, now time.Time) (*payment.Payment, error) {
	return f.FinishPayment(ctx, id, payment.Expired, false, d, now)
}

func (f *fakeStore) DocumentStatus(context.Context, *payment.Payment) (string, error) {
	return f.docStatus, nil
}

var _ Store = (*fakeStore)(nil)

var ruleNow = time.Date(2026, 11, 28, 12, 0, 0, 0, time.UTC)

func pendingPayment(t *testing.T) (*payment.Payment, string) {
	t.Helper()
	id, _ := payment.NewInvoiceID()
	token, hash, err := payment.TokenKey(make([]byte, 32)).CheckoutToken(id)
	if err != nil {
		t.Fatal(err)
	}
	return &payment.Payment{InvoiceID: id, Environment: auth.Sandbox, Status: payment.Pending, AmountMinor: 100,
		Currency: payment.Currency, CheckoutHash: hash, ExpiresAt: ruleNow.Add(time.Hour)}, token
}

func code(t *testing.T, err error) apierr.Code {
	t.Helper()
	var e *apierr.Error
	if !errors.As(err, &e) {
		t.Fatalf("error %v is not an *apierr.Error", err)
	}
	return e.Code
}

// The checkout's rules on typed values, with a store fake: the token finds only its own
// payment, the first lock wins and the same lock again is idempotent, approve needs a lock,
// a retried outcome answers as the first, and a closed document cancels the intent instead.
func TestCheckoutRules(t *testing.T) {
	ctx := context.Background()
	p, token := pendingPayment(t)
	st := &fakeStore{p: p}
	s := &Service{Store: st, Now: func() time.Time { return ruleNow }}

	other := []byte(token)
	if other[30] = 'A'; token[30] == 'A' { // another secret for the same invoice id
		other[30] = 'B'
	}
	if _, _, ok := payment.ParseCheckoutToken(string(other)); !ok {
		t.Fatal("the altered token is not well-formed")
	}
	if _, err := s.Open(ctx, string(other), "c", ""); code(t, err) != apierr.NotFound {
		t.Fatal("a token with another secret opened the payment")
	}
	got, err := s.Open(ctx, token, "c", "")
	if err != nil || got.InvoiceID != p.InvoiceID {
		t.Fatalf("Open = %v, %v", got, err)
	}
	if _, err := s.Notice(ctx, got, notices["approve"], ""); code(t, err) != apierr.StateConflict {
		t.Fatal("approve without a lock was not a conflict")
	}
	if _, err := s.Lock(ctx, got, "bkash", "017-1234", ""); code(t, err) != apierr.ValidationFailed {
		t.Fatal("a short phone was accepted")
	}
	res, err := s.Lock(ctx, got, "bkash", "০১৭১২৩৪৫৬৭৮", "")
	if err != nil || res.Payment.LockPayer != "01712345678" {
		t.Fatalf("Lock = %+v, %v", res, err)
	}
	if again, err := s.Lock(ctx, got, "bkash", "+8801712345678", ""); err != nil || again.Payment.LockRoute != "bkash" {
		t.Fatalf("the same lock again = %+v, %v", again, err)
	}
	if _, err := s.Lock(ctx, res.Payment, "nagad", "01712345678", ""); code(t, err) != apierr.StateConflict {
		t.Fatal("a second, different lock was not a conflict")
	}
	done, err := s.Notice(ctx, res.Payment, notices["approve"], "")
	if err != nil || done.Payment.Status != payment.Completed {
		t.Fatalf("approve = %+v, %v", done, err)
	}
	writes := st.writes
	if again, err := s.Notice(ctx, res.Payment, notices["approve"], ""); err != nil || again.Payment.Status != payment.Completed || st.writes != writes {
		t.Fatalf("a retried approve = %+v, %v (%d writes)", again, err, st.writes-writes)
	}
	if _, err := s.Notice(ctx, done.Payment, notices["cancel"], ""); code(t, err) != apierr.StateConflict {
		t.Fatal("cancelling a completed payment was not a conflict")
	}

	// An intent of an invoice the merchant cancelled: the lock cancels it and says why.
	q, _ := pendingPayment(t)
	q.Source = payment.Source{Kind: payment.SourceInvoice, DocumentID: "d"}
	st2 := &fakeStore{p: q, docStatus: document.StatusCancelled}
	s2 := &Service{Store: st2, Now: func() time.Time { return ruleNow }}
	closed, err := s2.Lock(ctx, q, "bkash", "01712345678", "")
	if err != nil || closed.Closed == nil || closed.ClosedKey != "checkout.closed.invoice" || closed.Payment.Status != payment.Cancelled {
		t.Fatalf("lock on a cancelled invoice = %+v, %v", closed, err)
	}
}
