package dashboard

import (
	"context"
	"encoding/json"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/takapay/payments/shared/auth"
	"github.com/takapay/payments/shared/document"
	"github.com/takapay/payments/shared/foundation/apierr"
	"github.com/takapay/payments/shared/foundation/money"
	"github.com/takapay/payments/shared/foundation/page"
	"github.com/takapay/payments/shared/foundation/web"
)

// The create and edit forms of invoices and payment links. They hold no rule of a document
// body: the form's text becomes the API's JSON body (amounts typed in taka become paisa,
// exactly, with money.ParseTakaText; dates typed in Dhaka time become RFC 3339), and the
// documents rules (document.Service.CheckBody and Create, ParsePatch and Edit, through
// Service.Documents) validate and store it.
// Their 422 violations come back as paths (body.items[1].unit_amount_minor) that the form
// shows next to the row and field that failed. An edit is a merge patch of every member the
// form shows (a cleared field is null: deleted) with expected_version, the version the form
// was loaded at, so someone else's edit in between is a 409 the page explains.

// Rows of the line items and custom fields: how many a new form shows, how many an edit form
// adds after the document's own, and how many the "add rows" buttons add (up to the API's
// maxima, document.MaxItems and document.MaxFields).
const (
	newItemRows   = 3
	newFieldRows  = 2
	spareItemRows = 2
	spareFields   = 1
	addItemRows   = 3
	addFieldRows  = 2
	// customerChoices is how many customers the form offers to link (the newest).
	customerChoices = 100
)

// Form field names of the body members that are plain text, money or whole numbers.
var (
	docTextFields  = []string{"reference", "name", "email", "phone", "description", "notes", "private_notes", "customer_id", "return_url", "image_url"}
	docMoneyFields = map[string]string{"amount": "amount_minor", "tax": "tax_minor", "fee": "fee_minor", "shipping": "shipping_minor", "discount": "discount_minor"}
	docIntFields   = []string{"max_quantity", "max_uses"}
	docDateFields  = []string{"due_at", "expires_at"}
	docMoneyOrder  = []string{"amount", "tax", "fee", "shipping", "discount"}
)

// docForm is a form's state: the typed values and errors, the row counts, the version it edits
// and the Idempotency-Key of this rendering.
type docForm struct {
	k      docKind
	f      *form
	items  int
	fields int
	// id and version are the edited document's (zero for a create); reference is its
	// reference as stored, for the title.
	id, reference string
	version       int64
	idem          string
	// conflictAt is the document's version when an edit met a version conflict (0: none).
	conflictAt int64
	// notice is a message key shown at the top ("" for none).
	notice string
	// customers are the choices of the customer select (nil: a text input instead).
	customers []*document.Record
}

func (df *docForm) value(name string) string { return df.f.value(name) }

// itemName and fieldName are the form names of a line item's and a custom field's inputs.
func itemName(row int, part string) string  { return "item-" + strconv.Itoa(row) + "-" + part }
func fieldName(row int, part string) string { return "field-" + strconv.Itoa(row) + "-" + part }

var (
	itemParts  = []string{"title", "quantity", "unit_amount"}
	fieldParts = []string{"id", "label", "type", "required", "options"}
)

// NewInvoicePage is GET /dashboard/invoices/new.
func (s *Service) NewInvoicePage(ctx context.Context, wr *web.Request) (*web.Response, error) {
	return s.newDocPage(invoicePages)(ctx, wr)
}

// CreateInvoice is POST /dashboard/invoices.
func (s *Service) CreateInvoice(ctx context.Context, wr *web.Request) (*web.Response, error) {
	return s.saveDoc(invoicePages, false)(ctx, wr)
}

// EditInvoicePage is GET /dashboard/invoices/{documentID}/edit.
func (s *Service) EditInvoicePage(ctx context.Context, wr *web.Request) (*web.Response, error) {
	return s.editDocPage(invoicePages)(ctx, wr)
}

// EditInvoice is POST /dashboard/invoices/{documentID}/edit.
func (s *Service) EditInvoice(ctx context.Context, wr *web.Request) (*web.Response, error) {
	return s.saveDoc(invoicePages, true)(ctx, wr)
}

