//go:build !race

// Excluded from -race builds like the other browser tests (chromedp races on its own).

package dashboard_test

import (
	"context"
	"encoding/csv"
	"image/png"
	"io"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/takapay/payments/shared/auth"
	"github.com/takapay/payments/shared/export"
	"github.com/takapay/payments/shared/local/browsertest"
	"github.com/takapay/payments/shared/local/localapi"
	"github.com/takapay/payments/shared/local/registry"
)

// TestBrowserMerchantJourney is the dashboard's whole day in one Chromium run, signed in as a
// developer who joined by invitation. The owner has set the workspace's document webhook to
// the merchant's receiver (which verifies every delivery with the Standard Webhooks library)
// and issued its secret on the webhook-secrets page. The developer creates an invoice with two
// items and a discount in the form, issues it, opens its public link, pays it in the sandbox
// checkout and sees it paid with its payment and delivery; creates a payment link with a
// required field, publishes it, downloads its QR code (decoded back to the link by gozxing),
// pays it twice, and finds both payments in the CSV export. A viewer then sees every page and
// every change the developer could post is refused by the server (403), not only hidden.
// Every page is checked with axe-core and photographed in both languages
// (.artifacts/dashboard/journey-*).
func TestBrowserMerchantJourney(t *testing.T) {
	if testing.Short() {
		t.Skip("browser test")
	}
	s := startStack(t, map[string]string{"ALLOW_LOCALHOST_URLS": "true"})
	a := s.api
	base := a.URL

	// The owner: a webhook secret and the document webhook, on the webhook-secrets page.
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
	const devEmail = "dev@journey.example.com.bd"
	dev := s.joinAs(t, owner, devEmail, "developer")

	p := browsertest.NewPage(t, "en", "dashboard/journey-")
	p.Do(chromedp.Navigate(base+"/dashboard/sign-in"), chromedp.WaitVisible(chromedp.ID("f-email")),
		chromedp.SendKeys(chromedp.ID("f-email"), devEmail), chromedp.SendKeys(chromedp.ID("f-password"), "a long sandbox passphrase"),
		chromedp.Click(chromedp.ID("sign-in-submit")), chromedp.WaitVisible(chromedp.ID("home-workspace")))
	p.Both("overview", base+"/dashboard")

	// 1. An invoice: 2 × ৳150.00 + ৳50.50 − ৳20.00 discount = ৳330.50.
	p.Do(chromedp.Navigate(base+"/dashboard/invoices/new"), chromedp.WaitVisible(chromedp.ID("doc-form")),
		chromedp.SendKeys(chromedp.ID("f-reference"), "INV-JOURNEY-1"),
		chromedp.SendKeys(chromedp.ID("f-item-0-title"), "Darjeeling tea, 500 g"), chromedp.SetValue(chromedp.ID("f-item-0-quantity"), "2"),
		chromedp.SendKeys(chromedp.ID("f-item-0-unit_amount"), "150"),
		chromedp.SendKeys(chromedp.ID("f-item-1-title"), "Clay cup"), chromedp.SetValue(chromedp.ID("f-item-1-quantity"), "1"),
		chromedp.SendKeys(chromedp.ID("f-item-1-unit_amount"), "50.50"),
		chromedp.SendKeys(chromedp.ID("f-discount"), "20"))
	p.Check("invoice-form-en")
	p.Do(chromedp.Click(chromedp.ID("save-document")), chromedp.WaitVisible(chromedp.ID("issue")))
	invID := pathID(t, p.Location(), "invoices")
	wantText(t, p, "#document-total", "৳330.50")
	p.Both("invoice-draft", base+"/dashboard/invoices/"+invID)
	p.Do(chromedp.Click(chromedp.ID("issue")), chromedp.WaitVisible(chromedp.ID("notice")), chromedp.WaitVisible(chromedp.ID("cancel")))
	wantText(t, p, "#document-state", "Issued")

	// The payer: the public link, the sandbox checkout.
	p.Do(chromedp.Click(chromedp.ID("open-public-link")), chromedp.WaitVisible(chromedp.ID("continue")))
	wantText(t, p, "body", "INV-JOURNEY-1", "Darjeeling tea, 500 g", "৳330.50")
	p.Do(chromedp.Click(chromedp.ID("continue")), chromedp.WaitVisible(chromedp.ID("route-bkash")))
	invIntent := p.Text("#invoice")
	payInCheckout(p)
	settle(t, a)

	// The developer sees it paid: the payment, its delivery, and the payment's own page.
	p.Both("invoice-paid", base+"/dashboard/invoices/"+invID)
	wantText(t, p, "#document-paid", "৳330.50")
	wantText(t, p, "#document-outstanding", "৳0.00")
	wantText(t, p, "#document-state", "Issued", "Paid in full")
	wantText(t, p, "#document-payments", invIntent, "Completed", "৳330.50")
	wantText(t, p, "#document-deliveries", "Delivered")
	p.Do(chromedp.Click(chromedp.CSS(`#document-payments a`)), chromedp.WaitVisible(chromedp.ID("payment-status")))
	if !strings.HasSuffix(strings.SplitN(p.Location(), "?", 2)[0], "/dashboard/payments/"+invIntent) {
		t.Fatalf("the payment's link went to %s", p.Location())
	}
	wantText(t, p, "#payment-status", "Completed")
	wantText(t, p, "#payment-amount", "৳330.50")
	wantText(t, p, "#attempts-table", "204") // the receiver's answer
	p.Both("invoice-payment", base+"/dashboard/payments/"+invIntent)
	hooks.wantVerified(t, invIntent)

	// 2. A payment link of ৳500.00 with a required field, published, its QR code decoded.
	p.Do(chromedp.Navigate(base+"/dashboard/payment-links/new"), chromedp.WaitVisible(chromedp.ID("doc-form")),
		chromedp.SendKeys(chromedp.ID("f-reference"), "EID-TSHIRT"), chromedp.SendKeys(chromedp.ID("f-amount"), "500"),
		chromedp.SendKeys(chromedp.ID("f-field-0-id"), "name_on_shirt"), chromedp.SendKeys(chromedp.ID("f-field-0-label"), "Name on the shirt"),
		chromedp.SetValue(chromedp.ID("f-field-0-type"), "text"), chromedp.Click(chromedp.ID("f-field-0-required")))
	p.Check("link-form-en")
	p.Do(chromedp.Click(chromedp.ID("save-document")), chromedp.WaitVisible(chromedp.ID("publish")))
	linkID := pathID(t, p.Location(), "payment-links")
	p.Do(chromedp.Click(chromedp.ID("publish")), chromedp.WaitVisible(chromedp.ID("notice")), chromedp.WaitVisible(chromedp.ID("qr")))
	public := p.Text("#public-link")
	qrHref, ok := p.Attr("#qr-png", "href")
	if !ok {
		t.Fatal("#qr-png has no href")
	}
	res := dev.raw(qrHref)
	img, err := png.Decode(res.Body)
	res.Body.Close()
	if err != nil || res.StatusCode != 200 || res.Header.Get("Content-Type") != "image/png" {
		t.Fatalf("qr.png: %d %s: %v", res.StatusCode, res.Header.Get("Content-Type"), err)
	}
	if got := decodeQR(t, img); got != public {
		t.Fatalf("the QR code reads %q, the page shows %q", got, public)
	}

	// Paid twice by two payers; the required field is asked for on the public page.
	var linkIntents []string
	for _, name := range []string{"Rahim", "Karim"} {
		p.Do(chromedp.Navigate(public), chromedp.WaitVisible(chromedp.ID("field-name_on_shirt")))
		if _, required := p.Attr("#field-name_on_shirt", "required"); !required {
			t.Error("the link's required field is not required on its public page")
		}
		p.Do(chromedp.SendKeys(chromedp.ID("field-name_on_shirt"), name), chromedp.Click(chromedp.ID("continue")),
			chromedp.WaitVisible(chromedp.ID("route-bkash")))
		linkIntents = append(linkIntents, p.Text("#invoice"))
		payInCheckout(p)
	}
	settle(t, a)
	p.Both("link-paid", base+"/dashboard/payment-links/"+linkID)
	wantText(t, p, "#document-paid", "৳1,000.00")
	wantText(t, p, "#document-payments", linkIntents...)
	for _, id := range linkIntents {
		hooks.wantVerified(t, id)
	}
	p.Both("payments", base+"/dashboard/payments")
	hrefs, err := browsertest.Run(p.Ctx, chromedp.Evaluate[string](
		`Array.from(document.querySelectorAll("#payments-table a")).map(a => a.getAttribute("href")).join(" ")`))
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range append([]string{invIntent}, linkIntents...) {
		if !strings.Contains(hrefs, "/dashboard/payments/"+id) {
			t.Errorf("the payments list has no link to %s: %s", id, hrefs)
		}
	}

	// 3. The export of today (Dhaka): the form, then the file it asks for.
	p.Both("export", base+"/dashboard/export")
	if action, _ := p.Attr("#export-form", "action"); action != "/dashboard/export.csv" {
		t.Fatalf("export form action %q", action)
	}
	const action = "/dashboard/export.csv"
	today := time.Now().In(export.Dhaka).Format("2006-01-02")
	rows := exportRows(t, dev, action+"?from="+today+"&to="+today)
	for _, id := range linkIntents {
		row, ok := rows[id]
		if !ok {
			t.Fatalf("the export lacks %s: %v", id, rows)
		}
		if row["source"] != "payment-links" || row["document_id"] != linkID || row["status"] != "COMPLETED" ||
			row["amount_paisa"] != "50000" || row["amount_taka"] != "500.00" || row["reference"] != "EID-TSHIRT" || row["route"] != "bkash" {
			t.Errorf("export row of %s: %v", id, row)
		}
	}
	if row := rows[invIntent]; row["document_id"] != invID || row["amount_paisa"] != "33050" {
		t.Errorf("export row of the invoice's payment %s: %v", invIntent, row)
	}

	// 4. A viewer: every page the developer used is shown; every form the developer could
	// post is refused by the server, and nothing changed.
	viewer := s.member(t, "viewer@journey.example.com.bd", auth.RoleViewer)
	pages := []string{"/dashboard", "/dashboard/payments", "/dashboard/payments/" + invIntent, "/dashboard/invoices",
		"/dashboard/invoices/" + invID, "/dashboard/payment-links", "/dashboard/payment-links/" + linkID,
		"/dashboard/customers", "/dashboard/webhooks", "/dashboard/export", qrHref,
		action + "?from=" + today + "&to=" + today}
	// The forms a viewer's pages leave out, and the ones the developer's pages show.
	forms := map[string]bool{"/dashboard/invoices": true, "/dashboard/payment-links": true, "/dashboard/customers": true,
		"/dashboard/invoices/" + invID + "/edit": true, "/dashboard/payment-links/" + linkID + "/edit": true,
		"/dashboard/invoices/" + invID + "/issue": true, "/dashboard/payment-links/" + linkID + "/publish": true,
		"/dashboard/payments/" + invIntent + "/cancel": true, "/dashboard/webhook-secrets": true, "/dashboard/webhook-secrets/endpoint": true}
	var vcsrf string
	for _, path := range pages {
		vp := viewer.get(path)
		if vp.status != 200 || strings.Contains(vp.url, "/sign-in") {
			t.Errorf("viewer GET %s: %d at %s", path, vp.status, vp.url)
		}
		if m := csrfRE.FindStringSubmatch(vp.body); m != nil {
			vcsrf = m[1]
		}
		for _, m := range actionRE.FindAllStringSubmatch(dev.get(path).body, -1) {
			if action := htmlUnescape(m[1]); action != "/dashboard/sign-out" && action != "/dashboard/sign-out-everywhere" && !strings.HasPrefix(action, "/dashboard/workspaces") {
				forms[strings.SplitN(action, "?", 2)[0]] = true
			}
		}
	}
	before := getDoc(t, a, "invoices", invID)
	if len(forms) < 14 {
		t.Fatalf("only %d forms found on the developer's pages: %v", len(forms), forms)
	}
	for action := range forms {
		form := url.Values{"csrf": {vcsrf}, "environment": {"sandbox"}, "reference": {"VIEWER"}, "amount": {"1"}, "url": {hooks.srv.URL},
			"url-sandbox": {hooks.srv.URL}, "name": {"Viewer"}}
		if vp := viewer.post(action, form); vp.status != 403 {
			t.Errorf("viewer POST %s: %d, want 403\n%.600s", action, vp.status, mainOf(vp.body))
		}
	}
	if after := getDoc(t, a, "invoices", invID); after != before {
		t.Errorf("the viewer's posts changed the invoice: %+v → %+v", before, after)
	}
	t.Logf("viewer: %d pages shown, %d forms refused", len(pages), len(forms))
}

