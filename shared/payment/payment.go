// Package payment is the hosted payment: its record, the create and verify operations on
// typed values (Creator.Create, Verifier.Verify) and the rules every payment shares (the
// checkout token, the Idempotency-Key grammar, expiry, events). Storage is behind the Store
// interface (see package dynamo); parsing requests and encoding answers is the HTTP edge's
// (package paymentapi).
package payment

import (
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/google/uuid"

	"github.com/takapay/payments/shared/auth"
	"github.com/takapay/payments/shared/foundation/money"
)

// Status is a hosted payment's state.
type Status string

// Payment statuses. PENDING on creation; every other status is terminal and never changes
// again. COMPLETED is set only by the server-side outcome (in sandbox, the simulated
// provider), never by a redirect or anything a client says.
const (
	Pending   Status = "PENDING"
	Completed Status = "COMPLETED"
	Failed    Status = "FAILED"
	Cancelled Status = "CANCELLED"
	Expired   Status = "EXPIRED"
)

// Terminal reports whether a status is final.
func (s Status) Terminal() bool { return s != Pending }

// Expiry bounds: a payment expires DefaultExpiry after creation unless create asks for
// expires_in_minutes within [MinExpiry, MaxExpiry].
const (
	DefaultExpiry = 30 * time.Minute
	MinExpiry     = 5 * time.Minute
	MaxExpiry     = 24 * time.Hour
)

// Currency is the only currency of this release.
const Currency = "BDT"

// Payment is the stored hosted payment (the "invoice" of payment create and verify).
type Payment struct {
	InvoiceID     string
	WorkspaceID   string
	Environment   auth.Environment
	Status        Status
	AmountMinor   money.Paisa
	Currency      string
	Reference     string
	RedirectURL   string
	CancelURL     string
	WebhookURL    string
	CustomerName  string
	CustomerEmail string
	CustomerPhone string
	Metadata      string // compact JSON object, or ""
	// CheckoutHash is the SHA-256 of the checkout token's secret: the page compares it in
	// constant time. The token itself is never stored (TokenKey derives it again).
	CheckoutHash []byte
	// IdempotencyKey is the create's key (not stored: the invoice id is derived from it).
	IdempotencyKey string
	// RequestHash identifies the create's request body (32 hex digits, 128 bits).
	RequestHash     string
	CreatedAt       time.Time
	UpdatedAt       time.Time
	FirstVerifiedAt *time.Time
	// ExpiresAt is when a PENDING payment becomes EXPIRED.
	ExpiresAt time.Time
	// LockBy, when set, is when a PENDING payment that nobody has started paying (no route
	// locked) becomes EXPIRED, before ExpiresAt: an intent holding one of a payment link's
	// max_uses holds it that long unless its payer starts (UseHold). The lock clears it.
	LockBy *time.Time
	// MerchantName is the workspace's display name at creation (shown on the hosted page).
	MerchantName string
	// Locale is the language the merchant set for the payer's pages ("bn", "en"; "" for
	// auto). The checkout uses it after a payer's explicit ?lang= and before the browser's.
	Locale string
	// LockRoute and LockPayer are the payer's first (and only) route choice; LockedAt when.
	LockRoute string
	LockPayer string
	LockedAt  *time.Time
	// FinishedAt is when the payment reached its terminal status.
	FinishedAt *time.Time
	// Outbox is the webhook delivery of the terminal event, recorded in the same conditional
	// write as the state change (nil when the payment has no webhook_url or is not terminal).
	Outbox *Delivery
	// Source is where the amount came from: the zero value is a standalone payment (a client
	// amount); a payment intent priced from a document names it (package intent).
	Source Source
	// ReservedUse is true when the intent holds one of its payment link's max_uses. With
	// UseHeld (every intent since holds) the use is a hold on the link that ends by itself; the
	// document follow-up drops it and counts a COMPLETED one. Without (older intents) it was
	// counted at create and is released by the follow-up if it ends other than COMPLETED.
	ReservedUse bool
	UseHeld     bool
	// SnapshotKey names the immutable snapshot of the document a linked intent was priced
	// from ("" for a standalone payment). The snapshot is stored beside the payment, not in
	// it, so every later write of the payment stays small.
	SnapshotKey string
	// Refunded and Refundable are the payment's refund figures: what was returned to the
	// payer (its RETURNED refunds) and what may still be refunded (paid − promised for a
	// COMPLETED payment, 0 otherwise). The store sets them where it reads the item, from the
	// refund ledger on it, by refund.Ledger (their one home; this package cannot import it),
	// so verify and the intent resource show them at no extra read. Never written from here.
	Refunded, Refundable money.Paisa
}

