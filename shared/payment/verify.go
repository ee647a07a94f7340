package payment

import (
	"context"
	"log/slog"
	"time"

	"github.com/takapay/payments/shared/auth"
	"github.com/takapay/payments/shared/foundation/apierr"
	"github.com/takapay/payments/shared/foundation/money"
	"github.com/takapay/payments/shared/foundation/obs"
)

// VerifyRequest is a validated verify request.
type VerifyRequest struct {
	InvoiceID string
	Expected  *Expected
}

// Expected is what the merchant's order says; verify compares it exactly.
type Expected struct {
	AmountMinor money.Paisa `json:"amount_minor"`
	Currency    string      `json:"currency"`
	Reference   string      `json:"reference"`
}

// VerifyResponse is the 200 body of payment verify.
type VerifyResponse struct {
	InvoiceID   string           `json:"invoice_id"`
	Status      Status           `json:"status"`
	AmountMinor money.Paisa      `json:"amount_minor"`
	Currency    string           `json:"currency"`
	Reference   string           `json:"reference"`
	Environment auth.Environment `json:"environment"`
	CreatedAt   time.Time        `json:"created_at"`
	// FirstVerifiedAt is when verify first reported this payment COMPLETED (null before).
	FirstVerifiedAt *time.Time `json:"first_verified_at"`
	// PreviouslyVerified is true when an earlier verify call already reported it COMPLETED:
	// if your order did not make that call, the invoice_id is being replayed for a second order.
	PreviouslyVerified bool `json:"previously_verified"`
	// RefundedMinor is what was returned to the payer (RETURNED refunds); RefundableMinor is
	// what may still be refunded (0 unless COMPLETED). See Payment.Refunded.
	RefundedMinor   money.Paisa `json:"refunded_minor"`
	RefundableMinor money.Paisa `json:"refundable_minor"`
	// Match and Mismatches are present only when the request carried expected.
	Match      *bool     `json:"match,omitempty"`
	Mismatches *[]string `json:"mismatches,omitempty"`
}

// Verifier answers payment verify.
type Verifier struct {
	Store Store
	Now   func() time.Time
}

// Verify reports a payment's status to its own workspace and environment (404 to anyone
// else), and optionally does the merchant's delivery comparison for them: sandbox only, with
// the payments:read scope.
func (v *Verifier) Verify(ctx context.Context, id *auth.Identity, req *VerifyRequest) (VerifyResponse, error) {
	env, err := Authorize(id, auth.PaymentsRead)
	if err != nil {
		return VerifyResponse{}, err
	}
	obs.Annotate(ctx, slog.String("invoice_id", req.InvoiceID))
	p, err := v.Store.GetPayment(ctx, req.InvoiceID)
	if err != nil {
		return VerifyResponse{}, err
	}
	if p == nil || p.WorkspaceID != id.WorkspaceID || p.Environment != env {
		return VerifyResponse{}, apierr.New(apierr.NotFound, "no payment with this invoice_id in this workspace and environment")
	}
	now := time.Now
	if v.Now != nil {
		now = v.Now
	}
	return Verify(ctx, v.Store, p, req.Expected, now().UTC())
}

// FirstVerifiedMarker records a payment's first completed verification (see Store).
type FirstVerifiedMarker interface {
	MarkFirstVerified(ctx context.Context, invoiceID string, at time.Time) (time.Time, bool, error)
}

// Verify answers what verify says of p as of now: its effective status and fields, the first
// completed verification (recording it when this is the first), and, when the merchant sent
// expected, the exact comparison. Payment verify and an intent's verify-transaction both
// answer with it, so they cannot disagree.
func Verify(ctx context.Context, store FirstVerifiedMarker, p *Payment, expected *Expected, now time.Time) (VerifyResponse, error) {
	status := p.EffectiveStatus(now)
	resp := VerifyResponse{
		InvoiceID:       p.InvoiceID,
		Status:          status,
		AmountMinor:     p.AmountMinor,
		Currency:        p.Currency,
		Reference:       p.Reference,
		Environment:     p.Environment,
		CreatedAt:       p.CreatedAt,
		FirstVerifiedAt: p.FirstVerifiedAt,
		RefundedMinor:   p.Refunded,
		RefundableMinor: p.Refundable,
	}
	if status == Completed {
		if p.FirstVerifiedAt == nil {
			// A concurrent first verify may win the race; then this call is not the first.
			at, first, err := store.MarkFirstVerified(ctx, p.InvoiceID, now)
			if err != nil {
				return resp, err
			}
			resp.FirstVerifiedAt = &at
			resp.PreviouslyVerified = !first
		} else {
			resp.PreviouslyVerified = true
		}
	}
	if expected != nil {
		mismatches := Compare(status, p, *expected)
		ok := len(mismatches) == 0
		resp.Match, resp.Mismatches = &ok, &mismatches
	}
	return resp, nil
}

// Compare lists what stops a merchant from delivering: "status" unless COMPLETED, and each of
// amount_minor, currency and reference that differs from the order, compared exactly.
func Compare(status Status, p *Payment, want Expected) []string {
	out := []string{}
	if status != Completed {
		out = append(out, "status")
	}
	if p.AmountMinor != want.AmountMinor {
		out = append(out, "amount_minor")
	}
	if p.Currency != want.Currency {
		out = append(out, "currency")
	}
	if p.Reference != want.Reference {
		out = append(out, "reference")
	}
	return out
}
