package dashboard

import (
	"net/url"
	"slices"
	"strconv"
	"strings"

	"github.com/takapay/payments/shared/document"
	"github.com/takapay/payments/shared/foundation/money"
)

// docView is what a document's page shows (documentPage), drawn section by section.
type docView struct {
	r          *req
	k          docKind
	rec        *document.Record
	body       *document.Body
	deliveries []document.Delivery
	// payable: payers can pay at the public link now (document.Payable).
	payable bool
	// qrSVG is a payment link's QR code (nil: none drawn).
	qrSVG []byte
	// write: the viewer may edit and run the commands.
	write bool
}

// summary writes the document's state, money, version and dates.
func (v *docView) summary(d *doc) {
	rec, k := v.rec, v.k
	d.Raw("<dl class=\"facts\"><dt>")
	d.text("dash.docs.col.state")
	d.Raw(`</dt><dd id="document-state">`)
	d.docState(rec)
	d.Raw("</dd><dt>")
	d.text("dash.docs.col." + k.msg + ".total")
	d.Raw(`</dt><dd id="document-total">`)
	d.optAmount(rec.AmountMinor)
	d.Raw("</dd><dt>")
	d.text("dash.docs.col.paid")
	d.Raw(`</dt><dd id="document-paid">`)
	d.Text(d.l.Amount(money.Paisa(rec.PaidMinor)))
	d.Raw("</dd><dt>")
	d.text("dash.docs.col.outstanding")
	d.Raw(`</dt><dd id="document-outstanding">`)
	d.outstanding(rec)
	d.Raw("</dd>")
	if rec.PaidAfterCloseMinor > 0 {
		d.Raw("<dt>")
		d.text("dash.docs.paid_after_close")
		d.Raw(`</dt><dd id="document-paid-after-close">`)
		d.Text(d.l.Amount(money.Paisa(rec.PaidAfterCloseMinor)))
		d.Raw("</dd>")
	}
	d.Raw("<dt>")
	d.text("dash.docs.version")
	d.Raw(`</dt><dd id="document-version">`)
	d.Text(d.l.Number(rec.Version))
	d.Raw("</dd><dt>")
	d.text("dash.docs.environment")
	d.Raw("</dt><dd>")
	d.text("dash.env." + string(rec.Environment))
	d.Raw("</dd><dt>")
	d.text("dash.docs.id")
	d.Raw(`</dt><dd><code id="document-id">`)
	d.Text(rec.ID)
	d.Raw("</code></dd><dt>")
	d.text("dash.docs.col.created")
	d.Raw("</dt><dd>")
	d.date(rec.CreatedAt)
	d.Raw("</dd><dt>")
	d.text("dash.docs.updated")
	d.Raw("</dt><dd>")
	d.date(rec.UpdatedAt)
	d.Raw("</dd></dl>\n")
}

// actions writes what the viewer may do: edit, and the commands this state allows.
func (v *docView) actions(d *doc) {
	rec, k, write := v.rec, v.k, v.write
	if write {
		d.Raw(`<div class="actions" id="document-actions">`)
		if document.Editable(rec.Kind, rec.Status) {
			d.link(k.docPath(rec.ID)+"/edit", "edit-document", "dash.docs.edit")
		}
		version := strconv.FormatInt(rec.Version, 10)
		for _, tr := range document.Transitions {
			if tr.Kind != k.kind || !slices.Contains(tr.From, rec.Status) {
				continue
			}
			danger := tr.Action == "cancel" || tr.Action == "archive"
			d.smallButton(k.docPath(rec.ID)+"/"+tr.Action, tr.Action, "dash.docs.action."+tr.Action, danger, "version", version)
		}
		d.Raw("</div>\n")
	}
}

