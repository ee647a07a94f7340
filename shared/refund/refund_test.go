package refund_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/takapay/payments/shared/auth"
	"github.com/takapay/payments/shared/foundation/apierr"
	"github.com/takapay/payments/shared/foundation/money"
	"github.com/takapay/payments/shared/payment"
	"github.com/takapay/payments/shared/refund"
)

const ws = "ws-1"

var (
	sc    = refund.Scope{WorkspaceID: ws, Environment: auth.Sandbox, By: "key_1"}
	clock = time.Date(2026, 11, 29, 10, 0, 0, 0, time.UTC)
)

func setup(paid money.Paisa, status payment.Status) (*fakeStore, *refund.Service, string) {
	f := newFake()
	pid := uuid.NewString()
	f.addPayment(&refund.Payment{ID: pid, WorkspaceID: ws, Environment: auth.Sandbox, Status: status, AmountMinor: paid})
	return f, &refund.Service{Store: f, Now: func() time.Time { return clock }}, pid
}

func input(pid string, amount money.Paisa) refund.CreateInput {
	return refund.CreateInput{ID: uuid.NewString(), PaymentID: pid, AmountMinor: amount,
		Reason: refund.ReasonNotDelivered, RequestedBy: refund.ByMerchant}
}

func wantCode(t *testing.T, err error, code apierr.Code, contains ...string) *apierr.Error {
	t.Helper()
	var e *apierr.Error
	if !errors.As(err, &e) || e.Code != code {
		t.Fatalf("error %v, want %s", err, code)
	}
	for _, c := range contains {
		if !strings.Contains(e.Message, c) {
			t.Fatalf("message %q does not say %q", e.Message, c)
		}
	}
	return e
}

// reach creates a refund and takes it to status by the workflow's own actions.
func reach(t *testing.T, svc *refund.Service, pid string, status refund.Status) *refund.Refund {
	t.Helper()
	r, err := svc.Create(context.Background(), sc, input(pid, 100))
	if err != nil {
		t.Fatal(err)
	}
	path := map[refund.Status][]refund.Action{
		refund.InReview: {refund.Review}, refund.Approved: {refund.Approve},
		refund.Returned: {refund.Approve, refund.ReportReturned}, refund.Rejected: {refund.Reject},
		refund.Cancelled: {refund.Cancel},
	}[status]
	for _, a := range path {
		if r, err = svc.Transition(context.Background(), sc, r.ID, a, refund.TransitionInput{Reason: "r", ProviderReference: "TRX1"}); err != nil {
			t.Fatal(err)
		}
	}
	return r
}

// TestRefundTransitionTable runs every action from every status: the workflow.
func TestRefundTransitionTable(t *testing.T) {
	const (
		move    = "move"
		already = "already"
		refused = "refused"
	)
	want := map[refund.Status]map[refund.Action]string{
		refund.Requested: {refund.Review: move, refund.Approve: move, refund.Reject: move, refund.ReportReturned: refused, refund.Cancel: move},
		refund.InReview:  {refund.Review: already, refund.Approve: move, refund.Reject: move, refund.ReportReturned: refused, refund.Cancel: move},
		refund.Approved:  {refund.Review: refused, refund.Approve: already, refund.Reject: refused, refund.ReportReturned: move, refund.Cancel: move},
		refund.Returned:  {refund.Review: refused, refund.Approve: refused, refund.Reject: refused, refund.ReportReturned: already, refund.Cancel: refused},
		refund.Rejected:  {refund.Review: refused, refund.Approve: refused, refund.Reject: already, refund.ReportReturned: refused, refund.Cancel: refused},
		refund.Cancelled: {refund.Review: refused, refund.Approve: refused, refund.Reject: refused, refund.ReportReturned: refused, refund.Cancel: already},
	}
	for from, row := range want {
		for _, action := range refund.Actions {
			t.Run(fmt.Sprintf("%s/%s", from, action), func(t *testing.T) {
				f, svc, pid := setup(1000, payment.Completed)
				r := reach(t, svc, pid, from)
				writes := f.writes
				got, err := svc.Transition(context.Background(), sc, r.ID, action,
					refund.TransitionInput{Reason: "not ours", ProviderReference: "TRX8A7B6C5D"})
				to, _ := action.Target()
				switch row[action] {
				case move:
					if err != nil || got.Status != to || got.Version != r.Version+1 || f.writes == writes {
						t.Fatalf("%v %+v", err, got)
					}
					if last := got.History[len(got.History)-1]; last.Status != to || last.By != "key_1" || !last.At.Equal(clock) {
						t.Fatalf("history %+v", got.History)
					}
				case already:
					if err != nil || got.Status != r.Status || got.Version != r.Version || f.writes != writes {
						t.Fatalf("a repeat wrote or changed: %v %+v (%d writes)", err, got, f.writes-writes)
					}
				case refused:
					wantCode(t, err, apierr.StateConflict, "this refund is "+string(from))
					if f.writes != writes {
						t.Fatal("a refused action wrote")
					}
				}
				if err := f.check(pid); err != nil {
					t.Fatal(err)
				}
			})
		}
	}
}

