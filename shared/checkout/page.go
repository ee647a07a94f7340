package checkout

import (
	_ "embed"
	"encoding/json"
	"github.com/takapay/payments/shared/foundation/apierr"
	"io"
	"strings"
	"time"

	"github.com/takapay/payments/shared/foundation/money"
	"github.com/takapay/payments/shared/foundation/page"
	"github.com/takapay/payments/shared/foundation/ui"
	"github.com/takapay/payments/shared/payerrefund"
)

// Route is a payment route the payer can choose.
type Route struct {
	// ID is the route's identifier, posted as the form field "route" (e.g. "bkash").
	ID string `json:"id"`
	// Label is the route's name shown to the payer (e.g. "bKash").
	Label string `json:"label"`
	// PayerKind is the kind of payer identity the route needs: "phone" or "email".
	PayerKind string `json:"payer_kind"`
	// PayerLabel labels the payer identity field for this route (e.g. "bKash account number").
	PayerLabel string `json:"payer_label"`
	// Placeholder is an example of the payer identity (e.g. "01XXXXXXXXX").
	Placeholder string `json:"placeholder"`
}

// LockView is the payer's locked choice of route and identity, as a payer may see it.
type LockView struct {
	// Route is the locked route's ID.
	Route string `json:"route"`
	// RouteLabel is the locked route's Label.
	RouteLabel string `json:"route_label"`
	// PayerMasked is the payer identity with most of it hidden (e.g. "017•••••678").
	PayerMasked string `json:"payer_masked"`
}

// View is what the page (and the JSON API) shows a payer; it must hold nothing secret.
type View struct {
	InvoiceID     string    `json:"invoice_id"`
	Status        string    `json:"status"`         // PENDING, COMPLETED, FAILED, CANCELLED, EXPIRED
	AmountMinor   int64     `json:"amount_minor"`   // paisa
	AmountDisplay string    `json:"amount_display"` // "৳1,500.00"
	Currency      string    `json:"currency"`       // BDT
	Reference     string    `json:"reference"`
	MerchantName  string    `json:"merchant_name"`
	ExpiresAt     time.Time `json:"expires_at"`
	Environment   string    `json:"environment"` // sandbox | live
	Routes        []Route   `json:"routes"`
	Lock          *LockView `json:"lock"`
	Terminal      bool      `json:"terminal"`
	// ReturnURL is where the payer goes after a terminal state (the merchant's redirect_url
	// or cancel_url with invoice_id appended); "" means the page is the final page.
	ReturnURL string `json:"return_url,omitempty"`

	// ActionBase is the page's own path, "/v1/public/checkout/<token>": the forms post to
	// ActionBase+"/lock" and ActionBase+"/notices/<action>", and the script polls it. Page only.
	ActionBase string `json:"-"`
	// Error is a message shown above the form, in the page's language (e.g. "Enter a
	// Bangladeshi mobile number"). Page only.
	Error string `json:"-"`
	// Lang is the page's language and whether the payer chose it (then every form action and
	// link carries ?lang=). Page only.
	Lang page.Choice `json:"-"`
	// Chosen and Typed are what a refused post sent, put back into the form: the chosen
	// route's id and the payer identity typed for each route (by route id). Page only.
	Chosen string            `json:"-"`
	Typed  map[string]string `json:"-"`
	// Purchase is what a payment link's payer buys (nil for any other payment). Page only.
	Purchase *Purchase `json:"-"`
	// Refund is the payer's refund part of a COMPLETED payment's page (nil: none). Page only.
	Refund *payerrefund.Section `json:"-"`
}

// Purchase is what a payer buys through a payment link: Quantity units at UnitMinor paisa
// each (the payment's amount is their product), and the options the payer chose on the link's
// page.
type Purchase struct {
	Quantity  int64
	UnitMinor int64
	Options   []Option
}

// Option is one answer the payer gave on a payment link's page: the question's label and the
// answer, as the payer sees them, or Checked for a ticked checkbox.
type Option struct {
	Label   string
	Value   string
	Checked bool
}

// The page's only script and style (the kit's base stylesheet and the checkout's additions),
// inlined verbatim; their hashes, computed from these bytes, go into the CSP.
var (
	//go:embed assets/checkout.js
	scriptSource string
	//go:embed assets/checkout.css
	styleAdditions string

	script = page.NewScript(scriptSource)
	style  = page.NewStyle(styleAdditions)
)

// pageData is the markup's input: the view plus what the markup should not compute.
type pageData struct {
	View
	L              page.Lang
	Title          string
	Sandbox        bool
	Pending        bool
	Locked         bool
	SingleRoute    bool
	ExpiresRFC3339 string
	ExpiresDhaka   string
	StateTitle     string
	StateMessage   string
	Amount         string
	// Self is the page's own URL (with ?lang= when the payer chose the language): the
	// script's status URL and the way back after a form post.
	Self string
}

// url is a path of this page (ActionBase + suffix) carrying the payer's language choice.
func (d *pageData) url(suffix string) string { return d.Lang.URL(d.ActionBase + suffix) }

