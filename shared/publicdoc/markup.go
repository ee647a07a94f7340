package publicdoc

import (
	"strconv"
	"strings"
	"time"

	"github.com/takapay/payments/shared/document"
	"github.com/takapay/payments/shared/foundation/h"
	"github.com/takapay/payments/shared/foundation/money"
	"github.com/takapay/payments/shared/foundation/page"
	"github.com/takapay/payments/shared/foundation/ui"
)

// The markup of the public document page, as a tree of h and ui nodes: the document shell,
// the banner, the language switch, the footer and the error page are the components (package
// ui). Every value from the view or the request and every message of the catalogue is text or
// an attribute value of a node, which package h escapes (the form's action and links through
// htmlw.SafeURL). Rules that keep the Content-Security-Policy in SecurityHeaders valid: no
// <script> at all, the only <style> element is the document's, filled verbatim from the
// embedded assets; no inline event handlers (on...=) and no style= attributes. Element ids
// made from a custom field's id go through fieldDOMID.

// nl is a line break between block elements: the markup reads line by line, as the golden
// files show it.
var nl = h.Text("\n")

// kindKey is the catalogue key of a message that differs by document kind: base + ".invoice"
// or base + ".link".
func kindKey(v *View, base string) string {
	if v.Kind == document.Invoices {
		return base + ".invoice"
	}
	return base + ".link"
}

// pageDoc is the whole page.
func pageDoc(p *Page) ui.Document {
	v, l := p.View, p.Lang.Lang
	title := l.T("doc.link")
	if v.Kind == document.Invoices {
		title = l.T("doc.invoice")
	}
	if v.Reference != "" {
		title += " " + v.Reference
	}
	if v.MerchantName != "" {
		title += " · " + v.MerchantName
	}
	return ui.Document{Lang: l, Title: title, Style: style, Body: []h.Node{
		h.If(p.Sandbox, ui.Banner(l)),
		h.If(p.Action != "", ui.LangSwitch(l, p.Action)),
		h.Main(h.Class("card"), h.ID("document"), h.Data("state", v.State), nl,
			summary(v, l),
			errorBox(p),
			details(v, l),
			h.Section(h.Class("state"), h.ID("status"), h.Aria("labelledby", "status-title"), nl,
				state(p)),
			nl, refundPart(p)),
		nl,
		ui.Footer(l.T("page.footer")),
	}}
}

// refundPart is a paid invoice's refund section (payerrefund), after the status: the payer's
// request and its form, in the page's language, posting to the page's own path.
func refundPart(p *Page) h.Node {
	if p.Refund == nil || p.View.State != StatePaid {
		return nil
	}
	sec := *p.Refund
	sec.Lang, sec.Action, sec.Hidden = p.Lang.Lang, p.Lang.URL(p.Action), []string{RefundFormField, "refund"}
	return sec.Node()
}

// state is the status section's content: the form while payable, else the state's headline
// and message.
func state(p *Page) h.Node {
	v, l := p.View, p.Lang.Lang
	merchant := v.MerchantName
	headline := func(class, title, message string) h.Node {
		return h.Group{h.H2(h.Class(class), h.ID("status-title"), h.Text(title)), nl,
			h.P(h.Class("state-message"), h.ID("status-message"), h.Text(message)), nl}
	}
	switch v.State {
	case StatePayable:
		return answersForm(p)
	case StateUnavailable:
		if merchant == "" {
			merchant = l.T("doc.this_merchant")
		}
		return headline("state-title", l.T("doc.unavailable.title"), l.T("doc.unavailable", "merchant", merchant))
	case StatePaid:
		return headline("state-title state-paid", l.T(kindKey(v, "doc.paid")), l.T("doc.paid.message"))
	}
	message := l.T("doc.closed.message_anon")
	if merchant != "" {
		message = l.T("doc.closed.message", "merchant", merchant)
	}
	return headline("state-title", l.T(kindKey(v, "doc.closed")), message)
}

