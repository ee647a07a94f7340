package refund_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/takapay/payments/shared/auth"
	"github.com/takapay/payments/shared/foundation/money"
	"github.com/takapay/payments/shared/payment"
	"github.com/takapay/payments/shared/refund"
)

// linked adds a COMPLETED payment of paid paisa priced from doc.
func linked(f *fakeStore, doc refund.Document, paid money.Paisa) string {
	pid := uuid.NewString()
	f.addPayment(&refund.Payment{ID: pid, WorkspaceID: ws, Environment: auth.Sandbox, Status: payment.Completed,
		AmountMinor: paid, Document: doc})
	return pid
}

// returned creates a refund of amount on pid and takes it to RETURNED.
func returned(t *testing.T, svc *refund.Service, pid string, amount money.Paisa) *refund.Refund {
	t.Helper()
	ctx := context.Background()
	r, err := svc.Create(ctx, sc, input(pid, amount))
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range []refund.Action{refund.Approve, refund.ReportReturned} {
		if r, err = svc.Transition(ctx, sc, r.ID, a, refund.TransitionInput{ProviderReference: "TRX1"}); err != nil {
			t.Fatal(err)
		}
	}
	return r
}

// TestLedgerRefundable: refundable is paid − promised for a COMPLETED payment, 0 otherwise;
// refunded is what was returned.
func TestLedgerRefundable(t *testing.T) {
	for _, c := range []struct {
		status payment.Status
		want   money.Paisa
	}{{payment.Completed, 600}, {payment.Pending, 0}, {payment.Failed, 0}, {payment.Expired, 0}, {payment.Cancelled, 0}} {
		l := refund.Ledger{Status: c.status, Paid: 1000, Promised: 400, Returned: 150}
		if l.Refundable() != c.want || l.Refunded() != 150 {
			t.Errorf("%s: refundable %d refunded %d, want %d and 150", c.status, l.Refundable(), l.Refunded(), c.want)
		}
	}
	if l := (refund.Ledger{Status: payment.Completed, Paid: 100, Promised: 300}); l.Refundable() != 0 {
		t.Errorf("over-promised ledger answers %d", l.Refundable())
	}
}

// TestRefundCountsOnItsDocument: a refund of a linked payment carries its document from
// create, and its RETURNED amount is counted there once; a payment link with two payments,
// each partly refunded, shows the sum; a rejected refund counts nothing there.
func TestRefundCountsOnItsDocument(t *testing.T) {
	f := newFake()
	svc := &refund.Service{Store: f, Now: func() time.Time { return clock }}
	link := refund.Document{Kind: payment.SourcePaymentLinks, ID: uuid.NewString()}
	a, b := linked(f, link, 1000), linked(f, link, 500)
	r := returned(t, svc, a, 300)
	if r.Document != link {
		t.Fatalf("the refund names document %+v, want %+v", r.Document, link)
	}
	returned(t, svc, b, 200)
	rejected, err := svc.Create(context.Background(), sc, input(b, 100))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := svc.Transition(context.Background(), sc, rejected.ID, refund.Reject, refund.TransitionInput{Reason: "no"}); err != nil {
		t.Fatal(err)
	}
	if _, err := svc.Transition(context.Background(), sc, r.ID, refund.ReportReturned, refund.TransitionInput{ProviderReference: "TRX1"}); err != nil {
		t.Fatal(err) // a repeat counts nothing again
	}
	if got := f.docRefunded(link); got != 500 {
		t.Fatalf("the payment link shows %d refunded, want 300 + 200", got)
	}
	returned(t, svc, linked(f, refund.Document{}, 1000), 100) // a standalone payment's refund
	if len(f.docs) != 1 {
		t.Fatalf("documents counted: %v", f.docs)
	}
}

// TestRefundDocumentCrashPoints stops report-returned of a linked payment's refund after each
// of its writes (the refund, the payment's count, the document's count, the follow-up
// cleared): the repair pass finishes it, and the document counts the refund exactly once.
func TestRefundDocumentCrashPoints(t *testing.T) {
	for at := 1; at <= 4; at++ {
		t.Run(fmt.Sprintf("after-write-%d", at), func(t *testing.T) {
			f := newFake()
			svc := &refund.Service{Store: f, Now: func() time.Time { return clock }}
			inv := refund.Document{Kind: payment.SourceInvoice, ID: uuid.NewString()}
			pid := linked(f, inv, 1000)
			ctx := context.Background()
			r, err := svc.Create(ctx, sc, input(pid, 400))
			if err != nil {
				t.Fatal(err)
			}
			if r, err = svc.Transition(ctx, sc, r.ID, refund.Approve, refund.TransitionInput{}); err != nil {
				t.Fatal(err)
			}
			f.crashAt = f.writes + at
			_, err = svc.Transition(ctx, sc, r.ID, refund.ReportReturned, refund.TransitionInput{ProviderReference: "TRX1"})
			if (err != nil) != (at <= 4) {
				t.Fatalf("crash after write %d: %v", at, err)
			}
			f.crashAt = 0
			if got := f.docRefunded(inv); at <= 2 && got != 0 || at > 2 && got != 400 {
				t.Fatalf("before the repair the invoice shows %d refunded", got)
			}
			for range 2 { // a second pass (or a late one) counts nothing again
				if _, err := svc.Repair(ctx, clock.Add(refund.DefaultGrace+time.Second)); err != nil {
					t.Fatal(err)
				}
			}
			if _, err := svc.Transition(ctx, sc, r.ID, refund.ReportReturned, refund.TransitionInput{ProviderReference: "TRX1"}); err != nil {
				t.Fatal(err)
			}
			if err := f.check(pid); err != nil {
				t.Fatalf("money rule broken:\n%v", err)
			}
			if got := f.docRefunded(inv); got != 400 {
				t.Fatalf("the invoice shows %d refunded, want 400 once", got)
			}
			if l, _ := svc.Ledger(ctx, sc, pid); l.Refunded() != 400 || l.Refundable() != 600 {
				t.Fatalf("ledger %+v", l)
			}
		})
	}
}
