package dashboard

import (
	"strconv"

	"github.com/takapay/payments/shared/document"
	"github.com/takapay/payments/shared/foundation/h"
	"github.com/takapay/payments/shared/foundation/ui"
	"github.com/takapay/payments/shared/foundation/web"
)

// docTitle is the page's title: "New invoice", "Edit invoice INV-7".
func (df *docForm) title(r *req) string {
	if df.id == "" {
		return t(r.l(), "dash.docform.new_"+df.k.msg)
	}
	return t(r.l(), "dash.docform.edit_"+df.k.msg, "reference", df.reference)
}

// notEditablePage says plainly that the document's state does not allow edits (the API's
// rule, document.Editable), with a link to its page.
func (s *Service) notEditablePage(r *req, df *docForm, status string) *web.Response {
	return s.page(r, 409, df.title(r), func(d *doc) {
		d.node(h.Div(h.Class("notice"), h.Role("alert"), h.ID("conflict"),
			h.P(d.tx("dash.docform.not_editable_"+df.k.msg, "status", d.t("dash.docform.status."+status))),
			h.P(h.Class("links"), d.linkNode(df.k.path+"/"+df.id, "conflict-review", "dash.docform.open_"+df.k.msg))))
	})
}

// docPage renders the create or edit form.
func (s *Service) docPage(r *req, status int, df *docForm) *web.Response {
	return s.page(r, status, df.title(r), func(d *doc) {
		var conflict h.Node
		if df.conflictAt > 0 {
			conflict = d.docConflict(df)
			df.version = df.conflictAt // saving again applies the typed values over it
		}
		back := df.k.path
		if df.id != "" {
			back = df.k.path + "/" + df.id
		}
		d.node(h.If(df.notice != "", ui.Flash(d.t(df.notice))), conflict, d.formErrors(df.f), d.docForm(df),
			h.P(h.Class("links"), d.linkNode(back, "cancel-edit", "dash.docform.cancel")))
	})
}

// formErrors lists a form's problems at its top, each linking to its field.
func (d *doc) formErrors(f *form) h.Node {
	if !f.failed() {
		return nil
	}
	errs := make([]ui.FieldError, 0, len(f.order))
	for _, name := range f.order {
		errs = append(errs, ui.FieldError{ID: "f-" + name, Message: f.errs[name]})
	}
	return ui.ErrorSummary(d.t("dash.fix"), errs)
}

// docConflict explains an edit's version conflict above the form.
func (d *doc) docConflict(df *docForm) h.Node {
	return h.Div(h.Class("notice"), h.Role("alert"), h.ID("conflict"),
		h.H2(d.tx("dash.docform.conflict_title_"+df.k.msg)),
		h.P(d.tx("dash.docform.conflict", "yours", d.l.Number(df.version), "now", d.l.Number(df.conflictAt))),
		h.Ul(
			h.Li(d.linkNode(df.k.path+"/"+df.id, "conflict-review", "dash.docform.conflict_review")),
			h.Li(d.linkNode(df.k.path+"/"+df.id+"/edit", "conflict-reload", "dash.docform.conflict_reload")),
			h.Li(d.tx("dash.docform.conflict_reapply", "now", d.l.Number(df.conflictAt))),
		))
}

// docForm is the form: its hidden state (the key, the row counts, the version edited and the
// dates as stored), the kind's sections, the other kind's fields folded away, and save.
// A Bangla form does not let the browser validate (its tooltips speak the browser's
// language): the server checks every field.
func (d *doc) docForm(df *docForm) h.Node {
	action := df.k.path
	if df.id != "" {
		action = df.k.path + "/" + df.id + "/edit"
	}
	invoice := df.k.kind == document.Invoices
	hidden := h.Group{ui.Hidden("idem", df.idem), ui.Hidden("item_rows", strconv.Itoa(df.items)),
		ui.Hidden("field_rows", strconv.Itoa(df.fields))}
	if df.id != "" {
		hidden = append(hidden, ui.Hidden("version", strconv.FormatInt(df.version, 10)), ui.Hidden("stored_reference", df.reference))
	}
	for _, n := range docDateFields {
		if raw := df.value(n + "_raw"); raw != "" {
			hidden = append(hidden, ui.Hidden(n+"_raw", raw))
		}
	}
	save := d.t("dash.docform.save_" + df.k.msg)
	if df.conflictAt > 0 {
		save = d.t("dash.docform.save_over", "now", d.l.Number(df.conflictAt))
	}
	return d.formPost(action, h.ID("doc-form"),
		// The first submit button is the one Enter presses: save, not "add rows".
		h.Button(h.Type("submit"), h.Name("action"), h.Value("save"), h.Bool("hidden", true), h.Attr("tabindex", "-1"), h.Aria("hidden", "true")),
		hidden,
		d.docSections(df, invoice),
		d.moreFields(df, invoice),
		h.P(h.Class("actions"), h.Button(h.Class("button primary inline"), h.Type("submit"), h.Name("action"), h.Value("save"),
			h.ID("save-document"), h.Text(save))),
	)
}