// linkSection writes the public link (open to payers now or not), and a payment link's QR code.
func (v *docView) linkSection(d *doc) {
	rec, k, r, payable, qrSVG := v.rec, v.k, v.r, v.payable, v.qrSVG
	d.Raw(`<h2 id="public-link-title">`)
	d.text("dash.docs.public_link")
	d.Raw("</h2>\n<p class=\"hint\" id=\"public-link-hint\">")
	switch {
	case rec.Status == document.StatusDraft:
		d.text("dash.docs." + k.msg + ".link_draft")
	case payable:
		d.text("dash.docs.link_open")
	default:
		d.text("dash.docs.link_closed")
	}
	d.Raw("</p>\n")
	link := publicLink(r, rec)
	d.Raw(`<code class="secret" id="public-link" aria-describedby="public-link-hint">`)
	d.Text(link)
	d.Raw(`</code><p class="js-only"><button type="button" class="linkbutton" data-copy="public-link" id="public-link-copy"`)
	d.Attr("data-done", d.t("dash.copied"))
	d.Raw(">")
	d.text("dash.docs.copy_link")
	d.Raw("</button></p>\n<p class=\"links\"><a id=\"open-public-link\"")
	d.URLAttr("href", link)
	d.Raw(">")
	d.text("dash.docs.open_link")
	d.Raw("</a></p>\n")
	if qrSVG != nil {
		d.Raw(`<h2 id="qr-title">`)
		d.text("dash.docs.qr.heading")
		d.Raw("</h2>\n<figure class=\"qr\" id=\"qr\" aria-labelledby=\"qr-caption\">")
		// Our own drawing (package qr): its one text, the title, is XML-escaped there.
		d.Raw(string(qrSVG))
		d.Raw(`<figcaption id="qr-caption">`)
		d.text("dash.docs.qr.caption", "link", link)
		d.Raw("</figcaption></figure>\n<p class=\"links\">")
		d.link(k.docPath(rec.ID)+"/qr.svg", "qr-svg", "dash.docs.qr.svg")
		d.Raw(" ")
		d.link(k.docPath(rec.ID)+"/qr.png", "qr-png", "dash.docs.qr.png")
		d.Raw("</p>\n")
	}
}

// bodyFacts writes the body, field by field.
func (v *docView) bodyFacts(d *doc) {
	rec, body, k, r := v.rec, v.body, v.k, v.r
	d.Raw(`<h2>`)
	d.text("dash.docs.details")
	d.Raw("</h2>\n<dl class=\"facts\" id=\"document-body\">")
	fact := func(key, text string) {
		d.Raw("<dt>")
		d.text("dash.docs.field." + key)
		d.Raw("</dt><dd")
		d.Attr("id", "field-"+key)
		d.Raw(">")
		d.Text(text)
		d.Raw("</dd>")
	}
	field := func(key string, v *string) {
		if v != nil && *v != "" {
			fact(key, *v)
		}
	}
	amount := func(key string, v *int64) {
		if v != nil {
			fact(key, d.l.Amount(money.Paisa(*v)))
		}
	}
	number := func(key string, v *int64) {
		if v != nil {
			fact(key, d.l.Number(*v))
		}
	}
	ref := body.Reference
	field("reference", &ref)
	field("name", body.Name)
	field("email", body.Email)
	field("phone", body.Phone)
	field("description", body.Description)
	field("notes", body.Notes)
	field("private_notes", body.PrivateNotes)
	if len(body.Tags) > 0 {
		tags := strings.Join(body.Tags, ", ")
		field("tags", &tags)
	}
	if rec.CustomerID != nil {
		d.Raw("<dt>")
		d.text("dash.docs.field.customer_id")
		d.Raw(`</dt><dd id="field-customer_id"><a`)
		d.URLAttr("href", r.url("/dashboard/customers/"+url.PathEscape(*rec.CustomerID)))
		d.Raw(">")
		d.Text(*rec.CustomerID)
		d.Raw("</a></dd>")
	}
	if k.kind == document.PaymentLinks {
		amount("amount_minor", body.AmountMinor)
	}
	amount("tax_minor", body.TaxMinor)
	amount("fee_minor", body.FeeMinor)
	amount("shipping_minor", body.ShippingMinor)
	amount("discount_minor", body.DiscountMinor)
	if k.kind == document.Invoices && len(body.Items) == 0 {
		amount("amount_minor", body.AmountMinor)
	}
	d.dateField("due_at", body.DueAt)
	d.dateField("expires_at", body.ExpiresAt)
	number("max_quantity", body.MaxQuantity)
	number("max_uses", body.MaxUses)
	field("image_url", body.ImageURL)
	field("return_url", body.ReturnURL)
	d.Raw("</dl>\n")
}

// itemsTable writes the body's line items.
func (v *docView) itemsTable(d *doc) {
	body := v.body
	if len(body.Items) > 0 {
		d.tableStart("items-caption", "document-items")
		d.Raw(`<caption id="items-caption">`)
		d.text("dash.docs.items")
		d.Raw("</caption>")
		d.thead("dash.docs.item.", "title", "quantity", "unit", "line")
		for _, it := range body.Items {
			d.Raw(`<tr><th scope="row">`)
			d.Text(it.Title)
			d.Raw(`</th><td class="num">`)
			d.Text(d.l.Number(it.Quantity))
			d.Raw(`</td><td class="num">`)
			d.Text(d.l.Amount(money.Paisa(it.UnitAmountMinor)))
			d.Raw(`</td><td class="num">`)
			d.Text(d.l.Amount(money.Paisa(it.Quantity * it.UnitAmountMinor)))
			d.Raw("</td></tr>")
		}
		d.Raw("</tbody></table></div>\n")
	}
}