// payInCheckout completes a sandbox checkout from its route choice: bKash, the payer's
// number, the lock, the simulated provider's approve, the completed page.
func payInCheckout(p *browsertest.Page) {
	p.Do(chromedp.Click(chromedp.ID("route-bkash")), chromedp.SendKeys(chromedp.ID("payer-bkash"), "01712345678"),
		chromedp.Click(chromedp.ID("continue")), chromedp.WaitVisible(chromedp.ID("approve")),
		chromedp.Click(chromedp.ID("approve")), chromedp.WaitVisible(chromedp.CSS(`#status[data-status="COMPLETED"] #final`)))
}

// settle runs the deployed workers as Lambda would after outcomes: the webhook sender drains
// its queue, then the re-drive's settle step tells each document of its intents' outcomes.
func settle(t *testing.T, a *localapi.TestAPI) {
	t.Helper()
	a.DrainWebhooks(t)
	if _, err := registry.WebhookRedrive(a.Deps["WebhookRedriveFunction"]).Settle(context.Background()); err != nil {
		t.Fatal(err)
	}
}

var idInPathRE = regexp.MustCompile(`/dashboard/(invoices|payment-links)/([0-9a-f-]{36})`)

// pathID is the document id in a dashboard URL of that kind.
func pathID(t *testing.T, loc, kind string) string {
	t.Helper()
	m := idInPathRE.FindStringSubmatch(loc)
	if m == nil || m[1] != kind {
		t.Fatalf("not a %s page: %s", kind, loc)
	}
	return m[2]
}

