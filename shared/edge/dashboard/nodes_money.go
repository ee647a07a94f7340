package dashboard

import (
	"github.com/takapay/payments/shared/auth"
	"github.com/takapay/payments/shared/foundation/h"
	"github.com/takapay/payments/shared/foundation/page"
	"github.com/takapay/payments/shared/foundation/ui"
	"github.com/takapay/payments/shared/payment"
)

// The node helpers of the payments, webhooks and customers pages (payments.go, webhooks.go,
// customers.go): their markup is h/ui node trees, written into the page with emit. Each helper
// is a doc method because it needs the page's language, its links' query (req.url) or the
// viewer's CSRF token.

// href links to a dashboard path, keeping the language choice and the environment.
func (d *doc) href(path string) h.Node { return h.Href(d.r.url(path)) }

// links is a paragraph of links (class links).
func links(kids ...h.Node) h.Node { return h.P(h.Class("links"), h.Group(kids)) }

// getForm is a GET form (a search or filters: nothing changes, so no CSRF token) to path;
// the environment and an explicit language are hidden fields, since a GET form replaces its
// action's query.
func (d *doc) getForm(path, id string, kids ...h.Node) h.Node {
	return h.Form(h.Method("get"), h.Role("search"), h.ID(id), h.Action(path), d.banglaNoValidate(),
		h.If(d.r.env() == auth.Live, ui.Hidden(envParam, "live")),
		h.If(d.r.lang.Explicit, ui.Hidden(page.QueryParam, string(d.l))),
		h.Group(kids))
}

// fieldOf is a form field (ui.Field) holding the form's value and error for its name; label
// and hint are message keys (hint "" for none).
func (d *doc) fieldOf(f *form, fl ui.Field, labelKey, hintKey string) ui.Field {
	fl.Label = d.t(labelKey)
	if hintKey != "" {
		fl.Hint = d.t(hintKey)
	}
	fl.Value, fl.Error = f.value(fl.Name), f.err(fl.Name)
	return fl
}

// choice is a labelled select of options (value, message key) holding the form's value.
func (d *doc) choice(f *form, name, labelKey string, options [][2]string) h.Node {
	return d.fieldOf(f, ui.Field{Name: name, Control: func(id, describedBy string) h.Node {
		return h.Select(h.Class("field"), h.ID(id), h.Name(name),
			h.If(f.err(name) != "", h.Attr("aria-invalid", "true")), h.Aria("describedby", describedBy),
			h.Map(options, func(o [2]string) h.Node {
				return h.Option(h.Value(o[0]), h.Selected(f.value(name) == o[0]), d.tx(o[1]))
			}))
	}}, labelKey, "")
}

// fold is a disclosure (<details>) that keeps a form out of the way on a phone until it is
// opened: open when it holds something (an active filter, an error).
func fold(id, summary string, open bool, kids ...h.Node) h.Node {
	return h.Details(h.Class("fold"), h.ID(id), h.Bool("open", open),
		h.Summary(h.Text(summary)), h.Group(kids))
}

// payPill is a payment's status as a pill: its colour and its words.
func (d *doc) payPill(st payment.Status) h.Node {
	return ui.Pill(string(st), d.t("dash.pay.status."+string(st)))
}

// headings are a table's columns, headed by messages (prefix+key); a key ending in "#" is a
// number column (right-aligned on a wide screen).
func (d *doc) headings(prefix string, keys ...string) []ui.Column {
	out := make([]ui.Column, len(keys))
	for i, k := range keys {
		class := ""
		if n := len(k); n > 0 && k[n-1] == '#' {
			k, class = k[:n-1], "num"
		}
		out[i] = ui.Column{Head: d.t(prefix + k), Class: class}
	}
	return out
}

// number is a count in the page's digits.
func (d *doc) number(n int) h.Node { return h.Text(d.l.Digits(itoa(n))) }
