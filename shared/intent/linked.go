package intent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/takapay/payments/shared/auth"
	"github.com/takapay/payments/shared/document"
	"github.com/takapay/payments/shared/foundation/apierr"
	"github.com/takapay/payments/shared/foundation/money"
	"github.com/takapay/payments/shared/payment"
)

// This file is the one home of a linked intent's money rules, called by both doors that make
// one — POST /v1/payment-intents (Service) and a payer's POST /v1/public/documents/{token}
// (package publicdoc): pricing, an invoice's live-intent reservation, a payment link's use
// reservation and release, the snapshot's write and its replay and repair. Where the doors
// differ, Order says so (LivePolicy, Keyed). The settlement (settle.go) is the other half:
// what a document learns when the intent ends.
//
// An invoice is paid at most once, whatever the timing. The invoice item names its live
// intent (live_intent), and a new intent is priced only after a conditional write makes it the
// live one; that write succeeds only when the invoice has none, or the one it names is the
// one this request read and found ended other than COMPLETED (stored FAILED, CANCELLED or
// EXPIRED: terminal statuses never change). A COMPLETED intent therefore stays the invoice's
// live intent for good, and is found before any price is computed, however old its
// reservation and whether or not the settlement has added it to paid_minor yet. An intent past
// its expiry whose EXPIRED is not recorded yet is not replaced either (a payer's approve may
// still be racing the clock): the request is told to retry once the re-drive has recorded it.

// LivePolicy says what a door does when an invoice already has a PENDING live intent.
type LivePolicy int

const (
	// RefuseLive answers 409 naming the live intent: the API's merchant cancels it or waits.
	RefuseLive LivePolicy = iota
	// AdoptLive answers the live intent itself: on the public page a second tab or a second
	// payer goes on to the same checkout, so they cannot pay twice. A reservation whose
	// intent was never written (its writer died) is repaired with this order's content.
	AdoptLive
)

// ErrLiveIntentTaken is returned by LinkedStore.ReserveInvoiceIntent when the invoice's live
// intent is no longer the one the request read (another request got there first).
var ErrLiveIntentTaken = errors.New("intent: the invoice's live intent changed")

// ErrNoUsesLeft is returned when a payment link's uses are all taken (or it is no longer active).
var ErrNoUsesLeft = errors.New("intent: the payment link has no uses left")

// ErrDocumentChanged is returned by the use hold (holdUse) when the payment link is no longer
// at the version the request read (edited, or its status changed): it is read and priced anew.
var ErrDocumentChanged = errors.New("intent: the document changed since it was read")

// LinkedStore is what the linked-intent rules read and write; every write is one
// single-item conditional write.
type LinkedStore interface {
	GetPayment(ctx context.Context, invoiceID string) (*payment.Payment, error)
	GetIntent(ctx context.Context, id string) (*Stored, error)
	// CreateIntent writes the payment with one conditional PutItem and then, only if that
	// write created it, the snapshot; payment.ErrExists and the stored payment when the id
	// exists (nothing written), ErrSnapshotWrite when only the payment was written.
	CreateIntent(ctx context.Context, p *payment.Payment, snap *Snapshot) (*payment.Payment, error)
	PutSnapshot(ctx context.Context, intentID string, snap *Snapshot) error
	// GetDocument reads a document (strongly consistent); document.ErrNotFound when absent.
	GetDocument(ctx context.Context, ws string, env auth.Environment, kind document.Kind, id string) (*document.Record, error)
	// HoldUse writes one hold of a payment link's use (uses.go) while the link is active, on
	// the condition that its holds are still at the version read: ErrHoldsChanged otherwise
	// (another hold landed, or the link is no longer active: read again). ReleaseHold drops
	// the hold of an intent that was certainly not written.
	HoldUse(ctx context.Context, doc *document.Record, w UseHoldWrite) error
	ReleaseHold(ctx context.Context, doc *document.Record, id string) error
	// ReserveInvoiceIntent makes id the issued invoice's live intent until expires, on the
	// condition that the invoice is at the version read and names none, or names replace
	// (ErrLiveIntentTaken otherwise: the invoice is read again).
	ReserveInvoiceIntent(ctx context.Context, doc *document.Record, id string, expires time.Time, replace string) error
}

