package refund_test

import (
	"context"
	"errors"
	"maps"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/takapay/payments/shared/auth"
	"github.com/takapay/payments/shared/foundation/money"
	"github.com/takapay/payments/shared/payment"
	"github.com/takapay/payments/shared/refund"
)

// fakeStore is the rule's Store in memory, with DynamoDB's single-item conditional semantics
// (each method is one item's write under the lock). crashAt > 0 makes its crashAt-th write
// land and then answer errCrash, as a Lambda killed right after the write would leave it.
type fakeStore struct {
	mu       sync.Mutex
	payments map[string]*refund.Payment
	refunds  map[string]*refund.Refund
	writes   int
	crashAt  int
	// stale makes the next read of a payment answer nothing promised (read before a racing
	// refund's claim).
	stale bool
	// listBudget > 0 bounds how many refunds one ListRefunds examines.
	listBudget int
	// docs holds each document's counted refunds (refund id → paisa), as the record's
	// refunds map does.
	docs map[refund.Document]map[string]money.Paisa
}

var errCrash = errors.New("crashed after the write")

func newFake() *fakeStore {
	return &fakeStore{payments: map[string]*refund.Payment{}, refunds: map[string]*refund.Refund{},
		docs: map[refund.Document]map[string]money.Paisa{}}
}

func rkey(ws string, env auth.Environment, id string) string {
	return ws + "|" + string(env) + "|" + id
}

func copyPayment(p *refund.Payment) *refund.Payment {
	c := *p
	c.Claims, c.Counted = maps.Clone(p.Claims), maps.Clone(p.Counted)
	return &c
}

func copyRefund(r *refund.Refund) *refund.Refund {
	c := *r
	c.History = append([]refund.Entry(nil), r.History...)
	c.Events = append([]payment.Delivery(nil), r.Events...)
	return &c
}

// wrote counts a write that landed (the caller holds the lock).
func (f *fakeStore) wrote() error {
	f.writes++
	if f.writes == f.crashAt {
		return errCrash
	}
	return nil
}

func (f *fakeStore) addPayment(p *refund.Payment) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.payments[p.ID] = copyPayment(p)
}

func (f *fakeStore) RefundPayment(_ context.Context, id string) (*refund.Payment, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if p := f.payments[id]; p != nil {
		c := copyPayment(p)
		if f.stale {
			f.stale, c.Promised = false, 0
		}
		return c, nil
	}
	return nil, nil
}

func (f *fakeStore) PutRefund(_ context.Context, r *refund.Refund) (*refund.Refund, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	k := rkey(r.WorkspaceID, r.Environment, r.ID)
	if cur := f.refunds[k]; cur != nil {
		return copyRefund(cur), refund.ErrExists
	}
	r.Writes = 1
	f.refunds[k] = copyRefund(r)
	return r, f.wrote()
}

func (f *fakeStore) GetRefund(_ context.Context, ws string, env auth.Environment, id string) (*refund.Refund, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if r := f.refunds[rkey(ws, env, id)]; r != nil {
		return copyRefund(r), nil
	}
	return nil, nil
}

// ListRefunds reads the scope's refunds newest first after cursor; budget bounds how many it
// examines (0: all), as the store's read budget does.
func (f *fakeStore) ListRefunds(_ context.Context, ws string, env auth.Environment, cursor string, limit int, keep func(*refund.Refund) bool) ([]*refund.Refund, string, error) {
	f.mu.Lock()
	var all []*refund.Refund
	for _, r := range f.refunds {
		if r.WorkspaceID == ws && r.Environment == env && (cursor == "" || r.ID < cursor) {
			all = append(all, copyRefund(r))
		}
	}
	f.mu.Unlock()
	slices.SortFunc(all, func(a, b *refund.Refund) int { return strings.Compare(b.ID, a.ID) })
	out := []*refund.Refund{}
	for i, r := range all {
		if f.listBudget > 0 && i == f.listBudget {
			return out, all[i-1].ID, nil
		}
		if !keep(r) {
			continue
		}
		if len(out) == limit {
			return out, out[len(out)-1].ID, nil
		}
		out = append(out, r)
	}
	return out, "", nil
}

