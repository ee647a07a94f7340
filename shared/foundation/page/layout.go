package page

import (
	"crypto/sha256"
	_ "embed"
	"encoding/base64"
	"strings"
)

//go:embed assets/base.css
var baseCSS string

// componentsCSS is the components' rules (package ui), part of every family's stylesheet.
//
//go:embed assets/components.css
var componentsCSS string

// Inline is an inline <style> or <script> element's exact contents and the CSP hash source of
// those bytes ("sha256-…", without quotes), computed when it is made: the policy can never
// name other bytes than the page carries.
type Inline struct {
	source string
	hash   string
}

// Source is the element's contents, written verbatim between its tags.
func (in *Inline) Source() string { return in.source }

// Hash is the CSP hash source of Source.
func (in *Inline) Hash() string { return in.hash }

func newInline(source, endTag string) *Inline {
	// An end tag inside the contents would end the element early and break the hash.
	if strings.Contains(strings.ToLower(source), endTag) {
		panic("page: an inline asset contains its own end tag " + endTag)
	}
	sum := sha256.Sum256([]byte(source))
	return &Inline{source: source, hash: "sha256-" + base64.StdEncoding.EncodeToString(sum[:])}
}

// NewStyle is a page family's stylesheet: the kit's base stylesheet followed by the family's
// additions (its own rules, which may override the base's). It panics on a stylesheet that
// holds "</style" (call it once, at package initialisation).
func NewStyle(additions string) *Inline {
	return newInline(baseCSS+componentsCSS+additions, "</style")
}

// NewScript is a page's inline script. It panics on a script that holds "</script".
func NewScript(source string) *Inline {
	return newInline(source, "</script")
}

// BaseCSS is the kit's base stylesheet with the components' rules (for tests and the golden
// files' markers).
func BaseCSS() string { return baseCSS + componentsCSS }

// TitleSuffix ends every page's <title>.
const TitleSuffix = " — Takapay"

// Error is an error page's content: a title and a message (both "" allowed: the title becomes
// the catalogue's "Error", never an empty heading) in a language, with the language switch
// to Self when Self is not "".
type Error struct {
	Lang    Lang
	Title   string
	Message string
	// Self is the path the page answers (no query): the switch links to it. "" leaves the
	// switch out (a page whose URL is not worth repeating, such as a POST's).
	Self string
}

// Policy is what a page family's responses allow; Headers turns it into headers.
type Policy struct {
	// Style is the page's one inline stylesheet (required).
	Style *Inline
	// Script is the page's one inline script, nil for none (script-src is then absent, and
	// default-src 'none' forbids every script).
	Script *Inline
	// Connect allows same-origin fetches (connect-src 'self'): the checkout's status poll.
	Connect bool
	// FormAction lists the form-action sources: where the page's forms post and where the
	// answers to them may redirect (browsers check form-action against every redirect after
	// a form submission), e.g. "'self'", "https:".
	FormAction []string
	// AllowLocalhost (the local dev stack only, where merchants may use http://localhost
	// URLs) adds http://localhost:* and http://127.0.0.1:* to form-action. CSP cannot name
	// [::1].
	AllowLocalhost bool
}

// Headers returns a new map of the headers every response of a payer page (the page, its
// error page and the 303 after a form post) carries: a Content-Security-Policy with
// default-src 'none', the inline style and script allowed only by their hashes, images only
// from the page itself or data:, no <base>, no framing; Referrer-Policy no-referrer (the
// capability token is in the URL); Cache-Control no-store; X-Frame-Options DENY; nosniff; and
// the HTML content type.
func Headers(p Policy) map[string]string {
	csp := "default-src 'none'"
	if p.Script != nil {
		csp += "; script-src '" + p.Script.Hash() + "'"
	}
	csp += "; style-src '" + p.Style.Hash() + "'" +
		"; img-src 'self' data:"
	if p.Connect {
		csp += "; connect-src 'self'"
	}
	formAction := strings.Join(p.FormAction, " ")
	if p.AllowLocalhost {
		formAction += " http://localhost:* http://127.0.0.1:*"
	}
	csp += "; form-action " + strings.TrimSpace(formAction) +
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
