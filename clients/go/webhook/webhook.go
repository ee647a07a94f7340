// Package webhook verifies Takapay's signed payment alerts (Standard Webhooks) in one call.
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
// event; anything wrong is a *Error. opts is at most one Options.
func Verify(secret string, header http.Header, body []byte, opts ...Options) (*takapay.WebhookPayload, error) {
	return VerifyHeaders(secret, header.Get("webhook-id"), header.Get("webhook-timestamp"), header.Get("webhook-signature"), body, opts...)
}

// VerifyHeaders is Verify with the three header values given one by one.
func VerifyHeaders(secret, id, timestamp, signature string, body []byte, opts ...Options) (*takapay.WebhookPayload, error) {
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
		return nil, err
	}
	if id == "" || timestamp == "" || signature == "" {
		return nil, fail(MissingHeader, "webhook-id, webhook-timestamp and webhook-signature are all required")
	}
	ts, err := strconv.ParseInt(timestamp, 10, 64)
	if err != nil {
		return nil, fail(InvalidTimestamp, "webhook-timestamp %q is not Unix seconds", timestamp)
	}
	now := o.Now()
	at := time.Unix(ts, 0)
	if now.Sub(at) > o.Tolerance {
		return nil, fail(TimestampTooOld, "timestamp %s is more than %s before now", at.UTC().Format(time.RFC3339), o.Tolerance)
	}
	if at.Sub(now) > o.Tolerance {
		return nil, fail(TimestampTooNew, "timestamp %s is more than %s after now", at.UTC().Format(time.RFC3339), o.Tolerance)
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
		return nil, fail(NoMatchingSig, "no v1 signature matches the body")
	}
	var ev takapay.WebhookPayload
	dec := json.NewDecoder(bytes.NewReader(body))
	if err := dec.Decode(&ev); err != nil {
		return nil, fail(InvalidPayload, "the body is not an event: %v", err)
	}
	return &ev, nil
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
