package publicdoc

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"time"

	"github.com/takapay/payments/shared/apierr"
	"github.com/takapay/payments/shared/auth"
	"github.com/takapay/payments/shared/document"
	"github.com/takapay/payments/shared/intent"
	"github.com/takapay/payments/shared/payment"
	"github.com/takapay/payments/shared/ratelimit"
	"github.com/takapay/payments/shared/web"
)

// PayStore is what the payer's POST needs beyond Store.
type PayStore interface {
	Store
	GetPayment(ctx context.Context, invoiceID string) (*payment.Payment, error)
	// CreateIntent, ReserveUse and ReleaseUse are the payment intents' (package intent).
	CreateIntent(ctx context.Context, p *payment.Payment, snap *intent.Snapshot) (*payment.Payment, error)
	ReserveUse(ctx context.Context, doc *document.Record, maxUses int64) error
	ReleaseUse(ctx context.Context, doc *document.Record) error
	// ReserveInvoiceIntent makes id the invoice's live intent until expires, on the condition
	// that it has none, or one that expired by now, or replace (one that ended).
	ReserveInvoiceIntent(ctx context.Context, doc *document.Record, id string, expires, now time.Time, replace string) error
}

// Checkout serves POST /v1/public/documents/{token}: the payer starts paying. The answers are
// checked against the document's fields; the server prices a payment intent from the document
// as it is now (package intent's rules) and answers where to pay: 201 {intent_id,
// payment_url}, or 303 to payment_url for a form. An invoice has at most one live intent: while
// one is PENDING and unexpired, another POST answers it again (200), so two tabs or two payers
// cannot pay it twice. A payment link gives each payer their own intent, within its max_uses.
type Checkout struct {
	Store   PayStore
	Tokens  payment.TokenKey
	Limiter *ratelimit.CapabilityLimiter
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
	if err := s.Limiter.Allow(token, r.SourceIP, s.now()); err != nil {
		return nil, err
	}
	doc, merchant, err := s.Store.PublicDocument(ctx, token)
	if err != nil {
		return nil, err
	}
	if doc == nil {
		return nil, notFound()
	}
	v, err := ViewOf(doc, merchant, s.now())
	if errors.Is(err, ErrNotPublic) {
		return nil, notFound()
	}
	if err != nil {
		return nil, err
	}
	form := isForm(r)
	page := func(status int, e *apierr.Error, values *Answers) *web.Response {
		p := Page{View: v, Action: r.Path, Error: payerMessage(e), Sandbox: doc.Environment == auth.Sandbox}
		if values != nil {
			p.Values = *values
		}
		var buf bytes.Buffer
		if err := RenderPage(&buf, p); err != nil {
			return nil
		}
		return &web.Response{Status: status, Headers: SecurityHeaders(s.AllowLocalhostFormAction), Raw: buf.Bytes()}
	}
	if v.State != StatePayable {
		e := notPayable(v)
		if form {
			if resp := page(e.Status(), e, nil); resp != nil {
				return resp, nil
			}
		}
		return nil, e
	}
	answers, err := ParseAnswers(r.Body, form, v)
	if err != nil {
		var e *apierr.Error
		if form && errors.As(err, &e) {
			if resp := page(e.Status(), e, answers); resp != nil {
				return resp, nil
			}
		}
		return nil, err
	}
	opts := payment.Options{CancelURL: r.BaseURL + r.Path}
	if u := returnURL(doc); u != "" {
		opts.RedirectURL = u
	}
	var p *payment.Payment
	status := http.StatusCreated
	if doc.Kind == document.Invoices {
		p, status, err = s.payInvoice(ctx, r, doc, merchant, answers, opts)
	} else {
		p, err = s.payLink(ctx, doc, merchant, answers, opts)
	}
	if err != nil {
		var e *apierr.Error
		if form && errors.As(err, &e) && e.Status() < 500 {
			if resp := page(e.Status(), e, answers); resp != nil {
				return resp, nil
			}
		}
		return nil, err
	}
	checkout, _, err := s.Tokens.CheckoutToken(p.InvoiceID)
	if err != nil {
		return nil, err
	}
	u := r.BaseURL + payment.CheckoutPath(checkout)
	if form {
		h := SecurityHeaders(s.AllowLocalhostFormAction) // no-referrer, no-store, the page's CSP
		h["Location"] = u
		return &web.Response{Status: http.StatusSeeOther, Headers: h}, nil
	}
	resp := web.JSON(status, PayResponse{IntentID: p.InvoiceID, PaymentURL: u})
	resp.Headers = map[string]string{"Cache-Control": "no-store", "Referrer-Policy": "no-referrer"}
	return resp, nil
}

// payerMessage words an error for the payer.
func payerMessage(e *apierr.Error) string {
	if e == nil {
		return ""
	}
	if len(e.Violations) > 0 {
		var parts []string
		for _, v := range e.Violations {
			name := strings.TrimPrefix(strings.TrimPrefix(v.Path, "body.fields."), "body.")
			parts = append(parts, strings.Trim(name, `[]"`)+": "+v.Rule)
		}
		return "Please check your answers — " + strings.Join(parts, "; ")
	}
	return e.Message
}

