package dashboard

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strconv"
	"strings"

	"github.com/takapay/payments/shared/auth"
	"github.com/takapay/payments/shared/document"
	"github.com/takapay/payments/shared/foundation/apierr"
	"github.com/takapay/payments/shared/foundation/h"
	"github.com/takapay/payments/shared/foundation/money"
	"github.com/takapay/payments/shared/foundation/page"
	"github.com/takapay/payments/shared/foundation/ui"
	"github.com/takapay/payments/shared/foundation/web"
)

// The customers pages (DashboardCustomersFunction): a list newest first with search, a
// customer's page with its invoices, and the create and edit forms. Every read and write is
// the documents rules' own operation (document.Service's List, Create, Get and Edit for
// document.Customers, through Service.Documents): the same validation, the same version rule,
// the same idempotency as the API. The pages add no rule of their own.

// custField is one field of the customer form: a member of the document body.
type custField struct {
	name, typ, autocomplete string
	multiline, required     bool
	hint                    bool
}

// custFields are the body members that describe a customer, in form order. The other members
// the API accepts (items, amounts, dates, custom fields, URLs, customer_id) describe invoices
// and payment links; an edit here sends a merge patch of these fields only, so any of those
// set through the API are kept as they are (and listed on the customer's page).
var custFields = []custField{
	{name: "reference", typ: "text", autocomplete: "off", required: true, hint: true},
	{name: "name", typ: "text", autocomplete: "off"},
	{name: "email", typ: "email", autocomplete: "off"},
	{name: "phone", typ: "tel", autocomplete: "off"},
	{name: "tags", typ: "text", autocomplete: "off", hint: true},
	{name: "description", multiline: true, hint: true},
	{name: "notes", multiline: true, hint: true},
	{name: "private_notes", multiline: true, hint: true},
}

func custIsField(name string) bool {
	return slices.ContainsFunc(custFields, func(f custField) bool { return f.name == name })
}

// custTags splits the tags field: comma-separated, each trimmed, empty ones dropped.
func custTags(v string) []string {
	var out []string
	for p := range strings.SplitSeq(v, ",") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}

// custValues reads a stored body into the form's values (and the members the form does not
// show, by name, with their JSON text).
func custValues(raw json.RawMessage) (map[string]string, [][2]string) {
	var b document.Body
	_ = json.Unmarshal(raw, &b)
	v := map[string]string{"reference": b.Reference, "tags": strings.Join(b.Tags, ", ")}
	for name, p := range map[string]*string{"name": b.Name, "email": b.Email, "phone": b.Phone,
		"description": b.Description, "notes": b.Notes, "private_notes": b.PrivateNotes} {
		if p != nil {
			v[name] = *p
		}
	}
	var members map[string]json.RawMessage
	_ = json.Unmarshal(raw, &members)
	var other [][2]string
	for name, text := range members {
		if !custIsField(name) {
			other = append(other, [2]string{name, string(text)})
		}
	}
	slices.SortFunc(other, func(a, b [2]string) int { return strings.Compare(a[0], b[0]) })
	return v, other
}

// custFormValues reads the posted form.
func custFormValues(r *req) map[string]string {
	v := map[string]string{}
	for _, f := range custFields {
		v[f.name] = r.field(f.name)
	}
	return v
}

// custBody is the JSON the form sends: on create, the fields that are filled in; on edit
// (patch), every field, an empty one as null (the merge patch deletes it), with the version
// the form was rendered from.
func custBody(v map[string]string, patch bool, version int64) []byte {
	m := map[string]any{}
	for _, f := range custFields {
		val := v[f.name]
		switch {
		case f.name == "reference":
			m[f.name] = val
		case val == "" || f.name == "tags" && len(custTags(val)) == 0:
			if patch {
				m[f.name] = nil
			}
		case f.name == "tags":
			m[f.name] = custTags(val)
		default:
			m[f.name] = val
		}
	}
	if patch {
		m["expected_version"] = version
	}
	b, _ := json.Marshal(m)
	return b
}

