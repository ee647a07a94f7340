// Package intent is the payment intent: one attempt to collect one fixed amount, standalone or
// server-priced from a document (an issued invoice or an active payment link). Once created,
// an intent's amount, currency, reference, source and snapshot never change; only its status
// moves, forward only, with the hosted payment's statuses and rules (package payment).
//
// This file holds the resource and the pricing: PriceInvoice and PriceLink compute what a
// linked intent collects from the document as it is at that moment and the snapshot the
// intent keeps of it. Plain Go: no storage, no HTTP.
package intent

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"time"

	"github.com/takapay/payments/shared/apierr"
	"github.com/takapay/payments/shared/auth"
	"github.com/takapay/payments/shared/document"
	"github.com/takapay/payments/shared/money"
	"github.com/takapay/payments/shared/payment"
)

// Object is the resource's "object" member.
const Object = "payment_intent"

// Status is an intent's status: the hosted payment's, with the same forward-only rules.
type Status = payment.Status

// SourceKind says where an intent's amount came from.
type SourceKind = payment.SourceKind

// Source kinds: a client amount, or a document kind the server priced.
const (
	Standalone   = payment.SourceStandalone
	Invoices     = payment.SourceInvoice
	PaymentLinks = payment.SourcePaymentLinks
)

// Source is the intent's origin: standalone, or the document (id, version, quantity) it was
// priced from.
type Source = payment.Source

// Snapshot is what the document said when the intent was priced. Editing or cancelling the
// document afterwards never changes it.
type Snapshot struct {
	DocumentID      string              `json:"document_id"`
	Kind            document.Kind       `json:"kind"`
	Version         int64               `json:"version"`
	Reference       string              `json:"reference"`
	Items           []document.LineItem `json:"items"`
	TaxMinor        int64               `json:"tax_minor"`
	FeeMinor        int64               `json:"fee_minor"`
	ShippingMinor   int64               `json:"shipping_minor"`
	DiscountMinor   int64               `json:"discount_minor"`
	UnitAmountMinor int64               `json:"unit_amount_minor,omitempty"` // a payment link's amount_minor
	Quantity        int64               `json:"quantity"`
	// TotalMinor is the document's total: an invoice's amount_minor, or a payment link's
	// amount_minor × quantity.
	TotalMinor int64 `json:"total_minor"`
	// PaidMinor is what the invoice had been paid already (0 for a payment link); the intent
	// collects TotalMinor − PaidMinor.
	PaidMinor int64 `json:"paid_minor"`
	// Answers are what the payer answered on the document's public page (its fields and
	// contact details), when the intent was made there.
	Answers json.RawMessage `json:"answers,omitempty"`
}

// Encode returns the snapshot's stored form (compact JSON) and its key: "SNAP#" and 16 hex
// digits of the SHA-256 of that form. The key is the content's: writing the same snapshot
// twice writes one item, and 64 bits tell apart the few snapshots one intent id could see.
func (s *Snapshot) Encode() (key string, raw []byte, err error) {
	raw, err = json.Marshal(s)
	if err != nil {
		return "", nil, err
	}
	sum := sha256.Sum256(raw)
	return SnapshotKeyPrefix + hex.EncodeToString(sum[:8]), raw, nil
}

// SnapshotKeyPrefix starts every snapshot key.
const SnapshotKeyPrefix = "SNAP#"

// HistoryEntry is one status an intent reached.
type HistoryEntry struct {
	Status     Status    `json:"status"`
	OccurredAt time.Time `json:"occurred_at"`
}

// Intent is the payment intent resource.
type Intent struct {
	ID          string           `json:"id"`
	Object      string           `json:"object"`
	WorkspaceID string           `json:"workspace_id"`
	Environment auth.Environment `json:"environment"`
	Status      Status           `json:"status"`
	AmountMinor money.Paisa      `json:"amount_minor"`
	Currency    string           `json:"currency"`
	Reference   string           `json:"reference"`
	Source      Source           `json:"source"`
	Snapshot    *Snapshot        `json:"snapshot,omitempty"`
	// PaymentURL is the hosted checkout: the payer's capability. Absent for a caller who may
	// not create payments (a payments:read key, a viewer's session).
	PaymentURL string `json:"payment_url,omitempty"`
	// Locale is the language the merchant set for the payer's pages: "bn", "en" or "auto"
	// (the default: the payer's ?lang, then their browser, decides).
	Locale    string    `json:"locale"`
	ExpiresAt time.Time `json:"expires_at"`
	// StartBy is when a PENDING intent that holds one of a payment link's max_uses expires
	// unless its payer has started paying (locked a route) by then: payment.UseHold after
	// create. Omitted once started, and for every other intent.
	StartBy   *time.Time      `json:"start_by,omitempty"`
	CreatedAt time.Time       `json:"created_at"`
	UpdatedAt time.Time       `json:"updated_at"`
	History   []HistoryEntry  `json:"history"`
	Metadata  json.RawMessage `json:"metadata,omitempty"`
	// Lock is the payer's route choice on the checkout, once made (the payer masked).
	Lock *Lock `json:"lock,omitempty"`
	// FirstVerifiedAt is when a verify first saw the intent COMPLETED.
	FirstVerifiedAt *time.Time `json:"first_verified_at,omitempty"`
	// Delivery is the webhook event of the terminal status and every recent attempt to
	// deliver it (absent without a webhook_url, and while PENDING).
	Delivery *payment.Delivery `json:"delivery,omitempty"`
}

