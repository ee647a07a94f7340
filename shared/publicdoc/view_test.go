package publicdoc

import (
	"encoding/json"
	"errors"
	"reflect"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/takapay/payments/shared/auth"
	"github.com/takapay/payments/shared/document"
	"github.com/takapay/payments/shared/foundation/apierr"
)

// testNow is the clock of the tests: 1 March 2026, 10:00 in Dhaka.
var testNow = time.Date(2026, 3, 1, 4, 0, 0, 0, time.UTC)

// invoiceBody uses every member a document body may carry, private ones included; its name
// is whom the invoice is for, which the page shows (the JSON view does not).
const invoiceBody = `{
  "reference": "INV-2026-001",
  "name": "Rahim Uddin",
  "email": "private.payer@example.com.bd",
  "phone": "+880 1711-999888",
  "notes": "PRIVATE-NOTES call the customer",
  "private_notes": "PRIVATE-PRIVATE-NOTES margin 40%",
  "description": "Books for the spring term\nDelivered to Dhanmondi",
  "tags": ["PRIVATE-TAG"],
  "customer_id": "0b7e6f2c-3c1d-4f5e-9a8b-7c6d5e4f3a2b",
  "items": [
    {"title": "Physics textbook", "quantity": 2, "unit_amount_minor": 75000},
    {"title": "Notebook", "quantity": 10, "unit_amount_minor": 5000}
  ],
  "tax_minor": 11250,
  "fee_minor": 1000,
  "shipping_minor": 6000,
  "discount_minor": 5000,
  "due_at": "2026-03-15T18:00:00+06:00",
  "return_url": "https://shop.example.com.bd/PRIVATE-RETURN",
  "fields": [
    {"id": "student", "label": "Student name", "type": "text", "required": true},
    {"id": "class", "label": "Class", "type": "select", "options": ["Six", "Seven"]}
  ]
}`

// linkBody is a payment link's body: a unit price, a quantity limit, an expiry and every
// field type.
const linkBody = `{
  "reference": "TSHIRT-2026",
  "private_notes": "PRIVATE-PRIVATE-NOTES supplier Chattogram",
  "notes": "PRIVATE-NOTES",
  "email": "private.link@example.com",
  "description": "Club T-shirt, 100% cotton",
  "amount_minor": 85000,
  "max_quantity": 5,
  "max_uses": 100,
  "expires_at": "2026-04-01T00:00:00+06:00",
  "image_url": "https://cdn.example.com/PRIVATE-IMAGE.png",
  "fields": [
    {"id": "size", "label": "Size", "type": "select", "required": true, "options": ["S", "M", "L"]},
    {"id": "colour", "label": "Colour", "type": "radio", "options": ["Green", "Red"]},
    {"id": "print_name", "label": "Name to print", "type": "text"},
    {"id": "note", "label": "Delivery note", "type": "textarea"},
    {"id": "terms", "label": "I accept the club's terms", "type": "checkbox", "required": true},
    {"id": "news", "label": "Send me club news", "type": "checkbox"},
    {"id": "photo", "label": "Photo for the back", "type": "file"}
  ]
}`

// record returns a stored record of kind and status with body, its amount derived as package
// document derives it.
func record(t *testing.T, kind document.Kind, status, body string, paid int64) *document.Record {
	t.Helper()
	b, vs := document.ParseBody([]byte(body), "body")
	if len(vs) > 0 {
		t.Fatalf("body: %v", vs)
	}
	rec := &document.Record{
		ID: "0190f3a2-8d4e-7c1b-9a2f-3e4d5c6b7a80", WorkspaceID: "ws-PRIVATE", Environment: auth.Sandbox,
		Kind: kind, Reference: b.Reference, Status: status, Version: 3, Body: b.Canonical(),
		PaidMinor: paid, PublicToken: "PRIVATE-TOKEN", CustomerID: b.CustomerID,
	}
	switch {
	case kind == document.Invoices && len(b.Items) > 0:
		total, rule := b.ComputeInvoiceAmount()
		if rule != "" {
			t.Fatal(rule)
		}
		rec.AmountMinor = &total
	default:
		rec.AmountMinor = b.AmountMinor
	}
	return rec
}

func mustView(t *testing.T, rec *document.Record, now time.Time) *View {
	t.Helper()
	v, err := ViewOf(rec, "Dhaka Books", now)
	if err != nil {
		t.Fatalf("ViewOf: %v", err)
	}
	return v
}

// The invoice's total: 2×750 + 10×50 + 112.50 + 10 + 60 − 50 taka.
const invoiceTotal = 2*75000 + 10*5000 + 11250 + 1000 + 6000 - 5000