// Order is one request for an intent priced from a document, from either door.
type Order struct {
	// Doc is the invoice or payment link as the door read it (strongly consistent); nil when
	// the door found none (answered 404, or a replay).
	Doc *document.Record
	// ID is the new intent's id: derived from the Idempotency-Key (the API), or random.
	ID string
	// Keyed says ID comes from an Idempotency-Key, so an intent may exist under it already:
	// a refusal then answers that intent instead (a replay answers as the first create did).
	Keyed bool
	// Quantity is the requested quantity (nil: 1). An invoice is paid whole.
	Quantity *int64
	// Options are the intent's URLs, metadata and lifetime (ExpiresIn).
	Options payment.Options
	// CustomerName, CustomerEmail and CustomerPhone are the payer's contact details.
	CustomerName, CustomerEmail, CustomerPhone string
	// Answers are the payer's answers on the public page, kept in the snapshot.
	Answers json.RawMessage
	// RequestHash identifies the request's content (a replay must carry the same).
	RequestHash string
	// MerchantName is what the checkout shows.
	MerchantName string
	// Live is what to do about an invoice's PENDING live intent.
	Live LivePolicy
	// Client is the payer's client key on the public page (an opaque key of the address): it
	// holds at most MaxHoldsPerClient uses of one payment link at once. "" (the merchant's
	// API, authenticated and limited per workspace) holds without that cap.
	Client string
	Now    time.Time
}

// Placed is the intent an Order ended with.
type Placed struct {
	Stored
	// Created is true when this order wrote the intent (201).
	Created bool
	// Replayed is true when the order's Keyed id already named an intent (compare its
	// RequestHash before answering it).
	Replayed bool
}

// Linker applies the linked-intent rules.
type Linker struct {
	Store LinkedStore
	// Tokens derives the checkout token whose hash the new intent stores.
	Tokens payment.TokenKey
}

// maxAttempts bounds the reads and writes one order makes while other requests keep changing
// the invoice's live intent under it.
const maxAttempts = 3

// Place makes (or answers) the intent of an order. Errors are the API's: 403 for a live
// document (this release takes sandbox payments only), 404 for no document, 409 naming the
// state that refuses payment, 422 for a quantity, 503 when the store is unreachable.
func (l *Linker) Place(ctx context.Context, o Order) (*Placed, error) {
	if o.Doc == nil {
		return l.refuse(ctx, o, apierr.New(apierr.NotFound,
			"no invoice or payment link with this document_id in this workspace and environment"))
	}
	if err := payment.RequireSandbox(o.Doc.Environment); err != nil {
		return nil, err
	}
	price, err := priceOrder(o.Doc, o.Quantity, o.Now)
	if err != nil {
		return l.refuse(ctx, o, err)
	}
	expires := o.Now.Add(o.Options.ExpiresIn)
	if o.Doc.Kind == document.Invoices {
		placed, d, err := l.reserveInvoice(ctx, o, price, expires)
		if err != nil || placed != nil {
			return placed, err
		}
		return l.write(ctx, o, d, nil)
	}
	return l.placeLink(ctx, o, price, expires)
}

