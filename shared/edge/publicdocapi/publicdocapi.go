// Package publicdocapi is the HTTP edge of a document's public link (PublicDocumentsFunction):
// GET /v1/public/documents/{token} answers the page to a browser and the View as JSON
// otherwise; the payer's POST reads the answers (the page's form or JSON), calls package
// publicdoc's rules, and answers 201/200 {intent_id, payment_url}, or 303 to payment_url for
// a form (a refused form gets the page back with its problems). The rules and the page's
// rendering are package publicdoc's; this package holds the request and the response.
package publicdocapi

import (
	"bytes"
	"context"
	"errors"
	"net/http"
	"strings"

	"github.com/takapay/payments/shared/auth"
	"github.com/takapay/payments/shared/foundation/apierr"
	"github.com/takapay/payments/shared/foundation/page"
	"github.com/takapay/payments/shared/foundation/web"
	"github.com/takapay/payments/shared/payerrefund"
	"github.com/takapay/payments/shared/payment"
	"github.com/takapay/payments/shared/publicdoc"
)

// API serves the public document's routes.
type API struct {
	Docs     *publicdoc.Service
	Checkout *publicdoc.Checkout
	// AllowLocalhostFormAction lets the page's form post to http://localhost (make dev only).
	AllowLocalhostFormAction bool
	// Refunds is the payer's refund door of a paid invoice (nil: the page offers none).
	Refunds *payerrefund.Door
}

// PayResponse is the JSON answer of the payer's POST.
type PayResponse struct {
	IntentID   string `json:"intent_id"`
	PaymentURL string `json:"payment_url"`
}

// wantsHTML reports a browser: Accept names text/html.
func wantsHTML(r *web.Request) bool { return strings.Contains(r.Header("Accept"), "text/html") }

// langOf is the page's language: the payer's explicit ?lang=, else the browser's
// Accept-Language, else English (a document has no locale of its own).
func langOf(r *web.Request) page.Choice {
	return page.Choose(r.Query[page.QueryParam], "", r.Header("Accept-Language"))
}

// isForm reports a form post from the page (a JSON object sent with curl's default form
// content type is JSON).
func isForm(r *web.Request) bool {
	return strings.HasPrefix(r.Header("Content-Type"), "application/x-www-form-urlencoded") &&
		!bytes.HasPrefix(bytes.TrimSpace(r.Body), []byte("{"))
}

// View serves GET /v1/public/documents/{token}: the page to a browser, the View as JSON
// otherwise. An unknown token, a draft and a customer are all 404.
func (a *API) View(ctx context.Context, r *web.Request) (*web.Response, error) {
	o, err := a.Docs.Open(ctx, r.PathParams["token"], r.SourceIP)
	if err != nil {
		return nil, err
	}
	if !wantsHTML(r) {
		resp := web.JSON(http.StatusOK, o.View)
		resp.Headers = map[string]string{"Cache-Control": "no-store", "Referrer-Policy": "no-referrer"}
		return resp, nil
	}
	return a.render(http.StatusOK, publicdoc.Page{View: o.View, Action: r.Path, Sandbox: o.Doc.Environment == auth.Sandbox, Lang: langOf(r),
		Refund: a.refundSection(ctx, o)})
}

// render answers the page p with status and the page's security headers.
func (a *API) render(status int, p publicdoc.Page) (*web.Response, error) {
	var buf bytes.Buffer
	if err := publicdoc.RenderPage(&buf, p); err != nil {
		return nil, err
	}
	return &web.Response{Status: status, Headers: publicdoc.SecurityHeaders(a.AllowLocalhostFormAction), Raw: buf.Bytes()}, nil
}

// ErrorPage renders an error as a plain page for a browser (nil: the JSON envelope), in words
// for the payer, with the envelope's status and headers.
func (a *API) ErrorPage(r *web.Request, e *apierr.Error) *web.Response {
	if !wantsHTML(r) {
		return nil
	}
	var buf bytes.Buffer
	_ = publicdoc.RenderError(&buf, langOf(r).Lang, e, r.Path)
	h := publicdoc.SecurityHeaders(a.AllowLocalhostFormAction)
	for k, v := range e.Headers {
		h[k] = v
	}
	return &web.Response{Status: e.Status(), Headers: h, Raw: buf.Bytes()}
}

// Pay serves POST /v1/public/documents/{token}.
func (a *API) Pay(ctx context.Context, r *web.Request) (*web.Response, error) {
	o, err := a.Docs.Open(ctx, r.PathParams["token"], r.SourceIP)
	if err != nil {
		return nil, err
	}
	form, lang := isForm(r), langOf(r)
	if form && publicdoc.IsRefundForm(r.Body) {
		return a.refund(ctx, r, o)
	}
	if err := o.Refusal(); err != nil {
		return a.refuse(r, o, form, err, nil)
	}
	answers, err := publicdoc.ParseAnswers(r.Body, form, o.View)
	if err != nil {
		return a.refuse(r, o, form, err, answers)
	}
	paid, err := a.Checkout.Pay(ctx, o, publicdoc.PayInput{Answers: answers, SourceIP: r.SourceIP, CancelURL: lang.URL(r.BaseURL + r.Path)})
	if err != nil {
		return a.refuse(r, o, form, err, answers)
	}
	u := r.BaseURL + payment.CheckoutPath(paid.CheckoutToken)
	if form {
		// The payer's explicit choice of language goes on to the checkout (a query parameter
		// beside the token, which stays the only capability).
		h := publicdoc.SecurityHeaders(a.AllowLocalhostFormAction) // no-referrer, no-store, the page's CSP
		h["Location"] = lang.URL(u)
		return &web.Response{Status: http.StatusSeeOther, Headers: h}, nil
	}
	status := http.StatusOK // the invoice's live intent, answered again
	if paid.Placed.Created {
		status = http.StatusCreated
	}
	resp := web.JSON(status, PayResponse{IntentID: paid.Placed.Payment.InvoiceID, PaymentURL: u})
	resp.Headers = map[string]string{"Cache-Control": "no-store", "Referrer-Policy": "no-referrer"}
	return resp, nil
}

// refuse answers a refused POST: a form gets the page back with the refusal (or the answers'
// problems) and the answers refilled, with the refusal's status; JSON gets the envelope.
func (a *API) refuse(r *web.Request, o *publicdoc.Opened, form bool, err error, values *publicdoc.Answers) (*web.Response, error) {
	var e *apierr.Error
	if !form || !errors.As(err, &e) || e.Status() >= 500 {
		return nil, err
	}
	lang := langOf(r)
	p := publicdoc.Page{View: o.View, Action: r.Path, Sandbox: o.Doc.Environment == auth.Sandbox, Lang: lang}
	if values != nil {
		p.Values, p.Problems = *values, values.Problems
	}
	if len(p.Problems) == 0 {
		p.Error = publicdoc.PayerMessage(lang.Lang, o.View, e)
	}
	resp, rerr := a.render(e.Status(), p)
	if rerr != nil {
		return nil, err // as before: the refusal's envelope when the page cannot be drawn
	}
	return resp, nil
}
