// Package payerrefund is the payer's refund door, shared by the pages a payer paid from (the
// hosted checkout and the public invoice page): the limits on asking, the form (read from a
// post, rendered in Bangla and English, working without JavaScript) and the request's status
// as the payer may see it. The rule is refund.RequestByPayer; this package only guards and
// shows it (decisions 108-110).
package payerrefund

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"strconv"
	"time"

	"github.com/takapay/payments/shared/auth"
	"github.com/takapay/payments/shared/foundation/apierr"
	"github.com/takapay/payments/shared/foundation/money"
	"github.com/takapay/payments/shared/payment"
	"github.com/takapay/payments/shared/ratelimit"
	"github.com/takapay/payments/shared/refund"
)

// Limit is a limit shared by every instance (ratelimit.Limiter): Allow spends one request
// of key's budget, or answers how long to wait.
type Limit interface {
	Allow(ctx context.Context, key string) (bool, time.Duration)
}

// The limits of asking (decision 109): each request spends one of its payment's budget, then
// one of its client address's, each one conditional write of a RATE# bucket.
const (
	// PerPaymentPerHour and PerPaymentBurst bound a payment's requests (its token's).
	PerPaymentPerHour = 10
	PerPaymentBurst   = 5
	// PerClientPerHour and PerClientBurst bound one client address's requests, whatever
	// payments they name.
	PerClientPerHour = 30
	PerClientBurst   = 10
)

// Door is the payer's refund door over the rule.
type Door struct {
	Refunds *refund.Service
	// PerPayment and PerClient are the shared limits (nil: none).
	PerPayment, PerClient Limit
}

// Offered reports whether a payment's page offers a refund request: a COMPLETED sandbox
// payment (live refunds are not deployed in this release).
func Offered(p *payment.Payment) bool {
	return p != nil && p.Status == payment.Completed && p.Environment == auth.Sandbox
}

// Request is a payer's request for a refund of p from client (its address): the input's
// rules (a refusal spends no budget and costs no write), the limits, then
// refund.RequestByPayer. created false answers the open request.
func (d *Door) Request(ctx context.Context, p *payment.Payment, client string, in refund.PayerInput) (*refund.Refund, bool, error) {
	if _, err := in.Validate(); err != nil {
		return nil, false, err
	}
	for _, l := range []struct {
		limit Limit
		key   string
	}{{d.PerPayment, "REFUNDASK#P#" + p.InvoiceID}, {d.PerClient, "REFUNDASK#C#" + clientKey(client)}} {
		if l.limit == nil {
			continue
		}
		if ok, wait := l.limit.Allow(ctx, l.key); !ok {
			return nil, false, &apierr.Error{Code: apierr.RateLimited,
				Message: "too many refund requests for this payment or from this address; wait and try again",
				Headers: map[string]string{"Retry-After": strconv.Itoa(max(1, int(wait.Seconds()+0.999)))}}
		}
	}
	return d.Refunds.RequestByPayer(ctx, p.InvoiceID, in)
}

// clientKey names a client address in a bucket's key: the SHA-256 of its ratelimit.ClientKey
// (an IPv4 address, an IPv6 /64), so the table never holds the address itself.
func clientKey(addr string) string {
	sum := sha256.Sum256([]byte("takapay-refund-client\x00" + ratelimit.ClientKey(addr)))
	return hex.EncodeToString(sum[:8])
}

// Status is p's latest payer request as the payer may see it (nil when none) and what p has
// left to refund; nothing when p's page offers no request.
func (d *Door) Status(ctx context.Context, p *payment.Payment) (*refund.Refund, money.Paisa, error) {
	if d == nil || !Offered(p) {
		return nil, 0, nil
	}
	r, l, err := d.Refunds.PayerRequest(ctx, p.InvoiceID)
	return r, l.Refundable(), err
}

// View is a payer request as its payer sees it (JSON): never the merchant's other refunds,
// their metadata or reference, nor who acted on it.
type View struct {
	Object          string     `json:"object"`
	ID              string     `json:"id"`
	PaymentID       string     `json:"payment_id"`
	AmountMinor     int64      `json:"amount_minor"`
	Currency        string     `json:"currency"`
	Status          string     `json:"status"`
	Reason          string     `json:"reason"`
	Note            string     `json:"note,omitempty"`
	RequestedBy     string     `json:"requested_by"`
	RejectionReason string     `json:"rejection_reason,omitempty"`
	ReturnedAt      *time.Time `json:"returned_at,omitempty"`
	CreatedAt       time.Time  `json:"created_at"`
	UpdatedAt       time.Time  `json:"updated_at"`
}

// ViewOf is r as its payer sees it.
func ViewOf(r *refund.Refund) View {
	return View{Object: "refund", ID: r.ID, PaymentID: r.PaymentID, AmountMinor: int64(r.AmountMinor), Currency: r.Currency,
		Status: string(r.Status), Reason: string(r.Reason), Note: r.Note, RequestedBy: string(r.RequestedBy),
		RejectionReason: r.RejectionReason, ReturnedAt: r.ReturnedAt, CreatedAt: r.CreatedAt, UpdatedAt: r.UpdatedAt}
}

// Store is what a door keeps: the refunds and their payments, and the limits' buckets.
type Store interface {
	refund.Store
	ratelimit.Store
}

// New is the door of a function that serves a payer's page, with the limits of decision 109
// (each one conditional write per request: a lease of one, so the bound holds exactly across
// instances).
func New(st Store, now func() time.Time) *Door {
	return &Door{
		Refunds: &refund.Service{Store: st, Now: now},
		PerPayment: &ratelimit.Limiter{Store: st, Rate: PerPaymentPerHour, Per: time.Hour, Burst: PerPaymentBurst,
			Lease: 1, Now: now},
		PerClient: &ratelimit.Limiter{Store: st, Rate: PerClientPerHour, Per: time.Hour, Burst: PerClientBurst,
			Lease: 1, Now: now},
	}
}
