package publicdoc

import (
	"strconv"
	"strings"
	"time"

	"github.com/takapay/payments/shared/document"
	"github.com/takapay/payments/shared/htmlw"
	"github.com/takapay/payments/shared/money"
)

// The markup of the public document page and the error page.
//
// Constant markup is written with b.Raw; every value from the view or the request goes through
// b.Text (text), b.Attr (an attribute value) or b.URLAttr (the form's action), which escape it
// (see package htmlw). Rules that keep the Content-Security-Policy in SecurityHeaders valid:
// no <script> at all, the only <style> element is the one below, filled verbatim from the
// embedded asset; no inline event handlers (on...=) and no style= attributes. Element ids
// made from a custom field's id go through fieldDOMID.

// writeHead writes the document up to and including </head>.
func writeHead(b *htmlw.Builder, title string) {
	b.Raw(`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="color-scheme" content="light dark">
<meta name="robots" content="noindex, nofollow">
<title>`)
	b.Text(title)
	b.Raw(`</title>
<link rel="icon" href="data:,">
<style>`)
	b.Raw(styleSource)
	b.Raw("</style>\n</head>\n")
}

// noun is how the page names the document: "invoice" or "payment link".
func noun(v *View) string {
	if v.Kind == document.Invoices {
		return "invoice"
	}
	return "payment link"
}

func writePage(b *htmlw.Builder, p *Page) {
	v := p.View
	title := "Payment link"
	if v.Kind == document.Invoices {
		title = "Invoice"
	}
	if v.Reference != "" {
		title += " " + v.Reference
	}
	if v.MerchantName != "" {
		title += " · " + v.MerchantName
	}
	writeHead(b, title+" — Takapay")
	b.Raw("<body>\n")
	if p.Sandbox {
		b.Raw(`<div class="sandbox" id="sandbox-banner" role="status">Sandbox — no real money moves</div>` + "\n")
	}
	b.Raw(`<main class="card" id="document"`)
	b.Attr("data-state", v.State)
	b.Raw(">\n")
	writeSummary(b, v)
	if p.Error != "" {
		b.Raw(`<p class="error" id="error" role="alert">`)
		b.Text(p.Error)
		b.Raw("</p>\n")
	}
	writeDetails(b, v)
	b.Raw(`<section class="state" id="status" aria-labelledby="status-title">` + "\n")
	switch v.State {
	case StatePayable:
		writeForm(b, p)
	case StateUnavailable:
		b.Raw(`<h2 class="state-title" id="status-title">Payments are not open here yet</h2>
<p class="state-message" id="status-message">`)
		if v.MerchantName != "" {
			b.Text(v.MerchantName)
		} else {
			b.Raw("This merchant")
		}
		b.Raw(" does not accept payments on this page yet. Please contact them to pay another way.</p>\n")
	case StatePaid:
		b.Raw(`<h2 class="state-title state-paid" id="status-title">This `)
		b.Text(noun(v))
		b.Raw(` has been paid</h2>
<p class="state-message" id="status-message">Nothing is left to pay. You can close this page.</p>
`)
	default:
		b.Raw(`<h2 class="state-title" id="status-title">This `)
		b.Text(noun(v))
		b.Raw(` is no longer payable</h2>
<p class="state-message" id="status-message">`)
		if v.MerchantName != "" {
			b.Raw("Contact ")
			b.Text(v.MerchantName)
		} else {
			b.Raw("Contact the merchant")
		}
		b.Raw(" if you think this is a mistake.</p>\n")
	}
	b.Raw(`</section>
</main>
<footer class="footer">Secure checkout by Takapay</footer>
</body>
</html>
`)
}

// writeSummary writes the header: merchant, reference, the amount and, while payable, the due
// date or the expiry.
func writeSummary(b *htmlw.Builder, v *View) {
	invoice := v.Kind == document.Invoices
	b.Raw(`<header class="summary">` + "\n")
	switch {
	case v.MerchantName == "" && invoice: // never an empty heading
		b.Raw(`<h1 class="merchant" id="merchant-name">Invoice</h1>` + "\n")
	case v.MerchantName == "":
		b.Raw(`<h1 class="merchant" id="merchant-name">Payment link</h1>` + "\n")
	default:
		if invoice {
			b.Raw(`<p class="kind" id="kind">Invoice from</p>` + "\n")
		} else {
			b.Raw(`<p class="kind" id="kind">Pay to</p>` + "\n")
		}
		b.Raw(`<h1 class="merchant" id="merchant-name">`)
		b.Text(v.MerchantName)
		b.Raw("</h1>\n")
	}
	if v.Reference != "" {
		b.Raw(`<p class="reference">Reference <span id="reference">`)
		b.Text(v.Reference)
		b.Raw("</span></p>\n")
	}
	label, amount := "Price", v.AmountDisplay
	switch {
	case invoice && v.State == StatePayable:
		label = "Amount due"
	case invoice:
		label, amount = "Invoice total", money.Paisa(v.TotalMinor).Display()
	case v.MaxQuantity > 1:
		label = "Price per item"
	}
	b.Raw(`<p class="amount-label" id="amount-label">`)
	b.Text(label)
	b.Raw("</p>\n" + `<p class="amount" id="amount">`)
	b.Text(amount)
	b.Raw("</p>\n")
	if v.State == StatePayable {
		if invoice && v.DueAt != nil {
			writeDate(b, "due", "Due ", *v.DueAt)
		}
		if !invoice && v.ExpiresAt != nil {
			writeDate(b, "expiry", "Available until ", *v.ExpiresAt)
		}
	}
	b.Raw("</header>\n")
}

