// Package publicdoc is the public side of an invoice or a payment link: what a payer who opens
// the document's public link (GET /v1/public/documents/{token}) sees — the View as JSON or the
// server-rendered page — and the answers the payer posts back (the document's custom fields,
// a quantity for a payment link, optional contact details) before continuing to the hosted
// checkout.
//
// It is plain Go: no AWS SDK, no Lambda types, no HTTP (shared/edge/publicdocapi serves it).
// Service.Open reads the record by its public token and its View (ViewOf; 404 for a draft or
// a customer), Checkout.Pay places the payer's intent.
package publicdoc

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/takapay/payments/shared/auth"
	"github.com/takapay/payments/shared/document"
	"github.com/takapay/payments/shared/foundation/money"
	"github.com/takapay/payments/shared/payment"
)

// ErrNotPublic is ViewOf's answer for a document a payer may not see: a draft invoice or
// payment link (not issued or published yet) or a customer. The handler answers 404, exactly
// as for an unknown token.
var ErrNotPublic = errors.New("publicdoc: the document is not public")

// The states of a public document.
const (
	// StatePayable: the payer can answer the fields and continue to payment.
	StatePayable = "payable"
	// StatePaid: an issued invoice with nothing outstanding.
	StatePaid = "paid"
	// StateClosed: a cancelled invoice, an archived or expired payment link, or one that has
	// nothing to charge (an issued invoice or an active link without an amount).
	StateClosed = "closed"
	// StateUnavailable: a live document that would be payable, but this release takes
	// sandbox payments only (the rule of every money path, payment.RequireSandbox).
	StateUnavailable = "unavailable"
)

// View is what a payer may see of a document, and the JSON body of GET
// /v1/public/documents/{token} for a non-browser client. It holds nothing private: no notes,
// private_notes, customer contact or customer_id, tags, ids, versions or workspace.
type View struct {
	// Kind is "invoices" or "payment-links".
	Kind document.Kind `json:"kind"`
	// Reference is the merchant's reference of the document.
	Reference string `json:"reference"`
	// MerchantName is the merchant's display name.
	MerchantName string `json:"merchant_name"`
	// Environment is "sandbox" or "live".
	Environment auth.Environment `json:"environment"`
	// Description is the body's description ("" when it has none).
	Description string `json:"description"`
	// Items are the body's line items (empty, never null, when it has none).
	Items []document.LineItem `json:"items"`
	// AmountMinor is an invoice's total or a payment link's unit price, in paisa.
	AmountMinor int64 `json:"amount_minor"`
	// TaxMinor, FeeMinor, ShippingMinor and DiscountMinor are an invoice's adjustments (0 when
	// absent, and always 0 for a payment link, whose price is amount_minor × quantity).
	TaxMinor      int64 `json:"tax_minor"`
	FeeMinor      int64 `json:"fee_minor"`
	ShippingMinor int64 `json:"shipping_minor"`
	DiscountMinor int64 `json:"discount_minor"`
	// TotalMinor is an invoice's total, or a payment link's price of one unit.
	TotalMinor int64 `json:"total_minor"`
	// PaidMinor is what the document has collected so far (the record's paid_minor).
	PaidMinor int64 `json:"paid_minor"`
	// OutstandingMinor is what is left to pay: max(total − paid, 0) for an invoice, the price of
	// one unit for a payment link.
	OutstandingMinor int64 `json:"outstanding_minor"`
	// AmountDisplay is what the payer would pay now, formatted ("৳1,500.00"): the outstanding
	// total of an invoice, the price of one unit of a payment link.
	AmountDisplay string `json:"amount_display"`
	// DueAt is an invoice's due_at (RFC 3339, as the merchant wrote it), else null.
	DueAt *string `json:"due_at"`
	// ExpiresAt is a payment link's expires_at (RFC 3339, as the merchant wrote it), else null.
	ExpiresAt *string `json:"expires_at"`
	// MaxQuantity is the largest quantity a payer may buy: a payment link's max_quantity
	// (default 1), always 1 for an invoice.
	MaxQuantity int64 `json:"max_quantity"`
	// Fields are the custom fields the payer answers, in the document's order (never null).
	Fields []Field `json:"fields"`
	// State is StatePayable, StatePaid, StateClosed or StateUnavailable.
	State string `json:"state"`
	// CustomerName is whom an invoice is for: its body's name ("" when it names nobody, and
	// always "" for a payment link). The page shows it; the JSON view does not carry it (its
	// members are the API's contract).
	CustomerName string `json:"-"`
}

// Field is one custom field as a payer sees it.
type Field struct {
	ID    string `json:"id"`
	Label string `json:"label"`
	// Type is text, textarea, select, radio, checkbox or file.
	Type     string `json:"type"`
	Required bool   `json:"required"`
	// Options are a select's or a radio group's choices (omitted for the other types).
	Options []string `json:"options,omitempty"`
	// Available is false for a file field (file upload is not available yet, so it cannot be
	// answered) and nil, omitted, for every other type.
	Available *bool `json:"available,omitempty"`
}

