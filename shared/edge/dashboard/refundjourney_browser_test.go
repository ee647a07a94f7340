//go:build !race

// Excluded from -race builds like the other browser tests (chromedp races on its own).

package dashboard_test

import (
	"encoding/json"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/takapay/payments/shared/local/browsertest"
	"github.com/takapay/payments/shared/local/localapi"
)

// TestBrowserRefundJourney is issue 33's "done when", on one fresh local stack with every
// function behind the local gateway: a payer pays an invoice in the sandbox checkout; the
// merchant refunds part of it through the API with the seeded sandbox key (created with an
// Idempotency-Key → reviewed → approved, due_by set → reported returned with a bKash TrxID);
// verify and the intent show refunded_minor and refundable_minor, and the invoice's record
// shows refunded_minor; each step's webhook reaches the merchant's receiver and is verified
// there with the Standard Webhooks library. The payer then asks for a refund of the rest from
// the completed checkout page (in Bangla and in English, axe-core checked, screenshots in
// .artifacts/refund-journey/); the merchant rejects it in the dashboard; the payer's page says
// so, with the merchant's reason, and the receiver gets refund.requested and refund.rejected.
func TestBrowserRefundJourney(t *testing.T) {
	if testing.Short() {
		t.Skip("browser test")
	}
	s := startStack(t, map[string]string{"ALLOW_LOCALHOST_URLS": "true"})
	a := s.api
	base := a.URL
	ws := a.Creds.WorkspaceID

	// The owner: a webhook secret and the document webhook, to the merchant's receiver.
	owner := s.sessionBrowser(t, a.Creds.SessionToken)
	sp := owner.get("/dashboard/webhook-secrets")
	issued := owner.post("/dashboard/webhook-secrets", url.Values{"csrf": {csrf(t, sp)}, "once": {once(t, sp, "/dashboard/webhook-secrets")}, "environment": {"sandbox"}})
	m := whsecRE.FindStringSubmatch(issued.body)
	if m == nil {
		t.Fatalf("issue a webhook secret: %d\n%.2000s", issued.status, issued.body)
	}
	hooks := newReceiver(t, htmlUnescape(m[1]))
	if p := owner.post("/dashboard/webhook-secrets/endpoint", url.Values{"csrf": {csrf(t, sp)}, "environment": {"sandbox"},
		"url-sandbox": {hooks.srv.URL + "/takapay"}}); p.status != 200 || !strings.Contains(p.url, "notice=endpoint") {
		t.Fatalf("set the document webhook: %d at %s\n%.2000s", p.status, p.url, p.body)
	}

	// The owner issues an invoice of ৳1,500.00 in the dashboard; the payer pays it.
	p := browsertest.NewPage(t, "en", "refund-journey/")
	p.Do(chromedp.Navigate(base+"/dashboard/sign-in"), chromedp.WaitVisible(chromedp.ID("f-email")),
		chromedp.SendKeys(chromedp.ID("f-email"), a.Creds.DashboardEmail), chromedp.SendKeys(chromedp.ID("f-password"), a.Creds.DashboardPassword),
		chromedp.Click(chromedp.ID("sign-in-submit")), chromedp.WaitVisible(chromedp.ID("home-workspace")))
	p.Do(chromedp.Navigate(base+"/dashboard/invoices/new"), chromedp.WaitVisible(chromedp.ID("doc-form")),
		chromedp.SendKeys(chromedp.ID("f-reference"), "INV-REFUND-1"),
		chromedp.SendKeys(chromedp.ID("f-item-0-title"), "Jamdani saree"), chromedp.SetValue(chromedp.ID("f-item-0-quantity"), "1"),
		chromedp.SendKeys(chromedp.ID("f-item-0-unit_amount"), "1500"),
		chromedp.Click(chromedp.ID("save-document")), chromedp.WaitVisible(chromedp.ID("issue")))
	invID := pathID(t, p.Location(), "invoices")
	p.Do(chromedp.Click(chromedp.ID("issue")), chromedp.WaitVisible(chromedp.ID("notice")), chromedp.WaitVisible(chromedp.ID("cancel")))
	p.Do(chromedp.Click(chromedp.ID("open-public-link")), chromedp.WaitVisible(chromedp.ID("continue")))
	p.Do(chromedp.Click(chromedp.ID("continue")), chromedp.WaitVisible(chromedp.ID("route-bkash")))
	pay := p.Text("#invoice")
	payInCheckout(p)
	checkoutURL := strings.SplitN(p.Location(), "?", 2)[0]
	settle(t, a)

	// The merchant refunds ৳400.00 through the API: each step's answer, then its webhook.
	key := a.Creds.SandboxKey
	refunds := "/v1/workspaces/" + ws + "/refunds"
	body := `{"payment_id": "` + pay + `", "amount_minor": 40000, "reason": "goods_returned", "note": "<b>one saree</b> came back"}`
	created := a.Do(t, "POST", refunds+"?environment=sandbox", key, body, "Idempotency-Key", "journey-refund-1")
	if created.Status != 201 {
		t.Fatalf("create: %d %s", created.Status, created.Body)
	}
	rf := refundOf(t, created)
	if rf.Status != "REQUESTED" || rf.AmountMinor != 40000 || rf.Note != "<b>one saree</b> came back" {
		t.Fatalf("created %+v", rf)
	}
	if again := a.Do(t, "POST", refunds+"?environment=sandbox", key, body, "Idempotency-Key", "journey-refund-1"); again.Status != 201 || refundOf(t, again).ID != rf.ID {
		t.Fatalf("a replay: %d %s", again.Status, again.Body)
	}
	step := func(action, body, want string) refundJSON {
		t.Helper()
		res := a.Do(t, "POST", refunds+"/"+rf.ID+"/"+action+"?environment=sandbox", key, body)
		if res.Status != 200 {
			t.Fatalf("%s: %d %s", action, res.Status, res.Body)
		}
		r := refundOf(t, res)
		if r.Status != want {
			t.Fatalf("%s: status %s, want %s", action, r.Status, want)
		}
		return r
	}
	step("review", `{}`, "IN_REVIEW")
	approvedAt := time.Now()
	approved := step("approve", `{"note": "saree inspected"}`, "APPROVED")
	if approved.DueBy == nil || approved.DueBy.Sub(approvedAt) < 71*time.Hour || approved.DueBy.Sub(approvedAt) > 73*time.Hour {
		t.Fatalf("due_by %v, want 3 days after the approval at %s", approved.DueBy, approvedAt)
	}
	returned := step("report-returned", `{"provider_reference": "BKA9X7Q2ZP"}`, "RETURNED")
	if returned.ProviderReference != "BKA9X7Q2ZP" || returned.ReturnedAt == nil || len(returned.History) != 4 {
		t.Fatalf("returned %+v", returned)
	}
	a.DrainWebhooks(t)
	for _, typ := range []string{"refund.requested", "refund.in_review", "refund.approved", "refund.returned"} {
		hooks.wantEvent(t, typ, rf.ID)
	}

	// The payment and the invoice show the refund.
	v := a.Do(t, "POST", "/v1/payment/verify", key, `{"invoice_id": "`+pay+`"}`)
	if got := figures(t, v.Body); v.Status != 200 || got != [2]int64{40000, 110000} {
		t.Fatalf("verify: %d refunded and refundable %v: %s", v.Status, got, v.Body)
	}
	in := a.Do(t, "GET", "/v1/payment-intents/"+pay+"?environment=sandbox", key, "")
	if got := figures(t, in.Body); in.Status != 200 || got != [2]int64{40000, 110000} {
		t.Fatalf("the intent: %d refunded and refundable %v: %s", in.Status, got, in.Body)
	}
	doc := a.Do(t, "GET", "/v1/workspaces/"+ws+"/documents/invoices/"+invID+"?environment=sandbox", key, "")
	var record struct { // a document's GET answers its record with its history and deliveries
		Items []struct {
			ID            string `json:"id"`
			RefundedMinor int64  `json:"refunded_minor"`
		} `json:"items"`
	}
	if err := json.Unmarshal(doc.Body, &record); err != nil || doc.Status != 200 || len(record.Items) != 1 ||
		record.Items[0].ID != invID || record.Items[0].RefundedMinor != 40000 {
		t.Fatalf("the invoice's record: %d %s", doc.Status, doc.Body)
	}

	// The payer asks for the rest from the completed checkout page, in Bangla and in English.
	for _, l := range []string{"bn", "en"} {
		p.Do(chromedp.Navigate(browsertest.WithLang(checkoutURL, l)), chromedp.WaitVisible(chromedp.ID("refund-form")))
		p.Check("payer-form-" + l)
	}
	p.Do(chromedp.SetValue(chromedp.ID("refund-reason"), "not_delivered"),
		chromedp.SendKeys(chromedp.ID("refund-note"), "The blouse piece never came"),
		chromedp.SendKeys(chromedp.ID("refund-contact"), "01812-345678"),
		chromedp.Click(chromedp.ID("refund-submit")), chromedp.WaitVisible(chromedp.ID("refund-status")))
	wantText(t, p, "#refund-status", "৳1,100.00")
	for _, l := range []string{"bn", "en"} {
		p.Do(chromedp.Navigate(browsertest.WithLang(checkoutURL, l)), chromedp.WaitVisible(chromedp.ID("refund-status")))
		p.Check("payer-requested-" + l)
	}
	list := a.Do(t, "GET", refunds+"?environment=sandbox&status=REQUESTED&payment_id="+pay, key, "")
	var page struct {
		Items []refundJSON `json:"items"`
	}
	if err := json.Unmarshal(list.Body, &page); err != nil || list.Status != 200 || len(page.Items) != 1 ||
		page.Items[0].RequestedBy != "payer" || page.Items[0].AmountMinor != 110000 || page.Items[0].PayerContact != "01812345678" {
		t.Fatalf("the payer's request in the list: %d %s", list.Status, list.Body)
	}
	asked := page.Items[0].ID

	// The merchant rejects it in the dashboard.
	p.Do(chromedp.Navigate(base+"/dashboard/refunds/"+asked), chromedp.WaitVisible(chromedp.ID("refund-reject-form")),
		chromedp.SendKeys(chromedp.ID("f-reject-reason"), "The blouse piece was in the parcel, signed for on 3 December"),
		chromedp.Click(chromedp.ID("refund-reject")), chromedp.WaitVisible(chromedp.ID("notice"))) // the page after the post: the refund's page has its history before it too
	if !strings.Contains(p.Location(), "notice=reject") {
		t.Fatalf("the reject went to %s", p.Location())
	}
	p.Check("merchant-rejected-en")
	if got := refundOf(t, a.Do(t, "GET", refunds+"/"+asked+"?environment=sandbox", key, "")); got.Status != "REJECTED" {
		t.Fatalf("after the dashboard's reject: %+v", got)
	}

	// The payer's page says so; the receiver has the payer's request and its rejection.
	for _, l := range []string{"bn", "en"} {
		p.Do(chromedp.Navigate(browsertest.WithLang(checkoutURL, l)), chromedp.WaitVisible(chromedp.ID("refund-rejection")))
		wantText(t, p, "#refund-rejection", "signed for on 3 December")
		p.Check("payer-rejected-" + l)
	}
	wantText(t, p, "#refund-status", "rejected your request")
	a.DrainWebhooks(t)
	hooks.wantEvent(t, "refund.requested", asked)
	hooks.wantEvent(t, "refund.rejected", asked)
	hooks.wantVerified(t, pay)
}

