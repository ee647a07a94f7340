package publicdoc

import (
	_ "embed"
	"errors"
	"io"
	"net/url"

	"github.com/takapay/payments/shared/foundation/page"
	"github.com/takapay/payments/shared/foundation/ui"
	"github.com/takapay/payments/shared/payerrefund"
)

// Page is what RenderPage shows.
type Page struct {
	// View is the document as the payer sees it.
	View *View
	// Action is the path the form posts to (the page's own path,
	// "/v1/public/documents/<token>"); "" leaves the action out (the form posts to the page's
	// URL).
	Action string
	// Error is a message shown above the form, in the page's language, "" for none.
	Error string
	// Problems are the answers a refused post got wrong (ParseAnswers' Answers.Problems),
	// listed under Error in the page's language.
	Problems []Problem
	// Values are the answers to put back into the form after a refused post (ParseAnswers
	// returns them with its 422); the zero value leaves the form empty.
	Values Answers
	// Sandbox shows the sandbox banner.
	Sandbox bool
	// Lang is the page's language and whether the payer chose it (then the form's action and
	// the switch carry ?lang=).
	Lang page.Choice
	// Refund is a paid invoice's refund section (payerrefund; nil: none): it posts to Action
	// with the hidden field RefundFormField = "refund".
	Refund *payerrefund.Section
}

// RefundFormField marks a post of the page's refund form (its value "refund"): the page's one
// path takes both the payer's answers and, once paid, a refund request.
const RefundFormField = "form"

// IsRefundForm reports whether a form post is the refund form's.
func IsRefundForm(body []byte) bool {
	v, err := url.ParseQuery(string(body))
	return err == nil && v.Get(RefundFormField) == "refund"
}

// The page's only style (the kit's base stylesheet and the page's additions), inlined
// verbatim; its hash, computed from these bytes, goes into the CSP. The page has no script.
var (
	//go:embed assets/publicdoc.css
	styleAdditions string

	style = page.NewStyle(styleAdditions)
)

// RenderPage writes the full HTML document of a document's public page, in p.Lang: the
// language switch, the summary (merchant, reference, amount, due date or expiry), the
// description, line items and totals, then by state the form (quantity, custom fields,
// optional contact details, "Continue to payment"), the paid message or the closed message.
// It has no script; every value is escaped by package h (see markup.go); the response
// must carry SecurityHeaders.
func RenderPage(w io.Writer, p Page) error {
	if p.View == nil {
		return errors.New("publicdoc: RenderPage without a view")
	}
	if p.Lang.Lang == "" {
		p.Lang.Lang = page.EN
	}
	_, err := w.Write(pageDoc(&p).Bytes())
	return err
}

// ErrorPage writes a plain HTML error page in the page's look, in l (e.g. title "Not
// found"). self, when not "", is the page's path for the language switch. The response must
// carry SecurityHeaders.
func ErrorPage(w io.Writer, l page.Lang, title, message, self string) error {
	return ui.ErrorPage(w, style, page.Error{Lang: l, Title: title, Message: message, Self: self})
}

// SecurityHeaders returns a new map of the headers every response of the public page (the
// page, the error page and the 303 after the form post) must carry (page.Headers).
//
// The Content-Security-Policy allows no script at all, only the page's one inline style (by
// SHA-256) and same-origin or data: images (the empty data: favicon), and no framing. Its
// form-action is 'self': the form posts to the page's own path, and the 303 that answers it
// goes to the hosted checkout on the same origin (browsers check form-action against the
// redirects after a form submission too). allowLocalhostFormAction (the local dev stack only)
// also allows http://localhost:* and http://127.0.0.1:*.
func SecurityHeaders(allowLocalhostFormAction bool) map[string]string {
	return page.Headers(page.Policy{Style: style, FormAction: []string{"'self'"}, AllowLocalhost: allowLocalhostFormAction})
}
