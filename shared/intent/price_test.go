package intent

import (
	"errors"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/takapay/payments/shared/document"
	"github.com/takapay/payments/shared/foundation/apierr"
	"github.com/takapay/payments/shared/foundation/money"
)

func i64(v int64) *int64   { return &v }
func str(s string) *string { return &s }

// record builds a stored document as package document would: the canonical body, and
// amount_minor derived by the documents' own rule.
func record(t *testing.T, kind document.Kind, status string, body document.Body) *document.Record {
	t.Helper()
	if body.Reference == "" {
		body.Reference = "INV-1"
	}
	raw := body.Canonical()
	if _, vs := document.ParseBody(raw, "body"); len(vs) > 0 {
		t.Fatalf("test body is invalid: %v", vs)
	}
	rec := &document.Record{ID: "0190a8d2-0000-7000-8000-000000000001", Kind: kind, Status: status, Version: 7,
		Reference: body.Reference, Body: raw}
	switch {
	case kind == document.Invoices && len(body.Items) > 0:
		total, rule := body.ComputeInvoiceAmount()
		if rule == "" {
			rec.AmountMinor = &total
		}
	default:
		rec.AmountMinor = body.AmountMinor
	}
	return rec
}

func wantCode(t *testing.T, err error, code apierr.Code, contains ...string) *apierr.Error {
	t.Helper()
	var e *apierr.Error
	if !errors.As(err, &e) || e.Code != code {
		t.Fatalf("error %v, want %s", err, code)
	}
	for _, c := range contains {
		if !strings.Contains(e.Message, c) {
			t.Errorf("message %q does not contain %q", e.Message, c)
		}
	}
	return e
}

// wantInternal: an inconsistent stored document is the server's fault: no client error code.
func wantInternal(t *testing.T, err error) {
	t.Helper()
	var e *apierr.Error
	if err == nil || errors.As(err, &e) {
		t.Fatalf("error %v, want an internal (non-apierr) error", err)
	}
	if apierr.As(err).Status() != 500 {
		t.Fatalf("status %d, want 500", apierr.As(err).Status())
	}
}

func wantQuantity422(t *testing.T, err error) {
	t.Helper()
	e := wantCode(t, err, apierr.ValidationFailed)
	if e.Status() != 422 || len(e.Violations) != 1 || e.Violations[0].Path != QuantityPath {
		t.Fatalf("violations %v, want one at %s", e.Violations, QuantityPath)
	}
}

func TestLimitsAgree(t *testing.T) {
	if int64(MaxAmountMinor) != document.MaxMinor || MaxAmountMinor != money.MaxPaisa {
		t.Fatalf("MaxAmountMinor %d, document.MaxMinor %d, money.MaxPaisa %d", MaxAmountMinor, int64(document.MaxMinor), money.MaxPaisa)
	}
	if Invoices != SourceKind(document.Invoices) || PaymentLinks != SourceKind(document.PaymentLinks) {
		t.Fatal("source kinds are not the document kinds")
	}
}

func invoiceBody() document.Body {
	return document.Body{
		Reference: "INV-42",
		Items: []document.LineItem{
			{Title: "Saree", Quantity: 2, UnitAmountMinor: 150000},
			{Title: "Wrapping", Quantity: 1, UnitAmountMinor: 2000},
		},
		TaxMinor: i64(15000), FeeMinor: i64(1000), ShippingMinor: i64(6000), DiscountMinor: i64(10000),
	}
}

