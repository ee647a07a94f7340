package document

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/takapay/payments/shared/foundation/apierr"
)

// fullBody uses every member of a document body.
const fullBody = `{
  "reference": "INV-2026-001",
  "name": "Rahim <Traders> & Sons",
  "email": "Rahim@Example.com.bd",
  "phone": "+880 1711-000000",
  "notes": "line 1\nline 2",
  "private_notes": "call before 5pm",
  "description": "ঢাকা order",
  "tags": ["vip", "dhaka"],
  "customer_id": "0B7E6F2C-3C1D-4F5E-9A8B-7C6D5E4F3A2B",
  "items": [
    {"title": "Tea", "quantity": 2, "unit_amount_minor": 500},
    {"unit_amount_minor": 0, "title": "Gift wrap", "quantity": 1}
  ],
  "tax_minor": 100,
  "fee_minor": 10,
  "shipping_minor": 50,
  "discount_minor": 60,
  "expected_version": 3,
  "expires_at": "2026-01-31T18:00:00+06:00",
  "due_at": "2026-02-01T00:00:00Z",
  "max_quantity": 5,
  "image_url": "https://cdn.example.com/a.png?x=1&y=2",
  "return_url": "https://shop.example.com/thanks",
  "max_uses": 0,
  "fields": [
    {"id": "size", "label": "Size", "type": "select", "required": true, "options": ["S", "M"]},
    {"id": "note", "label": "Note", "type": "textarea", "required": false}
  ]
}`

func mustParseBody(t *testing.T, raw string) *Body {
	t.Helper()
	b, vs := ParseBody([]byte(raw), "body")
	if len(vs) != 0 || b == nil {
		t.Fatalf("ParseBody(%.200s): %v", raw, vs)
	}
	return b
}

func TestParseBodyFull(t *testing.T) {
	b := mustParseBody(t, fullBody)
	str := func(s string) *string { return &s }
	num := func(n int64) *int64 { return &n }
	yes, no := true, false
	want := &Body{
		Reference: "INV-2026-001", Name: str("Rahim <Traders> & Sons"), Email: str("Rahim@Example.com.bd"),
		Phone: str("+880 1711-000000"), Notes: str("line 1\nline 2"), PrivateNotes: str("call before 5pm"),
		Description: str("ঢাকা order"), Tags: []string{"vip", "dhaka"},
		CustomerID: str("0b7e6f2c-3c1d-4f5e-9a8b-7c6d5e4f3a2b"),
		Items:      []LineItem{{"Tea", 2, 500}, {"Gift wrap", 1, 0}},
		TaxMinor:   num(100), FeeMinor: num(10), ShippingMinor: num(50), DiscountMinor: num(60),
		ExpectedVersion: num(3), ExpiresAt: str("2026-01-31T18:00:00+06:00"), DueAt: str("2026-02-01T00:00:00Z"),
		MaxQuantity: num(5), ImageURL: str("https://cdn.example.com/a.png?x=1&y=2"),
		ReturnURL: str("https://shop.example.com/thanks"), MaxUses: num(0),
		Fields: []CustomField{
			{ID: "size", Label: "Size", Type: "select", Required: &yes, Options: []string{"S", "M"}},
			{ID: "note", Label: "Note", Type: "textarea", Required: &no},
		},
	}
	if !reflect.DeepEqual(b, want) {
		got, _ := json.Marshal(b)
		exp, _ := json.Marshal(want)
		t.Errorf("ParseBody =\n%s\nwant\n%s", got, exp)
	}
}

