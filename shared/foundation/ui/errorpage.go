package ui

import (
	"io"

	"github.com/takapay/payments/shared/foundation/h"
	"github.com/takapay/payments/shared/foundation/page"
)

// ErrorPage writes a whole error page (page.Error's title and message; the language switch to
// Self when it is not "") with the family's stylesheet and no script. The response must carry
// page.Headers.
func ErrorPage(w io.Writer, style *page.Inline, e page.Error) error {
	title := e.Title
	if title == "" {
		title = e.Lang.T("page.error")
	}
	doc := Document{Lang: e.Lang, Title: title, Style: style, Body: []h.Node{
		h.If(e.Self != "", LangSwitch(e.Lang, e.Self)),
		h.Main(h.Class("card"), h.ID("error-page"),
			h.Raw("\n"),
			h.H1(h.Class("state-title"), h.ID("error-title"), h.Text(title)),
			h.Raw("\n"),
			h.P(h.Class("error-message"), h.ID("error-message"), h.Text(e.Message)),
			h.Raw("\n"),
		),
		h.Raw("\n"),
		Footer(e.Lang.T("page.footer")),
	}}
	_, err := w.Write(doc.Bytes())
	return err
}
