package publicdoc

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/takapay/payments/shared/apierr"
	"github.com/takapay/payments/shared/auth"
	"github.com/takapay/payments/shared/document"
	"github.com/takapay/payments/shared/intent"
	"github.com/takapay/payments/shared/page"
	"github.com/takapay/payments/shared/payment"
	"github.com/takapay/payments/shared/ratelimit"
	"github.com/takapay/payments/shared/urlcheck"
	"github.com/takapay/payments/shared/web"
)

// PayStore is what the payer's POST needs beyond Store: the linked-intent rules' storage
// (package intent owns every reservation and use; this door only asks it).
type PayStore interface {
	Store
	intent.LinkedStore
}

// Limiter spends one request of a budget named by key, across every instance (package
// ratelimit's Limiter); false and how long to wait when it is spent.
type Limiter interface {
	Allow(ctx context.Context, key string) (bool, time.Duration)
}

// Checkout serves POST /v1/public/documents/{token}: the payer starts paying. The answers are
// checked against the document's fields; the linked-intent rules (intent.Linker, AdoptLive)
// price an intent from the document as it is now and say where to pay: 201 {intent_id,
// payment_url}, or 303 to payment_url for a form. An invoice has at most one live intent:
// while one is PENDING and unexpired, another POST answers it again (200), so two tabs or two
// payers cannot pay it twice; once one COMPLETED, every POST is refused. A payment link gives
// each payer their own intent, within its max_uses.
type Checkout struct {
	Store   PayStore
	Tokens  payment.TokenKey
	Limiter *ratelimit.CapabilityLimiter
	// Documents limits intent creation per document across every instance (nil: none):
	// each POST that reaches the pricing spends one request of "DOCPAY#<document id>".
	// Clients limits it per document and client address (nil: none), and is spent first, so
	// one client that spends its own budget never spends the document's:
	// "DOCPAY#<document id>#<client key>".
	Documents Limiter
	Clients   Limiter
	// URLs checks the URL a payer is sent back to (a payment link's return_url) with the
	// rules of a payment's redirect_url; one that fails them is not used.
	URLs urlcheck.Policy
	// AllowLocalhostFormAction: see Service.
	AllowLocalhostFormAction bool
	Now                      func() time.Time
}

func (s *Checkout) now() time.Time {
	if s.Now != nil {
		return s.Now().UTC()
	}
	return time.Now().UTC()
}

// isForm reports a form post from the page (a JSON object sent with curl's default form
// content type is JSON).
func isForm(r *web.Request) bool {
	return strings.HasPrefix(r.Header("Content-Type"), "application/x-www-form-urlencoded") &&
		!bytes.HasPrefix(bytes.TrimSpace(r.Body), []byte("{"))
}

// PayResponse is the JSON answer of the payer's POST.
type PayResponse struct {
	IntentID   string `json:"intent_id"`
	PaymentURL string `json:"payment_url"`
}

// Pay serves POST /v1/public/documents/{token}.
func (s *Checkout) Pay(ctx context.Context, r *web.Request) (*web.Response, error) {
	token := r.PathParams["token"]
	if !validToken(token) {
		return nil, notFound()
	}
	now := s.now()
	if err := s.Limiter.Allow(token, r.SourceIP, now); err != nil {
		return nil, err
	}
	doc, ws, err := s.Store.PublicDocument(ctx, token)
	if err != nil {
		return nil, err
	}
	if doc == nil || ws == nil {
		return nil, notFound()
	}
	merchant := ws.Name
	v, err := viewOf(ctx, s.Store, doc, merchant, now)
	if errors.Is(err, ErrNotPublic) {
		return nil, notFound()
	}
	if err != nil {
		return nil, err
	}
	form := isForm(r)
	lang := langOf(r)
	render := func(status int, e *apierr.Error, values *Answers) *web.Response {
		p := Page{View: v, Action: r.Path, Sandbox: doc.Environment == auth.Sandbox, Lang: lang}
		if values != nil {
			p.Values = *values
			p.Problems = values.Problems
		}
		if len(p.Problems) == 0 {
			p.Error = payerMessage(lang.Lang, v, e)
		}
		var buf bytes.Buffer
		if err := RenderPage(&buf, p); err != nil {
			return nil
		}
		return &web.Response{Status: status, Headers: SecurityHeaders(s.AllowLocalhostFormAction), Raw: buf.Bytes()}
	}
	refuse := func(err error, values *Answers) (*web.Response, error) {
		var e *apierr.Error
		if form && errors.As(err, &e) && e.Status() < 500 {
			if resp := render(e.Status(), e, values); resp != nil {
				return resp, nil
			}
		}
		return nil, err
	}
	if v.State != StatePayable {
		return refuse(notPayable(v), nil)
	}
	answers, err := ParseAnswers(r.Body, form, v)
	if err != nil {
		return refuse(err, answers)
	}
	client := s.clientKey(doc.ID, r.SourceIP)
	for _, lim := range []struct {
		l   Limiter
		key string
	}{{s.Clients, "DOCPAY#" + doc.ID + "#" + client}, {s.Documents, "DOCPAY#" + doc.ID}} {
		if lim.l == nil {
			continue
		}
		if ok, wait := lim.l.Allow(ctx, lim.key); !ok {
			return refuse(rateLimited(wait), answers)
		}
	}
	id, err := payment.NewInvoiceID()
	if err != nil {
		return nil, err
	}
	canon := answers.Canonical()
	sum := sha256.Sum256([]byte(canon))
	order := intent.Order{
		Doc: doc, ID: id, Quantity: answers.Quantity, Options: s.options(r, doc, ws, lang),
		CustomerName: answers.Payer.Name, CustomerEmail: answers.Payer.Email, CustomerPhone: answers.Payer.Phone,
		Answers: json.RawMessage(canon), RequestHash: hex.EncodeToString(sum[:16]), MerchantName: merchant,
		Live: intent.AdoptLive, Client: client, Now: now,
	}
	if doc.Kind == document.Invoices {
		order.Quantity = nil // an invoice is paid whole
	}
	placed, err := (&intent.Linker{Store: s.Store, Tokens: s.Tokens}).Place(ctx, order)
	if err != nil {
		return refuse(err, answers)
	}
	p := placed.Payment
	checkout, _, err := s.Tokens.CheckoutToken(p.InvoiceID)
	if err != nil {
		return nil, err
	}
	u := r.BaseURL + payment.CheckoutPath(checkout)
	if form {
		// The payer's explicit choice of language goes on to the checkout (a query parameter
		// beside the token, which stays the only capability).
		u = lang.URL(u)
		h := SecurityHeaders(s.AllowLocalhostFormAction) // no-referrer, no-store, the page's CSP
		h["Location"] = u
		return &web.Response{Status: http.StatusSeeOther, Headers: h}, nil
	}
	status := http.StatusOK // the invoice's live intent, answered again
	if placed.Created {
		status = http.StatusCreated
	}
	resp := web.JSON(status, PayResponse{IntentID: p.InvoiceID, PaymentURL: u})
	resp.Headers = map[string]string{"Cache-Control": "no-store", "Referrer-Policy": "no-referrer"}
	return resp, nil
}

