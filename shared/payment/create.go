package payment

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"log/slog"
	"regexp"
	"time"

	"github.com/takapay/payments/shared/auth"
	"github.com/takapay/payments/shared/foundation/apierr"
	"github.com/takapay/payments/shared/foundation/money"
	"github.com/takapay/payments/shared/foundation/obs"
)

// Bounds of the create request (see the contract, shared/openapi/openapi.yaml, createPayment).
const (
	MaxReferenceLen   = 128
	MaxNameLen        = 160
	MaxEmailLen       = 254
	MaxPhoneLen       = 32
	MaxMetadataBytes  = 4096
	MaxMetadataKeys   = 50
	MaxMetadataKeyLen = 40
)

// CreateRequest is a validated create request.
type CreateRequest struct {
	Amount        money.Paisa
	RedirectURL   string
	CancelURL     string
	WebhookURL    string
	Reference     string // "" when the merchant omitted it
	CustomerName  string
	CustomerEmail string
	CustomerPhone string
	Metadata      string // canonical compact JSON object, or ""
	// ExpiresIn is how long the payment stays payable (DefaultExpiry unless overridden).
	ExpiresIn time.Duration
	// Locale is the language of the payer's pages ("bn", "en"; "" for "auto": the payer's
	// browser decides).
	Locale string
}

// Options are the members every create shares, standalone or priced from a document: where
// the payer goes afterwards, where events are sent, metadata and how long it stays payable.
type Options struct {
	RedirectURL string
	CancelURL   string
	WebhookURL  string
	Metadata    string // canonical compact JSON object, or ""
	ExpiresIn   time.Duration
	// Locale is the language the merchant set for the payer's pages: "bn" or "en", or ""
	// ("auto", the default: the payer's ?lang or browser decides). A payer's explicit choice
	// (?lang=) still comes first.
	Locale string
}

// Locales are the values of a create's "locale" member.
var Locales = []string{"bn", "en", "auto"}

var phonePattern = regexp.MustCompile(`^\+?[0-9][0-9 ()-]*[0-9]$`)

// CheckPhone is the customer_phone rule as a jsonbody.StringRule check: "" when s is a phone
// number, else the rule. Package publicdoc applies it to a payer's phone.
func CheckPhone(s string) string { return checkPhone(s) }

func checkPhone(s string) string {
	digits := 0
	for _, c := range s {
		if c >= '0' && c <= '9' {
			digits++
		}
	}
	if !phonePattern.MatchString(s) || digits < 6 || digits > 15 {
		return "must be a phone number: 6 to 15 digits, optionally with a leading + and spaces, hyphens or parentheses"
	}
	return ""
}

// Hash identifies the request's content: two requests with the same fields (in any order or
// formatting) hash alike, so a retry with the same body replays and a changed body conflicts.
func (r *CreateRequest) Hash() string {
	canon, _ := json.Marshal(struct {
		A int64  `json:"a"`
		R string `json:"r"`
		C string `json:"c"`
		W string `json:"w"`
		F string `json:"f"`
		N string `json:"n"`
		E string `json:"e"`
		P string `json:"p"`
		M string `json:"m"`
		X int64  `json:"x"`
		L string `json:"l,omitempty"` // omitted for "auto": hashes of requests without it are unchanged
	}{int64(r.Amount), r.RedirectURL, r.CancelURL, r.WebhookURL, r.Reference, r.CustomerName,
		r.CustomerEmail, r.CustomerPhone, r.Metadata, int64(r.ExpiresIn), r.Locale})
	sum := sha256.Sum256(canon)
	return hex.EncodeToString(sum[:16]) // 128 bits tell two requests apart; the item stays small
}

// idempotencyKeyPattern is the Idempotency-Key grammar: 16 to 128 of [A-Za-z0-9_.:-].
var idempotencyKeyPattern = regexp.MustCompile(`^[A-Za-z0-9_.:-]{16,128}$`)

// Headers is what the Idempotency-Key rules read of a request: whether a header is present
// and its value (the HTTP edge's request satisfies it; this package speaks no HTTP).
type Headers interface {
	HasHeader(name string) bool
	Header(name string) string
}

// ParseIdempotencyKey reads the optional Idempotency-Key header; a present but malformed one
// is a 400.
func ParseIdempotencyKey(r Headers) (string, error) {
	if !r.HasHeader("Idempotency-Key") {
		return "", nil
	}
	k := r.Header("Idempotency-Key")
	if !idempotencyKeyPattern.MatchString(k) {
		return "", apierr.New(apierr.MalformedRequest,
			"Idempotency-Key header must be 16 to 128 characters of letters, digits, '_', '.', ':' or '-'")
	}
	return k, nil
}

// RequiredIdempotencyKey reads an Idempotency-Key header that the operation requires (400
// when it is missing or malformed): document writes and payment-intent creates.
func RequiredIdempotencyKey(r Headers) (string, error) {
	key, err := ParseIdempotencyKey(r)
	if err != nil {
		return "", err
	}
	if key == "" {
		return "", apierr.New(apierr.MalformedRequest,
			"the Idempotency-Key header is required (16 to 128 of letters, digits, '_', '.', ':' or '-')")
	}
	return key, nil
}

