package ui

import "github.com/takapay/payments/shared/foundation/h"

// FieldError is one problem of a form: the field's control id and the message.
type FieldError struct {
	ID      string
	Message string
}

// ErrorSummary lists a form's problems at its top, each linking to its field; nothing when
// there are none. title is the summary's lead ("Please fix these").
func ErrorSummary(title string, errs []FieldError) h.Node {
	if len(errs) == 0 {
		return nil
	}
	return h.Div(h.Class("error"), h.Role("alert"), h.ID("error-summary"),
		h.P(h.Text(title)),
		h.Ul(h.Map(errs, func(e FieldError) h.Node {
			return h.Li(h.A(h.Href("#"+e.ID), h.Text(e.Message)))
		})))
}
