package dashboard

import (
	_ "embed"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/takapay/payments/shared/auth"
	"github.com/takapay/payments/shared/foundation/h"
	"github.com/takapay/payments/shared/foundation/htmlw"
	"github.com/takapay/payments/shared/foundation/page"
	"github.com/takapay/payments/shared/foundation/web"
)

//go:embed assets/dashboard.css
var dashboardCSS string

//go:embed assets/dashboard.js
var dashboardJS string

var style = page.NewStyle(dashboardCSS)

// script is the page's one inline script (one CSP hash): the copy button, then the passkey
// ceremonies' script when the function serves them (Service.PasskeyScript).
func (s *Service) script() *page.Inline {
	s.scriptOnce.Do(func() {
		src := dashboardJS
		if s.PasskeyScript != "" {
			src += "\n" + s.PasskeyScript
		}
		s.inline = page.NewScript(src)
	})
	return s.inline
}

// headers are the page kit's security headers for every dashboard response: default-src
// 'none', the stylesheet and the one script by hash, forms only to this origin, no framing,
// no-store. One difference: Referrer-Policy same-origin, not no-referrer. Under no-referrer
// a browser sends "Origin: null" with a form post, and the exact-Origin check needs the
// real one; same-origin still sends nothing to other sites (the verification, reset and
// invitation links carry tokens in their query).
func (s *Service) headers(extra map[string]string) map[string]string {
	h := page.Headers(page.Policy{Style: style, Script: s.script(), FormAction: []string{"'self'"}})
	h["Referrer-Policy"] = "same-origin"
	for k, v := range extra {
		h[k] = v
	}
	return h
}

// form is a form's state when the page is shown again: the values typed (never passwords)
// and a message per field.
type form struct {
	values map[string]string
	errs   map[string]string
	// order is the fields with errors in page order (the summary links to them).
	order []string
}

func (f *form) value(name string) string {
	if f == nil {
		return ""
	}
	return f.values[name]
}

func (f *form) err(name string) string {
	if f == nil {
		return ""
	}
	return f.errs[name]
}

func (f *form) fail(name, msg string) {
	if f.errs == nil {
		f.errs = map[string]string{}
	}
	if _, ok := f.errs[name]; !ok {
		f.order = append(f.order, name)
	}
	f.errs[name] = msg
}

func (f *form) failed() bool { return f != nil && len(f.errs) > 0 }

// errsOrNil returns the form's field messages (nil for no form).
func (f *form) errsOrNil() map[string]string {
	if f == nil {
		return nil
	}
	return f.errs
}

// doc is a page being written.
type doc struct {
	htmlw.Builder
	r *req
	l page.Lang
}

func (d *doc) t(key string, args ...string) string { return t(d.l, key, args...) }

// node writes a node tree (shared/foundation/h, shared/foundation/ui) into the page.
func (d *doc) node(nodes ...h.Node) {
	for _, n := range nodes {
		if n != nil {
			n.Render(&d.Builder)
		}
	}
}

// text writes a message as text.
func (d *doc) text(key string, args ...string) { d.Text(d.t(key, args...)) }

// page renders a whole page: the head, the top bar (the language switch; signed in: the
// workspace, the navigation and sign out), the sandbox banner, main, the footer and the script.
func (s *Service) page(r *req, status int, title string, body func(d *doc)) *web.Response {
	d := &doc{r: r, l: r.l()}
	d.Grow(len(style.Source()) + len(s.script().Source()) + 8192)
	page.WriteHead(&d.Builder, d.l, title, style)
	d.Raw("<body>\n")
	d.Raw(`<a class="skip" href="#main">`)
	d.text("dash.skip")
	d.Raw("</a>\n")
	d.Raw(`<header class="top"><span class="brand">Takapay</span>`)
	if v := r.viewer; v != nil && v.ws.WorkspaceID != "" {
		d.Raw(`<span id="workspace-name">`)
		d.Text(v.ws.WorkspaceName)
		d.Raw(` <span class="tag" id="role">`)
		d.text("dash.role." + string(v.ws.Role))
		d.Raw("</span></span>")
	}
	if r.viewer != nil {
		d.formStart("/dashboard/sign-out", "sign-out-form")
		d.Raw(`<button class="linkbutton" type="submit" id="sign-out">`)
		d.text("dash.sign_out")
		d.Raw("</button></form>")
	}
	d.Raw("</header>\n")
	self := r.Path
	if tok := r.token(); tok != "" {
		self += "?token=" + url.QueryEscape(tok)
	}
	page.WriteLangSwitch(&d.Builder, d.l, self)
	if v := r.viewer; v != nil && v.ws.WorkspaceID != "" {
		s.nav(d)
		page.WriteBanner(&d.Builder, d.l)
	}
	d.Raw(`<main class="card`)
	if r.viewer == nil {
		d.Raw(" narrow")
	}
	d.Raw(`" id="main">` + "\n<h1>")
	d.Text(title)
	d.Raw("</h1>\n")
	body(d)
	d.Raw("</main>\n")
	page.WriteFooter(&d.Builder, d.l, nil)
	d.Raw("<script>")
	d.Raw(s.script().Source())
	d.Raw("</script>\n</body>\n</html>\n")
	return &web.Response{Status: status, Headers: s.headers(nil), Raw: d.Bytes(), Cookies: r.setCookie}
}

