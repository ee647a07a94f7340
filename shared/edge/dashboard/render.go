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
	"github.com/takapay/payments/shared/foundation/ui"
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

// page renders a whole page (ui.Document): the skip link, the top bar (the brand; signed in:
// the workspace, the role and sign out; the language switch), signed in to a workspace the
// navigation menu (ui.Nav) and the sandbox banner, main with the title and body, the
// dashboard's own footer, then the script.
func (s *Service) page(r *req, status int, title string, body func(d *doc)) *web.Response {
	d := &doc{r: r, l: r.l()}
	d.Grow(len(style.Source()) + len(s.script().Source()) + 8192)
	var nav h.Node // signed in to a workspace: the menu and the sandbox banner
	if r.viewer != nil && r.viewer.ws.WorkspaceID != "" {
		nav = h.Group{s.nav(d), ui.Banner(d.l)}
	}
	mainClass := "card"
	if r.viewer == nil {
		mainClass += " narrow" // the public forms: one column
	}
	ui.Document{Lang: d.l, Title: title, Style: style, Script: s.script(), Body: []h.Node{
		h.A(h.Class("skip"), h.Href("#main"), h.Text(d.t("dash.skip"))), newline,
		d.topBar(), newline,
		nav,
		h.Main(h.Class(mainClass), h.ID("main"), newline,
			h.H1(h.Text(title)), newline,
			// The document is written into d's own builder, so the body writes where it stands.
			h.Func(func(*htmlw.Builder) { body(d) }),
		), newline,
		ui.Footer(d.t("dash.footer")),
	}}.Render(&d.Builder)
	return &web.Response{Status: status, Headers: s.headers(nil), Raw: d.Bytes(), Cookies: r.setCookie}
}

// newline keeps the page's source readable: one line per landmark.
var newline = h.Text("\n")

// topBar is the bar above everything: the brand; signed in to a workspace, its name and the
// viewer's role; the language switch; signed in, sign out. It wraps on a phone.
func (d *doc) topBar() h.Node {
	v := d.r.viewer
	self := d.r.Path
	if tok := d.r.token(); tok != "" {
		self += "?token=" + url.QueryEscape(tok)
	}
	return h.Header(h.Class("top"),
		h.Span(h.Class("brand"), h.Text("Takapay")),
		h.If(v != nil && v.ws.WorkspaceID != "", h.Func(func(b *htmlw.Builder) {
			h.Span(h.ID("workspace-name"), h.Span(h.Class("ws long"), h.Text(v.ws.WorkspaceName)), h.Text(" "),
				h.Span(h.Class("tag"), h.ID("role"), h.Text(d.t("dash.role."+string(v.ws.Role))))).Render(b)
		})),
		ui.LangSwitch(d.l, self),
		h.If(v != nil, h.Func(func(b *htmlw.Builder) {
			d.formPost("/dashboard/sign-out", h.ID("sign-out-form"),
				h.Button(h.Class("linkbutton"), h.Type("submit"), h.ID("sign-out"), h.Text(d.t("dash.sign_out")))).Render(b)
		})),
	)
}