func TestPriceInvoiceFromItems(t *testing.T) {
	rec := record(t, document.Invoices, document.StatusIssued, invoiceBody())
	p, err := PriceInvoice(rec)
	if err != nil {
		t.Fatal(err)
	}
	// 2×150000 + 1×2000 + 15000 tax + 1000 fee + 6000 shipping − 10000 discount.
	const total = 300000 + 2000 + 15000 + 1000 + 6000 - 10000
	if p.AmountMinor != total || p.Reference != "INV-42" {
		t.Fatalf("price %+v, want %d", p, total)
	}
	if p.Source != (Source{Kind: Invoices, DocumentID: rec.ID, DocumentVersion: 7}) {
		t.Errorf("source %+v", p.Source)
	}
	s := p.Snapshot
	if s.DocumentID != rec.ID || s.Kind != document.Invoices || s.Version != 7 || s.Reference != "INV-42" ||
		len(s.Items) != 2 || s.Items[0] != invoiceBody().Items[0] || s.TaxMinor != 15000 || s.FeeMinor != 1000 ||
		s.ShippingMinor != 6000 || s.DiscountMinor != 10000 || s.TotalMinor != total || s.PaidMinor != 0 || s.Quantity != 1 {
		t.Errorf("snapshot %+v", s)
	}
	// The snapshot is a copy: changing the record's body later cannot reach it.
	rec.Body = []byte(`{"reference":"changed"}`)
	if p.Snapshot.Items[0].Title != "Saree" {
		t.Error("snapshot shares the record's items")
	}
}

func TestPriceInvoiceOutstanding(t *testing.T) {
	rec := record(t, document.Invoices, document.StatusIssued, invoiceBody())
	total := *rec.AmountMinor
	for _, paid := range []int64{1, 100000, total - 1} {
		rec.PaidMinor = paid
		p, err := PriceInvoice(rec)
		if err != nil {
			t.Fatalf("paid %d: %v", paid, err)
		}
		if int64(p.AmountMinor) != total-paid || p.Snapshot.PaidMinor != paid || p.Snapshot.TotalMinor != total {
			t.Errorf("paid %d: amount %d, snapshot %+v", paid, p.AmountMinor, p.Snapshot)
		}
	}
	for _, paid := range []int64{total, total + 1} {
		rec.PaidMinor = paid
		_, err := PriceInvoice(rec)
		wantCode(t, err, apierr.StateConflict, "has been paid", "nothing is outstanding")
	}
	rec.PaidMinor = -1
	_, err := PriceInvoice(rec)
	wantInternal(t, err)
}

func TestPriceInvoiceWithoutItems(t *testing.T) {
	rec := record(t, document.Invoices, document.StatusIssued, document.Body{Reference: "INV-7", AmountMinor: i64(5000)})
	p, err := PriceInvoice(rec)
	if err != nil {
		t.Fatal(err)
	}
	if p.AmountMinor != 5000 || p.Snapshot.TotalMinor != 5000 || len(p.Snapshot.Items) != 0 || p.Snapshot.Items == nil {
		t.Errorf("price %+v", p)
	}
	// Neither items nor amount: an issued invoice with nothing to pay.
	rec = record(t, document.Invoices, document.StatusIssued, document.Body{Reference: "INV-8"})
	_, err = PriceInvoice(rec)
	wantCode(t, err, apierr.StateConflict, "without an amount")
}

func TestPriceInvoiceStates(t *testing.T) {
	for _, status := range []string{document.StatusDraft, document.StatusCancelled, document.StatusArchived, document.StatusActive} {
		rec := record(t, document.Invoices, status, invoiceBody())
		_, err := PriceInvoice(rec)
		e := wantCode(t, err, apierr.StateConflict, "cannot pay a "+status+" invoice")
		if e.Status() != 409 {
			t.Errorf("%s: status %d", status, e.Status())
		}
	}
}

func TestPriceWrongKind(t *testing.T) {
	for _, kind := range []document.Kind{document.PaymentLinks, document.Customers} {
		rec := record(t, kind, document.StatusIssued, document.Body{Reference: "X", AmountMinor: i64(100)})
		_, err := PriceInvoice(rec)
		e := wantCode(t, err, apierr.ValidationFailed, "an invoice")
		if e.Violations[0].Path != "body.document_id" {
			t.Errorf("path %s", e.Violations[0].Path)
		}
	}
	for _, kind := range []document.Kind{document.Invoices, document.Customers} {
		rec := record(t, kind, document.StatusActive, document.Body{Reference: "X", AmountMinor: i64(100)})
		_, err := PriceLink(rec, nil, time.Now())
		e := wantCode(t, err, apierr.ValidationFailed, "a payment link")
		if e.Violations[0].Path != "body.document_id" {
			t.Errorf("path %s", e.Violations[0].Path)
		}
	}
}

