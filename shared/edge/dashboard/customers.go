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
	"github.com/takapay/payments/shared/foundation/money"
	"github.com/takapay/payments/shared/foundation/page"
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
		return s.page(r, status, t(r.l(), "dash.customers.title"), func(d *doc) {
			if r.viewer.can(auth.WriteDocuments) {
				d.Raw(`<p class="links">`)
				d.link("/dashboard/customers/new", "new-customer", "dash.customers.new")
				d.Raw("</p>\n")
			}
			d.errorSummary(f)
			s.custSearch(d, f)
			d.tableStart("customers-caption", "customers-table")
			d.Raw(`<caption class="hint" id="customers-caption">`)
			if q["q"] != "" {
				d.text("dash.customers.caption_q", "q", q["q"])
			} else {
				d.text("dash.customers.caption")
			}
			d.Raw("</caption>")
			d.thead("dash.customers.col.", "reference", "name", "email", "phone", "created")
			if len(list.Items) == 0 {
				d.Raw(`<tr><td colspan="5">`)
				if q["q"] != "" || q["cursor"] != "" {
					d.text("dash.customers.none_found")
				} else {
					d.text("dash.customers.none")
				}
				d.Raw("</td></tr>")
			}
			for _, c := range list.Items {
				v, _ := custValues(c.Body)
				d.Raw("<tr")
				d.Attr("id", "customer-"+c.ID)
				d.Raw(`><th scope="row"><a`)
				d.URLAttr("href", r.url("/dashboard/customers/"+c.ID))
				d.Raw(">")
				d.Text(c.Reference)
				d.Raw("</a></th><td>")
				d.Text(v["name"])
				d.Raw("</td><td>")
				d.Text(v["email"])
				d.Raw("</td><td>")
				d.Text(v["phone"])
				d.Raw("</td><td>")
				d.date(c.CreatedAt)
				d.Raw("</td></tr>")
			}
			d.Raw("</tbody></table></div>\n")
			if list.NextCursor != nil {
				next := "/dashboard/customers?cursor=" + urlQueryEscape(*list.NextCursor)
				if q["q"] != "" {
					next += "&q=" + urlQueryEscape(q["q"])
				}
				d.Raw(`<p class="links">`)
				d.link(next, "customers-next", "dash.customers.next")
				d.Raw("</p>\n")
			}
		}), nil
	})(ctx, wr)
}

// custSearch is the list's search form (GET): the environment and an explicit language are
// hidden fields, since a GET form replaces its action's query.
func (s *Service) custSearch(d *doc, f *form) {
	d.Raw(`<form method="get" role="search" id="customers-search"`)
	d.URLAttr("action", "/dashboard/customers")
	d.Raw(">")
	if d.r.env() == auth.Live {
		d.Raw(`<input type="hidden" name="env" value="live">`)
	}
	if d.r.lang.Explicit {
		d.Raw(`<input type="hidden"`)
		d.Attr("name", page.QueryParam)
		d.Attr("value", string(d.l))
		d.Raw(">")
	}
	d.input(f, "q", "search", "dash.customers.search", "off", "dash.customers.search_hint", false)
	d.Raw(`<button class="linkbutton" type="submit" id="customers-search-submit">`)
	d.text("dash.customers.search_submit")
	d.Raw("</button></form>\n")
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
		c := res.Items[0]
		invoices, _ := res.Activity["invoices"].([]*document.Record)
		v, other := custValues(c.Body)
		return s.page(r, 200, t(r.l(), "dash.customers.one_title", "reference", c.Reference), func(d *doc) {
			switch r.Query["notice"] {
			case "created":
				d.notice("dash.customers.notice.created")
			case "saved":
				d.notice("dash.customers.notice.saved")
			}
			if r.viewer.can(auth.WriteDocuments) {
				d.Raw(`<p class="links">`)
				d.link("/dashboard/customers/"+c.ID+"/edit", "edit-customer", "dash.customers.edit")
				d.Raw("</p>\n")
			}
			d.customerFacts(c, v)
			d.customerOther(other)
			d.customerInvoices(r, invoices)
			if res.NextCursor != nil {
				d.Raw(`<p class="links">`)
				d.link("/dashboard/customers/"+c.ID+"?cursor="+urlQueryEscape(*res.NextCursor), "customer-invoices-next", "dash.customers.inv.next")
				d.Raw("</p>\n")
			}
			d.Raw(`<p class="links">`)
			d.link("/dashboard/customers", "back-customers", "dash.customers.back")
			d.Raw("</p>\n")
		}), nil
	})(ctx, wr)
}