func TestCanonicalRoundTrip(t *testing.T) {
	b := mustParseBody(t, fullBody)
	canon := b.Canonical()
	if !json.Valid(canon) {
		t.Fatalf("Canonical is not JSON: %s", canon)
	}
	var compact bytes.Buffer
	if err := json.Compact(&compact, canon); err != nil || !bytes.Equal(compact.Bytes(), canon) {
		t.Errorf("Canonical is not compact: %s", canon)
	}
	if bytes.Contains(canon, []byte("expected_version")) {
		t.Errorf("Canonical keeps expected_version: %s", canon)
	}
	if b.ExpectedVersion == nil || *b.ExpectedVersion != 3 {
		t.Errorf("Canonical changed the body's ExpectedVersion: %v", b.ExpectedVersion)
	}
	if !bytes.Contains(canon, []byte(`"Rahim <Traders> & Sons"`)) || !bytes.Contains(canon, []byte(`?x=1&y=2"`)) {
		t.Errorf("Canonical escapes HTML: %s", canon)
	}
	// Through json.Unmarshal (as a stored body is read back) and ParseBody again.
	var generic map[string]any
	if err := json.Unmarshal(canon, &generic); err != nil {
		t.Fatal(err)
	}
	again := mustParseBody(t, string(canon))
	b.ExpectedVersion = nil
	if !reflect.DeepEqual(again, b) {
		t.Errorf("round trip changed the body:\n%+v\n%+v", again, b)
	}
	if got := again.Canonical(); !bytes.Equal(got, canon) {
		t.Errorf("Canonical not stable:\n%s\n%s", got, canon)
	}
	// Member order is fixed whatever the input order.
	got := string(mustParseBody(t, `{"tags":["a"],"name":"N","reference":"r","items":[{"unit_amount_minor":5,"quantity":1,"title":"t"}]}`).Canonical())
	want := `{"reference":"r","name":"N","tags":["a"],"items":[{"title":"t","quantity":1,"unit_amount_minor":5}]}`
	if got != want {
		t.Errorf("Canonical = %s, want %s", got, want)
	}
	// Only reference: nothing else is written, not even empty members.
	if got := string(mustParseBody(t, `{"reference":"r","tags":[],"name":null}`).Canonical()); got != `{"reference":"r"}` {
		t.Errorf("Canonical = %s", got)
	}
	// An empty string is kept (it is present), unlike null.
	if got := string(mustParseBody(t, `{"reference":"r","name":""}`).Canonical()); got != `{"reference":"r","name":""}` {
		t.Errorf("Canonical = %s", got)
	}
}

func TestNullIsAbsent(t *testing.T) {
	b := mustParseBody(t, `{"reference":"r","name":null,"tags":null,"items":null,"amount_minor":null,"fields":null,"customer_id":null}`)
	if !reflect.DeepEqual(b, &Body{Reference: "r"}) {
		t.Errorf("nulls were not treated as absent: %+v", b)
	}
	b = mustParseBody(t, `{"reference":"r","fields":[{"id":"a","label":"A","type":"text","required":null,"options":null}]}`)
	if f := b.Fields[0]; f.Required != nil || f.Options != nil {
		t.Errorf("nulls in a custom field were not treated as absent: %+v", f)
	}
}

func TestSearchText(t *testing.T) {
	b := mustParseBody(t, `{"reference":"INV-1","name":"Rahim ÜDDIN","email":"Rahim@Example.COM","phone":"+880 17","notes":"Not Searched"}`)
	if got, want := b.SearchText(), "inv-1\nrahim üddin\nrahim@example.com\n+880 17"; got != want {
		t.Errorf("SearchText = %q, want %q", got, want)
	}
	b = mustParseBody(t, `{"reference":"Only","name":""}`)
	if got := b.SearchText(); got != "only" {
		t.Errorf("SearchText = %q, want only", got)
	}
}

func TestComputeInvoiceAmount(t *testing.T) {
	tests := []struct {
		name  string
		body  string
		want  int64
		rule  string // substring; "" means none
		exact bool   // the total is returned even with a rule
	}{
		{"no items", `{"reference":"r","tax_minor":100}`, 0, "", true},
		{"example", `{"reference":"r","items":[{"title":"a","quantity":2,"unit_amount_minor":500}],"tax_minor":100,"shipping_minor":50,"fee_minor":10,"discount_minor":60}`, 1100, "", true},
		{"several items", `{"reference":"r","items":[{"title":"a","quantity":3,"unit_amount_minor":7},{"title":"b","quantity":1,"unit_amount_minor":4}]}`, 25, "", true},
		{"zero", `{"reference":"r","items":[{"title":"a","quantity":1,"unit_amount_minor":100}],"discount_minor":100}`, 0, "", true},
		{"negative", `{"reference":"r","items":[{"title":"a","quantity":1,"unit_amount_minor":100}],"discount_minor":101}`, -1, "discount_minor exceeds the rest of the invoice", true},
		{"at max", `{"reference":"r","items":[{"title":"a","quantity":1,"unit_amount_minor":99999999900}],"tax_minor":100}`, MaxMinor, "", true},
		{"above max", `{"reference":"r","items":[{"title":"a","quantity":1,"unit_amount_minor":100000000000}],"fee_minor":1}`, MaxMinor + 1, "must be at most 100000000000", true},
		{"discount brings it back", `{"reference":"r","items":[{"title":"a","quantity":2,"unit_amount_minor":100000000000}],"discount_minor":100000000000}`, MaxMinor, "", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, rule := mustParseBody(t, tt.body).ComputeInvoiceAmount()
			if got != tt.want {
				t.Errorf("total = %d, want %d", got, tt.want)
			}
			if (tt.rule == "") != (rule == "") || !strings.Contains(rule, tt.rule) {
				t.Errorf("rule = %q, want %q", rule, tt.rule)
			}
		})
	}

	// The largest sum the bounds allow does not overflow.
	b := &Body{Reference: "r"}
	for range MaxItems {
		b.Items = append(b.Items, LineItem{Title: "t", Quantity: MaxQuantity, UnitAmountMinor: MaxMinor})
	}
	max := int64(MaxMinor)
	b.TaxMinor, b.FeeMinor, b.ShippingMinor = &max, &max, &max
	got, rule := b.ComputeInvoiceAmount()
	if want := int64(MaxItems)*MaxQuantity*MaxMinor + 3*MaxMinor; got != want || rule == "" {
		t.Errorf("largest total = %d, %q; want %d and a rule", got, rule, want)
	}
	zero := int64(0)
	b = &Body{Reference: "r", Items: []LineItem{{"t", 1, 0}}, DiscountMinor: &max, TaxMinor: &zero}
	if got, rule := b.ComputeInvoiceAmount(); got != -MaxMinor || !strings.Contains(rule, "discount_minor") {
		t.Errorf("smallest total = %d, %q", got, rule)
	}
}