// errorBox is the message of a refused post: p.Error, then each of p.Problems.
func errorBox(p *Page) h.Node {
	if p.Error == "" && len(p.Problems) == 0 {
		return nil
	}
	l := p.Lang.Lang
	return h.Group{h.Div(h.Class("error"), h.ID("error"), h.Role("alert"),
		h.If(p.Error != "", h.P(h.Text(p.Error))),
		h.If(len(p.Problems) > 0, h.Group{
			h.P(h.Text(l.T("doc.check_answers"))),
			h.Ul(h.Map(p.Problems, func(pr Problem) h.Node { return h.Li(h.Text(problemText(l, pr))) })),
		}),
	), nl}
}

// problemText words one refused answer in l: "Size: choose one of the options".
func problemText(l page.Lang, pr Problem) string {
	label := pr.Label
	if pr.LabelKey != "" {
		label = l.T(pr.LabelKey)
	}
	args := make([]string, len(pr.Args))
	for i, a := range pr.Args {
		if i%2 == 1 {
			a = l.Digits(a)
		}
		args[i] = a
	}
	return l.T("doc.problem", "label", label, "problem", l.T(pr.Key, args...))
}

// summary is the header: merchant, reference, whom an invoice is for, the amount and, while
// payable, the due date or the expiry.
func summary(v *View, l page.Lang) h.Node {
	invoice := v.Kind == document.Invoices
	var who h.Node
	switch {
	case v.MerchantName == "" && invoice: // never an empty heading
		who = h.Group{h.H1(h.Class("merchant"), h.ID("merchant-name"), h.Text(l.T("doc.invoice"))), nl}
	case v.MerchantName == "":
		who = h.Group{h.H1(h.Class("merchant"), h.ID("merchant-name"), h.Text(l.T("doc.link"))), nl}
	default:
		kind := l.T("doc.pay_to")
		if invoice {
			kind = l.T("doc.invoice_from")
		}
		who = h.Group{h.P(h.Class("kind"), h.ID("kind"), h.Text(kind)), nl,
			h.H1(h.Class("merchant"), h.ID("merchant-name"), h.Text(v.MerchantName)), nl}
	}
	label, amount := "doc.price", v.OutstandingMinor
	switch {
	case invoice && v.State == StatePayable:
		label = "doc.amount_due"
	case invoice:
		label, amount = "doc.invoice_total", v.TotalMinor
	case v.MaxQuantity > 1:
		label = "doc.price_each"
	}
	var when h.Node
	if v.State == StatePayable {
		switch {
		case invoice && v.DueAt != nil:
			when = dateLine(l, "due", "doc.due", *v.DueAt)
		case !invoice && v.ExpiresAt != nil:
			when = dateLine(l, "expiry", "doc.until", *v.ExpiresAt)
		}
	}
	return h.Group{h.Header(h.Class("summary"), nl,
		who,
		h.If(v.Reference != "", h.Group{h.P(h.Class("reference"), h.Text(l.T("page.reference")+" "),
			h.Span(h.ID("reference"), h.Text(v.Reference))), nl}),
		billedTo(v, l),
		h.P(h.Class("amount-label"), h.ID("amount-label"), h.Text(l.T(label))), nl,
		h.P(h.Class("amount"), h.ID("amount"), ui.Money(l, money.Paisa(amount))), nl,
		when,
	), nl}
}

// billedTo is whom an invoice is for (the invoice's customer name), when it names one.
func billedTo(v *View, l page.Lang) h.Node {
	if v.Kind != document.Invoices || v.CustomerName == "" {
		return nil
	}
	before, after := l.Split("doc.billed_to", "name")
	return h.Group{h.P(h.Class("billed-to"), h.Text(before), h.Span(h.ID("customer-name"), h.Text(v.CustomerName)), h.Text(after)), nl}
}

// dateLine is a date line: the message key around the date-time (ui.Date), or s as it is when
// it is not an RFC 3339 date-time.
func dateLine(l page.Lang, id, key, s string) h.Node {
	before, after := l.Split(key, "date")
	var date h.Node = h.Text(s)
	if t, err := time.Parse(time.RFC3339Nano, s); err == nil {
		date = ui.Date(l, t)
	}
	return h.Group{h.P(h.Class("date"), h.ID(id), h.Text(before), date, h.Text(after)), nl}
}

