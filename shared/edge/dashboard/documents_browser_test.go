//go:build !race

// Excluded from -race builds like the other browser tests (chromedp races on its own); make
// test's browser line runs it.

package dashboard_test

import (
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/takapay/payments/shared/local/browsertest"
)

// TestBrowserDocumentPages shows the invoice and payment-link pages in Chromium, signed in
// as the seeded owner: each page and state checked with axe-core (WCAG 2.1 AA, 0 violations)
// and photographed in both languages, phone and desktop
// (.artifacts/dashboard/docs-<page>-<lang>-<phone|desktop>.png); issue and publish clicked.
func TestBrowserDocumentPages(t *testing.T) {
	if testing.Short() {
		t.Skip("browser test")
	}
	s := startStack(t, map[string]string{"ALLOW_LOCALHOST_URLS": "true"})
	a := s.api
	base := a.URL
	ws, key := a.Creds.WorkspaceID, a.Creds.SandboxKey
	inv := createDoc(t, a, ws, key, "invoices", `{"reference": "INV-2026-0042", "name": "Rahim Traders", "email": "rahim@example.com.bd",
		"items": [{"title": "Darjeeling tea, 500 g", "quantity": 2, "unit_amount_minor": 15000}, {"title": "Clay cup", "quantity": 1, "unit_amount_minor": 5000}],
		"discount_minor": 2000, "tax_minor": 1500, "due_at": "2026-12-31T18:00:00Z", "notes": "Thank you", "tags": ["wholesale"]}`)
	link := createDoc(t, a, ws, key, "payment-links", `{"reference": "T-SHIRT", "description": "Eid t-shirt", "amount_minor": 50000,
		"max_quantity": 3, "max_uses": 100, "fields": [{"id": "size", "label": "Size", "type": "select", "required": true, "options": ["S", "M", "L"]}]}`)

	p := browsertest.NewPage(t, "en", "dashboard/docs-")
	run, check := p.Do, p.Check
	both := func(name, path string) { t.Helper(); p.Both(name, base+path) }

	run(chromedp.Navigate(base+"/dashboard/sign-in"), chromedp.WaitVisible(chromedp.ID("f-email")),
		chromedp.SendKeys(chromedp.ID("f-email"), a.Creds.DashboardEmail), chromedp.SendKeys(chromedp.ID("f-password"), a.Creds.DashboardPassword),
		chromedp.Click(chromedp.ID("sign-in-submit")), chromedp.WaitVisible(chromedp.ID("home-workspace")))

	both("invoices", "/dashboard/invoices")
	both("invoice-draft", "/dashboard/invoices/"+inv.ID)
	// Issue by clicking; the page comes back with the notice and the cancel button.
	run(chromedp.Navigate(base+"/dashboard/invoices/"+inv.ID), chromedp.WaitVisible(chromedp.ID("issue")),
		chromedp.Click(chromedp.ID("issue")), chromedp.WaitVisible(chromedp.ID("notice")), chromedp.WaitVisible(chromedp.ID("cancel")))
	check("invoice-issued-en")
	// A stale page: the invoice is cancelled through the API behind it; its Cancel is the
	// API's version conflict, shown plainly.
	run(chromedp.Navigate(base+"/dashboard/invoices/"+inv.ID+"?lang=bn"), chromedp.WaitVisible(chromedp.ID("cancel")))
	if r := a.Do(t, "POST", "/v1/workspaces/"+ws+"/documents/invoices/"+inv.ID+"/cancel?environment=sandbox", key, ""); r.Status != 200 {
		t.Fatalf("cancel through the API: %d %s", r.Status, r.Body)
	}
	run(chromedp.Click(chromedp.ID("cancel")), chromedp.WaitVisible(chromedp.ID("transition-conflict")))
	check("invoice-conflict-bn")

	both("payment-links", "/dashboard/payment-links")
	run(chromedp.Navigate(base+"/dashboard/payment-links/"+link.ID), chromedp.WaitVisible(chromedp.ID("publish")),
		chromedp.Click(chromedp.ID("publish")), chromedp.WaitVisible(chromedp.ID("notice")), chromedp.WaitVisible(chromedp.ID("qr")),
		chromedp.WaitVisible(chromedp.ID("public-link-copy")))
	check("link-published-en")
	payLink(t, a, link.ID, 2)
	both("link-paid", "/dashboard/payment-links/"+link.ID)
	both("payment-links-paid", "/dashboard/payment-links")
}
