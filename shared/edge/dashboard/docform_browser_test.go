//go:build !race

// Excluded from -race builds like the other browser tests (chromedp races on its own).

package dashboard_test

import (
	"net"
	"regexp"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/takapay/payments/shared/local/browsertest"
)

// TestBrowserDocumentForms is the invoice and payment link forms in Chromium: every form and
// state (new, add rows, a 422, edit, a version conflict) checked with axe-core (WCAG 2.1 AA,
// 0 violations) and photographed in both languages, phone and desktop
// (.artifacts/dashboard/docform-<state>-<lang>-<phone|desktop>.png); the forms posted by the
// browser itself (Enter saves, "add rows" keeps what was typed).
func TestBrowserDocumentForms(t *testing.T) {
	if testing.Short() {
		t.Skip("browser test")
	}
	// The forms are served on a second port (see startDocForms): their origin is one of the
	// dashboard's, so the browser's posts from them pass the Origin check.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	front := "http://localhost:" + strings.TrimPrefix(ln.Addr().String(), "127.0.0.1:")
	s := startStack(t, map[string]string{"DASHBOARD_ORIGINS": front})
	startDocForms(t, s, ln)
	const email, password = "owner@browser-forms.example.com.bd", "a long sandbox passphrase"
	other := &formsBrowser{browser: s.signUp(t, email, "Browser forms", ""), front: front}

	p := browsertest.NewPage(t, "en", "dashboard/docform-")
	run, value, location := p.Do, p.Value, p.Location
	check := func(name string) { t.Helper(); p.Check(name); fitsPhones(t, p, name) }

	run(chromedp.Navigate(s.api.URL+"/dashboard/sign-in"), chromedp.WaitVisible(chromedp.ID("f-email")),
		chromedp.SendKeys(chromedp.ID("f-email"), email), chromedp.SendKeys(chromedp.ID("f-password"), password),
		chromedp.Click(chromedp.ID("sign-in-submit")), chromedp.WaitVisible(chromedp.ID("home-workspace")))

	for _, l := range []string{"bn", "en"} {
		for _, kind := range []string{"invoices", "payment-links"} {
			run(chromedp.Navigate(front+"/dashboard/"+kind+"/new?lang="+l), chromedp.WaitVisible(chromedp.ID("doc-form")))
			check(kind + "-new-" + l)
		}
	}

	// An invoice typed in the browser: "add rows" keeps it, a bad price is a 422 next to its
	// field, Enter in a field saves.
	for _, l := range []string{"bn", "en"} {
		run(chromedp.Navigate(front+"/dashboard/invoices/new?lang="+l), chromedp.WaitVisible(chromedp.ID("doc-form")),
			chromedp.SendKeys(chromedp.ID("f-reference"), "INV-"+l),
			chromedp.SendKeys(chromedp.ID("f-item-0-title"), "Rice"), chromedp.SendKeys(chromedp.ID("f-item-0-quantity"), "2"),
			chromedp.SendKeys(chromedp.ID("f-item-0-unit_amount"), "1,250.50"),
			chromedp.SendKeys(chromedp.ID("f-item-1-title"), "Oil"), chromedp.SendKeys(chromedp.ID("f-item-1-unit_amount"), "abc"),
			chromedp.SendKeys(chromedp.ID("f-discount"), "100"),
			chromedp.Click(chromedp.ID("add-items")), chromedp.WaitVisible(chromedp.ID("f-item-5-title")))
		if value("f-item-0-unit_amount") != "1,250.50" || value("f-discount") != "100" || value("f-reference") != "INV-"+l {
			t.Fatalf("add rows lost what was typed")
		}
		check("invoice-rows-" + l)
		run(chromedp.Click(chromedp.ID("save-document")), chromedp.WaitVisible(chromedp.ID("f-item-1-unit_amount-error")))
		check("invoice-invalid-" + l)
		run(chromedp.Evaluate[chromedp.Void](`document.getElementById("f-item-1-unit_amount").value = "৫০০"`),
			chromedp.SendKeys(chromedp.ID("f-item-1-unit_amount"), "\r"),
			chromedp.WaitNotPresent(chromedp.ID("doc-form")))
		if !regexp.MustCompile(`/dashboard/invoices/[0-9a-f-]{36}\?lang=` + l + `$`).MatchString(location()) {
			t.Fatalf("after Enter: %s", location())
		}
	}
	id := regexp.MustCompile(`/dashboard/invoices/([0-9a-f-]{36})`).FindStringSubmatch(location())[1]

	// The edit form, and a version conflict: someone else saves first.
	for _, l := range []string{"bn", "en"} {
		run(chromedp.Navigate(front+"/dashboard/invoices/"+id+"/edit?lang="+l), chromedp.WaitVisible(chromedp.ID("doc-form")))
		check("invoice-edit-" + l)
		ef := formValues(t, other.fetch("GET", "/dashboard/invoices/"+id+"/edit", nil))
		ef.Set("notes", "saved elsewhere "+l)
		ef.Set("action", "save")
		if p := other.fetch("POST", "/dashboard/invoices/"+id+"/edit", ef); p.status != 303 {
			t.Fatalf("the other edit: %d", p.status)
		}
		run(chromedp.SendKeys(chromedp.ID("f-description"), "mine"), chromedp.Click(chromedp.ID("save-document")),
			chromedp.WaitVisible(chromedp.ID("conflict")))
		check("invoice-conflict-" + l)
		run(chromedp.Click(chromedp.ID("save-document")), chromedp.WaitNotPresent(chromedp.ID("doc-form")))
	}
}
