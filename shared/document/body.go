package document

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/takapay/payments/shared/foundation/apierr"
	"github.com/takapay/payments/shared/foundation/jsonbody"
	"github.com/takapay/payments/shared/foundation/urlcheck"
)

// Bounds of a document body, from the specification's "Document body" and "Limits" sections.
// String lengths count Unicode code points. The DocumentBody schema of shared/openapi/openapi.yaml
// states the same numbers, and a test compares the two at every bound.
const (
	// MinReference is the shortest reference (an empty reference is rejected).
	MinReference = 1
	// MaxReference is the longest reference.
	MaxReference = 128
	// MaxName is the longest name.
	MaxName = 160
	// MaxEmail is the longest email address (the limit of jsonbody.CheckEmail).
	MaxEmail = 254
	// MaxPhone is the longest phone.
	MaxPhone = 32
	// MaxNotes is the longest notes and the longest private_notes.
	MaxNotes = 4000
	// MaxDescription is the longest description.
	MaxDescription = 2000
	// MaxTags is the most tags a body may carry.
	MaxTags = 20
	// MaxTag is the longest single tag.
	MaxTag = 40
	// MinItems is the fewest line items a body with items may carry.
	MinItems = 1
	// MaxItems is the most line items a body may carry.
	MaxItems = 100
	// MinTitle is the shortest line item title.
	MinTitle = 1
	// MaxTitle is the longest line item title.
	MaxTitle = 160
	// MinQuantity is the smallest line item quantity and the smallest max_quantity.
	MinQuantity = 1
	// MaxQuantity is the largest line item quantity and the largest max_quantity.
	MaxQuantity = 9999
	// MaxMinor is the largest amount in paisa: unit_amount_minor, amount_minor, tax_minor,
	// fee_minor, shipping_minor, discount_minor and a computed invoice total.
	MaxMinor = 100000000000
	// MinAmountMinor is the smallest amount_minor of a body.
	MinAmountMinor = 1
	// MaxVersion is the largest record version and the largest expected_version.
	MaxVersion = 100000000000
	// MaxUses is the largest max_uses.
	MaxUses = 1000000
	// MaxURL is the longest image_url or return_url.
	MaxURL = 2048
	// MaxFields is the most custom fields a body may carry.
	MaxFields = 20
	// MaxFieldID is the longest custom field id.
	MaxFieldID = 40
	// MinLabel is the shortest custom field label.
	MinLabel = 1
	// MaxLabel is the longest custom field label.
	MaxLabel = 120
	// MaxOptions is the most options a custom field may carry.
	MaxOptions = 30
	// MaxOption is the longest custom field option.
	MaxOption = 120
	// FieldIDPattern is the pattern every custom field id matches.
	FieldIDPattern = `^[A-Za-z0-9_.:-]{1,40}$`
)

// Patterns the OpenAPI snippet states for formats; the Go checks apply each one and then
// the standard library parser, which is stricter in a few corners (noted at each check).
const (
	// UUIDPattern is the textual form of a customer_id (either case; stored lower-case).
	UUIDPattern = `^[0-9A-Fa-f]{8}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{12}$`
	// DateTimePattern is the RFC 3339 date-time form of expires_at and due_at: upper-case T,
	// hour 00-23, minute and second 00-59 (no leap second), an optional fraction, and Z or a
	// ±hh:mm offset (hour 00-23, minute 00-59).
	DateTimePattern = `^[0-9]{4}-[0-9]{2}-[0-9]{2}T([01][0-9]|2[0-3]):[0-5][0-9]:[0-5][0-9](\.[0-9]+)?(Z|[+-]([01][0-9]|2[0-3]):[0-5][0-9])$`
	// URLPattern is the form of image_url and return_url: an http or https URI whose
	// characters are all RFC 3986 characters or percent escapes, with a non-empty authority.
	URLPattern = `^[Hh][Tt][Tt][Pp][Ss]?://([A-Za-z0-9._~!$&'()*+,;=:@\[\]-]|%[0-9A-Fa-f]{2})+([/?#]([A-Za-z0-9._~!$&'()*+,;=:@/?#\[\]-]|%[0-9A-Fa-f]{2})*)?$`
)

// RuleFileRequired is the rule a custom field of type file with "required": true breaks: a
// payer cannot upload files in this release, so such a field could never be answered.
const RuleFileRequired = "a file field cannot be required: file upload is not available yet"