// SourceKind says where a payment's amount came from.
type SourceKind string

// Source kinds: a client amount, or a document kind the server priced.
const (
	SourceStandalone   SourceKind = "standalone"
	SourceInvoice      SourceKind = "invoices"
	SourcePaymentLinks SourceKind = "payment-links"
)

// Source is a payment's origin: standalone, or the document (id, version, quantity) it was
// priced from. It never changes after creation.
type Source struct {
	Kind            SourceKind `json:"kind"`
	DocumentID      string     `json:"document_id,omitempty"`
	DocumentVersion int64      `json:"document_version,omitempty"`
	Quantity        int64      `json:"quantity,omitempty"`
}

// SourceOf returns the payment's source with its kind filled in (standalone when unset).
func (p *Payment) SourceOf() Source {
	s := p.Source
	if s.Kind == "" {
		s.Kind = SourceStandalone
	}
	return s
}

// Delivery states.
const (
	DeliveryPending   = "pending"
	DeliveryDelivered = "delivered"
	DeliveryFailed    = "failed"
)

// Delivery is one webhook event of a payment and what happened when it was sent.
type Delivery struct {
	EventID        string     `json:"id" dynamodbav:"event_id"`
	Kind           string     `json:"kind" dynamodbav:"kind"`
	Status         string     `json:"status" dynamodbav:"status"`
	CreatedAt      time.Time  `json:"created_at" dynamodbav:"created_at"`
	Attempts       int        `json:"attempts" dynamodbav:"attempts"`
	LastAttemptAt  *time.Time `json:"last_attempt_at,omitempty" dynamodbav:"last_attempt_at,omitempty"`
	LastHTTPStatus int        `json:"last_http_status,omitempty" dynamodbav:"last_http_status,omitempty"`
	Detail         string     `json:"detail,omitempty" dynamodbav:"detail,omitempty"`
	// NextAttemptAt is when the next attempt of a pending delivery is due: its creation for
	// the first, then the retry schedule's delay after each failed attempt. The re-drive
	// re-enqueues only deliveries overdue by more than the queue's visibility timeout.
	NextAttemptAt time.Time `json:"next_attempt_at" dynamodbav:"next_attempt_at"`
	// Applied and Settled track a linked intent's document follow-up: Applied once the
	// document has recorded the outcome, Settled once the document has forgotten the intent's
	// id from its in-flight set (see intent.Ledger).
	Applied bool `json:"document_applied,omitempty" dynamodbav:"applied,omitempty"`
	Settled bool `json:"document_settled,omitempty" dynamodbav:"settled,omitempty"`
	// ClaimedUntil is how long one run of the follow-up holds it (see intent.Ledger).
	ClaimedUntil *time.Time `json:"-" dynamodbav:"claim,omitempty"`
	// Settle is true for the event of a linked intent (not stored: the store places the event
	// by it). Its document follow-up comes first (package intent's Settle): the event waits in
	// the settle index from the terminal write until the document has the outcome, and only
	// then in the pending-delivery index. Delivery attempts go on meanwhile.
	Settle bool `json:"-" dynamodbav:"-"`
	// CID is the correlation id of the request that caused the event, as its 12 bytes (the
	// 24-hex id decoded; nil when no request did: the re-drive's expiry sweep). The sender's log
	// lines carry it, in hex, as correlation_id. Short and binary (16 bytes stored): it is in
	// the payment item, whose size prices every write of it.
	CID []byte `json:"-" dynamodbav:"cid,omitempty"`
	// AttemptLog is the event's latest attempts, oldest first, at most AttemptLogSize (the
	// sender writes it in the same UpdateItem that records the attempt). Short stored names
	// and whole seconds: the payment item's size prices every write of it.
	AttemptLog []Attempt `json:"attempt_log,omitempty" dynamodbav:"log,omitempty"`
}

