package publicdoc

import (
	"strconv"
	"strings"
	"time"

	"github.com/takapay/payments/shared/document"
	"github.com/takapay/payments/shared/foundation/htmlw"
	"github.com/takapay/payments/shared/foundation/money"
	"github.com/takapay/payments/shared/foundation/page"
)

// The markup of the public document page. The head, the banner, the language switch, the
// footer and the error page are the kit's (package page).
//
// Constant markup is written with b.Raw; every value from the view or the request and every
// message of the catalogue goes through b.Text (text), b.Attr (an attribute value) or
// b.URLAttr (the form's action and links), which escape it (see package htmlw). Rules that
// keep the Content-Security-Policy in SecurityHeaders valid: no <script> at all, the only
// <style> element is the kit's, filled verbatim from the embedded assets; no inline event
// handlers (on...=) and no style= attributes. Element ids made from a custom field's id go
// through fieldDOMID.

// kindKey is the catalogue key of a message that differs by document kind: base + ".invoice"
// or base + ".link".
func kindKey(v *View, base string) string {
	if v.Kind == document.Invoices {
		return base + ".invoice"
	}
	return base + ".link"
}

func writePage(b *htmlw.Builder, p *Page) {
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
	page.WriteHead(b, l, title, style)
	b.Raw("<body>\n")
	if p.Sandbox {
		page.WriteBanner(b, l)
	}
	if p.Action != "" {
		page.WriteLangSwitch(b, l, p.Action)
	}
	b.Raw(`<main class="card" id="document"`)
	b.Attr("data-state", v.State)
	b.Raw(">\n")
	writeSummary(b, v, l)
	writeError(b, p)
	writeDetails(b, v, l)
	b.Raw(`<section class="state" id="status" aria-labelledby="status-title">` + "\n")
	merchant := v.MerchantName
	switch v.State {
	case StatePayable:
		writeForm(b, p)
	case StateUnavailable:
		if merchant == "" {
			merchant = l.T("doc.this_merchant")
		}
		b.Raw(`<h2 class="state-title" id="status-title">`)
		b.Text(l.T("doc.unavailable.title"))
		b.Raw("</h2>\n" + `<p class="state-message" id="status-message">`)
		b.Text(l.T("doc.unavailable", "merchant", merchant))
		b.Raw("</p>\n")
	case StatePaid:
		b.Raw(`<h2 class="state-title state-paid" id="status-title">`)
		b.Text(l.T(kindKey(v, "doc.paid")))
		b.Raw("</h2>\n" + `<p class="state-message" id="status-message">`)
		b.Text(l.T("doc.paid.message"))
		b.Raw("</p>\n")
	default:
		b.Raw(`<h2 class="state-title" id="status-title">`)
		b.Text(l.T(kindKey(v, "doc.closed")))
		b.Raw("</h2>\n" + `<p class="state-message" id="status-message">`)
		if merchant != "" {
			b.Text(l.T("doc.closed.message", "merchant", merchant))
		} else {
			b.Text(l.T("doc.closed.message_anon"))
		}
		b.Raw("</p>\n")
	}
	b.Raw("</section>\n</main>\n")
	page.WriteFooter(b, l, nil)
	b.Raw("</body>\n</html>\n")
}

