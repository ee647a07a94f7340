package mail

import (
	"html/template"
	"strings"
)

// htmlTemplate is every email's HTML part: one column, inline styles only (mail clients drop
// <style> and external sheets), no images, the language on <html>, the link both as a button and
// written out. Values are escaped by html/template; a Link that is not http(s) would render as
// "#ZgotmplZ", and Compose refuses it before.
var htmlTemplate = template.Must(template.New("mail").Parse(`<!DOCTYPE html>
<html lang="{{.Lang}}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{{.Subject}}</title>
</head>
<body style="margin:0;padding:0;background:#f4f5f7;color:#1b1f24;font-family:'Noto Sans Bengali','Noto Sans',Arial,sans-serif;font-size:16px;line-height:1.6">
<div role="article" aria-label="{{.Subject}}" lang="{{.Lang}}" style="max-width:560px;margin:0 auto;padding:24px;background:#ffffff">
<p style="margin:0 0 16px;font-weight:bold;color:#0b4f8a">Takapay</p>
<h1 style="margin:0 0 16px;font-size:22px;line-height:1.3">{{.Heading}}</h1>
{{- range .Before}}
<p style="margin:0 0 16px">{{.}}</p>
{{- end}}
{{- if .Link}}
<p style="margin:24px 0"><a href="{{.Link}}" style="display:inline-block;padding:12px 20px;background:#0b4f8a;color:#ffffff;text-decoration:underline;border-radius:4px;font-weight:bold">{{.Action}}</a></p>
<p style="margin:0 0 16px;font-size:14px">{{.CopyHint}}<br><a href="{{.Link}}" style="color:#0b4f8a;word-break:break-all">{{.Link}}</a></p>
{{- end}}
{{- range .After}}
<p style="margin:0 0 16px">{{.}}</p>
{{- end}}
<hr style="border:none;border-top:1px solid #d0d4da;margin:24px 0 16px">
<p style="margin:0;font-size:14px;color:#4a5058">{{.Footer}}</p>
</div>
</body>
</html>
`))

func (c content) html() (string, error) {
	var b strings.Builder
	if err := htmlTemplate.Execute(&b, c); err != nil {
		return "", err
	}
	return b.String(), nil
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