// nav links to the pages the viewer's role allows (auth.Role.Can).
func (s *Service) nav(d *doc) {
	v := d.r.viewer
	d.Raw(`<nav class="nav"`)
	d.Attr("aria-label", d.t("dash.nav"))
	d.Raw("><ul>")
	item := func(path, key string) {
		d.Raw("<li><a")
		d.Attr("id", "nav-"+strings.TrimPrefix(strings.ReplaceAll(strings.TrimPrefix(path, "/dashboard"), "/", ""), "-"))
		d.URLAttr("href", d.r.url(path))
		if d.r.Path == path {
			d.Raw(` aria-current="page"`)
		}
		d.Raw(">")
		d.text(key)
		d.Raw("</a></li>")
	}
	item("/dashboard", "dash.nav.home")
	if v.can(auth.ViewWorkspace) {
		item("/dashboard/payments", "dash.nav.payments")
		item("/dashboard/invoices", "dash.nav.invoices")
		item("/dashboard/payment-links", "dash.nav.links")
		item("/dashboard/customers", "dash.nav.customers")
		item("/dashboard/webhooks", "dash.nav.webhooks")
		item("/dashboard/export", "dash.nav.export")
	}
	if v.can(auth.ViewKeys) {
		item("/dashboard/keys", "dash.nav.keys")
		item("/dashboard/webhook-secrets", "dash.nav.secrets")
	}
	item("/dashboard/team", "dash.nav.team")
	if v.can(auth.ViewActivity) {
		item("/dashboard/activity", "dash.nav.activity")
	}
	item("/dashboard/passkeys", "dash.nav.passkeys")
	d.Raw("</ul></nav>\n")
}

// formStart opens a POST form to a dashboard path with its CSRF token.
func (d *doc) formStart(action, id string) {
	d.Raw(`<form method="post"`)
	if id != "" {
		d.Attr("id", id)
	}
	d.URLAttr("action", d.r.url(action))
	d.Raw(`><input type="hidden" name="` + csrfField + `"`)
	if d.r.viewer != nil {
		d.Attr("value", d.r.viewer.csrf)
	} else {
		d.Attr("value", d.r.preToken)
	}
	d.Raw(">")
}

// errorSummary lists a form's problems at its top, each linking to its field.
func (d *doc) errorSummary(f *form) {
	if !f.failed() {
		return
	}
	d.Raw(`<div class="error" role="alert" id="error-summary"><p>`)
	d.text("dash.fix")
	d.Raw("</p><ul>")
	for _, name := range f.order {
		d.Raw(`<li><a`)
		d.URLAttr("href", "#f-"+name)
		d.Raw(">")
		d.Text(f.errs[name])
		d.Raw("</a></li>")
	}
	d.Raw("</ul></div>\n")
}

// input writes a labelled input with its hint and its error.
func (d *doc) input(f *form, name, typ, labelKey, autocomplete, hintKey string, required bool) {
	id := "f-" + name
	d.Raw(`<div class="row"><label class="field-label"`)
	d.Attr("for", id)
	d.Raw(">")
	d.text(labelKey)
	d.Raw(`</label><input class="field"`)
	d.Attr("id", id)
	d.Attr("name", name)
	d.Attr("type", typ)
	if autocomplete != "" {
		d.Attr("autocomplete", autocomplete)
	}
	if required {
		d.Raw(" required")
	}
	if typ != "password" {
		if v := f.value(name); v != "" {
			d.Attr("value", v)
		}
	}
	var described []string
	if hintKey != "" {
		described = append(described, id+"-hint")
	}
	if e := f.err(name); e != "" {
		d.Raw(` aria-invalid="true"`)
		described = append(described, id+"-error")
	}
	if len(described) > 0 {
		d.Attr("aria-describedby", strings.Join(described, " "))
	}
	d.Raw(">")
	d.fieldAfter(f, id, name, hintKey)
	d.Raw("</div>\n")
}

