package ui

import "github.com/takapay/payments/shared/foundation/h"

// TonePill is a status pill whose tone the caller chooses, for statuses ToneOf does not know
// (an API key's active, expiring, revoked; a member's or an invitation's state): the same
// pill as Pill, differing by colour and by its words.
func TonePill(tone Tone, status, text string) h.Node {
	return h.Span(h.Class("pill pill-"+string(tone)), h.Data("status", status), h.Text(text))
}
