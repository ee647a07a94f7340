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
	run := p.Do
	check := func(name string) { t.Helper(); p.Check(name); fitsPhones(t, p, name) }
	both := func(name, path string) {
		t.Helper()
		for _, l := range []string{"bn", "en"} {
			run(chromedp.Navigate(browsertest.WithLang(base+path, l)), chromedp.WaitVisible(chromedp.ID("main")))
			check(name + "-" + l)
		}
	}

	run(chromedp.Navigate(base+"/dashboard/sign-in"), chromedp.WaitVisible(chromedp.ID("f-email")),
		chromedp.SendKeys(chromedp.ID("f-email"), a.Creds.DashboardEmail), chromedp.SendKeys(chromedp.ID("f-password"), a.Creds.DashboardPassword),
		chromedp.Click(chromedp.ID("sign-in-submit")), chromedp.WaitVisible(chromedp.ID("home-workspace")))

	both("invoices", "/dashboard/invoices")
	// A search opens the folded search form and keeps what was typed.
	run(chromedp.Navigate(base+"/dashboard/invoices?q=rahim"), chromedp.WaitVisible(chromedp.ID("f-q")))
	if v := p.Value("f-q"); v != "rahim" {
		t.Errorf("the search shows %q", v)
	}
	check("invoices-search-en")
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

// fitsPhones fails the test when the page shown scrolls sideways at 360×740 or 390×844 (its
// document wider than the viewport); the window is browsertest's phone again afterwards.
func fitsPhones(t *testing.T, p *browsertest.Page, name string) {
	t.Helper()
	for _, vp := range [][2]int64{{360, 740}, {390, 844}} {
		p.Do(chromedp.EmulateViewport(vp[0], vp[1]))
		over, err := browsertest.Run(p.Ctx, chromedp.Evaluate[int64](`document.documentElement.scrollWidth - window.innerWidth`))
		if err != nil {
			t.Fatal(err)
		}
		if over > 0 {
			browsertest.Screenshot(t, p.Ctx, "dashboard/docs-overflow-"+name+".png")
			t.Errorf("%s scrolls sideways at %d px: %d px too wide", name, vp[0], over)
		}
	}
	p.Do(chromedp.EmulateViewport(browsertest.PhoneWidth, browsertest.PhoneHeight))
}
