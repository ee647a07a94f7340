// Package webhook signs webhook messages the Standard Webhooks way (https://www.standardwebhooks.com):
//
//	webhook-id:        the message id (stable across retries of one message)
//	webhook-timestamp: the attempt's time, in unix seconds
//	webhook-signature: "v1,<base64 HMAC-SHA256(secret, id + "." + timestamp + "." + body)>",
//	                   one per signing secret, separated by single spaces
//
// A secret is "whsec_" + standard base64 of 24 to 64 random bytes; the HMAC key is the
// decoded bytes. During a rotation every active secret signs, so a receiver holding either the
// old or the new secret accepts the message. Secrets are stored sealed (sealing.go): the
// table holds ciphertext bound to the workspace and environment, and only the sender opens it.
//
// Message ids must not contain "." (the signed content is "." separated); ours never do.
package webhook

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// Header names (lower case, as the specification writes them; http.Header canonicalizes).
const (
	HeaderID        = "webhook-id"
	HeaderTimestamp = "webhook-timestamp"
	HeaderSignature = "webhook-signature"
)

// SecretPrefix starts every secret's text form.
const SecretPrefix = "whsec_"

// Secret sizes in bytes: NewSecret makes SecretSize; ParseSecret accepts MinSecretSize to
// MaxSecretSize (the specification's range).
const (
	SecretSize    = 32
	MinSecretSize = 24
	MaxSecretSize = 64
)

// NewSecret returns a new random secret: "whsec_" + base64 of 32 random bytes.
func NewSecret() (string, error) {
	b := make([]byte, SecretSize)
	if _, err := rand.Read(b); err != nil {
		return "", err
	}
	return SecretPrefix + base64.StdEncoding.EncodeToString(b), nil
}

// ParseSecret decodes a secret's text form into the HMAC key. It requires the whsec_ prefix,
// standard (padded) base64 and 24 to 64 decoded bytes. Errors never echo the secret.
func ParseSecret(s string) ([]byte, error) {
	rest, ok := strings.CutPrefix(s, SecretPrefix)
	if !ok {
		return nil, errors.New("webhook secret must start with " + SecretPrefix)
	}
	key, err := base64.StdEncoding.Strict().DecodeString(rest)
	if err != nil {
		return nil, errors.New("webhook secret is not " + SecretPrefix + " + standard base64")
	}
	if len(key) < MinSecretSize || len(key) > MaxSecretSize {
		return nil, fmt.Errorf("webhook secret must decode to %d to %d bytes, not %d", MinSecretSize, MaxSecretSize, len(key))
	}
	return key, nil
}

// mac returns the raw HMAC-SHA256 of msgID.unixSeconds.body.
func mac(secret []byte, msgID string, unix int64, body []byte) []byte {
	h := hmac.New(sha256.New, secret)
	h.Write([]byte(msgID))
	h.Write([]byte{'.'})
	h.Write(strconv.AppendInt(nil, unix, 10))
	h.Write([]byte{'.'})
	h.Write(body)
	return h.Sum(nil)
}

// Sign returns "v1," + base64(HMAC-SHA256(secret, msgID + "." + unix seconds of ts + "." + body)).
func Sign(secret []byte, msgID string, ts time.Time, body []byte) string {
	return "v1," + base64.StdEncoding.EncodeToString(mac(secret, msgID, ts.Unix(), body))
}

// Headers returns the three Standard Webhooks headers for one delivery attempt, with one v1
// signature per secret (in the given order) separated by single spaces. secrets must not be
// empty: with none, webhook-signature is empty and every receiver rejects the message.
func Headers(secrets [][]byte, msgID string, ts time.Time, body []byte) map[string]string {
	sigs := make([]string, 0, len(secrets))
	for _, s := range secrets {
		sigs = append(sigs, Sign(s, msgID, ts, body))
	}
	return map[string]string{
		HeaderID:        msgID,
		HeaderTimestamp: strconv.FormatInt(ts.Unix(), 10),
		HeaderSignature: strings.Join(sigs, " "),
	}
}

// Secret is one signing secret of a workspace environment, as stored: sealed (see Sealer),
// never as text.
type Secret struct {
	ID string `json:"id"`
	// Sealed is the secret encrypted for its workspace environment. It is never encoded to
	// JSON, so it cannot leak into a listing or a log by accident.
	Sealed    Sealed    `json:"-"`
	CreatedAt time.Time `json:"created_at"`
	// ExpiresAt is nil for the current secret; a rotated-out secret signs until it.
	ExpiresAt *time.Time `json:"expires_at,omitempty"`
	// Unsealed marks a secret an older release stored as text: it never signs (treat it as
	// leaked) and the next rotation drops it. The text itself is never read into this type.
	Unsealed bool `json:"unsealed,omitempty"`
}

// Active reports whether the secret still signs at now.
func (s Secret) Active(now time.Time) bool {
	return s.ExpiresAt == nil || now.Before(*s.ExpiresAt)
}

// Secrets is a workspace environment's stored secret list.
type Secrets []Secret

// ActiveSecrets returns the secrets that still sign at now, in stored order: expired ones
// (kept until the next write prunes them) are treated as absent. Sign with these only.
func (l Secrets) ActiveSecrets(now time.Time) Secrets {
	var out Secrets
	for _, s := range l {
		if s.Active(now) {
			out = append(out, s)
		}
	}
	return out
}
