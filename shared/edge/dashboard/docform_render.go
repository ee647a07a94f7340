package dashboard

import (
	"strconv"
	"strings"

	"github.com/takapay/payments/shared/document"
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
		d.Raw(`<div class="notice" role="alert" id="conflict"><p>`)
		d.text("dash.docform.not_editable_"+df.k.msg, "status", d.t("dash.docform.status."+status))
		d.Raw(`</p><p class="links">`)
		d.link(df.k.path+"/"+df.id, "conflict-review", "dash.docform.open_"+df.k.msg)
		d.Raw("</p></div>\n")
	})
}

// docPage renders the create or edit form.
func (s *Service) docPage(r *req, status int, df *docForm) *web.Response {
	return s.page(r, status, df.title(r), func(d *doc) {
		if df.notice != "" {
			d.notice(df.notice)
		}
		if df.conflictAt > 0 {
			d.docConflict(df)
			df.version = df.conflictAt // saving again applies the typed values over it
		}
		d.errorSummary(df.f)
		d.docFormStart(df)
		invoice := df.k.kind == document.Invoices
		d.docSections(df, invoice)
		d.moreFields(df, invoice)
		d.docFormEnd(df)
	})
}

// docConflict explains an edit's version conflict above the form.
func (d *doc) docConflict(df *docForm) {
	d.Raw(`<div class="notice" role="alert" id="conflict"><h2>`)
	d.text("dash.docform.conflict_title_" + df.k.msg)
	d.Raw("</h2><p>")
	d.text("dash.docform.conflict", "yours", d.l.Number(df.version), "now", d.l.Number(df.conflictAt))
	d.Raw(`</p><ul><li>`)
	d.link(df.k.path+"/"+df.id, "conflict-review", "dash.docform.conflict_review")
	d.Raw("</li><li>")
	d.link(df.k.path+"/"+df.id+"/edit", "conflict-reload", "dash.docform.conflict_reload")
	d.Raw("</li><li>")
	d.text("dash.docform.conflict_reapply", "now", d.l.Number(df.conflictAt))
	d.Raw("</li></ul></div>\n")
}

// docFormStart opens the form with its hidden state: the key, the row counts, the version
// edited and the dates as typed.
func (d *doc) docFormStart(df *docForm) {
	action := df.k.path
	if df.id != "" {
		action = df.k.path + "/" + df.id + "/edit"
	}
	d.formStart(action, "doc-form")
	// The first submit button is the one Enter presses: save, not "add rows".
	d.Raw(`<button type="submit" name="action" value="save" hidden tabindex="-1" aria-hidden="true"></button>`)
	d.hidden("idem", df.idem)
	d.hidden("item_rows", strconv.Itoa(df.items))
	d.hidden("field_rows", strconv.Itoa(df.fields))
	if df.id != "" {
		d.hidden("version", strconv.FormatInt(df.version, 10))
		d.hidden("stored_reference", df.reference)
	}
	for _, n := range docDateFields {
		if raw := df.value(n + "_raw"); raw != "" {
			d.hidden(n+"_raw", raw)
		}
	}
}

// docSections writes the kind's own sections: details, an invoice's items and amounts or a
// link's price, the custom fields and the notes.
func (d *doc) docSections(df *docForm, invoice bool) {
	d.fieldsetStart("", "dash.docform.section.details")
	d.docInput(df, "reference", "text", true)
	d.docTextarea(df, "description", 3)
	d.customerField(df)
	d.docInput(df, "name", "text", false)
	d.docInput(df, "email", "email", false)
	d.docInput(df, "phone", "tel", false)
	d.Raw("</fieldset>\n")

	if invoice {
		d.itemsSection(df)
		d.fieldsetStart("", "dash.docform.section.amounts")
		for _, n := range []string{"tax", "shipping", "fee", "discount", "amount"} {
			d.docInput(df, n, "money", false)
		}
		d.docInput(df, "due_at", "datetime-local", false)
		d.Raw("</fieldset>\n")
	} else {
		d.fieldsetStart("", "dash.docform.section.price")
		d.docInput(df, "amount", "money", false)
		d.docInput(df, "max_quantity", "number", false)
		d.docInput(df, "max_uses", "number", false)
		d.docInput(df, "expires_at", "datetime-local", false)
		d.docInput(df, "return_url", "url", false)
		d.docInput(df, "image_url", "url", false)
		d.Raw("</fieldset>\n")
	}
	d.fieldsSection(df)
	d.fieldsetStart("", "dash.docform.section.notes")
	d.docTextarea(df, "notes", 3)
	d.docTextarea(df, "private_notes", 3)
	d.docInput(df, "tags", "text", false)
	d.Raw("</fieldset>\n")
}

