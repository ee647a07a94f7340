// Package checkoutapi is the HTTP edge of the hosted checkout: GET /v1/public/checkout/{token}
// and its lock and notice posts. It tells a browser (the HTML page, forms, 303 redirects) from
// an API client (JSON), reads the form or JSON body, refuses cross-site form posts, calls the
// rules of package checkout with typed values and renders the answer (the page and error
// page come from package checkout's rendering).
package checkoutapi

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"log/slog"
	"net/http"
	"net/url"
	"strings"

	"github.com/takapay/payments/shared/checkout"
	"github.com/takapay/payments/shared/foundation/apierr"
	"github.com/takapay/payments/shared/foundation/jsonbody"
	"github.com/takapay/payments/shared/foundation/obs"
	"github.com/takapay/payments/shared/foundation/page"
	"github.com/takapay/payments/shared/foundation/web"
	"github.com/takapay/payments/shared/payerrefund"
	"github.com/takapay/payments/shared/payment"
)

// Handlers serves the checkout routes (one Lambda) over a checkout.Service.
type Handlers struct {
	Service *checkout.Service
	// AllowLocalhostRedirects lets the page's form-action follow http://localhost merchant
	// URLs (make dev only; see checkout.SecurityHeaders).
	AllowLocalhostRedirects bool
	// Refunds is the payer's refund door (nil: the page offers none).
	Refunds *payerrefund.Door
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

// load finds the payment of the request's token (checkout.Service.Open) and the page's
// language: the merchant's locale comes after the payer's explicit ?lang= and before the
// browser's.
func (h *Handlers) load(ctx context.Context, r *web.Request) (*payment.Payment, mode, string, error) {
	m := modeOf(r)
	token := r.PathParams["token"]
	p, err := h.Service.Open(ctx, token, r.SourceIP, r.CorrelationID)
	if err != nil {
		return nil, m, "", err
	}
	m.lang = page.Choose(r.Query[page.QueryParam], p.Locale, r.Header("Accept-Language"))
	return p, m, payment.CheckoutPath(token), nil
}

// View serves GET /v1/public/checkout/{token}: the page to a browser, the view as JSON otherwise.
// The JSON carries an ETag (see ViewETag); a request whose If-None-Match names it is answered
// 304 Not Modified with no body. The read is the same (one GetItem); the answer is smaller,
// and the page's script polls with If-None-Match. The response stays Cache-Control: no-store
// (the URL is a bearer credential): the script keeps the ETag itself, no cache does.
func (h *Handlers) View(ctx context.Context, r *web.Request) (*web.Response, error) {
	p, m, base, err := h.load(ctx, r)
	if err != nil {
		return nil, err
	}
	if m.html {
		return h.page(ctx, p, base, m, "", http.StatusOK), nil
	}
	body, err := web.Marshal(checkout.ViewOf(p, h.Service.Clock()))
	if err != nil {
		return nil, err
	}
	tag := ViewETag(body)
	hd := map[string]string{"ETag": tag}
	if etagMatches(r.Header("If-None-Match"), tag) {
		return &web.Response{Status: http.StatusNotModified, Headers: hd, Raw: []byte{}}, nil
	}
	return &web.Response{Status: http.StatusOK, Headers: hd, Raw: body}, nil
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

// Lock serves POST /v1/public/checkout/{token}/lock: the first lock wins; the same lock again
// is idempotent.
func (h *Handlers) Lock(ctx context.Context, r *web.Request) (*web.Response, error) {
	p, m, base, err := h.load(ctx, r)
	if err != nil {
		return nil, err
	}
	if m.html {
		if err := checkSameOrigin(r); err != nil {
			return nil, err
		}
	}
	route, payer, typed, err := lockFields(r, m, p)
	if err != nil {
		return nil, err
	}
	res, err := h.Service.Lock(ctx, p, route, payer, r.CorrelationID)
	var ae *apierr.Error
	if m.html && errors.As(err, &ae) && ae.Code == apierr.ValidationFailed {
		// The page comes back with the payer's choice and every number typed.
		chosen, _ := checkout.FindRoute(p, route)
		return h.render(ctx, p, base, m, func(v *checkout.View) {
			v.Error, v.Chosen, v.Typed = payerMessage(m.lang.Lang, chosen, ae.Violations), route, typed
		}, http.StatusUnprocessableEntity), nil
	}
	if err != nil {
		return nil, err
	}
	if res.Closed != nil {
		return h.closed(ctx, res, base, m)
	}
	if m.html {
		return h.seeOther(m.lang.URL(base)), nil
	}
	return h.page(ctx, res.Payment, base, m, "", http.StatusOK), nil
}

// Notice serves POST /v1/public/checkout/{token}/notices/{noticeAction}: cancel (any PENDING
// payment) and, in sandbox only, the simulated provider's approve and decline.
func (h *Handlers) Notice(ctx context.Context, r *web.Request) (*web.Response, error) {
	p, m, base, err := h.load(ctx, r)
	if err != nil {
		return nil, err
	}
	n, err := checkout.ParseNotice(r.PathParams["noticeAction"])
	if err != nil {
		return nil, err
	}
	if m.html {
		if err := checkSameOrigin(r); err != nil {
			return nil, err
		}
	}
	res, err := h.Service.Notice(ctx, p, n, r.CorrelationID)
	if err != nil {
		return nil, err
	}
	if res.Closed != nil {
		return h.closed(ctx, res, base, m)
	}
	return h.outcome(ctx, res.Payment, base, m), nil
}

// closed answers an action refused because the merchant closed the intent's document: the
// page with the payer's words (409) to a browser, the 409 envelope to an API client.
func (h *Handlers) closed(ctx context.Context, res *checkout.Result, base string, m mode) (*web.Response, error) {
	if m.html {
		return h.page(ctx, res.Payment, base, m, m.lang.Lang.T(res.ClosedKey), http.StatusConflict), nil
	}
	return nil, res.Closed
}

// outcome answers a notice whose outcome the payment has: a browser goes on to the merchant's
// return URL (or back to the page), an API client gets the payment's view.
func (h *Handlers) outcome(ctx context.Context, p *payment.Payment, base string, m mode) *web.Response {
	if m.html {
		if u := checkout.ReturnURL(p, p.EffectiveStatus(h.Service.Clock())); u != "" {
			return h.seeOther(u)
		}
		return h.seeOther(m.lang.URL(base))
	}
	return h.page(ctx, p, base, m, "", http.StatusOK)
}

// ErrorPage renders an error as a page for a browser (nil for an API client, which gets the
// envelope). The HTTP edge calls it after classifying the error.
func (h *Handlers) ErrorPage(r *web.Request, e *apierr.Error) *web.Response {
	m := modeOf(r)
	if !m.html {
		return nil
	}
	return h.htmlError(e, m.lang.Lang, payment.CheckoutPath(r.PathParams["token"]))
}

// page answers with the payment: the HTML page to a browser, the view as JSON otherwise.
func (h *Handlers) page(ctx context.Context, p *payment.Payment, base string, m mode, errMsg string, status int) *web.Response {
	return h.render(ctx, p, base, m, func(v *checkout.View) { v.Error = errMsg }, status)
}

// render answers with the payment: the view as JSON to an API client; to a browser the HTML
// page, with the page-only fields fill sets (the error, a refused post's values).
func (h *Handlers) render(ctx context.Context, p *payment.Payment, base string, m mode, fill func(*checkout.View), status int) *web.Response {
	v := checkout.ViewOf(p, h.Service.Clock())
	if !m.html {
		return web.JSON(status, v)
	}
	v.ActionBase, v.Lang = base, m.lang
	v.Refund = h.refundSection(ctx, p)
	fill(&v)
	var err error
	if v.Purchase, err = h.Service.Purchase(ctx, p); err != nil {
		// The options are a courtesy: the page still says the quantity and the price, and
		// the request's log line says why the options are missing.
		obs.Annotate(ctx, slog.String("purchase_error", err.Error()))
		v.Purchase = checkout.PurchaseOf(p)
	}
	var buf bytes.Buffer
	if err := checkout.RenderPage(&buf, v); err != nil {
		return h.htmlError(apierr.Wrap(apierr.Internal, err, "internal error"), m.lang.Lang, base)
	}
	return &web.Response{Status: status, Headers: checkout.SecurityHeaders(h.AllowLocalhostRedirects), Raw: buf.Bytes()}
}

// seeOther sends a browser on after a form post (POST/redirect/GET).
func (h *Handlers) seeOther(location string) *web.Response {
	hd := checkout.SecurityHeaders(h.AllowLocalhostRedirects)
	hd["Location"] = location
	return &web.Response{Status: http.StatusSeeOther, Headers: hd, Raw: []byte{}}
}

// htmlError renders an error for a browser with the envelope's status, in words for the payer
// in l (checkout.WriteError). self is the checkout page's path, for the language switch.
func (h *Handlers) htmlError(e *apierr.Error, l page.Lang, self string) *web.Response {
	var buf bytes.Buffer
	_ = checkout.WriteError(&buf, e.Code, l, self)
	hd := checkout.SecurityHeaders(h.AllowLocalhostRedirects)
	for k, v := range e.Headers {
		hd[k] = v
	}
	return &web.Response{Status: e.Status(), Headers: hd, Raw: buf.Bytes()}
}

// lockFields reads a lock's route and payer identity. A JSON object has "route" and "payer"
// (only). The page's form has "route" and each route's own field (checkout.PayerField: the
// bKash number, the Nagad number, the card receipt's email); the chosen route's field is the
// payer, and the form's old single field "payer" still counts when that one is empty. A form
// without a route whose fields hold exactly one value chooses that value's route. typed is
// what the form's fields held, by route id, to refill a refused form.
func lockFields(r *web.Request, m mode, p *payment.Payment) (route, payer string, typed map[string]string, err error) {
	if !m.html || !isForm(r) {
		f, err := fields(r, "route", "payer")
		return f["route"], f["payer"], nil, err
	}
	form, perr := url.ParseQuery(string(r.Body))
	if perr != nil {
		return "", "", nil, apierr.New(apierr.MalformedRequest, "the form could not be read")
	}
	typed = map[string]string{}
	only := ""
	for _, rt := range checkout.Routes(p) {
		if v := strings.TrimSpace(form.Get(checkout.PayerField(rt.ID))); v != "" {
			typed[rt.ID], only = v, rt.ID
		}
	}
	route = strings.TrimSpace(form.Get("route"))
	if route == "" && len(typed) == 1 {
		route = only
	}
	payer = typed[route]
	if payer == "" {
		payer = strings.TrimSpace(form.Get("payer"))
		if payer != "" && route != "" {
			typed[route] = payer
		}
	}
	return route, payer, typed, nil
}

// fields reads a JSON POST body: an object with only the names given, each a string.
func fields(r *web.Request, names ...string) (map[string]string, error) {
	out := map[string]string{}
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

// checkSameOrigin refuses a browser form post from another site (web.CheckSameOrigin).
func checkSameOrigin(r *web.Request) error { return web.CheckSameOrigin(r) }

// payerMessage words validation problems for the payer in l, not for an API client: what
// to choose, or what kind of identity the chosen route needs.
func payerMessage(l page.Lang, route checkout.Route, vs []apierr.Violation) string {
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
