package ui

import "github.com/takapay/payments/shared/foundation/h"

// Footer is a page family's footer line: its words (the payer pages' "Secure checkout by
// Takapay", the dashboard's own), then extra (nil for none), e.g. a labelled payment reference.
func Footer(words string, extra ...h.Node) h.Node {
	return h.Group{
		h.Footer(h.Class("footer"), h.Text(words), h.Group(extra)),
		h.Raw("\n"),
	}
}