// section is a fieldset with its legend (id "" for none).
func (d *doc) section(id, legendKey string, kids ...h.Node) h.Node {
	return h.Fieldset(h.ID(id), h.Legend(d.tx(legendKey)), h.Group(kids))
}

// docSections are the kind's own sections: details, an invoice's items and amounts or a
// link's price, the custom fields and the notes.
func (d *doc) docSections(df *docForm, invoice bool) h.Node {
	details := d.section("", "dash.docform.section.details",
		d.docField(df, "reference", "text", true), d.docField(df, "description", "textarea", false), d.customerField(df),
		d.docField(df, "name", "text", false), d.docField(df, "email", "email", false), d.docField(df, "phone", "tel", false))
	var own h.Node
	if invoice {
		amounts := h.Group{}
		for _, n := range []string{"tax", "shipping", "fee", "discount", "amount", "due_at"} {
			amounts = append(amounts, d.docField(df, n, moreType(n), false))
		}
		own = h.Group{d.itemsSection(df), d.section("", "dash.docform.section.amounts", amounts)}
	} else {
		price := h.Group{}
		for _, n := range []string{"amount", "max_quantity", "max_uses", "expires_at", "return_url", "image_url"} {
			price = append(price, d.docField(df, n, moreType(n), false))
		}
		own = d.section("", "dash.docform.section.price", price)
	}
	return h.Group{details, own, d.fieldsSection(df), d.section("", "dash.docform.section.notes",
		d.docField(df, "notes", "textarea", false), d.docField(df, "private_notes", "textarea", false), d.docField(df, "tags", "text", false))}
}

// moreFields is what the API accepts for the other kind, folded away (open when one has a
// value or an error).
func (d *doc) moreFields(df *docForm, invoice bool) h.Node {
	var more []string
	if invoice {
		more = []string{"expires_at", "max_quantity", "max_uses", "return_url", "image_url"}
	} else {
		more = []string{"tax", "shipping", "fee", "discount", "due_at"}
	}
	fields := h.Group{}
	for _, n := range more {
		fields = append(fields, d.docField(df, n, moreType(n), false))
	}
	return h.Details(h.ID("more-fields"), h.Bool("open", moreOpen(df, more, invoice)),
		h.Summary(d.tx("dash.docform.more_"+df.k.msg)),
		h.If(!invoice, d.itemsSection(df)),
		fields)
}

// moreOpen reports whether the folded fields hold a value or an error (a link's line items
// among them).
func moreOpen(df *docForm, more []string, invoice bool) bool {
	open := false
	for _, n := range more {
		open = open || df.value(n) != "" || df.f.err(n) != ""
	}
	if !invoice {
		for i := 0; i < df.items; i++ {
			for _, p := range itemParts {
				open = open || df.value(itemName(i, p)) != "" || df.f.err(itemName(i, p)) != ""
			}
		}
		open = open || df.f.err("items") != ""
	}
	return open
}

// moreType is a field's input type: "money" and "number" are text inputs for taka and whole
// numbers (both accept Bangla digits and grouping commas, so neither is type=number); a due
// date or an expiry is a day (type=date: the browser's calendar, in its own date format).
func moreType(n string) string {
	switch n {
	case "amount", "tax", "shipping", "fee", "discount":
		return "money"
	case "due_at", "expires_at":
		return "date"
	case "max_quantity", "max_uses":
		return "number"
	case "return_url", "image_url":
		return "url"
	}
	return "text"
}

// label is a field's label: "Item 3: unit price (taka)".
func (d *doc) label(name string) string {
	return d.t("dash.docform.label."+labelKeyOf(name), "n", rowNumber(d.l, name))
}

// hintOf is a field's hint key, when the catalogue has one.
func hintOf(name string) string {
	if key := "dash.docform.hint." + labelKeyOf(name); has(key) {
		return key
	}
	return ""
}

// docField is a labelled field (ui.Field) with its hint and its error; typ is an input type,
// "money", "number" (moreType) or "textarea".
func (d *doc) docField(df *docForm, name, typ string, required bool) h.Node {
	hint := hintOf(name)
	if name == "amount" {
		hint = "dash.docform.hint.amount_" + df.k.msg
	}
	f := ui.Field{Name: name, Label: d.label(name), Type: typ, Value: df.value(name), Error: df.f.err(name),
		Required: required, Autocomplete: "off"}
	if hint != "" {
		f.Hint = d.t(hint)
	}
	switch typ {
	case "money":
		f.Type, f.Inputmode = "text", "decimal"
	case "number":
		f.Type, f.Inputmode = "text", "numeric"
	case "textarea":
		f.Autocomplete, f.Extra = "", []h.Node{h.Attr("rows", "3")}
	}
	return f
}