// Attempt is one delivery attempt of an event: when, the receiver's HTTP status (0 when no
// answer came back), how long the request took, and why it failed when there was no answer.
type Attempt struct {
	At         time.Time `json:"at" dynamodbav:"t,unixtime"`
	HTTPStatus int       `json:"http_status" dynamodbav:"c,omitempty"`
	DurationMS int64     `json:"duration_ms" dynamodbav:"d"`
	Error      string    `json:"error,omitempty" dynamodbav:"e,omitempty"`
}

// Bounds of the attempt log: the latest AttemptLogSize attempts are kept, each error cut to
// AttemptErrorMax bytes (on a rune boundary).
const (
	AttemptLogSize  = 10
	AttemptErrorMax = 48
)

// LogAttempt returns the attempt log with a appended: at most AttemptLogSize entries (the
// oldest dropped), a's error shortened to AttemptErrorMax bytes and its time to whole seconds.
func (d *Delivery) LogAttempt(a Attempt) []Attempt {
	a.At = a.At.UTC().Truncate(time.Second)
	if len(a.Error) > AttemptErrorMax {
		cut := AttemptErrorMax
		for cut > 0 && !utf8.RuneStart(a.Error[cut]) {
			cut--
		}
		a.Error = a.Error[:cut]
	}
	var prev []Attempt
	if d != nil {
		prev = d.AttemptLog
	}
	if len(prev) >= AttemptLogSize {
		prev = prev[len(prev)-AttemptLogSize+1:]
	}
	return append(append(make([]Attempt, 0, len(prev)+1), prev...), a)
}

// EventRef names one recorded webhook event of a payment.
type EventRef struct {
	InvoiceID string
	EventID   string
}

// EventKind names the webhook event of a terminal status ("payment.completed", ...).
func EventKind(s Status) string { return "payment." + strings.ToLower(string(s)) }

// NewDelivery returns the pending delivery of the event a terminal status emits, or nil when
// the payment needs none (see NeedsEvents).
func (p *Payment) NewDelivery(to Status, now time.Time) (*Delivery, error) {
	if !p.NeedsEvents() || !to.Terminal() {
		return nil, nil
	}
	d, err := NewEvent(to, now)
	if d != nil {
		d.Settle = p.Linked()
	}
	return d, err
}

// Expiring names a PENDING payment past its expiry that the re-drive's sweep found: Linked
// says its expiry event has a document follow-up (Delivery.Settle); Quiet says it needs no
// event at all (no webhook_url, not linked): the sweep records EXPIRED and its ttl only.
type Expiring struct {
	InvoiceID string
	Linked    bool
	Quiet     bool
}

// Linked reports whether the payment is an intent priced from a document.
func (p *Payment) Linked() bool {
	return p.Source.Kind == SourceInvoice || p.Source.Kind == SourcePaymentLinks
}

// NeedsEvents reports whether the payment's terminal status records an event in its outbox:
// when it has a webhook_url (the webhook), and when it is linked (its document learns the
// outcome from the same event, exactly once, whether or not there is a webhook to send).
func (p *Payment) NeedsEvents() bool { return p.WebhookURL != "" || p.Linked() }

// NewEvent returns the pending delivery of a new event of terminal status to, with a new id: a
// time-ordered UUID (version 7), as the records' delivery lists name it.
func NewEvent(to Status, now time.Time) (*Delivery, error) {
	id, err := uuid.NewV7()
	if err != nil {
		return nil, err
	}
	return &Delivery{EventID: id.String(), Kind: EventKind(to), Status: DeliveryPending,
		CreatedAt: now, NextAttemptAt: now}, nil
}

