package dynamo

import (
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/takapay/payments/shared/auth"
	"github.com/takapay/payments/shared/document"
	"github.com/takapay/payments/shared/payment"
)

// The payment's refund figures are computed where the item is decoded (refund.Ledger), and a
// payment's own writes never carry the ledger back: only refunds.go writes it.
func TestPaymentRefundFigures(t *testing.T) {
	s := &Store{}
	now := time.Now().UTC()
	p := &payment.Payment{InvoiceID: "7d3f1c2a-5b6e-4f80-9a1b-2c3d4e5f6a7b", WorkspaceID: "ws", Environment: auth.Sandbox,
		AmountMinor: 1000, Currency: "BDT", Reference: "r", CreatedAt: now, UpdatedAt: now, ExpiresAt: now,
		Refunded: 300, Refundable: 200}
	for _, c := range []struct {
		status               payment.Status
		refunded, refundable int64
	}{{payment.Completed, 300, 600}, {payment.Failed, 0, 0}, {payment.Pending, 0, 0}} {
		p.Status = c.status
		item, err := marshalItem(s.toPaymentItem(p))
		if err != nil {
			t.Fatal(err)
		}
		for _, attr := range []string{attrPromised, attrReturned, attrClaims, attrCounted} {
			if _, ok := item[attr]; ok {
				t.Fatalf("a payment's own write carries %s", attr)
			}
		}
		if c.status == payment.Completed {
			item[attrPromised] = num(400)
			item[attrReturned] = num(300)
		}
		got, err := decodePayment(item)
		if err != nil {
			t.Fatal(err)
		}
		if int64(got.Refunded) != c.refunded || int64(got.Refundable) != c.refundable {
			t.Errorf("%s: refunded %d refundable %d, want %d and %d", c.status, got.Refunded, got.Refundable, c.refunded, c.refundable)
		}
	}
}

// A document's refunded_minor is the sum of its refunds map, and a document's own writes never
// carry the map.
func TestDocumentRefundedMinor(t *testing.T) {
	now := time.Now().UTC()
	rec := &document.Record{ID: "d", WorkspaceID: "ws", Environment: auth.Sandbox, Kind: document.PaymentLinks,
		Reference: "l", Status: document.StatusActive, Version: 1, Body: []byte(`{}`), CreatedAt: now, UpdatedAt: now,
		RefundedMinor: 99}
	item, err := marshalItem(toDocumentItem(rec))
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := item[attrDocRefunds]; ok {
		t.Fatal("a document's own write carries its refunds")
	}
	if got, err := decodeDocument(item); err != nil || got.RefundedMinor != 0 {
		t.Fatalf("no refunds: %v %d", err, got.RefundedMinor)
	}
	item[attrDocRefunds] = &types.AttributeValueMemberM{Value: map[string]types.AttributeValue{"a": num(300), "b": num(200)}}
	if got, err := decodeDocument(item); err != nil || got.RefundedMinor != 500 {
		t.Fatalf("refunds 300 + 200: %v %d", err, got.RefundedMinor)
	}
}