// writeError writes the message of a refused post: p.Error, then each of p.Problems.
func writeError(b *htmlw.Builder, p *Page) {
	if p.Error == "" && len(p.Problems) == 0 {
		return
	}
	l := p.Lang.Lang
	b.Raw(`<div class="error" id="error" role="alert">`)
	if p.Error != "" {
		b.Raw("<p>")
		b.Text(p.Error)
		b.Raw("</p>")
	}
	if len(p.Problems) > 0 {
		b.Raw("<p>")
		b.Text(l.T("doc.check_answers"))
		b.Raw("</p><ul>")
		for _, pr := range p.Problems {
			b.Raw("<li>")
			b.Text(problemText(l, pr))
			b.Raw("</li>")
		}
		b.Raw("</ul>")
	}
	b.Raw("</div>\n")
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

// writeSummary writes the header: merchant, reference, the amount and, while payable, the due
// date or the expiry.
func writeSummary(b *htmlw.Builder, v *View, l page.Lang) {
	invoice := v.Kind == document.Invoices
	b.Raw(`<header class="summary">` + "\n")
	switch {
	case v.MerchantName == "" && invoice: // never an empty heading
		b.Raw(`<h1 class="merchant" id="merchant-name">`)
		b.Text(l.T("doc.invoice"))
		b.Raw("</h1>\n")
	case v.MerchantName == "":
		b.Raw(`<h1 class="merchant" id="merchant-name">`)
		b.Text(l.T("doc.link"))
		b.Raw("</h1>\n")
	default:
		b.Raw(`<p class="kind" id="kind">`)
		if invoice {
			b.Text(l.T("doc.invoice_from"))
		} else {
			b.Text(l.T("doc.pay_to"))
		}
		b.Raw("</p>\n" + `<h1 class="merchant" id="merchant-name">`)
		b.Text(v.MerchantName)
		b.Raw("</h1>\n")
	}
	if v.Reference != "" {
		b.Raw(`<p class="reference">`)
		b.Text(l.T("page.reference"))
		b.Raw(` <span id="reference">`)
		b.Text(v.Reference)
		b.Raw("</span></p>\n")
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
	b.Raw(`<p class="amount-label" id="amount-label">`)
	b.Text(l.T(label))
	b.Raw("</p>\n" + `<p class="amount" id="amount">`)
	b.Text(l.Amount(money.Paisa(amount)))
	b.Raw("</p>\n")
	if v.State == StatePayable {
		if invoice && v.DueAt != nil {
			writeDate(b, l, "due", "doc.due", *v.DueAt)
		}
		if !invoice && v.ExpiresAt != nil {
			writeDate(b, l, "expiry", "doc.until", *v.ExpiresAt)
		}
	}
	b.Raw("</header>\n")
}

// writeDate writes a date line: the message key around the date-time in Dhaka time, or s as
// it is when it is not an RFC 3339 date-time.
func writeDate(b *htmlw.Builder, l page.Lang, id, key, s string) {
	before, after := l.Split(key, "date")
	b.Raw(`<p class="date"`)
	b.Attr("id", id)
	b.Raw(">")
	b.Text(before)
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		b.Text(s)
	} else {
		b.Raw("<time")
		b.Attr("datetime", t.UTC().Format(time.RFC3339))
		b.Raw(">")
		b.Text(l.DateTime(t))
		b.Raw("</time>")
	}
	b.Text(after)
	b.Raw("</p>\n")
}

// writeDetails writes the description, the line items and, for an invoice, the totals.
func writeDetails(b *htmlw.Builder, v *View, l page.Lang) {
	invoice := v.Kind == document.Invoices
	if v.Description == "" && len(v.Items) == 0 && !invoice {
		return
	}
	b.Raw(`<section class="details" aria-labelledby="details-title">` + "\n" + `<h2 class="section-title" id="details-title">`)
	b.Text(l.T("doc.details"))
	b.Raw("</h2>\n")
	if v.Description != "" {
		b.Raw(`<p class="description" id="description">`)
		b.Text(v.Description)
		b.Raw("</p>\n")
	}
	if len(v.Items) > 0 {
		b.Raw(`<table class="items" id="items">` + "\n<caption>")
		b.Text(l.T("doc.items"))
		b.Raw(`</caption>` + "\n" + `<thead><tr><th scope="col">`)
		b.Text(l.T("doc.col.item"))
		b.Raw(`</th><th scope="col" class="num">`)
		b.Text(l.T("doc.col.qty"))
		b.Raw(`</th><th scope="col" class="num">`)
		b.Text(l.T("doc.col.unit"))
		b.Raw(`</th><th scope="col" class="num">`)
		b.Text(l.T("doc.col.amount"))
		b.Raw("</th></tr></thead>\n<tbody>\n")
		for _, it := range v.Items {
			b.Raw("<tr><td>")
			b.Text(it.Title)
			b.Raw(`</td><td class="num">`)
			b.Text(l.Number(it.Quantity))
			b.Raw(`</td><td class="num">`)
			b.Text(l.Amount(money.Paisa(it.UnitAmountMinor)))
			b.Raw(`</td><td class="num">`)
			b.Text(l.Amount(money.Paisa(it.Quantity * it.UnitAmountMinor)))
			b.Raw("</td></tr>\n")
		}
		b.Raw("</tbody>\n</table>\n")
	}
	if invoice {
		b.Raw(`<table class="totals" id="totals">` + "\n<caption>")
		b.Text(l.T("doc.totals"))
		b.Raw("</caption>\n<tbody>\n")
		row := func(class, key string, paisa int64) {
			b.Raw("<tr")
			if class != "" {
				b.Attr("class", class)
			}
			b.Raw(`><th scope="row">`)
			b.Text(l.T(key))
			b.Raw(`</th><td class="num">`)
			b.Text(l.Amount(money.Paisa(paisa)))
			b.Raw("</td></tr>\n")
		}
		for _, r := range []struct {
			key   string
			paisa int64
		}{{"doc.tax", v.TaxMinor}, {"doc.fee", v.FeeMinor}, {"doc.shipping", v.ShippingMinor}, {"doc.discount", -v.DiscountMinor}} {
			if r.paisa != 0 {
				row("", r.key, r.paisa)
			}
		}
		row("grand", "doc.total", v.TotalMinor)
		if v.PaidMinor != 0 {
			row("", "doc.paid", v.PaidMinor)
		}
		if v.State == StatePayable || v.State == StatePaid {
			row("grand", "doc.amount_due", v.OutstandingMinor)
		}
		b.Raw("</tbody>\n</table>\n")
	}
	b.Raw("</section>\n")
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

// writeRequired writes the visible marker of a required field.
func writeRequired(b *htmlw.Builder, l page.Lang, required bool) {
	if required {
		b.Raw(` <span class="req">`)
		b.Text(l.T("doc.required"))
		b.Raw("</span>")
	}
}

// writeForm writes the answers form.
func writeForm(b *htmlw.Builder, p *Page) {
	v, l := p.View, p.Lang.Lang
	b.Raw(`<h2 class="state-title" id="status-title">`)
	b.Text(l.T("doc.your_details"))
	b.Raw("</h2>\n" + `<form method="post"`)
	if p.Action != "" {
		b.URLAttr("action", p.Lang.URL(p.Action))
	}
	b.Raw(` class="answers" id="answers">` + "\n")
	anyRequired := false
	for _, f := range v.Fields {
		anyRequired = anyRequired || f.Required && f.Type != "file"
	}
	if anyRequired {
		b.Raw(`<p class="hint row" id="required-note">`)
		b.Text(l.T("doc.required_note"))
		b.Raw("</p>\n")
	}
	writeQuantity(b, p)
	for _, f := range v.Fields {
		writeField(b, l, f, p.Values.Fields[f.ID])
	}
	b.Raw(`<fieldset class="group" id="payer">` + "\n<legend>")
	b.Text(l.T("doc.contact"))
	b.Raw(` <span class="req">`)
	b.Text(l.T("doc.optional"))
	b.Raw("</span></legend>\n")
	payerInput := func(id, name, labelKey, typ, max, autocomplete, value string, plain bool) {
		b.Raw(`<div class="row"><label class="field-label"`)
		b.Attr("for", id)
		b.Raw(">")
		b.Text(l.T(labelKey))
		b.Raw(`</label><input class="field"`)
		b.Attr("type", typ)
		b.Attr("name", name)
		b.Attr("id", id)
		b.Attr("maxlength", max)
		b.Attr("autocomplete", autocomplete)
		if plain {
			b.Raw(` autocapitalize="none" spellcheck="false"`)
		}
		if value != "" {
			b.Attr("value", value)
		}
		b.Raw("></div>\n")
	}
	payerInput("payer-name", FormPayerName, "doc.name", "text", strconv.Itoa(MaxPayerName), "name", p.Values.Payer.Name, false)
	payerInput("payer-email", FormPayerEmail, "doc.email", "email", strconv.Itoa(MaxPayerEmail), "email", p.Values.Payer.Email, true)
	payerInput("payer-phone", FormPayerPhone, "doc.phone", "tel", strconv.Itoa(MaxPayerPhone), "tel", p.Values.Payer.Phone, true)
	b.Raw("</fieldset>\n" + `<button type="submit" class="button primary" id="continue">`)
	b.Text(l.T("doc.continue"))
	b.Raw("</button>\n</form>\n")
}

// writeQuantity writes the quantity: a number input for a payment link that sells more than
// one unit, else a hidden 1.
func writeQuantity(b *htmlw.Builder, p *Page) {
	v, l := p.View, p.Lang.Lang
	if v.Kind == document.Invoices || v.MaxQuantity <= 1 {
		b.Raw(`<input type="hidden" name="quantity" value="1">` + "\n")
		return
	}
	q := int64(1)
	if p.Values.Quantity != nil && *p.Values.Quantity >= 1 && *p.Values.Quantity <= v.MaxQuantity {
		q = *p.Values.Quantity
	}
	b.Raw(`<div class="row">` + "\n" + `<label class="field-label" for="quantity">`)
	b.Text(l.T("doc.quantity"))
	b.Raw(`</label>` + "\n" + `<input class="field" type="number" name="quantity" id="quantity" min="1"`)
	b.Attr("max", strconv.FormatInt(v.MaxQuantity, 10))
	b.Raw(` step="1"`)
	b.Attr("value", strconv.FormatInt(q, 10))
	b.Raw(` required inputmode="numeric" aria-describedby="quantity-hint">` + "\n" + `<p class="hint" id="quantity-hint">`)
	b.Text(l.T("doc.quantity_hint", "min", l.Number(1), "max", l.Number(v.MaxQuantity), "amount", l.Amount(money.Paisa(v.OutstandingMinor))))
	b.Raw("</p>\n</div>\n")
}

// writeField writes one custom field's control with its label, filled with value.
func writeField(b *htmlw.Builder, l page.Lang, f Field, value Answer) {
	id := fieldDOMID(f.ID)
	name := FormFieldPrefix + f.ID
	switch f.Type {
	case "text", "textarea":
		writeTextField(b, l, f, value, id, name)
	case "select":
		writeSelect(b, l, f, value, id, name)
	case "radio":
		writeRadios(b, l, f, value, id, name)
	case "checkbox":
		writeCheckbox(b, l, f, value, id, name)
	case "file":
		writeFileField(b, l, f, id)
	}
}

// writeTextField writes a text or textarea field, refilled with value.
func writeTextField(b *htmlw.Builder, l page.Lang, f Field, value Answer, id, name string) {
	b.Raw(`<div class="row">
<label class="field-label"`)
	b.Attr("for", id)
	b.Raw(">")
	b.Text(f.Label)
	writeRequired(b, l, f.Required)
	b.Raw("</label>\n")
	if f.Type == "text" {
		b.Raw(`<input class="field" type="text"`)
		b.Attr("name", name)
		b.Attr("id", id)
		b.Attr("maxlength", strconv.Itoa(MaxText))
		if f.Required {
			b.Raw(" required")
		}
		if value.Text != "" {
			b.Attr("value", value.Text)
		}
		b.Raw(">\n")
	} else {
		b.Raw(`<textarea class="field" rows="4"`)
		b.Attr("name", name)
		b.Attr("id", id)
		b.Attr("maxlength", strconv.Itoa(MaxTextarea))
		if f.Required {
			b.Raw(" required")
		}
		// The parser drops one newline right after the start tag: this one, never the
		// value's own first line break.
		b.Raw(">\n")
		b.Text(value.Text)
		b.Raw("</textarea>\n")
	}
	b.Raw("</div>\n")
}

// writeSelect writes a select field, value's option selected.
func writeSelect(b *htmlw.Builder, l page.Lang, f Field, value Answer, id, name string) {
	b.Raw(`<div class="row">
<label class="field-label"`)
	b.Attr("for", id)
	b.Raw(">")
	b.Text(f.Label)
	writeRequired(b, l, f.Required)
	b.Raw(`</label>
<select class="field"`)
	b.Attr("name", name)
	b.Attr("id", id)
	if f.Required {
		b.Raw(" required>\n" + `<option value="">`)
		b.Text(l.T("doc.choose_option"))
	} else {
		b.Raw(">\n" + `<option value="">`)
		b.Text(l.T("doc.no_answer"))
	}
	b.Raw("</option>\n")
	for _, o := range f.Options {
		b.Raw("<option")
		b.Attr("value", o)
		if o != "" && o == value.Text {
			b.Raw(" selected")
		}
		b.Raw(">")
		b.Text(o)
		b.Raw("</option>\n")
	}
	b.Raw("</select>\n</div>\n")
}

// writeRadios writes a radio group, value's option checked.
func writeRadios(b *htmlw.Builder, l page.Lang, f Field, value Answer, id, name string) {
	b.Raw(`<fieldset class="group"`)
	b.Attr("id", id)
	b.Raw("><legend>")
	b.Text(f.Label)
	writeRequired(b, l, f.Required)
	b.Raw("</legend>\n")
	for i, o := range f.Options {
		oid := optionDOMID(f.ID, i+1)
		b.Raw(`<label class="option"`)
		b.Attr("for", oid)
		b.Raw(`><input type="radio"`)
		b.Attr("name", name)
		b.Attr("id", oid)
		b.Attr("value", o)
		if f.Required {
			b.Raw(" required")
		}
		if o != "" && o == value.Text {
			b.Raw(" checked")
		}
		b.Raw("> <span>")
		b.Text(o)
		b.Raw("</span></label>\n")
	}
	b.Raw("</fieldset>\n")
}

// writeCheckbox writes a checkbox field, checked when value is.
func writeCheckbox(b *htmlw.Builder, l page.Lang, f Field, value Answer, id, name string) {
	b.Raw(`<div class="check"><input type="checkbox"`)
	b.Attr("name", name)
	b.Attr("id", id)
	b.Raw(` value="true"`)
	if f.Required {
		b.Raw(" required")
	}
	if value.Bool != nil && *value.Bool {
		b.Raw(" checked")
	}
	b.Raw("><label")
	b.Attr("for", id)
	b.Raw(">")
	b.Text(f.Label)
	writeRequired(b, l, f.Required)
	b.Raw("</label></div>\n")
}

// writeFileField writes a file field as unavailable (file upload is not available yet).
func writeFileField(b *htmlw.Builder, l page.Lang, f Field, id string) {
	b.Raw(`<div class="row"`)
	b.Attr("id", id)
	b.Raw(`><p class="field-label">`)
	b.Text(f.Label)
	b.Raw(`</p><p class="note">`)
	b.Text(l.T("doc.file_unavailable"))
	b.Raw("</p></div>\n")
}
