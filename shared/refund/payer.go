package refund

import (
	"context"
	"errors"
	"strings"

	"github.com/google/uuid"

	"github.com/takapay/payments/shared/foundation/apierr"
	"github.com/takapay/payments/shared/foundation/email"
	"github.com/takapay/payments/shared/payment"
)

// The payer's door (decision 108): a payer asks, from the checkout they paid through, for a
// refund of everything still refundable. A payment has at most one open payer request: the
// payment item names its latest one (refund_payer), and a new one is named there, by a
// conditional write, before it is written, so racing requests agree on one id and the
// refund's conditional create settles them.

// PayerBy is who a payer's history entries name.
const PayerBy = "payer"

// PayerInput is what a payer asks with: a reason, an optional note, and a contact the
// merchant can reach them at (a Bangladeshi mobile number or an email).
type PayerInput struct {
	Reason  Reason
	Note    string
	Contact string
}

// PayerStore is the part of a Store the payer's door needs besides Store.
type PayerStore interface {
	// MarkPayerRequest names id as the payment's latest payer request, on condition that the
	// one named is prev ("" for none): false, without error, when it is not (another request
	// was named first).
	MarkPayerRequest(ctx context.Context, paymentID, prev, id string) (bool, error)
}

// Paths of the payer's fields.
const pathContact = "body.contact"

// ContactRule is the rule a contact NormaliseContact refuses breaks.
const ContactRule = "must be a Bangladeshi mobile number such as 01712345678 or an email address such as name@example.com"

// NormaliseContact is a payer's contact as stored: a mobile number as 01XXXXXXXXX
// (payment.NormaliseMobile, the checkout's rule), an email in lower case (package email's
// rule); ok false when it is neither.
func NormaliseContact(s string) (string, bool) {
	s = strings.TrimSpace(s)
	if strings.Contains(s, "@") {
		if email.Check(s) != "" {
			return "", false
		}
		return strings.ToLower(s), true
	}
	return payment.NormaliseMobile(s)
}

// Validate checks a payer's input: every broken rule, each naming its field. It answers the
// contact as stored.
func (in *PayerInput) Validate() (string, error) {
	var vs []apierr.Violation
	if !validReason(in.Reason) {
		vs = append(vs, apierr.Violation{Path: pathReason, Rule: "must be one of " + reasonList()})
	}
	vs = appendLength(vs, pathNote, in.Note, MaxNote)
	contact, ok := NormaliseContact(in.Contact)
	if !ok {
		vs = append(vs, apierr.Violation{Path: pathContact, Rule: ContactRule})
	}
	if len(vs) > 0 {
		return "", apierr.Invalid(vs...)
	}
	return contact, nil
}

// Open reports whether a refund in s is an open request: one the merchant has still to finish.
func (s Status) Open() bool { return s == Requested || s == InReview || s == Approved }

// ErrNothingRefundable is the 409 of a payer's request on a payment with nothing left to refund.
var ErrNothingRefundable = apierr.New(apierr.StateConflict, "nothing of this payment is left to refund")

