// Package checkout is the hosted payment page's rules and rendering: the payer views the
// payment, locks a route and identity, and (in sandbox) plays the simulated provider's outcome
// or cancels. No merchant credential is involved; the 256-bit token in the URL is the
// capability. The operations take and return Go values (Open, Lock, Notice); the HTTP edge
// (package checkoutapi) reads requests, picks HTML or JSON and answers.
package checkout

import (
	"context"
	"crypto/subtle"
	"encoding/hex"
	"encoding/json"
	"errors"
	"log/slog"
	"net/url"
	"strings"
	"time"

	"github.com/takapay/payments/shared/auth"
	"github.com/takapay/payments/shared/document"
	"github.com/takapay/payments/shared/foundation/apierr"
	"github.com/takapay/payments/shared/foundation/email"
	"github.com/takapay/payments/shared/foundation/obs"
	"github.com/takapay/payments/shared/payment"
	"github.com/takapay/payments/shared/ratelimit"
)

// Store is the storage the checkout needs.
type Store interface {
	// GetPayment reads a payment (strongly consistent); nil when there is none.
	GetPayment(ctx context.Context, invoiceID string) (*payment.Payment, error)
	// LockPayment, FinishPayment and ExpirePayment return payment.ErrStateChanged with the
	// current payment when the payment was no longer in the state the write required.
	LockPayment(ctx context.Context, p *payment.Payment, route, payer string, now time.Time) (*payment.Payment, error)
	FinishPayment(ctx context.Context, invoiceID string, to payment.Status, requireLock bool, d *payment.Delivery, now time.Time) (*payment.Payment, error)
	ExpirePayment(ctx context.Context, invoiceID string, d *payment.Delivery, now time.Time) (*payment.Payment, error)
	// DocumentStatus reads the status of the document a linked intent was priced from (one
	// strongly consistent GetItem of that attribute; "" when there is no such document).
	DocumentStatus(ctx context.Context, p *payment.Payment) (string, error)
}

// Enqueuer hands a recorded webhook event to the delivery queue.
type Enqueuer = payment.Enqueuer

// SandboxRoutes are the routes a sandbox payer can choose (the live release has none yet).
var SandboxRoutes = []Route{
	{ID: "bkash", Label: "bKash", PayerKind: "phone", PayerLabel: "bKash account number", Placeholder: "01XXXXXXXXX"},
	{ID: "nagad", Label: "Nagad", PayerKind: "phone", PayerLabel: "Nagad account number", Placeholder: "01XXXXXXXXX"},
	{ID: "card", Label: "Card", PayerKind: "email", PayerLabel: "Email for the receipt", Placeholder: "you@example.com"},
}

// Service is the checkout's operations on a payment found by its token.
type Service struct {
	Store   Store
	Limiter *Limiter
	// Events receives the webhook events that state changes record (nil: none are sent now;
	// the re-drive still finds them).
	Events Enqueuer
	// EnqueueTimeout bounds the enqueue after a state change (DefaultEnqueueTimeout when 0).
	EnqueueTimeout time.Duration
	Now            func() time.Time
}

// DefaultEnqueueTimeout bounds the enqueue that follows a recorded state change.
const DefaultEnqueueTimeout = payment.DefaultEnqueueTimeout

func (s *Service) now() time.Time {
	if s.Now != nil {
		return s.Now().UTC()
	}
	return time.Now().UTC()
}

// Clock is the service's time now (UTC): what the payer's view is rendered as of.
func (s *Service) Clock() time.Time { return s.now() }

// Open applies the abuse limits (per token and per client address) and finds the payment of
// a token, making an overdue expiry explicit on the way; cid is the request's correlation id
// (recorded with the expiry's event).
func (s *Service) Open(ctx context.Context, token, client, cid string) (*payment.Payment, error) {
	if err := s.Limiter.Allow(token, client, s.now()); err != nil {
		return nil, err
	}
	// The token names the payment and proves the payer holds its link: one strongly
	// consistent GetItem (a page opened right after create finds it), then the hash of the
	// token's secret compared in constant time. A malformed token costs no read.
	invoiceID, secretHash, ok := payment.ParseCheckoutToken(token)
	if !ok {
		return nil, notFound()
	}
	obs.Annotate(ctx, slog.String("invoice_id", invoiceID))
	p, err := s.Store.GetPayment(ctx, invoiceID)
	if err != nil {
		return nil, err
	}
	if p == nil || subtle.ConstantTimeCompare(p.CheckoutHash, secretHash[:]) != 1 {
		return nil, notFound()
	}
	if p.EffectiveStatus(s.now()) == payment.Expired && p.Status == payment.Pending {
		// Make the expiry explicit (one conditional write, once); readers agree either way.
		d, err := p.NewDelivery(payment.Expired, s.now())
		if err != nil {
			return nil, err
		}
		causedBy(d, cid)
		q, err := s.Store.ExpirePayment(ctx, p.InvoiceID, d, s.now())
		switch {
		case err == nil:
			payment.Emit(ctx, s.Events, s.EnqueueTimeout, q.InvoiceID, d)
			p = q
		case s.stateChanged(err):
			p = q
		}
	}
	return p, nil
}