// Creator makes hosted payments (payment create).
type Creator struct {
	Store Store
	// Tokens derives each payment's checkout token (payment_url).
	Tokens TokenKey
	Now    func() time.Time
}

// Created is the outcome of a create: the payment's id and status, the path of its hosted
// page (the payer's capability; the edge makes it absolute), and whether it replays an
// earlier create with the same Idempotency-Key.
type Created struct {
	InvoiceID    string
	Status       Status
	CheckoutPath string
	Replayed     bool
}

// Create creates (or idempotently replays) a payment for the caller id: sandbox only, with
// the payments:write scope; key is the Idempotency-Key ("" for none).
func (c *Creator) Create(ctx context.Context, id *auth.Identity, key string, req *CreateRequest) (*Created, error) {
	env, err := Authorize(id, auth.PaymentsWrite)
	if err != nil {
		return nil, err
	}
	p, token, err := c.newPayment(id, env, key, req)
	if err != nil {
		return nil, err
	}
	obs.Annotate(ctx, slog.String("invoice_id", p.InvoiceID))
	existing, err := c.Store.CreatePayment(ctx, p)
	switch {
	case errors.Is(err, ErrExists):
		return c.replay(existing, id, env, p)
	case err != nil:
		return nil, err
	}
	return &Created{InvoiceID: p.InvoiceID, Status: p.Status, CheckoutPath: CheckoutPath(token)}, nil
}

// replay answers a create whose Idempotency-Key already made a payment: the same payment for
// the same request, 409 for a different one.
func (c *Creator) replay(existing *Payment, id *auth.Identity, env auth.Environment, attempt *Payment) (*Created, error) {
	if existing == nil || existing.WorkspaceID != id.WorkspaceID || existing.Environment != env {
		// The invoice id is a SHA-256 of workspace, environment and key: only a collision could
		// land here; refuse rather than reveal anything.
		return nil, apierr.New(apierr.IdempotencyKeyReused, "this Idempotency-Key cannot be used; choose another")
	}
	if existing.RequestHash != attempt.RequestHash {
		return nil, apierr.New(apierr.IdempotencyKeyReused,
			"this Idempotency-Key was already used with a different request body; use a new key for a new payment")
	}
	token, _, err := c.Tokens.CheckoutToken(existing.InvoiceID)
	if err != nil {
		return nil, err
	}
	return &Created{InvoiceID: existing.InvoiceID, Status: Pending, CheckoutPath: CheckoutPath(token), Replayed: true}, nil
}

func (c *Creator) newPayment(id *auth.Identity, env auth.Environment, key string, req *CreateRequest) (*Payment, string, error) {
	now := time.Now
	if c.Now != nil {
		now = c.Now
	}
	t := now().UTC()
	var invoiceID string
	var err error
	if key != "" {
		invoiceID = InvoiceIDForKey(id.WorkspaceID, env, key)
	} else if invoiceID, err = NewInvoiceID(); err != nil {
		return nil, "", err
	}
	token, hash, err := c.Tokens.CheckoutToken(invoiceID)
	if err != nil {
		return nil, "", err
	}
	ref := req.Reference
	if ref == "" {
		if ref, err = NewReference(); err != nil {
			return nil, "", err
		}
	}
	return &Payment{
		InvoiceID:      invoiceID,
		WorkspaceID:    id.WorkspaceID,
		Environment:    env,
		Status:         Pending,
		AmountMinor:    req.Amount,
		Currency:       Currency,
		Reference:      ref,
		RedirectURL:    req.RedirectURL,
		CancelURL:      req.CancelURL,
		WebhookURL:     req.WebhookURL,
		CustomerName:   req.CustomerName,
		CustomerEmail:  req.CustomerEmail,
		CustomerPhone:  req.CustomerPhone,
		Metadata:       req.Metadata,
		CheckoutHash:   hash,
		IdempotencyKey: key,
		RequestHash:    req.Hash(),
		CreatedAt:      t,
		UpdatedAt:      t,
		ExpiresAt:      t.Add(req.ExpiresIn),
		MerchantName:   id.WorkspaceName,
		Locale:         req.Locale,
	}, token, nil
}

// Authorize authorises scope for the credential's environment and refuses live: this release
// moves no real money. It returns the environment (a key's only one).
func Authorize(id *auth.Identity, scope auth.Scope) (auth.Environment, error) {
	env := id.Environments[0]
	if err := id.Authorize(scope, env); err != nil {
		return "", err
	}
	return env, RequireSandbox(env)
}

// RequireSandbox refuses live (403): this release moves no real money.
func RequireSandbox(env auth.Environment) error {
	if env != auth.Sandbox {
		return apierr.New(apierr.ScopeOrEnvironmentDenied,
			"live payments are not released yet: this release is sandbox-only; use a sk_sandbox_ key")
	}
	return nil
}
