package publicdoc

import (
	"testing"
	"time"

	"github.com/takapay/payments/shared/document"
	"github.com/takapay/payments/shared/foundation/apierr"
	"github.com/takapay/payments/shared/payerrefund"
	"github.com/takapay/payments/shared/refund"
)

// refundGoldenCases are a paid invoice's refund states: the form, a refused form (its values
// kept, HTML escaped), the request requested and rejected (the merchant's reason escaped).
func refundGoldenCases() []goldenCase {
	paid := func(sec *payerrefund.Section) func(t *testing.T) Page {
		return func(t *testing.T) Page {
			p := invoicePage(t, document.StatusIssued, invoiceTotal)
			p.Sandbox, p.Refund = true, sec
			return p
		}
	}
	at := time.Date(2026, 11, 29, 9, 30, 0, 0, time.UTC)
	req := func(st refund.Status, why string) *refund.Refund {
		return &refund.Refund{ID: "0193a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b", AmountMinor: invoiceTotal, Currency: "BDT", Status: st,
			Reason: refund.ReasonGoodsReturned, Note: "<i>box opened</i>", RequestedBy: refund.ByPayer, RejectionReason: why,
			CreatedAt: at, UpdatedAt: at}
	}
	return []goldenCase{
		{"paid-invoice-refund-form", paid(&payerrefund.Section{Refundable: invoiceTotal})},
		{"paid-invoice-refund-refused-kept", paid(&payerrefund.Section{Refundable: invoiceTotal,
			Form:       payerrefund.Form{Reason: "duplicate", Note: `<script>alert(1)</script>`, Contact: "x@"},
			Violations: []apierr.Violation{{Path: "body.contact"}}})},
		{"paid-invoice-refund-requested", paid(&payerrefund.Section{Request: req(refund.Requested, "")})},
		{"paid-invoice-refund-rejected", paid(&payerrefund.Section{Refundable: invoiceTotal,
			Request: req(refund.Rejected, `Not returned yet <b>"really"</b>`)})},
	}
}
