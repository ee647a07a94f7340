package operator

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"

	"github.com/takapay/payments/shared/auth"
	"github.com/takapay/payments/shared/aws/dynamo"
	"github.com/takapay/payments/shared/payment"
	"github.com/takapay/payments/shared/webhook"
)

// WebhookDelivery is a payment's webhook event, or one of its refunds' (RefundID set), and
// what became of it.
type WebhookDelivery struct {
	InvoiceID string
	RefundID  string
	payment.Delivery
	// PriorAttempts is how many attempts the event made before operators resent it (Attempts
	// counts from the latest resend).
	PriorAttempts int
}

// WebhookDeliveries returns the webhook event of a payment (payment intent): none while it is
// PENDING or when it needs no event (no webhook_url and no document), else its one event —
// a payment records one event, that of its terminal status — and then its refunds' events
// (decision 116), oldest refund first. One strongly consistent GetItem, and one more per
// refund the payment's ledger names (refund_claims).
func (o *Operator) WebhookDeliveries(ctx context.Context, invoiceID string) ([]WebhookDelivery, error) {
	p, prior, err := o.Store.WebhookDelivery(ctx, invoiceID)
	if err != nil {
		return nil, err
	}
	if p == nil {
		return nil, fmt.Errorf("payment %s: %w", invoiceID, dynamo.ErrNotFound)
	}
	out := []WebhookDelivery{}
	if p.Outbox != nil {
		out = append(out, WebhookDelivery{InvoiceID: p.InvoiceID, Delivery: *p.Outbox, PriorAttempts: prior})
	}
	return o.refundDeliveries(ctx, p, out)
}

// refundDeliveries appends the events of p's refunds (the ids its refund ledger names; uuid v7,
// so sorted oldest first).
func (o *Operator) refundDeliveries(ctx context.Context, p *payment.Payment, out []WebhookDelivery) ([]WebhookDelivery, error) {
	l, err := o.Store.RefundPayment(ctx, p.InvoiceID)
	if err != nil || l == nil {
		return out, err
	}
	ids := slices.Sorted(maps.Keys(l.Claims))
	for _, id := range ids {
		r, err := o.Store.GetRefund(ctx, p.WorkspaceID, p.Environment, id)
		if err != nil {
			return nil, err
		}
		if r == nil {
			continue
		}
		for _, e := range r.Events {
			out = append(out, WebhookDelivery{InvoiceID: p.InvoiceID, RefundID: r.ID, Delivery: e})
		}
	}
	return out, nil
}

// ErrNotResendable means the event cannot be resent as it is; the error says why.
var ErrNotResendable = webhook.ErrNotResendable

// ResentWebhook is the outcome of a resend: the event as it was, and as it is now (pending,
// due now, enqueued).
type ResentWebhook = webhook.Resent

// ResendWebhook sends a payment's recorded event again with webhook.Resend (the one rule the
// dashboard's Resend button runs too), as "an operator"; a missing payment wraps
// dynamo.ErrNotFound.
func (o *Operator) ResendWebhook(ctx context.Context, invoiceID, eventID string) (*ResentWebhook, error) {
	r, err := webhook.Resend(ctx, o.Store, o.Queue, invoiceID, eventID, "an operator", o.now())
	if errors.Is(err, webhook.ErrNoPayment) {
		return nil, fmt.Errorf("payment %s: %w", invoiceID, dynamo.ErrNotFound)
	}
	return r, err
}

// TestEventType is the type of the event TestWebhook sends (webhook.TestEventType).
const TestEventType = webhook.TestEventType

// WebhookTestResult is what a test delivery got back.
type WebhookTestResult = webhook.TestResult

// TestWebhook sends a signed webhook.test event to rawURL and reports the answer, by the one
// rule of test events (webhook.Tester.Send): the URL checked with o.URLs' webhook rules (an
// error wrapping the *urlcheck.RuleError when refused), signed by every active secret of the
// workspace environment (opened with o.Sealer — on AWS that is kms:Decrypt), posted with
// o.Client (default webhook.NewClient: the SSRF-safe dialer, no redirects, 10 s timeout). An
// answer other than 2xx is a result, not an error; no answer at all is an error, naming the
// receiver's host but not the URL's path or query.
func (o *Operator) TestWebhook(ctx context.Context, workspaceID string, env auth.Environment, rawURL string) (*WebhookTestResult, error) {
	t := &webhook.Tester{URLs: o.URLs, Client: o.Client, Now: o.Now,
		Secrets: (&webhook.Keyring{Store: o.Store, Sealer: o.Sealer, TTL: -1}).Secrets}
	if err := t.CheckURL(rawURL); err != nil {
		return nil, err
	}
	ws, err := o.webhookScope(ctx, workspaceID, env)
	if err != nil {
		return nil, err
	}
	res, err := t.Send(ctx, ws, env, rawURL)
	if errors.Is(err, webhook.ErrNoSecret) {
		return nil, fmt.Errorf("%w: paymentsctl webhook secret issue --workspace %s --env %s", ErrNoWebhookSecret, ws, env)
	}
	return res, err
}