// FieldTypes lists the allowed custom field types in the order the specification gives them.
var FieldTypes = []string{"text", "textarea", "select", "radio", "checkbox", "file"}

var (
	bodyFieldIDRegexp  = regexp.MustCompile(FieldIDPattern)
	bodyUUIDRegexp     = regexp.MustCompile(UUIDPattern)
	bodyDateTimeRegexp = regexp.MustCompile(DateTimePattern)
	bodyURLRegexp      = regexp.MustCompile(URLPattern)
)

// bodyMembers, lineItemMembers and customFieldMembers are the only allowed member names.
var (
	bodyMembers = []string{"reference", "name", "email", "phone", "notes", "private_notes",
		"description", "tags", "customer_id", "items", "amount_minor", "tax_minor", "fee_minor",
		"shipping_minor", "discount_minor", "expected_version", "expires_at", "due_at",
		"max_quantity", "image_url", "return_url", "max_uses", "fields"}
	lineItemMembers    = []string{"title", "quantity", "unit_amount_minor"}
	customFieldMembers = []string{"id", "label", "type", "required", "options"}
)

// Body is a validated document body (shared by customers, invoices and payment-links). A nil
// pointer or slice means the member was absent (or null); json tags are the spec's names.
type Body struct {
	Reference       string        `json:"reference"`
	Name            *string       `json:"name,omitempty"`
	Email           *string       `json:"email,omitempty"`
	Phone           *string       `json:"phone,omitempty"`
	Notes           *string       `json:"notes,omitempty"`
	PrivateNotes    *string       `json:"private_notes,omitempty"`
	Description     *string       `json:"description,omitempty"`
	Tags            []string      `json:"tags,omitempty"`
	CustomerID      *string       `json:"customer_id,omitempty"`
	Items           []LineItem    `json:"items,omitempty"`
	AmountMinor     *int64        `json:"amount_minor,omitempty"`
	TaxMinor        *int64        `json:"tax_minor,omitempty"`
	FeeMinor        *int64        `json:"fee_minor,omitempty"`
	ShippingMinor   *int64        `json:"shipping_minor,omitempty"`
	DiscountMinor   *int64        `json:"discount_minor,omitempty"`
	ExpectedVersion *int64        `json:"expected_version,omitempty"`
	ExpiresAt       *string       `json:"expires_at,omitempty"`
	DueAt           *string       `json:"due_at,omitempty"`
	MaxQuantity     *int64        `json:"max_quantity,omitempty"`
	ImageURL        *string       `json:"image_url,omitempty"`
	ReturnURL       *string       `json:"return_url,omitempty"`
	MaxUses         *int64        `json:"max_uses,omitempty"`
	Fields          []CustomField `json:"fields,omitempty"`
}

// LineItem is one line of a document body's items; all three members are required.
type LineItem struct {
	Title           string `json:"title"`
	Quantity        int64  `json:"quantity"`
	UnitAmountMinor int64  `json:"unit_amount_minor"`
}

// CustomField is one entry of a document body's fields; id, label and type are required, and
// a field of type file cannot be required (RuleFileRequired).
type CustomField struct {
	ID       string   `json:"id"`
	Label    string   `json:"label"`
	Type     string   `json:"type"`
	Required *bool    `json:"required,omitempty"`
	Options  []string `json:"options,omitempty"`
}

// ParseBody validates the JSON text raw (already accepted by json.Valid) as a document body
// whose field paths start at path (normally "body"). It returns the body, or nil and every
// violation found. A null member counts as absent. An object with a repeated member name
// yields only that violation for that object, since its meaning is ambiguous; an array over
// its maximum count yields only the count violation, without checking its elements.
//
// ParseBody reads stored bodies too, so it keeps the rules every stored body passed; a body a
// merchant sends is read with ParseRequestBody.
func ParseBody(raw []byte, path string) (*Body, []apierr.Violation) {
	return parseBody(raw, path, bodyCheckURL)
}

// DecodeStored decodes a stored body (canonical JSON that passed ParseRequestBody when it was
// written), keeping ParseBody's rules: a body that no longer passes them is an error.
func DecodeStored(raw []byte) (*Body, error) {
	b, vs := ParseBody(raw, "body")
	if len(vs) > 0 {
		return nil, violationsError(vs)
	}
	return b, nil
}