func TestViewOfInvoice(t *testing.T) {
	v := mustView(t, record(t, document.Invoices, document.StatusIssued, invoiceBody, 50000), testNow)
	due := "2026-03-15T18:00:00+06:00"
	want := &View{
		Kind: document.Invoices, Reference: "INV-2026-001", MerchantName: "Dhaka Books", Environment: auth.Sandbox,
		Description: "Books for the spring term\nDelivered to Dhanmondi",
		Items:       []document.LineItem{{Title: "Physics textbook", Quantity: 2, UnitAmountMinor: 75000}, {Title: "Notebook", Quantity: 10, UnitAmountMinor: 5000}},
		AmountMinor: invoiceTotal, TaxMinor: 11250, FeeMinor: 1000, ShippingMinor: 6000, DiscountMinor: 5000,
		TotalMinor: invoiceTotal, PaidMinor: 50000, OutstandingMinor: invoiceTotal - 50000,
		AmountDisplay: "৳1,632.50", DueAt: &due, MaxQuantity: 1, CustomerName: "Rahim Uddin",
		Fields: []Field{
			{ID: "student", Label: "Student name", Type: "text", Required: true},
			{ID: "class", Label: "Class", Type: "select", Options: []string{"Six", "Seven"}},
		},
		State: StatePayable,
	}
	if !reflect.DeepEqual(v, want) {
		got, _ := json.Marshal(v)
		exp, _ := json.Marshal(want)
		t.Errorf("ViewOf =\n%s\nwant\n%s", got, exp)
	}
}

func TestViewOfStates(t *testing.T) {
	noAmountInvoice := `{"reference":"INV-EMPTY","description":"To be priced"}`
	amountInvoice := `{"reference":"INV-FLAT","amount_minor":150000}`
	linkNoExpiry := `{"reference":"DONATE","amount_minor":10000}`
	linkNoAmount := `{"reference":"FREE","description":"No price yet"}`
	tests := []struct {
		name        string
		kind        document.Kind
		status      string
		body        string
		paid        int64
		now         time.Time
		state       string
		outstanding int64
		display     string
		maxQ        int64
	}{
		{"issued invoice, nothing paid", document.Invoices, document.StatusIssued, invoiceBody, 0, testNow, StatePayable, invoiceTotal, "৳2,132.50", 1},
		{"issued invoice, partly paid", document.Invoices, document.StatusIssued, invoiceBody, 100, testNow, StatePayable, invoiceTotal - 100, "৳2,131.50", 1},
		{"issued invoice, paid in full", document.Invoices, document.StatusIssued, invoiceBody, invoiceTotal, testNow, StatePaid, 0, "৳0.00", 1},
		{"issued invoice, overpaid", document.Invoices, document.StatusIssued, invoiceBody, invoiceTotal + 1, testNow, StatePaid, 0, "৳0.00", 1},
		{"issued invoice past its due date stays payable", document.Invoices, document.StatusIssued, invoiceBody, 0, testNow.AddDate(1, 0, 0), StatePayable, invoiceTotal, "৳2,132.50", 1},
		{"issued invoice with amount_minor and no items", document.Invoices, document.StatusIssued, amountInvoice, 0, testNow, StatePayable, 150000, "৳1,500.00", 1},
		{"issued invoice without an amount", document.Invoices, document.StatusIssued, noAmountInvoice, 0, testNow, StateClosed, 0, "৳0.00", 1},
		{"cancelled invoice", document.Invoices, document.StatusCancelled, invoiceBody, 0, testNow, StateClosed, invoiceTotal, "৳2,132.50", 1},
		{"cancelled, partly paid invoice", document.Invoices, document.StatusCancelled, invoiceBody, 100, testNow, StateClosed, invoiceTotal - 100, "৳2,131.50", 1},
		{"active link", document.PaymentLinks, document.StatusActive, linkBody, 0, testNow, StatePayable, 85000, "৳850.00", 5},
		{"active link with payments", document.PaymentLinks, document.StatusActive, linkBody, 850000, testNow, StatePayable, 85000, "৳850.00", 5},
		{"active link a nanosecond before expiry", document.PaymentLinks, document.StatusActive, linkBody, 0, time.Date(2026, 3, 31, 17, 59, 59, 999999999, time.UTC), StatePayable, 85000, "৳850.00", 5},
		{"active link at its expiry", document.PaymentLinks, document.StatusActive, linkBody, 0, time.Date(2026, 3, 31, 18, 0, 0, 0, time.UTC), StateClosed, 85000, "৳850.00", 5},
		{"active link after its expiry", document.PaymentLinks, document.StatusActive, linkBody, 0, testNow.AddDate(0, 2, 0), StateClosed, 85000, "৳850.00", 5},
		{"active link without expiry or max_quantity", document.PaymentLinks, document.StatusActive, linkNoExpiry, 0, testNow.AddDate(10, 0, 0), StatePayable, 10000, "৳100.00", 1},
		{"active link without an amount", document.PaymentLinks, document.StatusActive, linkNoAmount, 0, testNow, StateClosed, 0, "৳0.00", 1},
		{"archived link", document.PaymentLinks, document.StatusArchived, linkBody, 0, testNow, StateClosed, 85000, "৳850.00", 5},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v := mustView(t, record(t, tt.kind, tt.status, tt.body, tt.paid), tt.now)
			if v.State != tt.state || v.OutstandingMinor != tt.outstanding || v.AmountDisplay != tt.display || v.MaxQuantity != tt.maxQ || v.PaidMinor != tt.paid {
				t.Errorf("state %q outstanding %d display %q max_quantity %d paid %d; want %q %d %q %d %d",
					v.State, v.OutstandingMinor, v.AmountDisplay, v.MaxQuantity, v.PaidMinor, tt.state, tt.outstanding, tt.display, tt.maxQ, tt.paid)
			}
			if v.Kind != tt.kind || v.Items == nil || v.Fields == nil {
				t.Errorf("kind %q items %v fields %v", v.Kind, v.Items, v.Fields)
			}
			if tt.kind == document.PaymentLinks {
				// One unit of a link; its price is amount_minor × quantity, no adjustments.
				if v.TotalMinor != v.AmountMinor || v.OutstandingMinor != v.AmountMinor || v.DueAt != nil ||
					v.TaxMinor != 0 || v.FeeMinor != 0 || v.ShippingMinor != 0 || v.DiscountMinor != 0 {
					t.Errorf("link amounts %+v", v)
				}
			} else if v.TotalMinor != v.AmountMinor || v.ExpiresAt != nil || v.MaxQuantity != 1 {
				t.Errorf("invoice amounts %+v", v)
			}
		})
	}
}