// placeLink makes the intent of a payment-link order priced at price: with a hold on one of
// the link's uses when it has max_uses, read and priced anew when the link changed under it.
func (l *Linker) placeLink(ctx context.Context, o Order, price *Price, expires time.Time) (*Placed, error) {
	for attempt := 1; ; attempt++ {
		exp := expires
		if price.MaxUses > 0 {
			// An intent that holds a use lives payment.UseLife at most: its hold ends with it.
			if life := o.Now.Add(payment.UseLife); life.Before(exp) {
				exp = life
			}
		}
		d, err := l.draft(o, price, exp)
		if err != nil {
			return nil, err
		}
		if price.MaxUses == 0 {
			return l.write(ctx, o, d, nil)
		}
		took, err := l.holdUse(ctx, o, price.MaxUses, exp)
		switch {
		case err == nil:
			var held *document.Record
			if took {
				held = o.Doc
			}
			return l.write(ctx, o, d, held)
		case errors.Is(err, ErrNoUsesLeft):
			return l.refuse(ctx, o, apierr.New(apierr.StateConflict,
				"this payment link cannot take another payment now: its max_uses (%d) are held by completed payments and live payment intents", price.MaxUses))
		case errors.Is(err, ErrDocumentChanged) && attempt < maxAttempts:
			// Edited, archived or otherwise changed since it was read: read it and price anew.
			cur, err := l.Store.GetDocument(ctx, o.Doc.WorkspaceID, o.Doc.Environment, o.Doc.Kind, o.Doc.ID)
			if errors.Is(err, document.ErrNotFound) {
				return l.refuse(ctx, o, apierr.New(apierr.StateConflict, "cannot pay this payment link: it no longer exists"))
			}
			if err != nil {
				return nil, err
			}
			o.Doc = cur
			var perr error
			if price, perr = priceOrder(cur, o.Quantity, o.Now); perr != nil {
				return l.refuse(ctx, o, perr)
			}
		case errors.Is(err, ErrDocumentChanged):
			return nil, apierr.New(apierr.ServiceUnavailable, "the payment link is busy; retry shortly")
		default:
			return l.refuse(ctx, o, err)
		}
	}
}

// priceOrder prices an order from its document (PriceInvoice, PriceLink).
func priceOrder(doc *document.Record, quantity *int64, now time.Time) (*Price, error) {
	if doc.Kind == document.Invoices {
		if quantity != nil && *quantity != 1 {
			return nil, apierr.Invalid(apierr.Violation{Path: QuantityPath, Rule: "must be 1 (or absent) for an invoice: an invoice is paid whole"})
		}
		return PriceInvoice(doc)
	}
	return PriceLink(doc, quantity, now)
}

// refuse answers a refused order: with the intent a Keyed order's id already names, if any (a
// replay answers as the first create did, even once the document can no longer be paid —
// the intent itself may have paid it), else with err.
func (l *Linker) refuse(ctx context.Context, o Order, err error) (*Placed, error) {
	if o.Keyed {
		if prior, perr := l.Store.GetIntent(ctx, o.ID); perr == nil && prior != nil {
			return &Placed{Stored: *prior, Replayed: true}, nil
		}
	}
	return nil, err
}

// draft is an intent about to be written: the payment and the snapshot it names.
type draft struct {
	p    *payment.Payment
	snap *Snapshot
}

// draft is the new PENDING intent of an order at price, expiring at expires, with its
// checkout hash and snapshot; an intent that holds a link's use must be started within
// payment.UseHold.
func (l *Linker) draft(o Order, price *Price, expires time.Time) (draft, error) {
	p := Linked(o.ID, o.Doc.WorkspaceID, o.Doc.Environment, o.MerchantName, price, o.Now, expires)
	p.RedirectURL, p.CancelURL, p.WebhookURL, p.Metadata = o.Options.RedirectURL, o.Options.CancelURL, o.Options.WebhookURL, o.Options.Metadata
	p.Locale = o.Options.Locale
	p.CustomerName, p.CustomerEmail, p.CustomerPhone = o.CustomerName, o.CustomerEmail, o.CustomerPhone
	p.RequestHash = o.RequestHash
	if p.ReservedUse {
		by := o.Now.Add(payment.UseHold)
		if expires.Before(by) {
			by = expires
		}
		p.LockBy = &by
	}
	snap := price.Snapshot
	snap.Answers = o.Answers
	var err error
	if p.SnapshotKey, _, err = snap.Encode(); err != nil {
		return draft{}, err
	}
	if _, p.CheckoutHash, err = l.Tokens.CheckoutToken(p.InvoiceID); err != nil {
		return draft{}, err
	}
	return draft{p: p, snap: &snap}, nil
}