// NewPaymentLinkPage is GET /dashboard/payment-links/new.
func (s *Service) NewPaymentLinkPage(ctx context.Context, wr *web.Request) (*web.Response, error) {
	return s.newDocPage(linkPages)(ctx, wr)
}

// CreatePaymentLink is POST /dashboard/payment-links.
func (s *Service) CreatePaymentLink(ctx context.Context, wr *web.Request) (*web.Response, error) {
	return s.saveDoc(linkPages, false)(ctx, wr)
}

// EditPaymentLinkPage is GET /dashboard/payment-links/{documentID}/edit.
func (s *Service) EditPaymentLinkPage(ctx context.Context, wr *web.Request) (*web.Response, error) {
	return s.editDocPage(linkPages)(ctx, wr)
}

// EditPaymentLink is POST /dashboard/payment-links/{documentID}/edit.
func (s *Service) EditPaymentLink(ctx context.Context, wr *web.Request) (*web.Response, error) {
	return s.saveDoc(linkPages, true)(ctx, wr)
}

func (s *Service) newDocPage(k docKind) web.HandlerFunc {
	return s.get(func(ctx context.Context, r *req) (*web.Response, error) {
		if err := r.need(auth.WriteDocuments); err != nil {
			return nil, err
		}
		df := &docForm{k: k, f: &form{values: map[string]string{}}, items: newItemRows, fields: newFieldRows, idem: randomToken()}
		if err := s.loadCustomers(ctx, r, df); err != nil {
			return nil, err
		}
		return s.docPage(r, 200, df), nil
	})
}

func (s *Service) editDocPage(k docKind) web.HandlerFunc {
	return s.get(func(ctx context.Context, r *req) (*web.Response, error) {
		if err := r.need(auth.WriteDocuments); err != nil {
			return nil, err
		}
		rec, err := s.getDoc(ctx, r, k, r.PathParams["documentID"])
		if err != nil {
			return nil, err
		}
		body, err := rec.Content()
		if err != nil {
			return nil, err
		}
		df := formOf(k, rec, body)
		if !document.Editable(k.kind, rec.Status) {
			return s.notEditablePage(r, df, rec.Status), nil
		}
		if err := s.loadCustomers(ctx, r, df); err != nil {
			return nil, err
		}
		return s.docPage(r, 200, df), nil
	})
}

// getDoc reads one document (404 when it is not one of this workspace and environment).
func (s *Service) getDoc(ctx context.Context, r *req, k docKind, id string) (*document.Record, error) {
	rec, _, err := s.docRecord(ctx, r, k.kind, id)
	return rec, err
}

// loadCustomers fills the customer select with the newest customers.
func (s *Service) loadCustomers(ctx context.Context, r *req, df *docForm) error {
	res, err := s.docList(ctx, r, document.Customers, map[string]string{"limit": strconv.Itoa(customerChoices)})
	if err != nil {
		return err
	}
	df.customers = res.Items
	if df.customers == nil {
		df.customers = []*document.Record{}
	}
	return nil
}