func TestViewOfLink(t *testing.T) {
	v := mustView(t, record(t, document.PaymentLinks, document.StatusActive, linkBody, 0), testNow)
	no := false
	exp := "2026-04-01T00:00:00+06:00"
	want := &View{
		Kind: document.PaymentLinks, Reference: "TSHIRT-2026", MerchantName: "Dhaka Books", Environment: auth.Sandbox,
		Description: "Club T-shirt, 100% cotton", Items: []document.LineItem{},
		AmountMinor: 85000, TotalMinor: 85000, OutstandingMinor: 85000, AmountDisplay: "৳850.00",
		ExpiresAt: &exp, MaxQuantity: 5, State: StatePayable,
		Fields: []Field{
			{ID: "size", Label: "Size", Type: "select", Required: true, Options: []string{"S", "M", "L"}},
			{ID: "colour", Label: "Colour", Type: "radio", Options: []string{"Green", "Red"}},
			{ID: "print_name", Label: "Name to print", Type: "text"},
			{ID: "note", Label: "Delivery note", Type: "textarea"},
			{ID: "terms", Label: "I accept the club's terms", Type: "checkbox", Required: true},
			{ID: "news", Label: "Send me club news", Type: "checkbox"},
			{ID: "photo", Label: "Photo for the back", Type: "file", Available: &no},
		},
	}
	if !reflect.DeepEqual(v, want) {
		got, _ := json.Marshal(v)
		expJSON, _ := json.Marshal(want)
		t.Errorf("ViewOf =\n%s\nwant\n%s", got, expJSON)
	}
	// Options belong to select and radio fields only.
	withTextOptions := `{"reference":"X","amount_minor":1,"fields":[{"id":"a","label":"A","type":"text","options":["x"]}]}`
	if f := mustView(t, record(t, document.PaymentLinks, document.StatusActive, withTextOptions, 0), testNow).Fields[0]; f.Options != nil {
		t.Errorf("text field options %v", f.Options)
	}
}

func TestViewOfNotPublic(t *testing.T) {
	for name, rec := range map[string]*document.Record{
		"draft invoice":      record(t, document.Invoices, document.StatusDraft, invoiceBody, 0),
		"draft payment link": record(t, document.PaymentLinks, document.StatusDraft, linkBody, 0),
		"customer":           record(t, document.Customers, document.StatusActive, `{"reference":"CUST-1","name":"Rahim"}`, 0),
		"unknown kind":       {Kind: "receipts", Status: document.StatusActive, Body: []byte(`{"reference":"r"}`)},
	} {
		t.Run(name, func(t *testing.T) {
			v, err := ViewOf(rec, "Dhaka Books", testNow)
			if !errors.Is(err, ErrNotPublic) || v != nil {
				t.Errorf("ViewOf = %v, %v; want ErrNotPublic", v, err)
			}
		})
	}
}

