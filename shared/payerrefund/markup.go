package payerrefund

import (
	"github.com/takapay/payments/shared/foundation/apierr"
	"github.com/takapay/payments/shared/foundation/h"
	"github.com/takapay/payments/shared/foundation/money"
	"github.com/takapay/payments/shared/foundation/page"
	"github.com/takapay/payments/shared/foundation/ui"
	"github.com/takapay/payments/shared/refund"
)

// Section is the payer's refund part of a paid page: the latest request's status, and the
// form while a request can be made (none yet, or the last one rejected or cancelled).
type Section struct {
	// Lang and Action (where the form posts, with the page's ?lang=) are the page's.
	Lang   page.Lang
	Action string
	// Hidden are the form's hidden fields, as name/value pairs (a page whose one path takes
	// other forms too names this one).
	Hidden []string
	// Request is the payment's latest payer request (nil: none).
	Request *refund.Refund
	// Refundable is what the payment has left to refund: the form is offered only then.
	Refundable money.Paisa
	// Form, Violations and Refusal are a refused post's values, the rules it broke and a
	// whole-form refusal (a catalogue key: RefusalNothing, RefusalRateLimited).
	Form       Form
	Violations []apierr.Violation
	Refusal    string
}

// The whole-form refusals.
const (
	RefusalNothing     = "refund.payer.err.nothing"
	RefusalRateLimited = "refund.payer.err.rate_limited"
)

var nl = h.Text("\n")

// Node is the section (nothing when there is neither a request nor anything to refund).
func (s Section) Node() h.Node {
	offer := s.Refundable > 0 && (s.Request == nil || s.Request.Status == refund.Rejected || s.Request.Status == refund.Cancelled)
	if s.Request == nil && !offer && s.Refusal == "" {
		return nil
	}
	var status, form h.Node
	title := "refund.payer.title"
	if s.Request != nil {
		status, title = s.status(), "refund.payer.title_status"
	}
	if offer {
		form = s.form()
	}
	return h.Group{h.Section(h.Class("refund"), h.ID("refund"), h.Aria("labelledby", "refund-title"), nl,
		h.H2(h.Class("section-title"), h.ID("refund-title"), h.Text(s.Lang.T(title))), nl,
		h.If(s.Refusal != "", h.Group{h.P(h.Class("error"), h.ID("refund-error"), h.Role("alert"), h.Text(s.Lang.T(s.Refusal))), nl}),
		status,
		form,
	), nl}
}

// status is the request's status in the payer's words, with its date.
func (s Section) status() h.Node {
	l, r := s.Lang, s.Request
	amount := l.Amount(r.AmountMinor)
	var text string
	switch r.Status {
	case refund.Requested:
		text = l.T("refund.payer.status.REQUESTED", "amount", amount, "date", l.DateTime(r.CreatedAt))
	case refund.Returned:
		at := r.UpdatedAt
		if r.ReturnedAt != nil {
			at = *r.ReturnedAt
		}
		text = l.T("refund.payer.status.RETURNED", "amount", amount, "date", l.DateTime(at))
	default:
		text = l.T("refund.payer.status."+string(r.Status), "amount", amount)
	}
	return h.Group{
		h.P(h.Class("refund-status"), h.ID("refund-status"), h.Data("status", string(r.Status)), h.Text(text)), nl,
		h.If(r.Note != "", h.Group{
			h.P(h.ID("refund-note-shown"), h.Text(l.T("refund.payer.your_note")+" "), h.Span(h.Class("quote"), h.Text(r.Note))), nl}),
		h.If(r.Status == refund.Rejected && r.RejectionReason != "", h.Group{
			h.P(h.ID("refund-rejection"), h.Text(l.T("refund.payer.rejection_reason")+" "), h.Span(h.Class("quote"), h.Text(r.RejectionReason))), nl}),
	}
}

// form is the request form: reason, an optional note, a contact; it works without script.
func (s Section) form() h.Node {
	l := s.Lang
	fieldErrs := Errors(l, s.Violations)
	errs := map[string]string{}
	for _, e := range fieldErrs {
		errs[e.ID] = e.Message
	}
	title := "refund.payer.intro"
	if s.Request != nil {
		title = "refund.payer.again"
	}
	return h.Group{
		h.P(h.Class("muted"), h.Text(l.T(title))), nl,
		h.If(len(fieldErrs) > 0, h.Group{ui.ErrorSummary(l.T("refund.payer.err.title"), fieldErrs), nl}),
		ui.PostForm(s.Action, "", h.ID("refund-form"), h.Bool("novalidate", true), nl,
			hidden(s.Hidden),
			ui.Field{Name: FieldReason, ID: fieldID(FieldReason), Label: l.T("refund.payer.reason"), Required: true,
				Error: errs[fieldID(FieldReason)], Control: s.reasons}, nl,
			ui.Field{Name: FieldNote, ID: fieldID(FieldNote), Label: l.T("refund.payer.note"), Type: "textarea",
				Value: s.Form.Note, Hint: l.T("refund.payer.note_hint"), Error: errs[fieldID(FieldNote)],
				Extra: []h.Node{h.Attr("maxlength", "255"), h.Attr("rows", "3")}}, nl,
			ui.Field{Name: FieldContact, ID: fieldID(FieldContact), Label: l.T("refund.payer.contact"), Required: true,
				Value: s.Form.Contact, Hint: l.T("refund.payer.contact_hint"), Error: errs[fieldID(FieldContact)],
				Extra: []h.Node{h.Attr("maxlength", "254"), h.Attr("autocapitalize", "none"), h.Attr("spellcheck", "false")}}, nl,
			ui.Submit("refund-submit", l.T("refund.payer.submit")), nl,
		), nl,
	}
}

// reasons is the reason's select: a word for each reason, the payer's choice kept.
func (s Section) reasons(id, describedBy string) h.Node {
	l := s.Lang
	return h.Select(h.Class("field"), h.ID(id), h.Name(FieldReason), h.Required(true), h.Aria("describedby", describedBy),
		h.If(errsHas(Errors(l, s.Violations), id), h.Attr("aria-invalid", "true")),
		h.Option(h.Value(""), h.Text(l.T("refund.payer.reason.choose"))),
		h.Map(refund.Reasons, func(r refund.Reason) h.Node {
			return h.Option(h.Value(string(r)), h.Selected(s.Form.Reason == string(r)), h.Text(l.T("refund.payer.reason."+string(r))))
		}))
}

func errsHas(errs []ui.FieldError, id string) bool {
	for _, e := range errs {
		if e.ID == id {
			return true
		}
	}
	return false
}

func hidden(pairs []string) h.Node {
	var out h.Group
	for i := 0; i+1 < len(pairs); i += 2 {
		out = append(out, ui.Hidden(pairs[i], pairs[i+1]), nl)
	}
	return out
}
