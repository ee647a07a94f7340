package refund

import (
	"context"
	"slices"
	"strings"
	"time"

	"github.com/takapay/payments/shared/foundation/apierr"
)

// List bounds.
const (
	// DefaultLimit is a page's size when the caller names none.
	DefaultLimit = 25
	// MaxLimit is the largest page a caller may ask for.
	MaxLimit = 100
)

// ListQuery is what a list asks for: every filter optional.
type ListQuery struct {
	// Status keeps refunds in this status only ("" for any).
	Status Status
	// PaymentID keeps one payment's refunds only (read through the payment's ledger, not by
	// scanning the workspace's refunds).
	PaymentID string
	// Overdue keeps APPROVED refunds past their due_by only.
	Overdue bool
	// Cursor is the next_cursor of the page before ("" for the first page).
	Cursor string
	// Limit is the page size (DefaultLimit when 0; at most MaxLimit).
	Limit int
}

// Page is one page of a list, newest first: NextCursor is "" on the last page. A page may be
// short (even empty) with a NextCursor when the store's read budget ran out before it was
// full (decision 102): go on from the cursor.
type Page struct {
	Refunds    []*Refund
	NextCursor string
}

// List answers one page of the scope's refunds, newest first. With q.PaymentID it reads that
// payment's refunds through its ledger (the payment names every refund id it has seen), so a
// payment's page costs one GetItem per refund, not a scan; another workspace's or
// environment's payment lists nothing. Every read is bounded: at most MaxLimit+1 refunds
// examined for a payment, the store's read budget otherwise.
func (s *Service) List(ctx context.Context, scope Scope, q ListQuery) (Page, error) {
	if err := q.Validate(); err != nil {
		return Page{}, err
	}
	if q.Limit == 0 {
		q.Limit = DefaultLimit
	}
	keep := q.matcher(s.now())
	if q.PaymentID != "" {
		return s.listPayment(ctx, scope, q, keep)
	}
	rs, next, err := s.Store.ListRefunds(ctx, scope.WorkspaceID, scope.Environment, q.Cursor, q.Limit, keep)
	return Page{Refunds: rs, NextCursor: next}, err
}

// matcher is the query's filter at now: shown refunds that pass each filter asked for.
func (q *ListQuery) matcher(now time.Time) func(*Refund) bool {
	return func(r *Refund) bool {
		switch {
		case !r.Status.Shown(), q.Status != "" && r.Status != q.Status:
			return false
		case q.Overdue && !r.Overdue(now), q.PaymentID != "" && r.PaymentID != q.PaymentID:
			return false
		}
		return true
	}
}

// listPayment is a page of one payment's refunds, read through its ledger's refund ids.
func (s *Service) listPayment(ctx context.Context, scope Scope, q ListQuery, keep func(*Refund) bool) (Page, error) {
	p, err := s.Store.RefundPayment(ctx, q.PaymentID)
	if err != nil || p == nil || p.WorkspaceID != scope.WorkspaceID || p.Environment != scope.Environment {
		return Page{Refunds: []*Refund{}}, err
	}
	ids := make([]string, 0, len(p.Claims))
	for id := range p.Claims {
		if q.Cursor == "" || id < q.Cursor {
			ids = append(ids, id)
		}
	}
	slices.Sort(ids) // uuid v7: time order
	slices.Reverse(ids)
	out := []*Refund{}
	for i, id := range ids {
		if i == MaxLimit+1 { // the read bound: go on from the last one examined
			return Page{Refunds: out, NextCursor: ids[i-1]}, nil
		}
		r, err := s.Store.GetRefund(ctx, scope.WorkspaceID, scope.Environment, id)
		if err != nil {
			return Page{}, err
		}
		if r == nil || !keep(r) {
			continue
		}
		if len(out) == q.Limit {
			return Page{Refunds: out, NextCursor: out[len(out)-1].ID}, nil
		}
		out = append(out, r)
	}
	return Page{Refunds: out}, nil
}

// Validate checks a list query: every broken rule, each naming its query parameter.
func (q *ListQuery) Validate() error {
	var vs []apierr.Violation
	if q.Status != "" && (!q.Status.Shown() || !slices.Contains(Statuses, q.Status)) {
		vs = append(vs, apierr.Violation{Path: "query.status", Rule: "must be one of " + statusList()})
	}
	if q.Limit < 0 || q.Limit > MaxLimit {
		vs = append(vs, apierr.Violation{Path: "query.limit", Rule: "must be between 1 and 100"})
	}
	if q.Cursor != "" && !validCursor(q.Cursor) {
		vs = append(vs, apierr.Violation{Path: "query.cursor", Rule: "must be a next_cursor this list returned"})
	}
	if len(vs) > 0 {
		return apierr.Invalid(vs...)
	}
	return nil
}

// Statuses lists the statuses a refund shows, in workflow order.
var Statuses = []Status{Requested, InReview, Approved, Returned, Rejected, Cancelled}

func statusList() string {
	out := make([]string, len(Statuses))
	for i, s := range Statuses {
		out[i] = string(s)
	}
	return strings.Join(out, ", ")
}

// validCursor accepts what a list hands out: a refund id (a uuid).
func validCursor(c string) bool {
	if len(c) != 36 {
		return false
	}
	for i, r := range c {
		switch {
		case i == 8 || i == 13 || i == 18 || i == 23:
			if r != '-' {
				return false
			}
		case !('0' <= r && r <= '9' || 'a' <= r && r <= 'f'):
			return false
		}
	}
	return true
}
