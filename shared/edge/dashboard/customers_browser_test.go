//go:build !race

// Excluded from -race builds like the other browser tests (chromedp races on its own); make
// test's browser line runs it.

package dashboard_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/google/uuid"

	"github.com/takapay/payments/shared/local/browsertest"
	"github.com/takapay/payments/shared/local/localapi"
)

// TestBrowserCustomers walks the customers pages in Chromium, signed in as make dev's seeded
// owner: the new form and its refusal, a create, the list and a search, a customer with its
// invoices, the edit form, a version conflict and its retry. Every page and state is checked
// with axe-core (WCAG 2.1 AA, 0 violations) and for sideways scroll at 360 and 390 px
// (noSidewaysScroll), and photographed in both languages, phone and
// desktop: .artifacts/dashboard/customers-<page>-<lang>-<phone|desktop>.png.
func TestBrowserCustomers(t *testing.T) {
	if testing.Short() {
		t.Skip("browser test")
	}
	s := &stack{api: localapi.StartTestAPI(t, localapi.Options{})}
	base := s.api.URL
	ws, key := s.api.Creds.WorkspaceID, s.api.Creds.SandboxKey
	p := browsertest.NewPage(t, "en", "dashboard/customers-")
	run, check, text := p.Do, p.Check, p.Text
	both := func(name, path string) { t.Helper(); bothFit(t, p, name, base+path) }
	stateBoth := func(name, path string, fill func() []chromedp.Action[chromedp.Void]) {
		t.Helper()
		for _, l := range []string{"bn", "en"} {
			run(chromedp.Navigate(base+browsertest.WithLang(path, l)), chromedp.WaitVisible(chromedp.ID("main")))
			run(fill()...)
			run(chromedp.WaitVisible(chromedp.ID("main")))
			check(name + "-" + l)
			noSidewaysScroll(t, p, name+"-"+l)
		}
	}
	api := func(method, path, body string) string {
		t.Helper()
		r := s.api.Do(t, method, "/v1/workspaces/"+ws+"/documents/"+path+"?environment=sandbox", key, body, "Idempotency-Key", "cust-browser-"+uuid.NewString())
		var rec struct{ ID string }
		if err := json.Unmarshal(r.Body, &rec); err != nil || r.Status > 201 {
			t.Fatalf("%s %s: %d %s", method, path, r.Status, r.Body)
		}
		return rec.ID
	}

	c := s.api.Creds
	run(chromedp.Navigate(base+"/dashboard/sign-in"), chromedp.WaitVisible(chromedp.ID("f-email")),
		chromedp.SendKeys(chromedp.ID("f-email"), c.DashboardEmail), chromedp.SendKeys(chromedp.ID("f-password"), c.DashboardPassword),
		chromedp.Click(chromedp.ID("sign-in-submit")), chromedp.WaitVisible(chromedp.ID("home-workspace")))

	both("list-empty", "/dashboard/customers")
	both("new", "/dashboard/customers/new")
	stateBoth("new-invalid", "/dashboard/customers/new", func() []chromedp.Action[chromedp.Void] {
		return []chromedp.Action[chromedp.Void]{chromedp.SendKeys(chromedp.ID("f-email"), "not-an-email"),
			chromedp.Evaluate[chromedp.Void](`document.getElementById("customer-form").noValidate = true`),
			chromedp.Click(chromedp.ID("save-customer")), chromedp.WaitVisible(chromedp.ID("error-summary"))}
	})
	run(chromedp.Navigate(base+"/dashboard/customers/new"), chromedp.WaitVisible(chromedp.ID("f-reference")),
		chromedp.SendKeys(chromedp.ID("f-reference"), "C-100"), chromedp.SendKeys(chromedp.ID("f-name"), "Rahim Store"),
		chromedp.SendKeys(chromedp.ID("f-email"), "rahim@shop.example.com.bd"), chromedp.SendKeys(chromedp.ID("f-phone"), "01712345678"),
		chromedp.SendKeys(chromedp.ID("f-tags"), "wholesale, dhaka"), chromedp.SendKeys(chromedp.ID("f-notes"), "Pays on Thursdays"),
		chromedp.Click(chromedp.ID("save-customer")), chromedp.WaitVisible(chromedp.ID("customer-fields")))
	loc, err := browsertest.Run(p.Ctx, chromedp.Location())
	if err != nil {
		t.Fatal(err)
	}
	id := strings.TrimSuffix(strings.TrimPrefix(loc, base+"/dashboard/customers/"), "?notice=created")
	if _, err := uuid.Parse(id); err != nil || text("#customer-name") != "Rahim Store" {
		t.Fatalf("after the create: %s, name %q", loc, text("#customer-name"))
	}
	inv := api("POST", "invoices", `{"reference": "INV-1", "customer_id": "`+id+`", "items": [{"title": "Tea", "quantity": 2, "unit_amount_minor": 5000}]}`)
	api("POST", "invoices/"+inv+"/issue", "")
	api("POST", "invoices", `{"reference": "INV-2", "customer_id": "`+id+`", "amount_minor": 125050}`)
	api("POST", "customers", `{"reference": "C-101", "name": "Karim Traders", "email": "karim@shop.example.com.bd"}`)

	both("list", "/dashboard/customers")
	both("search", "/dashboard/customers?q=rahim")
	both("customer", "/dashboard/customers/"+id)
	if rows := text("#customer-invoices tbody"); !strings.Contains(rows, "INV-1") || !strings.Contains(rows, "INV-2") {
		t.Errorf("the customer's invoices: %q", rows)
	}
	both("edit", "/dashboard/customers/"+id+"/edit")
	stateBoth("conflict", "/dashboard/customers/"+id+"/edit", func() []chromedp.Action[chromedp.Void] {
		api("PATCH", "customers/"+id, `{"name": "Changed elsewhere `+uuid.NewString()[:4]+`"}`)
		return []chromedp.Action[chromedp.Void]{chromedp.Evaluate[chromedp.Void](`document.getElementById("f-name").value = ""`), chromedp.SendKeys(chromedp.ID("f-name"), "Rahim & Sons"),
			chromedp.Click(chromedp.ID("save-customer")), chromedp.WaitVisible(chromedp.ID("conflict"))}
	})
	run(chromedp.Click(chromedp.ID("save-customer")), chromedp.WaitVisible(chromedp.ID("customer-fields")))
	if got := text("#customer-name"); got != "Rahim & Sons" {
		t.Errorf("saved after the conflict: name %q", got)
	}
	check("saved-en")
}
