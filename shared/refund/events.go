package refund

import (
	"context"
	"log/slog"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/takapay/payments/shared/auth"
	"github.com/takapay/payments/shared/foundation/money"
	"github.com/takapay/payments/shared/foundation/obs"
	"github.com/takapay/payments/shared/payment"
)

// Webhook events of refunds (decision 116). Each status a refund reaches records one event —
// refund.requested, refund.in_review, refund.approved, refund.rejected, refund.returned,
// refund.cancelled — in the refund's own Events, in the same single-item write that changes the
// status (the create's write that makes it REQUESTED, each transition's), when the refund has
// a webhook_url (copied from its payment at create). After the write the event is enqueued;
// a lost enqueue leaves it pending in the store's sweep index, and the webhook re-drive sends it.

// EventKind names the webhook event of reaching s ("refund.requested", "refund.in_review", ...).
func EventKind(s Status) string { return "refund." + strings.ToLower(string(s)) }

// EventKinds lists every refund event type, in the workflow's order.
var EventKinds = []string{EventKind(Requested), EventKind(InReview), EventKind(Approved), EventKind(Rejected),
	EventKind(Returned), EventKind(Cancelled)}

// EventQueue hands a recorded refund event to the webhook delivery queue (package sqsqueue).
type EventQueue interface {
	EnqueueRefund(ctx context.Context, workspaceID string, env auth.Environment, refundID, eventID string) error
}

// recordEvent appends the event of r's status to r.Events (r has its own copy of the slice
// after) and returns it; nil when r has no webhook_url or its status shows no event.
func recordEvent(r *Refund, now time.Time) (*payment.Delivery, error) {
	if r.WebhookURL == "" || !r.Status.Shown() {
		return nil, nil
	}
	id, err := uuid.NewV7()
	if err != nil {
		return nil, err
	}
	d := payment.Delivery{EventID: id.String(), Kind: EventKind(r.Status), Status: payment.DeliveryPending,
		CreatedAt: now, NextAttemptAt: now}
	r.Events = append(append(make([]payment.Delivery, 0, len(r.Events)+1), r.Events...), d)
	return &d, nil
}

// Event returns r's event id (nil when it has none).
func (r *Refund) Event(id string) *payment.Delivery {
	for i := range r.Events {
		if r.Events[i].EventID == id {
			return &r.Events[i]
		}
	}
	return nil
}

// WakeAt is when the refund next needs the scheduled pass (ok false: never): its follow-up's
// time, or its earliest pending event's next attempt, whichever comes first. The store keeps
// the refund in its sweep index under this time (one index entry serves both, decision 116).
func (r *Refund) WakeAt() (at time.Time, ok bool) {
	if r.FollowUp != NoFollowUp {
		at, ok = r.FollowUpAt, true
	}
	for _, e := range r.Events {
		if e.Status == payment.DeliveryPending && (!ok || e.NextAttemptAt.Before(at)) {
			at, ok = e.NextAttemptAt, true
		}
	}
	return at, ok
}

// enqueueTimeout bounds the enqueue that follows a recorded event: the caller's answer never
// waits longer on the queue (payment.DefaultEnqueueTimeout).
const enqueueTimeout = payment.DefaultEnqueueTimeout

// emit enqueues a recorded event; a failure is logged, not returned: the event is in the
// refund, and the re-drive sends it once it is overdue.
func (s *Service) emit(ctx context.Context, r *Refund, d *payment.Delivery) {
	if d == nil || s.Events == nil {
		return
	}
	ctx, cancel := context.WithTimeout(ctx, enqueueTimeout)
	defer cancel()
	if err := s.Events.EnqueueRefund(ctx, r.WorkspaceID, r.Environment, r.ID, d.EventID); err != nil {
		obs.Annotate(ctx, slog.String("enqueue_error", err.Error()), slog.String("event_id", d.EventID))
	}
}

// Resource is the refund as the API shows it (the contract's components.schemas.Refund), and
// as its webhook events carry it in data: the one encoding of a refund. The internal statuses,
// follow-ups, webhook_url, events, request hash and document never appear.
type Resource struct {
	ID                string            `json:"id"`
	Object            string            `json:"object"`
	WorkspaceID       string            `json:"workspace_id"`
	Environment       auth.Environment  `json:"environment"`
	PaymentID         string            `json:"payment_id"`
	AmountMinor       money.Paisa       `json:"amount_minor"`
	Currency          string            `json:"currency"`
	Status            Status            `json:"status"`
	Reason            Reason            `json:"reason"`
	Note              string            `json:"note,omitempty"`
	Reference         string            `json:"reference,omitempty"`
	Metadata          map[string]string `json:"metadata,omitempty"`
	RequestedBy       Requester         `json:"requested_by"`
	PayerContact      string            `json:"payer_contact,omitempty"`
	DueBy             *time.Time        `json:"due_by,omitempty"`
	Overdue           bool              `json:"overdue,omitempty"`
	ProviderReference string            `json:"provider_reference,omitempty"`
	ReturnedAt        *time.Time        `json:"returned_at,omitempty"`
	RejectionReason   string            `json:"rejection_reason,omitempty"`
	History           []HistoryEntry    `json:"history"`
	Version           int64             `json:"version"`
	CreatedAt         time.Time         `json:"created_at"`
	UpdatedAt         time.Time         `json:"updated_at"`
}

// HistoryEntry is one step of a refund's history as the API shows it.
type HistoryEntry struct {
	Status Status    `json:"status"`
	At     time.Time `json:"at"`
	By     string    `json:"by"`
	Note   string    `json:"note,omitempty"`
}

// Object is the resource's "object" member.
const Object = "refund"

// Resource is r as the API shows it at now (overdue is decided at now).
func (r *Refund) Resource(now time.Time) Resource {
	md := r.Metadata
	if len(md) == 0 {
		md = nil
	}
	h := make([]HistoryEntry, len(r.History))
	for i, e := range r.History {
		h[i] = HistoryEntry{Status: e.Status, At: e.At.UTC(), By: e.By, Note: e.Note}
	}
	return Resource{ID: r.ID, Object: Object, WorkspaceID: r.WorkspaceID, Environment: r.Environment,
		PaymentID: r.PaymentID, AmountMinor: r.AmountMinor, Currency: r.Currency, Status: r.Status, Reason: r.Reason,
		Note: r.Note, Reference: r.Reference, Metadata: md, RequestedBy: r.RequestedBy, PayerContact: r.PayerContact,
		DueBy: utc(r.DueBy), Overdue: r.Overdue(now), ProviderReference: r.ProviderReference, ReturnedAt: utc(r.ReturnedAt),
		RejectionReason: r.RejectionReason, History: h, Version: r.Version, CreatedAt: r.CreatedAt.UTC(),
		UpdatedAt: r.UpdatedAt.UTC()}
}

func utc(t *time.Time) *time.Time {
	if t == nil {
		return nil
	}
	u := t.UTC()
	return &u
}