// customerFacts writes a customer's fields (v, by name) and its dates, version and id.
func (d *doc) customerFacts(c *document.Record, v map[string]string) {
	d.Raw(`<dl id="customer-fields">`)
	for _, f := range custFields {
		d.Raw("<dt>")
		d.text("dash.customers.field." + f.name)
		d.Raw("</dt><dd")
		d.Attr("id", "customer-"+strings.ReplaceAll(f.name, "_", "-"))
		d.Raw(">")
		if v[f.name] == "" {
			d.text("dash.customers.empty")
		} else if f.multiline {
			custMultiline(d, v[f.name])
		} else {
			d.Text(v[f.name])
		}
		d.Raw("</dd>")
	}
	d.Raw("<dt>")
	d.text("dash.customers.created")
	d.Raw("</dt><dd>")
	d.date(c.CreatedAt)
	d.Raw("</dd><dt>")
	d.text("dash.customers.updated")
	d.Raw("</dt><dd>")
	d.date(c.UpdatedAt)
	d.Raw(" · ")
	d.text("dash.customers.version", "version", d.l.Number(c.Version))
	d.Raw("</dd><dt>")
	d.text("dash.customers.id")
	d.Raw("</dt><dd><code>")
	d.Text(c.ID)
	d.Raw("</code></dd></dl>\n")
}

// customerOther writes the body's members the form does not show (name and JSON value).
func (d *doc) customerOther(other [][2]string) {
	if len(other) == 0 {
		return
	}
	d.Raw("<h2>")
	d.text("dash.customers.other")
	d.Raw(`</h2><p class="hint">`)
	d.text("dash.customers.other_hint")
	d.Raw(`</p><dl id="customer-other">`)
	for _, o := range other {
		d.Raw("<dt><code>")
		d.Text(o[0])
		d.Raw("</code></dt><dd><code>")
		d.Text(o[1])
		d.Raw("</code></dd>")
	}
	d.Raw("</dl>\n")
}

// customerInvoices writes a page of the customer's invoices.
func (d *doc) customerInvoices(r *req, invoices []*document.Record) {
	d.Raw(`<h2 id="customer-invoices-title">`)
	d.text("dash.customers.invoices")
	d.Raw("</h2>")
	d.tableStart("customer-invoices-title", "customer-invoices")
	d.thead("dash.customers.inv.", "reference", "status", "total", "paid", "created")
	if len(invoices) == 0 {
		d.Raw(`<tr><td colspan="5">`)
		d.text("dash.customers.inv.none")
		d.Raw("</td></tr>")
	}
	for _, inv := range invoices {
		d.Raw("<tr")
		d.Attr("id", "invoice-"+inv.ID)
		d.Raw(`><th scope="row"><a`)
		d.URLAttr("href", r.url("/dashboard/invoices/"+inv.ID))
		d.Raw(">")
		d.Text(inv.Reference)
		d.Raw("</a></th><td>")
		if has("dash.customers.inv.status." + inv.Status) {
			d.text("dash.customers.inv.status." + inv.Status)
		} else {
			d.Text(inv.Status)
		}
		d.Raw("</td><td>")
		if inv.AmountMinor != nil {
			d.Text(d.l.Amount(money.Paisa(*inv.AmountMinor)))
		} else {
			d.text("dash.customers.empty")
		}
		d.Raw("</td><td>")
		d.Text(d.l.Amount(money.Paisa(inv.PaidMinor)))
		d.Raw("</td><td>")
		d.date(inv.CreatedAt)
		d.Raw("</td></tr>")
	}
	d.Raw("</tbody></table></div>\n")
}

// custGet runs the API's get of the page's {documentID} (404 when it is not a customer of
// this workspace and environment).
func (s *Service) custGet(ctx context.Context, r *req, q map[string]string) (*document.ListResult, error) {
	return s.docGet(ctx, r, document.Customers, r.PathParams["documentID"], q)
}

