package operator

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"time"

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

// TestEventType is the type of the event WebhookTest sends.
const TestEventType = "webhook.test"

// TestPayload is the body of a test event: the Standard Webhooks shape of real events, with
// the workspace environment as its data.
type TestPayload struct {
	ID        string          `json:"id"`
	Type      string          `json:"type"`
	Timestamp time.Time       `json:"timestamp"`
	Data      TestPayloadData `json:"data"`
}

// TestPayloadData names the workspace environment whose secrets signed the test event.
type TestPayloadData struct {
	WorkspaceID string           `json:"workspace_id"`
	Environment auth.Environment `json:"environment"`
}

// WebhookTestResult is what a test delivery got back.
type WebhookTestResult struct {
	EventID string
	// Host is the receiver's host (and port): never the URL's path or query, which may hold
	// the merchant's secret token.
	Host       string
	Signatures int // one per active secret
	HTTPStatus int
	Latency    time.Duration
}

// NewTestEventID returns "evt_test_" + 24 hex digits (96 random bits).
func NewTestEventID() (string, error) {
	var b [12]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", err
	}
	return "evt_test_" + hex.EncodeToString(b[:]), nil
}

// TestWebhook sends a signed webhook.test event to rawURL and reports the answer: signed
// exactly as the sender signs real events (Standard Webhooks headers, one signature per active
// secret of the workspace environment, opened with o.Sealer — on AWS that is kms:Decrypt), and
// sent the sender's way: the URL checked with o.URLs' webhook rules (a *urlcheck.RuleError when
// refused), then posted with o.Client (default webhook.NewClient: the SSRF-safe dialer, no
// redirects, 10 s timeout). An answer other than 2xx is a result, not an error; no answer at
// all is an error, naming the receiver's host but not the URL's path or query (webhook.Post).
func (o *Operator) TestWebhook(ctx context.Context, workspaceID string, env auth.Environment, rawURL string) (*WebhookTestResult, error) {
	policy := o.URLs
	if err := policy.CheckWebhook(rawURL); err != nil {
		return nil, fmt.Errorf("webhook URL refused: %w", err)
	}
	ws, err := o.webhookScope(ctx, workspaceID, env)
	if err != nil {
		return nil, err
	}
	now := o.now()
	keys, err := (&webhook.Keyring{Store: o.Store, Sealer: o.Sealer, TTL: -1}).Secrets(ctx, ws, env, now)
	if err != nil {
		return nil, err
	}
	if len(keys) == 0 {
		return nil, fmt.Errorf("%w: paymentsctl webhook secret issue --workspace %s --env %s", ErrNoWebhookSecret, ws, env)
	}
	id, err := NewTestEventID()
	if err != nil {
		return nil, err
	}
	body, err := json.Marshal(TestPayload{ID: id, Type: TestEventType, Timestamp: now,
		Data: TestPayloadData{WorkspaceID: ws, Environment: env}})
	if err != nil {
		return nil, err
	}
	client := o.Client
	if client == nil {
		client = webhook.NewClient(webhook.ClientOptions{AllowLocalhost: policy.AllowLocalhost})
	}
	start := time.Now()
	code, err := webhook.Post(ctx, client, policy, rawURL, webhook.Headers(keys, id, now, body), body)
	latency := time.Since(start)
	if err != nil {
		return nil, fmt.Errorf("test event %s not delivered after %s: %w", id, latency.Round(time.Millisecond), err)
	}
	host := ""
	if u, err := url.Parse(rawURL); err == nil {
		host = u.Host
	}
	return &WebhookTestResult{EventID: id, Host: host, Signatures: len(keys), HTTPStatus: code, Latency: latency}, nil
}