// StateTitle is the headline of a status in l ("Payment received").
func StateTitle(l page.Lang, status string) string {
	switch status {
	case "COMPLETED", "FAILED", "CANCELLED", "EXPIRED":
		return l.T("checkout.state." + status)
	}
	return l.T("checkout.state.other", "status", strings.ToLower(status))
}

// RenderPage writes the full HTML document of the hosted checkout page for v, in v.Lang: the
// language switch, the summary (merchant, reference, amount, expiry), then by state the route
// choice, the locked choice (with the simulated provider's controls in sandbox) or the final
// state. Every value is escaped by package h (see markup.go); the response must carry
// SecurityHeaders.
func RenderPage(w io.Writer, v View) error {
	if v.Lang.Lang == "" {
		v.Lang.Lang = page.EN
	}
	l := v.Lang.Lang
	d := pageData{
		View:    v,
		L:       l,
		Sandbox: v.Environment == "sandbox",
		Pending: !v.Terminal && v.Status == "PENDING",
		Locked:  v.Lock != nil,
		Amount:  l.Amount(money.Paisa(v.AmountMinor)),
	}
	d.Self = d.url("")
	d.SingleRoute = len(v.Routes) == 1
	if !v.ExpiresAt.IsZero() {
		d.ExpiresRFC3339 = v.ExpiresAt.UTC().Format(time.RFC3339)
		d.ExpiresDhaka = l.Clock(v.ExpiresAt)
	}
	payTo := l.T("checkout.title", "amount", d.Amount, "merchant", v.MerchantName)
	d.StateTitle = StateTitle(l, v.Status)
	switch v.Status {
	case "COMPLETED", "FAILED", "CANCELLED", "EXPIRED":
		d.StateMessage = l.T("checkout.message."+v.Status, "amount", d.Amount, "merchant", v.MerchantName)
	}
	if d.Pending {
		d.Title = payTo
	} else {
		d.Title = d.StateTitle + " · " + payTo
	}
	_, err := w.Write(pageDoc(&d).Bytes())
	return err
}

// scriptMessages are the words the script writes into the page, in the page's language: the
// script reads them from the page (data-messages) and carries none of its own.
func scriptMessages(l page.Lang) string {
	m := map[string]string{
		"COMPLETED": l.T("checkout.state.COMPLETED"),
		"FAILED":    l.T("checkout.state.FAILED"),
		"CANCELLED": l.T("checkout.state.CANCELLED"),
		"EXPIRED":   l.T("checkout.state.EXPIRED"),
		"other":     l.T("checkout.state.other"),
		"leaving":   l.T("checkout.js.leaving"),
		"returnTo":  l.T("checkout.return_to"),
		"updating":  l.T("checkout.js.updating"),
		"stopped":   l.T("checkout.js.stopped"),
		"again":     l.T("checkout.check_again"),
		"timeUp":    l.T("checkout.js.time_up"),
		"leftHours": l.T("checkout.js.left_hours"),
		"leftMin":   l.T("checkout.js.left_minutes"),
		"merchant":  l.T("checkout.js.merchant"),
		"suffix":    page.TitleSuffix,
		"digits":    l.Digits("0123456789"),
	}
	out, _ := json.Marshal(m) // a map of strings always marshals
	return string(out)
}

// ErrorPage writes a plain HTML error page in the checkout's look, without script (e.g. title
// "Payment not found"). self, when not "", is the page's path for the language switch. The
// response must carry SecurityHeaders.
func ErrorPage(w io.Writer, l page.Lang, title, message, self string) error {
	return ui.ErrorPage(w, style, page.Error{Lang: l, Title: title, Message: message, Self: self})
}

// WriteError writes the error page of an error code for a payer in l, in words for the payer
// (an envelope's message is for developers and stays in the JSON). self is the checkout
// page's path, for the language switch.
func WriteError(w io.Writer, code apierr.Code, l page.Lang, self string) error {
	key := "page.err.internal"
	switch code {
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
	return ErrorPage(w, l, l.T(key+".title"), l.T(key), self)
}

// SecurityHeaders returns a new map of the headers every page response (the page, the error
// page and the 303 after a form post) must carry (page.Headers).
//
// The Content-Security-Policy allows only the page's one inline script and one inline style
// (by SHA-256), same-origin fetches (the status poll) and images, and no framing. Its
// form-action allows 'self' and https: because the server answers a form post with a 303
// that may go to the merchant's https redirect_url or cancel_url, and browsers check
// form-action against every redirect after a form submission. allowLocalhost (true only in
// the local dev stack, where merchants may use http://localhost callback URLs) also allows
// http://localhost:* and http://127.0.0.1:* (CSP cannot name [::1], so a dev merchant on
// http://[::1] is blocked after a form post).
func SecurityHeaders(allowLocalhost bool) map[string]string {
	return page.Headers(page.Policy{
		Style: style, Script: script, Connect: true,
		FormAction: []string{"'self'", "https:"}, AllowLocalhost: allowLocalhost,
	})
}