func (f *fakeStore) ClaimRefund(_ context.Context, pid, rid string, amount, maxPromised money.Paisa) (refund.Claim, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	p := f.payments[pid]
	switch {
	case p == nil:
		return refund.NotCompleted, nil
	case p.Claims[rid] > 0:
		return refund.Claimed, nil
	case hasKey(p.Claims, rid):
		return refund.Closed, nil
	case p.Status != payment.Completed:
		return refund.NotCompleted, f.wrote()
	case p.Promised > maxPromised || maxPromised < 0:
		return refund.OverLimit, f.wrote()
	}
	if p.Claims == nil {
		p.Claims = map[string]money.Paisa{}
	}
	p.Claims[rid], p.Promised = amount, p.Promised+amount
	return refund.Claimed, f.wrote()
}

func hasKey(m map[string]money.Paisa, k string) bool {
	_, ok := m[k]
	return ok
}

func (f *fakeStore) VoidClaim(_ context.Context, pid, rid string) (refund.Claim, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	p := f.payments[pid]
	switch {
	case p == nil:
		return refund.Closed, nil
	case p.Claims[rid] > 0:
		return refund.Claimed, nil
	case hasKey(p.Claims, rid):
		return refund.Closed, nil
	}
	if p.Claims == nil {
		p.Claims = map[string]money.Paisa{}
	}
	p.Claims[rid] = 0
	return refund.Closed, f.wrote()
}

func (f *fakeStore) ReleaseClaim(_ context.Context, pid, rid string, amount money.Paisa) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	p := f.payments[pid]
	if p == nil || p.Claims[rid] != amount || amount == 0 {
		return nil
	}
	p.Claims[rid], p.Promised = 0, p.Promised-amount
	return f.wrote()
}

func (f *fakeStore) CountReturned(_ context.Context, pid, rid string, amount money.Paisa) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	p := f.payments[pid]
	if p == nil || p.Counted[rid] {
		return nil
	}
	if p.Counted == nil {
		p.Counted = map[string]bool{}
	}
	p.Counted[rid], p.Returned = true, p.Returned+amount
	return f.wrote()
}

func (f *fakeStore) CountDocumentRefund(_ context.Context, r *refund.Refund) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if r.Document == (refund.Document{}) || hasKey(f.docs[r.Document], r.ID) {
		return nil
	}
	if f.docs[r.Document] == nil {
		f.docs[r.Document] = map[string]money.Paisa{}
	}
	f.docs[r.Document][r.ID] = r.AmountMinor
	return f.wrote()
}

// docRefunded is a document's refunded total, as its record shows it (the sum of its map).
func (f *fakeStore) docRefunded(d refund.Document) money.Paisa {
	f.mu.Lock()
	defer f.mu.Unlock()
	var sum money.Paisa
	for _, v := range f.docs[d] {
		sum += v
	}
	return sum
}

func (f *fakeStore) UpdateRefund(_ context.Context, prev, next *refund.Refund) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	k := rkey(prev.WorkspaceID, prev.Environment, prev.ID)
	cur := f.refunds[k]
	if cur == nil || cur.Version != prev.Version || cur.Status != prev.Status || cur.FollowUp != prev.FollowUp || cur.Writes != prev.Writes {
		return refund.ErrStateChanged
	}
	next.Writes = prev.Writes + 1
	f.refunds[k] = copyRefund(next)
	return f.wrote()
}

func (f *fakeStore) RefundFollowUps(_ context.Context, before time.Time, limit int) ([]refund.Ref, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []refund.Ref
	for _, r := range f.refunds {
		if at, ok := r.WakeAt(); ok && at.Before(before) && len(out) < limit {
			out = append(out, refund.Ref{WorkspaceID: r.WorkspaceID, Environment: r.Environment, ID: r.ID})
		}
	}
	return out, nil
}

// check states the money rule of one payment over every refund the fake holds.
func (f *fakeStore) check(pid string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	var rs []*refund.Refund
	for _, r := range f.refunds {
		if r.PaymentID == pid {
			rs = append(rs, copyRefund(r))
		}
	}
	return refund.Check(copyPayment(f.payments[pid]), rs)
}
