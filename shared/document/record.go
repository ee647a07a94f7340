// Package document is the document records of a workspace — customers, invoices and
// payment-links — with their validation, versioned edits, lifecycle and listing. Storage is
// behind the Store interface (package dynamo implements it).
package document

import (
	"context"
	"encoding/json"
	"errors"
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

// FindTransition returns the command for a kind and action.
func FindTransition(k Kind, action string) (Transition, bool) {
	for _, t := range Transitions {
		if t.Kind == k && t.Action == action {
			return t, true
		}
	}
	return Transition{}, false
}

// HistoryEntry is one version of a document.
type HistoryEntry struct {
	Version    int64     `json:"version" dynamodbav:"version"`
	Status     string    `json:"status" dynamodbav:"status"`
	OccurredAt time.Time `json:"occurred_at" dynamodbav:"occurred_at"`
	Action     string    `json:"action" dynamodbav:"action"`
}

// PaymentRef links a payment intent to the document (filled by payment intents later).
type PaymentRef struct {
	IntentID string `json:"intent_id" dynamodbav:"intent_id"`
	State    string `json:"state" dynamodbav:"state"`
}

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
	CustomerID  *string          `json:"customer_id"`
	PublicToken string           `json:"public_token,omitempty"`
	CreatedAt   time.Time        `json:"created_at"`
	UpdatedAt   time.Time        `json:"updated_at"`
	History     []HistoryEntry   `json:"history"`
	Payments    []PaymentRef     `json:"payments"`
	// SearchText is the lower-cased text q matches (not sent).
	SearchText string `json:"-"`
	// EditKeys maps each applied PATCH Idempotency-Key to "<request hash>:<version>" (not sent).
	EditKeys map[string]string `json:"-"`
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
	// UpdateDocument writes next (version prev+1) only if the stored version is still prev and
	// editKey (when not "") has not been applied; else ErrConflict.
	UpdateDocument(ctx context.Context, next *Record, prev int64, editKey, editValue string) error
	// ListDocuments returns a page, newest first, and the next cursor ("" when none).
	ListDocuments(ctx context.Context, q ListQuery) ([]*Record, string, error)
	// ListCustomerInvoices pages through the invoices linked to a customer, newest first.
	ListCustomerInvoices(ctx context.Context, customerID string, q ListQuery) ([]*Record, string, error)
}
