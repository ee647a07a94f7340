package webhook

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"time"

	"github.com/takapay/payments/shared/auth"
	"github.com/takapay/payments/shared/foundation/urlcheck"
)

// A test event is the one webhook a person sends on purpose, to check a receiver: `paymentsctl
// webhook test` and the dashboard's webhooks page both send it through Tester.Send, so both
// follow the sender's rules — the URL checked by urlcheck's webhook rules, posted with the
// SSRF-safe client (NewClient: resolved addresses checked, no proxy, no redirects, bounded
// timeout), signed by every active secret of the workspace environment (Standard Webhooks
// headers, Headers). A test event is never recorded and never retried.

// TestEventType is the type of a test event.
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

// TestResult is what a test delivery got back.
type TestResult struct {
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

// ErrNoSecret means the workspace environment has no active signing secret: there is nothing
// to sign a test event with.
var ErrNoSecret = errors.New("no active webhook secret")

// ErrURLRefused wraps a URL the webhook rules refuse (errors.As it to the *urlcheck.RuleError
// for the rule).
var ErrURLRefused = errors.New("webhook URL refused")

// ErrNotDelivered wraps a test event that got no HTTP answer (errors.As it to the *SendError
// for the host and the cause, e.g. ErrForbiddenAddress).
var ErrNotDelivered = errors.New("test event not delivered")

// Tester sends test events the sender's way.
type Tester struct {
	// Secrets are the signing keys (a Keyring's Secrets; the sealed secrets are opened there).
	Secrets SecretSource
	// URLs is the webhook URL policy: the sender's (the zero value is production's).
	URLs urlcheck.Policy
	// Client posts the event (nil: NewClient with URLs' localhost setting and DefaultTimeout,
	// as the sender's).
	Client *http.Client
	Now    func() time.Time
}

// CheckURL is a test event's URL rule: the sender's, urlcheck's webhook rules (an error
// wrapping ErrURLRefused and the *urlcheck.RuleError).
func (t *Tester) CheckURL(rawURL string) error {
	if err := t.URLs.CheckWebhook(rawURL); err != nil {
		return fmt.Errorf("%w: %w", ErrURLRefused, err)
	}
	return nil
}

// Send sends a signed webhook.test event about workspaceID's env to rawURL and reports the
// answer. A refused URL (checked before anything is read) wraps ErrURLRefused; no active
// secret is ErrNoSecret; an answer other than 2xx is a result, not an error; no answer at all
// wraps ErrNotDelivered and a *SendError naming the receiver's host, never the URL's path or
// query (Post).
func (t *Tester) Send(ctx context.Context, workspaceID string, env auth.Environment, rawURL string) (*TestResult, error) {
	if err := t.CheckURL(rawURL); err != nil {
		return nil, err
	}
	now := time.Now().UTC()
	if t.Now != nil {
		now = t.Now().UTC()
	}
	keys, err := t.Secrets(ctx, workspaceID, env, now)
	if err != nil {
		return nil, err
	}
	if len(keys) == 0 {
		return nil, ErrNoSecret
	}
	id, err := NewTestEventID()
	if err != nil {
		return nil, err
	}
	body, err := json.Marshal(TestPayload{ID: id, Type: TestEventType, Timestamp: now,
		Data: TestPayloadData{WorkspaceID: workspaceID, Environment: env}})
	if err != nil {
		return nil, err
	}
	client := t.Client
	if client == nil {
		client = NewClient(ClientOptions{AllowLocalhost: t.URLs.AllowLocalhost})
	}
	start := time.Now()
	code, err := Post(ctx, client, t.URLs, rawURL, Headers(keys, id, now, body), body)
	latency := time.Since(start)
	if err != nil {
		return nil, fmt.Errorf("%w: %s after %s: %w", ErrNotDelivered, id, latency.Round(time.Millisecond), err)
	}
	host := ""
	if u, err := url.Parse(rawURL); err == nil {
		host = u.Host
	}
	return &TestResult{EventID: id, Host: host, Signatures: len(keys), HTTPStatus: code, Latency: latency}, nil
}
