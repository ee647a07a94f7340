package dashboard

import (
	"time"

	"github.com/takapay/payments/shared/foundation/h"
	"github.com/takapay/payments/shared/foundation/money"
	"github.com/takapay/payments/shared/foundation/ui"
)

// The invoice and payment-link pages write their markup as h/ui node trees; these helpers put
// a tree into the page being written and make the nodes those pages repeat. (The lead folds
// them with the shell's own when both land.)

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