// docSelect is a labelled select of options (value and words), the current one selected.
func (d *doc) docSelect(df *docForm, name, hintKey string, options ...[2]string) h.Node {
	err := df.f.err(name)
	f := ui.Field{Name: name, Label: d.label(name), Error: err}
	if hintKey != "" {
		f.Hint = d.t(hintKey)
	}
	cur := df.value(name)
	f.Control = func(id, describedBy string) h.Node {
		return h.Select(h.Class("field"), h.ID(id), h.Name(name), h.If(err != "", h.Attr("aria-invalid", "true")),
			h.Aria("describedby", describedBy),
			h.Map(options, func(o [2]string) h.Node {
				return h.Option(h.Value(o[0]), h.Selected(o[0] == cur), h.Text(o[1]))
			}))
	}
	return f
}

// customerField is a select of the newest customers (and the one linked now), or a text
// input for the customer's id when the function does not list customers.
func (d *doc) customerField(df *docForm) h.Node {
	if df.customers == nil {
		return d.docField(df, "customer_id", "text", false)
	}
	cur := df.value("customer_id")
	options := [][2]string{{"", d.t("dash.docform.no_customer")}}
	found := cur == ""
	for _, c := range df.customers {
		words := c.Reference
		if b, err := c.Content(); err == nil && b.Name != nil && *b.Name != "" {
			words += " · " + *b.Name
		}
		options = append(options, [2]string{c.ID, words})
		found = found || c.ID == cur
	}
	if !found {
		options = append(options, [2]string{cur, cur})
	}
	return d.docSelect(df, "customer_id", "dash.docform.hint.customer_id", options...)
}

// rowsError is a repeating section's own error (too many rows, a total out of range).
func rowsError(df *docForm, name string) h.Node {
	e := df.f.err(name)
	return h.If(e != "", h.P(h.Class("field-error"), h.ID("f-"+name+"-error"), h.Text(e)))
}

// addRows is the button that adds empty rows to a repeating section (nothing is saved).
func (d *doc) addRows(id, action, key string) h.Node {
	return h.Button(h.Class("linkbutton"), h.Type("submit"), h.Name("action"), h.Value(action), h.ID(id),
		h.Bool("formnovalidate", true), d.tx(key))
}

// itemsSection is the line items: one fieldset per row, and the "add rows" button.
func (d *doc) itemsSection(df *docForm) h.Node {
	rows := h.Group{}
	for i := 0; i < df.items; i++ {
		rows = append(rows, h.Fieldset(h.ID("item-"+strconv.Itoa(i)), h.Class("row-set"),
			h.Legend(d.tx("dash.docform.item_n", "n", d.l.Digits(strconv.Itoa(i+1)))),
			d.docField(df, itemName(i, "title"), "text", false),
			h.Div(h.Class("row-pair"),
				d.docField(df, itemName(i, "quantity"), "number", false),
				d.docField(df, itemName(i, "unit_amount"), "money", false))))
	}
	return h.Fieldset(h.ID("f-items"), h.Legend(d.tx("dash.docform.section.items")),
		h.P(h.Class("hint"), h.ID("items-hint"), d.tx("dash.docform.items_hint_"+df.k.msg)),
		rowsError(df, "items"), rows,
		h.If(df.items < document.MaxItems, d.addRows("add-items", "add_items", "dash.docform.add_items")))
}

// fieldsSection is the custom fields a payer answers: one fieldset per row, and the "add
// rows" button.
func (d *doc) fieldsSection(df *docForm) h.Node {
	types := make([][2]string, 0, len(document.FieldTypes))
	for _, ft := range document.FieldTypes {
		types = append(types, [2]string{ft, d.t("dash.docform.type." + ft)})
	}
	rows := h.Group{}
	for i := 0; i < df.fields; i++ {
		req := fieldName(i, "required")
		reqErr := df.f.err(req)
		rows = append(rows, h.Fieldset(h.ID("field-"+strconv.Itoa(i)), h.Class("row-set"),
			h.Legend(d.tx("dash.docform.field_n", "n", d.l.Digits(strconv.Itoa(i+1)))),
			d.docField(df, fieldName(i, "id"), "text", false),
			d.docField(df, fieldName(i, "label"), "text", false),
			d.docSelect(df, fieldName(i, "type"), "", types...),
			h.Div(h.Class("row"),
				h.Label(h.Class("check"),
					h.Input(h.Type("checkbox"), h.ID("f-"+req), h.Name(req), h.Checked(df.value(req) != ""),
						h.If(reqErr != "", h.Group{h.Attr("aria-invalid", "true"), h.Aria("describedby", "f-"+req+"-error")})),
					h.Text(d.label(req))),
				h.If(reqErr != "", h.P(h.Class("field-error"), h.ID("f-"+req+"-error"), h.Text(reqErr)))),
			d.docField(df, fieldName(i, "options"), "textarea", false)))
	}
	return h.Fieldset(h.ID("f-fields"), h.Legend(d.tx("dash.docform.section.fields")),
		h.P(h.Class("hint"), d.tx("dash.docform.fields_hint")),
		rowsError(df, "fields"), rows,
		h.If(df.fields < document.MaxFields, d.addRows("add-fields", "add_fields", "dash.docform.add_fields")))
}