// formOf is the edit form of a stored document.
func formOf(k docKind, rec *document.Record, b *document.Body) *docForm {
	v := map[string]string{"reference": b.Reference}
	str := func(name string, p *string) {
		if p != nil {
			v[name] = *p
		}
	}
	str("name", b.Name)
	str("email", b.Email)
	str("phone", b.Phone)
	str("description", b.Description)
	str("notes", b.Notes)
	str("private_notes", b.PrivateNotes)
	str("customer_id", b.CustomerID)
	str("return_url", b.ReturnURL)
	str("image_url", b.ImageURL)
	v["tags"] = strings.Join(b.Tags, ", ")
	amounts := map[string]*int64{"amount": b.AmountMinor, "tax": b.TaxMinor, "fee": b.FeeMinor, "shipping": b.ShippingMinor, "discount": b.DiscountMinor}
	if k.kind == document.Invoices && len(b.Items) > 0 {
		amounts["amount"] = nil // computed by the API from the items
	}
	for name, p := range amounts {
		if p != nil {
			v[name] = money.Paisa(*p).TakaString()
		}
	}
	for name, p := range map[string]*int64{"max_quantity": b.MaxQuantity, "max_uses": b.MaxUses} {
		if p != nil {
			v[name] = strconv.FormatInt(*p, 10)
		}
	}
	for name, p := range map[string]*string{"due_at": b.DueAt, "expires_at": b.ExpiresAt} {
		if p != nil {
			v[name] = dhakaLocal(*p)
			v[name+"_raw"] = *p
		}
	}
	for i, it := range b.Items {
		v[itemName(i, "title")] = it.Title
		v[itemName(i, "quantity")] = strconv.FormatInt(it.Quantity, 10)
		v[itemName(i, "unit_amount")] = money.Paisa(it.UnitAmountMinor).TakaString()
	}
	for i, f := range b.Fields {
		v[fieldName(i, "id")] = f.ID
		v[fieldName(i, "label")] = f.Label
		v[fieldName(i, "type")] = f.Type
		if f.Required != nil && *f.Required {
			v[fieldName(i, "required")] = "on"
		}
		v[fieldName(i, "options")] = strings.Join(f.Options, "\n")
	}
	return &docForm{k: k, f: &form{values: v}, id: rec.ID, reference: rec.Reference, version: rec.Version, idem: randomToken(),
		items: min(len(b.Items)+spareItemRows, document.MaxItems), fields: min(len(b.Fields)+spareFields, document.MaxFields)}
}

// dhakaLocal writes an RFC 3339 instant as a date input's value: its day in Dhaka time
// ("2006-01-02"); "" when it does not parse.
func dhakaLocal(raw string) string {
	t, err := time.Parse(time.RFC3339Nano, raw)
	if err != nil {
		return ""
	}
	return t.In(page.Dhaka).Format(time.DateOnly)
}

// parseDhakaLocal reads a date input's value (or the same typed by hand, with Bangla
// digits) as the end of that day in Dhaka time, 23:59:59, in RFC 3339: a due date or an
// expiry is the last day to pay. A date and time ("2006-01-02T15:04", a space for the T) is
// that minute, as the form took it before its inputs were dates.
func parseDhakaLocal(s string) (string, bool) {
	s = strings.Replace(strings.TrimSpace(asciiDigits(s)), " ", "T", 1)
	if t, err := time.ParseInLocation(time.DateOnly, s, page.Dhaka); err == nil {
		return t.Add(24*time.Hour - time.Second).Format(time.RFC3339), true
	}
	for _, layout := range []string{"2006-01-02T15:04", "2006-01-02T15:04:05"} {
		if t, err := time.ParseInLocation(layout, s, page.Dhaka); err == nil {
			return t.Format(time.RFC3339), true
		}
	}
	return "", false
}

// asciiDigits writes Bangla digits as ASCII ones.
func asciiDigits(s string) string {
	return strings.Map(func(c rune) rune {
		if c >= '০' && c <= '৯' {
			return '0' + (c - '০')
		}
		return c
	}, s)
}

var wholeNumber = regexp.MustCompile(`^[0-9]{1,15}$`)

// parseWhole reads a whole number (Bangla digits allowed, grouping commas ignored).
func parseWhole(s string) (int64, bool) {
	s = strings.ReplaceAll(asciiDigits(s), ",", "")
	if !wholeNumber.MatchString(s) {
		return 0, false
	}
	n, err := strconv.ParseInt(s, 10, 64)
	return n, err == nil
}

// readDocForm reads a posted form: every value, the row counts (bounded) and the hidden state.
func readDocForm(r *req, k docKind) *docForm {
	df := &docForm{k: k, f: &form{values: map[string]string{}}, id: r.PathParams["documentID"], idem: r.form.Get("idem")}
	df.items = boundedRows(r.field("item_rows"), newItemRows, document.MaxItems)
	df.fields = boundedRows(r.field("field_rows"), newFieldRows, document.MaxFields)
	df.version, _ = strconv.ParseInt(r.field("version"), 10, 64)
	df.reference = r.field("stored_reference")
	names := append(append([]string{"tags"}, docTextFields...), docIntFields...)
	names = append(names, docMoneyOrder...)
	for _, n := range docDateFields {
		names = append(names, n, n+"_raw")
	}
	for i := 0; i < df.items; i++ {
		for _, p := range itemParts {
			names = append(names, itemName(i, p))
		}
	}
	for i := 0; i < df.fields; i++ {
		for _, p := range fieldParts {
			names = append(names, fieldName(i, p))
		}
	}
	for _, n := range names {
		v := r.form.Get(n)
		if !strings.HasSuffix(n, "-options") && n != "notes" && n != "private_notes" && n != "description" {
			v = strings.TrimSpace(v)
		}
		if v != "" {
			df.f.values[n] = v
		}
	}
	return df
}

