package document

import (
	"fmt"
	"time"

	"github.com/takapay/payments/shared/foundation/apierr"
)

// PayState is what a payer may do with a document now.
type PayState string

// The answers of Payable.
const (
	// PayOpen: the document takes a payment now.
	PayOpen PayState = "open"
	// PayPaid: an issued invoice with nothing outstanding.
	PayPaid PayState = "paid"
	// PayClosed: not open for payment (not issued or active, cancelled, archived, expired, or
	// without an amount to charge).
	PayClosed PayState = "closed"
)

// Payability is Payable's answer: whether a document may be paid now, and for how much.
type Payability struct {
	State PayState
	// Refusal is the 409 STATE_CONFLICT that names why the document cannot be paid now (nil
	// when State is PayOpen): what the API's intent create answers.
	Refusal error
	// Body is the document's decoded body (nil when the status alone closed it).
	Body *Body
	// TotalMinor is an invoice's total or a payment link's price of one unit (set when open
	// or paid).
	TotalMinor int64
	// DueMinor is what one payment collects now: an invoice's outstanding total, a payment
	// link's price of one unit (0 unless open).
	DueMinor int64
	// MaxQuantity is the largest quantity one payment may buy: a payment link's max_quantity
	// (default 1), 1 for an invoice.
	MaxQuantity int64
}

// Payable answers whether rec may be paid at time now, and for how much: an issued invoice
// while something is outstanding (its total − paid_minor), an active payment link with an
// amount_minor until its expires_at (its unit price, up to max_quantity units). It is the one
// rule of the public page, the API's intent create and the dashboard.
//
// A refusal is a Payability with its Refusal; an error means rec is not an invoice or payment
// link or the stored record is inconsistent (a body that does not decode, an amount_minor
// that disagrees with its body, a negative paid_minor): an internal error, never a 4xx.
func Payable(rec *Record, now time.Time) (*Payability, error) {
	switch rec.Kind {
	case Invoices:
		return invoicePayable(rec)
	case PaymentLinks:
		return linkPayable(rec, now)
	}
	return nil, fmt.Errorf("document: a %s document is never paid", rec.Kind)
}

func closed(msg string, args ...any) *Payability {
	return &Payability{State: PayClosed, Refusal: apierr.New(apierr.StateConflict, msg, args...), MaxQuantity: 1}
}

func invoicePayable(rec *Record) (*Payability, error) {
	if rec.Status != StatusIssued {
		return closed("cannot pay a %s invoice: only an issued invoice can be paid", rec.Status), nil
	}
	body, err := rec.Content()
	if err != nil {
		return nil, err
	}
	var total int64
	switch {
	case len(body.Items) > 0:
		t, rule := body.ComputeInvoiceAmount()
		if rule != "" {
			return nil, fmt.Errorf("document: stored invoice %s: %s", rec.ID, rule)
		}
		total = t
	case body.AmountMinor != nil:
		total = *body.AmountMinor
	default:
		p := closed("cannot pay an issued invoice without an amount: it has neither items nor amount_minor")
		p.Body = body
		return p, nil
	}
	if rec.AmountMinor == nil || *rec.AmountMinor != total {
		return nil, fmt.Errorf("document: stored invoice %s: amount_minor %v disagrees with its body's total %d", rec.ID, rec.AmountMinor, total)
	}
	if rec.PaidMinor < 0 {
		return nil, fmt.Errorf("document: stored invoice %s: negative paid_minor %d", rec.ID, rec.PaidMinor)
	}
	p := &Payability{State: PayOpen, Body: body, TotalMinor: total, DueMinor: total - rec.PaidMinor, MaxQuantity: 1}
	if p.DueMinor <= 0 {
		p.State, p.DueMinor = PayPaid, 0
		p.Refusal = apierr.New(apierr.StateConflict, "this invoice has been paid: %d of its %d paisa are paid, nothing is outstanding", rec.PaidMinor, total)
	}
	return p, nil
}

func linkPayable(rec *Record, now time.Time) (*Payability, error) {
	if rec.Status != StatusActive {
		return closed("cannot pay a %s payment link: only an active payment link can be paid", rec.Status), nil
	}
	body, err := rec.Content()
	if err != nil {
		return nil, err
	}
	if body.ExpiresAt != nil {
		exp, err := time.Parse(time.RFC3339Nano, *body.ExpiresAt)
		if err != nil {
			return nil, fmt.Errorf("document: stored payment link %s: expires_at: %w", rec.ID, err)
		}
		if !now.Before(exp) {
			p := closed("cannot pay an expired payment link: it expired at %s", exp.UTC().Format(time.RFC3339))
			p.Body = body
			return p, nil
		}
	}
	if body.AmountMinor == nil {
		p := closed("cannot pay an active payment link without an amount_minor")
		p.Body = body
		return p, nil
	}
	unit := *body.AmountMinor
	if rec.AmountMinor == nil || *rec.AmountMinor != unit {
		return nil, fmt.Errorf("document: stored payment link %s: amount_minor %v disagrees with its body's %d", rec.ID, rec.AmountMinor, unit)
	}
	p := &Payability{State: PayOpen, Body: body, TotalMinor: unit, DueMinor: unit, MaxQuantity: 1}
	if body.MaxQuantity != nil {
		p.MaxQuantity = *body.MaxQuantity
	}
	return p, nil
}
