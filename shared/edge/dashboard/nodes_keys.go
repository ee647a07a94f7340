package dashboard

import (
	"github.com/takapay/payments/shared/foundation/h"
	"github.com/takapay/payments/shared/foundation/page"
	"github.com/takapay/payments/shared/foundation/ui"
)

// The node helpers of the keys, secrets, team, activity and passkeys pages (workspace.go,
// team.go): their markup is h/ui node trees written into the page with put. They mirror the
// doc helpers of render.go as nodes, keeping those helpers' markup (attribute order included:
// the tests read the forms by it).

// formNode is a POST form to a dashboard path with its CSRF token first (as formStart writes
// it). A Bangla page's form is novalidate: the browser's own messages are English, and the
// server answers every refusal in the page's language.
func (d *doc) formNode(action, id string, kids ...h.Node) h.Node {
	return h.Form(h.Method("post"), h.ID(id), h.Action(d.r.url(action)), h.Bool("novalidate", d.l == page.BN),
		h.Input(h.Type("hidden"), h.Name(csrfField), h.Value(d.formToken())),
		h.Group(kids))
}

// onceInput is a create form's one-use token (once.go), a new one on every rendering.
func onceInput() h.Node { return ui.Hidden(onceField, randomToken()) }

// button is a form's submit button that is not its main action (class linkbutton).
func (d *doc) button(id, key string, danger bool) h.Node {
	class := "linkbutton"
	if danger {
		class += " danger"
	}
	return h.Button(h.Type("submit"), h.Class(class), h.ID(id), d.tx(key))
}

// mainButton is a form's main submit button.
func (d *doc) mainButton(id, key string) h.Node { return ui.Submit(id, d.t(key)) }

// inlineChoice is a labelled select of a table row or card (class inline-field): an option per
// value, worded by optionKey+value, the one selected marked.
func (d *doc) inlineChoice(name, id, labelKey string, values []string, optionKey, selected string) h.Node {
	return h.Group{
		h.Label(h.For(id), d.tx(labelKey)),
		h.Select(h.Class("inline-field"), h.Name(name), h.ID(id), h.Map(values, func(v string) h.Node {
			return h.Option(h.Value(v), h.Selected(v == selected), d.tx(optionKey+v))
		})),
	}
}

// tally is a list's count line ("3 keys"), plural right in the page's language.
func (d *doc) tally(id, key string, n int, more ...h.Node) h.Node {
	return h.P(h.Class("hint"), h.ID(id), h.Text(plural(d.l, key, n)), h.Group(more))
}