func (s *Service) stateChanged(err error) bool { return errors.Is(err, payment.ErrStateChanged) }

// causedBy records the request's correlation id (24 hex digits) with the event it causes (d
// may be nil): the sender's log lines of the event carry it.
func causedBy(d *payment.Delivery, cid string) {
	if b, err := hex.DecodeString(cid); d != nil && err == nil {
		d.CID = b
	}
}

func notFound() error {
	return apierr.New(apierr.NotFound, "this payment link is not valid")
}

// routesFor returns the routes offered for a payment.
func routesFor(p *payment.Payment) []Route {
	if p.Environment == auth.Sandbox {
		return SandboxRoutes
	}
	return []Route{}
}

// Routes returns the routes offered for p.
func Routes(p *payment.Payment) []Route { return routesFor(p) }

// PurchaseOf is what a payment link's payer buys (nil for any other payment): the quantity
// the payment was priced for and the unit price, the amount divided by it (a link's intent is
// amount_minor × quantity, package intent).
func PurchaseOf(p *payment.Payment) *Purchase {
	if p.Source.Kind != payment.SourcePaymentLinks || p.Source.Quantity < 1 {
		return nil
	}
	return &Purchase{Quantity: p.Source.Quantity, UnitMinor: int64(p.AmountMinor) / p.Source.Quantity}
}

// PurchaseReader is the storage of a payment link's chosen options, an optional part of a
// Store: the payer's answers kept with the intent (the canonical answers of package
// publicdoc, {"fields":{…},…}) and the link's custom fields, for their labels.
type PurchaseReader interface {
	PurchaseAnswers(ctx context.Context, p *payment.Payment) (answers json.RawMessage, fields []document.CustomField, err error)
}

// Purchase is what a payment link's payer buys (PurchaseOf) with the options the payer chose
// on the link's page, when the Store keeps them (PurchaseReader); nil for any other payment.
func (s *Service) Purchase(ctx context.Context, p *payment.Payment) (*Purchase, error) {
	pu := PurchaseOf(p)
	r, ok := s.Store.(PurchaseReader)
	if pu == nil || !ok {
		return pu, nil
	}
	answers, fields, err := r.PurchaseAnswers(ctx, p)
	if err != nil {
		return nil, err
	}
	pu.Options = OptionsOf(answers, fields)
	return pu, nil
}

// OptionsOf are a payer's answers to a payment link's custom fields, in the link's order, as
// the checkout shows them: a select's, radio group's or text field's answer as given, a ticked
// checkbox as Checked (the page says yes in its language); an unticked checkbox, a textarea
// (a note, not a choice), a field the link no longer has and anything unreadable are left out.
func OptionsOf(answers json.RawMessage, fields []document.CustomField) []Option {
	var a struct {
		Fields map[string]json.RawMessage `json:"fields"`
	}
	if len(answers) == 0 || json.Unmarshal(answers, &a) != nil {
		return nil
	}
	var out []Option
	for _, f := range fields {
		raw, ok := a.Fields[f.ID]
		if !ok {
			continue
		}
		switch f.Type {
		case "select", "radio", "text":
			var v string
			if json.Unmarshal(raw, &v) == nil && v != "" {
				out = append(out, Option{Label: f.Label, Value: v})
			}
		case "checkbox":
			var v bool
			if json.Unmarshal(raw, &v) == nil && v {
				out = append(out, Option{Label: f.Label, Checked: true})
			}
		}
	}
	return out
}

// FindRoute returns the route id offered for p, if it is one.
func FindRoute(p *payment.Payment, id string) (Route, bool) {
	for _, r := range routesFor(p) {
		if r.ID == id {
			return r, true
		}
	}
	return Route{}, false
}

// ReturnURL is where a payer goes after a terminal status: redirect_url for COMPLETED and
// FAILED, cancel_url for CANCELLED and EXPIRED, with invoice_id appended ("" when the merchant
// gave none). The page never adds the status: merchants must verify server-side.
func ReturnURL(p *payment.Payment, status payment.Status) string {
	target := p.RedirectURL
	if status == payment.Cancelled || status == payment.Expired {
		target = p.CancelURL
	}
	if target == "" || !status.Terminal() {
		return ""
	}
	u, err := url.Parse(target)
	if err != nil {
		return ""
	}
	q := u.Query()
	q.Set("invoice_id", p.InvoiceID)
	u.RawQuery = q.Encode()
	return u.String()
}