// custViolations puts the API's 422 violations beside their fields; it reports false when
// err is not a validation failure. A violation of no field of the form (none is expected:
// the API validates the whole merged body) comes back in others, in the page's language.
func custViolations(l page.Lang, f *form, err error, fields func(string) bool) (ok bool, others []string) {
	var ae *apierr.Error
	if !errors.As(err, &ae) || ae.Code != apierr.ValidationFailed {
		return false, nil
	}
	for _, v := range ae.Violations {
		path := strings.TrimPrefix(strings.TrimPrefix(v.Path, "body."), "query.")
		name, index := path, -1
		if i := strings.IndexAny(path, "[."); i >= 0 {
			name = path[:i]
			if path[i] == '[' {
				if j := strings.IndexByte(path[i:], ']'); j > 0 {
					index, _ = strconv.Atoi(path[i+1 : i+j])
				}
			}
		}
		if !fields(name) {
			others = append(others, custRule(l, v.Path, v.Rule))
			continue
		}
		label := t(l, "dash.customers.field."+name)
		if index >= 0 {
			label = t(l, "dash.customers.tag_n", "n", l.Number(int64(index)+1))
		}
		f.fail(name, custRule(l, label, v.Rule))
	}
	return true, others
}

// custRule is a violation's rule in the page's language: the catalogue's words for the rules
// a customer's fields have, else (English) the API's own phrase.
func custRule(l page.Lang, label, rule string) string {
	var n int
	switch {
	case rule == "is required" || rule == "must not be empty":
		return t(l, "dash.customers.rule.required", "field", label)
	case custScan(rule, "must be at most %d characters", &n):
		return t(l, "dash.customers.rule.max_chars", "field", label, "max", l.Number(int64(n)))
	case custScan(rule, "must have at most %d items", &n):
		return t(l, "dash.customers.rule.max_items", "field", label, "max", l.Number(int64(n)))
	case strings.HasPrefix(rule, "must be an email address"):
		return t(l, "dash.customers.rule.email", "field", label)
	case strings.HasPrefix(rule, "must not contain control characters"):
		return t(l, "dash.customers.rule.control", "field", label)
	}
	if l == page.BN {
		return t(l, "dash.customers.rule.invalid", "field", label)
	}
	return label + " " + rule
}

// custScan matches s against a pattern with one %d (a plain non-negative integer).
func custScan(s, pattern string, n *int) bool {
	before, after, _ := strings.Cut(pattern, "%d")
	if !strings.HasPrefix(s, before) || !strings.HasSuffix(s, after) || len(s) <= len(before)+len(after) {
		return false
	}
	v, err := strconv.Atoi(s[len(before) : len(s)-len(after)])
	if err != nil || v < 0 {
		return false
	}
	*n = v
	return true
}

// --- list ---------------------------------------------------------------------------------

// CustomersPage is GET /dashboard/customers: the customers newest first (one page of the
// API's list, 25), searched by q (reference, name, email, phone), with a cursor to the next.
func (s *Service) CustomersPage(ctx context.Context, wr *web.Request) (*web.Response, error) {
	return s.get(func(ctx context.Context, r *req) (*web.Response, error) {
		if err := r.need(auth.ViewWorkspace); err != nil {
			return nil, err
		}
		q := map[string]string{}
		for _, k := range []string{"q", "cursor"} {
			if v := r.Query[k]; v != "" {
				q[k] = v
			}
		}
		status := 200
		f := &form{values: map[string]string{"q": r.Query["q"]}}
		list, err := s.docList(ctx, r, document.Customers, q)
		if err != nil {
			ok, others := custViolations(r.l(), f, err, func(n string) bool { return n == "q" })
			switch {
			case !ok:
				return nil, err
			case len(others) > 0:
				// A cursor no page of this list gave (edited by hand).
				return nil, apierr.New(apierr.MalformedRequest, "%s", strings.Join(others, "; "))
			}
			status = 422
		}
		if list == nil {
			list = &document.ListResult{}
		}
		return s.customersPage(r, status, f, list, q), nil
	})(ctx, wr)
}

// customersPage renders the list: the new-customer link (developers and up), the search,
// the page of customers, the link to the next page.
func (s *Service) customersPage(r *req, status int, f *form, list *document.ListResult, q map[string]string) *web.Response {
	return s.page(r, status, t(r.l(), "dash.customers.title"), func(d *doc) {
		if r.viewer.can(auth.WriteDocuments) {
			d.node(links(d.linkNode("/dashboard/customers/new", "new-customer", "dash.customers.new")))
		}
		d.node(d.errorSummaryNode(f, "f-"), d.custSearch(f), d.customersTable(list.Items, q))
		if list.NextCursor != nil {
			next := "/dashboard/customers?cursor=" + urlQueryEscape(*list.NextCursor)
			if q["q"] != "" {
				next += "&q=" + urlQueryEscape(q["q"])
			}
			d.node(links(d.linkNode(next, "customers-next", "dash.customers.next")))
		}
	})
}

