package dashboard

import (
	"time"

	"github.com/takapay/payments/shared/foundation/h"
	"github.com/takapay/payments/shared/foundation/money"
	"github.com/takapay/payments/shared/foundation/page"
	"github.com/takapay/payments/shared/foundation/ui"
)

// The invoice and payment-link pages write their markup as h/ui node trees; these helpers put
// a tree into the page being written and make the nodes those pages repeat. (The lead folds
// them with the shell's own when both land.)

// put writes nodes into the page.
func (d *doc) put(nodes ...h.Node) {
	for _, n := range nodes {
		if n != nil {
			n.Render(&d.Builder)
		}
	}
}

// tx is a message of the catalogue as a text node.
func (d *doc) tx(key string, args ...string) h.Node { return h.Text(d.t(key, args...)) }

// txOr is the catalogue's words for key, or text as it is when the catalogue has none (a
// state or action a newer API added).
func (d *doc) txOr(key, text string) string {
	if has(key) {
		return d.t(key)
	}
	return text
}

// a is a link to a dashboard path (an explicit language and the live environment kept).
func (d *doc) a(path, id, key string, args ...string) h.Node {
	return h.A(h.ID(id), h.Href(d.r.url(path)), d.tx(key, args...))
}

// csrf is the token every POST form of the page carries.
func (d *doc) csrf() string {
	if d.r.viewer != nil {
		return d.r.viewer.csrf
	}
	return d.r.preToken
}

// postForm is a POST form to a dashboard path with its CSRF token.
func (d *doc) postForm(action string, kids ...h.Node) h.Node {
	return ui.PostForm(d.r.url(action), d.csrf(), kids...)
}

// action is a one-button POST form to a dashboard path (hidden fields as name/value pairs).
func (d *doc) action(path, id, key string, danger bool, hidden ...string) h.Node {
	return ui.ActionButton(d.r.url(path), d.csrf(), id, d.t(key), danger, hidden...)
}

// money is an amount as the page's language writes it.
func (d *doc) money(p int64) h.Node { return ui.Money(d.l, money.Paisa(p)) }

// when is an instant as the page's language writes it (one format on every page).
func (d *doc) when(t time.Time) h.Node { return ui.Date(d.l, t) }

// noValue is a dash for the eye and words for a screen reader: a figure that does not apply.
func (d *doc) noValue() h.Node {
	return h.Group{
		h.Span(h.Aria("hidden", "true"), h.Text("—")),
		h.Span(h.Class("visually-hidden"), d.tx("dash.docs.none")),
	}
}

// novalidate keeps the browser's own validation tooltips, which speak the browser's language,
// off a Bangla page: the server checks every field and answers in the page's language.
func (d *doc) novalidate() h.Node { return h.Bool("novalidate", d.l == page.BN) }
