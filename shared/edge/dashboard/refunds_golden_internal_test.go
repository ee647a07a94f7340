package dashboard

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/takapay/payments/shared/auth"
	"github.com/takapay/payments/shared/foundation/money"
	"github.com/takapay/payments/shared/foundation/page"
	"github.com/takapay/payments/shared/foundation/page/pagetest"
	"github.com/takapay/payments/shared/foundation/web"
	"github.com/takapay/payments/shared/payment"
	"github.com/takapay/payments/shared/refund"
)

var refundGolden = pagetest.Golden{Dir: filepath.Join("testdata", "golden", "refunds")}

func init() { UseMessages(RefundsMessages()) }

// goldenRefund is a refund of payID at moneyAt minus ago, asked for by u-2 (a teammate).
func goldenRefund(id string, st refund.Status, amount int64, ago time.Duration) *refund.Refund {
	at := moneyAt.Add(-ago)
	rf := &refund.Refund{ID: id, WorkspaceID: "ws-1", Environment: auth.Sandbox, PaymentID: payID, AmountMinor: money.Paisa(amount),
		Currency: "BDT", Status: st, Reason: refund.ReasonNotDelivered, RequestedBy: refund.ByMerchant, Version: 1,
		CreatedAt: at, UpdatedAt: at, History: []refund.Entry{{Status: refund.Requested, At: at, By: "u-2", Note: "<b>parcel</b> lost"}}}
	rf.Note = "<script>alert(1)</script> parcel lost"
	if st != refund.Requested {
		rf.History = append(rf.History, refund.Entry{Status: st, At: at.Add(time.Hour), By: "u-1"})
		rf.Version = 2
	}
	if st == refund.Approved {
		due := at.Add(72 * time.Hour)
		rf.DueBy = &due
	}
	return rf
}

// refundPages renders every refund golden case in both languages.
func refundPages(t *testing.T) map[string]string {
	t.Helper()
	ps := &Payments{Service: &Service{Now: func() time.Time { return moneyAt }}}
	pages := map[string]string{}
	overdue := goldenRefund("0196f000-0000-7000-8000-000000000001", refund.Approved, 50000, 100*time.Hour)
	requested := goldenRefund("0196f000-0000-7000-8000-000000000002", refund.Requested, 150050, time.Hour)
	returned := goldenRefund("0196f000-0000-7000-8000-000000000003", refund.Returned, 2500, 2*time.Hour)
	at := moneyAt.Add(-time.Hour)
	returned.ProviderReference, returned.ReturnedAt = "BKA9X7Y6Z5", &at
	for _, l := range []page.Lang{page.EN, page.BN} {
		add := func(name string, res *web.Response) { pages[name+"-"+string(l)] = mainOfPage(t, res) }
		view := func() *refundView {
			return &refundView{ledger: refund.Ledger{PaymentID: payID, Status: payment.Completed, Paid: 150050, Promised: 52500, Returned: 2500},
				refunds: []*refund.Refund{returned, overdue}, idem: "0196f000-0000-7000-8000-0000000000aa", now: moneyAt,
				f: &form{values: map[string]string{"amount": "975.50", "reason": "requested_by_customer"}}}
		}
		add("payment-refunds-developer", ps.detailPage(moneyReq(l, auth.RoleDeveloper, "/dashboard/payments/"+payID, map[string]string{"notice": "refund_created"}), 200, paidIntent(), view()))
		add("payment-refunds-viewer", ps.detailPage(moneyReq(l, auth.RoleViewer, "/dashboard/payments/"+payID, nil), 200, paidIntent(), view()))
		bad := view()
		bad.f = &form{values: map[string]string{"amount": "12.345", "reason": "whim", "note": "x"}}
		bad.f.fail("amount", t2(string(l), "dash.refund.err.amount"))
		bad.f.fail("reason", t2(string(l), "dash.refund.err.reason"))
		add("payment-refunds-invalid", ps.detailPage(moneyReq(l, auth.RoleDeveloper, "/dashboard/payments/"+payID, nil), 422, paidIntent(), bad))
		full := view()
		full.ledger.Promised = full.ledger.Paid
		add("payment-refunds-nothing-left", ps.detailPage(moneyReq(l, auth.RoleAdmin, "/dashboard/payments/"+payID, nil), 200, paidIntent(), full))

		q := &refundQueue{overdue: []*refund.Refund{overdue}, page: []*refund.Refund{requested, returned}, next: requested.ID,
			policy: refund.Policy{TwoPersonMinor: 100000}, filter: &form{values: map[string]string{}},
			pf: &form{values: map[string]string{"two_person": "1000.00"}}, now: moneyAt}
		add("refunds-queue-admin", ps.refundsPage(moneyReq(l, auth.RoleAdmin, "/dashboard/refunds", map[string]string{"notice": "policy"}), 200, q, ""))
		empty := &refundQueue{filter: &form{values: map[string]string{"status": "REJECTED"}}, pf: &form{values: map[string]string{}}, now: moneyAt}
		add("refunds-empty-viewer", ps.refundsPage(moneyReq(l, auth.RoleViewer, "/dashboard/refunds", map[string]string{"status": "REJECTED"}), 200, empty, ""))
		badPolicy := &refundQueue{filter: &form{values: map[string]string{}}, pf: &form{values: map[string]string{"two_person": "-5"}}, now: moneyAt}
		badPolicy.pf.fail("two_person", t2(string(l), "dash.refund.policy.err"))
		add("refunds-policy-invalid", ps.refundsPage(moneyReq(l, auth.RoleOwner, "/dashboard/refunds", nil), 422, badPolicy, ""))

		emails := map[string]string{"u-2": "developer@shop.example.com.bd"}
		detail := func(rf *refund.Refund) *refundDetail {
			return &refundDetail{rf: rf, emails: emails, now: moneyAt}
		}
		add("refund-admin", ps.refundPage(moneyReq(l, auth.RoleAdmin, "/dashboard/refunds/"+requested.ID, nil), 200, detail(requested)))
		add("refund-developer", ps.refundPage(moneyReq(l, auth.RoleDeveloper, "/dashboard/refunds/"+requested.ID, nil), 200, detail(requested)))
		add("refund-viewer-overdue", ps.refundPage(moneyReq(l, auth.RoleViewer, "/dashboard/refunds/"+overdue.ID, nil), 200, detail(overdue)))
		add("refund-returned", ps.refundPage(moneyReq(l, auth.RoleOwner, "/dashboard/refunds/"+returned.ID, map[string]string{"notice": "report-returned"}), 200, detail(returned)))
		two := detail(requested)
		two.policy = refund.Policy{TwoPersonMinor: 100000}
		r := moneyReq(l, auth.RoleAdmin, "/dashboard/refunds/"+requested.ID, nil)
		r.viewer.user.UserID = "u-2" // the admin who asked for it
		add("refund-two-person", ps.refundPage(r, 200, two))
		rej := detail(requested)
		rej.action, rej.f = refund.Reject, &form{values: map[string]string{"reason": ""}}
		rej.f.fail("reason", t2(string(l), "dash.refund.err.rejection"))
		add("refund-reject-invalid", ps.refundPage(moneyReq(l, auth.RoleAdmin, "/dashboard/refunds/"+requested.ID, nil), 422, rej))
		stale := detail(overdue)
		stale.action, stale.f, stale.problem = refund.ReportReturned, &form{values: map[string]string{"provider_reference": "TRX1"}}, t2(string(l), "dash.refund.err.version")
		add("refund-stale", ps.refundPage(moneyReq(l, auth.RoleAdmin, "/dashboard/refunds/"+overdue.ID, nil), 409, stale))
	}
	return pages
}