func TestRefundApproveSetsDueBy(t *testing.T) {
	_, svc, pid := setup(1000, payment.Completed)
	r := reach(t, svc, pid, refund.Approved)
	if r.DueBy == nil || !r.DueBy.Equal(clock.AddDate(0, 0, 3)) || !r.Overdue(clock.AddDate(0, 0, 4)) || r.Overdue(clock) {
		t.Fatalf("due_by %v", r.DueBy)
	}
	svc.DueDays = 10
	r2 := reach(t, svc, pid, refund.Approved)
	if !r2.DueBy.Equal(clock.AddDate(0, 0, 10)) {
		t.Fatalf("due_by %v with DueDays 10", r2.DueBy)
	}
}

func TestRefundExpectedVersion(t *testing.T) {
	_, svc, pid := setup(1000, payment.Completed)
	r := reach(t, svc, pid, refund.Requested)
	_, err := svc.Transition(context.Background(), sc, r.ID, refund.Review, refund.TransitionInput{ExpectedVersion: 7})
	wantCode(t, err, apierr.VersionConflict, "version 1, not 7")
	got, err := svc.Transition(context.Background(), sc, r.ID, refund.Review, refund.TransitionInput{ExpectedVersion: 1})
	if err != nil || got.Version != 2 {
		t.Fatal(err)
	}
	// A repeat with the version it was sent with is the same request: answered as it is.
	if again, err := svc.Transition(context.Background(), sc, r.ID, refund.Review, refund.TransitionInput{ExpectedVersion: 1}); err != nil || again.Version != 2 {
		t.Fatalf("%v %+v", err, again)
	}
}

func TestRefundValidation(t *testing.T) {
	f, svc, pid := setup(1000, payment.Completed)
	long := strings.Repeat("ন", 256)
	cases := []struct {
		in        refund.CreateInput
		path, say string
	}{
		{refund.CreateInput{PaymentID: pid, AmountMinor: -1, Reason: refund.ReasonOther, RequestedBy: refund.ByMerchant}, "body.amount_minor", "greater than 0"},
		{refund.CreateInput{PaymentID: pid, Reason: "because", RequestedBy: refund.ByMerchant}, "body.reason", "must be one of requested_by_customer"},
		{refund.CreateInput{PaymentID: pid, Reason: refund.ReasonOther, Note: long, RequestedBy: refund.ByMerchant}, "body.note", "at most 255 characters (it has 256)"},
		{refund.CreateInput{PaymentID: pid, Reason: refund.ReasonOther, Reference: strings.Repeat("r", 129), RequestedBy: refund.ByPayer}, "body.reference", "at most 128"},
		{refund.CreateInput{Reason: refund.ReasonOther, RequestedBy: refund.ByMerchant}, "body.payment_id", "is required"},
	}
	for _, c := range cases {
		e := wantCode(t, func() error { _, err := svc.Create(context.Background(), sc, c.in); return err }(), apierr.ValidationFailed, c.path, c.say)
		if e.Violations[0].Path != c.path {
			t.Fatalf("violation %+v", e.Violations)
		}
	}
	r := reach(t, svc, pid, refund.Approved)
	future := clock.Add(time.Hour)
	tcases := []struct {
		a         refund.Action
		in        refund.TransitionInput
		path, say string
	}{
		{refund.Reject, refund.TransitionInput{}, "body.reason", "is required"},
		{refund.Reject, refund.TransitionInput{Reason: long}, "body.reason", "at most 255"},
		{refund.ReportReturned, refund.TransitionInput{}, "body.provider_reference", "is required"},
		{refund.ReportReturned, refund.TransitionInput{ProviderReference: strings.Repeat("T", 65)}, "body.provider_reference", "at most 64"},
		{refund.ReportReturned, refund.TransitionInput{ProviderReference: "TRX1", ReturnedAt: &future}, "body.returned_at", "not be in the future"},
		{refund.Cancel, refund.TransitionInput{Note: long}, "body.note", "at most 255"},
	}
	writes := f.writes
	for _, c := range tcases {
		_, err := svc.Transition(context.Background(), sc, r.ID, c.a, c.in)
		wantCode(t, err, apierr.ValidationFailed, c.path, c.say)
	}
	if f.writes != writes {
		t.Fatal("bad input wrote")
	}
	_, err := svc.Transition(context.Background(), sc, r.ID, "refund-twice", refund.TransitionInput{})
	wantCode(t, err, apierr.NotFound)
}

