package ui

import (
	"github.com/takapay/payments/shared/foundation/h"
	"github.com/takapay/payments/shared/foundation/money"
	"github.com/takapay/payments/shared/foundation/page"
)

// Money is an amount as the language writes it (page.Lang.Amount: ৳ and lakh grouping, Bangla
// digits in Bangla), kept on one line.
func Money(l page.Lang, p money.Paisa) h.Node {
	return h.Span(h.Class("money"), h.Text(l.Amount(p)))
}
