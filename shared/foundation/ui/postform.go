package ui

import "github.com/takapay/payments/shared/foundation/h"

// CSRFField is the name of every dashboard form's CSRF token field.
const CSRFField = "csrf"

// PostForm is a POST form to action with its CSRF token first (csrf "" for a form that needs
// none, such as a payer page's, whose capability is its URL), then the children (fields,
// hidden inputs, buttons, and attributes such as h.ID or h.Class).
func PostForm(action, csrf string, kids ...h.Node) h.Node {
	return h.Form(h.Method("post"), h.Action(action),
		h.If(csrf != "", h.Input(h.Type("hidden"), h.Name(CSRFField), h.Value(csrf))),
		h.Group(kids))
}

// Hidden is a hidden input.
func Hidden(name, value string) h.Node {
	return h.Input(h.Type("hidden"), h.Name(name), h.Value(value))
}

// Submit is a form's main button.
func Submit(id, text string) h.Node {
	return h.Button(h.Class("button primary"), h.Type("submit"), h.ID(id), h.Text(text))
}

// ActionButton is a one-button POST form: an action on a record (revoke, resend, cancel),
// with hidden fields as name/value pairs; danger marks a destructive action.
func ActionButton(action, csrf, id, text string, danger bool, hidden ...string) h.Node {
	fields := make(h.Group, 0, len(hidden)/2)
	for i := 0; i+1 < len(hidden); i += 2 {
		fields = append(fields, Hidden(hidden[i], hidden[i+1]))
	}
	class := "linkbutton"
	if danger {
		class += " danger"
	}
	return PostForm(action, csrf, h.Class("action"), fields,
		h.Button(h.Type("submit"), h.Class(class), h.ID(id), h.Text(text)))
}