// customersTable is a page of customers as cards on a phone: reference (the link to the
// customer), name, email, phone, created; an empty page says so (#customers-empty).
func (d *doc) customersTable(items []*document.Record, q map[string]string) h.Node {
	caption := d.t("dash.customers.caption")
	if q["q"] != "" {
		caption = d.t("dash.customers.caption_q", "q", q["q"])
	}
	if len(items) == 0 {
		none := "dash.customers.none"
		if q["q"] != "" || q["cursor"] != "" {
			none = "dash.customers.none_found"
		}
		return h.Group{h.P(h.Class("hint"), h.ID("customers-caption"), h.Text(caption)), ui.Empty("customers-empty", d.t(none), nil)}
	}
	rows := make([]ui.Row, 0, len(items))
	for _, c := range items {
		v, _ := custValues(c.Body)
		rows = append(rows, ui.Row{ID: "customer-" + c.ID, Cells: []h.Node{
			h.A(d.href("/dashboard/customers/"+c.ID), h.Text(c.Reference)),
			h.Text(v["name"]),
			ui.Long(v["email"], false),
			h.Text(v["phone"]),
			ui.Date(d.l, c.CreatedAt),
		}})
	}
	return ui.Table("customers-table", caption,
		d.headings("dash.customers.col.", "reference", "name", "email", "phone", "created"), rows)
}

// custSearch is the list's search form (GET). It stays open (one field, not a set of
// filters to fold away).
func (d *doc) custSearch(f *form) h.Node {
	return d.getForm("/dashboard/customers", "customers-search",
		d.fieldOf(f, ui.Field{Name: "q", Type: "search", Autocomplete: "off"}, "dash.customers.search", "dash.customers.search_hint"),
		h.Button(h.Class("linkbutton"), h.Type("submit"), h.ID("customers-search-submit"), d.tx("dash.customers.search_submit")))
}

// --- one customer -------------------------------------------------------------------------

// CustomerPage is GET /dashboard/customers/{documentID}: the customer's fields and its
// invoices (the API's get: the record and activity.invoices, 25 a page, cursor to the next).
func (s *Service) CustomerPage(ctx context.Context, wr *web.Request) (*web.Response, error) {
	return s.get(func(ctx context.Context, r *req) (*web.Response, error) {
		if err := r.need(auth.ViewWorkspace); err != nil {
			return nil, err
		}
		q := map[string]string{}
		if c := r.Query["cursor"]; c != "" {
			q["cursor"] = c
		}
		res, err := s.custGet(ctx, r, q)
		if err != nil {
			return nil, err
		}
		return s.customerPage(r, res), nil
	})(ctx, wr)
}

// customerPage renders a customer (res.Items[0]) with a page of its invoices
// (res.Activity["invoices"]).
func (s *Service) customerPage(r *req, res *document.ListResult) *web.Response {
	c := res.Items[0]
	invoices, _ := res.Activity["invoices"].([]*document.Record)
	v, other := custValues(c.Body)
	return s.page(r, 200, t(r.l(), "dash.customers.one_title", "reference", c.Reference), func(d *doc) {
		switch r.Query["notice"] {
		case "created":
			d.node(ui.Flash(d.t("dash.customers.notice.created")))
		case "saved":
			d.node(ui.Flash(d.t("dash.customers.notice.saved")))
		}
		if r.viewer.can(auth.WriteDocuments) {
			d.node(links(d.linkNode("/dashboard/customers/"+c.ID+"/edit", "edit-customer", "dash.customers.edit")))
		}
		d.node(d.customerFacts(c, v), d.customerOther(other), d.customerInvoices(invoices))
		if res.NextCursor != nil {
			d.node(links(d.linkNode("/dashboard/customers/"+c.ID+"?cursor="+urlQueryEscape(*res.NextCursor), "customer-invoices-next", "dash.customers.inv.next")))
		}
		d.node(links(d.linkNode("/dashboard/customers", "back-customers", "dash.customers.back")))
	})
}

