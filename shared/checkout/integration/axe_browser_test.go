//go:build !race

// Excluded from -race builds like the other browser tests (chromedp v0.23 races on its own).

package integration_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/takapay/payments/shared/local/browsertest"
	"github.com/takapay/payments/shared/local/localapi"
)

// Every page a payer can see meets WCAG 2.1 AA as axe-core checks it, in Chromium, in both
// languages: the public document pages (a payment link with every kind of field, an invoice,
// a closed link, not found), the checkout page before the route choice, the locked page with
// the sandbox controls, the completed and the cancelled page and the not-found page, each as a
// payer who chose English and as one who chose Bangla (?lang=), live from the local API with
// the page's script running. TestBrowserAccessibilityEveryState (accessibility_test.go) adds
// every other state from the golden files.
func TestBrowserAccessibility(t *testing.T) {
	if testing.Short() {
		t.Skip("browser test")
	}
	chromiumPath(t)
	axeSource := browsertest.AxeSource(t)
	a := localapi.StartTestAPI(t, localapi.Options{AllowLocalhostURLs: true})
	ctx := browser(t)
	newPage := func(ref string) string {
		res := a.Do(t, "POST", "/v1/payment/create", a.Creds.SandboxKey, `{"amount": 1500, "reference": "`+ref+`"}`)
		var c struct {
			PaymentURL string `json:"payment_url"`
		}
		if err := json.Unmarshal(res.Body, &c); err != nil || res.Status != 201 {
			t.Fatalf("create: %d %s", res.Status, res.Body)
		}
		return c.PaymentURL
	}
	path := func(u string) string { return u[strings.Index(u, "/v1/"):] }

	pending := newPage("a11y-pending")
	locked := newPage("a11y-locked")
	if r := a.Do(t, "POST", path(locked)+"/lock", "", `{"route":"nagad","payer":"01712345678"}`); r.Status != 200 {
		t.Fatalf("lock: %d %s", r.Status, r.Body)
	}
	done := newPage("a11y-completed")
	for _, step := range []struct{ suffix, body string }{{"/lock", `{"route":"card","payer":"payer@example.com"}`}, {"/notices/approve", ""}} {
		if r := a.Do(t, "POST", path(done)+step.suffix, "", step.body); r.Status != 200 {
			t.Fatalf("%s: %d %s", step.suffix, r.Status, r.Body)
		}
	}
	cancelled := newPage("a11y-cancelled")
	if r := a.Do(t, "POST", path(cancelled)+"/notices/cancel", "", ""); r.Status != 200 {
		t.Fatalf("cancel: %d %s", r.Status, r.Body)
	}
	// The public document pages (package publicdoc): a payment link with every kind of field,
	// an invoice, a closed link, and the not-found page.
	docs := 0
	document := func(kind, body, command string) string {
		docs++
		base := "/v1/workspaces/" + a.Creds.WorkspaceID + "/documents/" + kind
		res := a.Do(t, "POST", base+"?environment=sandbox", a.Creds.SandboxKey, body, "Idempotency-Key", fmt.Sprintf("a11y-document-%06d", docs))
		var rec struct {
			ID          string `json:"id"`
			PublicToken string `json:"public_token"`
		}
		if err := json.Unmarshal(res.Body, &rec); err != nil || res.Status != 201 {
			t.Fatalf("create %s: %d %s", kind, res.Status, res.Body)
		}
		for _, c := range strings.Fields(command) {
			if r := a.Do(t, "POST", base+"/"+rec.ID+"/"+c+"?environment=sandbox", a.Creds.SandboxKey, ""); r.Status != 200 {
				t.Fatalf("%s: %d %s", c, r.Status, r.Body)
			}
		}
		return a.URL + "/v1/public/documents/" + rec.PublicToken
	}
	link := document("payment-links", `{"reference": "LINK-A11Y", "description": "A gift box", "amount_minor": 120000,
		"max_quantity": 5, "fields": [
		{"id": "name", "label": "Name on the card", "type": "text", "required": true},
		{"id": "note", "label": "Message", "type": "textarea"},
		{"id": "size", "label": "Box size", "type": "select", "options": ["Small", "Large"], "required": true},
		{"id": "wrap", "label": "Wrapping", "type": "radio", "options": ["Paper", "Cloth"]},
		{"id": "terms", "label": "I accept the terms", "type": "checkbox", "required": true},
		{"id": "photo", "label": "Photo", "type": "file"}]}`, "publish")
	invoice := document("invoices", `{"reference": "INV-A11Y", "due_at": "2030-01-31T00:00:00+06:00",
		"items": [{"title": "Saree", "quantity": 2, "unit_amount_minor": 50000}], "tax_minor": 500}`, "issue")
	closed := document("payment-links", `{"reference": "LINK-CLOSED", "amount_minor": 5000}`, "publish archive")
	pages := []struct{ name, url, ready string }{
		{"document: payment link", link, "#continue"},
		{"document: invoice", invoice, "#continue"},
		{"document: closed", closed, "#reference"},
		{"document: not found", a.URL + "/v1/public/documents/" + strings.Repeat("Z", 43), "#error-title"},
		{"pending", pending, "#route-bkash"},
		{"locked (sandbox controls)", locked, "#approve"},
		{"completed", done, "#status-title"},
		{"cancelled", cancelled, "#status-title"},
		{"not found", a.URL + "/v1/public/checkout/" + strings.Repeat("Z", 43), "#error-title"},
	}
	for _, lang := range []string{"en", "bn"} {
		for _, p := range pages {
			name := p.name + " [" + lang + "]"
			if err := do(ctx, chromedp.Navigate(p.url+"?lang="+lang), chromedp.WaitVisible(chromedp.CSS(p.ready))); err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			if got, err := browsertest.Run(ctx, chromedp.Evaluate[string](`document.documentElement.lang`)); err != nil || got != lang {
				t.Fatalf("%s: <html lang=%q> (%v)", name, got, err)
			}
			violations, passes := browsertest.Axe(t, ctx, axeSource)
			for _, v := range violations {
				t.Errorf("%s: %s", name, v)
			}
			t.Logf("%-32s axe: %d rules passed, %d violations", name, passes, len(violations))
		}
	}
}
