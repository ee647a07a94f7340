package ui

import (
	"time"

	"github.com/takapay/payments/shared/foundation/h"
	"github.com/takapay/payments/shared/foundation/page"
)

// Date is an instant as the page's language writes it in Dhaka time (page.Lang.DateTime), in
// a <time> whose datetime is the exact UTC instant. Every date of a page goes through it, so a
// page shows one date format.
func Date(l page.Lang, t time.Time) h.Node {
	return h.Time(h.Attr("datetime", t.UTC().Format(time.RFC3339)), h.Text(l.DateTime(t)))
}