// violationsError is vs as a plain error (an inconsistency, not a client's 422).
type violationsError []apierr.Violation

func (v violationsError) Error() string { return fmt.Sprint([]apierr.Violation(v)) }

// ParseRequestBody is ParseBody for a body a merchant sends (a create, or an edit's merged
// body), plus one rule: return_url, where a payer is sent after paying a payment link, must
// pass urls.Check, the rules of a payment's redirect_url (https and a public host name; the
// local stack's http://localhost only when urls allows it). The violation names
// body.return_url and the urlcheck rule. image_url keeps ParseBody's rule: no page shows it
// and the service never fetches it.
func ParseRequestBody(raw []byte, path string, urls urlcheck.Policy) (*Body, []apierr.Violation) {
	return parseBody(raw, path, func(s string) string {
		if rule := bodyCheckURL(s); rule != "" {
			return rule
		}
		if err := urls.Check(s); err != nil {
			return err.Error()
		}
		return ""
	})
}

// parseBody is ParseBody with checkReturnURL as return_url's rule.
func parseBody(raw []byte, path string, checkReturnURL func(string) string) (*Body, []apierr.Violation) {
	if !utf8.Valid(raw) {
		return nil, []apierr.Violation{{Path: path, Rule: "must be valid UTF-8"}}
	}
	obj, vs := bodyObjectAt(raw, path)
	if vs != nil {
		return nil, vs
	}
	r := jsonbody.NewReader(obj)
	r.OnlyKnown(bodyMembers...)

	b := &Body{}
	b.Reference, _ = r.String("reference", jsonbody.StringRule{Required: true, Min: MinReference, Max: MaxReference})
	b.Name = bodyString(r, "name", jsonbody.StringRule{Max: MaxName})
	b.Email = bodyString(r, "email", jsonbody.StringRule{Max: MaxEmail, Check: jsonbody.CheckEmail})
	b.Phone = bodyString(r, "phone", jsonbody.StringRule{Max: MaxPhone})
	b.Notes = bodyString(r, "notes", bodyFreeText(MaxNotes))
	b.PrivateNotes = bodyString(r, "private_notes", bodyFreeText(MaxNotes))
	b.Description = bodyString(r, "description", bodyFreeText(MaxDescription))
	b.Tags = bodyStrings(r, "tags", MaxTags, jsonbody.StringRule{Max: MaxTag}, "")
	if id := bodyString(r, "customer_id", jsonbody.StringRule{Check: bodyCheckUUID}); id != nil {
		lower := strings.ToLower(*id)
		b.CustomerID = &lower
	}
	b.Items = bodyLineItems(r)
	b.AmountMinor = bodyInt(r, "amount_minor", MinAmountMinor, MaxMinor)
	b.TaxMinor = bodyInt(r, "tax_minor", 0, MaxMinor)
	b.FeeMinor = bodyInt(r, "fee_minor", 0, MaxMinor)
	b.ShippingMinor = bodyInt(r, "shipping_minor", 0, MaxMinor)
	b.DiscountMinor = bodyInt(r, "discount_minor", 0, MaxMinor)
	b.ExpectedVersion = bodyInt(r, "expected_version", 0, MaxVersion)
	b.ExpiresAt = bodyString(r, "expires_at", jsonbody.StringRule{Check: bodyCheckDateTime})
	b.DueAt = bodyString(r, "due_at", jsonbody.StringRule{Check: bodyCheckDateTime})
	b.MaxQuantity = bodyInt(r, "max_quantity", MinQuantity, MaxQuantity)
	b.ImageURL = bodyString(r, "image_url", jsonbody.StringRule{Max: MaxURL, Check: bodyCheckURL})
	b.ReturnURL = bodyString(r, "return_url", jsonbody.StringRule{Max: MaxURL, Check: checkReturnURL})
	b.MaxUses = bodyInt(r, "max_uses", 0, MaxUses)
	b.Fields = bodyCustomFields(r)

	if len(r.Violations) > 0 {
		return nil, r.Violations
	}
	return b, nil
}