// reserveInvoice makes the order's intent its invoice's live one (the rules at the top of this
// file). It returns the intent to write, or a Placed answer (the live intent adopted, or a
// replay), or the refusal.
func (l *Linker) reserveInvoice(ctx context.Context, o Order, price *Price, expires time.Time) (*Placed, draft, error) {
	var none draft
	doc := o.Doc
	for attempt := 0; attempt < maxAttempts; attempt++ {
		if attempt > 0 {
			// Another request changed the live intent: read the invoice again and price anew.
			cur, p, placed, err := l.reread(ctx, o, doc)
			if cur == nil {
				return placed, none, err
			}
			doc, o.Doc, price = cur, cur, p
		}
		replace := ""
		if id := doc.LiveIntentID; id != "" && id != o.ID {
			placed, done, err := l.onLive(ctx, o, doc, price, id)
			if done {
				return placed, none, err
			}
			replace = id // ended other than COMPLETED (or a stale pointer): free for a new one
		}
		if doc.LiveIntentID == o.ID && o.ID != "" {
			// Already reserved for this very id (a retry of a create that stopped after its
			// reservation): write it with that reservation's expiry.
			d, err := l.draft(o, price, doc.LiveIntentExpires)
			return nil, d, err
		}
		d, err := l.draft(o, price, expires)
		if err != nil {
			return nil, none, err
		}
		err = l.Store.ReserveInvoiceIntent(ctx, doc, o.ID, expires, replace)
		if errors.Is(err, ErrLiveIntentTaken) {
			continue
		}
		if err != nil {
			return nil, none, err
		}
		return nil, d, nil
	}
	return nil, none, apierr.New(apierr.ServiceUnavailable, "the invoice is busy; retry shortly")
}

// reread reads the order's invoice again and prices it anew: cur is nil when the order ends
// here (placed and err are then its answer: the invoice is gone, no longer payable, or
// unreadable).
func (l *Linker) reread(ctx context.Context, o Order, doc *document.Record) (cur *document.Record, price *Price, placed *Placed, err error) {
	cur, err = l.Store.GetDocument(ctx, doc.WorkspaceID, doc.Environment, doc.Kind, doc.ID)
	if errors.Is(err, document.ErrNotFound) {
		placed, err = l.refuse(ctx, o, apierr.New(apierr.StateConflict, "cannot pay this invoice: it no longer exists"))
		return nil, nil, placed, err
	}
	if err != nil {
		return nil, nil, nil, err
	}
	if price, err = PriceInvoice(cur); err != nil {
		placed, err = l.refuse(ctx, o, err)
		return nil, nil, placed, err
	}
	return cur, price, nil, nil
}

// onLive decides an order against the intent id its invoice names as live: done with the
// answer (the live intent adopted or repaired, or the refusal), or not done when that intent
// ended other than COMPLETED and the order may replace it.
func (l *Linker) onLive(ctx context.Context, o Order, doc *document.Record, price *Price, id string) (*Placed, bool, error) {
	live, err := l.Store.GetPayment(ctx, id)
	if err != nil {
		return nil, true, err
	}
	decision, err := liveDecision(doc, live, o.Now)
	switch {
	case err != nil:
		placed, err := l.refuse(ctx, o, err)
		return placed, true, err
	case decision == livePending && o.Live == AdoptLive:
		return &Placed{Stored: Stored{Payment: live}}, true, nil
	case decision == livePending:
		placed, err := l.refuse(ctx, o, apierr.New(apierr.StateConflict,
			"this invoice already has a live payment intent (%s): cancel it or wait for it to end", id))
		return placed, true, err
	case decision == liveMissing && o.Live == AdoptLive:
		// Reserved, but its intent was never written (the writer died, or is still
		// writing): write it now under the reserved id, until the reserved expiry.
		repair := o
		repair.ID, repair.Keyed = id, false
		d, err := l.draft(repair, price, doc.LiveIntentExpires)
		if err != nil {
			return nil, true, err
		}
		placed, err := l.write(ctx, repair, d, nil)
		return placed, true, err
	case decision == liveMissing:
		placed, err := l.refuse(ctx, o, retryLater("a payment of this invoice is starting on its public page; retry in a moment", time.Second))
		return placed, true, err
	}
	return nil, false, nil
}