// custMultiline writes text keeping its line breaks.
func custMultiline(d *doc, s string) {
	for i, line := range strings.Split(strings.ReplaceAll(s, "\r\n", "\n"), "\n") {
		if i > 0 {
			d.Raw("<br>")
		}
		d.Text(line)
	}
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
			custConflict(d, cf)
		}
		if cf.problem != "" {
			d.Raw(`<p class="error" role="alert" id="form-problem">`)
			d.Text(cf.problem)
			d.Raw("</p>\n")
		}
		d.errorSummary(cf.form)
		d.formStart(action, "customer-form")
		d.Raw(`<input type="hidden" name="idem"`)
		d.Attr("value", cf.idem)
		d.Raw(">")
		if cf.id != "" {
			d.Raw(`<input type="hidden" name="version"`)
			d.Attr("value", strconv.FormatInt(cf.version, 10))
			d.Raw(">")
		}
		for _, f := range custFields {
			hint := ""
			if f.hint {
				hint = "dash.customers.hint." + f.name
			}
			if f.multiline {
				custTextarea(d, cf.form, f.name, hint)
			} else {
				d.input(cf.form, f.name, f.typ, "dash.customers.field."+f.name, f.autocomplete, hint, f.required)
			}
		}
		d.submit("dash.customers.save", "save-customer")
		d.Raw("</form>\n<p class=\"links\">")
		if cf.id != "" {
			d.link("/dashboard/customers/"+cf.id, "cancel-edit", "dash.customers.cancel")
		} else {
			d.link("/dashboard/customers", "cancel-edit", "dash.customers.cancel")
		}
		d.Raw("</p>\n")
	})
}

// custConflict explains a lost edit: the customer changed since the form was read; the form
// below still holds what was typed, and the fields that differ from what is stored now are
// listed with the stored value.
func custConflict(d *doc, cf *custForm) {
	d.Raw(`<div class="error" role="alert" id="conflict"><p>`)
	d.text("dash.customers.conflict", "version", d.l.Number(cf.version))
	d.Raw("</p>")
	var diff []string
	for _, f := range custFields {
		if cf.conflict[f.name] != cf.value(f.name) {
			diff = append(diff, f.name)
		}
	}
	if len(diff) > 0 {
		// A list, not a table: it fits a phone's width without scrolling.
		d.Raw(`<p>`)
		d.text("dash.customers.conflict_caption")
		d.Raw(`</p><dl id="conflict-fields">`)
		for _, name := range diff {
			d.Raw("<dt>")
			d.text("dash.customers.field." + name)
			d.Raw("</dt>")
			for _, side := range []struct{ key, v string }{{"theirs", cf.conflict[name]}, {"yours", cf.value(name)}} {
				d.Raw("<dd>")
				d.text("dash.customers.conflict_col." + side.key)
				d.Raw(": ")
				if side.v == "" {
					d.text("dash.customers.empty")
				} else {
					custMultiline(d, side.v)
				}
				d.Raw("</dd>")
			}
		}
		d.Raw("</dl>")
	}
	d.Raw("<p>")
	d.text("dash.customers.conflict_retry")
	d.Raw(" ")
	d.link("/dashboard/customers/"+cf.id+"/edit", "conflict-reload", "dash.customers.conflict_reload")
	d.Raw("</p></div>\n")
}

// custTextarea writes a labelled multi-line field with its hint and its error.
func custTextarea(d *doc, f *form, name, hintKey string) {
	id := "f-" + name
	d.Raw(`<div class="row"><label class="field-label"`)
	d.Attr("for", id)
	d.Raw(">")
	d.text("dash.customers.field." + name)
	d.Raw(`</label><textarea class="field" rows="3"`)
	d.Attr("id", id)
	d.Attr("name", name)
	var described []string
	if hintKey != "" {
		described = append(described, id+"-hint")
	}
	if f.err(name) != "" {
		d.Raw(` aria-invalid="true"`)
		described = append(described, id+"-error")
	}
	if len(described) > 0 {
		d.Attr("aria-describedby", strings.Join(described, " "))
	}
	// A newline right after the start tag is dropped by the HTML parser: this one, not the value's.
	d.Raw(">\n")
	d.Text(f.value(name))
	d.Raw("</textarea>")
	d.fieldAfter(f, id, name, hintKey)
	d.Raw("</div>\n")
}