// ViewOf is what a payer may see of a payment: nothing secret (no keys, webhook_url,
// metadata or customer details; the payer identity masked).
func ViewOf(p *payment.Payment, now time.Time) View {
	status := p.EffectiveStatus(now)
	v := View{
		InvoiceID: p.InvoiceID, Status: string(status), AmountMinor: int64(p.AmountMinor),
		AmountDisplay: p.AmountMinor.Display(), Currency: p.Currency, Reference: p.Reference,
		MerchantName: p.MerchantName, ExpiresAt: p.Expiry(), Environment: string(p.Environment),
		Routes: routesFor(p), Terminal: status.Terminal(), ReturnURL: ReturnURL(p, status),
	}
	if v.MerchantName == "" {
		v.MerchantName = "Merchant"
	}
	if p.LockRoute != "" {
		label := p.LockRoute
		if r, ok := FindRoute(p, p.LockRoute); ok {
			label = r.Label
		}
		v.Lock = &LockView{Route: p.LockRoute, RouteLabel: label, PayerMasked: Mask(p.LockPayer)}
	}
	return v
}

// Mask hides most of a payer identity (payment.MaskPayer, the one rule the dashboard shows
// too): 017•••••678 for a phone, r•••@shop.com.bd for an email.
func Mask(s string) string { return payment.MaskPayer(s) }

// normalisePayer validates the payer identity for a route and returns its stored form.
func normalisePayer(route Route, payer string) (string, string) {
	switch route.PayerKind {
	case "phone":
		n, ok := payment.NormaliseMobile(payer)
		if !ok {
			return "", payment.MobileRule
		}
		return n, ""
	case "email":
		if rule := email.Check(payer); rule != "" {
			return "", rule
		}
		return strings.ToLower(payer), ""
	}
	return "", "is not accepted for this route"
}

// Result is the outcome of a payer's action: the payment as it now is. Closed, when set, is
// the refusal of an action on an intent whose document the merchant closed (a cancelled
// invoice, an archived payment link): the intent was cancelled on the way (Payment is then
// the cancelled intent), Closed is the 409 for an API client and ClosedKey names the words
// for the payer's page.
type Result struct {
	Payment   *payment.Payment
	Closed    error
	ClosedKey string
}

// Lock locks the payer's route and identity on p: the first lock wins; the same lock again is
// idempotent; a route or payer that is not valid is a 422 naming body.route or body.payer.
func (s *Service) Lock(ctx context.Context, p *payment.Payment, routeID, payer, cid string) (*Result, error) {
	route, payer, err := lockChoice(p, routeID, payer)
	if err != nil {
		return nil, err
	}
	if p.LockRoute != "" {
		return s.lockResult(p, route.ID, payer)
	}
	if st := p.EffectiveStatus(s.now()); st != payment.Pending {
		return nil, apierr.New(apierr.StateConflict, "this payment is %s and cannot be locked", strings.ToLower(string(st)))
	}
	if res, err := s.refuseIfClosed(ctx, p, cid); res != nil || err != nil {
		return res, err
	}
	q, err := s.Store.LockPayment(ctx, p, route.ID, payer, s.now())
	switch {
	case err == nil:
		return &Result{Payment: q}, nil
	case s.stateChanged(err):
		return s.lockResult(q, route.ID, payer)
	}
	return nil, err
}

// lockChoice validates a lock's route and payer for p and returns the route and the payer's
// stored form.
func lockChoice(p *payment.Payment, routeID, payer string) (Route, string, error) {
	route, ok := FindRoute(p, routeID)
	var vs []apierr.Violation
	if !ok {
		ids := []string{}
		for _, rt := range routesFor(p) {
			ids = append(ids, rt.ID)
		}
		vs = append(vs, apierr.Violation{Path: "body.route", Rule: "must be one of: " + strings.Join(ids, ", ")})
	}
	if ok {
		var rule string
		if payer, rule = normalisePayer(route, payer); rule != "" {
			vs = append(vs, apierr.Violation{Path: "body.payer", Rule: rule})
		}
	}
	if len(vs) > 0 {
		return route, "", apierr.Invalid(vs...)
	}
	return route, payer, nil
}

// lockResult answers a lock request on a payment that is already locked or has moved on.
func (s *Service) lockResult(p *payment.Payment, route, payer string) (*Result, error) {
	if p.LockRoute == route && p.LockPayer == payer {
		return &Result{Payment: p}, nil // the same lock again: idempotent
	}
	if p.LockRoute != "" {
		return nil, apierr.New(apierr.StateConflict, "this payment is already locked to another route or payer")
	}
	return nil, apierr.New(apierr.StateConflict, "this payment is %s and cannot be locked",
		strings.ToLower(string(p.EffectiveStatus(s.now()))))
}