// wantText fails the test unless the element sel shows every one of wants.
func wantText(t *testing.T, p *browsertest.Page, sel string, wants ...string) {
	t.Helper()
	text := p.Text(sel)
	for _, w := range wants {
		if !strings.Contains(text, w) {
			t.Errorf("%s lacks %q: %.1500q", sel, w, text)
		}
	}
}

// exportRows downloads a CSV export and returns its rows by invoice_id, each a column → cell map.
func exportRows(t *testing.T, b *browser, path string) map[string]map[string]string {
	t.Helper()
	res := b.raw(path)
	defer res.Body.Close()
	if res.StatusCode != 200 || !strings.HasPrefix(res.Header.Get("Content-Type"), "text/csv") {
		body, _ := io.ReadAll(res.Body)
		t.Fatalf("export %s: %d %s\n%.1000s", path, res.StatusCode, res.Header.Get("Content-Type"), body)
	}
	records, err := csv.NewReader(res.Body).ReadAll()
	if len(records) > 0 && len(records[0]) > 0 {
		records[0][0] = strings.TrimPrefix(records[0][0], "\ufeff") // the BOM spreadsheets read UTF-8 by
	}
	if err != nil || len(records) == 0 || strings.Join(records[0], ",") != strings.Join(export.Header, ",") {
		t.Fatalf("export: %v %v", err, records)
	}
	rows := map[string]map[string]string{}
	for _, rec := range records[1:] {
		row := map[string]string{}
		for i, h := range export.Header {
			row[h] = rec[i]
		}
		rows[row["invoice_id"]] = row
	}
	return rows
}

// wantVerified fails the test unless the receiver verified a delivery about the payment id,
// and verified every delivery it got.
func (rc *receiver) wantVerified(t *testing.T, id string) {
	t.Helper()
	n := 0
	for _, r := range rc.requests() {
		if r.verifyErr != nil {
			t.Errorf("a delivery to %s failed verification: %v", r.path, r.verifyErr)
		} else if strings.Contains(string(r.body), id) {
			n++
		}
	}
	if n == 0 {
		t.Errorf("the receiver got no verified delivery about %s", id)
	}
}