func TestRefundCreateRules(t *testing.T) {
	f, svc, pid := setup(1000, payment.Completed)
	ctx := context.Background()
	in := input(pid, 300)
	a, err := svc.Create(ctx, sc, in)
	if err != nil || a.Status != refund.Requested || a.AmountMinor != 300 || a.Currency != "BDT" || a.Version != 1 {
		t.Fatalf("%v %+v", err, a)
	}
	writes := f.writes
	if again, err := svc.Create(ctx, sc, in); err != nil || again.ID != a.ID || f.writes != writes {
		t.Fatalf("a replay: %v %+v, %d writes", err, again, f.writes-writes)
	}
	other := in
	other.AmountMinor = 200
	_, err = svc.Create(ctx, sc, other)
	wantCode(t, err, apierr.IdempotencyKeyReused)
	_, err = svc.Create(ctx, sc, input(pid, 701))
	wantCode(t, err, apierr.StateConflict, "700 paisa (refundable_minor) are still refundable")
	all, err := svc.Create(ctx, sc, input(pid, 0))
	if err != nil || all.AmountMinor != 700 {
		t.Fatalf("the default amount: %v %+v", err, all)
	}
	_, err = svc.Create(ctx, sc, input(pid, 0))
	wantCode(t, err, apierr.StateConflict, "0 paisa (refundable_minor)")
	if l, _ := svc.Ledger(ctx, sc, pid); l.Refundable() != 0 || l.Refunded() != 0 || l.Paid != 1000 {
		t.Fatalf("ledger %+v", l)
	}
	_, err = svc.Get(ctx, refund.Scope{WorkspaceID: "ws-2", Environment: auth.Sandbox}, a.ID)
	wantCode(t, err, apierr.NotFound)
	_, err = svc.Create(ctx, refund.Scope{WorkspaceID: "ws-2", Environment: auth.Sandbox}, input(pid, 100))
	wantCode(t, err, apierr.NotFound)
	_, err = svc.Create(ctx, refund.Scope{WorkspaceID: ws, Environment: auth.Live}, input(pid, 100))
	wantCode(t, err, apierr.ScopeOrEnvironmentDenied, "sandbox-only")
	for _, st := range []payment.Status{payment.Pending, payment.Failed, payment.Cancelled, payment.Expired} {
		_, svc2, pid2 := setup(1000, st)
		_, err = svc2.Create(ctx, sc, input(pid2, 100))
		wantCode(t, err, apierr.StateConflict, string(st))
	}
}

