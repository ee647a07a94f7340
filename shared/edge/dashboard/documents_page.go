package dashboard

import (
	"net/url"
	"slices"
	"strconv"
	"strings"

	"github.com/takapay/payments/shared/document"
	"github.com/takapay/payments/shared/foundation/h"
	"github.com/takapay/payments/shared/foundation/ui"
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

// summary is the document's state, money, version and dates; its id last.
func (v *docView) summary(d *doc) h.Node {
	rec := v.rec
	var afterClose h.Node
	if rec.PaidAfterCloseMinor > 0 {
		afterClose = d.money(rec.PaidAfterCloseMinor)
	}
	return ui.Facts("document-summary",
		ui.Fact{Term: d.t("dash.docs.col.state"), Value: d.docState(rec), ID: "document-state"},
		ui.Fact{Term: d.t("dash.docs.col." + v.k.msg + ".total"), Value: d.optAmount(rec.AmountMinor), ID: "document-total"},
		ui.Fact{Term: d.t("dash.docs.col.paid"), Value: d.money(rec.PaidMinor), ID: "document-paid"},
		ui.Fact{Term: d.t("dash.docs.col.outstanding"), Value: d.outstanding(rec), ID: "document-outstanding"},
		ui.Fact{Term: d.t("dash.docs.paid_after_close"), Value: afterClose, ID: "document-paid-after-close"},
		ui.Fact{Term: d.t("dash.docs.version"), Value: h.Text(d.l.Number(rec.Version)), ID: "document-version"},
		ui.Fact{Term: d.t("dash.docs.environment"), Value: d.tx("dash.env." + string(rec.Environment))},
		ui.Fact{Term: d.t("dash.docs.col.created"), Value: d.when(rec.CreatedAt)},
		ui.Fact{Term: d.t("dash.docs.updated"), Value: d.when(rec.UpdatedAt)},
		ui.Fact{Term: d.t("dash.docs.id"), Value: h.Code(h.Class("long"), h.ID("document-id"), h.Text(rec.ID))},
	)
}

// actions is what the viewer may do: edit, and the commands this state allows.
func (v *docView) actions(d *doc) h.Node {
	rec, k := v.rec, v.k
	if !v.write {
		return nil
	}
	version := strconv.FormatInt(rec.Version, 10)
	buttons := h.Group{}
	for _, tr := range document.Transitions {
		if tr.Kind == k.kind && slices.Contains(tr.From, rec.Status) {
			danger := tr.Action == "cancel" || tr.Action == "archive"
			buttons = append(buttons, d.actionButton(k.docPath(rec.ID)+"/"+tr.Action, tr.Action, "dash.docs.action."+tr.Action, danger, "version", version))
		}
	}
	return h.Div(h.Class("actions"), h.ID("document-actions"),
		h.If(document.Editable(rec.Kind, rec.Status), d.linkNode(k.docPath(rec.ID)+"/edit", "edit-document", "dash.docs.edit")),
		buttons)
}

// linkSection is the public link (open to payers now or not), wrapped on a phone, with a copy
// button and a link that opens it; a payment link's QR code.
func (v *docView) linkSection(d *doc) h.Node {
	rec, k := v.rec, v.k
	hint := "dash.docs.link_closed"
	switch {
	case rec.Status == document.StatusDraft:
		hint = "dash.docs." + k.msg + ".link_draft"
	case v.payable:
		hint = "dash.docs.link_open"
	}
	link := publicLink(v.r, rec)
	return h.Group{
		h.H2(h.ID("public-link-title"), d.tx("dash.docs.public_link")),
		h.P(h.Class("hint"), h.ID("public-link-hint"), d.tx(hint)),
		h.Code(h.Class("secret long"), h.ID("public-link"), h.Aria("describedby", "public-link-hint"), h.Text(link)),
		h.P(h.Class("js-only"), h.Button(h.Type("button"), h.Class("linkbutton"), h.Data("copy", "public-link"),
			h.ID("public-link-copy"), h.Data("done", d.t("dash.copied")), d.tx("dash.docs.copy_link"))),
		h.P(h.Class("links"), h.A(h.ID("open-public-link"), h.Href(link), d.tx("dash.docs.open_link"))),
		h.If(v.qrSVG != nil, h.Group{
			h.H2(h.ID("qr-title"), d.tx("dash.docs.qr.heading")),
			// Our own drawing (package qr): its one text, the title, is XML-escaped there.
			h.Figure(h.Class("qr"), h.ID("qr"), h.Aria("labelledby", "qr-caption"), h.Raw(string(v.qrSVG)),
				h.Figcaption(h.ID("qr-caption"), h.Class("long"), d.tx("dash.docs.qr.caption", "link", link))),
			h.P(h.Class("links"), d.linkNode(k.docPath(rec.ID)+"/qr.svg", "qr-svg", "dash.docs.qr.svg"), h.Text(" "),
				d.linkNode(k.docPath(rec.ID)+"/qr.png", "qr-png", "dash.docs.qr.png")),
		}),
	}
}

// bodyFacts is the body, field by field; addresses wrap and open with one tap.
func (v *docView) bodyFacts(d *doc) h.Node {
	rec, body := v.rec, v.body
	var facts []ui.Fact
	add := func(key string, n h.Node) {
		facts = append(facts, ui.Fact{Term: d.t("dash.docs.field." + key), Value: n, ID: "field-" + key})
	}
	text := func(key string, s *string) {
		if s != nil && *s != "" {
			add(key, ui.Long(*s, false))
		}
	}
	address := func(key string, s *string) {
		if s != nil && *s != "" {
			add(key, h.A(h.Href(*s), ui.Long(*s, false)))
		}
	}
	amount := func(key string, p *int64) {
		if p != nil {
			add(key, d.money(*p))
		}
	}
	number := func(key string, n *int64) {
		if n != nil {
			add(key, h.Text(d.l.Number(*n)))
		}
	}
	date := func(key string, s *string) {
		if s == nil {
			return
		}
		if at, err := parseRFC3339(*s); err == nil {
			add(key, d.when(at))
		} else {
			add(key, h.Text(*s))
		}
	}
	ref := body.Reference
	text("reference", &ref)
	text("name", body.Name)
	text("email", body.Email)
	text("phone", body.Phone)
	text("description", body.Description)
	text("notes", body.Notes)
	text("private_notes", body.PrivateNotes)
	if len(body.Tags) > 0 {
		add("tags", h.Text(strings.Join(body.Tags, ", ")))
	}
	if rec.CustomerID != nil {
		add("customer_id", h.A(h.Href(v.r.url("/dashboard/customers/"+url.PathEscape(*rec.CustomerID))), ui.Long(*rec.CustomerID, true)))
	}
	if v.k.kind == document.PaymentLinks || len(body.Items) == 0 {
		amount("amount_minor", body.AmountMinor)
	}
	amount("tax_minor", body.TaxMinor)
	amount("fee_minor", body.FeeMinor)
	amount("shipping_minor", body.ShippingMinor)
	amount("discount_minor", body.DiscountMinor)
	date("due_at", body.DueAt)
	date("expires_at", body.ExpiresAt)
	number("max_quantity", body.MaxQuantity)
	number("max_uses", body.MaxUses)
	address("image_url", body.ImageURL)
	address("return_url", body.ReturnURL)
	return h.Group{h.H2(d.tx("dash.docs.details")), ui.Facts("document-body", facts...)}
}

// cols are a table's columns from the catalogue (prefix+key; a key ending in "#" is a figure,
// right-aligned on a wide screen).
func (d *doc) cols(prefix string, keys ...string) []ui.Column {
	cols := make([]ui.Column, len(keys))
	for i, k := range keys {
		if key, ok := strings.CutSuffix(k, "#"); ok {
			cols[i] = ui.Column{Head: d.t(prefix + key), Class: "num"}
		} else {
			cols[i] = ui.Column{Head: d.t(prefix + k)}
		}
	}
	return cols
}

// itemsTable is the body's line items.
func (v *docView) itemsTable(d *doc) h.Node {
	if len(v.body.Items) == 0 {
		return nil
	}
	rows := make([]ui.Row, 0, len(v.body.Items))
	for _, it := range v.body.Items {
		rows = append(rows, ui.Row{Cells: []h.Node{ui.Long(it.Title, false), h.Text(d.l.Number(it.Quantity)),
			d.money(it.UnitAmountMinor), d.money(it.Quantity * it.UnitAmountMinor)}})
	}
	return ui.Table("document-items", d.t("dash.docs.items"), d.cols("dash.docs.item.", "title", "quantity#", "unit#", "line#"), rows)
}

// fieldsTable is the body's custom fields; their ids last.
func (v *docView) fieldsTable(d *doc) h.Node {
	if len(v.body.Fields) == 0 {
		return nil
	}
	rows := make([]ui.Row, 0, len(v.body.Fields))
	for _, f := range v.body.Fields {
		required := "dash.docs.no"
		if f.Required != nil && *f.Required {
			required = "dash.docs.yes"
		}
		rows = append(rows, ui.Row{Cells: []h.Node{ui.Long(f.Label, false), h.Text(d.txOr("dash.docs.cf.type."+f.Type, f.Type)), d.tx(required),
			ui.Long(strings.Join(f.Options, ", "), false), ui.Long(f.ID, true)}})
	}
	return ui.Table("document-fields", d.t("dash.docs.fields"), d.cols("dash.docs.cf.", "label", "type", "required", "options", "id"), rows)
}

// paymentsTable is the record's latest payments, newest first: amount, status, date, then the
// payment's id (a link to its page).
func (v *docView) paymentsTable(d *doc) h.Node {
	rows := make([]ui.Row, 0, len(v.rec.Payments))
	for i := len(v.rec.Payments) - 1; i >= 0; i-- {
		p := v.rec.Payments[i]
		rows = append(rows, ui.Row{Cells: []h.Node{
			d.money(p.AmountMinor),
			h.Group{ui.Pill(p.State, d.txOr("dash.docs.pay.state."+p.State, p.State)), h.If(p.AfterClose, h.Group{h.Text(" "), d.tx("dash.docs.after_close")})},
			d.when(p.OccurredAt),
			h.A(h.Href(v.r.url("/dashboard/payments/"+url.PathEscape(p.IntentID))), ui.Long(p.IntentID, true)),
		}})
	}
	return h.Group{
		h.H2(h.ID("payments-title"), d.tx("dash.docs.payments")),
		h.IfElse(len(rows) == 0, ui.Empty("document-payments", d.t("dash.docs.no_payments"), nil),
			ui.Table("document-payments", d.t("dash.docs.payments_hint", "count", d.l.Number(document.PaymentsWindow)),
				d.cols("dash.docs.pay.", "amount#", "state", "when", "payment"), rows)),
	}
}

// deliveriesTable is the deliveries of the latest payments: kind, status, date, the event id.
func (v *docView) deliveriesTable(d *doc) h.Node {
	rows := make([]ui.Row, 0, len(v.deliveries))
	for _, dl := range v.deliveries {
		rows = append(rows, ui.Row{Cells: []h.Node{ui.Long(dl.Kind, false),
			ui.Pill(strings.ToUpper(dl.Status), d.txOr("dash.docs.del.status."+dl.Status, dl.Status)),
			d.when(dl.CreatedAt), ui.Long(dl.ID, true)}})
	}
	return h.Group{
		h.H2(h.ID("deliveries-title"), d.tx("dash.docs.deliveries")),
		h.IfElse(len(rows) == 0, ui.Empty("document-deliveries", d.t("dash.docs.no_deliveries"), nil),
			ui.Table("document-deliveries", d.t("dash.docs.deliveries_hint"), d.cols("dash.docs.del.", "kind", "status", "when", "event"), rows)),
	}
}

// historyTable is the latest versions, newest first, and the way back to the list.
func (v *docView) historyTable(d *doc) h.Node {
	rows := make([]ui.Row, 0, len(v.rec.History))
	for i := len(v.rec.History) - 1; i >= 0; i-- {
		e := v.rec.History[i]
		rows = append(rows, ui.Row{Cells: []h.Node{h.Text(d.l.Number(e.Version)),
			h.Text(d.txOr("dash.docs.hist.action."+e.Action, e.Action)),
			ui.Pill(docTones[e.Status], d.txOr("dash.docs.state."+e.Status, e.Status)), d.when(e.OccurredAt)}})
	}
	return h.Group{
		h.H2(h.ID("history-title"), d.tx("dash.docs.history")),
		ui.Table("document-history", d.t("dash.docs.history_hint"), d.cols("dash.docs.hist.", "version", "action", "state", "when"), rows),
		h.P(h.Class("links"), d.linkNode(v.k.path, "back-to-list", "dash.docs."+v.k.msg+".back")),
	}
}