// bodyObjectAt parses raw as one JSON object at path, reporting a non-object or a repeated
// member name as a violation under path.
func bodyObjectAt(raw []byte, path string) (*jsonbody.Object, []apierr.Violation) {
	t := bytes.TrimLeft(raw, " \t\r\n")
	if len(t) == 0 || t[0] != '{' {
		return nil, []apierr.Violation{{Path: path, Rule: "must be a JSON object"}}
	}
	obj, err := jsonbody.ParseObject(raw)
	if err != nil {
		var ae *apierr.Error
		if errors.As(err, &ae) && len(ae.Violations) > 0 {
			// ParseObject names paths from "body"; move them under path.
			out := make([]apierr.Violation, len(ae.Violations))
			for i, v := range ae.Violations {
				out[i] = apierr.Violation{Path: path + strings.TrimPrefix(v.Path, "body"), Rule: v.Rule}
			}
			return nil, out
		}
		return nil, []apierr.Violation{{Path: path, Rule: "must be a valid JSON object"}}
	}
	obj.Path = path
	return obj, nil
}

// bodyMember returns a member's raw text when it is present and not null.
func bodyMember(r *jsonbody.Reader, name string) (json.RawMessage, bool) {
	raw, ok := r.Obj.Raw(name)
	if !ok {
		return nil, false
	}
	raw = bytes.TrimSpace(raw)
	if string(raw) == "null" {
		return nil, false
	}
	return raw, true
}

// bodyFailAt records a violation at an explicit path (an array element or below).
func bodyFailAt(r *jsonbody.Reader, path, rule string) {
	r.Violations = append(r.Violations, apierr.Violation{Path: path, Rule: rule})
}

func bodyString(r *jsonbody.Reader, name string, rule jsonbody.StringRule) *string {
	if s, ok := r.String(name, rule); ok {
		return &s
	}
	return nil
}

func bodyInt(r *jsonbody.Reader, name string, min, max int64) *int64 {
	if n, ok := r.Int(name, false, min, max); ok {
		return &n
	}
	return nil
}

// bodyBool reads an optional boolean member.
func bodyBool(r *jsonbody.Reader, name string) *bool {
	raw, ok := bodyMember(r, name)
	if !ok {
		return nil
	}
	switch string(raw) {
	case "true":
		v := true
		return &v
	case "false":
		v := false
		return &v
	}
	r.Fail(name, "must be a boolean")
	return nil
}

// bodyFreeText is the rule of a multi-line text member: tab, newline and carriage return are
// allowed, every other control character is not.
func bodyFreeText(max int) jsonbody.StringRule {
	return jsonbody.StringRule{Max: max, AllowControl: true, Check: bodyCheckFreeText}
}

func bodyCheckFreeText(s string) string {
	if strings.IndexFunc(s, func(c rune) bool { return unicode.IsControl(c) && c != '\t' && c != '\n' && c != '\r' }) >= 0 {
		return "must not contain control characters other than tab and newline"
	}
	return ""
}

func bodyCheckUUID(s string) string {
	if !bodyUUIDRegexp.MatchString(s) {
		return "must be a UUID such as 0b7e6f2c-3c1d-4f5e-9a8b-7c6d5e4f3a2b"
	}
	return ""
}

// bodyCheckDateTime accepts DateTimePattern values that time.Parse(time.RFC3339Nano) also
// accepts (which adds the calendar checks: month 01-12 and the day within the month).
func bodyCheckDateTime(s string) string {
	if !bodyDateTimeRegexp.MatchString(s) {
		return "must be an RFC 3339 date-time with an offset, such as 2026-01-31T18:00:00+06:00"
	}
	if _, err := time.Parse(time.RFC3339Nano, s); err != nil {
		return "must be a valid RFC 3339 date-time (month or day of month out of range)"
	}
	return ""
}

// bodyCheckURL accepts URLPattern values that url.Parse also accepts with a non-empty host name
// (which adds, e.g., a numeric port and bracketed IPv6 hosts). The URL is never fetched by
// the service, so no address rules apply here; ParseRequestBody adds a payment's redirect_url
// rules to return_url.
func bodyCheckURL(s string) string {
	const rule = "must be an absolute http or https URL such as https://example.com/path"
	if !bodyURLRegexp.MatchString(s) {
		return rule
	}
	u, err := url.Parse(s)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Hostname() == "" {
		return rule
	}
	return ""
}