func TestParseBodyCollectsEveryViolation(t *testing.T) {
	raw := `{
	  "name": 5,
	  "email": "nope",
	  "tags": ["ok", 1, "` + strings.Repeat("x", 41) + `"],
	  "customer_id": "xyz",
	  "items": [{"title": "", "quantity": 0, "unit_amount_minor": -1, "sku": 1}, "x"],
	  "amount_minor": 0,
	  "tax_minor": 1.5,
	  "due_at": "tomorrow",
	  "image_url": "ftp://x",
	  "max_uses": 1000001,
	  "fields": [{"id": "a b", "type": "list", "required": "yes", "options": ["a", "a"]}, {"id": "a b", "label": "L", "type": "text"}],
	  "colour": "red"
	}`
	b, vs := ParseBody([]byte(raw), "body")
	if b != nil {
		t.Errorf("body returned with violations")
	}
	want := []string{
		"body.colour", "body.reference", "body.name", "body.email", "body.tags[1]", "body.tags[2]",
		"body.customer_id", "body.items[0].sku", "body.items[0].title", "body.items[0].quantity",
		"body.items[0].unit_amount_minor", "body.items[1]", "body.amount_minor", "body.tax_minor",
		"body.due_at", "body.image_url", "body.max_uses", "body.fields[0].id", "body.fields[0].label",
		"body.fields[0].type", "body.fields[0].required", "body.fields[0].options[1]", "body.fields[1].id",
	}
	var got []string
	for _, v := range vs {
		got = append(got, v.Path)
		if v.Rule == "" {
			t.Errorf("%s has no rule", v.Path)
		}
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("paths =\n%q\nwant\n%q\n(%v)", got, want, vs)
	}
	// The whole list renders as one VALIDATION_FAILED error.
	if e := apierr.Invalid(vs...); e.Code != apierr.ValidationFailed || !strings.Contains(e.Message, "and 13 more") {
		t.Errorf("Invalid = %v", e)
	}
}