// moreFields writes what the API accepts for the other kind, folded away (open when one has
// a value or an error).
func (d *doc) moreFields(df *docForm, invoice bool) {
	var more []string
	if invoice {
		more = []string{"expires_at", "max_quantity", "max_uses", "return_url", "image_url"}
	} else {
		more = []string{"tax", "shipping", "fee", "discount", "due_at"}
	}
	d.Raw(`<details id="more-fields"`)
	if moreOpen(df, more, invoice) {
		d.Raw(" open")
	}
	d.Raw("><summary>")
	d.text("dash.docform.more_" + df.k.msg)
	d.Raw("</summary>\n")
	if !invoice {
		d.itemsSection(df)
	}
	for _, n := range more {
		d.docInput(df, n, moreType(n), false)
	}
	d.Raw("</details>\n")
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

// moreType is the input type of a folded field.
func moreType(n string) string {
	switch n {
	case "tax", "shipping", "fee", "discount":
		return "money"
	case "due_at", "expires_at":
		return "datetime-local"
	case "max_quantity", "max_uses":
		return "number"
	case "return_url", "image_url":
		return "url"
	}
	return "text"
}

// docFormEnd writes the save button and the way back.
func (d *doc) docFormEnd(df *docForm) {
	d.Raw(`<p class="actions">`)
	d.Raw(`<button class="button primary inline" type="submit" name="action" value="save" id="save-document">`)
	if df.conflictAt > 0 {
		d.text("dash.docform.save_over", "now", d.l.Number(df.conflictAt))
	} else {
		d.text("dash.docform.save_" + df.k.msg)
	}
	d.Raw("</button></p>\n</form>\n")
	back := df.k.path
	if df.id != "" {
		back = df.k.path + "/" + df.id
	}
	d.Raw(`<p class="links">`)
	d.link(back, "cancel-edit", "dash.docform.cancel")
	d.Raw("</p>\n")
}

func (d *doc) hidden(name, value string) {
	d.Raw(`<input type="hidden"`)
	d.Attr("name", name)
	d.Attr("value", value)
	d.Raw(">")
}

// fieldsetStart opens a fieldset with its legend (id "" for none).
func (d *doc) fieldsetStart(id, legendKey string, args ...string) {
	d.Raw("<fieldset")
	if id != "" {
		d.Attr("id", id)
	}
	d.Raw("><legend>")
	d.text(legendKey, args...)
	d.Raw("</legend>\n")
}

// fieldMeta writes a field's aria-invalid and aria-describedby (its hint and its error).
func (d *doc) fieldMeta(df *docForm, name string, hint bool) {
	id := "f-" + name
	var described []string
	if hint {
		described = append(described, id+"-hint")
	}
	if df.f.err(name) != "" {
		d.Raw(` aria-invalid="true"`)
		described = append(described, id+"-error")
	}
	if len(described) > 0 {
		d.Attr("aria-describedby", strings.Join(described, " "))
	}
}

func (d *doc) label(name string, args ...string) {
	d.Raw(`<label class="field-label"`)
	d.Attr("for", "f-"+name)
	d.Raw(">")
	d.text("dash.docform.label."+labelKeyOf(name), append([]string{"n", rowNumber(d.l, name)}, args...)...)
	d.Raw("</label>")
}

// hintOf is a field's hint key, when the catalogue has one.
func hintOf(name string) string {
	if key := "dash.docform.hint." + labelKeyOf(name); has(key) {
		return key
	}
	return ""
}

// docInput writes a labelled input; typ "money" is a text input for taka, "number" one for a
// whole number (both accept Bangla digits and grouping commas, so neither is type=number).
func (d *doc) docInput(df *docForm, name, typ string, required bool) {
	hint := hintOf(name)
	if name == "amount" {
		hint = "dash.docform.hint.amount_" + df.k.msg
	}
	d.Raw(`<div class="row">`)
	d.label(name)
	d.Raw(`<input class="field"`)
	d.Attr("id", "f-"+name)
	d.Attr("name", name)
	switch typ {
	case "money":
		d.Raw(` type="text" inputmode="decimal" autocomplete="off"`)
	case "number":
		d.Raw(` type="text" inputmode="numeric" autocomplete="off"`)
	default:
		d.Attr("type", typ)
		d.Raw(` autocomplete="off"`)
	}
	if required {
		d.Raw(" required")
	}
	if v := df.value(name); v != "" {
		d.Attr("value", v)
	}
	d.fieldMeta(df, name, hint != "")
	d.Raw(">")
	d.fieldAfter(df.f, "f-"+name, name, hint)
	d.Raw("</div>\n")
}

func (d *doc) docTextarea(df *docForm, name string, rows int) {
	hint := hintOf(name)
	d.Raw(`<div class="row">`)
	d.label(name)
	d.Raw(`<textarea class="field"`)
	d.Attr("id", "f-"+name)
	d.Attr("name", name)
	d.Attr("rows", strconv.Itoa(rows))
	d.fieldMeta(df, name, hint != "")
	d.Raw(">")
	d.Text(df.value(name))
	d.Raw("</textarea>")
	d.fieldAfter(df.f, "f-"+name, name, hint)
	d.Raw("</div>\n")
}

// customerField is a select of the newest customers (and the one linked now), or a text
// input for the customer's id when the function does not list customers.
func (d *doc) customerField(df *docForm) {
	if df.customers == nil {
		d.docInput(df, "customer_id", "text", false)
		return
	}
	cur := df.value("customer_id")
	d.Raw(`<div class="row">`)
	d.label("customer_id")
	d.Raw(`<select class="field" id="f-customer_id" name="customer_id"`)
	d.fieldMeta(df, "customer_id", true)
	d.Raw(`><option value="">`)
	d.text("dash.docform.no_customer")
	d.Raw("</option>")
	found := cur == ""
	for _, c := range df.customers {
		d.Raw("<option")
		d.Attr("value", c.ID)
		if c.ID == cur {
			d.Raw(" selected")
			found = true
		}
		d.Raw(">")
		d.Text(c.Reference)
		if b, err := c.Content(); err == nil && b.Name != nil && *b.Name != "" {
			d.Text(" · " + *b.Name)
		}
		d.Raw("</option>")
	}
	if !found {
		d.Raw("<option")
		d.Attr("value", cur)
		d.Raw(" selected>")
		d.Text(cur)
		d.Raw("</option>")
	}
	d.Raw("</select>")
	d.fieldAfter(df.f, "f-customer_id", "customer_id", "dash.docform.hint.customer_id")
	d.Raw("</div>\n")
}

// itemsSection is the line items: one fieldset per row, and the "add rows" button.
func (d *doc) itemsSection(df *docForm) {
	d.fieldsetStart("f-items", "dash.docform.section.items")
	d.Raw(`<p class="hint" id="items-hint">`)
	d.text("dash.docform.items_hint_" + df.k.msg)
	d.Raw("</p>")
	if e := df.f.err("items"); e != "" {
		d.Raw(`<p class="field-error" id="f-items-error">`)
		d.Text(e)
		d.Raw("</p>")
	}
	for i := 0; i < df.items; i++ {
		d.fieldsetStart("item-"+strconv.Itoa(i), "dash.docform.item_n", "n", d.l.Digits(strconv.Itoa(i+1)))
		d.docInput(df, itemName(i, "title"), "text", false)
		d.docInput(df, itemName(i, "quantity"), "number", false)
		d.docInput(df, itemName(i, "unit_amount"), "money", false)
		d.Raw("</fieldset>\n")
	}
	if df.items < document.MaxItems {
		d.Raw(`<button class="linkbutton" type="submit" name="action" value="add_items" id="add-items" formnovalidate>`)
		d.text("dash.docform.add_items")
		d.Raw("</button>")
	}
	d.Raw("</fieldset>\n")
}

// fieldsSection is the custom fields a payer answers: one fieldset per row, and the "add
// rows" button.
func (d *doc) fieldsSection(df *docForm) {
	d.fieldsetStart("f-fields", "dash.docform.section.fields")
	d.Raw(`<p class="hint">`)
	d.text("dash.docform.fields_hint")
	d.Raw("</p>")
	if e := df.f.err("fields"); e != "" {
		d.Raw(`<p class="field-error" id="f-fields-error">`)
		d.Text(e)
		d.Raw("</p>")
	}
	for i := 0; i < df.fields; i++ {
		d.fieldsetStart("field-"+strconv.Itoa(i), "dash.docform.field_n", "n", d.l.Digits(strconv.Itoa(i+1)))
		d.docInput(df, fieldName(i, "id"), "text", false)
		d.docInput(df, fieldName(i, "label"), "text", false)
		typ := fieldName(i, "type")
		d.Raw(`<div class="row">`)
		d.label(typ)
		d.Raw(`<select class="field"`)
		d.Attr("id", "f-"+typ)
		d.Attr("name", typ)
		d.fieldMeta(df, typ, false)
		d.Raw(">")
		cur := df.value(typ)
		for _, ft := range document.FieldTypes {
			d.Raw("<option")
			d.Attr("value", ft)
			if ft == cur {
				d.Raw(" selected")
			}
			d.Raw(">")
			d.text("dash.docform.type." + ft)
			d.Raw("</option>")
		}
		d.Raw("</select>")
		d.fieldAfter(df.f, "f-"+typ, typ, "")
		d.Raw("</div>\n")
		req := fieldName(i, "required")
		d.Raw(`<div class="row"><label class="check"><input type="checkbox"`)
		d.Attr("id", "f-"+req)
		d.Attr("name", req)
		if df.value(req) != "" {
			d.Raw(" checked")
		}
		d.fieldMeta(df, req, false)
		d.Raw(">")
		d.text("dash.docform.label.field_required", "n", rowNumber(d.l, req))
		d.Raw("</label>")
		d.fieldAfter(df.f, "f-"+req, req, "")
		d.Raw("</div>\n")
		d.docTextarea(df, fieldName(i, "options"), 3)
		d.Raw("</fieldset>\n")
	}
	if df.fields < document.MaxFields {
		d.Raw(`<button class="linkbutton" type="submit" name="action" value="add_fields" id="add-fields" formnovalidate>`)
		d.text("dash.docform.add_fields")
		d.Raw("</button>")
	}
	d.Raw("</fieldset>\n")
}
