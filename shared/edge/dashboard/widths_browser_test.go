//go:build !race

// Excluded from -race builds like the other browser tests (chromedp races on its own); make
// test's browser line runs it.

package dashboard_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/takapay/payments/shared/auth"
	"github.com/takapay/payments/shared/local/browsertest"
	"github.com/takapay/payments/shared/refund"
)

// widthPage is one dashboard page the widths test opens: a name for the failure message and
// the screenshot, and its path.
type widthPage struct{ name, path string }

// TestBrowserWidths is issue 32's "done when" for the dashboard: every page, signed out (sign
// in, sign up, the forgotten password, the check-email pages, bad links, an invitation) and signed in
// as the owner of a workspace with data in it (payments paid and pending, one of a lakh and a
// half; an issued invoice, a published and paid payment link, customers, keys, a webhook
// delivery, a pending invitation, the activity log, passkeys, the export form, the refunds
// queue and a refund's page with its action forms, the forms that create), in both languages, at 360×740, 390×844 and 1366×900: no sideways scroll
// (document.documentElement.scrollWidth <= innerWidth; a failure names the page, language,
// size and the widest element past the right edge) and 0 axe-core violations. Screenshots:
// .artifacts/widths/dashboard/<page>-<lang>-<width>.png. A new page is one line of the tables
// below. One browser; each size is emulated on the page shown, with no new window.
func TestBrowserWidths(t *testing.T) {
	if testing.Short() {
		t.Skip("browser test")
	}
	s := startPaymentsStack(t)
	a := s.api
	base := a.URL
	ws, key := a.Creds.WorkspaceID, a.Creds.SandboxKey
	seq := 0
	api := func(method, path, body string) []byte {
		t.Helper()
		seq++
		r := a.Do(t, method, path, key, body, "Idempotency-Key", fmt.Sprintf("dash-widths-%06d", seq))
		if r.Status > 201 {
			t.Fatalf("%s %s: %d %s", method, path, r.Status, r.Body)
		}
		return r.Body
	}
	docs := "/v1/workspaces/" + ws + "/documents/"
	doc := func(method, path, body string) string {
		t.Helper()
		return jsonField(t, api(method, docs+path+"?environment=sandbox", body), "id")
	}

	// The data: a customer with a long email, an issued invoice for them, a published link.
	customer := doc("POST", "customers", `{"reference": "C-2026-0042", "name": "Rahim Traders of Old Dhaka", "email": "accounts.department@rahim-traders-old-dhaka.example.com.bd", "phone": "01712345678", "tags": ["wholesale", "dhaka"]}`)
	doc("POST", "customers", `{"reference": "C-2026-0043", "name": "করিম স্টোর", "email": "karim@shop.example.com.bd"}`)
	invoice := doc("POST", "invoices", `{"reference": "INV-2026-0042", "customer_id": "`+customer+`",
		"items": [{"title": "Darjeeling tea, 500 g", "quantity": 2, "unit_amount_minor": 15000}, {"title": "Jamdani saree, hand-woven", "quantity": 1, "unit_amount_minor": 15000000}],
		"discount_minor": 2000, "due_at": "2026-12-31T18:00:00Z", "notes": "Thank you"}`)
	doc("POST", "invoices/"+invoice+"/issue", "")
	draft := doc("POST", "invoices", `{"reference": "INV-2026-0043", "amount_minor": 125050}`)
	link := doc("POST", "payment-links", `{"reference": "EID-TSHIRT", "description": "Eid t-shirt", "amount_minor": 50000,
		"max_quantity": 3, "fields": [{"id": "size", "label": "Size", "type": "select", "required": true, "options": ["S", "M", "L"]}]}`)
	doc("POST", "payment-links/"+link+"/publish", "")

	// Payments: one paid through the link with a delivered webhook, one of ৳1,50,000.00 paid
	// with Nagad, one pending.
	payLink(t, a, link, 2)
	hook := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusNoContent) }))
	t.Cleanup(hook.Close)
	paidBody := api("POST", "/v1/payment-intents", `{"amount": 150000, "reference": "order-lakh-and-a-half", "webhook_url": "`+hook.URL+`/hooks"}`)
	paid := jsonField(t, paidBody, "id")
	pu, _ := url.Parse(jsonField(t, paidBody, "payment_url"))
	if r := a.Do(t, "POST", pu.Path+"/lock", "", `{"route":"nagad","payer":"01812345678"}`); r.Status != 200 {
		t.Fatalf("lock: %d %s", r.Status, r.Body)
	}
	if r := a.Do(t, "POST", pu.Path+"/notices/approve", "", ""); r.Status != 200 {
		t.Fatalf("approve: %d %s", r.Status, r.Body)
	}
	a.DrainWebhooks(t)
	pending := jsonField(t, api("POST", "/v1/payment-intents", `{"amount": 99.99, "reference": "order-pending-with-a-rather-long-reference-0001"}`), "id")

	// Refunds of the paid payment: one requested with a long note, one approved (the rule,
	// as the dashboard's pages call it).
	refunds := &refund.Service{Store: a.Store, Policies: a.Store}
	scope := refund.Scope{WorkspaceID: ws, Environment: auth.Sandbox, By: "widths"}
	asked, err := refunds.Create(t.Context(), scope, refund.CreateInput{PaymentID: paid, AmountMinor: 1250050, Reason: refund.ReasonNotDelivered,
		RequestedBy: refund.ByMerchant, Note: "The parcel to Old Dhaka came back unopened: <b>refund-the-whole-order-and-the-delivery-charge-please</b>"})
	if err != nil {
		t.Fatal(err)
	}
	approved, err := refunds.Create(t.Context(), scope, refund.CreateInput{PaymentID: paid, AmountMinor: 50000, Reason: refund.ReasonDuplicate, RequestedBy: refund.ByMerchant})
	if err == nil {
		_, err = refunds.Transition(t.Context(), scope, approved.ID, refund.Approve, refund.TransitionInput{})
	}
	if err != nil {
		t.Fatal(err)
	}

	// A pending invitation (the team page lists it). payLink issued the sandbox webhook secret.
	owner := s.sessionBrowser(t, a.Creds.SessionToken)
	team := owner.get("/dashboard/team")
	if p := owner.post("/dashboard/team/invites", url.Values{"csrf": {csrf(t, team)}, "once": {once(t, team, "/dashboard/team/invites")},
		"email": {"new.developer@rahim-traders-old-dhaka.example.com.bd"}, "role": {"developer"}}); p.status != 200 {
		t.Fatalf("invite: %d at %s", p.status, p.url)
	}

	invite, _ := s.mailLink(t, "new.developer@rahim-traders-old-dhaka.example.com.bd", "/dashboard/invite", 0)

	signedOut := []widthPage{
		{"sign-in", "/dashboard/sign-in"},
		{"sign-in-signed-out", "/dashboard/sign-in?notice=signed-out"},
		{"sign-up", "/dashboard/sign-up"},
		{"sign-up-invited", "/dashboard/sign-up?next=" + url.QueryEscape(invite)},
		{"check-email-sign-up", "/dashboard/check-email?for=sign-up"},
		{"forgot-password", "/dashboard/forgot-password"},
		{"check-email-reset", "/dashboard/check-email?for=reset"},
		{"reset-bad-link", "/dashboard/reset-password?token=not-a-token"},
		{"verify-bad-link", "/dashboard/verify-email?token=not-a-token"},
		{"invite", invite},
	}
	signedIn := []widthPage{
		{"home", "/dashboard"},
		{"payments", "/dashboard/payments"},
		{"payments-filtered", "/dashboard/payments?status=COMPLETED"},
		{"payment-paid", "/dashboard/payments/" + paid},
		{"payment-pending", "/dashboard/payments/" + pending},
		{"payments-empty", "/dashboard/payments?status=FAILED"},
		{"payments-invalid", "/dashboard/payments?from=2026-02-31&status=PAID"},
		{"payment-not-found", "/dashboard/payments/0195f3a4-5555-7000-8000-000000000001"},
		{"invoices", "/dashboard/invoices"},
		{"invoice-issued", "/dashboard/invoices/" + invoice},
		{"invoice-draft", "/dashboard/invoices/" + draft},
		{"invoice-new", "/dashboard/invoices/new"},
		{"invoice-edit", "/dashboard/invoices/" + draft + "/edit"},
		{"payment-links", "/dashboard/payment-links"},
		{"payment-link", "/dashboard/payment-links/" + link},
		{"payment-link-new", "/dashboard/payment-links/new"},
		{"customers", "/dashboard/customers"},
		{"customer", "/dashboard/customers/" + customer},
		{"customer-new", "/dashboard/customers/new"},
		{"customer-edit", "/dashboard/customers/" + customer + "/edit"},
		{"customers-search", "/dashboard/customers?q=rahim"},
		{"keys", "/dashboard/keys"},
		{"webhooks", "/dashboard/webhooks"},
		{"webhook-secrets", "/dashboard/webhook-secrets"},
		{"team", "/dashboard/team"},
		{"activity", "/dashboard/activity"},
		{"passkeys", "/dashboard/passkeys"},
		{"export", "/dashboard/export"},
		{"refunds", "/dashboard/refunds"},
		{"refunds-filtered", "/dashboard/refunds?status=APPROVED"},
		{"refunds-empty", "/dashboard/refunds?status=REJECTED"},
		{"refund-requested", "/dashboard/refunds/" + asked.ID},
		{"refund-approved", "/dashboard/refunds/" + approved.ID},
		{"invite-signed-in", invite},
	}

	ctx := browsertest.New(t, "en")
	axeSource := browsertest.AxeSource(t)
	check := func(pages []widthPage) {
		t.Helper()
		for _, pg := range pages {
			for _, l := range []string{"bn", "en"} {
				if err := browsertest.Do(ctx, chromedp.Navigate(base+browsertest.WithLang(pg.path, l)), chromedp.WaitVisible(chromedp.ID("main"))); err != nil {
					body, _ := browsertest.Run(ctx, chromedp.Text(chromedp.CSS("body")))
					t.Fatalf("%s (%s): %v\npage: %.1000s", pg.name, l, err, body)
				}
				browsertest.CheckWidths(t, ctx, axeSource, "widths/dashboard/"+pg.name, l)
			}
		}
	}
	check(signedOut)
	if err := browsertest.Do(ctx, chromedp.Navigate(base+"/dashboard/sign-in"), chromedp.WaitVisible(chromedp.ID("f-email")),
		chromedp.SendKeys(chromedp.ID("f-email"), a.Creds.DashboardEmail), chromedp.SendKeys(chromedp.ID("f-password"), a.Creds.DashboardPassword),
		chromedp.Click(chromedp.ID("sign-in-submit")), chromedp.WaitVisible(chromedp.ID("home-workspace"))); err != nil {
		t.Fatalf("sign in: %v", err)
	}
	check(signedIn)
	// The lakh grouping on a signed-in page: the paid payment of ৳1,50,000.00.
	if err := browsertest.Do(ctx, chromedp.Navigate(base+"/dashboard/payments/"+paid+"?lang=en"), chromedp.WaitVisible(chromedp.ID("main"))); err != nil {
		t.Fatal(err)
	}
	if body, err := browsertest.Run(ctx, chromedp.Text(chromedp.CSS("main"))); err != nil || !strings.Contains(body, "৳1,50,000.00") {
		t.Errorf("the payment of 150000 taka does not read ৳1,50,000.00 (%v): %.1500s", err, body)
	}
	t.Logf("%d pages checked in 2 languages at %v", len(signedOut)+len(signedIn), browsertest.Widths)
}
