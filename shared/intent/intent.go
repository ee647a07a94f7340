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
	"time"

	"github.com/takapay/payments/shared/auth"
	"github.com/takapay/payments/shared/document"
	"github.com/takapay/payments/shared/foundation/money"
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
	// RefundedMinor is what was returned to the payer (RETURNED refunds); RefundableMinor is
	// what may still be refunded (0 unless COMPLETED). See payment.Payment.Refunded.
	RefundedMinor   money.Paisa `json:"refunded_minor"`
	RefundableMinor money.Paisa `json:"refundable_minor"`
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
