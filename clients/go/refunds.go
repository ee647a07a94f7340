package takapay

import (
	"context"
	"fmt"
	"iter"
	"net/http"
)

// Refunds is the workspace's refunds in the client's environment
// (…/v1/workspaces/{workspaceID}/refunds; docs/refunds.md). Get it with Client.Refunds.
//
// A refund is asked for (Create: REQUESTED), reviewed (IN_REVIEW), approved (APPROVED, due_by
// set) or rejected, and reported returned (RETURNED) once the money went back, with the
// provider's transaction id; Cancel ends it before that. A payment never has more promised
// back than was paid: a Create over what is still refundable is 409 STATE_CONFLICT.
//
// Each transition answers the refund. Repeating one that already happened answers the refund as
// it is (so a retry is safe, and transitions send no Idempotency-Key); another from the wrong
// status is 409 STATE_CONFLICT; ExpectedVersion in the body, when set, guards against a
// concurrent decision (409 VERSION_CONFLICT).
type Refunds struct{ c *Client }

// Refunds is the workspace's refunds.
func (c *Client) Refunds() *Refunds { return &Refunds{c} }

// Create asks for a refund of a COMPLETED payment (in.PaymentId is its invoice_id; a nil
// AmountMinor refunds everything still refundable) with an Idempotency-Key, generated unless
// WithIdempotencyKey gives one, the same on every retry: the same key and body answer the same
// refund and create nothing.
func (r *Refunds) Create(ctx context.Context, in RefundCreate, opts ...CallOption) (*Refund, error) {
	rc, err := r.c.prepareWorkspaceCall(ctx, opts, true)
	if err != nil {
		return nil, err
	}
	req, err := NewCreateRefundRequest(r.c.baseURL, rc.ws, &CreateRefundParams{Environment: CreateRefundParamsEnvironment(rc.env), IdempotencyKey: rc.cc.idempotencyKey}, in)
	return call[Refund](ctx, r.c, req, err, rc.cc)
}

// Get is one refund.
func (r *Refunds) Get(ctx context.Context, refundID string, opts ...CallOption) (*Refund, error) {
	id, err := parseID("refund id", refundID)
	if err != nil {
		return nil, err
	}
	rc, err := r.c.prepareWorkspaceCall(ctx, opts, false)
	if err != nil {
		return nil, err
	}
	req, err := NewGetRefundRequest(r.c.baseURL, rc.ws, id, &GetRefundParams{Environment: GetRefundParamsEnvironment(rc.env)})
	return call[Refund](ctx, r.c, req, err, rc.cc)
}

// RefundListOptions filters and pages a refund list; zero members are left out.
type RefundListOptions struct {
	// Status is one of the refund statuses (REQUESTED, IN_REVIEW, APPROVED, RETURNED, REJECTED, CANCELLED).
	Status string
	// PaymentID lists that payment's refunds (its invoice_id).
	PaymentID string
	// Overdue lists the APPROVED refunds past their due_by.
	Overdue bool
	// Cursor is the previous page's NextCursor.
	Cursor string
	// Limit is the page size, 1 to 100 (default 25).
	Limit int
}

// List is a page of refunds, newest first. A filtered page may hold fewer than Limit refunds,
// even none, and still carry a NextCursor: page on until it is nil (All does).
func (r *Refunds) List(ctx context.Context, lo RefundListOptions, opts ...CallOption) (*RefundList, error) {
	params, err := lo.params()
	if err != nil {
		return nil, err
	}
	rc, err := r.c.prepareWorkspaceCall(ctx, opts, false)
	if err != nil {
		return nil, err
	}
	params.Environment = ListRefundsParamsEnvironment(rc.env)
	req, err := NewListRefundsRequest(r.c.baseURL, rc.ws, params)
	return call[RefundList](ctx, r.c, req, err, rc.cc)
}

// All yields every refund matching lo, page after page from lo.Cursor (or the first page) to
// the last, with paginate's rules: an error is yielded once, and a break stops the paging.
func (r *Refunds) All(ctx context.Context, lo RefundListOptions, opts ...CallOption) iter.Seq2[*Refund, error] {
	return paginate(func(cursor *Cursor) ([]Refund, *Cursor, error) {
		if cursor != nil {
			lo.Cursor = cursor.String()
		}
		page, err := r.List(ctx, lo, opts...)
		if err != nil {
			return nil, nil, err
		}
		return page.Items, page.NextCursor, nil
	})
}