// bodyCheckElement applies rule to one string array element and returns the broken rule or "",
// phrased as jsonbody.Reader.String phrases a member's.
func bodyCheckElement(s string, rule jsonbody.StringRule) string {
	n := utf8.RuneCountInString(s)
	switch {
	case n < rule.Min && rule.Min == 1:
		return "must not be empty"
	case n < rule.Min:
		return fmt.Sprintf("must be at least %d characters", rule.Min)
	case rule.Max > 0 && n > rule.Max:
		return fmt.Sprintf("must be at most %d characters", rule.Max)
	case !rule.AllowControl && strings.IndexFunc(s, unicode.IsControl) >= 0:
		return "must not contain control characters"
	}
	if rule.Check != nil {
		return rule.Check(s)
	}
	return ""
}

// bodyArray reads an optional array member of at most max elements (and at least min when it is
// present); ok is false when it is absent, null or violates the shape or count.
func bodyArray(r *jsonbody.Reader, name string, min, max int) ([]json.RawMessage, bool) {
	raw, ok := bodyMember(r, name)
	if !ok {
		return nil, false
	}
	var elems []json.RawMessage
	if raw[0] != '[' || json.Unmarshal(raw, &elems) != nil {
		r.Fail(name, "must be an array")
		return nil, false
	}
	switch {
	case len(elems) < min:
		r.Fail(name, fmt.Sprintf("must have at least %d %s", min, bodyPlural(min, "item")))
		return nil, false
	case len(elems) > max:
		r.Fail(name, fmt.Sprintf("must have at most %d %s", max, bodyPlural(max, "item")))
		return nil, false
	}
	return elems, true
}

func bodyPlural(n int, word string) string {
	if n == 1 {
		return word
	}
	return word + "s"
}

// bodyStrings reads an optional array of strings, each under rule; when dupRule is not ""
// a repeated element is a violation with that rule.
func bodyStrings(r *jsonbody.Reader, name string, max int, rule jsonbody.StringRule, dupRule string) []string {
	elems, ok := bodyArray(r, name, 0, max)
	if !ok {
		return nil
	}
	base := r.Obj.FieldPath(name)
	out := make([]string, 0, len(elems))
	seen := map[string]bool{}
	bad := false
	for i, e := range elems {
		p := base + "[" + strconv.Itoa(i) + "]"
		var s string
		if e[0] != '"' || json.Unmarshal(e, &s) != nil {
			bodyFailAt(r, p, "must be a string")
			bad = true
			continue
		}
		if msg := bodyCheckElement(s, rule); msg != "" {
			bodyFailAt(r, p, msg)
			bad = true
			continue
		}
		if dupRule != "" && seen[s] {
			bodyFailAt(r, p, dupRule)
			bad = true
			continue
		}
		seen[s] = true
		out = append(out, s)
	}
	if bad {
		return nil
	}
	return out
}

// bodyLineItems reads the optional items member.
func bodyLineItems(r *jsonbody.Reader) []LineItem {
	elems, ok := bodyArray(r, "items", MinItems, MaxItems)
	if !ok {
		return nil
	}
	base := r.Obj.FieldPath("items")
	out := make([]LineItem, 0, len(elems))
	bad := false
	for i, e := range elems {
		obj, vs := bodyObjectAt(e, base+"["+strconv.Itoa(i)+"]")
		if vs != nil {
			r.Violations = append(r.Violations, vs...)
			bad = true
			continue
		}
		ir := jsonbody.NewReader(obj)
		ir.OnlyKnown(lineItemMembers...)
		var it LineItem
		it.Title, _ = ir.String("title", jsonbody.StringRule{Required: true, Min: MinTitle, Max: MaxTitle})
		it.Quantity, _ = ir.Int("quantity", true, MinQuantity, MaxQuantity)
		it.UnitAmountMinor, _ = ir.Int("unit_amount_minor", true, 0, MaxMinor)
		if len(ir.Violations) > 0 {
			r.Violations = append(r.Violations, ir.Violations...)
			bad = true
			continue
		}
		out = append(out, it)
	}
	if bad {
		return nil
	}
	return out
}