// EffectiveStatus is the status as of now: a PENDING payment past its expiry is EXPIRED even
// if nothing has written that yet.
func (p *Payment) EffectiveStatus(now time.Time) Status {
	if p.Status == Pending && !p.ExpiresAt.IsZero() && !now.Before(p.Expiry()) {
		return Expired
	}
	return p.Status
}

// Expiry is when a PENDING payment becomes EXPIRED: ExpiresAt, or LockBy while its payer has
// not started (locked a route). The store's conditional writes use the same rule.
func (p *Payment) Expiry() time.Time {
	if p.LockBy != nil && p.LockRoute == "" && p.LockBy.Before(p.ExpiresAt) {
		return *p.LockBy
	}
	return p.ExpiresAt
}

// UseHold is how long an intent that holds one of a payment link's max_uses keeps it while
// nobody starts paying it (no route locked on its checkout): then it expires and the use goes
// back to the link. Once a payer locks a route, the intent lives to its expires_at.
const UseHold = 5 * time.Minute

// UseLife is the longest an intent that holds one of a payment link's max_uses lives, started
// or not: its expires_at is at most UseLife after create, and so is its hold on the use (a
// payer who locks a route holds the use for minutes, never for the intent's full lifetime).
const UseLife = 20 * time.Minute

// Retention is how long a payment that ended other than COMPLETED (failed, cancelled,
// expired: no money moved) is kept after it ended; its item (and a linked intent's snapshot)
// then carries a DynamoDB TTL and reads as absent. A COMPLETED payment is kept.
const Retention = 90 * 24 * time.Hour

// RetainUntil is the TTL of a payment that reached status to at t (zero for COMPLETED and
// PENDING: kept).
func RetainUntil(to Status, t time.Time) time.Time {
	if to == Completed || !to.Terminal() {
		return time.Time{}
	}
	return t.Add(Retention)
}

// ErrStateChanged is returned, with the current payment, when a conditional state change
// found the payment no longer in the state it required.
var ErrStateChanged = errors.New("payment state changed")

// ErrExists is returned by Store.Create when an item with the invoice id already exists.
var ErrExists = errors.New("payment already exists")

// Store persists payments. Get returns (nil, nil) when there is no such payment.
type Store interface {
	// CreatePayment writes p only if no payment has its invoice id (one conditional put). On
	// ErrExists it also returns the stored payment so the caller can replay or refuse.
	CreatePayment(ctx context.Context, p *Payment) (*Payment, error)
	GetPayment(ctx context.Context, invoiceID string) (*Payment, error)
	// MarkFirstVerified records at as the first completed verification unless one is recorded,
	// and returns the recorded time and whether this call recorded it.
	MarkFirstVerified(ctx context.Context, invoiceID string, at time.Time) (time.Time, bool, error)
}

// invoiceNamespace separates derived invoice ids from any other derived identifier.
const invoiceNamespace = "takapay/payment-create/v1"

// InvoiceIDForKey derives the invoice id of an idempotent create from the workspace, the
// environment and the Idempotency-Key. The key therefore addresses the payment item itself:
// one conditional PutItem both creates the payment and enforces idempotency, with no separate
// idempotency record and no in-flight state. The result is an RFC 9562 version 8 UUID.
func InvoiceIDForKey(workspaceID string, env auth.Environment, key string) string {
	h := sha256.New()
	for _, part := range []string{invoiceNamespace, workspaceID, string(env), key} {
		h.Write([]byte(part))
		h.Write([]byte{0})
	}
	var id uuid.UUID
	copy(id[:], h.Sum(nil))
	id[6] = (id[6] & 0x0f) | 0x80 // version 8
	id[8] = (id[8] & 0x3f) | 0x80 // RFC 9562 variant
	return id.String()
}

// NewInvoiceID returns a random, time-ordered (version 7) invoice id for a create without key.
func NewInvoiceID() (string, error) {
	id, err := uuid.NewV7()
	if err != nil {
		return "", err
	}
	return id.String(), nil
}

