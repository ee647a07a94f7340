// Package checkout is the hosted payment page and its public, token-addressed endpoints: the
// payer views the payment, locks a route and identity, and (in sandbox) plays the simulated
// provider's outcome or cancels. No merchant credential is involved; the 256-bit token in the
// URL is the capability.
package checkout

import (
	"bytes"
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"log/slog"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"time"

	"github.com/takapay/payments/shared/apierr"
	"github.com/takapay/payments/shared/auth"
	"github.com/takapay/payments/shared/document"
	"github.com/takapay/payments/shared/jsonbody"
	"github.com/takapay/payments/shared/obs"
	"github.com/takapay/payments/shared/page"
	"github.com/takapay/payments/shared/payment"
	"github.com/takapay/payments/shared/ratelimit"
	"github.com/takapay/payments/shared/web"
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

// Service serves the checkout routes (one Lambda).
type Service struct {
	Store   Store
	Limiter *Limiter
	// Events receives the webhook events that state changes record (nil: none are sent now;
	// the re-drive still finds them).
	Events Enqueuer
	// AllowLocalhostRedirects lets the page's form-action follow http://localhost merchant
	// URLs (make dev only; see SecurityHeaders).
	AllowLocalhostRedirects bool
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

// mode tells how to answer: a browser (HTML page, forms, redirects) or an API client (JSON),
// and for a browser in which language.
type mode struct {
	html bool
	lang page.Choice
}

// modeOf reads the request's mode. The language is the payer's explicit ?lang=, else the
// browser's Accept-Language, else English; load then lets the payment's locale come before
// the browser's (page.Choose). An error page before the payment is found has no locale.
func modeOf(r *web.Request) mode {
	m := mode{html: isForm(r) || strings.Contains(r.Header("Accept"), "text/html")}
	m.lang = page.Choose(r.Query[page.QueryParam], "", r.Header("Accept-Language"))
	return m
}

// isForm reports a form post from the page. A JSON object sent with curl's default form
// content type (curl -d '{...}') is JSON, not a form.
func isForm(r *web.Request) bool {
	return strings.HasPrefix(r.Header("Content-Type"), "application/x-www-form-urlencoded") &&
		!bytes.HasPrefix(bytes.TrimSpace(r.Body), []byte("{"))
}

// View serves GET /v1/public/checkout/{token}: the page to a browser, the view as JSON otherwise.
// The JSON carries an ETag (see ViewETag); a request whose If-None-Match names it is answered
// 304 Not Modified with no body. The read is the same (one GetItem); the answer is smaller,
// and the page's script polls with If-None-Match. The response stays Cache-Control: no-store
// (the URL is a bearer credential): the script keeps the ETag itself, no cache does.
func (s *Service) View(ctx context.Context, r *web.Request) (*web.Response, error) {
	p, m, base, err := s.load(ctx, r)
	if err != nil {
		return nil, err
	}
	if m.html {
		return s.page(p, base, m, "", http.StatusOK), nil
	}
	body, err := web.Marshal(ViewOf(p, s.now()))
	if err != nil {
		return nil, err
	}
	tag := ViewETag(body)
	h := map[string]string{"ETag": tag}
	if etagMatches(r.Header("If-None-Match"), tag) {
		return &web.Response{Status: http.StatusNotModified, Headers: h, Raw: []byte{}}, nil
	}
	return &web.Response{Status: http.StatusOK, Headers: h, Raw: body}, nil
}

// ViewETag returns the entity tag of a view's JSON: a quoted, 22-character base64url
// SHA-256 prefix (128 bits) of exactly the bytes sent, so it changes whenever anything the
// payer sees changes (status, lock, expiry, return URL) and never otherwise.
func ViewETag(body []byte) string {
	sum := sha256.Sum256(body)
	return `"` + base64.RawURLEncoding.EncodeToString(sum[:16]) + `"`
}

// etagMatches reports whether an If-None-Match header names tag: "*", or a comma-separated
// list of entity tags compared weakly (a W/ prefix is ignored, as RFC 9110 asks for
// If-None-Match).
func etagMatches(header, tag string) bool {
	for part := range strings.SplitSeq(header, ",") {
		part = strings.TrimSpace(part)
		if part == "*" || strings.TrimPrefix(part, "W/") == tag {
			return true
		}
	}
	return false
}

// Lock serves POST /v1/public/checkout/{token}/lock.
func (s *Service) Lock(ctx context.Context, r *web.Request) (*web.Response, error) {
	p, m, base, err := s.load(ctx, r)
	if err != nil {
		return nil, err
	}
	return s.lock(ctx, r, p, base, m)
}

// Notice serves POST /v1/public/checkout/{token}/notices/{noticeAction}.
func (s *Service) Notice(ctx context.Context, r *web.Request) (*web.Response, error) {
	p, m, base, err := s.load(ctx, r)
	if err != nil {
		return nil, err
	}
	return s.notice(ctx, r, p, base, m)
}

// ErrorPage renders an error as a page for a browser (nil for an API client, which gets the
// envelope). The HTTP edge calls it after classifying the error.
func (s *Service) ErrorPage(r *web.Request, e *apierr.Error) *web.Response {
	m := modeOf(r)
	if !m.html {
		return nil
	}
	return s.htmlError(e, m.lang.Lang, payment.CheckoutPath(r.PathParams["token"]))
}

// load applies the abuse limits and finds the payment of the request's token, making an
// overdue expiry explicit on the way.
func (s *Service) load(ctx context.Context, r *web.Request) (*payment.Payment, mode, string, error) {
	m := modeOf(r)
	token := r.PathParams["token"]
	if err := s.Limiter.Allow(token, r.SourceIP, s.now()); err != nil {
		return nil, m, "", err
	}
	// The token names the payment and proves the payer holds its link: one strongly
	// consistent GetItem (a page opened right after create finds it), then the hash of the
	// token's secret compared in constant time. A malformed token costs no read.
	invoiceID, secretHash, ok := payment.ParseCheckoutToken(token)
	if !ok {
		return nil, m, "", notFound()
	}
	obs.Annotate(ctx, slog.String("invoice_id", invoiceID))
	p, err := s.Store.GetPayment(ctx, invoiceID)
	if err != nil {
		return nil, m, "", err
	}
	if p == nil || subtle.ConstantTimeCompare(p.CheckoutHash, secretHash[:]) != 1 {
		return nil, m, "", notFound()
	}
	// The merchant's locale comes after the payer's explicit ?lang= and before the browser's.
	m.lang = page.Choose(r.Query[page.QueryParam], p.Locale, r.Header("Accept-Language"))
	if p.EffectiveStatus(s.now()) == payment.Expired && p.Status == payment.Pending {
		// Make the expiry explicit (one conditional write, once); readers agree either way.
		d, err := p.NewDelivery(payment.Expired, s.now())
		if err != nil {
			return nil, m, "", err
		}
		causedBy(d, r)
		q, err := s.Store.ExpirePayment(ctx, p.InvoiceID, d, s.now())
		switch {
		case err == nil:
			payment.Emit(ctx, s.Events, s.EnqueueTimeout, q.InvoiceID, d)
			p = q
		case s.stateChanged(err):
			p = q
		}
	}
	return p, m, payment.CheckoutPath(token), nil
}

func (s *Service) stateChanged(err error) bool { return errors.Is(err, payment.ErrStateChanged) }

// causedBy records the request's correlation id with the event it causes (d may be nil): the
// sender's log lines of the event carry it.
func causedBy(d *payment.Delivery, r *web.Request) {
	if b, err := hex.DecodeString(r.CorrelationID); d != nil && err == nil {
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

func findRoute(p *payment.Payment, id string) (Route, bool) {
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
		if r, ok := findRoute(p, p.LockRoute); ok {
			label = r.Label
		}
		v.Lock = &LockView{Route: p.LockRoute, RouteLabel: label, PayerMasked: Mask(p.LockPayer)}
	}
	return v
}

// Mask hides most of a payer identity (payment.MaskPayer, the one rule the dashboard shows
// too): 017•••••678 for a phone, r•••@shop.com.bd for an email.
func Mask(s string) string { return payment.MaskPayer(s) }

// page answers with the payment: the HTML page to a browser, the view as JSON otherwise.
func (s *Service) page(p *payment.Payment, base string, m mode, errMsg string, status int) *web.Response {
	v := ViewOf(p, s.now())
	if !m.html {
		return web.JSON(status, v)
	}
	v.ActionBase, v.Error, v.Lang = base, errMsg, m.lang
	var buf bytes.Buffer
	if err := RenderPage(&buf, v); err != nil {
		return s.htmlError(apierr.Wrap(apierr.Internal, err, "internal error"), m.lang.Lang, base)
	}
	return &web.Response{Status: status, Headers: SecurityHeaders(s.AllowLocalhostRedirects), Raw: buf.Bytes()}
}

// seeOther sends a browser on after a form post (POST/redirect/GET).
func (s *Service) seeOther(location string) *web.Response {
	h := SecurityHeaders(s.AllowLocalhostRedirects)
	h["Location"] = location
	return &web.Response{Status: http.StatusSeeOther, Headers: h, Raw: []byte{}}
}

// htmlError renders an error for a browser with the envelope's status, in words for the payer
// in l (the envelope's message is for developers and stays in the JSON). self is the
// checkout page's path, for the language switch.
func (s *Service) htmlError(e *apierr.Error, l page.Lang, self string) *web.Response {
	key := "page.err.internal"
	switch e.Code {
	case apierr.NotFound:
		key = "checkout.err.not_found"
	case apierr.RateLimited:
		key = "page.err.rate_limited"
	case apierr.StateConflict:
		key = "checkout.err.conflict"
	case apierr.ScopeOrEnvironmentDenied:
		key = "page.err.denied"
	case apierr.MalformedRequest, apierr.ValidationFailed:
		key = "page.err.bad_request"
	}
	var buf bytes.Buffer
	_ = ErrorPage(&buf, l, l.T(key+".title"), l.T(key), self)
	h := SecurityHeaders(s.AllowLocalhostRedirects)
	for k, v := range e.Headers {
		h[k] = v
	}
	return &web.Response{Status: e.Status(), Headers: h, Raw: buf.Bytes()}
}

// fields reads the POST body: a JSON object, or a form from the page.
func fields(r *web.Request, m mode, names ...string) (map[string]string, error) {
	out := map[string]string{}
	if m.html && isForm(r) {
		form, err := url.ParseQuery(string(r.Body))
		if err != nil {
			return nil, apierr.New(apierr.MalformedRequest, "the form could not be read")
		}
		for _, n := range names {
			out[n] = strings.TrimSpace(form.Get(n))
		}
		return out, nil
	}
	if len(bytes.TrimSpace(r.Body)) == 0 {
		return out, nil
	}
	obj, err := jsonbody.ParseObject(r.Body)
	if err != nil {
		return nil, err
	}
	rd := jsonbody.NewReader(obj)
	rd.OnlyKnown(names...)
	for _, n := range names {
		if v, ok := rd.String(n, jsonbody.StringRule{Max: 254}); ok {
			out[n] = strings.TrimSpace(v)
		}
	}
	return out, rd.Err()
}

// checkSameOrigin refuses a browser form post from another site. The token in the URL is the
// only credential (nothing ambient such as a cookie), but a page elsewhere must still not be
// able to drive a payer's checkout through their browser. Fetch Metadata decides when the
// browser sends it (with Referrer-Policy no-referrer, browsers send "Origin: null" even on
// same-origin posts); otherwise a present Origin must be this host.
func checkSameOrigin(r *web.Request) error {
	refused := apierr.New(apierr.ScopeOrEnvironmentDenied, "cross-site form submission refused")
	if site := r.Header("Sec-Fetch-Site"); site != "" {
		if site != "same-origin" {
			return refused
		}
		return nil
	}
	origin := r.Header("Origin")
	if origin == "" {
		return nil // not a browser
	}
	u, err := url.Parse(origin)
	if err != nil || u.Host != r.Host {
		return refused
	}
	return nil
}

var bdMobile = regexp.MustCompile(`^(?:\+?880|0)?(1[3-9][0-9]{8})$`)

// normalisePayer validates the payer identity for a route and returns its stored form.
func normalisePayer(route Route, payer string) (string, string) {
	switch route.PayerKind {
	case "phone":
		// A Bangla keyboard types Bangla digits (০১৭…): they are the same number.
		compact := strings.NewReplacer(" ", "", "-", "", "০", "0", "১", "1", "২", "2", "৩", "3", "৪", "4",
			"৫", "5", "৬", "6", "৭", "7", "৮", "8", "৯", "9").Replace(payer)
		mm := bdMobile.FindStringSubmatch(compact)
		if mm == nil {
			return "", "must be a Bangladeshi mobile number such as 01712345678"
		}
		return "0" + mm[1], ""
	case "email":
		if rule := jsonbody.CheckEmail(payer); rule != "" {
			return "", rule
		}
		return strings.ToLower(payer), ""
	}
	return "", "is not accepted for this route"
}

// lock serves POST .../lock: the first lock wins; the same lock again is idempotent.
func (s *Service) lock(ctx context.Context, r *web.Request, p *payment.Payment, base string, m mode) (*web.Response, error) {
	if m.html {
		if err := checkSameOrigin(r); err != nil {
			return nil, err
		}
	}
	f, err := fields(r, m, "route", "payer")
	if err != nil {
		return nil, err
	}
	route, ok := findRoute(p, f["route"])
	var vs []apierr.Violation
	if !ok {
		ids := []string{}
		for _, rt := range routesFor(p) {
			ids = append(ids, rt.ID)
		}
		vs = append(vs, apierr.Violation{Path: "body.route", Rule: "must be one of: " + strings.Join(ids, ", ")})
	}
	var payer string
	if ok {
		var rule string
		if payer, rule = normalisePayer(route, f["payer"]); rule != "" {
			vs = append(vs, apierr.Violation{Path: "body.payer", Rule: rule})
		}
	}
	if len(vs) > 0 {
		if m.html {
			return s.page(p, base, m, payerMessage(m.lang.Lang, route, vs), http.StatusUnprocessableEntity), nil
		}
		return nil, apierr.Invalid(vs...)
	}
	if p.LockRoute != "" {
		return s.lockResult(p, route.ID, payer, base, m)
	}
	if st := p.EffectiveStatus(s.now()); st != payment.Pending {
		return nil, apierr.New(apierr.StateConflict, "this payment is %s and cannot be locked", strings.ToLower(string(st)))
	}
	if resp, err := s.refuseIfClosed(ctx, r, p, base, m); resp != nil || err != nil {
		return resp, err
	}
	q, err := s.Store.LockPayment(ctx, p, route.ID, payer, s.now())
	switch {
	case err == nil:
		if m.html {
			return s.seeOther(m.lang.URL(base)), nil
		}
		return s.page(q, base, m, "", http.StatusOK), nil
	case s.stateChanged(err):
		return s.lockResult(q, route.ID, payer, base, m)
	}
	return nil, err
}

// lockResult answers a lock request on a payment that is already locked or has moved on.
func (s *Service) lockResult(p *payment.Payment, route, payer, base string, m mode) (*web.Response, error) {
	if p.LockRoute == route && p.LockPayer == payer {
		if m.html {
			return s.seeOther(m.lang.URL(base)), nil
		}
		return s.page(p, base, m, "", http.StatusOK), nil // the same lock again: idempotent
	}
	if p.LockRoute != "" {
		return nil, apierr.New(apierr.StateConflict, "this payment is already locked to another route or payer")
	}
	return nil, apierr.New(apierr.StateConflict, "this payment is %s and cannot be locked",
		strings.ToLower(string(p.EffectiveStatus(s.now()))))
}

// Notice actions.
var notices = map[string]struct {
	to          payment.Status
	sandboxOnly bool
}{
	"cancel":  {payment.Cancelled, false},
	"approve": {payment.Completed, true},
	"decline": {payment.Failed, true},
}

// notice serves POST .../notices/{noticeAction}: cancel (any PENDING payment) and, in sandbox
// only, the simulated provider's approve (→ COMPLETED) and decline (→ FAILED) for a locked one.
func (s *Service) notice(ctx context.Context, r *web.Request, p *payment.Payment, base string, m mode) (*web.Response, error) {
	action := r.PathParams["noticeAction"]
	n, ok := notices[action]
	if !ok {
		return nil, apierr.New(apierr.NotFound, "unknown notice %q (known: approve, cancel, decline)", action)
	}
	if m.html {
		if err := checkSameOrigin(r); err != nil {
			return nil, err
		}
	}
	if n.sandboxOnly && p.Environment != auth.Sandbox {
		return nil, apierr.New(apierr.ScopeOrEnvironmentDenied, "%s is a sandbox simulation and is refused for live payments", action)
	}
	if n.sandboxOnly && p.LockRoute == "" {
		return nil, apierr.New(apierr.StateConflict, "choose a route first: the provider outcome needs a locked payment")
	}
	if st := p.EffectiveStatus(s.now()); st != payment.Pending {
		return s.finished(p, n.to, base, m)
	}
	if n.to == payment.Completed {
		if resp, err := s.refuseIfClosed(ctx, r, p, base, m); resp != nil || err != nil {
			return resp, err
		}
	}
	d, err := p.NewDelivery(n.to, s.now())
	if err != nil {
		return nil, err
	}
	causedBy(d, r)
	q, err := s.Store.FinishPayment(ctx, p.InvoiceID, n.to, n.sandboxOnly, d, s.now())
	switch {
	case err == nil:
		payment.Emit(ctx, s.Events, s.EnqueueTimeout, q.InvoiceID, d)
		return s.outcome(q, base, m), nil
	case s.stateChanged(err):
		return s.finished(q, n.to, base, m)
	}
	return nil, err
}

// refuseIfClosed closes the door of a document the merchant closed (a cancelled invoice, an
// archived payment link): before a payer locks or approves one of its intents, the document is
// read (one GetItem), and if it no longer takes payments the intent is cancelled (with its
// event, so its document and the merchant learn it) and the payer is told why. It answers nil,
// nil to go on. An approve already past this check when the merchant closes the document still
// completes: the settlement records it on the document as paid after close, never lost.
func (s *Service) refuseIfClosed(ctx context.Context, r *web.Request, p *payment.Payment, base string, m mode) (*web.Response, error) {
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
	causedBy(d, r)
	q, err := s.Store.FinishPayment(ctx, p.InvoiceID, payment.Cancelled, false, d, now)
	switch {
	case err == nil:
		payment.Emit(ctx, s.Events, s.EnqueueTimeout, q.InvoiceID, d)
	case !s.stateChanged(err):
		return nil, err
	}
	if m.html {
		return s.page(q, base, m, m.lang.Lang.T(key), http.StatusConflict), nil
	}
	return nil, apierr.New(apierr.StateConflict, "%s", msg)
}

// finished answers a notice for a payment that is no longer PENDING: terminal states never
// change again. The same outcome again (a payer's retry of approve, decline or cancel, say
// after a lost answer) is a success with the same answer as the first time; another outcome
// is a conflict.
func (s *Service) finished(p *payment.Payment, wanted payment.Status, base string, m mode) (*web.Response, error) {
	st := p.EffectiveStatus(s.now())
	if st == wanted {
		return s.outcome(p, base, m), nil
	}
	return nil, apierr.New(apierr.StateConflict, "this payment is already %s; it cannot become %s",
		strings.ToLower(string(st)), strings.ToLower(string(wanted)))
}

// outcome answers a notice whose outcome the payment has: a browser goes on to the merchant's
// return URL (or back to the page), an API client gets the payment's view.
func (s *Service) outcome(p *payment.Payment, base string, m mode) *web.Response {
	if m.html {
		if u := ReturnURL(p, p.EffectiveStatus(s.now())); u != "" {
			return s.seeOther(u)
		}
		return s.seeOther(m.lang.URL(base))
	}
	return s.page(p, base, m, "", http.StatusOK)
}

// payerMessage words validation problems for the payer in l, not for an API client: what
// to choose, or what kind of identity the chosen route needs.
func payerMessage(l page.Lang, route Route, vs []apierr.Violation) string {
	var parts []string
	for _, v := range vs {
		switch {
		case v.Path == "body.route":
			parts = append(parts, l.T("checkout.err.route"))
		case v.Path == "body.payer" && route.PayerKind == "phone":
			parts = append(parts, l.T("checkout.err.phone"))
		case v.Path == "body.payer" && route.PayerKind == "email":
			parts = append(parts, l.T("checkout.err.email"))
		default:
			parts = append(parts, l.T("checkout.err.payer"))
		}
	}
	return strings.Join(parts, " ")
}

// Limiter bounds the page's requests per token and per client address (see
// ratelimit.CapabilityLimiter).
type Limiter = ratelimit.CapabilityLimiter