// options are the intent's URLs: the payer comes back to the document's page after a cancel
// or an expiry, and goes to a payment link's return_url after paying — only when it passes the
// redirect_url rules (a link stored before those rules applied to it may hold one that does
// not: the payer then stays on the checkout's outcome page). The payment's webhook events go
// to the workspace's document webhook for the environment, when it has one that passes the
// webhook_url rules (the same rule as the API's create; the sender checks again at send time).
func (s *Checkout) options(r *web.Request, doc *document.Record, ws *auth.Workspace, lang page.Choice) payment.Options {
	opts := payment.Options{CancelURL: lang.URL(r.BaseURL + r.Path), ExpiresIn: payment.DefaultExpiry}
	if u := returnURL(doc); u != "" && s.URLs.Check(u) == nil {
		opts.RedirectURL = u
	}
	if u := ws.DocumentWebhook(doc.Environment); u != "" && s.URLs.CheckWebhook(u) == nil {
		opts.WebhookURL = u
	}
	return opts
}

// clientKey is the payer's client key for one document: 16 hex of an HMAC (with the token
// key) of the document id and the client address, so a document's holds and budgets name a
// client without storing its address (nor a hash of it that a list of addresses reverses).
func (s *Checkout) clientKey(docID, addr string) string {
	m := hmac.New(sha256.New, s.Tokens)
	m.Write([]byte("takapay-pay-client\x00" + docID + "\x00" + addr))
	return hex.EncodeToString(m.Sum(nil)[:8])
}

// rateLimited is the 429 of a document whose intent creation budget is spent.
func rateLimited(wait time.Duration) error {
	e := apierr.New(apierr.RateLimited, "too many payments are being started for this document; retry in %d seconds", int(wait/time.Second))
	e.Headers = map[string]string{"Retry-After": strconv.Itoa(int(wait / time.Second))}
	return e
}

// payerMessage words a refused post for the payer in l (the answers' own problems are listed
// from Answers.Problems instead): why the document cannot be paid now.
func payerMessage(l page.Lang, v *View, e *apierr.Error) string {
	if e == nil {
		return ""
	}
	switch e.Code {
	case apierr.StateConflict:
		switch {
		case v.State == StatePaid || e.Message == intent.InvoicePaidMessage:
			return l.T("doc.err.paid")
		case v.State == StateClosed:
			return l.T(kindKey(v, "doc.err.closed"))
		}
		return l.T(kindKey(v, "doc.err.taken"))
	case apierr.ScopeOrEnvironmentDenied:
		return l.T("doc.unavailable.title")
	case apierr.RateLimited:
		return l.T("doc.err.busy")
	case apierr.ValidationFailed:
		return l.T("doc.check_answers")
	}
	return l.T("page.err.internal")
}

// notPayable is the refusal for a document whose state is not payable: 403 for a live one (the
// sandbox-only rule of every money path), 409 naming the state otherwise.
func notPayable(v *View) error {
	switch {
	case v.State == StateUnavailable:
		return payment.RequireSandbox(v.Environment)
	case v.State == StatePaid:
		return apierr.New(apierr.StateConflict, intent.InvoicePaidMessage)
	case v.Kind == document.Invoices:
		return apierr.New(apierr.StateConflict, "this invoice can no longer be paid")
	}
	return apierr.New(apierr.StateConflict, "this payment link can no longer be paid")
}

// returnURL is a payment link's return_url (where the payer goes after paying), or "".
func returnURL(doc *document.Record) string {
	var b struct {
		ReturnURL string `json:"return_url"`
	}
	_ = json.Unmarshal(doc.Body, &b)
	return b.ReturnURL
}