// fieldAfter writes a field's hint (hintKey, "" for none) and its error, with the ids its
// aria-describedby names: <id>-hint and <id>-error.
func (d *doc) fieldAfter(f *form, id, name, hintKey string) {
	if hintKey != "" {
		d.Raw(`<p class="hint"`)
		d.Attr("id", id+"-hint")
		d.Raw(">")
		d.text(hintKey)
		d.Raw("</p>")
	}
	if e := f.err(name); e != "" {
		d.Raw(`<p class="field-error"`)
		d.Attr("id", id+"-error")
		d.Raw(">")
		d.Text(e)
		d.Raw("</p>")
	}
}

// tableStart opens a table in a scrollable region named by the element labelID (its caption,
// which the caller writes next, or a heading before it).
func (d *doc) tableStart(labelID, tableID string) {
	d.Raw(`<div class="table-wrap" tabindex="0" role="region"`)
	d.Attr("aria-labelledby", labelID)
	d.Raw("><table")
	d.Attr("id", tableID)
	d.Raw(">")
}

// thead writes a table's header row, one column header per key (prefix+key in the
// catalogue), and opens its body.
func (d *doc) thead(prefix string, keys ...string) {
	d.Raw("<thead><tr>")
	for _, k := range keys {
		d.Raw(`<th scope="col">`)
		d.text(prefix + k)
		d.Raw("</th>")
	}
	d.Raw("</tr></thead><tbody>\n")
}

func (d *doc) submit(key, id string) {
	d.Raw(`<button class="button primary" type="submit"`)
	d.Attr("id", id)
	d.Raw(">")
	d.text(key)
	d.Raw("</button>")
}

// smallButton is a form with one button (and hidden fields, name/value pairs).
func (d *doc) smallButton(action, id, key string, danger bool, hidden ...string) {
	d.formStart(action, "")
	for i := 0; i+1 < len(hidden); i += 2 {
		d.Raw(`<input type="hidden"`)
		d.Attr("name", hidden[i])
		d.Attr("value", hidden[i+1])
		d.Raw(">")
	}
	d.Raw(`<button type="submit" class="linkbutton`)
	if danger {
		d.Raw(" danger")
	}
	d.Raw(`"`)
	d.Attr("id", id)
	d.Raw(">")
	d.text(key)
	d.Raw("</button></form>")
}

func (d *doc) notice(key string, args ...string) {
	d.Raw(`<p class="notice" role="status" id="notice">`)
	d.text(key, args...)
	d.Raw("</p>\n")
}

func (d *doc) link(path, id, key string) {
	d.Raw("<a")
	d.Attr("id", id)
	d.URLAttr("href", d.r.url(path))
	d.Raw(">")
	d.text(key)
	d.Raw("</a>")
}

// date writes a time in Dhaka time, as the page kit writes dates.
func (d *doc) date(t time.Time) {
	d.Raw("<time")
	d.Attr("datetime", t.UTC().Format(time.RFC3339))
	d.Raw(">")
	d.Text(d.l.DateTime(t))
	d.Raw("</time>")
}

// secretBox shows a secret once: selectable text and a copy button (JavaScript).
func (d *doc) secretBox(id, secret string) {
	d.Raw(`<p class="notice" role="status">`)
	d.text("dash.secret_once")
	d.Raw(`</p><code class="secret"`)
	d.Attr("id", id)
	d.Raw(">")
	d.Text(secret)
	d.Raw(`</code><p class="js-only"><button type="button" class="linkbutton"`)
	d.Attr("data-copy", id)
	d.Attr("data-done", d.t("dash.copied"))
	d.Attr("id", id+"-copy")
	d.Raw(">")
	d.text("dash.copy")
	d.Raw("</button></p>\n")
}

func itoa(n int) string { return strconv.Itoa(n) }
