// Package document is the document records of a workspace — customers, invoices and
// payment-links — with their validation, versioned edits, lifecycle and listing. Storage is
// behind the Store interface (package dynamo implements it).
package document

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/takapay/payments/shared/auth"
)

// Kind is one of the three document kinds (the path segment).
type Kind string

// Document kinds.
const (
	Customers    Kind = "customers"
	Invoices     Kind = "invoices"
	PaymentLinks Kind = "payment-links"
)

// ParseKind accepts the three kinds.
func ParseKind(s string) (Kind, bool) {
	switch Kind(s) {
	case Customers, Invoices, PaymentLinks:
		return Kind(s), true
	}
	return "", false
}

// Document statuses.
const (
	StatusActive    = "active"
	StatusDraft     = "draft"
	StatusIssued    = "issued"
	StatusCancelled = "cancelled"
	StatusArchived  = "archived"
)

// InitialStatus is the status a kind is created in.
func InitialStatus(k Kind) string {
	if k == Customers {
		return StatusActive
	}
	return StatusDraft
}

// Editable reports whether a document in this status accepts PATCH.
func Editable(k Kind, status string) bool {
	switch k {
	case Invoices:
		return status == StatusDraft
	case PaymentLinks:
		return status == StatusDraft || status == StatusActive
	}
	return status == StatusActive
}

// Transition is a lifecycle command: the statuses it leaves and the one it produces.
type Transition struct {
	Kind   Kind
	Action string
	From   []string
	To     string
}

// Transitions lists the released lifecycle commands.
var Transitions = []Transition{
	{Invoices, "issue", []string{StatusDraft}, StatusIssued},
	{Invoices, "cancel", []string{StatusDraft, StatusIssued}, StatusCancelled},
	{PaymentLinks, "publish", []string{StatusDraft}, StatusActive},
	{PaymentLinks, "archive", []string{StatusActive}, StatusArchived},
}

// Open reports whether a document in this status takes payments: an issued invoice, an active
// payment link. Closing one (cancel, archive) closes its door: no payment of it newly
// completes (its pending intents are cancelled at lock and approve).
func Open(k Kind, status string) bool {
	return (k == Invoices && status == StatusIssued) || (k == PaymentLinks && status == StatusActive)
}

// FindTransition returns the command for a kind and action.
func FindTransition(k Kind, action string) (Transition, bool) {
	for _, t := range Transitions {
		if t.Kind == k && t.Action == action {
			return t, true
		}
	}
	return Transition{}, false
}

// HistoryWindow is how many history entries a record carries: the latest ones in get, list,
// create and edit responses, or one page of older ones (get with history_cursor).
const HistoryWindow = 20

// HistoryEntry is one version of a document.
type HistoryEntry struct {
	Version    int64     `json:"version"`
	Status     string    `json:"status"`
	OccurredAt time.Time `json:"occurred_at"`
	Action     string    `json:"action"`
}

// PaymentRef is a payment intent of the document that reached a terminal status: its state
// (COMPLETED, FAILED, CANCELLED, EXPIRED), amount and when. Stored with one-letter names: the
// document item is rewritten at every version and outcome, so their bytes count.
type PaymentRef struct {
	IntentID    string    `json:"intent_id" dynamodbav:"i"`
	State       string    `json:"state" dynamodbav:"s"`
	AmountMinor int64     `json:"amount_minor" dynamodbav:"a"`
	OccurredAt  time.Time `json:"occurred_at" dynamodbav:"t"`
	// AfterClose is true for a payment that completed after the document was closed
	// (cancelled or archived): an approve already under way when the merchant closed it. Its
	// amount is in PaidAfterCloseMinor, not PaidMinor.
	AfterClose bool `json:"after_close,omitempty" dynamodbav:"c,omitempty"`
}

// PaymentsWindow is how many payments a record carries: the latest ones, oldest first (GET
// /v1/payment-intents?document_id= lists them all).
const PaymentsWindow = 10

