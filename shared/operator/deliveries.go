package operator

import (
	"context"
	"errors"
	"fmt"

	"github.com/takapay/payments/shared/auth"
	"github.com/takapay/payments/shared/dynamo"
	"github.com/takapay/payments/shared/payment"
	"github.com/takapay/payments/shared/webhook"
)

// WebhookDelivery is a payment's webhook event and what became of it.
type WebhookDelivery struct {
	InvoiceID string
	payment.Delivery
	// PriorAttempts is how many attempts the event made before operators resent it (Attempts
	// counts from the latest resend).
	PriorAttempts int
}

// WebhookDeliveries returns the webhook event of a payment (payment intent): none while it is
// PENDING or when it needs no event (no webhook_url and no document), else its one event —
// a payment records one event, that of its terminal status. One strongly consistent GetItem.
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
	return out, nil
}

// ErrNotResendable means the event cannot be resent as it is; the error says why.
var ErrNotResendable = errors.New("cannot resend")

// ResentWebhook is the outcome of a resend: the event as it was, and as it is now (pending,
// due now, enqueued).
type ResentWebhook struct {
	InvoiceID string
	Before    payment.Delivery
	After     payment.Delivery
}

// ResendWebhook sends a payment's recorded event again: the same event id and payload (the
// sender builds it from the stored payment), signed with a fresh timestamp. The event must be
// the payment's (eventID guards against resending another than the one looked at). First one
// conditional UpdateItem makes it pending and due now (Store.ResendDelivery: a delivered or
// failed event starts a new attempt series; its earlier attempts are kept in PriorAttempts),
// then the message goes to o.Queue. A lost message is not lost work: the event sits pending in
// the re-drive's index, which re-enqueues it once it is overdue.
//
// A linked intent's delivered or failed event is refused until the re-drive has settled its
// document follow-up (which a pending event would hold back).
func (o *Operator) ResendWebhook(ctx context.Context, invoiceID, eventID string) (*ResentWebhook, error) {
	if o.Queue == nil {
		return nil, errors.New("no webhook queue to send the event to")
	}
	p, prior, err := o.Store.WebhookDelivery(ctx, invoiceID)
	if err != nil {
		return nil, err
	}
	if p == nil {
		return nil, fmt.Errorf("payment %s: %w", invoiceID, dynamo.ErrNotFound)
	}
	ob := p.Outbox
	switch {
	case ob == nil:
		return nil, fmt.Errorf("%w: payment %s has recorded no webhook event (status %s)", ErrNotResendable, invoiceID, p.Status)
	case ob.EventID != eventID:
		return nil, fmt.Errorf("%w: payment %s has no event %s (its event is %s)", ErrNotResendable, invoiceID, eventID, ob.EventID)
	case p.WebhookURL == "":
		return nil, fmt.Errorf("%w: payment %s has no webhook_url: there is nothing to send", ErrNotResendable, invoiceID)
	case p.Linked() && ob.Status != payment.DeliveryPending && !ob.Settled:
		return nil, fmt.Errorf("%w: the document follow-up of %s is not finished yet; the re-drive settles it within minutes, resend after that",
			ErrNotResendable, eventID)
	}
	now := o.now()
	detail := fmt.Sprintf("resent by an operator after %d attempts (was %s)", prior+ob.Attempts, ob.Status)
	if ob.Status != payment.DeliveryPending && ob.LastHTTPStatus != 0 {
		detail = fmt.Sprintf("resent by an operator after %d attempts (was %s, last HTTP %d)", prior+ob.Attempts, ob.Status, ob.LastHTTPStatus)
	}
	q, err := o.Store.ResendDelivery(ctx, invoiceID, ob, detail, now)
	if errors.Is(err, payment.ErrStateChanged) {
		return nil, fmt.Errorf("event %s changed meanwhile (now %s after %d attempts): look again (webhook deliveries) and retry",
			eventID, q.Outbox.Status, q.Outbox.Attempts)
	}
	if err != nil {
		return nil, err
	}
	if err := o.Queue.Enqueue(ctx, invoiceID, eventID); err != nil {
		return nil, fmt.Errorf("event %s is pending and due now, but the enqueue failed (the re-drive re-enqueues it once it is %s overdue): %w",
			eventID, webhook.DefaultOverdue, err)
	}
	return &ResentWebhook{InvoiceID: invoiceID, Before: *ob, After: *q.Outbox}, nil
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
