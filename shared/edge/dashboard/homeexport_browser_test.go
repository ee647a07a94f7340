//go:build !race

// Excluded from -race builds like the other browser tests (chromedp races on its own).

package dashboard_test

import (
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/takapay/payments/shared/local/browsertest"
	"github.com/takapay/payments/shared/local/devstack"
	"github.com/takapay/payments/shared/local/localapi"
)

// The overview with payments and the export pages in Chromium: the seeded owner signs in,
// every page and state is checked with axe-core (WCAG 2.1 AA, 0 violations) and photographed
// in both languages, phone and desktop (.artifacts/dashboard/<page>-<lang>-<phone|desktop>.png);
// the live switch is kept on the way to the export. (The CSV itself is checked over the
// gateway: TestOverviewAndExportOverTheGateway.)
func TestBrowserOverviewAndExport(t *testing.T) {
	if testing.Short() {
		t.Skip("browser test")
	}
	devstack.RequireServers(t)
	now := time.Date(2026, 11, 27, 9, 0, 0, 0, time.UTC)
	a := localapi.StartTestAPI(t, localapi.Options{Now: func() time.Time { return now }, Localhost: true})
	for _, p := range overviewPayments(a.Creds.WorkspaceID, now) {
		seedPayment(t, a, p)
	}
	p := browsertest.NewPage(t, "en", "dashboard/")
	run, check := p.Do, p.Check
	text := func(id string) string { t.Helper(); return p.Text("#" + id) }

	run(chromedp.Navigate(a.URL+"/dashboard/sign-in"), chromedp.WaitVisible(chromedp.ID("f-email")),
		chromedp.SendKeys(chromedp.ID("f-email"), a.Creds.DashboardEmail), chromedp.SendKeys(chromedp.ID("f-password"), a.Creds.DashboardPassword),
		chromedp.Click(chromedp.ID("sign-in-submit")), chromedp.WaitVisible(chromedp.ID("stats-today")))
	for _, l := range []string{"bn", "en"} {
		run(chromedp.Navigate(a.URL+"/dashboard?lang="+l), chromedp.WaitVisible(chromedp.ID("latest-payments")))
		check("overview-payments-" + l)
		if s := text("stats-week"); l == "en" && !strings.Contains(s, "৳1,351.50") || l == "bn" && !strings.Contains(s, "৳১,৩৫১.৫০") {
			t.Errorf("#stats-week (%s): %q", l, s)
		}
		run(chromedp.Navigate(a.URL+"/dashboard/export?lang="+l), chromedp.WaitVisible(chromedp.ID("export-form")))
		check("export-" + l)
		// A reversed range: 422, the message next to the field.
		run(chromedp.SetValue(chromedp.ID("export-from"), "2026-11-27"), chromedp.SetValue(chromedp.ID("export-to"), "2026-11-20"),
			chromedp.Click(chromedp.ID("export-submit")), chromedp.WaitVisible(chromedp.ID("export-to-error")))
		check("export-invalid-" + l)
	}
	// The switch to live, kept on the export's link.
	run(chromedp.Navigate(a.URL+"/dashboard"), chromedp.WaitVisible(chromedp.ID("env-switch")),
		chromedp.Click(chromedp.ID("env-switch-live")), chromedp.WaitVisible(chromedp.ID("stats-today")))
	check("overview-live-en")
	if s := text("stats-today"); !strings.Contains(s, "৳7,777.00") {
		t.Errorf("live #stats-today: %q", s)
	}
	// On a phone the navigation is a closed menu: one tap opens it.
	run(chromedp.Click(chromedp.ID("nav-toggle")), chromedp.Click(chromedp.ID("nav-export")), chromedp.WaitVisible(chromedp.ID("export-form")))
	loc, err := browsertest.Run(p.Ctx, chromedp.Location())
	if err != nil || !strings.Contains(loc, "env=live") {
		t.Errorf("export from live: %s %v", loc, err)
	}
}