// Record is a stored document, in the spec's record shape.
type Record struct {
	ID          string           `json:"id"`
	WorkspaceID string           `json:"workspace_id"`
	Environment auth.Environment `json:"environment"`
	Kind        Kind             `json:"kind"`
	Reference   string           `json:"reference"`
	Status      string           `json:"status"`
	Version     int64            `json:"version"`
	Body        json.RawMessage  `json:"body"`
	AmountMinor *int64           `json:"amount_minor"`
	PaidMinor   int64            `json:"paid_minor"`
	// PaidAfterCloseMinor is what payments that completed after the document was closed
	// collected (see PaymentRef.AfterClose): money the merchant received on a cancelled
	// invoice or an archived link, to refund or account for. Omitted when 0.
	PaidAfterCloseMinor int64 `json:"paid_after_close_minor,omitempty"`
	// RefundedMinor is what was returned to payers of the document's payments: the sum of
	// their RETURNED refunds (an invoice's payment, or each of a payment link's). The refund
	// workflow counts each refund on the document once (package refund's follow-up); 0 for a
	// customer, and for a document none of whose payments was refunded.
	RefundedMinor int64     `json:"refunded_minor"`
	CustomerID    *string   `json:"customer_id"`
	PublicToken   string    `json:"public_token,omitempty"`
	CreatedAt     time.Time `json:"created_at"`
	UpdatedAt     time.Time `json:"updated_at"`
	// History is a window of at most HistoryWindow consecutive versions, oldest first: the
	// latest ones, or a page of older ones. Older entries are stored apart from the record.
	History []HistoryEntry `json:"history"`
	// HistoryNextCursor is the version of History's first entry when older entries exist
	// (pass it as history_cursor), else null. SetHistory keeps it in step with History.
	HistoryNextCursor *string      `json:"history_next_cursor"`
	Payments          []PaymentRef `json:"payments"`
	// SearchText is the lower-cased text q matches (not sent).
	SearchText string `json:"-"`
	// LastEdit is the edit that produced the current version, if the current version is an
	// edit (not sent). The store keeps it in the record until the next version is written.
	LastEdit *AppliedEdit `json:"-"`
	// EditKeysUntil is when every applied edit key kept outside the record has expired
	// (zero: none is kept outside); until then a key other than LastEdit's may be applied.
	EditKeysUntil time.Time `json:"-"`
	// LiveIntentID is an invoice's live payment intent from its public page (not sent): at
	// most one at a time, until LiveIntentExpires, unless it ends first.
	LiveIntentID      string    `json:"-"`
	LiveIntentExpires time.Time `json:"-"`
	// A payment link's uses (not sent): UsesCounted are its completed payments (and, from
	// before holds, uses taken by intents that have not ended); Holds are the uses its pending
	// intents hold, by intent id, each until a time (package intent decides; an expired hold
	// is no use at all); HoldsVersion changes with every new hold.
	UsesCounted  int64              `json:"-"`
	Holds        map[string]UseHold `json:"-"`
	HoldsVersion int64              `json:"-"`
	// content is Body decoded (or why it does not decode): set once where the store reads
	// the record (Decode) or the service writes it, read through Content.
	content    *Body
	contentErr error
}

// Decode decodes the stored Body into its typed form, once: the store calls it where it reads
// a record, so every reader (pricing, the public page, the dashboard) shares the result
// through Content. A body that no longer decodes is kept as Content's error (the record stays
// readable: the API still shows it).
func (r *Record) Decode() {
	r.content, r.contentErr = DecodeStored(r.Body)
	if r.contentErr != nil {
		r.contentErr = fmt.Errorf("document: stored %s %s has an invalid body: %w", r.Kind, r.ID, r.contentErr)
	}
}

// Content is the record's decoded body (see Decode). A record the store did not read (built
// by hand) is decoded on first use. An error means the stored body is inconsistent: an
// internal error, never the client's.
func (r *Record) Content() (*Body, error) {
	if r.content == nil && r.contentErr == nil {
		r.Decode()
	}
	return r.content, r.contentErr
}

// setContent sets Body and its decoded form together (a create or an edit): the body as
// stored, without expected_version (a control member that is never stored).
func (r *Record) setContent(b *Body) {
	stored := *b
	stored.ExpectedVersion = nil
	r.Body, r.content, r.contentErr = stored.Canonical(), &stored, nil
}

// UseHold is one use of a payment link held by a pending intent: until when, and by which
// client (an opaque key of the payer's address; "" for the merchant's API).
type UseHold struct {
	Until  time.Time
	Client string
}