// TokenKey derives each payment's checkout token (CHECKOUT_TOKEN_KEY, at least MinTokenKey
// bytes). Only payment create holds it; the page needs no key, only the stored hash.
type TokenKey []byte

// MinTokenKey is the shortest acceptable token key.
const MinTokenKey = 32

// tokenIDSize and tokenSecretSize make a token: 32 bytes, 43 base64url characters.
const (
	tokenIDSize     = 16
	tokenSecretSize = 16
)

// CheckoutToken returns the capability payment_url carries for a payment: the invoice id's 16
// bytes and a 128-bit secret, HMAC-SHA256(key, invoice id) truncated, as 43 base64url
// characters. It is derived, not random, so an idempotent replay of create returns the same
// payment_url without the token being stored anywhere; the payment keeps only secretHash
// (SHA-256 of the secret), and the page finds the payment by the id in the token with one
// strongly consistent GetItem.
func (k TokenKey) CheckoutToken(invoiceID string) (token string, secretHash []byte, err error) {
	if len(k) < MinTokenKey {
		return "", nil, errors.New("checkout token key is not configured (CHECKOUT_TOKEN_KEY, at least 32 bytes)")
	}
	id, err := uuid.Parse(invoiceID)
	if err != nil {
		return "", nil, err
	}
	mac := hmac.New(sha256.New, k)
	mac.Write([]byte("takapay/checkout-token/v1\x00"))
	mac.Write(id[:])
	secret := mac.Sum(nil)[:tokenSecretSize]
	raw := append(id[:], secret...)
	sum := sha256.Sum256(secret)
	return base64.RawURLEncoding.EncodeToString(raw), sum[:], nil
}

// ParseCheckoutToken splits a token into the invoice id it names and the SHA-256 of its
// secret; ok is false for anything that is not a well-formed token (no read is needed to
// refuse it).
func ParseCheckoutToken(token string) (invoiceID string, secretHash [32]byte, ok bool) {
	if len(token) != 43 {
		return "", secretHash, false
	}
	raw, err := base64.RawURLEncoding.Strict().DecodeString(token)
	if err != nil || len(raw) != tokenIDSize+tokenSecretSize {
		return "", secretHash, false
	}
	id, err := uuid.FromBytes(raw[:tokenIDSize])
	if err != nil {
		return "", secretHash, false
	}
	return id.String(), sha256.Sum256(raw[tokenIDSize:]), true
}

// CheckoutPath is the hosted page's path for a token.
func CheckoutPath(token string) string { return "/v1/public/checkout/" + token }

// NewReference returns a generated merchant reference ("ref_" + 20 base32 characters).
func NewReference() (string, error) {
	var b [13]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", err
	}
	const alphabet = "0123456789abcdefghjkmnpqrstvwxyz"
	out := []byte("ref_")
	var acc uint64
	bits := 0
	for _, c := range b {
		acc = acc<<8 | uint64(c)
		bits += 8
		for bits >= 5 {
			bits -= 5
			out = append(out, alphabet[(acc>>bits)&31])
		}
	}
	return string(out[:24]), nil
}

// ParseInvoiceID accepts the canonical 36-character UUID form (any case) and returns it lower-cased.
func ParseInvoiceID(s string) (string, bool) {
	if len(s) != 36 {
		return "", false
	}
	id, err := uuid.Parse(s)
	if err != nil {
		return "", false
	}
	return id.String(), true
}

// MaskPayer hides most of a payer identity wherever one is shown (the checkout, the
// dashboard, the intent resource): 017•••••678 for a phone, r•••@shop.com.bd for an email.
func MaskPayer(s string) string {
	if at := strings.IndexByte(s, '@'); at > 0 {
		return s[:1] + "•••" + s[at:]
	}
	if len(s) <= 6 {
		return strings.Repeat("•", len(s))
	}
	return s[:3] + strings.Repeat("•", len(s)-6) + s[len(s)-3:]
}