// RequestByPayer is a payer's request for a refund of paymentID (the checkout's token proved
// they hold it): a REQUESTED refund of everything still refundable, requested_by payer. While
// the payment has an open payer request (REQUESTED, IN_REVIEW or APPROVED) another answers
// that one and writes nothing, created false; racing requests make one refund. After the open
// one was REJECTED or CANCELLED, a request makes a new one. Nothing left to refund is 409
// (ErrNothingRefundable); a live payment is 403, like every live money path of this release.
func (s *Service) RequestByPayer(ctx context.Context, paymentID string, in PayerInput) (r *Refund, created bool, err error) {
	contact, err := in.Validate()
	if err != nil {
		return nil, false, err
	}
	ps, ok := s.Store.(PayerStore)
	if !ok {
		return nil, false, errors.New("refund: the store keeps no payer requests")
	}
	for range 4 { // each turn is a lost race to name the payment's next request
		p, err := s.payerPayment(ctx, paymentID)
		if err != nil {
			return nil, false, err
		}
		scope := Scope{WorkspaceID: p.WorkspaceID, Environment: p.Environment, By: PayerBy}
		cur, err := s.namedRequest(ctx, p)
		if err != nil {
			return nil, false, err
		}
		if cur != nil && cur.Status.Open() {
			return cur, false, nil
		}
		if cur != nil && cur.Status == PendingClaim {
			out, err := s.finishClaim(ctx, cur, p.AmountMinor)
			return out, false, err
		}
		id := p.PayerRequest
		if cur != nil || id == "" { // the named one is finished (or none): name a new one
			if p.Ledger().Refundable() == 0 {
				return nil, false, ErrNothingRefundable
			}
			u, err := uuid.NewV7()
			if err != nil {
				return nil, false, err
			}
			won, err := ps.MarkPayerRequest(ctx, paymentID, p.PayerRequest, u.String())
			if err != nil || !won {
				if err != nil {
					return nil, false, err
				}
				continue
			}
			id = u.String()
		}
		return s.createPayer(ctx, scope, p, CreateInput{ID: id, PaymentID: paymentID, Reason: in.Reason, Note: in.Note,
			RequestedBy: ByPayer, PayerContact: contact})
	}
	return nil, false, apierr.New(apierr.VersionConflict, "this payment's refund request is changing; retry")
}

// payerPayment reads the payment a payer asks about: 404 when there is none, 409 when it is
// not COMPLETED, 403 when it is live.
func (s *Service) payerPayment(ctx context.Context, id string) (*Payment, error) {
	p, err := s.Store.RefundPayment(ctx, id)
	if err != nil {
		return nil, err
	}
	if p == nil {
		return nil, apierr.New(apierr.NotFound, "no payment %s", id)
	}
	if err := payment.RequireSandbox(p.Environment); err != nil {
		return nil, err
	}
	if p.Status != payment.Completed {
		return nil, apierr.New(apierr.StateConflict, "this payment is %s; only a COMPLETED payment can be refunded", p.Status)
	}
	return p, nil
}

// namedRequest reads the payer request the payment names (nil when it names none, or names
// one whose writer has not yet written it: the caller then writes it).
func (s *Service) namedRequest(ctx context.Context, p *Payment) (*Refund, error) {
	if p.PayerRequest == "" {
		return nil, nil
	}
	return s.Store.GetRefund(ctx, p.WorkspaceID, p.Environment, p.PayerRequest)
}

// createPayer writes the payer request the payment names: the refund of everything still
// refundable, claimed and REQUESTED like any create (decision 100). A racing request that
// wrote it first is answered (created false).
func (s *Service) createPayer(ctx context.Context, scope Scope, p *Payment, in CreateInput) (*Refund, bool, error) {
	amount := p.Ledger().Refundable()
	if amount == 0 {
		return nil, false, ErrNothingRefundable
	}
	r, err := s.newRefund(scope, in, amount, p)
	if err != nil {
		return nil, false, err
	}
	stored, err := s.Store.PutRefund(ctx, r)
	if errors.Is(err, ErrExists) {
		out, err := s.finishClaim(ctx, stored, p.AmountMinor)
		return out, false, err
	}
	if err != nil {
		return nil, false, err
	}
	out, err := s.finishClaim(ctx, r, p.AmountMinor)
	return out, err == nil, err
}

// PayerRequest is the payment's latest payer request as its payer may see it (nil when there
// is none, or none shown), and the payment's ledger (what is still refundable): what the
// checkout and the invoice page show.
func (s *Service) PayerRequest(ctx context.Context, paymentID string) (*Refund, Ledger, error) {
	p, err := s.Store.RefundPayment(ctx, paymentID)
	if err != nil || p == nil {
		return nil, Ledger{}, err
	}
	r, err := s.namedRequest(ctx, p)
	if err != nil || r == nil || !r.Status.Shown() {
		return nil, p.Ledger(), err
	}
	return r, p.Ledger(), nil
}
