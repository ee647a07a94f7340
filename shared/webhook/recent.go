package webhook

import (
	"cmp"
	"context"
	"slices"

	"github.com/takapay/payments/shared/auth"
	"github.com/takapay/payments/shared/intent"
	"github.com/takapay/payments/shared/payment"
	"github.com/takapay/payments/shared/refund"
)

// IntentLister is the intents list (package dynamo: GSI3, newest first) — the query behind
// the API's GET /v1/payment-intents.
type IntentLister interface {
	ListIntents(ctx context.Context, q intent.ListQuery) ([]intent.Stored, string, error)
}

// RecentDelivery is a payment's or a refund's webhook event as a list of deliveries shows it:
// InvoiceID is the payment (a refund's payment for a refund event), RefundID the refund ("" for
// a payment's event).
type RecentDelivery struct {
	InvoiceID string
	RefundID  string
	payment.Delivery
}

// RefundLister lists a workspace environment's refunds, newest first (package dynamo).
type RefundLister interface {
	ListRefunds(ctx context.Context, workspaceID string, env auth.Environment, cursor string, limit int, keep func(*refund.Refund) bool) ([]*refund.Refund, string, error)
}

// RecentDeliveryRefunds is how many of the latest refunds RecentRefundDeliveries looks at
// (one Query).
const RecentDeliveryRefunds = 50

// RecentRefundDeliveries returns the webhook events of the latest RecentDeliveryRefunds refunds
// of a workspace environment, in SortDeliveries' order.
func RecentRefundDeliveries(ctx context.Context, l RefundLister, workspaceID string, env auth.Environment) ([]RecentDelivery, error) {
	list, _, err := l.ListRefunds(ctx, workspaceID, env, "", RecentDeliveryRefunds, func(r *refund.Refund) bool { return len(r.Events) > 0 })
	if err != nil {
		return nil, err
	}
	var out []RecentDelivery
	for _, r := range list {
		for _, e := range r.Events {
			out = append(out, RecentDelivery{InvoiceID: r.PaymentID, RefundID: r.ID, Delivery: e})
		}
	}
	SortDeliveries(out)
	return out, nil
}

// SortDeliveries orders deliveries failures first — failed, then retrying, then not yet tried,
// then delivered — and newest first within each.
func SortDeliveries(out []RecentDelivery) {
	slices.SortStableFunc(out, func(a, b RecentDelivery) int {
		if c := cmp.Compare(deliveryRank(a.Delivery), deliveryRank(b.Delivery)); c != 0 {
			return c
		}
		return b.CreatedAt.Compare(a.CreatedAt)
	})
}

// RecentDeliveryPayments is how many of the latest payments RecentDeliveries looks at: the
// intents list's first page of that size is one Query and one BatchGetItem (50 payments and
// at most 50 snapshots: 100 keys, one call).
const RecentDeliveryPayments = 50

// Failing reports whether a delivery is failing: failed for good, or pending after an
// attempt that did not deliver (retrying).
func Failing(d payment.Delivery) bool {
	return d.Status == payment.DeliveryFailed || (d.Status == payment.DeliveryPending && d.Attempts > 0)
}

// deliveryRank orders deliveries by urgency: failed, retrying, not yet tried, delivered.
func deliveryRank(d payment.Delivery) int {
	switch {
	case d.Status == payment.DeliveryFailed:
		return 0
	case Failing(d):
		return 1
	case d.Status == payment.DeliveryPending:
		return 2
	}
	return 3
}

// RecentDeliveries returns the webhook events of the latest RecentDeliveryPayments payments of
// a workspace environment (those that recorded one: a terminal payment with a webhook_url or a
// document), failures first — failed, then retrying, then not yet tried, then delivered — and
// newest first within each.
func RecentDeliveries(ctx context.Context, l IntentLister, workspaceID string, env auth.Environment) ([]RecentDelivery, error) {
	items, _, err := l.ListIntents(ctx, intent.ListQuery{WorkspaceID: workspaceID, Environment: env, Limit: RecentDeliveryPayments})
	if err != nil {
		return nil, err
	}
	var out []RecentDelivery
	for _, it := range items {
		if p := it.Payment; p != nil && p.Outbox != nil {
			out = append(out, RecentDelivery{InvoiceID: p.InvoiceID, Delivery: *p.Outbox})
		}
	}
	SortDeliveries(out)
	return out, nil
}
