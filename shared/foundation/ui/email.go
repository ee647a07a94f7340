package ui

import (
	"github.com/takapay/payments/shared/foundation/h"
	"github.com/takapay/payments/shared/foundation/page"
)

// Email is a whole HTML email (package mail): <html lang>, a head with only the charset, the
// viewport and the title (mail clients drop <style> and external sheets, so every style is
// inline, EmailStyle), and the body with its own inline style.
type Email struct {
	Lang  page.Lang
	Title string
	// BodyStyle is the <body> element's inline style: a constant (EmailStyle).
	BodyStyle string
	Body      []h.Node
}

// Render writes the email's HTML.
func (e Email) Render(b *htmlwBuilder) {
	h.Raw("<!DOCTYPE html>\n").Render(b)
	h.El("html", h.Lang(string(e.Lang)),
		h.Raw("\n"),
		h.El("head",
			h.Raw("\n"+`<meta charset="utf-8">`+"\n"+
				`<meta name="viewport" content="width=device-width, initial-scale=1">`+"\n"),
			h.El("title", h.Text(e.Title)),
			h.Raw("\n"),
		),
		h.Raw("\n"),
		h.El("body", EmailStyle(e.BodyStyle), h.Raw("\n"), h.Group(e.Body), h.Raw("\n")),
		h.Raw("\n"),
	).Render(b)
	b.Raw("\n")
}

// String renders the email.
func (e Email) String() string { return h.String(e) }

// EmailStyle is an element's inline style in an email, where no stylesheet survives. css must
// be a constant of the caller's: never a value from a request, a store or a user (it is
// escaped as an attribute, which does not make a value safe as CSS).
func EmailStyle(css string) h.Node { return h.AttrIf("style", css) }
