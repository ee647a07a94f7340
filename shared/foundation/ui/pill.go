package ui

import "github.com/takapay/payments/shared/foundation/h"

// Tone is what a status means to a shop owner, and the pill's colour.
type Tone string

const (
	Good    Tone = "good"    // completed, paid, active
	Waiting Tone = "waiting" // pending, open, in review
	Bad     Tone = "bad"     // failed, rejected
	Off     Tone = "off"     // cancelled, expired, void, inactive
	Info    Tone = "info"    // draft, anything else
)

// ToneOf is the tone of a payment, document or refund status.
func ToneOf(status string) Tone {
	switch status {
	case "COMPLETED", "PAID", "ACTIVE", "RETURNED", "APPROVED", "DELIVERED", "SUCCEEDED":
		return Good
	case "PENDING", "OPEN", "REQUESTED", "IN_REVIEW", "PROCESSING", "SENT", "RETRYING":
		return Waiting
	case "FAILED", "REJECTED", "DEAD":
		return Bad
	case "CANCELLED", "EXPIRED", "VOID", "INACTIVE", "ARCHIVED":
		return Off
	}
	return Info
}

// Pill is a status as a pill that differs by colour and by its words (text, the status in
// the page's language), never by colour alone.
func Pill(status, text string) h.Node {
	return h.Span(h.Class("pill pill-"+string(ToneOf(status))), h.Data("status", status), h.Text(text))
}
