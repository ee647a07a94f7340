package dashboard

import (
	"encoding/json"
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/takapay/payments/shared/document"
	"github.com/takapay/payments/shared/foundation/apierr"
	"github.com/takapay/payments/shared/foundation/page"
	"github.com/takapay/payments/shared/foundation/urlcheck"
)

// filledForm is a form with every field typed.
func filledForm(k docKind) *docForm {
	v := map[string]string{
		"reference": "INV-9", "name": "Rahim", "email": "rahim@example.com", "phone": "01712345678",
		"description": "Groceries", "notes": "Thanks", "private_notes": "VIP", "customer_id": "0b7e6f2c-3c1d-4f5e-9a8b-7c6d5e4f3a2b",
		"return_url": "https://shop.com.bd/thanks", "image_url": "https://shop.com.bd/a.png", "tags": "a, b ,,c",
		"amount": "", "tax": "১০", "fee": "1.5", "shipping": "60", "discount": "0.25",
		"max_quantity": "3", "max_uses": "১,০০০", "due_at": "2026-12-31T18:00", "expires_at": "২০২৭-০১-০১ ০০:০০",
		"item-0-title": "Rice", "item-0-quantity": "2", "item-0-unit_amount": "1,250.50",
		"item-2-title": "Oil", "item-2-unit_amount": "৳৫০০",
		"field-1-id": "size", "field-1-label": "Size", "field-1-type": "select", "field-1-required": "on", "field-1-options": "S\nM\n\n L ",
	}
	if k.kind == document.PaymentLinks {
		v["amount"] = "650"
	}
	return &docForm{k: k, f: &form{values: v}, items: 3, fields: 2}
}

// Every member of the API's document body (but expected_version, the edit's control member)
// is one the form writes: when the API gains a member, this fails until the form has it.
func TestDocFormWritesEveryBodyMember(t *testing.T) {
	var members []string
	bt := reflect.TypeOf(document.Body{})
	for i := 0; i < bt.NumField(); i++ {
		name, _, _ := strings.Cut(bt.Field(i).Tag.Get("json"), ",")
		if name != "expected_version" {
			members = append(members, name)
		}
	}
	sort.Strings(members)
	for _, k := range []docKind{invoicePages, linkPages} {
		df := filledForm(k)
		b := df.build(page.EN)
		if b.localFail {
			t.Fatalf("%s: the form's own errors: %v", k.kind, df.f.errs)
		}
		var got []string
		for m := range b.members {
			got = append(got, m)
		}
		sort.Strings(got)
		if strings.Join(got, ",") != strings.Join(members, ",") {
			t.Errorf("%s: the form writes %v, the API's body has %v", k.kind, got, members)
		}
		// The patch names every member (the cleared one as null), with the version.
		var patch map[string]any
		if err := json.Unmarshal(b.json(true, 7), &patch); err != nil || len(patch) != len(members)+1 || patch["expected_version"] != 7.0 {
			t.Errorf("%s: patch %v", k.kind, patch)
		}
		// The create's body is one the API accepts, with the amounts in exact paisa.
		body, vs := document.ParseRequestBody(b.json(false, 0), "body", urlcheck.Policy{})
		if len(vs) > 0 {
			t.Fatalf("%s: %v", k.kind, vs)
		}
		if *body.TaxMinor != 1000 || *body.FeeMinor != 150 || *body.ShippingMinor != 6000 || *body.DiscountMinor != 25 ||
			*body.MaxUses != 1000 || *body.MaxQuantity != 3 || *body.DueAt != "2026-12-31T18:00:00+06:00" || *body.ExpiresAt != "2027-01-01T00:00:00+06:00" ||
			strings.Join(body.Tags, "|") != "a|b|c" || len(body.Items) != 2 || body.Items[1] != (document.LineItem{Title: "Oil", Quantity: 1, UnitAmountMinor: 50000}) ||
			len(body.Fields) != 1 || strings.Join(body.Fields[0].Options, "|") != "S|M|L" {
			t.Errorf("%s: body %s", k.kind, body.Canonical())
		}
		// Violations of the second item and the only field land on their rows (2 and 1).
		df.showViolations(page.EN, b, apierr.Invalid(
			apierr.Violation{Path: "body.items[1].unit_amount_minor", Rule: "x"},
			apierr.Violation{Path: "body.fields[0].options[1]", Rule: "duplicates an earlier option"},
			apierr.Violation{Path: "body.tags[2]", Rule: "x"},
			apierr.Violation{Path: "body.discount_minor", Rule: "x"},
			apierr.Violation{Path: "body.items", Rule: "discount_minor exceeds the rest of the invoice"},
			apierr.Violation{Path: "body", Rule: "must be a JSON object"},
		))
		for _, name := range []string{"item-2-unit_amount", "field-1-options", "tags", "discount", "items", "reference"} {
			if df.f.err(name) == "" {
				t.Errorf("%s: no error at %s: %v", k.kind, name, df.f.errs)
			}
		}
		if !strings.HasPrefix(df.f.err("item-2-unit_amount"), "Item 3: unit price (taka): ") {
			t.Errorf("item error: %q", df.f.err("item-2-unit_amount"))
		}
	}
}

// A date the form shows unchanged is sent back exactly as stored (not rewritten to Dhaka time).
func TestDocFormKeepsStoredDates(t *testing.T) {
	df := &docForm{k: linkPages, f: &form{values: map[string]string{
		"reference": "L", "expires_at": dhakaLocal("2027-01-01T00:00:30.5Z"), "expires_at_raw": "2027-01-01T00:00:30.5Z",
		"due_at": "2027-01-02T10:00", "due_at_raw": "2027-01-01T00:00:00Z",
	}}}
	b := df.build(page.EN)
	if b.members["expires_at"] != "2027-01-01T00:00:30.5Z" || b.members["due_at"] != "2027-01-02T10:00:00+06:00" {
		t.Errorf("dates: %v %v", b.members["expires_at"], b.members["due_at"])
	}
	// A day typed in the date input (or by hand, in Bangla digits) is the end of that day in
	// Dhaka: the last day to pay.
	for _, day := range []string{"2027-01-02", "২০২৭-০১-০২"} {
		df.f = &form{values: map[string]string{"reference": "L", "due_at": day, "expires_at": day}}
		if b := df.build(page.BN); b.members["due_at"] != "2027-01-02T23:59:59+06:00" || b.members["expires_at"] != "2027-01-02T23:59:59+06:00" {
			t.Errorf("%q: %v %v %v", day, b.members["due_at"], b.members["expires_at"], df.f.errs)
		}
	}
	if got := dhakaLocal("2026-12-31T18:00:00Z"); got != "2027-01-01" {
		t.Errorf("the date input shows %q, want the Dhaka day 2027-01-01", got)
	}
	for _, bad := range []string{"tomorrow", "2027-02-30T10:00", "31/12/2026", "2027-02-30"} {
		df.f = &form{values: map[string]string{"reference": "L", "due_at": bad}}
		if b := df.build(page.BN); !b.localFail || !strings.Contains(df.f.err("due_at"), "তারিখ") {
			t.Errorf("%q: %v", bad, df.f.errs)
		}
	}
}
