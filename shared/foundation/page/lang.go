// Package page is the kit every payer page is built on (the hosted checkout, the public
// invoice and payment-link pages, and next the merchant dashboard): the language a page speaks
// and its message catalogue (messages_en.go, messages_bn.go), amounts and dates as a payer
// reads them, the document head with the base stylesheet and a family's additions, the
// sandbox banner, the language switch, the footer, the error page, and the security headers
// with a Content-Security-Policy whose hashes are computed from the inlined bytes.
//
// Markup is written with package htmlw (escaping by context, no reflection): html/template
// would take the checkout binary from 1.30× to 1.88× the floor binary (measured; the bound is
// 1.6×), because text/template's reflection keeps every exported method of every reachable
// type alive.
package page

import (
	"net/url"
	"strconv"
	"strings"
)

// Lang is a language a payer page speaks.
type Lang string

// The languages of the payer pages.
const (
	// EN is English, the default.
	EN Lang = "en"
	// BN is Bangla (Bengali as written in Bangladesh).
	BN Lang = "bn"
)

// Langs are the languages every page is written in, in the order the switch lists them.
var Langs = []Lang{BN, EN}

// ParseLang reads a language code: "bn" or "en" (any case), or a tag whose primary subtag is
// one of them ("bn-BD", "en-GB"). Anything else is not a page language.
func ParseLang(s string) (Lang, bool) {
	primary, _, _ := strings.Cut(strings.ToLower(strings.TrimSpace(s)), "-")
	switch Lang(primary) {
	case EN:
		return EN, true
	case BN:
		return BN, true
	}
	return "", false
}

// Other is the language the switch offers on a page in l.
func (l Lang) Other() Lang {
	if l == BN {
		return EN
	}
	return BN
}

// Name is the language's own name for itself: "English", "বাংলা".
func (l Lang) Name() string {
	if l == BN {
		return "বাংলা"
	}
	return "English"
}

// Choice is the language of one page view and whether the payer chose it explicitly (?lang=).
// An explicit choice is carried on every link and form action the page makes (URL), so it
// holds across the whole flow; an implicit one is worked out again at every step from the
// same inputs.
type Choice struct {
	Lang     Lang
	Explicit bool
}

// QueryParam is the query parameter that names the payer's explicit choice: ?lang=bn|en.
const QueryParam = "lang"

// Choose picks a page's language, in this order: an explicit ?lang=bn|en (query, the
// parameter's value), then the locale the merchant set on the payment ("bn" or "en"; "auto"
// and "" pass), then the browser's Accept-Language, then English. A query or locale that is
// neither language is ignored, never an error: a page always renders.
func Choose(query, locale, acceptLanguage string) Choice {
	if l, ok := parseExact(query); ok {
		return Choice{Lang: l, Explicit: true}
	}
	if l, ok := parseExact(locale); ok {
		return Choice{Lang: l}
	}
	if l, ok := FromAcceptLanguage(acceptLanguage); ok {
		return Choice{Lang: l}
	}
	return Choice{Lang: EN}
}

func parseExact(s string) (Lang, bool) {
	switch Lang(strings.ToLower(strings.TrimSpace(s))) {
	case EN:
		return EN, true
	case BN:
		return BN, true
	}
	return "", false
}

// FromAcceptLanguage returns the page language an Accept-Language header prefers: of the
// ranges whose primary subtag is bn or en, the one with the highest q (the first of equals);
// a range with q=0 is refused. "*" and other languages are passed over (a page language must
// be named). false when the header names neither.
func FromAcceptLanguage(h string) (Lang, bool) {
	var best Lang
	bestQ := -1.0
	for part := range strings.SplitSeq(h, ",") {
		tag, params, _ := strings.Cut(part, ";")
		l, ok := ParseLang(tag)
		if !ok {
			continue
		}
		q := 1.0
		for p := range strings.SplitSeq(params, ";") {
			k, v, found := strings.Cut(strings.TrimSpace(p), "=")
			if found && strings.EqualFold(strings.TrimSpace(k), "q") {
				f, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
				if err != nil || f < 0 || f > 1 {
					f = 0 // a malformed weight: not a preference
				}
				q = f
			}
		}
		if q > 0 && q > bestQ {
			best, bestQ = l, q
		}
	}
	return best, bestQ > 0
}

// URL returns u with the explicit choice as ?lang= (replacing any lang already there), or u
// unchanged when the language was not chosen explicitly. u is a path or an absolute URL of
// this service.
func (c Choice) URL(u string) string {
	if !c.Explicit {
		return u
	}
	return WithLang(u, c.Lang)
}

// WithLang returns u with ?lang=l set (replacing any lang already there); the rest of the
// query and the fragment are kept as they are.
func WithLang(u string, l Lang) string {
	base, frag, hasFrag := strings.Cut(u, "#")
	path, query, _ := strings.Cut(base, "?")
	var kept []string
	for p := range strings.SplitSeq(query, "&") {
		if p == "" {
			continue
		}
		k, _, _ := strings.Cut(p, "=")
		if name, err := url.QueryUnescape(k); err == nil && name == QueryParam {
			continue
		}
		kept = append(kept, p)
	}
	kept = append(kept, QueryParam+"="+string(l))
	out := path + "?" + strings.Join(kept, "&")
	if hasFrag {
		out += "#" + frag
	}
	return out
}