func boundedRows(v string, def, max int) int {
	n, err := strconv.Atoi(v)
	if err != nil || n < 1 {
		return def
	}
	return min(n, max)
}

// built is a form turned into the API's body: members (nil: absent, or null in a patch) and
// which form row each line item and custom field came from (for the violations' paths).
type built struct {
	members   map[string]any
	itemRow   []int
	fieldRow  []int
	localFail bool
}

// build turns the form into the body's members, recording the form's own errors (text that is
// not an amount, a whole number or a date) in df.f.
func (df *docForm) build(l page.Lang) *built {
	b := &built{members: map[string]any{}}
	fail := func(name, key string) {
		df.f.fail(name, t(l, "dash.docform.label."+labelKeyOf(name), "n", rowNumber(l, name))+": "+t(l, key))
		b.localFail = true
	}
	b.texts(df.f.values)
	b.numbers(df.f.values, fail)
	b.dates(df.f.values, fail)
	b.items(df, fail)
	b.fields(df)
	return b
}

// texts are the text members (an empty one is null, except reference) and the tags (split
// at commas).
func (b *built) texts(v map[string]string) {
	for _, n := range docTextFields {
		if s := v[n]; s != "" || n == "reference" {
			b.members[n] = s
		} else {
			b.members[n] = nil
		}
	}
	var tags []string
	for _, tag := range strings.Split(v["tags"], ",") {
		if tag = strings.TrimSpace(tag); tag != "" {
			tags = append(tags, tag)
		}
	}
	b.members["tags"] = nilIfEmpty(tags)
}

// numbers are the amounts typed in taka (in paisa) and the whole numbers.
func (b *built) numbers(v map[string]string, fail func(name, key string)) {
	for _, n := range docMoneyOrder {
		b.members[docMoneyFields[n]] = nil
		if s := v[n]; s != "" {
			if p, err := money.ParseTakaText(s); err != nil {
				fail(n, "dash.docform.bad_amount")
			} else {
				b.members[docMoneyFields[n]] = int64(p)
			}
		}
	}
	for _, n := range docIntFields {
		b.members[n] = nil
		if s := v[n]; s != "" {
			if x, ok := parseWhole(s); !ok {
				fail(n, "dash.docform.bad_number")
			} else {
				b.members[n] = x
			}
		}
	}
}

// dates are the dates typed in Dhaka time (RFC 3339), or as stored when unchanged.
func (b *built) dates(v map[string]string, fail func(name, key string)) {
	for _, n := range docDateFields {
		b.members[n] = nil
		s := v[n]
		switch {
		case s == "":
		case v[n+"_raw"] != "" && dhakaLocal(v[n+"_raw"]) == s:
			b.members[n] = v[n+"_raw"] // unchanged: kept exactly as stored
		default:
			if at, ok := parseDhakaLocal(s); ok {
				b.members[n] = at
			} else {
				fail(n, "dash.docform.bad_date")
			}
		}
	}
}

// items are the line item rows that are not empty (a quantity left empty is 1).
func (b *built) items(df *docForm, fail func(name, key string)) {
	v := df.f.values
	var items []map[string]any
	for i := 0; i < df.items; i++ {
		title, qty, unit := v[itemName(i, "title")], v[itemName(i, "quantity")], v[itemName(i, "unit_amount")]
		if title == "" && qty == "" && unit == "" {
			continue
		}
		it := map[string]any{"title": title}
		if qty == "" {
			qty = "1"
		}
		if n, ok := parseWhole(qty); ok {
			it["quantity"] = n
		} else {
			fail(itemName(i, "quantity"), "dash.docform.bad_number")
		}
		if p, err := money.ParseTakaText(unit); err == nil {
			it["unit_amount_minor"] = int64(p)
		} else {
			fail(itemName(i, "unit_amount"), "dash.docform.bad_amount")
		}
		items = append(items, it)
		b.itemRow = append(b.itemRow, i)
	}
	b.members["items"] = nilIfEmpty(items)
}