// What the intent an invoice names as live means for a new one.
type liveState int

const (
	liveEnded   liveState = iota // ended other than COMPLETED, or a stale pointer: replace it
	livePending                  // PENDING and unexpired
	liveMissing                  // reserved, not written, reservation unexpired
)

// InvoicePaidMessage is the 409's message for an invoice whose live intent COMPLETED (the
// public page words it for the payer by it).
const InvoicePaidMessage = "this invoice has been paid"

// liveDecision reads the invoice's live intent (nil: not stored) at now. An error is the
// refusal: paid, or an expiry not yet recorded.
func liveDecision(doc *document.Record, live *payment.Payment, now time.Time) (liveState, error) {
	switch {
	case live == nil:
		if doc.LiveIntentExpires.After(now) {
			return liveMissing, nil
		}
		// The reservation's expiry passed with no intent: an intent written this late under
		// it would be born expired (it carries the same expires_at), so it can be replaced.
		return liveEnded, nil
	case live.Source.DocumentID != doc.ID:
		return liveEnded, nil // a stale pointer: an id that names another document's intent
	case live.Status == payment.Completed:
		return 0, apierr.New(apierr.StateConflict, InvoicePaidMessage)
	case live.Status == payment.Pending && live.EffectiveStatus(now) == payment.Pending:
		return livePending, nil
	case live.Status == payment.Pending:
		// Past its expiry by this clock, but EXPIRED is not recorded: an approve may still be
		// winning the race on another clock. The re-drive records it within a minute.
		return 0, retryLater("this invoice's previous payment intent ("+live.InvoiceID+") has expired and is being closed; retry in a minute", time.Minute)
	}
	return liveEnded, nil
}

// retryLater is a 409 that tells the client when to try again.
func retryLater(msg string, after time.Duration) error {
	e := apierr.New(apierr.StateConflict, "%s", msg)
	e.Headers = map[string]string{"Retry-After": strconv.Itoa(max(1, int(after/time.Second)))}
	return e
}

// write stores the intent p (and its snapshot) and settles what it reserved: held is the
// payment link whose use this order's hold took (nil for none). The hold is dropped at once
// only when p was certainly not written (an existing intent answered instead); after an
// ambiguous failure (a timeout: the write may have landed), or a crash, it stays until its
// time passes and then frees the use by itself (uses.go): never lost, never sold twice.
func (l *Linker) write(ctx context.Context, o Order, d draft, held *document.Record) (*Placed, error) {
	p, s := d.p, d.snap
	existing, err := l.Store.CreateIntent(ctx, p, s)
	switch {
	case err == nil:
		return &Placed{Stored: Stored{Payment: p, Snapshot: s}, Created: true}, nil
	case errors.Is(err, payment.ErrExists):
		if existing.CreatedAt.Equal(p.CreatedAt) && existing.RequestHash == p.RequestHash &&
			existing.SnapshotKey == p.SnapshotKey {
			// This very write landed on an earlier attempt (the SDK retried it): it is ours,
			// and so is the use it holds. Make sure its snapshot is there.
			if s != nil {
				if err := l.Store.PutSnapshot(ctx, p.InvoiceID, s); err != nil {
					return nil, err
				}
			}
			return &Placed{Stored: Stored{Payment: p, Snapshot: s}, Created: true}, nil
		}
		if held != nil {
			if err := l.Store.ReleaseHold(ctx, held, p.InvoiceID); err != nil {
				return nil, err
			}
		}
		prior, err := l.Store.GetIntent(ctx, existing.InvoiceID)
		if err != nil {
			return nil, err
		}
		if prior == nil {
			return nil, errors.New("intent " + existing.InvoiceID + " vanished after a conditional failure")
		}
		if err := l.repairSnapshot(ctx, prior, p, s); err != nil {
			return nil, err
		}
		return &Placed{Stored: *prior, Replayed: o.Keyed}, nil
	}
	return nil, err
}

