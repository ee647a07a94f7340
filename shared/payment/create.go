package payment

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"regexp"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/takapay/payments/shared/apierr"
	"github.com/takapay/payments/shared/auth"
	"github.com/takapay/payments/shared/jsonbody"
	"github.com/takapay/payments/shared/money"
	"github.com/takapay/payments/shared/obs"
	"github.com/takapay/payments/shared/urlcheck"
	"github.com/takapay/payments/shared/web"
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

// createFields are the members a create request may carry; anything else is refused so a
// typo (say "ammount" or "redirect_uri") is never silently ignored.
var createFields = []string{"amount", "redirect_url", "cancel_url", "webhook_url", "reference",
	"customer_name", "customer_email", "customer_phone", "metadata", "expires_in_minutes", "locale"}

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

// ParseCreateRequest validates a create body: 400 for malformed JSON, 422 naming every
// broken field rule.
func ParseCreateRequest(body []byte, urls urlcheck.Policy) (*CreateRequest, error) {
	obj, err := jsonbody.ParseObject(body)
	if err != nil {
		return nil, err
	}
	r := jsonbody.NewReader(obj)
	r.OnlyKnown(createFields...)
	var req CreateRequest
	if raw, ok := obj.Raw("amount"); !ok || bytes.Equal(bytes.TrimSpace(raw), []byte("null")) {
		r.Fail("amount", "is required (a JSON number of taka, e.g. 150.50)")
	} else if p, err := money.ParseTaka(raw); err != nil {
		r.Fail("amount", err.Error())
	} else {
		req.Amount = p
	}
	var o Options
	o.readURLs(r, urls)
	req.Reference, _ = r.String("reference", jsonbody.StringRule{Min: 1, Max: MaxReferenceLen, Check: trimmed})
	req.CustomerName, _ = r.String("customer_name", jsonbody.StringRule{Min: 1, Max: MaxNameLen, Check: trimmed})
	req.CustomerEmail, _ = r.String("customer_email", jsonbody.StringRule{Min: 3, Max: MaxEmailLen, Check: jsonbody.CheckEmail})
	req.CustomerPhone, _ = r.String("customer_phone", jsonbody.StringRule{Min: 1, Max: MaxPhoneLen, Check: checkPhone})
	o.readRest(r, obj)
	req.RedirectURL, req.CancelURL, req.WebhookURL, req.Metadata, req.ExpiresIn, req.Locale =
		o.RedirectURL, o.CancelURL, o.WebhookURL, o.Metadata, o.ExpiresIn, o.Locale
	if err := r.Err(); err != nil {
		return nil, err
	}
	return &req, nil
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

// ReadOptions reads redirect_url, cancel_url, webhook_url, metadata, expires_in_minutes and
// locale from a create body with the create rules, recording violations in r.
func ReadOptions(r *jsonbody.Reader, obj *jsonbody.Object, urls urlcheck.Policy) Options {
	var o Options
	o.readURLs(r, urls)
	o.readRest(r, obj)
	return o
}

func (o *Options) readURLs(r *jsonbody.Reader, urls urlcheck.Policy) {
	urlRule := func(check func(string) error) jsonbody.StringRule {
		return jsonbody.StringRule{Check: func(s string) string {
			if err := check(s); err != nil {
				return err.Error()
			}
			return ""
		}}
	}
	o.RedirectURL, _ = r.String("redirect_url", urlRule(urls.Check))
	o.CancelURL, _ = r.String("cancel_url", urlRule(urls.Check))
	o.WebhookURL, _ = r.String("webhook_url", urlRule(urls.CheckWebhook))
}

func (o *Options) readRest(r *jsonbody.Reader, obj *jsonbody.Object) {
	o.ExpiresIn = DefaultExpiry
	if m, ok := r.Int("expires_in_minutes", false, int64(MinExpiry/time.Minute), int64(MaxExpiry/time.Minute)); ok {
		o.ExpiresIn = time.Duration(m) * time.Minute
	}
	if l, ok := r.String("locale", jsonbody.StringRule{Check: func(s string) string {
		if !slices.Contains(Locales, s) {
			return `must be one of "bn", "en", "auto"`
		}
		return ""
	}}); ok && l != "auto" {
		o.Locale = l
	}
	if md, ok := r.Object("metadata", false); ok {
		raw, _ := obj.Raw("metadata")
		canon, rule := canonicalMetadata(md)
		if dup := jsonbody.FirstDuplicate(raw, md.Path); dup != "" {
			r.Violations = append(r.Violations, apierr.Violation{Path: dup, Rule: "appears more than once"})
		} else if rule != "" {
			r.Fail("metadata", rule)
		} else {
			o.Metadata = canon
		}
	}
}

func trimmed(s string) string {
	if strings.TrimSpace(s) != s {
		return "must not start or end with white space"
	}
	return ""
}

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

// canonicalMetadata bounds metadata and returns its canonical compact form (keys sorted,
// numbers kept as written), which is what is stored and what the request hash covers.
func canonicalMetadata(md *jsonbody.Object) (string, string) {
	names := md.Names()
	if len(names) > MaxMetadataKeys {
		return "", fmt.Sprintf("must have at most %d keys", MaxMetadataKeys)
	}
	m := make(map[string]json.RawMessage, len(names))
	for _, n := range names {
		if n == "" || utf8.RuneCountInString(n) > MaxMetadataKeyLen {
			return "", fmt.Sprintf("keys must be 1 to %d characters", MaxMetadataKeyLen)
		}
		raw, _ := md.Raw(n)
		var v any
		dec := json.NewDecoder(bytes.NewReader(raw))
		dec.UseNumber()
		if err := dec.Decode(&v); err != nil {
			return "", "must be a JSON object"
		}
		compact, _ := web.Marshal(v)
		m[n] = compact
	}
	out, _ := web.Marshal(m) // map keys are sorted by encoding/json; no HTML escaping
	if len(out) > MaxMetadataBytes {
		return "", fmt.Sprintf("must be at most %d bytes as compact JSON", MaxMetadataBytes)
	}
	return string(out), ""
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

// ParseIdempotencyKey reads the optional Idempotency-Key header; a present but malformed one
// is a 400.
func ParseIdempotencyKey(r *web.Request) (string, error) {
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
func RequiredIdempotencyKey(r *web.Request) (string, error) {
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

// CreateResponse is the 201 body of payment create.
type CreateResponse struct {
	InvoiceID  string `json:"invoice_id"`
	Status     Status `json:"status"`
	PaymentURL string `json:"payment_url"`
}

// Creator serves POST /v1/payment/create.
type Creator struct {
	Auth  *auth.Authenticator
	Store Store
	URLs  urlcheck.Policy
	// Tokens derives each payment's checkout token (payment_url).
	Tokens TokenKey
	Now    func() time.Time
}

// Handle authenticates, validates and creates (or idempotently replays) a payment.
func (c *Creator) Handle(ctx context.Context, r *web.Request) (*web.Response, error) {
	id, err := c.Auth.Authenticate(ctx, r)
	if err != nil {
		return nil, err
	}
	env, err := sandboxOnly(id, auth.PaymentsWrite)
	if err != nil {
		return nil, err
	}
	key, err := ParseIdempotencyKey(r)
	if err != nil {
		return nil, err
	}
	req, err := ParseCreateRequest(r.Body, c.URLs)
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
		return c.replay(r, existing, id, env, p)
	case err != nil:
		return nil, err
	}
	return web.JSON(http.StatusCreated, CreateResponse{p.InvoiceID, p.Status, r.BaseURL + CheckoutPath(token)}), nil
}

// replay answers a create whose Idempotency-Key already made a payment: the same 201 for
// the same request, 409 for a different one.
func (c *Creator) replay(r *web.Request, existing *Payment, id *auth.Identity, env auth.Environment, attempt *Payment) (*web.Response, error) {
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
	resp := web.JSON(http.StatusCreated, CreateResponse{existing.InvoiceID, Pending, r.BaseURL + CheckoutPath(token)})
	resp.Headers = map[string]string{"Idempotent-Replayed": "true"}
	return resp, nil
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

// sandboxOnly authorises scope for the credential's environment and refuses live: this
// release moves no real money.
func sandboxOnly(id *auth.Identity, scope auth.Scope) (auth.Environment, error) {
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
