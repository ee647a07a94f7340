// Package ui is the component library every page is built from (decision 75): the document
// shell, the language switch, the sandbox banner, the footer, navigation, a facts list, a
// table that becomes cards on a phone, a status pill, money, a date, a form field with its
// error, a POST form with its CSRF token, a flash message, an empty state, an error summary
// and an error page. One component per file; each takes the page's language (page.Lang) for
// its own words and already-translated strings from the caller, so one component serves both
// languages. Components return h.Node trees: no markup is written by hand outside package h.
package ui

import (
	"github.com/takapay/payments/shared/foundation/h"
	"github.com/takapay/payments/shared/foundation/page"
)

// Document is a whole HTML page: <html lang>, the head every page family shares (the
// viewport, no indexing, the title with page.TitleSuffix, an empty icon, the family's one
// inline stylesheet) and the body; Script, when not nil, is the family's one inline script,
// written last in the body.
type Document struct {
	Lang   page.Lang
	Title  string
	Style  *page.Inline
	Script *page.Inline
	// BodyClass is the <body> element's class ("" for none).
	BodyClass string
	Body      []h.Node
}

// Render writes the document.
func (d Document) Render(b *htmlwBuilder) {
	h.Raw("<!doctype html>\n").Render(b)
	h.El("html", h.Lang(string(d.Lang)),
		h.Raw("\n"),
		h.El("head",
			h.Raw("\n"+`<meta charset="utf-8">`+"\n"+
				`<meta name="viewport" content="width=device-width, initial-scale=1">`+"\n"+
				`<meta name="color-scheme" content="light dark">`+"\n"+
				`<meta name="robots" content="noindex, nofollow">`+"\n"),
			h.El("title", h.Text(d.Title+page.TitleSuffix)),
			h.Raw("\n"+`<link rel="icon" href="data:,">`+"\n"),
			h.El("style", h.Raw(d.Style.Source())),
			h.Raw("\n"),
		),
		h.Raw("\n"),
		h.El("body", h.Class(d.BodyClass),
			h.Raw("\n"),
			h.Group(d.Body),
			h.If(d.Script != nil, h.Func(func(b *htmlwBuilder) {
				h.El("script", h.Raw(d.Script.Source())).Render(b)
				h.Raw("\n").Render(b)
			})),
		),
		h.Raw("\n"),
	).Render(b)
	b.Raw("\n")
}

// Bytes renders the document.
func (d Document) Bytes() []byte { return h.Bytes(d) }
