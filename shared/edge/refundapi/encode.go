package refundapi

import (
	"time"

	"github.com/takapay/payments/shared/refund"
)

// View is the Refund resource as the contract shows it (components.schemas.Refund).
type View struct {
	ID                string            `json:"id"`
	Object            string            `json:"object"`
	WorkspaceID       string            `json:"workspace_id"`
	Environment       string            `json:"environment"`
	PaymentID         string            `json:"payment_id"`
	AmountMinor       int64             `json:"amount_minor"`
	Currency          string            `json:"currency"`
	Status            refund.Status     `json:"status"`
	Reason            refund.Reason     `json:"reason"`
	Note              string            `json:"note,omitempty"`
	Reference         string            `json:"reference,omitempty"`
	Metadata          map[string]string `json:"metadata,omitempty"`
	RequestedBy       refund.Requester  `json:"requested_by"`
	DueBy             *time.Time        `json:"due_by,omitempty"`
	Overdue           bool              `json:"overdue,omitempty"`
	ProviderReference string            `json:"provider_reference,omitempty"`
	ReturnedAt        *time.Time        `json:"returned_at,omitempty"`
	RejectionReason   string            `json:"rejection_reason,omitempty"`
	History           []HistoryView     `json:"history"`
	Version           int64             `json:"version"`
	CreatedAt         time.Time         `json:"created_at"`
	UpdatedAt         time.Time         `json:"updated_at"`
}

// HistoryView is one history entry as shown.
type HistoryView struct {
	Status refund.Status `json:"status"`
	At     time.Time     `json:"at"`
	By     string        `json:"by"`
	Note   string        `json:"note,omitempty"`
}

// ListView is a page of refunds (components.schemas.RefundList): next_cursor null on the last.
type ListView struct {
	Items      []View  `json:"items"`
	NextCursor *string `json:"next_cursor"`
}

// Encode is r as shown at now (overdue decided at now).
func Encode(r *refund.Refund, now time.Time) View {
	v := View{
		ID: r.ID, Object: "refund", WorkspaceID: r.WorkspaceID, Environment: string(r.Environment),
		PaymentID: r.PaymentID, AmountMinor: int64(r.AmountMinor), Currency: r.Currency, Status: r.Status,
		Reason: r.Reason, Note: r.Note, Reference: r.Reference, Metadata: r.Metadata, RequestedBy: r.RequestedBy,
		DueBy: utc(r.DueBy), Overdue: r.Overdue(now), ProviderReference: r.ProviderReference,
		ReturnedAt: utc(r.ReturnedAt), RejectionReason: r.RejectionReason, Version: r.Version,
		CreatedAt: r.CreatedAt.UTC(), UpdatedAt: r.UpdatedAt.UTC(), History: make([]HistoryView, len(r.History)),
	}
	if len(v.Metadata) == 0 {
		v.Metadata = nil
	}
	for i, e := range r.History {
		v.History[i] = HistoryView{Status: e.Status, At: e.At.UTC(), By: e.By, Note: e.Note}
	}
	return v
}

// EncodeList is a page as shown at now.
func EncodeList(p refund.Page, now time.Time) ListView {
	out := ListView{Items: make([]View, 0, len(p.Refunds))}
	for _, r := range p.Refunds {
		out.Items = append(out.Items, Encode(r, now))
	}
	if p.NextCursor != "" {
		c := p.NextCursor
		out.NextCursor = &c
	}
	return out
}

func utc(t *time.Time) *time.Time {
	if t == nil {
		return nil
	}
	u := t.UTC()
	return &u
}

func (a *API) now() time.Time {
	if a.Refunds.Now != nil {
		return a.Refunds.Now()
	}
	return time.Now()
}