// fields are the custom field rows that are not empty (options one a line).
func (b *built) fields(df *docForm) {
	v := df.f.values
	var fields []map[string]any
	for i := 0; i < df.fields; i++ {
		id, label, typ := v[fieldName(i, "id")], v[fieldName(i, "label")], v[fieldName(i, "type")]
		opts := v[fieldName(i, "options")]
		if id == "" && label == "" && strings.TrimSpace(opts) == "" {
			continue // an empty row (its type select always has a value)
		}
		f := map[string]any{"id": id, "label": label, "type": typ}
		if v[fieldName(i, "required")] != "" {
			f["required"] = true
		}
		var options []string
		for _, o := range strings.Split(opts, "\n") {
			if o = strings.TrimSpace(o); o != "" {
				options = append(options, o)
			}
		}
		if len(options) > 0 {
			f["options"] = options
		}
		fields = append(fields, f)
		b.fieldRow = append(b.fieldRow, i)
	}
	b.members["fields"] = nilIfEmpty(fields)
}

func nilIfEmpty[T any](s []T) any {
	if len(s) == 0 {
		return nil
	}
	return s
}

// json is the body: a create's (absent members left out), or an edit's merge patch (every
// member the form shows, null when cleared, so the stored body becomes what the form says)
// with expected_version.
func (b *built) json(patch bool, version int64) []byte {
	out := map[string]any{}
	for k, v := range b.members {
		if v != nil || patch {
			out[k] = v
		}
	}
	if patch {
		out["expected_version"] = version
	}
	raw, err := json.Marshal(out)
	if err != nil {
		panic("dashboard: encoding a document body: " + err.Error())
	}
	return raw
}

// saveDoc serves the create (POST /dashboard/<kind>) and edit (POST .../{documentID}/edit)
// posts, and the "add rows" buttons of both.
func (s *Service) saveDoc(k docKind, edit bool) web.HandlerFunc {
	return s.post(func(ctx context.Context, r *req) (*web.Response, error) {
		if err := r.need(auth.WriteDocuments); err != nil {
			return nil, err
		}
		df := readDocForm(r, k)
		if !edit {
			df.id, df.version = "", 0
		}
		switch r.form.Get("action") {
		case "add_items":
			df.items = min(df.items+addItemRows, document.MaxItems)
			return s.rerender(ctx, r, 200, df)
		case "add_fields":
			df.fields = min(df.fields+addFieldRows, document.MaxFields)
			return s.rerender(ctx, r, 200, df)
		}
		b := df.build(r.l())
		if b.localFail {
			return s.rerender(ctx, r, 422, df)
		}
		var rec *document.Record
		var err error
		if edit {
			rec, err = s.docEdit(ctx, r, k.kind, df.id, b.json(true, df.version), df.idem)
		} else {
			rec, err = s.docCreate(ctx, r, k.kind, b.json(false, 0), df.idem)
		}
		if err == nil {
			return s.redirect(r, k.path+"/"+rec.ID), nil
		}
		ae := apierr.As(err)
		if ae == nil {
			return nil, err
		}
		switch ae.Code {
		case apierr.ValidationFailed:
			df.showViolations(r.l(), b, ae)
			return s.rerender(ctx, r, 422, df)
		case apierr.VersionConflict:
			cur, gerr := s.getDoc(ctx, r, k, df.id)
			if gerr != nil {
				return nil, gerr
			}
			if !document.Editable(k.kind, cur.Status) {
				return s.notEditablePage(r, df, cur.Status), nil
			}
			df.conflictAt = cur.Version
			return s.rerender(ctx, r, 409, df)
		case apierr.StateConflict:
			cur, gerr := s.getDoc(ctx, r, k, df.id)
			if gerr != nil {
				return nil, gerr
			}
			return s.notEditablePage(r, df, cur.Status), nil
		case apierr.IdempotencyKeyReused:
			// This rendering's key already saved other values (a form sent twice with
			// different text): the values typed now are kept, to be saved with a new key.
			df.idem = randomToken()
			df.notice = "dash.docform.notice.resubmit"
			return s.rerender(ctx, r, 409, df)
		}
		return nil, err
	})
}

