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

// put writes node trees into the page.
func (d *doc) put(nodes ...h.Node) {
	for _, n := range nodes {
		if n != nil {
			n.Render(&d.Builder)
		}
	}
}

// say is the message key in the page's language, as text.
func (d *doc) say(key string, args ...string) h.Node { return h.Text(d.t(key, args...)) }

// csrfToken is the token every form of the page carries: the session's, or a public form's.
func (d *doc) csrfToken() string {
	if d.r.viewer != nil {
		return d.r.viewer.csrf
	}
	return d.r.preToken
}

// formNode is a POST form to a dashboard path with its CSRF token first (as formStart writes
// it). A Bangla page's form is novalidate: the browser's own messages are English, and the
// server answers every refusal in the page's language.
func (d *doc) formNode(action, id string, kids ...h.Node) h.Node {
	return h.Form(h.Method("post"), h.ID(id), h.Action(d.r.url(action)), h.Bool("novalidate", d.l == page.BN),
		h.Input(h.Type("hidden"), h.Name(csrfField), h.Value(d.csrfToken())),
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
	return h.Button(h.Type("submit"), h.Class(class), h.ID(id), d.say(key))
}

// mainButton is a form's main submit button.
func (d *doc) mainButton(id, key string) h.Node { return ui.Submit(id, d.t(key)) }

// oneButton is a form with one button and hidden fields (name/value pairs), as smallButton.
func (d *doc) oneButton(action, id, key string, danger bool, hidden ...string) h.Node {
	fields := make(h.Group, 0, len(hidden)/2)
	for i := 0; i+1 < len(hidden); i += 2 {
		fields = append(fields, ui.Hidden(hidden[i], hidden[i+1]))
	}
	return d.formNode(action, "", fields, d.button(id, key, danger))
}

// fieldNode is a labelled input with its hint (hintKey, "" for none) and its error, as input.
func (d *doc) fieldNode(f *form, name, typ, labelKey, autocomplete, hintKey string, required bool, extra ...h.Node) h.Node {
	fl := ui.Field{Name: name, Type: typ, Label: d.t(labelKey), Value: f.value(name), Error: f.err(name),
		Required: required, Autocomplete: autocomplete, Extra: extra}
	if hintKey != "" {
		fl.Hint = d.t(hintKey)
	}
	return fl
}

// problems is a form's error summary, each problem linking to its field (nothing when none).
func (d *doc) problems(f *form) h.Node {
	if !f.failed() {
		return nil
	}
	errs := make([]ui.FieldError, 0, len(f.order))
	for _, name := range f.order {
		errs = append(errs, ui.FieldError{ID: "f-" + name, Message: f.errs[name]})
	}
	return ui.ErrorSummary(d.t("dash.fix"), errs)
}

// goTo is a link to a dashboard path.
func (d *doc) goTo(path, id, key string) h.Node {
	return h.A(h.ID(id), h.Href(d.r.url(path)), d.say(key))
}

// inlineChoice is a labelled select of a table row or card (class inline-field): an option per
// value, worded by optionKey+value, the one selected marked.
func (d *doc) inlineChoice(name, id, labelKey string, values []string, optionKey, selected string) h.Node {
	return h.Group{
		h.Label(h.For(id), d.say(labelKey)),
		h.Select(h.Class("inline-field"), h.Name(name), h.ID(id), h.Map(values, func(v string) h.Node {
			return h.Option(h.Value(v), h.Selected(v == selected), d.say(optionKey+v))
		})),
	}
}

// tally is a list's count line ("3 keys"), plural right in the page's language.
func (d *doc) tally(id, key string, n int, more ...h.Node) h.Node {
	return h.P(h.Class("hint"), h.ID(id), h.Text(plural(d.l, key, n)), h.Group(more))
}