// refundJSON is the part of a refund the journey reads.
type refundJSON struct {
	ID                string     `json:"id"`
	Status            string     `json:"status"`
	AmountMinor       int64      `json:"amount_minor"`
	Note              string     `json:"note"`
	RequestedBy       string     `json:"requested_by"`
	PayerContact      string     `json:"payer_contact"`
	DueBy             *time.Time `json:"due_by"`
	ProviderReference string     `json:"provider_reference"`
	ReturnedAt        *time.Time `json:"returned_at"`
	History           []struct {
		Status string `json:"status"`
		By     string `json:"by"`
	} `json:"history"`
}

func refundOf(t *testing.T, res *localapi.Result) refundJSON {
	t.Helper()
	var r refundJSON
	if err := json.Unmarshal(res.Body, &r); err != nil || r.ID == "" {
		t.Fatalf("not a refund: %d %s", res.Status, res.Body)
	}
	return r
}

// figures are a JSON object's refunded_minor and refundable_minor.
func figures(t *testing.T, body []byte) [2]int64 {
	t.Helper()
	var f struct {
		Refunded   int64 `json:"refunded_minor"`
		Refundable int64 `json:"refundable_minor"`
	}
	if err := json.Unmarshal(body, &f); err != nil {
		t.Fatalf("%v: %s", err, body)
	}
	return [2]int64{f.Refunded, f.Refundable}
}

// wantEvent fails the test unless the receiver verified an event of type typ about id.
func (rc *receiver) wantEvent(t *testing.T, typ, id string) {
	t.Helper()
	for _, r := range rc.requests() {
		var ev struct {
			Type string `json:"type"`
			Data struct {
				ID string `json:"id"`
			} `json:"data"`
		}
		if r.verifyErr == nil && json.Unmarshal(r.body, &ev) == nil && ev.Type == typ && ev.Data.ID == id {
			return
		}
	}
	t.Errorf("the receiver verified no %s about %s (%d requests)", typ, id, len(rc.requests()))
}