// rerender shows the posted form again (with the customer choices).
func (s *Service) rerender(ctx context.Context, r *req, status int, df *docForm) (*web.Response, error) {
	if err := s.loadCustomers(ctx, r, df); err != nil {
		return nil, err
	}
	return s.docPage(r, status, df), nil
}

var violationPath = regexp.MustCompile(`^body\.(items|fields)\[([0-9]+)\](?:\.([a-z_]+))?`)

// showViolations puts each of the API's violations next to the form field it names.
func (df *docForm) showViolations(l page.Lang, b *built, ae *apierr.Error) {
	if len(ae.Violations) == 0 {
		df.f.fail("reference", t(l, "dash.docform.rule.other", "rule", ae.Message))
		return
	}
	for _, v := range ae.Violations {
		name := df.fieldOf(v.Path, b)
		key := ruleKey(df.k, name, v.Path)
		if key == "" {
			df.f.fail(nameOr(name, "reference"), t(l, "dash.docform.rule.other", "rule", v.Path+": "+v.Rule))
			continue
		}
		df.f.fail(name, t(l, "dash.docform.label."+labelKeyOf(name), "n", rowNumber(l, name))+": "+t(l, key))
	}
}

func nameOr(name, def string) string {
	if name == "" {
		return def
	}
	return name
}

// fieldOf maps a violation's path to the form field's name ("" when no field shows it).
func (df *docForm) fieldOf(path string, b *built) string {
	if m := violationPath.FindStringSubmatch(path); m != nil {
		k, _ := strconv.Atoi(m[2])
		if m[1] == "items" {
			if k >= len(b.itemRow) {
				return "items"
			}
			part := m[3]
			switch part {
			case "unit_amount_minor":
				part = "unit_amount"
			case "title", "quantity":
			default:
				part = "title"
			}
			return itemName(b.itemRow[k], part)
		}
		if k >= len(b.fieldRow) {
			return "fields"
		}
		part := m[3]
		switch part {
		case "id", "label", "type", "required", "options":
		default:
			part = "id"
		}
		return fieldName(b.fieldRow[k], part)
	}
	member, _, _ := strings.Cut(strings.TrimPrefix(path, "body."), "[")
	member, _, _ = strings.Cut(member, ".")
	for name, m := range docMoneyFields {
		if m == member {
			return name
		}
	}
	switch member {
	case "items", "fields", "tags", "due_at", "expires_at", "max_quantity", "max_uses":
		return member
	}
	for _, n := range docTextFields {
		if n == member {
			return n
		}
	}
	return ""
}

// ruleKey is the catalogue's message for a field's violation ("" for a path no field shows).
func ruleKey(k docKind, name, path string) string {
	switch {
	case name == "":
		return ""
	case strings.HasPrefix(name, "item-"):
		return "dash.docform.rule.item_" + name[strings.LastIndexByte(name, '-')+1:]
	case strings.HasPrefix(name, "field-"):
		return "dash.docform.rule.field_" + name[strings.LastIndexByte(name, '-')+1:]
	case name == "amount" && k.kind == document.Invoices:
		return "dash.docform.rule.amount_invoice"
	}
	return "dash.docform.rule." + name
}

// labelKeyOf is the label's catalogue key part of a field name (rows share their labels).
func labelKeyOf(name string) string {
	switch {
	case strings.HasPrefix(name, "item-"):
		return "item_" + name[strings.LastIndexByte(name, '-')+1:]
	case strings.HasPrefix(name, "field-"):
		return "field_" + name[strings.LastIndexByte(name, '-')+1:]
	}
	return name
}

// rowNumber is the row's number as people count (from 1) in l's digits ("" for a field
// outside the rows).
func rowNumber(l page.Lang, name string) string {
	if !strings.HasPrefix(name, "item-") && !strings.HasPrefix(name, "field-") {
		return ""
	}
	parts := strings.Split(name, "-")
	n, _ := strconv.Atoi(parts[1])
	return l.Digits(strconv.Itoa(n + 1))
}