// ViewOf returns what a payer sees of doc at time now, for a merchant named merchantName.
//
// It returns ErrNotPublic for a draft or a customer. Any other error means the stored record
// is inconsistent (its body does not decode, a negative paid_minor, a status its kind does not
// have, an unreadable expires_at, an amount that disagrees with its body): an internal error,
// never a 4xx.
//
// State is document.Payable's answer, the rule the API's intent create applies too: an issued
// invoice is payable while something is outstanding and paid once paid_minor reaches its
// total (an issued invoice without an amount is closed: there is nothing to pay); a cancelled
// invoice is closed. An active payment link is payable until its expires_at (closed from that
// instant on) and closed without an amount_minor; an archived link is closed.
func ViewOf(doc *document.Record, merchantName string, now time.Time) (*View, error) {
	if doc == nil {
		return nil, errors.New("publicdoc: no document")
	}
	if (doc.Kind != document.Invoices && doc.Kind != document.PaymentLinks) || doc.Status == document.StatusDraft {
		return nil, ErrNotPublic
	}
	body, err := doc.Content()
	if err != nil {
		return nil, err
	}
	if doc.PaidMinor < 0 {
		return nil, fmt.Errorf("publicdoc: stored %s %s: negative paid_minor %d", doc.Kind, doc.ID, doc.PaidMinor)
	}
	if !publicStatus(doc) {
		return nil, fmt.Errorf("publicdoc: stored %s %s: unknown status %q", doc.Kind, doc.ID, doc.Status)
	}
	pay, err := document.Payable(doc, now)
	if err != nil {
		return nil, err
	}
	v := &View{
		Kind:         doc.Kind,
		Reference:    doc.Reference,
		MerchantName: merchantName,
		Environment:  doc.Environment,
		Items:        append([]document.LineItem{}, body.Items...),
		PaidMinor:    doc.PaidMinor,
		MaxQuantity:  1,
		Fields:       fieldsOf(body.Fields),
		State:        stateOf(pay.State),
	}
	if body.Description != nil {
		v.Description = *body.Description
	}
	if doc.Kind == document.Invoices {
		total := val(doc.AmountMinor)
		v.AmountMinor, v.TotalMinor = total, total
		v.TaxMinor, v.FeeMinor = val(body.TaxMinor), val(body.FeeMinor)
		v.ShippingMinor, v.DiscountMinor = val(body.ShippingMinor), val(body.DiscountMinor)
		v.OutstandingMinor, _ = doc.Outstanding() // 0 without an amount
		v.DueAt = clone(body.DueAt)
		if body.Name != nil {
			v.CustomerName = *body.Name
		}
		v.AmountDisplay = money.Paisa(v.OutstandingMinor).Display()
	} else {
		unit := val(body.AmountMinor)
		v.AmountMinor, v.TotalMinor, v.OutstandingMinor = unit, unit, unit
		v.ExpiresAt = clone(body.ExpiresAt)
		if body.MaxQuantity != nil {
			v.MaxQuantity = *body.MaxQuantity
		}
		v.AmountDisplay = money.Paisa(unit).Display()
	}
	if v.State == StatePayable && payment.RequireSandbox(doc.Environment) != nil {
		v.State = StateUnavailable
	}
	return v, nil
}

// publicStatus reports whether a public document's status is one its kind has past its
// draft: issued or cancelled for an invoice, active or archived for a payment link.
func publicStatus(doc *document.Record) bool {
	if doc.Kind == document.Invoices {
		return doc.Status == document.StatusIssued || doc.Status == document.StatusCancelled
	}
	return doc.Status == document.StatusActive || doc.Status == document.StatusArchived
}

// stateOf is a payer's state of a Payable answer.
func stateOf(s document.PayState) string {
	switch s {
	case document.PayOpen:
		return StatePayable
	case document.PayPaid:
		return StatePaid
	}
	return StateClosed
}

// PaymentReader reads a payment (package dynamo); nil when there is none.
type PaymentReader interface {
	GetPayment(ctx context.Context, invoiceID string) (*payment.Payment, error)
}

// viewOf is ViewOf, told by the invoice's live intent too: an invoice whose live intent has
// COMPLETED is paid — the payment says so before the settlement has added it to paid_minor
// (one more read, only for an issued invoice that looks payable and names a live intent).
func viewOf(ctx context.Context, st PaymentReader, doc *document.Record, merchant string, now time.Time) (*View, error) {
	v, err := ViewOf(doc, merchant, now)
	if err != nil || v.State != StatePayable || doc.Kind != document.Invoices || doc.LiveIntentID == "" {
		return v, err
	}
	live, err := st.GetPayment(ctx, doc.LiveIntentID)
	if err != nil {
		return nil, err
	}
	if live != nil && live.Status == payment.Completed && live.Source.DocumentID == doc.ID {
		v.State = StatePaid
		v.PaidMinor = min(v.TotalMinor, doc.PaidMinor+int64(live.AmountMinor))
		v.OutstandingMinor = max(v.TotalMinor-v.PaidMinor, 0)
		v.AmountDisplay = money.Paisa(v.OutstandingMinor).Display()
	}
	return v, nil
}

// fieldsOf copies a body's custom fields into their public form.
func fieldsOf(fs []document.CustomField) []Field {
	out := make([]Field, 0, len(fs))
	for _, f := range fs {
		pf := Field{ID: f.ID, Label: f.Label, Type: f.Type, Required: f.Required != nil && *f.Required}
		switch f.Type {
		case "select", "radio":
			pf.Options = append([]string{}, f.Options...)
		case "file":
			no := false
			pf.Available = &no
		}
		out = append(out, pf)
	}
	return out
}

func val(p *int64) int64 {
	if p == nil {
		return 0
	}
	return *p
}

func clone(p *string) *string {
	if p == nil {
		return nil
	}
	s := *p
	return &s
}
