package payment

import (
	"context"
	"log/slog"
	"net/http"
	"time"

	"github.com/takapay/payments/shared/apierr"
	"github.com/takapay/payments/shared/auth"
	"github.com/takapay/payments/shared/jsonbody"
	"github.com/takapay/payments/shared/money"
	"github.com/takapay/payments/shared/obs"
	"github.com/takapay/payments/shared/web"
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

// ParseVerifyRequest validates a verify body.
func ParseVerifyRequest(body []byte) (*VerifyRequest, error) {
	obj, err := jsonbody.ParseObject(body)
	if err != nil {
		return nil, err
	}
	r := jsonbody.NewReader(obj)
	r.OnlyKnown("invoice_id", "expected")
	var req VerifyRequest
	req.InvoiceID, _ = r.String("invoice_id", jsonbody.StringRule{Required: true, Check: func(s string) string {
		if _, ok := ParseInvoiceID(s); !ok {
			return "must be a UUID (the invoice_id returned by payment create)"
		}
		return ""
	}})
	req.InvoiceID, _ = ParseInvoiceID(req.InvoiceID)
	if eo, ok := r.Object("expected", false); ok {
		er := jsonbody.NewReader(eo)
		er.OnlyKnown("amount_minor", "currency", "reference")
		amount, _ := er.Int("amount_minor", true, 1, int64(money.MaxPaisa))
		currency, _ := er.String("currency", jsonbody.StringRule{Required: true, Min: 1, Max: 3})
		ref, _ := er.String("reference", jsonbody.StringRule{Required: true, Min: 1, Max: MaxReferenceLen})
		r.Violations = append(r.Violations, er.Violations...)
		req.Expected = &Expected{AmountMinor: money.Paisa(amount), Currency: currency, Reference: ref}
	}
	if err := r.Err(); err != nil {
		return nil, err
	}
	return &req, nil
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
	// Match and Mismatches are present only when the request carried expected.
	Match      *bool     `json:"match,omitempty"`
	Mismatches *[]string `json:"mismatches,omitempty"`
}

// Verifier serves POST /v1/payment/verify.
type Verifier struct {
	Auth  *auth.Authenticator
	Store Store
	Now   func() time.Time
}

// Handle reports a payment's status to its own workspace and environment (404 to anyone
// else), and optionally does the merchant's delivery comparison for them.
func (v *Verifier) Handle(ctx context.Context, r *web.Request) (*web.Response, error) {
	id, err := v.Auth.Authenticate(ctx, r)
	if err != nil {
		return nil, err
	}
	env, err := sandboxOnly(id, auth.PaymentsRead)
	if err != nil {
		return nil, err
	}
	req, err := ParseVerifyRequest(r.Body)
	if err != nil {
		return nil, err
	}
	obs.Annotate(ctx, slog.String("invoice_id", req.InvoiceID))
	p, err := v.Store.GetPayment(ctx, req.InvoiceID)
	if err != nil {
		return nil, err
	}
	if p == nil || p.WorkspaceID != id.WorkspaceID || p.Environment != env {
		return nil, apierr.New(apierr.NotFound, "no payment with this invoice_id in this workspace and environment")
	}
	now := time.Now
	if v.Now != nil {
		now = v.Now
	}
	resp, err := Verify(ctx, v.Store, p, req.Expected, now().UTC())
	if err != nil {
		return nil, err
	}
	return web.JSON(http.StatusOK, resp), nil
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