// repairSnapshot completes an intent whose create stopped between the payment's write and its
// snapshot's: a retry that priced the very same snapshot (same key, so the same content) for
// the same request writes it now. Anything else leaves the intent as it is.
func (l *Linker) repairSnapshot(ctx context.Context, prior *Stored, attempt *payment.Payment, snap *Snapshot) error {
	if !prior.SnapshotMissing || snap == nil || prior.Payment.SnapshotKey != attempt.SnapshotKey ||
		prior.Payment.RequestHash != attempt.RequestHash || !visible(prior.Payment, attempt.WorkspaceID, attempt.Environment) {
		return nil
	}
	if err := l.Store.PutSnapshot(ctx, prior.Payment.InvoiceID, snap); err != nil {
		return err
	}
	prior.Snapshot, prior.SnapshotMissing = snap, false
	return nil
}

// PriceInvoice prices an intent for an invoice: document.Payable decides whether it may be
// paid now (issued, with an amount, something outstanding) and the intent collects its
// outstanding total, amount_minor − paid_minor.
//
// Errors: 422 when doc is not an invoice; 409 STATE_CONFLICT naming the state when the
// invoice is not issued, has no amount or nothing outstanding; an internal error (not an
// apierr) when the stored invoice is inconsistent.
func PriceInvoice(doc *document.Record) (*Price, error) {
	if doc.Kind != document.Invoices {
		return nil, notKind(doc, document.Invoices)
	}
	p, err := document.Payable(doc, time.Time{}) // an invoice does not expire
	if err != nil {
		return nil, err
	}
	if p.Refusal != nil {
		return nil, p.Refusal
	}
	if p.DueMinor > int64(MaxAmountMinor) {
		// Unreachable while document.MaxMinor == money.MaxPaisa; kept so the bound is explicit.
		return nil, fmt.Errorf("intent: stored invoice %s: outstanding %d above %d", doc.ID, p.DueMinor, int64(MaxAmountMinor))
	}
	snap := snapshot(doc, p.Body)
	snap.Quantity, snap.TotalMinor, snap.PaidMinor = 1, p.TotalMinor, doc.PaidMinor
	return &Price{
		AmountMinor: money.Paisa(p.DueMinor),
		Reference:   doc.Reference,
		Source:      Source{Kind: Invoices, DocumentID: doc.ID, DocumentVersion: doc.Version},
		Snapshot:    snap,
	}, nil
}

// PriceLink prices an intent for a payment link at time now: document.Payable decides whether
// it may be paid now (active, with an amount, not past its expires_at), and the intent
// collects amount_minor × quantity. quantity is the request's (nil when absent: 1) and must be
// 1..max_quantity (max_quantity defaults to 1); the product must be at most MaxAmountMinor.
//
// Errors: 422 when doc is not a payment link, or (at QuantityPath) for a quantity out of range
// or a product above the limit; 409 STATE_CONFLICT naming the state when the link is not
// active, has expired or has no amount; an internal error when the stored link is inconsistent.
func PriceLink(doc *document.Record, quantity *int64, now time.Time) (*Price, error) {
	if doc.Kind != document.PaymentLinks {
		return nil, notKind(doc, document.PaymentLinks)
	}
	p, err := document.Payable(doc, now)
	if err != nil {
		return nil, err
	}
	if p.Refusal != nil {
		return nil, p.Refusal
	}
	unit, q := p.DueMinor, int64(1)
	if quantity != nil {
		q = *quantity
	}
	if q < 1 || q > p.MaxQuantity {
		return nil, apierr.Invalid(apierr.Violation{Path: QuantityPath,
			Rule: fmt.Sprintf("must be an integer from 1 to %d (this payment link's max_quantity)", p.MaxQuantity)})
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
	snap := snapshot(doc, p.Body)
	snap.UnitAmountMinor, snap.Quantity, snap.TotalMinor = unit, q, amount
	var maxUses int64
	if p.Body.MaxUses != nil {
		maxUses = *p.Body.MaxUses
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
