package payerrefund

import (
	"net/url"
	"strings"

	"github.com/takapay/payments/shared/foundation/apierr"
	"github.com/takapay/payments/shared/foundation/page"
	"github.com/takapay/payments/shared/foundation/ui"
	"github.com/takapay/payments/shared/refund"
)

// The form's fields, named as the JSON body names them.
const (
	FieldReason  = "reason"
	FieldNote    = "note"
	FieldContact = "contact"
)

// Form is what the payer typed, kept to refill a refused form.
type Form struct {
	Reason, Note, Contact string
}

// ParseForm reads a posted form (400 when it cannot be read).
func ParseForm(body []byte) (Form, error) {
	v, err := url.ParseQuery(string(body))
	if err != nil {
		return Form{}, apierr.New(apierr.MalformedRequest, "the form could not be read")
	}
	return Form{Reason: strings.TrimSpace(v.Get(FieldReason)), Note: strings.TrimSpace(v.Get(FieldNote)),
		Contact: strings.TrimSpace(v.Get(FieldContact))}, nil
}

// Input is the rule's input of the form.
func (f Form) Input() refund.PayerInput {
	return refund.PayerInput{Reason: refund.Reason(f.Reason), Note: f.Note, Contact: f.Contact}
}

// fieldID is the control id of a field.
func fieldID(name string) string { return "refund-" + name }

// Errors words a refused request's violations for the payer in l, one per field, in the
// form's order, each linking to its field.
func Errors(l page.Lang, vs []apierr.Violation) []ui.FieldError {
	var out []ui.FieldError
	for _, name := range []string{FieldReason, FieldNote, FieldContact} {
		for _, v := range vs {
			if v.Path == "body."+name {
				out = append(out, ui.FieldError{ID: fieldID(name), Message: l.T("refund.payer.err." + name)})
				break
			}
		}
	}
	return out
}