// navItems are the pages the viewer's role allows (auth.Role.Can), in menu order.
func (d *doc) navItems() []ui.NavItem {
	v := d.r.viewer
	var items []ui.NavItem
	item := func(path, key string) {
		items = append(items, ui.NavItem{
			ID:        "nav-" + strings.TrimPrefix(strings.ReplaceAll(strings.TrimPrefix(path, "/dashboard"), "/", ""), "-"),
			Href:      d.r.url(path),
			Text:      d.t(key),
			Current:   d.r.Path == path,
			InSection: path != "/dashboard" && strings.HasPrefix(d.r.Path, path+"/"),
		})
	}
	item("/dashboard", "dash.nav.home")
	if v.can(auth.ViewWorkspace) {
		item("/dashboard/payments", "dash.nav.payments")
		item("/dashboard/refunds", "dash.nav.refunds")
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
	return items
}

// nav is the navigation: a <details> menu on a phone (no script), a row on a wide screen.
func (s *Service) nav(d *doc) h.Node {
	return ui.Nav(d.t("dash.nav"), d.t("dash.menu"), d.navItems())
}

// formToken is the CSRF token every dashboard form carries: the session's, or before sign-in the
// public forms' double-submit token.
func (d *doc) formToken() string {
	if d.r.viewer != nil {
		return d.r.viewer.csrf
	}
	return d.r.preToken
}

// formPost is a POST form to a dashboard path (with the language and environment in its
// action) carrying the CSRF token, then kids (attributes, fields, buttons).
func (d *doc) formPost(action string, kids ...h.Node) h.Node {
	return ui.PostForm(d.r.url(action), d.formToken(), d.banglaNoValidate(), h.Group(kids))
}

// banglaNoValidate is the novalidate attribute a form carries on a Bangla page: the
// browser's own validation tooltips speak the browser's language (English on most phones), so
// on a Bangla page the server checks the form and answers in Bangla (every form's handler does).
func (d *doc) banglaNoValidate() h.Node { return h.Bool("novalidate", d.l == page.BN) }

// formStart opens a POST form to a dashboard path with its CSRF token; the caller writes
// the fields and closes it. (Pages built from nodes use d.formPost instead.)
func (d *doc) formStart(action, id string) {
	// A start tag without its end tag: the caller's markup holds the rest of the form.
	d.node(h.Void("form", h.Method("post"), h.ID(id), h.Action(d.r.url(action)), d.banglaNoValidate()), ui.Hidden(ui.CSRFField, d.formToken()))
}

// fieldErrors are a form's problems in page order, for ui.ErrorSummary; prefix is its
// controls' id prefix ("f-").
func (f *form) fieldErrors(prefix string) []ui.FieldError {
	if !f.failed() {
		return nil
	}
	errs := make([]ui.FieldError, 0, len(f.order))
	for _, name := range f.order {
		errs = append(errs, ui.FieldError{ID: prefix + name, Message: f.errs[name]})
	}
	return errs
}

// errorSummary lists a form's problems at its top, each linking to its field.
func (d *doc) errorSummary(f *form) { d.node(d.errorSummaryNode(f, "f-")) }

func (d *doc) errorSummaryNode(f *form, prefix string) h.Node {
	return ui.ErrorSummary(d.t("dash.fix"), f.fieldErrors(prefix))
}

// field is a labelled input (ui.Field) with the form's value and error, and extra attributes of
// the control (maxlength, pattern…): the control's id is "f-" + name.
func (d *doc) field(f *form, name, typ, labelKey, autocomplete, hintKey string, required bool, extra ...h.Node) ui.Field {
	fl := ui.Field{Name: name, Type: typ, Label: d.t(labelKey), Value: f.value(name), Error: f.err(name),
		Required: required, Autocomplete: autocomplete, Extra: extra}
	if hintKey != "" {
		fl.Hint = d.t(hintKey)
	}
	return fl
}

// input writes a labelled input with its hint and its error.
func (d *doc) input(f *form, name, typ, labelKey, autocomplete, hintKey string, required bool) {
	d.node(d.field(f, name, typ, labelKey, autocomplete, hintKey, required), newline)
}

// fieldAfter writes a field's hint (hintKey, "" for none) and its error, with the ids its
// aria-describedby names: <id>-hint and <id>-error.
func (d *doc) fieldAfter(f *form, id, name, hintKey string) {
	if hintKey != "" {
		d.node(h.P(h.Class("hint"), h.ID(id+"-hint"), h.Text(d.t(hintKey))))
	}
	if e := f.err(name); e != "" {
		d.node(h.P(h.Class("field-error"), h.ID(id+"-error"), h.Text(e)))
	}
}

// tableStart opens a table in a scrollable region named by the element labelID (its caption,
// which the caller writes next, or a heading before it); the caller closes both. (Pages built
// from nodes use ui.Table, which reads as cards on a phone.)
func (d *doc) tableStart(labelID, tableID string) {
	d.node(h.Void("div", h.Class("table-wrap"), h.Attr("tabindex", "0"), h.Role("region"), h.Aria("labelledby", labelID)),
		h.Void("table", h.ID(tableID)))
}

// thead writes a table's header row, one column header per key (prefix+key in the
// catalogue), and opens its body.
func (d *doc) thead(prefix string, keys ...string) {
	d.node(h.Thead(h.Tr(h.Map(keys, func(k string) h.Node {
		return h.Th(h.Attr("scope", "col"), h.Text(d.t(prefix+k)))
	}))), h.Void("tbody"), newline)
}

func (d *doc) submit(key, id string) { d.node(ui.Submit(id, d.t(key))) }

// smallButton is a form with one button (and hidden fields, name/value pairs).
func (d *doc) smallButton(action, id, key string, danger bool, hidden ...string) {
	d.node(d.actionButton(action, id, key, danger, hidden...))
}

// actionButton is a one-button POST form (ui.ActionButton) to a dashboard path.
func (d *doc) actionButton(action, id, key string, danger bool, hidden ...string) h.Node {
	return ui.ActionButton(d.r.url(action), d.formToken(), id, d.t(key), danger, hidden...)
}

func (d *doc) notice(key string, args ...string) { d.node(ui.Flash(d.t(key, args...)), newline) }

func (d *doc) link(path, id, key string) { d.node(d.linkNode(path, id, key)) }

// linkNode is a link to a dashboard path (language and environment kept) with a message.
func (d *doc) linkNode(path, id, key string, args ...string) h.Node {
	return h.A(h.ID(id), h.Href(d.r.url(path)), h.Text(d.t(key, args...)))
}

// date writes a time in Dhaka time, as the page kit writes dates (ui.Date).
func (d *doc) date(t time.Time) { d.node(ui.Date(d.l, t)) }

// secretBox shows a secret once: selectable text and a copy button (JavaScript).
func (d *doc) secretBox(id, secret string) { d.node(d.secretBoxNode(id, secret)) }

func (d *doc) secretBoxNode(id, secret string) h.Node {
	return h.Group{
		h.P(h.Class("notice"), h.Role("status"), h.Text(d.t("dash.secret_once"))),
		h.Code(h.Class("secret"), h.ID(id), h.Text(secret)),
		h.P(h.Class("js-only"), h.Button(h.Type("button"), h.Class("linkbutton"), h.Data("copy", id),
			h.Data("done", d.t("dash.copied")), h.ID(id+"-copy"), h.Text(d.t("dash.copy")))),
		newline,
	}
}

func itoa(n int) string { return strconv.Itoa(n) }