// bodyCustomFields reads the optional fields member; a repeated id is a violation at the later
// field's id.
func bodyCustomFields(r *jsonbody.Reader) []CustomField {
	elems, ok := bodyArray(r, "fields", 0, MaxFields)
	if !ok {
		return nil
	}
	base := r.Obj.FieldPath("fields")
	out := make([]CustomField, 0, len(elems))
	ids := map[string]bool{}
	bad := false
	for i, e := range elems {
		obj, vs := bodyObjectAt(e, base+"["+strconv.Itoa(i)+"]")
		if vs != nil {
			r.Violations = append(r.Violations, vs...)
			bad = true
			continue
		}
		fr := jsonbody.NewReader(obj)
		fr.OnlyKnown(customFieldMembers...)
		var f CustomField
		var idOK bool
		f.ID, idOK = fr.String("id", jsonbody.StringRule{Required: true, Min: 1, Max: MaxFieldID, Check: bodyCheckFieldID})
		if idOK {
			if ids[f.ID] {
				fr.Fail("id", "duplicates an earlier field id")
			}
			ids[f.ID] = true
		}
		f.Label, _ = fr.String("label", jsonbody.StringRule{Required: true, Min: MinLabel, Max: MaxLabel})
		f.Type, _ = fr.String("type", jsonbody.StringRule{Required: true, Check: bodyCheckFieldType})
		f.Required = bodyBool(fr, "required")
		if f.Type == "file" && f.Required != nil && *f.Required {
			fr.Fail("required", RuleFileRequired)
		}
		f.Options = bodyStrings(fr, "options", MaxOptions, jsonbody.StringRule{Max: MaxOption}, "duplicates an earlier option")
		if len(fr.Violations) > 0 {
			r.Violations = append(r.Violations, fr.Violations...)
			bad = true
			continue
		}
		out = append(out, f)
	}
	if bad {
		return nil
	}
	return out
}

func bodyCheckFieldID(s string) string {
	if !bodyFieldIDRegexp.MatchString(s) {
		return "must be 1 to 40 letters, digits or _ . : - (pattern " + FieldIDPattern + ")"
	}
	return ""
}

func bodyCheckFieldType(s string) string {
	for _, t := range FieldTypes {
		if s == t {
			return ""
		}
	}
	return "must be one of " + strings.Join(FieldTypes, ", ")
}

// Canonical returns the body as compact JSON in a stable member order, without
// expected_version (a control field that is never stored) and without HTML escaping;
// ParseBody accepts it and yields an equal body.
func (b *Body) Canonical() []byte {
	c := *b
	c.ExpectedVersion = nil
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(&c); err != nil {
		// Body holds only strings, integers, booleans and slices of them.
		panic("document: encoding a body: " + err.Error())
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n"))
}

// SearchText returns the lower-cased reference, name, email and phone that are present and
// not empty, joined by "\n", for case-insensitive q search.
func (b *Body) SearchText() string {
	parts := []string{b.Reference}
	for _, p := range []*string{b.Name, b.Email, b.Phone} {
		if p != nil {
			parts = append(parts, *p)
		}
	}
	kept := parts[:0]
	for _, p := range parts {
		if p != "" {
			kept = append(kept, strings.ToLower(p))
		}
	}
	return strings.Join(kept, "\n")
}

// ComputeInvoiceAmount returns the invoice total in paisa, Σ quantity×unit_amount_minor +
// tax_minor + shipping_minor + fee_minor − discount_minor, and a rule phrase when the total
// is negative or above MaxMinor ("" when it is within 0..MaxMinor). It returns (0, "") when
// there are no items. Within the body's bounds the sum is at most
// 100×9999×10^11 + 3×10^11 < 2^63, so it never overflows.
func (b *Body) ComputeInvoiceAmount() (int64, string) {
	if len(b.Items) == 0 {
		return 0, ""
	}
	var total int64
	for _, it := range b.Items {
		total += it.Quantity * it.UnitAmountMinor
	}
	for _, p := range []*int64{b.TaxMinor, b.ShippingMinor, b.FeeMinor} {
		if p != nil {
			total += *p
		}
	}
	if b.DiscountMinor != nil {
		total -= *b.DiscountMinor
	}
	switch {
	case total < 0:
		return total, "discount_minor exceeds the rest of the invoice"
	case total > MaxMinor:
		return total, fmt.Sprintf("the invoice total (items + tax_minor + shipping_minor + fee_minor - discount_minor) must be at most %d", int64(MaxMinor))
	}
	return total, ""
}
