package ui

import (
	"github.com/takapay/payments/shared/foundation/h"
	"github.com/takapay/payments/shared/foundation/page"
)

// Banner is the sandbox banner: every sandbox page says no real money moves.
func Banner(l page.Lang) h.Node {
	return h.Group{
		h.Div(h.Class("sandbox"), h.ID("sandbox-banner"), h.Role("status"), h.Text(l.T("page.sandbox"))),
		h.Raw("\n"),
	}
}
