// Package webhook verifies Takapay's signed events (Standard Webhooks) in one call: payment
// events with Verify, and any event, refund events (refund.*) too, with VerifyEvent.
//
//	event, err := webhook.Verify(secret, r.Header, body)
//	if err != nil { // a *webhook.Error: answer 400 and ignore the request
//	}
//
// A delivery carries webhook-id, webhook-timestamp (Unix seconds) and webhook-signature: one
// or more space-separated "v1,<base64 HMAC-SHA256 of id.timestamp.body>" (one per active
// secret while a secret is rolled). The secret is "whsec_<base64>". Verify accepts the
// delivery when ANY signature matches (compared in constant time) and the timestamp is within
// the tolerance of now, in either direction (default 5 minutes). Dedupe on event.Id (stable
// across retries) and call verify on the API before delivering goods.
package webhook

import (
	"bytes"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	takapay "github.com/takapay/payments/clients/go"
)

// DefaultTolerance is how far a delivery's timestamp may be from now.
const DefaultTolerance = 5 * time.Minute

// Code says why a delivery was rejected.
type Code string

const (
	MissingHeader    Code = "missing_header"
	InvalidSecret    Code = "invalid_secret"
	InvalidTimestamp Code = "invalid_timestamp"
	TimestampTooOld  Code = "timestamp_too_old"
	TimestampTooNew  Code = "timestamp_too_new"
	NoMatchingSig    Code = "no_matching_signature"
	InvalidPayload   Code = "invalid_payload"
)

// Error is a rejected delivery.
type Error struct {
	Code    Code
	Message string
}

func (e *Error) Error() string { return "takapay webhook: " + string(e.Code) + ": " + e.Message }

func fail(c Code, format string, a ...any) *Error {
	return &Error{Code: c, Message: fmt.Sprintf(format, a...)}
}

// Options adjust Verify; the zero value is the defaults.
type Options struct {
	// Tolerance is how far the timestamp may be from now, either way (default 5 minutes).
	Tolerance time.Duration
	// Now is the clock (default time.Now).
	Now func() time.Time
}

// Verify checks a delivery's headers and raw body with the secret (whsec_…) and returns the
// event as a payment event; anything wrong is a *Error. opts is at most one Options. A
// webhook_url that also receives refund events (refund.*) uses VerifyEvent, which tells them
// apart.
func Verify(secret string, header http.Header, body []byte, opts ...Options) (*takapay.WebhookPayload, error) {
	return VerifyHeaders(secret, header.Get("webhook-id"), header.Get("webhook-timestamp"), header.Get("webhook-signature"), body, opts...)
}

// VerifyHeaders is Verify with the three header values given one by one.
func VerifyHeaders(secret, id, timestamp, signature string, body []byte, opts ...Options) (*takapay.WebhookPayload, error) {
	if err := verifySignature(secret, id, timestamp, signature, body, opts); err != nil {
		return nil, err
	}
	var ev takapay.WebhookPayload
	if err := json.NewDecoder(bytes.NewReader(body)).Decode(&ev); err != nil {
		return nil, fail(InvalidPayload, "the body is not an event: %v", err)
	}
	return &ev, nil
}

// Event is a verified delivery of any type: a payment event (payment.completed, …) or a
// refund event (refund.requested, refund.in_review, refund.approved, refund.rejected,
// refund.returned, refund.cancelled). Payment and Refund decode its data.
type Event struct {
	// Id is the event id (also webhook-id, stable across retries: dedupe on it).
	Id        string    `json:"id"`
	Type      string    `json:"type"`
	Timestamp time.Time `json:"timestamp"`
	// Data is the event's data as sent: the payment, or the refund.
	Data json.RawMessage `json:"data"`

	body []byte
}

// IsRefund reports whether the event is a refund event (its type starts with "refund.").
func (e *Event) IsRefund() bool { return strings.HasPrefix(e.Type, "refund.") }

// IsPayment reports whether the event is a payment event (its type starts with "payment.").
func (e *Event) IsPayment() bool { return strings.HasPrefix(e.Type, "payment.") }