// customerFacts is a customer's fields (v, by name) and its dates, version and id.
func (d *doc) customerFacts(c *document.Record, v map[string]string) h.Node {
	facts := make([]ui.Fact, 0, len(custFields)+3)
	for _, f := range custFields {
		var value h.Node
		switch {
		case v[f.name] == "":
			value = d.tx("dash.customers.empty")
		case f.multiline:
			value = custMultiline(v[f.name])
		default:
			value = h.Text(v[f.name])
		}
		facts = append(facts, ui.Fact{Term: d.t("dash.customers.field." + f.name), Value: value, ID: "customer-" + strings.ReplaceAll(f.name, "_", "-")})
	}
	facts = append(facts,
		ui.Fact{Term: d.t("dash.customers.created"), Value: ui.Date(d.l, c.CreatedAt)},
		ui.Fact{Term: d.t("dash.customers.updated"), Value: h.Group{ui.Date(d.l, c.UpdatedAt), h.Text(" · "),
			d.tx("dash.customers.version", "version", d.l.Number(c.Version))}},
		ui.Fact{Term: d.t("dash.customers.id"), Value: ui.Long(c.ID, true)})
	return ui.Facts("customer-fields", facts...)
}

// customerOther is the body's members the form does not show: each member's name (as the API
// spells it) and its JSON value.
func (d *doc) customerOther(other [][2]string) h.Node {
	if len(other) == 0 {
		return nil
	}
	return h.Group{
		h.H2(d.tx("dash.customers.other")),
		h.P(h.Class("hint"), d.tx("dash.customers.other_hint")),
		h.Dl(h.Class("facts"), h.ID("customer-other"), h.Map(other, func(o [2]string) h.Node {
			return h.Div(h.Class("fact"), h.Dt(h.Code(h.Text(o[0]))), h.Dd(ui.Long(o[1], true)))
		})),
	}
}

// customerInvoices is a page of the customer's invoices: reference (the link), total, status,
// created, paid. Its id names the table, or the empty state when there is none.
func (d *doc) customerInvoices(invoices []*document.Record) h.Node {
	head := h.H2(h.ID("customer-invoices-title"), d.tx("dash.customers.invoices"))
	if len(invoices) == 0 {
		return h.Group{head, ui.Empty("customer-invoices", d.t("dash.customers.inv.none"), nil)}
	}
	rows := make([]ui.Row, 0, len(invoices))
	for _, inv := range invoices {
		status := inv.Status
		if has("dash.customers.inv.status." + inv.Status) {
			status = d.t("dash.customers.inv.status." + inv.Status)
		}
		total := d.tx("dash.customers.empty")
		if inv.AmountMinor != nil {
			total = ui.Money(d.l, money.Paisa(*inv.AmountMinor))
		}
		rows = append(rows, ui.Row{ID: "invoice-" + inv.ID, Cells: []h.Node{
			h.A(d.href("/dashboard/invoices/"+inv.ID), h.Text(inv.Reference)),
			total,
			ui.Pill(strings.ToUpper(inv.Status), status),
			ui.Date(d.l, inv.CreatedAt),
			ui.Money(d.l, money.Paisa(inv.PaidMinor)),
		}})
	}
	return h.Group{head, ui.Table("customer-invoices", d.t("dash.customers.inv.caption"),
		d.headings("dash.customers.inv.", "reference", "total#", "status", "created", "paid#"), rows)}
}

// custGet runs the API's get of the page's {documentID} (404 when it is not a customer of
// this workspace and environment).
func (s *Service) custGet(ctx context.Context, r *req, q map[string]string) (*document.ListResult, error) {
	return s.docGet(ctx, r, document.Customers, r.PathParams["documentID"], q)
}

// custMultiline is text keeping its line breaks.
func custMultiline(s string) h.Node {
	lines := strings.Split(strings.ReplaceAll(s, "\r\n", "\n"), "\n")
	out := make(h.Group, 0, 2*len(lines))
	for i, line := range lines {
		if i > 0 {
			out = append(out, h.Br())
		}
		out = append(out, h.Text(line))
	}
	return out
}

// --- create and edit ----------------------------------------------------------------------