// A stored record that is not consistent is an internal error: not ErrNotPublic, not an
// apierr (which the edge would send as a 4xx).
func TestViewOfInconsistentRecord(t *testing.T) {
	bad := func(mod func(*document.Record)) *document.Record {
		rec := record(t, document.PaymentLinks, document.StatusActive, linkBody, 0)
		mod(rec)
		return rec
	}
	for name, rec := range map[string]*document.Record{
		"nil":           nil,
		"invalid body":  bad(func(r *document.Record) { r.Body = []byte(`{"reference":""}`) }),
		"body not JSON": bad(func(r *document.Record) { r.Body = []byte(`{`) }),
		"file field required": bad(func(r *document.Record) {
			r.Body = []byte(`{"reference":"r","amount_minor":1,"fields":[{"id":"f","label":"F","type":"file","required":true}]}`)
		}),
		"negative paid_minor": bad(func(r *document.Record) { r.PaidMinor = -1 }),
		"unknown link status": bad(func(r *document.Record) { r.Status = document.StatusIssued }),
		"unknown invoice status": func() *document.Record {
			r := record(t, document.Invoices, document.StatusIssued, invoiceBody, 0)
			r.Status = document.StatusActive
			return r
		}(),
	} {
		t.Run(name, func(t *testing.T) {
			v, err := ViewOf(rec, "Dhaka Books", testNow)
			var ae *apierr.Error
			if err == nil || v != nil || errors.Is(err, ErrNotPublic) || errors.As(err, &ae) {
				t.Errorf("ViewOf = %v, %v; want an internal error", v, err)
			}
		})
	}
}

// The JSON has exactly the public members, never null for items and fields, and nothing of
// the body's private members, the record's internals or the customer's contact.
func TestViewJSONIsPublic(t *testing.T) {
	for name, rec := range map[string]*document.Record{
		"invoice":           record(t, document.Invoices, document.StatusIssued, invoiceBody, 0),
		"link":              record(t, document.PaymentLinks, document.StatusActive, linkBody, 0),
		"bare link":         record(t, document.PaymentLinks, document.StatusArchived, `{"reference":"B","amount_minor":5}`, 0),
		"cancelled invoice": record(t, document.Invoices, document.StatusCancelled, invoiceBody, 0),
	} {
		t.Run(name, func(t *testing.T) {
			raw, err := json.Marshal(mustView(t, rec, testNow))
			if err != nil {
				t.Fatal(err)
			}
			var members map[string]json.RawMessage
			if err := json.Unmarshal(raw, &members); err != nil {
				t.Fatal(err)
			}
			var names []string
			for n := range members {
				names = append(names, n)
			}
			sort.Strings(names)
			want := []string{"amount_display", "amount_minor", "description", "discount_minor", "due_at", "environment",
				"expires_at", "fee_minor", "fields", "items", "kind", "max_quantity", "merchant_name", "outstanding_minor",
				"paid_minor", "reference", "shipping_minor", "state", "tax_minor", "total_minor"}
			if !slices.Equal(names, want) {
				t.Errorf("members %v, want %v", names, want)
			}
			if string(members["items"]) == "null" || string(members["fields"]) == "null" {
				t.Errorf("null items or fields: %s", raw)
			}
			for _, private := range []string{"PRIVATE", "private", "notes", "Rahim", "example.com", "+880", "1711",
				"customer", "0b7e6f2c", "tags", "ws-", "workspace", "0190f3a2", "version", "return_url", "image_url",
				"max_uses", "public_token", "email", "phone", `"name"`} {
				if strings.Contains(string(raw), private) {
					t.Errorf("JSON holds %q: %s", private, raw)
				}
			}
		})
	}
	// A file field says it cannot be answered; the others do not carry "available".
	raw, _ := json.Marshal(mustView(t, record(t, document.PaymentLinks, document.StatusActive, linkBody, 0), testNow).Fields)
	if strings.Count(string(raw), `"available"`) != 1 ||
		!strings.Contains(string(raw), `{"id":"photo","label":"Photo for the back","type":"file","required":false,"available":false}`) ||
		!strings.Contains(string(raw), `{"id":"size","label":"Size","type":"select","required":true,"options":["S","M","L"]}`) ||
		!strings.Contains(string(raw), `{"id":"print_name","label":"Name to print","type":"text","required":false}`) {
		t.Errorf("fields JSON %s", raw)
	}
}