func TestPriceInvoiceInconsistentRecord(t *testing.T) {
	rec := record(t, document.Invoices, document.StatusIssued, invoiceBody())
	rec.AmountMinor = i64(*rec.AmountMinor + 1)
	_, err := PriceInvoice(rec)
	wantInternal(t, err)
	rec.AmountMinor = nil
	_, err = PriceInvoice(rec)
	wantInternal(t, err)
	rec = record(t, document.Invoices, document.StatusIssued, invoiceBody())
	rec.Body = []byte(`{"reference": 5}`)
	_, err = PriceInvoice(rec)
	wantInternal(t, err)
}

func TestPriceInvoiceBounds(t *testing.T) {
	// The largest total: exactly the limit.
	b := document.Body{Reference: "BIG", Items: []document.LineItem{{Title: "x", Quantity: 1, UnitAmountMinor: document.MaxMinor}}}
	p, err := PriceInvoice(record(t, document.Invoices, document.StatusIssued, b))
	if err != nil || p.AmountMinor != MaxAmountMinor {
		t.Fatalf("%v %v", p, err)
	}
	// Items at every bound (100 × 9999 × 10^11, about 10^17): no overflow, and such an invoice
	// was never stored (ComputeInvoiceAmount refuses it), so it is an inconsistency, not a price.
	items := make([]document.LineItem, document.MaxItems)
	for i := range items {
		items[i] = document.LineItem{Title: "x", Quantity: document.MaxQuantity, UnitAmountMinor: document.MaxMinor}
	}
	b = document.Body{Reference: "HUGE", Items: items, TaxMinor: i64(document.MaxMinor), FeeMinor: i64(document.MaxMinor), ShippingMinor: i64(document.MaxMinor)}
	rec := record(t, document.Invoices, document.StatusIssued, b)
	rec.AmountMinor = i64(1)
	_, err = PriceInvoice(rec)
	wantInternal(t, err)
	// A discount above the rest: likewise.
	b = document.Body{Reference: "NEG", Items: []document.LineItem{{Title: "x", Quantity: 1, UnitAmountMinor: 100}}, DiscountMinor: i64(101)}
	rec = record(t, document.Invoices, document.StatusIssued, b)
	rec.AmountMinor = i64(1)
	_, err = PriceInvoice(rec)
	wantInternal(t, err)
}

func linkBody(unit int64, maxQ *int64, expires *string) document.Body {
	return document.Body{Reference: "LINK-1", AmountMinor: &unit, MaxQuantity: maxQ, ExpiresAt: expires}
}

func TestPriceLink(t *testing.T) {
	now := time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)
	rec := record(t, document.PaymentLinks, document.StatusActive, linkBody(25000, i64(5), nil))
	for _, c := range []struct {
		q    *int64
		want int64
		qty  int64
	}{{nil, 25000, 1}, {i64(1), 25000, 1}, {i64(3), 75000, 3}, {i64(5), 125000, 5}} {
		p, err := PriceLink(rec, c.q, now)
		if err != nil {
			t.Fatal(err)
		}
		if int64(p.AmountMinor) != c.want || p.Reference != "LINK-1" ||
			p.Source != (Source{Kind: PaymentLinks, DocumentID: rec.ID, DocumentVersion: 7, Quantity: c.qty}) {
			t.Errorf("quantity %v: %+v", c.q, p)
		}
		s := p.Snapshot
		if s.Kind != document.PaymentLinks || s.UnitAmountMinor != 25000 || s.Quantity != c.qty || s.TotalMinor != c.want ||
			s.PaidMinor != 0 || s.Version != 7 || s.DocumentID != rec.ID {
			t.Errorf("quantity %v: snapshot %+v", c.q, s)
		}
	}
	for _, q := range []int64{0, -1, 6, math.MaxInt64, math.MinInt64} {
		_, err := PriceLink(rec, &q, now)
		wantQuantity422(t, err)
	}
	// Without max_quantity only 1 is allowed.
	rec = record(t, document.PaymentLinks, document.StatusActive, linkBody(25000, nil, nil))
	if p, err := PriceLink(rec, nil, now); err != nil || p.AmountMinor != 25000 {
		t.Fatalf("%v %v", p, err)
	}
	_, err := PriceLink(rec, i64(2), now)
	wantQuantity422(t, err)
}