func TestGoldenRefunds(t *testing.T) {
	pages := refundPages(t)
	refundGolden.CheckAll(t, pages)
	// The note is text: its markup is escaped, never markup.
	for name, p := range pages {
		if strings.Contains(p, "<script>") || strings.Contains(p, "<b>parcel") {
			t.Errorf("%s: a refund's note is written as markup", name)
		}
	}
	// Who sees which forms: a viewer none, a developer create and cancel, an admin all.
	for _, l := range []string{"en", "bn"} {
		has := func(page, s string) bool { return strings.Contains(pages[page+"-"+l], s) }
		if has("payment-refunds-viewer", `id="refund-form"`) || !has("payment-refunds-developer", `id="refund-form"`) {
			t.Errorf("%s: the Refund form is shown to the wrong roles", l)
		}
		if has("refund-viewer-overdue", "<form") {
			t.Errorf("%s: a viewer sees an action form", l)
		}
		if !has("refund-developer", `id="refund-cancel-form"`) || has("refund-developer", `id="refund-approve-form"`) || has("refund-developer", `id="refund-review-form"`) {
			t.Errorf("%s: a developer's actions are not cancel only", l)
		}
		for _, a := range []string{"review", "approve", "reject", "cancel"} {
			if !has("refund-admin", `id="refund-`+a+`-form"`) {
				t.Errorf("%s: an admin has no %s form on a requested refund", l, a)
			}
		}
		if has("refund-admin", `id="refund-report-returned-form"`) || has("refund-returned", "<form method") {
			t.Errorf("%s: an action the transition table does not allow from the status is offered", l)
		}
		if !has("refund-two-person", `id="two-person"`) || has("refund-two-person", `id="refund-approve-form"`) {
			t.Errorf("%s: the two-person rule does not replace the asker's approve form", l)
		}
		if !has("refund-viewer-overdue", `data-status="OVERDUE"`) || !has("refunds-queue-admin", `data-status="OVERDUE"`) {
			t.Errorf("%s: an overdue refund is not marked overdue", l)
		}
		if !has("refund-stale", `name="expected_version" value="2"`) {
			t.Errorf("%s: the action forms do not carry the refund's version", l)
		}
	}
}