// Lock is the route a payer locked and who (masked: payment.MaskPayer), and when.
type Lock struct {
	Route       string    `json:"route"`
	PayerMasked string    `json:"payer_masked"`
	At          time.Time `json:"at"`
}

// Linked returns the new PENDING payment of a linked intent priced at price: id, workspace,
// environment and the merchant name the checkout shows; the caller sets the URLs, the
// customer details, the request hash and the checkout hash.
func Linked(id, ws string, env auth.Environment, merchant string, price *Price, now, expires time.Time) *payment.Payment {
	return &payment.Payment{
		InvoiceID: id, WorkspaceID: ws, Environment: env, Status: payment.Pending,
		AmountMinor: price.AmountMinor, Currency: payment.Currency, Reference: price.Reference, Source: price.Source,
		CreatedAt: now, UpdatedAt: now, ExpiresAt: expires, MerchantName: merchant,
		ReservedUse: price.MaxUses > 0, UseHeld: price.MaxUses > 0,
	}
}

// Price is what a linked intent collects: the amount, the reference it carries (the
// document's), its source and its snapshot.
type Price struct {
	AmountMinor money.Paisa
	Reference   string
	Source      Source
	Snapshot    Snapshot
	// MaxUses is a payment link's max_uses (0: unlimited; always 0 for an invoice): each
	// intent then reserves one use of the link.
	MaxUses int64
}

// MaxAmountMinor is the largest amount an intent collects: the hosted payment's limit, which
// is also the documents' (document.MaxMinor).
const MaxAmountMinor = money.MaxPaisa

// QuantityPath is the field path of the linked create's quantity in its 422s.
const QuantityPath = "body.quantity"

// PriceInvoice prices an intent for an invoice: it must be issued, and the intent collects
// its outstanding total, amount_minor − paid_minor, which must be positive. The total is the
// one package document derived when the invoice was written (Body.ComputeInvoiceAmount from
// items, tax, fee, shipping and discount, or the body's amount_minor without items); it is
// recomputed from the stored body and must agree with the record.
//
// Errors: 422 when doc is not an invoice; 409 STATE_CONFLICT naming the state when the
// invoice is not issued, has no amount or nothing outstanding; an internal error (not an
// apierr) when the stored invoice is inconsistent.
func PriceInvoice(doc *document.Record) (*Price, error) {
	if doc.Kind != document.Invoices {
		return nil, notKind(doc, document.Invoices)
	}
	if doc.Status != document.StatusIssued {
		return nil, apierr.New(apierr.StateConflict, "cannot pay a %s invoice: only an issued invoice can be paid", doc.Status)
	}
	body, err := storedBody(doc)
	if err != nil {
		return nil, err
	}
	var total int64
	if len(body.Items) > 0 {
		t, rule := body.ComputeInvoiceAmount()
		if rule != "" {
			return nil, fmt.Errorf("intent: stored invoice %s: %s", doc.ID, rule)
		}
		total = t
	} else if body.AmountMinor != nil {
		total = *body.AmountMinor
	} else {
		return nil, apierr.New(apierr.StateConflict, "cannot pay an issued invoice without an amount: it has neither items nor amount_minor")
	}
	if doc.AmountMinor == nil || *doc.AmountMinor != total {
		return nil, fmt.Errorf("intent: stored invoice %s: amount_minor %v disagrees with its body's total %d", doc.ID, doc.AmountMinor, total)
	}
	if doc.PaidMinor < 0 {
		return nil, fmt.Errorf("intent: stored invoice %s: negative paid_minor %d", doc.ID, doc.PaidMinor)
	}
	outstanding := total - doc.PaidMinor
	if outstanding <= 0 {
		return nil, apierr.New(apierr.StateConflict, "this invoice has been paid: %d of its %d paisa are paid, nothing is outstanding", doc.PaidMinor, total)
	}
	if outstanding > int64(MaxAmountMinor) {
		// Unreachable while document.MaxMinor == money.MaxPaisa; kept so the bound is explicit.
		return nil, fmt.Errorf("intent: stored invoice %s: outstanding %d above %d", doc.ID, outstanding, int64(MaxAmountMinor))
	}
	snap := snapshot(doc, body)
	snap.Quantity, snap.TotalMinor, snap.PaidMinor = 1, total, doc.PaidMinor
	return &Price{
		AmountMinor: money.Paisa(outstanding),
		Reference:   doc.Reference,
		Source:      Source{Kind: Invoices, DocumentID: doc.ID, DocumentVersion: doc.Version},
		Snapshot:    snap,
	}, nil
}

