package mail

import (
	"strings"

	"github.com/takapay/payments/shared/foundation/htmlw"
)

// Inline styles only (mail clients drop <style> and external sheets). Constants, written with
// Raw: htmlw's Attr is not for style attributes, and no value ever goes into one.
const (
	styleBody    = "margin:0;padding:0;background:#f4f5f7;color:#1b1f24;font-family:'Noto Sans Bengali','Noto Sans',Arial,sans-serif;font-size:16px;line-height:1.6"
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

// html is every email's HTML part: one column, no images, the language on <html>, the link
// both as a button and written out. It is written with htmlw, the page kit's escaping writer,
// not html/template: text/template's reflection would keep every exported method of the
// dashboard function alive (measured: a floor function plus Compose through html/template is
// 1.81× the floor binary, over registry's 1.6× bound). Every value is escaped by context (text,
// attribute, URL); a Link that is not http(s) would become htmlw.UnsafeURL, and Compose refuses
// it before.
func (c content) html() string {
	var b htmlw.Builder
	b.Grow(4096)
	b.Raw("<!DOCTYPE html>\n<html")
	b.Attr("lang", c.Lang)
	b.Raw(">\n<head>\n<meta charset=\"utf-8\">\n<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n<title>")
	b.Text(c.Subject)
	b.Raw("</title>\n</head>\n<body")
	b.Raw(` style="` + styleBody + `"`)
	b.Raw(">\n<div role=\"article\"")
	b.Attr("aria-label", c.Subject)
	b.Attr("lang", c.Lang)
	b.Raw(` style="` + styleCard + `"`)
	b.Raw(">\n<p")
	b.Raw(` style="` + styleBrand + `"`)
	b.Raw(">Takapay</p>\n<h1")
	b.Raw(` style="` + styleH1 + `"`)
	b.Raw(">")
	b.Text(c.Heading)
	b.Raw("</h1>")
	para := func(s, style string) {
		b.Raw("\n<p")
		b.Raw(` style="` + style + `"`)
		b.Raw(">")
		b.Text(s)
		b.Raw("</p>")
	}
	for _, p := range c.Before {
		para(p, stylePara)
	}
	if c.Link != "" {
		b.Raw("\n<p")
		b.Raw(` style="` + styleButtonP + `"`)
		b.Raw("><a")
		b.URLAttr("href", c.Link)
		b.Raw(` style="` + styleButton + `"`)
		b.Raw(">")
		b.Text(c.Action)
		b.Raw("</a></p>\n<p")
		b.Raw(` style="` + styleHint + `"`)
		b.Raw(">")
		b.Text(c.CopyHint)
		b.Raw("<br><a")
		b.URLAttr("href", c.Link)
		b.Raw(` style="` + styleLink + `"`)
		b.Raw(">")
		b.Text(c.Link)
		b.Raw("</a></p>")
	}
	for _, p := range c.After {
		para(p, stylePara)
	}
	b.Raw("\n<hr")
	b.Raw(` style="` + styleRule + `"`)
	b.Raw(">")
	para(c.Footer, styleFooter)
	b.Raw("\n</div>\n</body>\n</html>\n")
	return b.String()
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