// fieldsTable writes the body's custom fields.
func (v *docView) fieldsTable(d *doc) {
	body := v.body
	if len(body.Fields) > 0 {
		d.tableStart("fields-caption", "document-fields")
		d.Raw(`<caption id="fields-caption">`)
		d.text("dash.docs.fields")
		d.Raw("</caption>")
		d.thead("dash.docs.cf.", "label", "id", "type", "required", "options")
		for _, f := range body.Fields {
			d.Raw(`<tr><th scope="row">`)
			d.Text(f.Label)
			d.Raw("</th><td><code>")
			d.Text(f.ID)
			d.Raw("</code></td><td>")
			d.Text(f.Type)
			d.Raw("</td><td>")
			if f.Required != nil && *f.Required {
				d.text("dash.docs.yes")
			} else {
				d.text("dash.docs.no")
			}
			d.Raw("</td><td>")
			d.Text(strings.Join(f.Options, ", "))
			d.Raw("</td></tr>")
		}
		d.Raw("</tbody></table></div>\n")
	}
}

// paymentsTable writes the record's latest payments, newest first.
func (v *docView) paymentsTable(d *doc) {
	rec, r := v.rec, v.r
	d.Raw(`<h2 id="payments-title">`)
	d.text("dash.docs.payments")
	d.Raw("</h2>\n<p class=\"hint\">")
	d.text("dash.docs.payments_hint", "count", d.l.Number(document.PaymentsWindow))
	d.Raw("</p>\n")
	d.tableStart("payments-title", "document-payments")
	d.thead("dash.docs.pay.", "payment", "state", "amount", "when")
	if len(rec.Payments) == 0 {
		d.Raw(`<tr><td colspan="4">`)
		d.text("dash.docs.no_payments")
		d.Raw("</td></tr>")
	}
	for i := len(rec.Payments) - 1; i >= 0; i-- {
		p := rec.Payments[i]
		d.Raw(`<tr><th scope="row"><a`)
		d.URLAttr("href", r.url("/dashboard/payments/"+url.PathEscape(p.IntentID)))
		d.Raw("><code>")
		d.Text(p.IntentID)
		d.Raw("</code></a></th><td>")
		d.payState(p.State)
		if p.AfterClose {
			d.Raw(" ")
			d.text("dash.docs.after_close")
		}
		d.Raw(`</td><td class="num">`)
		d.Text(d.l.Amount(money.Paisa(p.AmountMinor)))
		d.Raw("</td><td>")
		d.date(p.OccurredAt)
		d.Raw("</td></tr>")
	}
	d.Raw("</tbody></table></div>\n")
}

// deliveriesTable writes the deliveries of the latest payments.
func (v *docView) deliveriesTable(d *doc) {
	deliveries := v.deliveries
	d.Raw(`<h2 id="deliveries-title">`)
	d.text("dash.docs.deliveries")
	d.Raw("</h2>\n<p class=\"hint\">")
	d.text("dash.docs.deliveries_hint")
	d.Raw("</p>\n")
	d.tableStart("deliveries-title", "document-deliveries")
	d.thead("dash.docs.del.", "event", "kind", "status", "when")
	if len(deliveries) == 0 {
		d.Raw(`<tr><td colspan="4">`)
		d.text("dash.docs.no_deliveries")
		d.Raw("</td></tr>")
	}
	for _, dl := range deliveries {
		d.Raw(`<tr><th scope="row"><code>`)
		d.Text(dl.ID)
		d.Raw("</code></th><td>")
		d.Text(dl.Kind)
		d.Raw("</td><td>")
		d.keyOr("dash.docs.del.status."+dl.Status, dl.Status)
		d.Raw("</td><td>")
		d.date(dl.CreatedAt)
		d.Raw("</td></tr>")
	}
	d.Raw("</tbody></table></div>\n")
}

// historyTable writes the latest versions, newest first, and the way back to the list.
func (v *docView) historyTable(d *doc) {
	rec, k := v.rec, v.k
	d.Raw(`<h2 id="history-title">`)
	d.text("dash.docs.history")
	d.Raw("</h2>\n")
	d.tableStart("history-title", "document-history")
	d.thead("dash.docs.hist.", "version", "action", "state", "when")
	for i := len(rec.History) - 1; i >= 0; i-- {
		h := rec.History[i]
		d.Raw(`<tr><th scope="row">`)
		d.Text(d.l.Number(h.Version))
		d.Raw("</th><td>")
		d.keyOr("dash.docs.hist.action."+h.Action, h.Action)
		d.Raw("</td><td>")
		d.keyOr("dash.docs.state."+h.Status, h.Status)
		d.Raw("</td><td>")
		d.date(h.OccurredAt)
		d.Raw("</td></tr>")
	}
	d.Raw("</tbody></table></div>\n<p class=\"links\">")
	d.link(k.path, "back-to-list", "dash.docs."+k.msg+".back")
	d.Raw("</p>\n")
}