// details is the description, the line items and, for an invoice, the totals.
func details(v *View, l page.Lang) h.Node {
	invoice := v.Kind == document.Invoices
	if v.Description == "" && len(v.Items) == 0 && !invoice {
		return nil
	}
	return h.Group{h.Section(h.Class("details"), h.Aria("labelledby", "details-title"), nl,
		h.H2(h.Class("section-title"), h.ID("details-title"), h.Text(l.T("doc.details"))), nl,
		h.If(v.Description != "", h.Group{h.P(h.Class("description"), h.ID("description"), h.Text(v.Description)), nl}),
		h.If(len(v.Items) > 0, items(v, l)),
		h.If(invoice, totals(v, l)),
	), nl}
}

// items is the table of line items.
func items(v *View, l page.Lang) h.Node {
	num := func(key string) h.Node { return h.Th(h.Attr("scope", "col"), h.Class("num"), h.Text(l.T(key))) }
	return h.Group{h.Table(h.Class("items"), h.ID("items"), nl,
		h.Caption(h.Text(l.T("doc.items"))), nl,
		h.Thead(h.Tr(h.Th(h.Attr("scope", "col"), h.Text(l.T("doc.col.item"))), num("doc.col.qty"), num("doc.col.unit"), num("doc.col.amount"))), nl,
		h.Tbody(nl, h.Map(v.Items, func(it document.LineItem) h.Node {
			return h.Group{h.Tr(h.Td(h.Text(it.Title)),
				h.Td(h.Class("num"), h.Text(l.Number(it.Quantity))),
				h.Td(h.Class("num"), ui.Money(l, money.Paisa(it.UnitAmountMinor))),
				h.Td(h.Class("num"), ui.Money(l, money.Paisa(it.Quantity*it.UnitAmountMinor)))), nl}
		})), nl,
	), nl}
}

// totals is an invoice's totals: the adjustments it has, the total, what is paid and what is
// due.
func totals(v *View, l page.Lang) h.Node {
	row := func(class, key string, paisa int64) h.Node {
		return h.Group{h.Tr(h.Class(class), h.Th(h.Attr("scope", "row"), h.Text(l.T(key))),
			h.Td(h.Class("num"), ui.Money(l, money.Paisa(paisa)))), nl}
	}
	rows := h.Group{}
	for _, r := range []struct {
		key   string
		paisa int64
	}{{"doc.tax", v.TaxMinor}, {"doc.fee", v.FeeMinor}, {"doc.shipping", v.ShippingMinor}, {"doc.discount", -v.DiscountMinor}} {
		if r.paisa != 0 {
			rows = append(rows, row("", r.key, r.paisa))
		}
	}
	rows = append(rows, row("grand", "doc.total", v.TotalMinor))
	if v.PaidMinor != 0 {
		rows = append(rows, row("", "doc.paid", v.PaidMinor))
	}
	if v.State == StatePayable || v.State == StatePaid {
		rows = append(rows, row("grand", "doc.amount_due", v.OutstandingMinor))
	}
	return h.Group{h.Table(h.Class("totals"), h.ID("totals"), nl,
		h.Caption(h.Text(l.T("doc.totals"))), nl,
		h.Tbody(nl, rows), nl,
	), nl}
}

// fieldDOMID is the element id of a custom field's control: "field-" and the field id, whose
// bytes other than ASCII letters, digits and _ . : - (all a stored field id holds) are written
// as '~' and two hex digits (so "a b" is "field-a~20b"). Distinct field ids give distinct
// element ids, and none contains white space. (A CSS selector must escape '.' and ':': use
// #field-gift\.wrap or [id="field-gift.wrap"].)
func fieldDOMID(id string) string {
	return "field-" + escapeID(id)
}

// optionDOMID is the element id of a radio group's n-th option (from 1): "option-", the
// escaped field id, '-' and n. n holds no '-', so distinct (id, n) give distinct element ids,
// and the prefix keeps them apart from the fields'.
func optionDOMID(fieldID string, n int) string {
	return "option-" + escapeID(fieldID) + "-" + strconv.Itoa(n)
}

func escapeID(id string) string {
	const hex = "0123456789abcdef"
	out := make([]byte, 0, len(id)+8)
	for i := 0; i < len(id); i++ {
		c := id[i]
		if 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || strings.IndexByte("_.:-", c) >= 0 {
			out = append(out, c)
		} else {
			out = append(out, '~', hex[c>>4], hex[c&0xf])
		}
	}
	return string(out)
}