// Review moves a REQUESTED refund to IN_REVIEW (body: an optional Note and ExpectedVersion).
func (r *Refunds) Review(ctx context.Context, refundID string, body RefundTransition, opts ...CallOption) (*Refund, error) {
	return r.transition(ctx, refundID, opts, func(u string, rc *docCall, id RefundID) (*http.Request, error) {
		return NewReviewRefundRequest(u, rc.ws, id, &ReviewRefundParams{Environment: ReviewRefundParamsEnvironment(rc.env)}, body)
	})
}

// Approve moves a REQUESTED or IN_REVIEW refund to APPROVED and sets its due_by (the approval
// time plus the deployment's RefundDueDays, 3 by default). Above the workspace's two-person
// threshold the approver must not be who asked for it (409 STATE_CONFLICT).
func (r *Refunds) Approve(ctx context.Context, refundID string, body RefundTransition, opts ...CallOption) (*Refund, error) {
	return r.transition(ctx, refundID, opts, func(u string, rc *docCall, id RefundID) (*http.Request, error) {
		return NewApproveRefundRequest(u, rc.ws, id, &ApproveRefundParams{Environment: ApproveRefundParamsEnvironment(rc.env)}, body)
	})
}

// Reject moves a REQUESTED or IN_REVIEW refund to REJECTED (body.Reason required, kept as
// rejection_reason); its amount is refundable again at once.
func (r *Refunds) Reject(ctx context.Context, refundID string, body RefundReject, opts ...CallOption) (*Refund, error) {
	return r.transition(ctx, refundID, opts, func(u string, rc *docCall, id RefundID) (*http.Request, error) {
		return NewRejectRefundRequest(u, rc.ws, id, &RejectRefundParams{Environment: RejectRefundParamsEnvironment(rc.env)}, body)
	})
}

// ReportReturned moves an APPROVED refund to RETURNED: the money went back, and
// body.ProviderReference (required) is the provider's transaction id, e.g. a bKash TrxID.
func (r *Refunds) ReportReturned(ctx context.Context, refundID string, body RefundReportReturned, opts ...CallOption) (*Refund, error) {
	return r.transition(ctx, refundID, opts, func(u string, rc *docCall, id RefundID) (*http.Request, error) {
		return NewReportRefundReturnedRequest(u, rc.ws, id, &ReportRefundReturnedParams{Environment: ReportRefundReturnedParamsEnvironment(rc.env)}, body)
	})
}

// Cancel moves a REQUESTED, IN_REVIEW or APPROVED refund to CANCELLED; its amount is
// refundable again at once.
func (r *Refunds) Cancel(ctx context.Context, refundID string, body RefundTransition, opts ...CallOption) (*Refund, error) {
	return r.transition(ctx, refundID, opts, func(u string, rc *docCall, id RefundID) (*http.Request, error) {
		return NewCancelRefundRequest(u, rc.ws, id, &CancelRefundParams{Environment: CancelRefundParamsEnvironment(rc.env)}, body)
	})
}

func (r *Refunds) transition(ctx context.Context, refundID string, opts []CallOption, build func(string, *docCall, RefundID) (*http.Request, error)) (*Refund, error) {
	id, err := parseID("refund id", refundID)
	if err != nil {
		return nil, err
	}
	rc, err := r.c.prepareWorkspaceCall(ctx, opts, false)
	if err != nil {
		return nil, err
	}
	req, err := build(r.c.baseURL, rc, id)
	return call[Refund](ctx, r.c, req, err, rc.cc)
}

// params is lo as the list's query parameters (the environment is the client's).
func (lo RefundListOptions) params() (*ListRefundsParams, error) {
	var p ListRefundsParams
	if lo.Status != "" {
		s := ListRefundsParamsStatus(lo.Status)
		if !s.Valid() {
			return nil, fmt.Errorf("takapay: refund status %q is not one of REQUESTED, IN_REVIEW, APPROVED, RETURNED, REJECTED, CANCELLED", lo.Status)
		}
		p.Status = &s
	}
	if lo.PaymentID != "" {
		id, err := parseID("payment id", lo.PaymentID)
		if err != nil {
			return nil, err
		}
		p.PaymentId = &id
	}
	if lo.Overdue {
		o := ListRefundsParamsOverdueTrue
		p.Overdue = &o
	}
	if lo.Cursor != "" {
		c, err := parseID("cursor", lo.Cursor)
		if err != nil {
			return nil, err
		}
		p.Cursor = &c
	}
	if lo.Limit > 0 {
		p.Limit = &lo.Limit
	}
	return &p, nil
}
