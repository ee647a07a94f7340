package ui

import "github.com/takapay/payments/shared/foundation/h"

// Flash is the message a page shows after an action succeeded ("Key created"), announced
// politely (role=status).
func Flash(text string) h.Node {
	if text == "" {
		return nil
	}
	return h.P(h.Class("notice"), h.Role("status"), h.ID("notice"), h.Text(text))
}
