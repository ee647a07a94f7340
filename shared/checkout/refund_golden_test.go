package checkout

import (
	"strings"
	"time"

	"github.com/takapay/payments/shared/foundation/apierr"
	"github.com/takapay/payments/shared/foundation/money"
	"github.com/takapay/payments/shared/payerrefund"
	"github.com/takapay/payments/shared/refund"
)

// payerRequest is a payer's refund request in status.
func payerRequest(status refund.Status) *refund.Refund {
	at := time.Date(2026, 11, 29, 9, 30, 0, 0, time.UTC)
	r := &refund.Refund{ID: "0193a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b", PaymentID: "8e60c1d2-4b7a-4f0e-9a51-2c3d4e5f6a7b",
		AmountMinor: 150000, Currency: "BDT", Status: status, Reason: refund.ReasonNotDelivered,
		Note: "<b>never came</b>", RequestedBy: refund.ByPayer, CreatedAt: at, UpdatedAt: at.Add(26 * time.Hour)}
	switch status {
	case refund.Rejected:
		r.RejectionReason = `Delivered on the 3rd; signed by "Rahim" <script>alert(1)</script>`
	case refund.Returned:
		back := at.Add(50 * time.Hour)
		r.ReturnedAt = &back
	}
	return r
}

// refundGoldenCases are a COMPLETED checkout's refund states: the form, a refused form (its
// values kept, HTML in them escaped), a whole-form refusal, and each status a request shows.
func refundGoldenCases() []goldenCase {
	completed := func(sec *payerrefund.Section) func() View {
		return func() View {
			v := terminalView("COMPLETED", "")
			v.Refund = sec
			return v
		}
	}
	cases := []goldenCase{
		{"completed-refund-form", completed(&payerrefund.Section{Refundable: 150000}), nil},
		{"completed-refund-refused-kept", completed(&payerrefund.Section{Refundable: 150000,
			Form:       payerrefund.Form{Reason: "", Note: strings.Repeat("ন", 250) + `</textarea><script>alert(1)</script>`, Contact: `"><b>0171</b>`},
			Violations: []apierr.Violation{{Path: "body.reason"}, {Path: "body.note"}, {Path: "body.contact"}}}), nil},
		{"completed-refund-kept-reason", completed(&payerrefund.Section{Refundable: 150000,
			Form:       payerrefund.Form{Reason: "goods_returned", Note: "ok", Contact: "0171"},
			Violations: []apierr.Violation{{Path: "body.contact"}}}), nil},
		{"completed-refund-nothing-left", completed(&payerrefund.Section{Refusal: payerrefund.RefusalNothing}), nil},
		{"completed-refund-rate-limited", completed(&payerrefund.Section{Refundable: 150000, Refusal: payerrefund.RefusalRateLimited,
			Form: payerrefund.Form{Reason: "other", Contact: "a@b.com"}}), nil},
		{"completed-refund-none-refundable", completed(&payerrefund.Section{}), nil},
	}
	for _, st := range []refund.Status{refund.Requested, refund.InReview, refund.Approved, refund.Returned, refund.Rejected, refund.Cancelled} {
		refundable := money.Paisa(0)
		if st == refund.Rejected || st == refund.Cancelled {
			refundable = 150000
		}
		cases = append(cases, goldenCase{name: "completed-refund-" + strings.ToLower(string(st)),
			page: completed(&payerrefund.Section{Request: payerRequest(st), Refundable: refundable})})
	}
	return cases
}