// requiredMark is the visible marker of a required field.
func requiredMark(l page.Lang, required bool) h.Node {
	if !required {
		return nil
	}
	return h.Group{h.Text(" "), h.Span(h.Class("req"), h.Text(l.T("doc.required")))}
}

// answersForm is the form: the quantity, the custom fields and the payer's optional contact
// details, refilled with p.Values after a refused post. A Bangla form is novalidate: the
// server's Bangla messages are the only ones the payer sees.
func answersForm(p *Page) h.Node {
	v, l := p.View, p.Lang.Lang
	anyRequired := false
	for _, f := range v.Fields {
		anyRequired = anyRequired || f.Required && f.Type != "file"
	}
	action := h.Node(nil)
	if p.Action != "" {
		action = h.Action(p.Lang.URL(p.Action))
	}
	return h.Group{
		h.H2(h.Class("state-title"), h.ID("status-title"), h.Text(l.T("doc.your_details"))), nl,
		h.Form(h.Method("post"), action, h.Class("answers"), h.ID("answers"), h.Bool("novalidate", l == page.BN), nl,
			h.If(anyRequired, h.Group{h.P(h.Class("hint row"), h.ID("required-note"), h.Text(l.T("doc.required_note"))), nl}),
			quantity(p),
			h.Map(v.Fields, func(f Field) h.Node { return field(l, f, p.Values.Fields[f.ID]) }),
			h.Fieldset(h.Class("group"), h.ID("payer"), nl,
				h.Legend(h.Text(l.T("doc.contact")+" "), h.Span(h.Class("req"), h.Text(l.T("doc.optional")))), nl,
				payerInput(l, "payer-name", FormPayerName, "doc.name", "text", MaxPayerName, "name", p.Values.Payer.Name, false),
				payerInput(l, "payer-email", FormPayerEmail, "doc.email", "email", MaxPayerEmail, "email", p.Values.Payer.Email, true),
				payerInput(l, "payer-phone", FormPayerPhone, "doc.phone", "tel", MaxPayerPhone, "tel", p.Values.Payer.Phone, true),
			), nl,
			h.Button(h.Type("submit"), h.Class("button primary"), h.ID("continue"), h.Text(l.T("doc.continue"))), nl,
		), nl,
	}
}

// payerInput is one of the payer's contact details: its label and input, refilled with value.
func payerInput(l page.Lang, id, name, labelKey, typ string, maxLen int, autocomplete, value string, plain bool) h.Node {
	return h.Group{h.Div(h.Class("row"),
		h.Label(h.Class("field-label"), h.For(id), h.Text(l.T(labelKey))),
		h.Input(h.Class("field"), h.Type(typ), h.Name(name), h.ID(id), h.Attr("maxlength", strconv.Itoa(maxLen)),
			h.Attr("autocomplete", autocomplete),
			h.If(plain, h.Group{h.Attr("autocapitalize", "none"), h.Attr("spellcheck", "false")}),
			h.AttrIf("value", value)),
	), nl}
}

// quantity is a number input for a payment link that sells more than one unit, else a hidden
// 1.
func quantity(p *Page) h.Node {
	v, l := p.View, p.Lang.Lang
	if v.Kind == document.Invoices || v.MaxQuantity <= 1 {
		return h.Group{ui.Hidden("quantity", "1"), nl}
	}
	q := int64(1)
	if p.Values.Quantity != nil && *p.Values.Quantity >= 1 && *p.Values.Quantity <= v.MaxQuantity {
		q = *p.Values.Quantity
	}
	return h.Group{h.Div(h.Class("row"), nl,
		h.Label(h.Class("field-label"), h.For("quantity"), h.Text(l.T("doc.quantity"))), nl,
		h.Input(h.Class("field"), h.Type("number"), h.Name("quantity"), h.ID("quantity"), h.Attr("min", "1"),
			h.Attr("max", strconv.FormatInt(v.MaxQuantity, 10)), h.Attr("step", "1"), h.Value(strconv.FormatInt(q, 10)),
			h.Required(true), h.Attr("inputmode", "numeric"), h.Aria("describedby", "quantity-hint")), nl,
		h.P(h.Class("hint"), h.ID("quantity-hint"), h.Text(l.T("doc.quantity_hint", "min", l.Number(1), "max", l.Number(v.MaxQuantity),
			"amount", l.Amount(money.Paisa(v.OutstandingMinor))))), nl,
	), nl}
}