func TestParseBodyShapes(t *testing.T) {
	tests := []struct {
		name, raw, path string
		want            []apierr.Violation
	}{
		{"array", `[]`, "body", []apierr.Violation{{Path: "body", Rule: "must be a JSON object"}}},
		{"null", `null`, "body", []apierr.Violation{{Path: "body", Rule: "must be a JSON object"}}},
		{"string", ` "x"`, "body", []apierr.Violation{{Path: "body", Rule: "must be a JSON object"}}},
		{"empty object", `{}`, "body", []apierr.Violation{{Path: "body.reference", Rule: "is required"}}},
		{"other path", `{"reference":"","x":1}`, "request.body", []apierr.Violation{
			{Path: "request.body.x", Rule: "is not a known field (allowed: amount_minor, customer_id, description, discount_minor, due_at, email, expected_version, expires_at, fee_minor, fields, image_url, items, max_quantity, max_uses, name, notes, phone, private_notes, reference, return_url, shipping_minor, tags, tax_minor)"},
			{Path: "request.body.reference", Rule: "must not be empty"},
		}},
		{"repeated member in a nested item", `{"reference":"r","items":[{"title":"a","title":"b","quantity":1,"unit_amount_minor":1}]}`, "body",
			[]apierr.Violation{{Path: "body.items[0].title", Rule: "appears more than once"}}},
		{"repeated odd member name", `{"reference":"r","a b":1,"a b":2}`, "body",
			[]apierr.Violation{{Path: `body["a b"]`, Rule: "appears more than once"}}},
		{"invalid UTF-8", "{\"reference\":\"\xff\"}", "body", []apierr.Violation{{Path: "body", Rule: "must be valid UTF-8"}}},
		{"items over the count are not checked one by one", `{"reference":"r","items":[` + strings.TrimSuffix(strings.Repeat(`1,`, 101), ",") + `]}`, "body",
			[]apierr.Violation{{Path: "body.items", Rule: "must have at most 100 items"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b, vs := ParseBody([]byte(tt.raw), tt.path)
			if b != nil || !reflect.DeepEqual(vs, tt.want) {
				t.Errorf("ParseBody = %v, %v; want %v", b, vs, tt.want)
			}
		})
	}
}

// A file field may be optional (absent, null or false required) but never required: the
// payer cannot upload files in this release. Other types may be required.
func TestFileFieldCannotBeRequired(t *testing.T) {
	for _, req := range []string{``, `,"required":null`, `,"required":false`} {
		mustParseBody(t, `{"reference":"r","fields":[{"id":"doc","label":"Document","type":"file"`+req+`}]}`)
	}
	for _, typ := range []string{"text", "textarea", "select", "radio", "checkbox"} {
		mustParseBody(t, `{"reference":"r","fields":[{"id":"a","label":"A","type":"`+typ+`","required":true}]}`)
	}
	raw := `{"reference":"r","fields":[
	  {"id":"a","label":"A","type":"file","required":true},
	  {"id":"b","label":"B","type":"text","required":true},
	  {"id":"c","label":"C","type":"file","required":true,"options":["x","x"]},
	  {"id":"d","label":"D","type":"File","required":true}
	]}`
	b, vs := ParseBody([]byte(raw), "body")
	want := []apierr.Violation{
		{Path: "body.fields[0].required", Rule: RuleFileRequired},
		{Path: "body.fields[2].required", Rule: RuleFileRequired},
		{Path: "body.fields[2].options[1]", Rule: "duplicates an earlier option"},
		{Path: "body.fields[3].type", Rule: "must be one of text, textarea, select, radio, checkbox, file"},
	}
	if b != nil || !reflect.DeepEqual(vs, want) {
		t.Errorf("ParseBody = %v, %v; want %v", b, vs, want)
	}
	if e := apierr.Invalid(vs...); e.Status() != 422 || !strings.Contains(e.Message, "body.fields[0].required: a file field cannot be required: file upload is not available yet") {
		t.Errorf("Invalid = %d %q", e.Status(), e.Message)
	}
}

func TestCustomerIDLowerCased(t *testing.T) {
	b := mustParseBody(t, `{"reference":"r","customer_id":"0B7E6F2C-3C1D-4F5E-9A8B-7C6D5E4F3A2B"}`)
	if b.CustomerID == nil || *b.CustomerID != "0b7e6f2c-3c1d-4f5e-9a8b-7c6d5e4f3a2b" {
		t.Errorf("CustomerID = %v", b.CustomerID)
	}
	if !bytes.Contains(b.Canonical(), []byte(`"customer_id":"0b7e6f2c-3c1d-4f5e-9a8b-7c6d5e4f3a2b"`)) {
		t.Errorf("Canonical = %s", b.Canonical())
	}
}

func TestFormatChecks(t *testing.T) {
	// The format checks on samples beyond the bound cases.
	for s, ok := range map[string]bool{"0b7e6f2c-3c1d-4f5e-9a8b-7c6d5e4f3a2b": true, "0b7e6f2c3c1d4f5e9a8b7c6d5e4f3a2b": false} {
		if got := bodyCheckUUID(s) == ""; got != ok {
			t.Errorf("uuid %q: %v", s, got)
		}
	}
	for s, ok := range map[string]bool{"http://[::1]:8080/x": true, "https://a.b/c?d=e#f": true, "http://:80/": false, "https://user@/": false, "http://a:port/": false, "https://a/\x7f": false} {
		if got := bodyCheckURL(s) == ""; got != ok {
			t.Errorf("url %q: %v", s, got)
		}
	}
	for s, ok := range map[string]bool{"2026-01-01T00:00:00.1+05:45": true, "2026-13-01T00:00:00Z": false, "2026-01-01T00:00:60Z": false, "2026-01-01T00:00:00+05:60": false, "2026-01-01 00:00:00Z": false} {
		if got := bodyCheckDateTime(s) == ""; got != ok {
			t.Errorf("date-time %q: %v", s, got)
		}
	}
}
