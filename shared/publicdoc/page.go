package publicdoc

import (
	"crypto/sha256"
	_ "embed"
	"encoding/base64"
	"errors"
	"io"
	"strings"
	"time"

	"github.com/takapay/payments/shared/htmlw"
)

// Page is what RenderPage shows.
type Page struct {
	// View is the document as the payer sees it.
	View *View
	// Action is the path the form posts to (the page's own path,
	// "/v1/public/documents/<token>"); "" leaves the action out (the form posts to the page's
	// URL).
	Action string
	// Error is a message shown above the form (e.g. the 422's message), "" for none.
	Error string
	// Values are the answers to put back into the form after a refused post (ParseAnswers
	// returns them with its 422); the zero value leaves the form empty.
	Values Answers
	// Sandbox shows the sandbox banner.
	Sandbox bool
}

// The page's only style, inlined verbatim; its hash goes into the CSP. The page has no script.
//
//go:embed assets/publicdoc.css
var styleSource string

var styleHash = cspHash(styleSource)

func init() {
	// An end tag inside the asset would end the element early and break the hash.
	if strings.Contains(strings.ToLower(styleSource), "</style") {
		panic("publicdoc: the embedded stylesheet contains its own end tag")
	}
}

// cspHash returns the CSP hash source ('sha256-…' without the quotes) of an inline element's
// exact contents.
func cspHash(s string) string {
	sum := sha256.Sum256([]byte(s))
	return "sha256-" + base64.StdEncoding.EncodeToString(sum[:])
}

// dhaka is Bangladesh Standard Time (UTC+6, no daylight saving since 2010), as in the checkout.
var dhaka = time.FixedZone("Asia/Dhaka", 6*60*60)

// RenderPage writes the full HTML document of a document's public page: the summary
// (merchant, reference, amount, due date or expiry), the description, line items and totals,
// then by state the form (quantity, custom fields, optional contact details, "Continue to
// payment"), the paid message or the closed message. It has no script; every value is escaped
// by package htmlw (see markup.go); the response must carry SecurityHeaders.
func RenderPage(w io.Writer, p Page) error {
	if p.View == nil {
		return errors.New("publicdoc: RenderPage without a view")
	}
	var b htmlw.Builder
	b.Grow(len(styleSource) + 8192)
	writePage(&b, &p)
	_, err := b.WriteTo(w)
	return err
}

// ErrorPage writes a plain HTML error page (e.g. title "Document not found", message "This
// link is not valid") with the page's look. The response must carry SecurityHeaders.
func ErrorPage(w io.Writer, title, message string) error {
	var b htmlw.Builder
	b.Grow(len(styleSource) + 1024)
	writeErrorPage(&b, title, message)
	_, err := b.WriteTo(w)
	return err
}

// SecurityHeaders returns a new map of the headers every response of the public page (the
// page, the error page and the 303 after the form post) must carry.
//
// The Content-Security-Policy allows no script at all, only the page's one inline style (by
// SHA-256) and same-origin or data: images (the empty data: favicon), and no framing. Its
// form-action is 'self': the form posts to the page's own path, and the 303 that answers it
// goes to the hosted checkout on the same origin (browsers check form-action against the
// redirects after a form submission too). allowLocalhostFormAction (the local dev stack only)
// also allows http://localhost:* and http://127.0.0.1:*.
func SecurityHeaders(allowLocalhostFormAction bool) map[string]string {
	formAction := "'self'"
	if allowLocalhostFormAction {
		formAction += " http://localhost:* http://127.0.0.1:*"
	}
	csp := "default-src 'none'" +
		"; style-src '" + styleHash + "'" +
		"; img-src 'self' data:" +
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