// custForm is the state of a customer form being shown.
type custForm struct {
	*form
	// id is the customer being edited ("" for a new one); version the version it was read at.
	id      string
	version int64
	// idem is the Idempotency-Key this render's submit sends (one per form shown).
	idem string
	// problem is a message of the whole form (an Idempotency-Key already used).
	problem string
	// conflict is the customer as stored now, when an edit lost to another one.
	conflict map[string]string
}

// NewCustomerPage is GET /dashboard/customers/new (developers and up).
func (s *Service) NewCustomerPage(ctx context.Context, wr *web.Request) (*web.Response, error) {
	return s.get(func(ctx context.Context, r *req) (*web.Response, error) {
		if err := r.need(auth.WriteDocuments); err != nil {
			return nil, err
		}
		return s.custFormPage(r, 200, &custForm{form: &form{}, idem: randomToken()}), nil
	})(ctx, wr)
}

// CreateCustomer is POST /dashboard/customers: the API's create with the form's
// Idempotency-Key (a second submit of the same form gives the same customer), then 303 to
// the customer's page; a 422 shows each violation beside its field.
func (s *Service) CreateCustomer(ctx context.Context, wr *web.Request) (*web.Response, error) {
	return s.post(func(ctx context.Context, r *req) (*web.Response, error) {
		if err := r.need(auth.WriteDocuments); err != nil {
			return nil, err
		}
		cf := &custForm{form: &form{values: custFormValues(r)}, idem: r.field("idem")}
		rec, err := s.docCreate(ctx, r, document.Customers, custBody(cf.values, false, 0), cf.idem)
		if err == nil {
			return s.redirect(r, "/dashboard/customers/"+rec.ID+"?notice=created"), nil
		}
		if ok, others := custViolations(r.l(), cf.form, err, custIsField); ok {
			cf.problem = strings.Join(others, " ")
			return s.custFormPage(r, 422, cf), nil
		}
		if custKeyReused(err) {
			cf.idem, cf.problem = randomToken(), t(r.l(), "dash.customers.resubmitted")
			return s.custFormPage(r, 409, cf), nil
		}
		return nil, err
	})(ctx, wr)
}

// EditCustomerPage is GET /dashboard/customers/{documentID}/edit (developers and up).
func (s *Service) EditCustomerPage(ctx context.Context, wr *web.Request) (*web.Response, error) {
	return s.get(func(ctx context.Context, r *req) (*web.Response, error) {
		if err := r.need(auth.WriteDocuments); err != nil {
			return nil, err
		}
		res, err := s.custGet(ctx, r, map[string]string{"limit": "1"})
		if err != nil {
			return nil, err
		}
		c := res.Items[0]
		v, _ := custValues(c.Body)
		return s.custFormPage(r, 200, &custForm{form: &form{values: v}, id: c.ID, version: c.Version, idem: randomToken()}), nil
	})(ctx, wr)
}

// EditCustomer is POST /dashboard/customers/{documentID}/edit: the API's edit (a merge patch of
// the form's fields with expected_version, the version the form was read at). Someone else's
// edit in between is a version conflict: the form comes back with what was typed, the
// customer as it is now beside it (#conflict), and the new version, to review and save again.
func (s *Service) EditCustomer(ctx context.Context, wr *web.Request) (*web.Response, error) {
	return s.post(func(ctx context.Context, r *req) (*web.Response, error) {
		if err := r.need(auth.WriteDocuments); err != nil {
			return nil, err
		}
		version, err := strconv.ParseInt(r.field("version"), 10, 64)
		if err != nil || version < 1 || version > document.MaxVersion {
			return nil, apierr.New(apierr.MalformedRequest, "the form's version is not a version")
		}
		id := r.PathParams["documentID"]
		cf := &custForm{form: &form{values: custFormValues(r)}, id: id, version: version, idem: r.field("idem")}
		rec, err := s.docEdit(ctx, r, document.Customers, id, custBody(cf.values, true, version), cf.idem)
		if err == nil {
			return s.redirect(r, "/dashboard/customers/"+rec.ID+"?notice=saved"), nil
		}
		if ok, others := custViolations(r.l(), cf.form, err, custIsField); ok {
			cf.problem = strings.Join(others, " ")
			return s.custFormPage(r, 422, cf), nil
		}
		var ae *apierr.Error
		if errors.As(err, &ae) && ae.Code == apierr.VersionConflict {
			res, gerr := s.custGet(ctx, r, map[string]string{"limit": "1"})
			if gerr != nil {
				return nil, gerr
			}
			cur := res.Items[0]
			cf.conflict, _ = custValues(cur.Body)
			cf.version, cf.idem = cur.Version, randomToken()
			return s.custFormPage(r, 409, cf), nil
		}
		if custKeyReused(err) {
			cf.idem, cf.problem = randomToken(), t(r.l(), "dash.customers.resubmitted")
			return s.custFormPage(r, 409, cf), nil
		}
		return nil, err
	})(ctx, wr)
}