func TestPriceLinkStates(t *testing.T) {
	now := time.Now()
	for _, status := range []string{document.StatusDraft, document.StatusArchived, document.StatusIssued, document.StatusCancelled} {
		rec := record(t, document.PaymentLinks, status, linkBody(100, nil, nil))
		_, err := PriceLink(rec, nil, now)
		wantCode(t, err, apierr.StateConflict, "cannot pay a "+status+" payment link")
	}
	rec := record(t, document.PaymentLinks, document.StatusActive, document.Body{Reference: "NOAMT"})
	_, err := PriceLink(rec, nil, now)
	wantCode(t, err, apierr.StateConflict, "without an amount_minor")
}

func TestPriceLinkExpiry(t *testing.T) {
	// 18:00 in Dhaka is 12:00 UTC.
	rec := record(t, document.PaymentLinks, document.StatusActive, linkBody(100, nil, str("2026-05-01T18:00:00+06:00")))
	at := time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)
	if _, err := PriceLink(rec, nil, at.Add(-time.Nanosecond)); err != nil {
		t.Fatalf("just before expiry: %v", err)
	}
	for _, now := range []time.Time{at, at.Add(time.Second), at.Add(365 * 24 * time.Hour)} {
		_, err := PriceLink(rec, nil, now)
		wantCode(t, err, apierr.StateConflict, "expired", "2026-05-01T12:00:00Z")
	}
}

func TestPriceLinkBounds(t *testing.T) {
	now := time.Now()
	// The largest product within the limit: 10^7 × 9999.
	rec := record(t, document.PaymentLinks, document.StatusActive, linkBody(10_000_000, i64(document.MaxQuantity), nil))
	p, err := PriceLink(rec, i64(document.MaxQuantity), now)
	if err != nil || p.AmountMinor != 99_990_000_000 {
		t.Fatalf("%v %v", p, err)
	}
	// The limit exactly, then one unit over it, and the largest product of the bounds (about
	// 10^15: no overflow, refused).
	rec = record(t, document.PaymentLinks, document.StatusActive, linkBody(document.MaxMinor/4, i64(5), nil))
	if p, err := PriceLink(rec, i64(4), now); err != nil || p.AmountMinor != MaxAmountMinor {
		t.Fatalf("at the limit: %v %v", p, err)
	}
	_, err = PriceLink(rec, i64(5), now)
	wantQuantity422(t, err)
	rec = record(t, document.PaymentLinks, document.StatusActive, linkBody(document.MaxMinor, i64(document.MaxQuantity), nil))
	if p, err := PriceLink(rec, nil, now); err != nil || p.AmountMinor != MaxAmountMinor {
		t.Fatalf("max unit × 1: %v %v", p, err)
	}
	_, err = PriceLink(rec, i64(document.MaxQuantity), now)
	e := wantCode(t, err, apierr.ValidationFailed)
	if !strings.Contains(e.Message, "100000000000 × 9999") {
		t.Errorf("message %q", e.Message)
	}
	// A stored link whose amount disagrees with its body is inconsistent.
	rec.AmountMinor = i64(1)
	_, err = PriceLink(rec, nil, now)
	wantInternal(t, err)
}