// field is one custom field's control with its label, filled with value.
func field(l page.Lang, f Field, value Answer) h.Node {
	id := fieldDOMID(f.ID)
	name := FormFieldPrefix + f.ID
	switch f.Type {
	case "text", "textarea":
		return textField(l, f, value, id, name)
	case "select":
		return selectField(l, f, value, id, name)
	case "radio":
		return radios(l, f, value, id, name)
	case "checkbox":
		return checkbox(l, f, value, id, name)
	case "file":
		return h.Group{h.Div(h.Class("row"), h.ID(id),
			h.P(h.Class("field-label"), h.Text(f.Label)), h.P(h.Class("note"), h.Text(l.T("doc.file_unavailable")))), nl}
	}
	return nil
}

// textField is a text or textarea field, refilled with value.
func textField(l page.Lang, f Field, value Answer, id, name string) h.Node {
	var control h.Node
	if f.Type == "text" {
		control = h.Input(h.Class("field"), h.Type("text"), h.Name(name), h.ID(id), h.Attr("maxlength", strconv.Itoa(MaxText)),
			h.Required(f.Required), h.AttrIf("value", value.Text))
	} else {
		// The parser drops one newline right after the start tag: this one, never the value's
		// own first line break.
		control = h.Textarea(h.Class("field"), h.Attr("rows", "4"), h.Name(name), h.ID(id), h.Attr("maxlength", strconv.Itoa(MaxTextarea)),
			h.Required(f.Required), nl, h.Text(value.Text))
	}
	return h.Group{h.Div(h.Class("row"), nl,
		h.Label(h.Class("field-label"), h.For(id), h.Text(f.Label), requiredMark(l, f.Required)), nl,
		control, nl,
	), nl}
}

// selectField is a select field, value's option selected.
func selectField(l page.Lang, f Field, value Answer, id, name string) h.Node {
	none := l.T("doc.no_answer")
	if f.Required {
		none = l.T("doc.choose_option")
	}
	return h.Group{h.Div(h.Class("row"), nl,
		h.Label(h.Class("field-label"), h.For(id), h.Text(f.Label), requiredMark(l, f.Required)), nl,
		h.Select(h.Class("field"), h.Name(name), h.ID(id), h.Required(f.Required), nl,
			h.Option(h.Value(""), h.Text(none)), nl,
			h.Map(f.Options, func(o string) h.Node {
				return h.Group{h.Option(h.Value(o), h.Selected(o != "" && o == value.Text), h.Text(o)), nl}
			}),
		), nl,
	), nl}
}

// radios is a radio group, value's option checked.
func radios(l page.Lang, f Field, value Answer, id, name string) h.Node {
	opts := make(h.Group, 0, len(f.Options))
	for i, o := range f.Options {
		oid := optionDOMID(f.ID, i+1)
		opts = append(opts, h.Label(h.Class("option"), h.For(oid),
			h.Input(h.Type("radio"), h.Name(name), h.ID(oid), h.Value(o), h.Required(f.Required), h.Checked(o != "" && o == value.Text)),
			h.Text(" "), h.Span(h.Text(o))), nl)
	}
	return h.Group{h.Fieldset(h.Class("group"), h.ID(id),
		h.Legend(h.Text(f.Label), requiredMark(l, f.Required)), nl,
		opts,
	), nl}
}

// checkbox is a checkbox field, checked when value is.
func checkbox(l page.Lang, f Field, value Answer, id, name string) h.Node {
	return h.Group{h.Div(h.Class("check"),
		h.Input(h.Type("checkbox"), h.Name(name), h.ID(id), h.Value("true"), h.Required(f.Required), h.Checked(value.Bool != nil && *value.Bool)),
		h.Label(h.For(id), h.Text(f.Label), requiredMark(l, f.Required)),
	), nl}
}