func custKeyReused(err error) bool {
	var ae *apierr.Error
	return errors.As(err, &ae) && ae.Code == apierr.IdempotencyKeyReused
}

// custFormPage renders the create or edit form.
func (s *Service) custFormPage(r *req, status int, cf *custForm) *web.Response {
	title, action := t(r.l(), "dash.customers.new_title"), "/dashboard/customers"
	if cf.id != "" {
		title, action = t(r.l(), "dash.customers.edit_title", "reference", cf.value("reference")), "/dashboard/customers/"+cf.id+"/edit"
		if cf.conflict != nil {
			title = t(r.l(), "dash.customers.edit_title", "reference", cf.conflict["reference"])
		}
	}
	return s.page(r, status, title, func(d *doc) {
		if cf.conflict != nil {
			d.node(custConflict(d, cf))
		}
		if cf.problem != "" {
			d.node(h.P(h.Class("error"), h.Role("alert"), h.ID("form-problem"), h.Text(cf.problem)))
		}
		fields := make(h.Group, 0, len(custFields))
		for _, f := range custFields {
			fl := ui.Field{Name: f.name, Type: f.typ, Autocomplete: f.autocomplete, Required: f.required}
			if f.multiline {
				fl.Type, fl.Extra = "textarea", []h.Node{h.Attr("rows", "3")}
			}
			hint := ""
			if f.hint {
				hint = "dash.customers.hint." + f.name
			}
			field := d.fieldOf(cf.form, fl, "dash.customers.field."+f.name, hint)
			if f.multiline {
				// The HTML parser drops a newline right after <textarea>: this one, not the value's.
				field.Value = "\n" + field.Value
			}
			fields = append(fields, field)
		}
		back := "/dashboard/customers"
		if cf.id != "" {
			back += "/" + cf.id
		}
		d.node(d.errorSummaryNode(cf.form, "f-"),
			d.formPost(action, h.ID("customer-form"),
				ui.Hidden("idem", cf.idem),
				h.If(cf.id != "", ui.Hidden("version", strconv.FormatInt(cf.version, 10))),
				fields,
				ui.Submit("save-customer", d.t("dash.customers.save"))),
			links(d.linkNode(back, "cancel-edit", "dash.customers.cancel")))
	})
}

// custConflict explains a lost edit: the customer changed since the form was read; the form
// below still holds what was typed, and the fields that differ from what is stored now are
// listed with the stored value.
func custConflict(d *doc, cf *custForm) h.Node {
	var diff []string
	for _, f := range custFields {
		if cf.conflict[f.name] != cf.value(f.name) {
			diff = append(diff, f.name)
		}
	}
	side := func(key, v string) h.Node {
		value := d.tx("dash.customers.empty")
		if v != "" {
			value = custMultiline(v)
		}
		return h.Dd(d.tx("dash.customers.conflict_col."+key), h.Text(": "), value)
	}
	var fields h.Node
	if len(diff) > 0 {
		// A list, not a table: it fits a phone's width without scrolling.
		fields = h.Group{
			h.P(d.tx("dash.customers.conflict_caption")),
			h.Dl(h.ID("conflict-fields"), h.Map(diff, func(name string) h.Node {
				return h.Group{h.Dt(d.tx("dash.customers.field." + name)),
					side("theirs", cf.conflict[name]), side("yours", cf.value(name))}
			})),
		}
	}
	return h.Div(h.Class("error"), h.Role("alert"), h.ID("conflict"),
		h.P(d.tx("dash.customers.conflict", "version", d.l.Number(cf.version))),
		fields,
		h.P(d.tx("dash.customers.conflict_retry"), h.Text(" "),
			d.linkNode("/dashboard/customers/"+cf.id+"/edit", "conflict-reload", "dash.customers.conflict_reload")))
}