// notPayable is the 409 for a document whose state is not payable.
func notPayable(v *View) *apierr.Error {
	if v.State == StatePaid {
		return apierr.New(apierr.StateConflict, "this invoice has been paid")
	}
	if v.Kind == document.Invoices {
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

// payInvoice answers the invoice's live intent, or makes one.
func (s *Checkout) payInvoice(ctx context.Context, r *web.Request, doc *document.Record, merchant string, a *Answers, opts payment.Options) (*payment.Payment, int, error) {
	for range 3 {
		now := s.now()
		replace := ""
		if doc.LiveIntentID != "" {
			replace = doc.LiveIntentID
			if doc.LiveIntentExpires.After(now) {
				p, err := s.Store.GetPayment(ctx, doc.LiveIntentID)
				if err != nil {
					return nil, 0, err
				}
				if p == nil {
					// Reserved, but its intent was never written (the writer died, or is still
					// writing): write it now under the reserved id.
					p, err := s.create(ctx, doc.LiveIntentID, doc, merchant, a, opts, now, doc.LiveIntentExpires)
					return p, http.StatusCreated, err
				}
				switch {
				case p.Source.DocumentID != doc.ID:
					// A stale pointer (an API create that reused another intent's id): replace it.
				case p.EffectiveStatus(now) == payment.Pending:
					return p, http.StatusOK, nil
				case p.EffectiveStatus(now) == payment.Completed:
					return nil, 0, apierr.New(apierr.StateConflict, "this invoice has been paid")
				}
			}
		}
		id, err := payment.NewInvoiceID()
		if err != nil {
			return nil, 0, err
		}
		expires := now.Add(payment.DefaultExpiry)
		err = s.Store.ReserveInvoiceIntent(ctx, doc, id, expires, now, replace)
		if errors.Is(err, intent.ErrLiveIntentTaken) {
			// Another payer's request got there first (or the invoice changed): read it again.
			next, _, err := s.Store.PublicDocument(ctx, r.PathParams["token"])
			if err != nil {
				return nil, 0, err
			}
			if next == nil || next.Status != document.StatusIssued {
				return nil, 0, apierr.New(apierr.StateConflict, "this invoice can no longer be paid")
			}
			doc = next
			continue
		}
		if err != nil {
			return nil, 0, err
		}
		p, err := s.create(ctx, id, doc, merchant, a, opts, now, expires)
		return p, http.StatusCreated, err
	}
	return nil, 0, apierr.New(apierr.ServiceUnavailable, "the invoice is busy; retry shortly")
}

// payLink makes a payment link's payer their own intent, within its max_uses.
func (s *Checkout) payLink(ctx context.Context, doc *document.Record, merchant string, a *Answers, opts payment.Options) (*payment.Payment, error) {
	now := s.now()
	price, err := intent.PriceLink(doc, a.Quantity, now)
	if err != nil {
		return nil, err
	}
	if price.MaxUses > 0 {
		err := s.Store.ReserveUse(ctx, doc, price.MaxUses)
		if errors.Is(err, intent.ErrNoUsesLeft) {
			return nil, apierr.New(apierr.StateConflict, "this payment link cannot take more payments right now")
		}
		if err != nil {
			return nil, err
		}
	}
	id, err := payment.NewInvoiceID()
	if err == nil {
		var p *payment.Payment
		if p, err = s.createPriced(ctx, id, doc, merchant, price, a, opts, now, now.Add(payment.DefaultExpiry)); err == nil {
			return p, nil
		}
	}
	if price.MaxUses > 0 && !errors.Is(err, intent.ErrSnapshotWrite) {
		_ = s.Store.ReleaseUse(ctx, doc) // no intent holds the use
	}
	return nil, err
}

// create prices an invoice's intent and writes it under id.
func (s *Checkout) create(ctx context.Context, id string, doc *document.Record, merchant string, a *Answers, opts payment.Options, now, expires time.Time) (*payment.Payment, error) {
	price, err := intent.PriceInvoice(doc)
	if err != nil {
		return nil, err
	}
	return s.createPriced(ctx, id, doc, merchant, price, a, opts, now, expires)
}

// createPriced writes the intent (payment, then its snapshot with the payer's answers); an
// intent already written under id is answered as it is.
func (s *Checkout) createPriced(ctx context.Context, id string, doc *document.Record, merchant string, price *intent.Price, a *Answers, opts payment.Options, now, expires time.Time) (*payment.Payment, error) {
	snap := price.Snapshot
	snap.Answers = json.RawMessage(a.Canonical())
	p := intent.Linked(id, doc.WorkspaceID, doc.Environment, merchant, price, now, expires)
	p.RedirectURL, p.CancelURL = opts.RedirectURL, opts.CancelURL
	p.CustomerName, p.CustomerEmail, p.CustomerPhone = a.Payer.Name, a.Payer.Email, a.Payer.Phone
	sum := sha256.Sum256(snap.Answers)
	p.RequestHash = hex.EncodeToString(sum[:16])
	var err error
	if p.SnapshotKey, _, err = snap.Encode(); err != nil {
		return nil, err
	}
	if _, p.CheckoutHash, err = s.Tokens.CheckoutToken(id); err != nil {
		return nil, err
	}
	existing, err := s.Store.CreateIntent(ctx, p, &snap)
	if errors.Is(err, payment.ErrExists) {
		return existing, nil
	}
	if err != nil {
		return nil, err
	}
	return p, nil
}
