package refund_test

import (
	"context"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/takapay/payments/shared/auth"
	"github.com/takapay/payments/shared/foundation/apierr"
	"github.com/takapay/payments/shared/payment"
	"github.com/takapay/payments/shared/refund"
)

// created makes n refunds of 1 paisa on pid with store-made (uuid v7, time-ordered) ids,
// oldest first.
func created(t *testing.T, svc *refund.Service, pid string, n int) []*refund.Refund {
	t.Helper()
	var out []*refund.Refund
	for range n {
		in := input(pid, 1)
		in.ID = ""
		r, err := svc.Create(context.Background(), sc, in)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, r)
	}
	return out
}

func ids(rs []*refund.Refund) []string {
	out := make([]string, len(rs))
	for i, r := range rs {
		out[i] = r.ID
	}
	return out
}

func TestRefundListPagesNewestFirst(t *testing.T) {
	for _, byPayment := range []bool{false, true} {
		_, svc, pid := setup(10_000, payment.Completed)
		rs := created(t, svc, pid, 5)
		q := refund.ListQuery{Limit: 2}
		if byPayment {
			q.PaymentID = pid
		}
		var got []string
		for pages := 0; ; pages++ {
			if pages > 5 {
				t.Fatal("the cursor does not end")
			}
			p, err := svc.List(context.Background(), sc, q)
			if err != nil {
				t.Fatal(err)
			}
			if len(p.Refunds) > 2 {
				t.Fatalf("page of %d, limit 2", len(p.Refunds))
			}
			got = append(got, ids(p.Refunds)...)
			if p.NextCursor == "" {
				break
			}
			q.Cursor = p.NextCursor
		}
		want := ids(rs)
		for i, j := 0, len(want)-1; i < j; i, j = i+1, j-1 {
			want[i], want[j] = want[j], want[i]
		}
		if len(got) != len(want) {
			t.Fatalf("byPayment %v: listed %v, want %v", byPayment, got, want)
		}
		for i := range want {
			if got[i] != want[i] {
				t.Fatalf("byPayment %v: listed %v, want newest first %v", byPayment, got, want)
			}
		}
	}
}

func TestRefundListFilters(t *testing.T) {
	f, svc, pid := setup(10_000, payment.Completed)
	other := uuid.NewString()
	f.addPayment(&refund.Payment{ID: other, WorkspaceID: ws, Environment: auth.Sandbox, Status: payment.Completed, AmountMinor: 500})
	rs := created(t, svc, pid, 4)
	ctx := context.Background()
	if _, err := svc.Transition(ctx, sc, rs[0].ID, refund.Approve, refund.TransitionInput{}); err != nil {
		t.Fatal(err)
	}
	if _, err := svc.Transition(ctx, sc, rs[1].ID, refund.Approve, refund.TransitionInput{}); err != nil {
		t.Fatal(err)
	}
	if _, err := svc.Transition(ctx, sc, rs[2].ID, refund.Reject, refund.TransitionInput{Reason: "no"}); err != nil {
		t.Fatal(err)
	}
	otherRefund := created(t, svc, other, 1)[0]
	// A refund whose claim was refused (VOIDED) is never listed.
	if _, err := svc.Create(ctx, sc, input(other, 10_000)); err == nil {
		t.Fatal("a refund above the paid amount was created")
	}

	list := func(q refund.ListQuery) []string {
		t.Helper()
		p, err := svc.List(ctx, sc, q)
		if err != nil {
			t.Fatal(err)
		}
		return ids(p.Refunds)
	}
	same := func(name string, got []string, want ...string) {
		t.Helper()
		if len(got) != len(want) {
			t.Fatalf("%s: %v, want %v", name, got, want)
		}
		for i := range want {
			if got[i] != want[i] {
				t.Fatalf("%s: %v, want %v", name, got, want)
			}
		}
	}
	same("all", list(refund.ListQuery{}), otherRefund.ID, rs[3].ID, rs[2].ID, rs[1].ID, rs[0].ID)
	same("approved", list(refund.ListQuery{Status: refund.Approved}), rs[1].ID, rs[0].ID)
	same("rejected of the payment", list(refund.ListQuery{Status: refund.Rejected, PaymentID: pid}), rs[2].ID)
	same("the other payment", list(refund.ListQuery{PaymentID: other}), otherRefund.ID)
	same("none overdue yet", list(refund.ListQuery{Overdue: true}))

	later := &refund.Service{Store: f, Now: func() time.Time { return clock.AddDate(0, 0, refund.DefaultDueDays).Add(time.Second) }}
	p, err := later.List(ctx, sc, refund.ListQuery{Overdue: true})
	if err != nil {
		t.Fatal(err)
	}
	same("overdue after 3 days", ids(p.Refunds), rs[1].ID, rs[0].ID)

	// Another workspace sees nothing, by workspace or by naming the payment.
	stranger := refund.Scope{WorkspaceID: "ws-2", Environment: auth.Sandbox, By: "key_9"}
	for _, q := range []refund.ListQuery{{}, {PaymentID: pid}} {
		p, err := svc.List(ctx, stranger, q)
		if err != nil || len(p.Refunds) != 0 || p.NextCursor != "" {
			t.Fatalf("another workspace listed %v, %v", ids(p.Refunds), err)
		}
	}
}