// Notice is a payer's notice: cancel (any PENDING payment) and, in sandbox only, the
// simulated provider's approve (→ COMPLETED) and decline (→ FAILED) for a locked one.
type Notice struct {
	Action      string
	To          payment.Status
	SandboxOnly bool
}

// notices are the notice actions.
var notices = map[string]Notice{
	"cancel":  {"cancel", payment.Cancelled, false},
	"approve": {"approve", payment.Completed, true},
	"decline": {"decline", payment.Failed, true},
}

// ParseNotice returns the notice of an action (404 for an unknown one).
func ParseNotice(action string) (Notice, error) {
	n, ok := notices[action]
	if !ok {
		return Notice{}, apierr.New(apierr.NotFound, "unknown notice %q (known: approve, cancel, decline)", action)
	}
	return n, nil
}

// Notice records notice n's outcome on p. The same outcome again (a payer's retry after a lost
// answer) answers as the first time did; another outcome of a payment that is no longer
// PENDING is a 409.
func (s *Service) Notice(ctx context.Context, p *payment.Payment, n Notice, cid string) (*Result, error) {
	if n.SandboxOnly && p.Environment != auth.Sandbox {
		return nil, apierr.New(apierr.ScopeOrEnvironmentDenied, "%s is a sandbox simulation and is refused for live payments", n.Action)
	}
	if n.SandboxOnly && p.LockRoute == "" {
		return nil, apierr.New(apierr.StateConflict, "choose a route first: the provider outcome needs a locked payment")
	}
	if st := p.EffectiveStatus(s.now()); st != payment.Pending {
		return s.finished(p, n.To)
	}
	if n.To == payment.Completed {
		if res, err := s.refuseIfClosed(ctx, p, cid); res != nil || err != nil {
			return res, err
		}
	}
	d, err := p.NewDelivery(n.To, s.now())
	if err != nil {
		return nil, err
	}
	causedBy(d, cid)
	q, err := s.Store.FinishPayment(ctx, p.InvoiceID, n.To, n.SandboxOnly, d, s.now())
	switch {
	case err == nil:
		payment.Emit(ctx, s.Events, s.EnqueueTimeout, q.InvoiceID, d)
		return &Result{Payment: q}, nil
	case s.stateChanged(err):
		return s.finished(q, n.To)
	}
	return nil, err
}

// refuseIfClosed closes the door of a document the merchant closed (a cancelled invoice, an
// archived payment link): before a payer locks or approves one of its intents, the document is
// read (one GetItem), and if it no longer takes payments the intent is cancelled (with its
// event, so its document and the merchant learn it) and the payer is told why (Result.Closed).
// It answers nil, nil to go on. An approve already past this check when the merchant closes
// the document still completes: the settlement records it on the document as paid after
// close, never lost.
func (s *Service) refuseIfClosed(ctx context.Context, p *payment.Payment, cid string) (*Result, error) {
	if !p.Linked() {
		return nil, nil
	}
	status, err := s.Store.DocumentStatus(ctx, p)
	if err != nil {
		return nil, err
	}
	kind := document.Kind(p.Source.Kind)
	if status == "" || document.Open(kind, status) {
		return nil, nil
	}
	msg, key := "The merchant has closed this payment link, so this payment was cancelled. No money was taken.", "checkout.closed.link"
	if kind == document.Invoices {
		msg, key = "The merchant has cancelled this invoice, so this payment was cancelled. No money was taken.", "checkout.closed.invoice"
	}
	now := s.now()
	d, err := p.NewDelivery(payment.Cancelled, now)
	if err != nil {
		return nil, err
	}
	causedBy(d, cid)
	q, err := s.Store.FinishPayment(ctx, p.InvoiceID, payment.Cancelled, false, d, now)
	switch {
	case err == nil:
		payment.Emit(ctx, s.Events, s.EnqueueTimeout, q.InvoiceID, d)
	case !s.stateChanged(err):
		return nil, err
	}
	return &Result{Payment: q, Closed: apierr.New(apierr.StateConflict, "%s", msg), ClosedKey: key}, nil
}

// finished answers a notice for a payment that is no longer PENDING: terminal states never
// change again. The same outcome again is a success; another outcome is a conflict.
func (s *Service) finished(p *payment.Payment, wanted payment.Status) (*Result, error) {
	st := p.EffectiveStatus(s.now())
	if st == wanted {
		return &Result{Payment: p}, nil
	}
	return nil, apierr.New(apierr.StateConflict, "this payment is already %s; it cannot become %s",
		strings.ToLower(string(st)), strings.ToLower(string(wanted)))
}

// Limiter bounds the page's requests per token and per client address (see
// ratelimit.CapabilityLimiter).
type Limiter = ratelimit.CapabilityLimiter
