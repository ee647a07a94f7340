package mail

import (
	"strings"

	"github.com/takapay/payments/shared/foundation/h"
	"github.com/takapay/payments/shared/foundation/page"
	"github.com/takapay/payments/shared/foundation/ui"
)

// Inline styles only (mail clients drop <style> and external sheets). Constants, put on the
// elements with ui.EmailStyle; no value ever goes into one. Font names are unquoted (valid CSS
// for names of plain words), so the attribute needs no escaping.
const (
	styleBody    = "margin:0;padding:0;background:#f4f5f7;color:#1b1f24;font-family:Noto Sans Bengali,Noto Sans,Arial,sans-serif;font-size:16px;line-height:1.6"
	styleCard    = "max-width:560px;margin:0 auto;padding:24px;background:#ffffff"
	styleBrand   = "margin:0 0 16px;font-weight:bold;color:#0b4f8a"
	styleH1      = "margin:0 0 16px;font-size:22px;line-height:1.3"
	stylePara    = "margin:0 0 16px"
	styleButtonP = "margin:24px 0"
	styleButton  = "display:inline-block;padding:12px 20px;background:#0b4f8a;color:#ffffff;text-decoration:underline;border-radius:4px;font-weight:bold"
	styleHint    = "margin:0 0 16px;font-size:14px"
	styleLink    = "color:#0b4f8a;word-break:break-all"
	styleRule    = "border:none;border-top:1px solid #d0d4da;margin:24px 0 16px"
	styleFooter  = "margin:0;font-size:14px;color:#4a5058"
)

// nl is the line break between an email's blocks, so that its source reads line by line.
var nl = h.Text("\n")

// html is every email's HTML part: one column, no images, the language on <html>, the link
// both as a button and written out. It is a tree of package h's nodes (ui.Email the shell), not
// html/template: text/template's reflection would keep every exported method of the dashboard
// function alive (measured: a floor function plus Compose through html/template is 1.81× the
// floor binary, over registry's 1.6× bound). Every value is escaped by where it goes (text,
// attribute, URL); a Link that is not http(s) would become htmlw.UnsafeURL, and Compose
// refuses it before.
func (c content) html() string {
	style := ui.EmailStyle
	para := func(s, css string) h.Node { return h.Group{nl, h.P(style(css), h.Text(s))} }
	paras := func(ps []string) h.Node {
		return h.Map(ps, func(s string) h.Node { return para(s, stylePara) })
	}
	link := h.If(c.Link != "", h.Group{
		nl, h.P(style(styleButtonP), h.A(h.Href(c.Link), style(styleButton), h.Text(c.Action))),
		nl, h.P(style(styleHint), h.Text(c.CopyHint), h.Br(), h.A(h.Href(c.Link), style(styleLink), h.Text(c.Link))),
	})
	return ui.Email{Lang: page.Lang(c.Lang), Title: c.Subject, BodyStyle: styleBody, Body: []h.Node{
		h.Div(h.Role("article"), h.Aria("label", c.Subject), h.Lang(c.Lang), style(styleCard),
			nl, h.P(style(styleBrand), h.Text("Takapay")),
			nl, h.H1(style(styleH1), h.Text(c.Heading)),
			paras(c.Before),
			link,
			paras(c.After),
			nl, h.Hr(style(styleRule)),
			para(c.Footer, styleFooter),
			nl,
		),
	}}.String()
}

// text is the plain-text part: the heading, the paragraphs, the link on a line of its own.
func (c content) text() string {
	var b strings.Builder
	b.WriteString(c.Heading)
	b.WriteString("\n\n")
	for _, p := range c.Before {
		b.WriteString(p)
		b.WriteString("\n\n")
	}
	if c.Link != "" {
		b.WriteString(c.Action)
		b.WriteString(":\n")
		b.WriteString(c.Link)
		b.WriteString("\n\n")
	}
	for _, p := range c.After {
		b.WriteString(p)
		b.WriteString("\n\n")
	}
	b.WriteString("-- \n")
	b.WriteString(c.Footer)
	b.WriteString("\n")
	return b.String()
}