// Payment is a payment event, typed (an error for any other event).
func (e *Event) Payment() (*takapay.WebhookPayload, error) {
	if !e.IsPayment() {
		return nil, fmt.Errorf("takapay webhook: %s is not a payment event", e.Type)
	}
	var p takapay.WebhookPayload
	if err := json.Unmarshal(e.body, &p); err != nil {
		return nil, fail(InvalidPayload, "the body is not a payment event: %v", err)
	}
	return &p, nil
}

// Refund is a refund event, typed: its Data is the refund as it is after the step the event
// names (an error for any other event).
func (e *Event) Refund() (*takapay.RefundWebhookPayload, error) {
	if !e.IsRefund() {
		return nil, fmt.Errorf("takapay webhook: %s is not a refund event", e.Type)
	}
	var r takapay.RefundWebhookPayload
	if err := json.Unmarshal(e.body, &r); err != nil {
		return nil, fail(InvalidPayload, "the body is not a refund event: %v", err)
	}
	return &r, nil
}

// VerifyEvent checks a delivery as Verify does and returns it as an Event of any type.
func VerifyEvent(secret string, header http.Header, body []byte, opts ...Options) (*Event, error) {
	if err := verifySignature(secret, header.Get("webhook-id"), header.Get("webhook-timestamp"), header.Get("webhook-signature"), body, opts); err != nil {
		return nil, err
	}
	var ev Event
	if err := json.Unmarshal(body, &ev); err != nil || ev.Type == "" {
		return nil, fail(InvalidPayload, "the body is not an event: %v", err)
	}
	ev.body = append([]byte(nil), body...)
	return &ev, nil
}

// verifySignature checks the headers and the signature of body (the work of Verify before decoding).
func verifySignature(secret, id, timestamp, signature string, body []byte, opts []Options) error {
	var o Options
	if len(opts) > 0 {
		o = opts[0]
	}
	if o.Tolerance <= 0 {
		o.Tolerance = DefaultTolerance
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	key, err := decodeSecret(secret)
	if err != nil {
		return err
	}
	if id == "" || timestamp == "" || signature == "" {
		return fail(MissingHeader, "webhook-id, webhook-timestamp and webhook-signature are all required")
	}
	ts, err := strconv.ParseInt(timestamp, 10, 64)
	if err != nil {
		return fail(InvalidTimestamp, "webhook-timestamp %q is not Unix seconds", timestamp)
	}
	now := o.Now()
	at := time.Unix(ts, 0)
	if now.Sub(at) > o.Tolerance {
		return fail(TimestampTooOld, "timestamp %s is more than %s before now", at.UTC().Format(time.RFC3339), o.Tolerance)
	}
	if at.Sub(now) > o.Tolerance {
		return fail(TimestampTooNew, "timestamp %s is more than %s after now", at.UTC().Format(time.RFC3339), o.Tolerance)
	}
	want := Sign(key, id, timestamp, body)
	matched := false
	for _, s := range strings.Fields(signature) {
		version, sig, ok := strings.Cut(s, ",")
		if !ok || version != "v1" {
			continue
		}
		if hmac.Equal([]byte(sig), []byte(want)) {
			matched = true // keep going: the time taken does not say which one matched
		}
	}
	if !matched {
		return fail(NoMatchingSig, "no v1 signature matches the body")
	}
	return nil
}

// Sign is the base64 HMAC-SHA256 of id.timestamp.body with the secret's key (what follows
// "v1," in webhook-signature).
func Sign(key []byte, id, timestamp string, body []byte) string {
	m := hmac.New(sha256.New, key)
	m.Write([]byte(id + "." + timestamp + "."))
	m.Write(body)
	return base64.StdEncoding.EncodeToString(m.Sum(nil))
}

func decodeSecret(secret string) ([]byte, error) {
	b64, ok := strings.CutPrefix(secret, "whsec_")
	if !ok {
		return nil, fail(InvalidSecret, "the secret does not start with whsec_")
	}
	key, err := base64.StdEncoding.DecodeString(b64)
	if err != nil || len(key) == 0 {
		return nil, fail(InvalidSecret, "the secret is not whsec_<base64>")
	}
	return key, nil
}

// DecodeSecret is the key of a whsec_<base64> secret (for Sign).
func DecodeSecret(secret string) ([]byte, error) { return decodeSecret(secret) }
