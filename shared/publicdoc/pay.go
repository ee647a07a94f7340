package publicdoc

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"strconv"
	"time"

	"github.com/takapay/payments/shared/auth"
	"github.com/takapay/payments/shared/document"
	"github.com/takapay/payments/shared/foundation/apierr"
	"github.com/takapay/payments/shared/foundation/page"
	"github.com/takapay/payments/shared/foundation/urlcheck"
	"github.com/takapay/payments/shared/intent"
	"github.com/takapay/payments/shared/payment"
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

// Checkout is the rules of a payer's POST to a document's public link: the answers are
// checked against the document's fields (ParseAnswers); the linked-intent rules
// (intent.Linker, AdoptLive) price an intent from the document as it is now. An invoice has
// at most one live intent: while one is PENDING and unexpired, another POST answers it again,
// so two tabs or two payers cannot pay it twice; once one COMPLETED, every POST is refused. A
// payment link gives each payer their own intent, within its max_uses.
type Checkout struct {
	Store  PayStore
	Tokens payment.TokenKey
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
}

// Refusal is why the opened document cannot be paid now (nil when it can): 403 for a live
// one (the sandbox-only rule of every money path), 409 naming the state otherwise.
func (o *Opened) Refusal() error {
	if o.View.State == StatePayable {
		return nil
	}
	return notPayable(o.View)
}

// PayInput is a payer's POST: the validated answers, the client's address, and the page's
// own URL in the payer's language (where the payer comes back after a cancel or an expiry).
type PayInput struct {
	Answers   *Answers
	SourceIP  string
	CancelURL string
}

// Paid is the intent a POST ended with, and the checkout token of its payment_url.
type Paid struct {
	Placed        *intent.Placed
	CheckoutToken string
}

// Pay places (or answers again) the intent of a payer's answers to the opened document,
// after the client's and the document's budgets of intent creations.
func (s *Checkout) Pay(ctx context.Context, o *Opened, in PayInput) (*Paid, error) {
	doc := o.Doc
	client := s.clientKey(doc.ID, in.SourceIP)
	if err := s.spend(ctx, doc.ID, client); err != nil {
		return nil, err
	}
	id, err := payment.NewInvoiceID()
	if err != nil {
		return nil, err
	}
	canon := in.Answers.Canonical()
	sum := sha256.Sum256([]byte(canon))
	order := intent.Order{
		Doc: doc, ID: id, Quantity: in.Answers.Quantity, Options: s.options(in.CancelURL, doc, o.Workspace),
		CustomerName: in.Answers.Payer.Name, CustomerEmail: in.Answers.Payer.Email, CustomerPhone: in.Answers.Payer.Phone,
		Answers: json.RawMessage(canon), RequestHash: hex.EncodeToString(sum[:16]), MerchantName: o.Workspace.Name,
		Live: intent.AdoptLive, Client: client, Now: o.Now,
	}
	if doc.Kind == document.Invoices {
		order.Quantity = nil // an invoice is paid whole
	}
	placed, err := (&intent.Linker{Store: s.Store, Tokens: s.Tokens}).Place(ctx, order)
	if err != nil {
		return nil, err
	}
	checkout, _, err := s.Tokens.CheckoutToken(placed.Payment.InvoiceID)
	if err != nil {
		return nil, err
	}
	return &Paid{Placed: placed, CheckoutToken: checkout}, nil
}

// spend spends one request of the client's budget on the document, then of the document's.
func (s *Checkout) spend(ctx context.Context, docID, client string) error {
	for _, lim := range []struct {
		l   Limiter
		key string
	}{{s.Clients, "DOCPAY#" + docID + "#" + client}, {s.Documents, "DOCPAY#" + docID}} {
		if lim.l == nil {
			continue
		}
		if ok, wait := lim.l.Allow(ctx, lim.key); !ok {
			return rateLimited(wait)
		}
	}
	return nil
}

// options are the intent's URLs: the payer comes back to the document's page (cancelURL) after
// a cancel or an expiry, and goes to a payment link's return_url after paying — only when it
// passes the redirect_url rules (a link stored before those rules applied to it may hold one
// that does not: the payer then stays on the checkout's outcome page). The payment's webhook
// events go to the workspace's document webhook for the environment, when it has one that
// passes the webhook_url rules (the same rule as the API's create; the sender checks again at
// send time).
func (s *Checkout) options(cancelURL string, doc *document.Record, ws *auth.Workspace) payment.Options {
	opts := payment.Options{CancelURL: cancelURL, ExpiresIn: payment.DefaultExpiry}
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

// PayerMessage words a refused post for the payer in l (the answers' own problems are listed
// from Answers.Problems instead): why the document cannot be paid now.
func PayerMessage(l page.Lang, v *View, e *apierr.Error) string {
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
	if b, err := doc.Content(); err == nil && b.ReturnURL != nil {
		return *b.ReturnURL
	}
	return ""
}
