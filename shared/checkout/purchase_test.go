package checkout

import (
	"context"
	"encoding/json"
	"reflect"
	"testing"

	"github.com/takapay/payments/shared/document"
	"github.com/takapay/payments/shared/payment"
)

// purchaseStore is a Store that keeps a link payment's answers (PurchaseReader).
type purchaseStore struct {
	fakeStore
	answers json.RawMessage
	fields  []document.CustomField
}

func (s *purchaseStore) PurchaseAnswers(context.Context, *payment.Payment) (json.RawMessage, []document.CustomField, error) {
	return s.answers, s.fields, nil
}

var _ PurchaseReader = (*purchaseStore)(nil)

// A payment link's purchase is its quantity × the unit price and the options the payer
// chose, in the link's order and with its labels; a standalone payment or an invoice's has
// none, and a Store that keeps no answers still gives the quantity and price.
func TestPurchase(t *testing.T) {
	fields := []document.CustomField{
		{ID: "note", Label: "Note", Type: "textarea"},
		{ID: "size", Label: "Size", Type: "select"},
		{ID: "wrap", Label: "Gift wrap", Type: "checkbox"},
		{ID: "news", Label: "News", Type: "checkbox"},
		{ID: "print", Label: "Name to print", Type: "text"},
		{ID: "colour", Label: "Colour", Type: "radio"},
	}
	answers := json.RawMessage(`{"fields":{"news":false,"note":"ring twice","print":"Rahima","size":"L","wrap":true,"gone":"x"},"quantity":3}`)
	link := &payment.Payment{AmountMinor: 450000, Source: payment.Source{Kind: payment.SourcePaymentLinks, DocumentID: "d", Quantity: 3}}
	s := &Service{Store: &purchaseStore{answers: answers, fields: fields}}
	got, err := s.Purchase(context.Background(), link)
	want := &Purchase{Quantity: 3, UnitMinor: 150000, Options: []Option{
		{Label: "Size", Value: "L"}, {Label: "Gift wrap", Checked: true}, {Label: "Name to print", Value: "Rahima"}}}
	if err != nil || !reflect.DeepEqual(got, want) {
		t.Errorf("Purchase = %+v %v, want %+v", got, err, want)
	}
	if got, _ := (&Service{Store: &fakeStore{}}).Purchase(context.Background(), link); got == nil || got.Quantity != 3 || got.Options != nil {
		t.Errorf("without PurchaseReader: %+v", got)
	}
	for _, p := range []*payment.Payment{{AmountMinor: 100}, {AmountMinor: 100, Source: payment.Source{Kind: payment.SourceInvoice, Quantity: 1}}} {
		if got, err := s.Purchase(context.Background(), p); got != nil || err != nil {
			t.Errorf("%v: purchase %+v %v", p.Source, got, err)
		}
	}
	if got := OptionsOf(json.RawMessage(`not json`), fields); got != nil {
		t.Errorf("unreadable answers: %v", got)
	}
}
