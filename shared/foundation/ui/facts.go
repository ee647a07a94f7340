package ui

import "github.com/takapay/payments/shared/foundation/h"

// Fact is one term of a facts list and its value (any node: text, money, a pill, a link).
type Fact struct {
	Term  string
	Value h.Node
	// ID is the value's id ("" for none): tests and links find a fact by it.
	ID string
}

// Facts is a definition list of a record's facts: term above value on a phone, side by side
// from 40em. Long values (ids, URLs, emails) wrap anywhere rather than widen the page.
func Facts(id string, facts ...Fact) h.Node {
	return h.Dl(h.Class("facts"), h.ID(id), h.Map(facts, func(f Fact) h.Node {
		if f.Value == nil {
			return nil
		}
		return h.Div(h.Class("fact"), h.Dt(h.Text(f.Term)), h.Dd(h.ID(f.ID), f.Value))
	}))
}

// Long is a long value (an id, a URL, an email) that wraps anywhere, in a monospace face when
// code is true.
func Long(s string, code bool) h.Node {
	if code {
		return h.Code(h.Class("long"), h.Text(s))
	}
	return h.Span(h.Class("long"), h.Text(s))
}