// PublicPath is the path of a document's public page, where a payer opens it: the base URL
// of the API before it makes the public link the dashboard shows, shares and encodes as a QR
// code (public_token is base64url, so it needs no escaping).
func PublicPath(token string) string { return "/v1/public/documents/" + token }

// Outstanding is what an invoice has left to collect, max(total − paid, 0); ok is false when
// there is no such figure: a payment link (paid again and again, each time its price) or an
// invoice without an amount.
func (r *Record) Outstanding() (minor int64, ok bool) {
	if r.Kind != Invoices || r.AmountMinor == nil {
		return 0, false
	}
	return max(*r.AmountMinor-r.PaidMinor, 0), true
}

// AppliedEdit is an edit applied under an Idempotency-Key.
type AppliedEdit struct {
	Key         string
	RequestHash string
	// Version is the version the edit produced.
	Version   int64
	AppliedAt time.Time
}

// SetHistory sets History to entries (consecutive versions, oldest first) and
// HistoryNextCursor to the first entry's version when it is not version 1.
func (r *Record) SetHistory(entries []HistoryEntry) {
	r.History = entries
	r.HistoryNextCursor = nil
	if len(entries) > 0 && entries[0].Version > 1 {
		c := strconv.FormatInt(entries[0].Version, 10)
		r.HistoryNextCursor = &c
	}
}

// withEntry returns the latest HistoryWindow entries of h followed by e (h is not changed).
func withEntry(h []HistoryEntry, e HistoryEntry) []HistoryEntry {
	out := append(append(make([]HistoryEntry, 0, len(h)+1), h...), e)
	if len(out) > HistoryWindow {
		out = out[len(out)-HistoryWindow:]
	}
	return out
}

// ListQuery selects one page of a listing.
type ListQuery struct {
	WorkspaceID string
	Environment auth.Environment
	Kind        Kind
	// Cursor is the id of the last record of the previous page ("" for the first page).
	Cursor string
	// Q is the lower-cased search text ("" for none).
	Q     string
	Limit int
}

// Errors a Store returns.
var (
	ErrNotFound         = errors.New("document not found")
	ErrIdempotencyReuse = errors.New("idempotency key reused with a different request")
	ErrConflict         = errors.New("document changed concurrently")
)

// Store persists documents.
type Store interface {
	// CreateDocument stores rec under the create Idempotency-Key (with the request hash). A
	// retry with the same key and hash returns the first record and replay=true; a different
	// hash returns ErrIdempotencyReuse.
	CreateDocument(ctx context.Context, key, hash string, rec *Record) (stored *Record, replay bool, err error)
	// GetDocument returns ErrNotFound when absent.
	GetDocument(ctx context.Context, ws string, env auth.Environment, kind Kind, id string) (*Record, error)
	// UpdateDocument writes next (version cur.Version+1, read as cur) only if the stored
	// version is still cur.Version; else ErrConflict. edit is the applied edit (nil for a
	// lifecycle command). What the record stops holding — history entries before
	// next.History's first, and cur.LastEdit — is stored apart first, so nothing is lost if
	// the record's write fails or never happens.
	UpdateDocument(ctx context.Context, cur, next *Record, edit *AppliedEdit) error
	// FindEdit returns the edit applied under key as of cur (the record just read), or nil
	// when the key has not been applied or its retention has passed. It reads only when the
	// key may have been moved out of the record.
	FindEdit(ctx context.Context, cur *Record, key string) (*AppliedEdit, error)
	// History returns rec's history entries from version from to version to (inclusive),
	// oldest first, from the entries stored apart from the record (those before rec.History).
	History(ctx context.Context, rec *Record, from, to int64) ([]HistoryEntry, error)
	// ListDocuments returns a page, newest first, and the next cursor ("" when none).
	ListDocuments(ctx context.Context, q ListQuery) ([]*Record, string, error)
	// Deliveries returns the webhook deliveries of these payment intents (those with a
	// webhook_url and an event), in one read.
	Deliveries(ctx context.Context, intentIDs []string) ([]Delivery, error)
	// ListCustomerInvoices pages through the invoices linked to a customer, newest first.
	ListCustomerInvoices(ctx context.Context, customerID string, q ListQuery) ([]*Record, string, error)
}