// writeDate writes a date line: prefix, the date-time in Dhaka time, or s as it is when it is
// not an RFC 3339 date-time.
func writeDate(b *htmlw.Builder, id, prefix, s string) {
	b.Raw(`<p class="date"`)
	b.Attr("id", id)
	b.Raw(">")
	b.Text(prefix)
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		b.Text(s)
		b.Raw("</p>\n")
		return
	}
	b.Raw("<time")
	b.Attr("datetime", t.UTC().Format(time.RFC3339))
	b.Raw(">")
	b.Text(t.In(dhaka).Format("2 January 2006, 15:04"))
	b.Raw("</time> (Dhaka time)</p>\n")
}

// writeDetails writes the description, the line items and, for an invoice, the totals.
func writeDetails(b *htmlw.Builder, v *View) {
	invoice := v.Kind == document.Invoices
	if v.Description == "" && len(v.Items) == 0 && !invoice {
		return
	}
	b.Raw(`<section class="details" aria-labelledby="details-title">
<h2 class="section-title" id="details-title">Details</h2>
`)
	if v.Description != "" {
		b.Raw(`<p class="description" id="description">`)
		b.Text(v.Description)
		b.Raw("</p>\n")
	}
	if len(v.Items) > 0 {
		b.Raw(`<table class="items" id="items">
<caption>Items</caption>
<thead><tr><th scope="col">Item</th><th scope="col" class="num">Qty</th><th scope="col" class="num">Unit price</th><th scope="col" class="num">Amount</th></tr></thead>
<tbody>
`)
		for _, it := range v.Items {
			b.Raw("<tr><td>")
			b.Text(it.Title)
			b.Raw(`</td><td class="num">`)
			b.Text(strconv.FormatInt(it.Quantity, 10))
			b.Raw(`</td><td class="num">`)
			b.Text(money.Paisa(it.UnitAmountMinor).Display())
			b.Raw(`</td><td class="num">`)
			b.Text(money.Paisa(it.Quantity * it.UnitAmountMinor).Display())
			b.Raw("</td></tr>\n")
		}
		b.Raw("</tbody>\n</table>\n")
	}
	if invoice {
		b.Raw(`<table class="totals" id="totals">
<caption>Totals</caption>
<tbody>
`)
		row := func(class, label string, paisa int64) {
			b.Raw("<tr")
			if class != "" {
				b.Attr("class", class)
			}
			b.Raw(`><th scope="row">`)
			b.Text(label)
			b.Raw(`</th><td class="num">`)
			b.Text(money.Paisa(paisa).Display())
			b.Raw("</td></tr>\n")
		}
		for _, r := range []struct {
			label string
			paisa int64
		}{{"Tax", v.TaxMinor}, {"Fee", v.FeeMinor}, {"Shipping", v.ShippingMinor}, {"Discount", -v.DiscountMinor}} {
			if r.paisa != 0 {
				row("", r.label, r.paisa)
			}
		}
		row("grand", "Total", v.TotalMinor)
		if v.PaidMinor != 0 {
			row("", "Paid", v.PaidMinor)
		}
		if v.State == StatePayable || v.State == StatePaid {
			row("grand", "Amount due", v.OutstandingMinor)
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
func writeRequired(b *htmlw.Builder, required bool) {
	if required {
		b.Raw(` <span class="req">(required)</span>`)
	}
}

// writeForm writes the answers form.
func writeForm(b *htmlw.Builder, p *Page) {
	v := p.View
	b.Raw(`<h2 class="state-title" id="status-title">Your details</h2>
<form method="post"`)
	if p.Action != "" {
		b.URLAttr("action", p.Action)
	}
	b.Raw(` class="answers" id="answers">` + "\n")
	anyRequired := false
	for _, f := range v.Fields {
		anyRequired = anyRequired || f.Required && f.Type != "file"
	}
	if anyRequired {
		b.Raw(`<p class="hint row" id="required-note">Fields marked (required) must be answered.</p>` + "\n")
	}
	writeQuantity(b, p)
	for _, f := range v.Fields {
		writeField(b, f, p.Values.Fields[f.ID])
	}
	b.Raw(`<fieldset class="group" id="payer">
<legend>Your contact details <span class="req">(optional)</span></legend>
`)
	payerInput := func(id, name, label, typ, max, autocomplete, value string, plain bool) {
		b.Raw(`<div class="row"><label class="field-label"`)
		b.Attr("for", id)
		b.Raw(">")
		b.Text(label)
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
	payerInput("payer-name", FormPayerName, "Name", "text", strconv.Itoa(MaxPayerName), "name", p.Values.Payer.Name, false)
	payerInput("payer-email", FormPayerEmail, "Email", "email", strconv.Itoa(MaxPayerEmail), "email", p.Values.Payer.Email, true)
	payerInput("payer-phone", FormPayerPhone, "Mobile number", "tel", strconv.Itoa(MaxPayerPhone), "tel", p.Values.Payer.Phone, true)
	b.Raw(`</fieldset>
<button type="submit" class="button primary" id="continue">Continue to payment</button>
</form>
`)
}

// writeQuantity writes the quantity: a number input for a payment link that sells more than
// one unit, else a hidden 1.
func writeQuantity(b *htmlw.Builder, p *Page) {
	v := p.View
	if v.Kind == document.Invoices || v.MaxQuantity <= 1 {
		b.Raw(`<input type="hidden" name="quantity" value="1">` + "\n")
		return
	}
	q := int64(1)
	if p.Values.Quantity != nil && *p.Values.Quantity >= 1 && *p.Values.Quantity <= v.MaxQuantity {
		q = *p.Values.Quantity
	}
	maxQ := strconv.FormatInt(v.MaxQuantity, 10)
	b.Raw(`<div class="row">
<label class="field-label" for="quantity">Quantity</label>
<input class="field" type="number" name="quantity" id="quantity" min="1"`)
	b.Attr("max", maxQ)
	b.Raw(` step="1"`)
	b.Attr("value", strconv.FormatInt(q, 10))
	b.Raw(` required inputmode="numeric" aria-describedby="quantity-hint">
<p class="hint" id="quantity-hint">From 1 to `)
	b.Text(maxQ)
	b.Raw(", at ")
	b.Text(v.AmountDisplay)
	b.Raw(" each</p>\n</div>\n")
}

// writeField writes one custom field's control with its label, filled with value.
func writeField(b *htmlw.Builder, f Field, value Answer) {
	id := fieldDOMID(f.ID)
	name := FormFieldPrefix + f.ID
	switch f.Type {
	case "text", "textarea":
		b.Raw(`<div class="row">
<label class="field-label"`)
		b.Attr("for", id)
		b.Raw(">")
		b.Text(f.Label)
		writeRequired(b, f.Required)
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
	case "select":
		b.Raw(`<div class="row">
<label class="field-label"`)
		b.Attr("for", id)
		b.Raw(">")
		b.Text(f.Label)
		writeRequired(b, f.Required)
		b.Raw(`</label>
<select class="field"`)
		b.Attr("name", name)
		b.Attr("id", id)
		if f.Required {
			b.Raw(` required>
<option value="">Choose an option</option>
`)
		} else {
			b.Raw(`>
<option value="">No answer</option>
`)
		}
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
	case "radio":
		b.Raw(`<fieldset class="group"`)
		b.Attr("id", id)
		b.Raw("><legend>")
		b.Text(f.Label)
		writeRequired(b, f.Required)
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
	case "checkbox":
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
		writeRequired(b, f.Required)
		b.Raw("</label></div>\n")
	case "file":
		b.Raw(`<div class="row"`)
		b.Attr("id", id)
		b.Raw(`><p class="field-label">`)
		b.Text(f.Label)
		b.Raw(`</p><p class="note">File upload is not available yet</p></div>` + "\n")
	}
}

func writeErrorPage(b *htmlw.Builder, title, message string) {
	if title == "" {
		title = "Error" // never an empty heading
	}
	writeHead(b, title+" — Takapay")
	b.Raw(`<body>
<main class="card" id="error-page">
<h1 class="state-title" id="error-title">`)
	b.Text(title)
	b.Raw(`</h1>
<p class="error-message" id="error-message">`)
	b.Text(message)
	b.Raw(`</p>
</main>
<footer class="footer">Secure checkout by Takapay</footer>
</body>
</html>
`)
}
