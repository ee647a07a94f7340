package ui

import "github.com/takapay/payments/shared/foundation/h"

// Empty is an empty list's state: what is not there yet and, when next is not nil, what to do
// about it (a link or a button).
func Empty(id, text string, next h.Node) h.Node {
	return h.Div(h.Class("empty"), h.ID(id), h.P(h.Text(text)), next)
}
