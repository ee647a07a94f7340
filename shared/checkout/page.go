package checkout

import (
	"crypto/sha256"
	_ "embed"
	"encoding/base64"
	"io"
	"strings"
	"time"

	"github.com/takapay/payments/shared/htmlw"
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
	// Error is a message shown above the form (e.g. "Enter a Bangladeshi mobile number").
	// Page only.
	Error string `json:"-"`
}

// The page's only script and style, inlined verbatim; their hashes go into the CSP.
var (
	//go:embed assets/checkout.js
	scriptSource string
	//go:embed assets/checkout.css
	styleSource string
)

var (
	scriptHash = cspHash(scriptSource)
	styleHash  = cspHash(styleSource)
)

func init() {
	// An end tag inside an asset would end the element early and break the hash.
	if strings.Contains(strings.ToLower(scriptSource), "</script") ||
		strings.Contains(strings.ToLower(styleSource), "</style") {
		panic("checkout: an embedded asset contains its own end tag")
	}
}

// cspHash returns the CSP hash source ('sha256-…' without the quotes) of an inline element's
// exact contents.
func cspHash(s string) string {
	sum := sha256.Sum256([]byte(s))
	return "sha256-" + base64.StdEncoding.EncodeToString(sum[:])
}

// dhaka is Bangladesh Standard Time. Bangladesh has kept UTC+6 with no daylight saving since
// 2010, so a fixed zone is exact for every payment and needs no tzdata in the Lambda image.
var dhaka = time.FixedZone("Asia/Dhaka", 6*60*60)

// stateTitles are the headlines of the terminal states (assets/checkout.js has the same).
var stateTitles = map[string]string{
	"COMPLETED": "Payment received",
	"FAILED":    "Payment failed",
	"CANCELLED": "Payment cancelled",
	"EXPIRED":   "This payment has expired",
}

// pageData is the markup's input: the view plus what the markup should not compute.
type pageData struct {
	View
	Title          string
	Sandbox        bool
	Pending        bool
	Locked         bool
	SingleRoute    bool
	ExpiresRFC3339 string
	ExpiresDhaka   string
	StateTitle     string
	StateMessage   string
}

// RenderPage writes the full HTML document of the hosted checkout page for v: the summary
// (merchant, reference, amount, expiry), then by state the route choice, the locked choice
// (with the simulated provider's controls in sandbox) or the final state. Every value is
// escaped by package htmlw (see markup.go); the response must carry SecurityHeaders.
func RenderPage(w io.Writer, v View) error {
	d := pageData{
		View:    v,
		Sandbox: v.Environment == "sandbox",
		Pending: !v.Terminal && v.Status == "PENDING",
		Locked:  v.Lock != nil,
	}
	d.SingleRoute = len(v.Routes) == 1
	if !v.ExpiresAt.IsZero() {
		d.ExpiresRFC3339 = v.ExpiresAt.UTC().Format(time.RFC3339)
		d.ExpiresDhaka = v.ExpiresAt.In(dhaka).Format("15:04")
	}
	payTo := "Pay " + v.AmountDisplay + " to " + v.MerchantName
	d.StateTitle = stateTitles[v.Status]
	if d.StateTitle == "" {
		d.StateTitle = "Payment " + strings.ToLower(v.Status)
	}
	switch v.Status {
	case "COMPLETED":
		d.StateMessage = "Your payment of " + v.AmountDisplay + " to " + v.MerchantName + " was received."
	case "FAILED":
		d.StateMessage = "The payment of " + v.AmountDisplay + " to " + v.MerchantName + " did not go through."
	case "CANCELLED":
		d.StateMessage = "This payment was cancelled."
	case "EXPIRED":
		d.StateMessage = "The time to pay has run out. Ask " + v.MerchantName + " for a new payment link."
	}
	if d.Pending {
		d.Title = payTo + " — Takapay"
	} else {
		d.Title = d.StateTitle + " · " + payTo + " — Takapay"
	}
	var b htmlw.Builder
	b.Grow(len(styleSource) + len(scriptSource) + 4096)
	writePage(&b, &d)
	_, err := b.WriteTo(w)
	return err
}

// ErrorPage writes a plain HTML error page (e.g. title "Payment not found", message "This
// payment link is not valid") with the checkout's look and no script. The response must carry
// SecurityHeaders.
func ErrorPage(w io.Writer, title, message string) error {
	var b htmlw.Builder
	b.Grow(len(styleSource) + 1024)
	writeErrorPage(&b, title, message)
	_, err := b.WriteTo(w)
	return err
}

// SecurityHeaders returns a new map of the headers every page response (the page, the error
// page and the 303 after a form post) must carry.
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
	formAction := "'self' https:"
	if allowLocalhost {
		formAction += " http://localhost:* http://127.0.0.1:*"
	}
	csp := "default-src 'none'" +
		"; script-src '" + scriptHash + "'" +
		"; style-src '" + styleHash + "'" +
		"; img-src 'self' data:" +
		"; connect-src 'self'" +
		"; form-action " + formAction +
		"; base-uri 'none'" +
		"; frame-ancestors 'none'"
	return map[string]string{
		"Content-Security-Policy": csp,
		"Referrer-Policy":         "no-referrer",
		"X-Frame-Options":         "DENY",
		"Cache-Control":           "no-store",
		"X-Content-Type-Options":  "nosniff",
		"Content-Type":            "text/html; charset=utf-8",
	}
}
