// Package boundcases is one passing and one failing document body at each edge of every bound
// of a document body (spec "Document body" and "Limits"), shared by package document's unit
// test of the body validator and the HTTP test of package document/integration. It imports
// nothing of package document (whose own tests use it): the caller passes the limits.
package boundcases

import (
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// Limits are the document body's bounds the cases are built at (package document's constants).
type Limits struct {
	MaxDescription int
	MaxFieldID     int
	MaxFields      int
	MaxItems       int
	MaxLabel       int
	MaxMinor       int64
	MaxName        int
	MaxNotes       int
	MaxOption      int
	MaxOptions     int
	MaxPhone       int
	MaxQuantity    int64
	MaxReference   int
	MaxTag         int
	MaxTags        int
	MaxTitle       int
	MaxURL         int
	MaxUses        int64
	MaxVersion     int64
	MinAmountMinor int64
	MinItems       int
	MinQuantity    int64
	// RuleFileRequired is the rule a required file field breaks.
	RuleFileRequired string
}

// BoundCase is one edge of one bound of a document body: a complete body that passes and the
// same body with that edge broken, which fails with one violation at Path whose rule contains
// Rule.
type BoundCase struct {
	Name string
	// Path is the field path of the expected violation, e.g. body.items[0].quantity.
	Path string
	// Kinds lists the document kinds for which Valid is accepted end to end; nil means all.
	Kinds []string
	// Valid is a complete body (JSON text) that passes.
	Valid string
	// Invalid is the same body with one edge broken.
	Invalid string
	// Rule is a substring of the expected violation's rule.
	Rule string
}

// bcQ returns s as a JSON string (HTML characters escaped, which is still valid JSON).
func bcQ(s string) string {
	b, err := json.Marshal(s)
	if err != nil {
		panic(err)
	}
	return string(b)
}

// bcBody returns a body with reference "ref-1" and the given members ("name":value texts),
// unless a member sets the reference itself.
func bcBody(members ...string) string {
	all := members
	if len(members) == 0 || !strings.HasPrefix(members[0], `"reference":`) {
		all = append([]string{`"reference":"ref-1"`}, members...)
	}
	return "{" + strings.Join(all, ",") + "}"
}

// bcM returns the member text "name":value.
func bcM(name, value string) string { return bcQ(name) + ":" + value }

// bcS returns a member whose value is the string s.
func bcS(name, s string) string { return bcM(name, bcQ(s)) }

// bcN returns a member whose value is the integer n.
func bcN(name string, n int64) string { return bcM(name, strconv.FormatInt(n, 10)) }

// bcRep repeats s n times.
func bcRep(s string, n int) string { return strings.Repeat(s, n) }

// bcArr returns a JSON array of the given element texts.
func bcArr(elems ...string) string { return "[" + strings.Join(elems, ",") + "]" }

// bcStrings returns a JSON array of n distinct strings ("s0", "s1", ...).
func bcStrings(n int) string {
	elems := make([]string, n)
	for i := range elems {
		elems[i] = bcQ("s" + strconv.Itoa(i))
	}
	return bcArr(elems...)
}

// bcItem returns a line item; members are raw texts for title, quantity and unit_amount_minor
// ("" leaves one out), followed by any extra members.
func bcItem(title, quantity, unit string, extra ...string) string {
	var ms []string
	if title != "" {
		ms = append(ms, bcM("title", title))
	}
	if quantity != "" {
		ms = append(ms, bcM("quantity", quantity))
	}
	if unit != "" {
		ms = append(ms, bcM("unit_amount_minor", unit))
	}
	return "{" + strings.Join(append(ms, extra...), ",") + "}"
}

// bcOneItem is an items member holding one line item.
func bcOneItem(title, quantity, unit string, extra ...string) string {
	return bcM("items", bcArr(bcItem(title, quantity, unit, extra...)))
}

// bcItems returns an items member of n items of 1 × 1 paisa.
func bcItems(n int) string {
	elems := make([]string, n)
	for i := range elems {
		elems[i] = bcItem(bcQ("item "+strconv.Itoa(i)), "1", "1")
	}
	return bcM("items", bcArr(elems...))
}

// bcField returns a custom field; members are raw texts for id, label and type ("" leaves one
// out), followed by any extra members.
func bcField(id, label, typ string, extra ...string) string {
	var ms []string
	if id != "" {
		ms = append(ms, bcM("id", id))
	}
	if label != "" {
		ms = append(ms, bcM("label", label))
	}
	if typ != "" {
		ms = append(ms, bcM("type", typ))
	}
	return "{" + strings.Join(append(ms, extra...), ",") + "}"
}

// bcOneField is a fields member holding one custom field.
func bcOneField(id, label, typ string, extra ...string) string {
	return bcM("fields", bcArr(bcField(id, label, typ, extra...)))
}

// bcFields returns a fields member of n text fields with ids f0, f1, ...
func bcFields(n int) string {
	elems := make([]string, n)
	for i := range elems {
		elems[i] = bcField(bcQ("f"+strconv.Itoa(i)), `"Field"`, `"text"`)
	}
	return bcM("fields", bcArr(elems...))
}

// bcOptions returns a custom field with the given options array text.
func bcOptions(options string) string {
	return bcOneField(`"size"`, `"Size"`, `"select"`, bcM("options", options))
}

// bcInt returns the two cases of an integer range: min and max pass, min-1 and max+1 fail.
func bcInt(name string, min, max int64) []BoundCase {
	rule := fmt.Sprintf("must be between %d and %d", min, max)
	return []BoundCase{
		{Name: name + " min", Path: "body." + name, Valid: bcBody(bcN(name, min)), Invalid: bcBody(bcN(name, min-1)), Rule: rule},
		{Name: name + " max", Path: "body." + name, Valid: bcBody(bcN(name, max)), Invalid: bcBody(bcN(name, max+1)), Rule: rule},
	}
}

// bcMaxString returns the case of a top-level string maximum, written with unit (one code
// point, possibly several bytes).
func bcMaxString(name string, max int, unit string) BoundCase {
	return BoundCase{
		Name: name + " max", Path: "body." + name,
		Valid:   bcBody(bcS(name, bcRep(unit, max))),
		Invalid: bcBody(bcS(name, bcRep(unit, max+1))),
		Rule:    fmt.Sprintf("must be at most %d characters", max),
	}
}

// BoundsCustomerID is the placeholder customer_id in BoundCases bodies. For invoices and
// payment-links the service requires customer_id to name an existing customer, so an HTTP test
// replaces this text with a real customer's id before sending a body.
const BoundsCustomerID = "0b7e6f2c-3c1d-4f5e-9a8b-7c6d5e4f3a2b"

const (
	bcUUID          = BoundsCustomerID
	bcRuleInteger   = "must be an integer"
	bcRuleString    = "must be a string"
	bcRuleArray     = "must be an array"
	bcRuleObject    = "must be a JSON object"
	bcRuleRequired  = "is required"
	bcRuleEmpty     = "must not be empty"
	bcRuleUnknown   = "is not a known field"
	bcRuleDateTime  = "RFC 3339 date-time"
	bcRuleURL       = "absolute http or https URL"
	bcRuleEmail     = "email address"
	bcRuleUUID      = "must be a UUID"
	bcRuleFieldType = "must be one of text, textarea, select, radio, checkbox, file"
)

// bcCustomers limits a case to the customers kind: its Valid customer_id is not
// BoundsCustomerID verbatim, so an HTTP test cannot swap in an existing customer, which
// invoices and payment-links require.
var bcCustomers = []string{"customers"}

// BoundCases is one passing and one failing value at each edge of every bound of a document
// body (spec "Document body" and "Limits"), shared by the unit test here and the HTTP
// integration test. Valid bodies carry no amount_minor together with items, and line item
// totals stay within l.MaxMinor, so each is valid for every kind it lists.
func Cases(l Limits) []BoundCase {
	return slices.Concat(bodyAndStringCases(l), itemAndNumberCases(l), urlAndFieldCases(l))
}

// bodyAndStringCases are the cases of the body itself and its strings (reference to customer_id).
func bodyAndStringCases(l Limits) []BoundCase {
	var cs []BoundCase
	add := func(c ...BoundCase) { cs = append(cs, c...) }
	bengali := "ক" // one code point, three bytes in UTF-8

	// The body itself.
	add(
		BoundCase{Name: "body not an object", Path: "body", Valid: bcBody(), Invalid: `["ref-1"]`, Rule: bcRuleObject},
		BoundCase{Name: "unknown top-level member", Path: "body.amount", Valid: bcBody(bcN("amount_minor", 100)), Invalid: bcBody(bcN("amount", 100)), Rule: bcRuleUnknown},
		BoundCase{Name: "repeated member", Path: "body.name", Valid: bcBody(bcS("name", "a")), Invalid: bcBody(bcS("name", "a"), bcS("name", "b")), Rule: "appears more than once"},
	)

	// reference: required, 1 to 128.
	add(
		BoundCase{Name: "reference max", Path: "body.reference", Valid: bcBody(bcS("reference", bcRep("r", l.MaxReference))), Invalid: bcBody(bcS("reference", bcRep("r", l.MaxReference+1))), Rule: "must be at most 128 characters"},
		BoundCase{Name: "reference max code points", Path: "body.reference", Valid: bcBody(bcS("reference", bcRep(bengali, l.MaxReference))), Invalid: bcBody(bcS("reference", bcRep(bengali, l.MaxReference+1))), Rule: "must be at most 128 characters"},
		BoundCase{Name: "reference min", Path: "body.reference", Valid: bcBody(bcS("reference", "r")), Invalid: bcBody(bcS("reference", "")), Rule: bcRuleEmpty},
		BoundCase{Name: "reference missing", Path: "body.reference", Valid: bcBody(bcS("reference", "r"), bcS("name", "n")), Invalid: `{"name":"n"}`, Rule: bcRuleRequired},
		BoundCase{Name: "reference null", Path: "body.reference", Valid: bcBody(bcS("reference", "r")), Invalid: `{"reference":null}`, Rule: bcRuleRequired},
		BoundCase{Name: "reference number", Path: "body.reference", Valid: bcBody(bcS("reference", "5")), Invalid: `{"reference":5}`, Rule: bcRuleString},
		BoundCase{Name: "reference control character", Path: "body.reference", Valid: bcBody(bcS("reference", "a b")), Invalid: bcBody(bcS("reference", "a\tb")), Rule: "control characters"},
	)

	// Single-line and free-text strings.
	add(
		bcMaxString("name", l.MaxName, bengali),
		BoundCase{Name: "name number", Path: "body.name", Valid: bcBody(bcS("name", "5")), Invalid: bcBody(bcN("name", 5)), Rule: bcRuleString},
		BoundCase{Name: "name newline", Path: "body.name", Valid: bcBody(bcS("name", "a b")), Invalid: bcBody(bcS("name", "a\nb")), Rule: "control characters"},
		bcMaxString("phone", l.MaxPhone, "1"),
		bcMaxString("notes", l.MaxNotes, "n"),
		bcMaxString("private_notes", l.MaxNotes, bengali),
		bcMaxString("description", l.MaxDescription, "d"),
		BoundCase{Name: "notes newline allowed, NUL not", Path: "body.notes", Valid: bcBody(bcS("notes", "line 1\r\nline 2\tend")), Invalid: bcBody(bcS("notes", "a\x00b")), Rule: "control characters"},
		BoundCase{Name: "description newline allowed, escape not", Path: "body.description", Valid: bcBody(bcS("description", "a\nb")), Invalid: bcBody(bcS("description", "a\x1bb")), Rule: "control characters"},
		BoundCase{Name: "private_notes object", Path: "body.private_notes", Valid: bcBody(bcS("private_notes", "{}")), Invalid: bcBody(bcM("private_notes", "{}")), Rule: bcRuleString},
	)

	// email.
	longEmail := bcRep("a", 64) + "@" + bcRep("b", 63) + "." + bcRep("c", 63) + "." + bcRep("d", 61) // 254 characters
	add(
		BoundCase{Name: "email format", Path: "body.email", Valid: bcBody(bcS("email", "rahim@example.com.bd")), Invalid: bcBody(bcS("email", "rahim.example.com")), Rule: bcRuleEmail},
		BoundCase{Name: "email without domain dot", Path: "body.email", Valid: bcBody(bcS("email", "a@b.co")), Invalid: bcBody(bcS("email", "a@localhost")), Rule: bcRuleEmail},
		BoundCase{Name: "email max", Path: "body.email", Valid: bcBody(bcS("email", longEmail)), Invalid: bcBody(bcS("email", longEmail+"d")), Rule: "must be at most 254 characters"},
		BoundCase{Name: "email number", Path: "body.email", Valid: bcBody(bcS("email", "a@b.co")), Invalid: bcBody(bcN("email", 1)), Rule: bcRuleString},
	)

	// tags: at most 20 strings of at most 40.
	tags := func(last string) string {
		return bcM("tags", bcArr(bcQ("vip"), bcQ("dhaka"), bcQ(last)))
	}
	add(
		BoundCase{Name: "tags count max", Path: "body.tags", Valid: bcBody(bcM("tags", bcStrings(l.MaxTags))), Invalid: bcBody(bcM("tags", bcStrings(l.MaxTags+1))), Rule: "must have at most 20 items"},
		BoundCase{Name: "tag length max", Path: "body.tags[2]", Valid: bcBody(tags(bcRep(bengali, l.MaxTag))), Invalid: bcBody(tags(bcRep(bengali, l.MaxTag+1))), Rule: "must be at most 40 characters"},
		BoundCase{Name: "tags object", Path: "body.tags", Valid: bcBody(bcM("tags", "[]")), Invalid: bcBody(bcM("tags", `{"a":"b"}`)), Rule: bcRuleArray},
		BoundCase{Name: "tags string", Path: "body.tags", Valid: bcBody(bcM("tags", `["vip"]`)), Invalid: bcBody(bcM("tags", `"vip"`)), Rule: bcRuleArray},
		BoundCase{Name: "tag number", Path: "body.tags[1]", Valid: bcBody(bcM("tags", `["a","1"]`)), Invalid: bcBody(bcM("tags", `["a",1]`)), Rule: bcRuleString},
		BoundCase{Name: "tag null", Path: "body.tags[0]", Valid: bcBody(bcM("tags", `["a"]`)), Invalid: bcBody(bcM("tags", `[null]`)), Rule: bcRuleString},
	)

	// customer_id: a uuid.
	add(
		BoundCase{Name: "customer_id format", Path: "body.customer_id", Valid: bcBody(bcS("customer_id", bcUUID)), Invalid: bcBody(bcS("customer_id", "customer-1")), Rule: bcRuleUUID},
		BoundCase{Name: "customer_id upper case", Path: "body.customer_id", Kinds: bcCustomers, Valid: bcBody(bcS("customer_id", strings.ToUpper(bcUUID))), Invalid: bcBody(bcS("customer_id", strings.ToUpper(bcUUID)[:35])), Rule: bcRuleUUID},
		BoundCase{Name: "customer_id braces", Path: "body.customer_id", Valid: bcBody(bcS("customer_id", bcUUID)), Invalid: bcBody(bcS("customer_id", "{"+bcUUID+"}")), Rule: bcRuleUUID},
		BoundCase{Name: "customer_id without hyphens", Path: "body.customer_id", Valid: bcBody(bcS("customer_id", bcUUID)), Invalid: bcBody(bcS("customer_id", strings.ReplaceAll(bcUUID, "-", ""))), Rule: bcRuleUUID},
		BoundCase{Name: "customer_id number", Path: "body.customer_id", Valid: bcBody(bcS("customer_id", bcUUID)), Invalid: bcBody(bcN("customer_id", 7)), Rule: bcRuleString},
	)

	return cs
}

// itemAndNumberCases are the cases of the line items, the integers and the date-times.
func itemAndNumberCases(l Limits) []BoundCase {
	var cs []BoundCase
	add := func(c ...BoundCase) { cs = append(cs, c...) }
	bengali := "ক" // one code point, three bytes in UTF-8

	// items: 1 to 100 line items.
	add(
		BoundCase{Name: "items count min", Path: "body.items", Valid: bcBody(bcItems(l.MinItems)), Invalid: bcBody(bcM("items", "[]")), Rule: "must have at least 1 item"},
		BoundCase{Name: "items count max", Path: "body.items", Valid: bcBody(bcItems(l.MaxItems)), Invalid: bcBody(bcItems(l.MaxItems + 1)), Rule: "must have at most 100 items"},
		BoundCase{Name: "items object", Path: "body.items", Valid: bcBody(bcItems(1)), Invalid: bcBody(bcM("items", bcItem(`"t"`, "1", "1"))), Rule: bcRuleArray},
		BoundCase{Name: "item not an object", Path: "body.items[1]", Valid: bcBody(bcItems(2)), Invalid: bcBody(bcM("items", bcArr(bcItem(`"t"`, "1", "1"), `"t"`))), Rule: bcRuleObject},
		BoundCase{Name: "item unknown member", Path: "body.items[0].sku", Valid: bcBody(bcOneItem(`"t"`, "1", "1")), Invalid: bcBody(bcOneItem(`"t"`, "1", "1", `"sku":"A-1"`)), Rule: bcRuleUnknown},
		BoundCase{Name: "item repeated member", Path: "body.items[0].quantity", Valid: bcBody(bcOneItem(`"t"`, "1", "1")), Invalid: bcBody(bcOneItem(`"t"`, "1", "1", `"quantity":2`)), Rule: "appears more than once"},
		// title: required, 1 to 160.
		BoundCase{Name: "item title max", Path: "body.items[0].title", Valid: bcBody(bcOneItem(bcQ(bcRep(bengali, l.MaxTitle)), "1", "1")), Invalid: bcBody(bcOneItem(bcQ(bcRep(bengali, l.MaxTitle+1)), "1", "1")), Rule: "must be at most 160 characters"},
		BoundCase{Name: "item title min", Path: "body.items[0].title", Valid: bcBody(bcOneItem(`"t"`, "1", "1")), Invalid: bcBody(bcOneItem(`""`, "1", "1")), Rule: bcRuleEmpty},
		BoundCase{Name: "item title missing", Path: "body.items[0].title", Valid: bcBody(bcOneItem(`"t"`, "1", "1")), Invalid: bcBody(bcOneItem("", "1", "1")), Rule: bcRuleRequired},
		BoundCase{Name: "item title number", Path: "body.items[0].title", Valid: bcBody(bcOneItem(`"7"`, "1", "1")), Invalid: bcBody(bcOneItem("7", "1", "1")), Rule: bcRuleString},
		// quantity: required, 1 to 9999.
		BoundCase{Name: "item quantity min", Path: "body.items[0].quantity", Valid: bcBody(bcOneItem(`"t"`, "1", "1")), Invalid: bcBody(bcOneItem(`"t"`, "0", "1")), Rule: "must be between 1 and 9999"},
		BoundCase{Name: "item quantity max", Path: "body.items[0].quantity", Valid: bcBody(bcOneItem(`"t"`, "9999", "1")), Invalid: bcBody(bcOneItem(`"t"`, "10000", "1")), Rule: "must be between 1 and 9999"},
		BoundCase{Name: "item quantity missing", Path: "body.items[0].quantity", Valid: bcBody(bcOneItem(`"t"`, "1", "1")), Invalid: bcBody(bcOneItem(`"t"`, "", "1")), Rule: bcRuleRequired},
		BoundCase{Name: "item quantity null", Path: "body.items[0].quantity", Valid: bcBody(bcOneItem(`"t"`, "1", "1")), Invalid: bcBody(bcOneItem(`"t"`, "null", "1")), Rule: bcRuleRequired},
		BoundCase{Name: "item quantity fraction", Path: "body.items[0].quantity", Valid: bcBody(bcOneItem(`"t"`, "2", "1")), Invalid: bcBody(bcOneItem(`"t"`, "1.5", "1")), Rule: bcRuleInteger},
		BoundCase{Name: "item quantity 1.0", Path: "body.items[0].quantity", Valid: bcBody(bcOneItem(`"t"`, "1", "1")), Invalid: bcBody(bcOneItem(`"t"`, "1.0", "1")), Rule: bcRuleInteger},
		BoundCase{Name: "item quantity string", Path: "body.items[0].quantity", Valid: bcBody(bcOneItem(`"t"`, "2", "1")), Invalid: bcBody(bcOneItem(`"t"`, `"2"`, "1")), Rule: bcRuleInteger},
		// unit_amount_minor: required, 0 to 100000000000.
		BoundCase{Name: "item unit_amount_minor min", Path: "body.items[0].unit_amount_minor", Valid: bcBody(bcOneItem(`"t"`, "1", "0")), Invalid: bcBody(bcOneItem(`"t"`, "1", "-1")), Rule: "must be between 0 and 100000000000"},
		BoundCase{Name: "item unit_amount_minor max", Path: "body.items[0].unit_amount_minor", Valid: bcBody(bcOneItem(`"t"`, "1", "100000000000")), Invalid: bcBody(bcOneItem(`"t"`, "1", "100000000001")), Rule: "must be between 0 and 100000000000"},
		BoundCase{Name: "item unit_amount_minor missing", Path: "body.items[0].unit_amount_minor", Valid: bcBody(bcOneItem(`"t"`, "1", "1")), Invalid: bcBody(bcOneItem(`"t"`, "1", "")), Rule: bcRuleRequired},
		BoundCase{Name: "item unit_amount_minor exponent", Path: "body.items[0].unit_amount_minor", Valid: bcBody(bcOneItem(`"t"`, "1", "100")), Invalid: bcBody(bcOneItem(`"t"`, "1", "1e2")), Rule: bcRuleInteger},
		BoundCase{Name: "item in a later position", Path: "body.items[99].quantity", Valid: bcBody(bcItems(100)), Invalid: strings.Replace(bcBody(bcItems(100)), `{"title":"item 99","quantity":1`, `{"title":"item 99","quantity":0`, 1), Rule: "must be between 1 and 9999"},
	)

	// Integer members.
	add(bcInt("amount_minor", l.MinAmountMinor, l.MaxMinor)...)
	add(bcInt("tax_minor", 0, l.MaxMinor)...)
	add(bcInt("fee_minor", 0, l.MaxMinor)...)
	add(bcInt("shipping_minor", 0, l.MaxMinor)...)
	add(bcInt("discount_minor", 0, l.MaxMinor)...)
	add(bcInt("expected_version", 0, l.MaxVersion)...)
	add(bcInt("max_quantity", l.MinQuantity, l.MaxQuantity)...)
	add(bcInt("max_uses", 0, l.MaxUses)...)
	add(
		BoundCase{Name: "amount_minor string", Path: "body.amount_minor", Valid: bcBody(bcN("amount_minor", 100)), Invalid: bcBody(bcS("amount_minor", "100")), Rule: bcRuleInteger},
		BoundCase{Name: "amount_minor beyond int64", Path: "body.amount_minor", Valid: bcBody(bcN("amount_minor", 100)), Invalid: bcBody(bcM("amount_minor", "9223372036854775808")), Rule: "must be between 1 and 100000000000"},
		BoundCase{Name: "tax_minor fraction", Path: "body.tax_minor", Valid: bcBody(bcN("tax_minor", 1)), Invalid: bcBody(bcM("tax_minor", "1.5")), Rule: bcRuleInteger},
		BoundCase{Name: "fee_minor exponent", Path: "body.fee_minor", Valid: bcBody(bcN("fee_minor", 100)), Invalid: bcBody(bcM("fee_minor", "1E2")), Rule: bcRuleInteger},
		BoundCase{Name: "shipping_minor 0.0", Path: "body.shipping_minor", Valid: bcBody(bcN("shipping_minor", 0)), Invalid: bcBody(bcM("shipping_minor", "0.0")), Rule: bcRuleInteger},
		BoundCase{Name: "discount_minor array", Path: "body.discount_minor", Valid: bcBody(bcN("discount_minor", 1)), Invalid: bcBody(bcM("discount_minor", "[1]")), Rule: bcRuleInteger},
		BoundCase{Name: "expected_version string", Path: "body.expected_version", Valid: bcBody(bcN("expected_version", 3)), Invalid: bcBody(bcS("expected_version", "3")), Rule: bcRuleInteger},
		BoundCase{Name: "max_quantity boolean", Path: "body.max_quantity", Valid: bcBody(bcN("max_quantity", 5)), Invalid: bcBody(bcM("max_quantity", "true")), Rule: bcRuleInteger},
		BoundCase{Name: "max_uses fraction", Path: "body.max_uses", Valid: bcBody(bcN("max_uses", 10)), Invalid: bcBody(bcM("max_uses", "10.5")), Rule: bcRuleInteger},
	)

	// Date-times.
	add(
		BoundCase{Name: "expires_at date only", Path: "body.expires_at", Valid: bcBody(bcS("expires_at", "2026-01-31T18:00:00+06:00")), Invalid: bcBody(bcS("expires_at", "2026-01-31")), Rule: bcRuleDateTime},
		BoundCase{Name: "expires_at without offset", Path: "body.expires_at", Valid: bcBody(bcS("expires_at", "2026-01-31T12:00:00Z")), Invalid: bcBody(bcS("expires_at", "2026-01-31T12:00:00")), Rule: bcRuleDateTime},
		BoundCase{Name: "expires_at offset hour", Path: "body.expires_at", Valid: bcBody(bcS("expires_at", "2026-01-31T12:00:00-23:59")), Invalid: bcBody(bcS("expires_at", "2026-01-31T12:00:00+24:00")), Rule: bcRuleDateTime},
		BoundCase{Name: "expires_at number", Path: "body.expires_at", Valid: bcBody(bcS("expires_at", "2026-01-31T12:00:00Z")), Invalid: bcBody(bcN("expires_at", 1767225600)), Rule: bcRuleString},
		BoundCase{Name: "due_at fraction", Path: "body.due_at", Valid: bcBody(bcS("due_at", "2026-12-31T23:59:59.999999999Z")), Invalid: bcBody(bcS("due_at", "2026-12-31T23:59:59,5Z")), Rule: bcRuleDateTime},
		BoundCase{Name: "due_at day of month", Path: "body.due_at", Valid: bcBody(bcS("due_at", "2028-02-29T00:00:00Z")), Invalid: bcBody(bcS("due_at", "2026-02-29T00:00:00Z")), Rule: bcRuleDateTime},
		BoundCase{Name: "due_at hour", Path: "body.due_at", Valid: bcBody(bcS("due_at", "2026-01-01T23:00:00+06:00")), Invalid: bcBody(bcS("due_at", "2026-01-01T24:00:00+06:00")), Rule: bcRuleDateTime},
		BoundCase{Name: "due_at lower-case t", Path: "body.due_at", Valid: bcBody(bcS("due_at", "2026-01-01T10:00:00Z")), Invalid: bcBody(bcS("due_at", "2026-01-01t10:00:00Z")), Rule: bcRuleDateTime},
	)

	return cs
}

// urlAndFieldCases are the cases of the URLs and the custom fields.
func urlAndFieldCases(l Limits) []BoundCase {
	var cs []BoundCase
	add := func(c ...BoundCase) { cs = append(cs, c...) }
	bengali := "ক" // one code point, three bytes in UTF-8

	// URLs.
	longURL := func(n int) string { return "https://example.com/" + bcRep("p", n-len("https://example.com/")) }
	add(
		BoundCase{Name: "image_url without scheme", Path: "body.image_url", Valid: bcBody(bcS("image_url", "https://cdn.example.com/a.png")), Invalid: bcBody(bcS("image_url", "cdn.example.com/a.png")), Rule: bcRuleURL},
		BoundCase{Name: "image_url max", Path: "body.image_url", Valid: bcBody(bcS("image_url", longURL(l.MaxURL))), Invalid: bcBody(bcS("image_url", longURL(l.MaxURL+1))), Rule: "must be at most 2048 characters"},
		BoundCase{Name: "image_url space", Path: "body.image_url", Valid: bcBody(bcS("image_url", "https://example.com/a%20b.png")), Invalid: bcBody(bcS("image_url", "https://example.com/a b.png")), Rule: bcRuleURL},
		BoundCase{Name: "image_url scheme", Path: "body.image_url", Valid: bcBody(bcS("image_url", "http://cdn.example.com/a.png?v=1#top")), Invalid: bcBody(bcS("image_url", "ftp://cdn.example.com/a.png")), Rule: bcRuleURL},
		// return_url is also held to a payment's redirect_url rules on create and edit (https, a
		// public host: TestReturnURLFollowsRedirectRules); these are the rules of every body.
		BoundCase{Name: "return_url scheme", Path: "body.return_url", Valid: bcBody(bcS("return_url", "https://shop.example.com/thanks?order=1#top")), Invalid: bcBody(bcS("return_url", "ftp://shop.example.com/thanks")), Rule: bcRuleURL},
		BoundCase{Name: "return_url javascript", Path: "body.return_url", Valid: bcBody(bcS("return_url", "HTTPS://shop.example.com/")), Invalid: bcBody(bcS("return_url", "javascript:alert(1)")), Rule: bcRuleURL},
		BoundCase{Name: "return_url empty host", Path: "body.return_url", Valid: bcBody(bcS("return_url", "https://shop.example.com:8443/x")), Invalid: bcBody(bcS("return_url", "https:///x")), Rule: bcRuleURL},
		BoundCase{Name: "return_url bad escape", Path: "body.return_url", Valid: bcBody(bcS("return_url", "https://example.com/%E0%A6%95")), Invalid: bcBody(bcS("return_url", "https://example.com/%zz")), Rule: bcRuleURL},
		BoundCase{Name: "return_url non-ASCII", Path: "body.return_url", Valid: bcBody(bcS("return_url", "https://example.com/a")), Invalid: bcBody(bcS("return_url", "https://example.com/"+bengali)), Rule: bcRuleURL},
		BoundCase{Name: "return_url number", Path: "body.return_url", Valid: bcBody(bcS("return_url", "https://example.com/")), Invalid: bcBody(bcN("return_url", 1)), Rule: bcRuleString},
	)

	// fields: at most 20 custom fields.
	add(
		BoundCase{Name: "fields count max", Path: "body.fields", Valid: bcBody(bcFields(l.MaxFields)), Invalid: bcBody(bcFields(l.MaxFields + 1)), Rule: "must have at most 20 items"},
		BoundCase{Name: "fields object", Path: "body.fields", Valid: bcBody(bcFields(1)), Invalid: bcBody(bcM("fields", bcField(`"a"`, `"A"`, `"text"`))), Rule: bcRuleArray},
		BoundCase{Name: "field not an object", Path: "body.fields[0]", Valid: bcBody(bcFields(1)), Invalid: bcBody(bcM("fields", `["a"]`)), Rule: bcRuleObject},
		BoundCase{Name: "field unknown member", Path: "body.fields[0].placeholder", Valid: bcBody(bcOneField(`"a"`, `"A"`, `"text"`)), Invalid: bcBody(bcOneField(`"a"`, `"A"`, `"text"`, `"placeholder":"x"`)), Rule: bcRuleUnknown},
		BoundCase{Name: "field ids unique", Path: "body.fields[2].id", Valid: bcBody(bcFields(3)), Invalid: strings.Replace(bcBody(bcFields(3)), `"id":"f2"`, `"id":"f0"`, 1), Rule: "duplicates an earlier field id"},
		// id: pattern ^[A-Za-z0-9_.:-]{1,40}$.
		BoundCase{Name: "field id max", Path: "body.fields[0].id", Valid: bcBody(bcOneField(bcQ(bcRep("i", l.MaxFieldID)), `"A"`, `"text"`)), Invalid: bcBody(bcOneField(bcQ(bcRep("i", l.MaxFieldID+1)), `"A"`, `"text"`)), Rule: "must be at most 40 characters"},
		BoundCase{Name: "field id characters", Path: "body.fields[0].id", Valid: bcBody(bcOneField(`"Aa0_.:-"`, `"A"`, `"text"`)), Invalid: bcBody(bcOneField(`"a b"`, `"A"`, `"text"`)), Rule: "must be 1 to 40 letters, digits"},
		BoundCase{Name: "field id non-ASCII", Path: "body.fields[0].id", Valid: bcBody(bcOneField(`"k"`, `"A"`, `"text"`)), Invalid: bcBody(bcOneField(bcQ(bengali), `"A"`, `"text"`)), Rule: "must be 1 to 40 letters, digits"},
		BoundCase{Name: "field id min", Path: "body.fields[0].id", Valid: bcBody(bcOneField(`"a"`, `"A"`, `"text"`)), Invalid: bcBody(bcOneField(`""`, `"A"`, `"text"`)), Rule: bcRuleEmpty},
		BoundCase{Name: "field id missing", Path: "body.fields[0].id", Valid: bcBody(bcOneField(`"a"`, `"A"`, `"text"`)), Invalid: bcBody(bcOneField("", `"A"`, `"text"`)), Rule: bcRuleRequired},
		BoundCase{Name: "field id number", Path: "body.fields[0].id", Valid: bcBody(bcOneField(`"1"`, `"A"`, `"text"`)), Invalid: bcBody(bcOneField("1", `"A"`, `"text"`)), Rule: bcRuleString},
		// label: required, 1 to 120.
		BoundCase{Name: "field label max", Path: "body.fields[0].label", Valid: bcBody(bcOneField(`"a"`, bcQ(bcRep(bengali, l.MaxLabel)), `"text"`)), Invalid: bcBody(bcOneField(`"a"`, bcQ(bcRep(bengali, l.MaxLabel+1)), `"text"`)), Rule: "must be at most 120 characters"},
		BoundCase{Name: "field label min", Path: "body.fields[0].label", Valid: bcBody(bcOneField(`"a"`, `"A"`, `"text"`)), Invalid: bcBody(bcOneField(`"a"`, `""`, `"text"`)), Rule: bcRuleEmpty},
		BoundCase{Name: "field label missing", Path: "body.fields[0].label", Valid: bcBody(bcOneField(`"a"`, `"A"`, `"text"`)), Invalid: bcBody(bcOneField(`"a"`, "", `"text"`)), Rule: bcRuleRequired},
		// type: required enum.
		BoundCase{Name: "field type enum", Path: "body.fields[0].type", Valid: bcBody(bcOneField(`"a"`, `"A"`, `"file"`)), Invalid: bcBody(bcOneField(`"a"`, `"A"`, `"dropdown"`)), Rule: bcRuleFieldType},
		BoundCase{Name: "field type case", Path: "body.fields[0].type", Valid: bcBody(bcOneField(`"a"`, `"A"`, `"checkbox"`)), Invalid: bcBody(bcOneField(`"a"`, `"A"`, `"Checkbox"`)), Rule: bcRuleFieldType},
		BoundCase{Name: "field type missing", Path: "body.fields[0].type", Valid: bcBody(bcOneField(`"a"`, `"A"`, `"textarea"`)), Invalid: bcBody(bcOneField(`"a"`, `"A"`, "")), Rule: bcRuleRequired},
		// required: boolean.
		BoundCase{Name: "field required boolean", Path: "body.fields[0].required", Valid: bcBody(bcOneField(`"a"`, `"A"`, `"text"`, `"required":true`)), Invalid: bcBody(bcOneField(`"a"`, `"A"`, `"text"`, `"required":"true"`)), Rule: "must be a boolean"},
		BoundCase{Name: "field required number", Path: "body.fields[0].required", Valid: bcBody(bcOneField(`"a"`, `"A"`, `"text"`, `"required":false`)), Invalid: bcBody(bcOneField(`"a"`, `"A"`, `"text"`, `"required":1`)), Rule: "must be a boolean"},
		// A file field cannot be required (file upload is not available yet).
		BoundCase{Name: "file field not required", Path: "body.fields[0].required", Valid: bcBody(bcOneField(`"doc"`, `"Document"`, `"file"`, `"required":false`)), Invalid: bcBody(bcOneField(`"doc"`, `"Document"`, `"file"`, `"required":true`)), Rule: l.RuleFileRequired},
		BoundCase{Name: "file field required among others", Path: "body.fields[1].required", Valid: bcBody(bcM("fields", bcArr(bcField(`"a"`, `"A"`, `"text"`, `"required":true`), bcField(`"b"`, `"B"`, `"file"`)))), Invalid: bcBody(bcM("fields", bcArr(bcField(`"a"`, `"A"`, `"text"`, `"required":true`), bcField(`"b"`, `"B"`, `"file"`, `"required":true`)))), Rule: l.RuleFileRequired},
		// options: at most 30 unique strings of at most 120.
		BoundCase{Name: "field options count max", Path: "body.fields[0].options", Valid: bcBody(bcOptions(bcStrings(l.MaxOptions))), Invalid: bcBody(bcOptions(bcStrings(l.MaxOptions + 1))), Rule: "must have at most 30 items"},
		BoundCase{Name: "field option length max", Path: "body.fields[0].options[1]", Valid: bcBody(bcOptions(bcArr(`"S"`, bcQ(bcRep(bengali, l.MaxOption))))), Invalid: bcBody(bcOptions(bcArr(`"S"`, bcQ(bcRep(bengali, l.MaxOption+1))))), Rule: "must be at most 120 characters"},
		BoundCase{Name: "field options unique", Path: "body.fields[0].options[3]", Valid: bcBody(bcOptions(`["S","M","L","XL"]`)), Invalid: bcBody(bcOptions(`["S","M","L","M"]`)), Rule: "duplicates an earlier option"},
		BoundCase{Name: "field options unique after unescaping", Path: "body.fields[0].options[1]", Valid: bcBody(bcOptions(`["a","b"]`)), Invalid: bcBody(bcOptions(`["a","\u0061"]`)), Rule: "duplicates an earlier option"},
		BoundCase{Name: "field options object", Path: "body.fields[0].options", Valid: bcBody(bcOptions(`["S"]`)), Invalid: bcBody(bcOptions(`{"S":true}`)), Rule: bcRuleArray},
		BoundCase{Name: "field option number", Path: "body.fields[0].options[0]", Valid: bcBody(bcOptions(`["1"]`)), Invalid: bcBody(bcOptions(`[1]`)), Rule: bcRuleString},
	)
	return cs
}