func TestRefundListBoundsItsReads(t *testing.T) {
	f, svc, pid := setup(10_000, payment.Completed)
	rs := created(t, svc, pid, 6)
	for _, r := range rs[1:] {
		if _, err := svc.Transition(context.Background(), sc, r.ID, refund.Cancel, refund.TransitionInput{}); err != nil {
			t.Fatal(err)
		}
	}
	f.listBudget = 3 // the store examines 3 refunds per call, none of them REQUESTED
	p, err := svc.List(context.Background(), sc, refund.ListQuery{Status: refund.Requested})
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Refunds) != 0 || p.NextCursor != rs[3].ID {
		t.Fatalf("a spent budget answered %v with cursor %q, want an empty page going on from %s", ids(p.Refunds), p.NextCursor, rs[3].ID)
	}
	p, err = svc.List(context.Background(), sc, refund.ListQuery{Status: refund.Requested, Cursor: p.NextCursor})
	if err != nil || len(p.Refunds) != 1 || p.Refunds[0].ID != rs[0].ID || p.NextCursor != "" {
		t.Fatalf("the next page answered %v, %q, %v", ids(p.Refunds), p.NextCursor, err)
	}
}

func TestRefundListValidation(t *testing.T) {
	_, svc, _ := setup(100, payment.Completed)
	for _, q := range []refund.ListQuery{
		{Status: "PENDING_CLAIM"}, {Status: "VOIDED"}, {Status: "requested"}, {Limit: 101}, {Limit: -1},
		{Cursor: "not-a-cursor"}, {Cursor: "REFUND#ws-1#sandbox"},
	} {
		_, err := svc.List(context.Background(), sc, q)
		wantCode(t, err, apierr.ValidationFailed)
	}
}

func TestRefundTwoPersonRule(t *testing.T) {
	f, svc, pid := setup(100_000, payment.Completed)
	pol := &fakePolicies{p: refund.Policy{TwoPersonMinor: 50_000}}
	svc.Policies = pol
	ctx := context.Background()
	big, err := svc.Create(ctx, sc, input(pid, 50_000))
	if err != nil {
		t.Fatal(err)
	}
	small, err := svc.Create(ctx, sc, input(pid, 49_999))
	if err != nil {
		t.Fatal(err)
	}
	_, err = svc.Transition(ctx, sc, big.ID, refund.Approve, refund.TransitionInput{})
	wantCode(t, err, apierr.StateConflict, "৳500.00", "someone other than who asked for it")
	if r, _ := f.GetRefund(ctx, ws, auth.Sandbox, big.ID); r.Status != refund.Requested {
		t.Fatalf("a refused approval wrote: %s", r.Status)
	}
	// Below the amount the asker may approve; at it, another key may; rejecting is not approving.
	if _, err := svc.Transition(ctx, sc, small.ID, refund.Approve, refund.TransitionInput{}); err != nil {
		t.Fatal(err)
	}
	other := sc
	other.By = "user_2"
	r, err := svc.Transition(ctx, other, big.ID, refund.Approve, refund.TransitionInput{})
	if err != nil || r.Status != refund.Approved {
		t.Fatalf("a second approver: %v %v", r, err)
	}
	if err := svc.SetPolicy(ctx, ws, refund.Policy{TwoPersonMinor: -1}); err == nil {
		t.Fatal("a negative amount was kept")
	}
	if err := svc.SetPolicy(ctx, ws, refund.Policy{}); err != nil || pol.p.TwoPersonMinor != 0 {
		t.Fatalf("turning the rule off: %v %v", pol.p, err)
	}
}

type fakePolicies struct{ p refund.Policy }

func (f *fakePolicies) RefundPolicy(context.Context, string) (refund.Policy, error) { return f.p, nil }
func (f *fakePolicies) PutRefundPolicy(_ context.Context, _ string, p refund.Policy) error {
	f.p = p
	return nil
}

func TestRefundAllowed(t *testing.T) {
	key := func(scopes ...auth.Scope) *auth.Identity {
		return &auth.Identity{Kind: auth.KindAPIKey, Environments: []auth.Environment{auth.Sandbox}, Scopes: scopes}
	}
	member := func(role auth.Role) *auth.Identity {
		return &auth.Identity{Kind: auth.KindSession, Environments: []auth.Environment{auth.Sandbox, auth.Live}, Role: role}
	}
	ops := []refund.Op{refund.OpRead, refund.OpCreate, refund.OpOf(refund.Review), refund.OpOf(refund.Approve),
		refund.OpOf(refund.Reject), refund.OpOf(refund.ReportReturned), refund.OpOf(refund.Cancel)}
	for _, c := range []struct {
		name string
		id   *auth.Identity
		want string // one letter per op: y allowed, n refused
	}{
		{"payments:read key", key(auth.PaymentsRead), "ynnnnnn"},
		{"payments:write key", key(auth.PaymentsWrite), "nnnnnnn"},
		{"refunds:write key", key(auth.RefundsWrite), "yyynnyy"},
		{"refunds:approve key", key(auth.RefundsApprove), "ynnyynn"},
		{"viewer", member(auth.RoleViewer), "ynnnnnn"},
		{"developer", member(auth.RoleDeveloper), "yynnnny"},
		{"admin", member(auth.RoleAdmin), "yyyyyyy"},
		{"owner", member(auth.RoleOwner), "yyyyyyy"},
		{"no one", nil, "nnnnnnn"},
	} {
		for i, op := range ops {
			err := refund.Allowed(c.id, auth.Sandbox, op)
			if (err == nil) != (c.want[i] == 'y') {
				t.Errorf("%s %s: %v, want %c", c.name, op, err, c.want[i])
			}
		}
	}
	if refund.Allowed(key(auth.RefundsWrite), auth.Live, refund.OpCreate) == nil {
		t.Error("a sandbox key acted in live")
	}
}