// PriceLink prices an intent for a payment link at time now: it must be active and not past
// its expires_at, and the intent collects amount_minor × quantity. quantity is the request's
// (nil when absent: 1) and must be 1..max_quantity (max_quantity defaults to 1); the product
// must be at most MaxAmountMinor.
//
// Errors: 422 when doc is not a payment link, or (at QuantityPath) for a quantity out of range
// or a product above the limit; 409 STATE_CONFLICT naming the state when the link is not
// active, has expired or has no amount; an internal error when the stored link is inconsistent.
func PriceLink(doc *document.Record, quantity *int64, now time.Time) (*Price, error) {
	if doc.Kind != document.PaymentLinks {
		return nil, notKind(doc, document.PaymentLinks)
	}
	if doc.Status != document.StatusActive {
		return nil, apierr.New(apierr.StateConflict, "cannot pay a %s payment link: only an active payment link can be paid", doc.Status)
	}
	body, err := storedBody(doc)
	if err != nil {
		return nil, err
	}
	if body.ExpiresAt != nil {
		exp, err := time.Parse(time.RFC3339Nano, *body.ExpiresAt)
		if err != nil {
			return nil, fmt.Errorf("intent: stored payment link %s: expires_at: %w", doc.ID, err)
		}
		if !now.Before(exp) {
			return nil, apierr.New(apierr.StateConflict, "cannot pay an expired payment link: it expired at %s", exp.UTC().Format(time.RFC3339))
		}
	}
	if body.AmountMinor == nil {
		return nil, apierr.New(apierr.StateConflict, "cannot pay an active payment link without an amount_minor")
	}
	unit := *body.AmountMinor
	if doc.AmountMinor == nil || *doc.AmountMinor != unit {
		return nil, fmt.Errorf("intent: stored payment link %s: amount_minor %v disagrees with its body's %d", doc.ID, doc.AmountMinor, unit)
	}
	maxQ := int64(1)
	if body.MaxQuantity != nil {
		maxQ = *body.MaxQuantity
	}
	q := int64(1)
	if quantity != nil {
		q = *quantity
	}
	if q < 1 || q > maxQ {
		return nil, apierr.Invalid(apierr.Violation{Path: QuantityPath,
			Rule: fmt.Sprintf("must be an integer from 1 to %d (this payment link's max_quantity)", maxQ)})
	}
	// unit ≤ document.MaxMinor and q ≤ document.MaxQuantity, so the product (≤ 10^15) fits an
	// int64; it is checked against the limit before it is used.
	if unit <= 0 || unit > int64(MaxAmountMinor) || q > document.MaxQuantity {
		return nil, fmt.Errorf("intent: stored payment link %s: amount_minor %d or quantity %d out of bounds", doc.ID, unit, q)
	}
	amount := unit * q
	if amount > int64(MaxAmountMinor) {
		return nil, apierr.Invalid(apierr.Violation{Path: QuantityPath,
			Rule: fmt.Sprintf("amount_minor × quantity (%d × %d) must be at most %d paisa", unit, q, int64(MaxAmountMinor))})
	}
	snap := snapshot(doc, body)
	snap.UnitAmountMinor, snap.Quantity, snap.TotalMinor = unit, q, amount
	var maxUses int64
	if body.MaxUses != nil {
		maxUses = *body.MaxUses
	}
	return &Price{
		MaxUses:     maxUses,
		AmountMinor: money.Paisa(amount),
		Reference:   doc.Reference,
		Source:      Source{Kind: PaymentLinks, DocumentID: doc.ID, DocumentVersion: doc.Version, Quantity: q},
		Snapshot:    snap,
	}, nil
}

// notKind is the 422 for a document_id naming a document of another kind.
func notKind(doc *document.Record, want document.Kind) error {
	return apierr.Invalid(apierr.Violation{Path: "body.document_id",
		Rule: fmt.Sprintf("must name %s; this is a %s document", kindPhrase(want), doc.Kind)})
}

func kindPhrase(k document.Kind) string {
	if k == document.Invoices {
		return "an invoice"
	}
	return "a payment link"
}

// storedBody parses a stored document's body with the documents' own validator: a stored body
// always passed it, so a violation here is an internal inconsistency, not the client's.
func storedBody(doc *document.Record) (*document.Body, error) {
	body, vs := document.ParseBody(doc.Body, "body")
	if len(vs) > 0 {
		return nil, fmt.Errorf("intent: stored %s %s has an invalid body: %v", doc.Kind, doc.ID, vs)
	}
	return body, nil
}

// snapshot copies what the intent keeps of the document and its body.
func snapshot(doc *document.Record, body *document.Body) Snapshot {
	val := func(p *int64) int64 {
		if p == nil {
			return 0
		}
		return *p
	}
	items := append([]document.LineItem{}, body.Items...)
	return Snapshot{
		DocumentID: doc.ID, Kind: doc.Kind, Version: doc.Version, Reference: doc.Reference, Items: items,
		TaxMinor: val(body.TaxMinor), FeeMinor: val(body.FeeMinor), ShippingMinor: val(body.ShippingMinor),
		DiscountMinor: val(body.DiscountMinor),
	}
}