// TestRefundRace: 50 racing 1-taka refunds on a 10-taka payment make exactly 10.
func TestRefundRace(t *testing.T) {
	f, svc, pid := setup(1000, payment.Completed)
	var wg sync.WaitGroup
	var mu sync.Mutex
	created := 0
	for range 50 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, err := svc.Create(context.Background(), sc, input(pid, 100))
			mu.Lock()
			defer mu.Unlock()
			if err == nil {
				created++
			} else if !strings.Contains(err.Error(), "0 paisa (refundable_minor)") {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	if created != 10 {
		t.Fatalf("%d created", created)
	}
	if err := f.check(pid); err != nil {
		t.Fatal(err)
	}
}

// TestRefundCrashPoints stops create and every transition after each of its writes, runs the
// repair pass once every grace has passed, and states the money rule.
func TestRefundCrashPoints(t *testing.T) {
	type journey struct {
		name  string
		from  refund.Status
		act   refund.Action // "" for the create
		stale bool          // the create read the ledger before another refund's claim
	}
	var journeys []journey
	journeys = append(journeys, journey{name: "create"}, journey{name: "create-refused", stale: true})
	for _, from := range []refund.Status{refund.Requested, refund.InReview, refund.Approved} {
		for _, a := range refund.Actions {
			if out, _ := refund.Decide(a, from); out == refund.Move {
				journeys = append(journeys, journey{name: string(from) + "-" + string(a), from: from, act: a})
			}
		}
	}
	for _, j := range journeys {
		for at := 1; at <= 5; at++ {
			t.Run(fmt.Sprintf("%s/after-write-%d", j.name, at), func(t *testing.T) {
				f, svc, pid := setup(1000, payment.Completed)
				ctx := context.Background()
				var r *refund.Refund
				if j.act == "" {
					in := input(pid, 400)
					if j.stale { // another refund claims 700 after this create read the ledger
						if _, err := svc.Create(ctx, sc, input(pid, 700)); err != nil {
							t.Fatal(err)
						}
						f.stale = true
					}
					f.crashAt = f.writes + at
					_, err := svc.Create(ctx, sc, in)
					if j.stale && at > 4 {
						wantCode(t, err, apierr.StateConflict, "300 paisa (refundable_minor)")
					}
				} else {
					r = reach(t, svc, pid, j.from)
					f.crashAt = f.writes + at
					_, _ = svc.Transition(ctx, sc, r.ID, j.act, refund.TransitionInput{Reason: "r", ProviderReference: "TRX1"})
				}
				f.crashAt = 0
				later := &refund.Service{Store: f, Now: func() time.Time { return clock.Add(refund.DefaultGrace + time.Second) }}
				if _, err := later.Repair(ctx, clock.Add(refund.DefaultGrace+time.Second)); err != nil {
					t.Fatal(err)
				}
				if err := f.check(pid); err != nil {
					t.Fatalf("money rule broken:\n%v", err)
				}
				if j.act == refund.Reject || j.act == refund.Cancel {
					if l, _ := svc.Ledger(ctx, sc, pid); l.Refundable() != 1000 {
						t.Fatalf("the amount was not given back: %+v", l)
					}
				}
			})
		}
	}
}

// TestRefundRepairLeavesWritersAlone: a follow-up within its grace is its writer's.
func TestRefundRepairLeavesWritersAlone(t *testing.T) {
	f, svc, pid := setup(1000, payment.Completed)
	f.crashAt = 1 // the create stops after writing the refund, before its claim
	_, _ = svc.Create(context.Background(), sc, input(pid, 100))
	if n, err := svc.Repair(context.Background(), clock.Add(time.Minute)); err != nil || n != 0 {
		t.Fatalf("repaired %d within the grace: %v", n, err)
	}
	if n, err := svc.Repair(context.Background(), clock.Add(refund.DefaultGrace+time.Second)); err != nil || n != 1 {
		t.Fatalf("repaired %d after the grace: %v", n, err)
	}
	if l, _ := svc.Ledger(context.Background(), sc, pid); l.Refundable() != 900 {
		t.Fatalf("ledger %+v", l)
	}
}

// TestRefundRacingTransitions: approve, reject and cancel racing on one refund: one of them
// decides, the others answer its outcome (a repeat) or 409, and the amount is given back at
// most once.
func TestRefundRacingTransitions(t *testing.T) {
	for range 20 {
		f, svc, pid := setup(1000, payment.Completed)
		r := reach(t, svc, pid, refund.Requested)
		var wg sync.WaitGroup
		for i := range 30 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				a := []refund.Action{refund.Approve, refund.Reject, refund.Cancel}[i%3]
				_, err := svc.Transition(context.Background(), sc, r.ID, a, refund.TransitionInput{Reason: "r"})
				var e *apierr.Error
				if err != nil && (!errors.As(err, &e) || e.Code != apierr.StateConflict && e.Code != apierr.VersionConflict) {
					t.Error(err)
				}
			}()
		}
		wg.Wait()
		if err := f.check(pid); err != nil {
			t.Fatal(err)
		}
		got, _ := svc.Get(context.Background(), sc, r.ID)
		if l, _ := svc.Ledger(context.Background(), sc, pid); got.Status.Live() != (l.Refundable() == 900) {
			t.Fatalf("%s refund, ledger %+v", got.Status, l)
		}
	}
}
