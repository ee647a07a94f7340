//go:build !race

// Excluded from -race builds like the other browser tests (chromedp races on its own).

package dashboard_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/takapay/payments/shared/local/browsertest"
	"github.com/takapay/payments/shared/local/devstack"
	"github.com/takapay/payments/shared/local/localapi"
)

// The dashboard's shell and its own pages (sign in, sign up, the password reset, email
// verification, check-email, the overview with payments, the export and its refused form) at
// two phones' widths and a desktop's, in both languages: the page never scrolls sideways
// (document.documentElement.scrollWidth <= innerWidth) and axe-core finds no WCAG 2.1 AA
// violation; each is photographed (.artifacts/dashboard/shell-<page>-<lang>-<width>.png).
// GET /dashboard/ lands on the overview; on a phone the navigation is a closed menu that one
// tap opens (no script), on a desktop its links show as a row.
func TestBrowserShellOnPhonesAndDesktop(t *testing.T) {
	if testing.Short() {
		t.Skip("browser test")
	}
	devstack.RequireServers(t)
	now := time.Date(2026, 11, 27, 9, 0, 0, 0, time.UTC)
	a := localapi.StartTestAPI(t, localapi.Options{Now: func() time.Time { return now }, Localhost: true})
	for _, p := range overviewPayments(a.Creds.WorkspaceID, now) {
		seedPayment(t, a, p)
	}
	p := browsertest.NewPage(t, "en", "dashboard/shell-")
	axe := browsertest.AxeSource(t)
	sizes := [][2]int64{{360, 740}, {390, 844}, {1366, 900}}
	eval := func(js string) bool {
		t.Helper()
		v, err := browsertest.Run(p.Ctx, chromedp.Evaluate[bool](js))
		if err != nil {
			t.Fatalf("%s: %v", js, err)
		}
		return v
	}
	// check shows path in each language at each size (prepare, when not nil, then brings the
	// page to the state checked).
	check := func(name, path, waitID string, prepare func()) {
		t.Helper()
		for _, l := range []string{"bn", "en"} {
			for _, sz := range sizes {
				p.Do(chromedp.EmulateViewport(sz[0], sz[1]), chromedp.Navigate(browsertest.WithLang(a.URL+path, l)),
					chromedp.WaitVisible(chromedp.ID(waitID)))
				if prepare != nil {
					prepare()
				}
				shot := fmt.Sprintf("dashboard/shell-%s-%s-%d.png", name, l, sz[0])
				if !eval(`document.documentElement.scrollWidth <= window.innerWidth`) {
					w, _ := browsertest.Run(p.Ctx, chromedp.Evaluate[int](`document.documentElement.scrollWidth`))
					t.Errorf("%s (%s) at %d px scrolls sideways: the document is %d px wide (%s)", name, l, sz[0], w,
						browsertest.Screenshot(t, p.Ctx, shot))
					continue
				}
				if v, _ := browsertest.Axe(t, p.Ctx, axe); len(v) > 0 {
					t.Errorf("%s (%s) at %d px: %d axe violations: %v", name, l, sz[0], len(v), v)
				}
				browsertest.Screenshot(t, p.Ctx, shot)
			}
		}
		p.Do(chromedp.EmulateViewport(browsertest.PhoneWidth, browsertest.PhoneHeight))
	}

	check("sign-in", "/dashboard/sign-in", "sign-in-form", nil)
	check("sign-up", "/dashboard/sign-up", "sign-up-form", nil)
	check("forgot", "/dashboard/forgot-password", "forgot-form", nil)
	check("reset", "/dashboard/reset-password?token=not-a-real-token", "reset-form", nil)
	check("verify", "/dashboard/verify-email?token=not-a-real-token", "verify-form", nil)
	check("check-email", "/dashboard/check-email?for=sign-up", "check-email-message", nil)

	// Signed in, through /dashboard/ (the trailing slash): the overview, with its query.
	p.Do(chromedp.Navigate(a.URL+"/dashboard/sign-in"), chromedp.WaitVisible(chromedp.ID("f-email")),
		chromedp.SendKeys(chromedp.ID("f-email"), a.Creds.DashboardEmail), chromedp.SendKeys(chromedp.ID("f-password"), a.Creds.DashboardPassword),
		chromedp.Click(chromedp.ID("sign-in-submit")), chromedp.WaitVisible(chromedp.ID("home-workspace")))
	p.Do(chromedp.Navigate(a.URL+"/dashboard/?lang=bn"), chromedp.WaitVisible(chromedp.ID("home-workspace")))
	if loc := p.Location(); !strings.HasSuffix(loc, "/dashboard?lang=bn") {
		t.Errorf("GET /dashboard/?lang=bn ended at %s, want /dashboard?lang=bn", loc)
	}

	// The menu: closed on a phone, one tap opens it; a row on a desktop.
	p.Do(chromedp.EmulateViewport(390, 844), chromedp.Navigate(a.URL+"/dashboard?lang=en"), chromedp.WaitVisible(chromedp.ID("nav-toggle")))
	if eval(`document.getElementById("nav-export").checkVisibility()`) {
		t.Error("on a phone the menu's links show before it is opened")
	}
	p.Do(chromedp.Click(chromedp.ID("nav-toggle")), chromedp.WaitVisible(chromedp.ID("nav-export")))
	p.Do(chromedp.EmulateViewport(1366, 900), chromedp.Navigate(a.URL+"/dashboard?lang=en"), chromedp.WaitVisible(chromedp.ID("nav-export")))
	if eval(`document.getElementById("nav-toggle").checkVisibility()`) {
		t.Error("on a desktop the menu's summary shows instead of its links")
	}

	check("overview", "/dashboard", "latest-payments", nil)
	check("export", "/dashboard/export", "export-form", nil)
	check("export-invalid", "/dashboard/export", "export-form", func() {
		p.Do(chromedp.SetValue(chromedp.ID("export-from"), "2026-11-27"), chromedp.SetValue(chromedp.ID("export-to"), "2026-11-20"),
			chromedp.Click(chromedp.ID("export-submit")), chromedp.WaitVisible(chromedp.ID("export-to-error")))
	})
}
