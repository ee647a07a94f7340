//go:build !race

package dashboard_test

import (
	"fmt"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/takapay/payments/shared/local/browsertest"
)

// phones are the widths at which no page of the payments, webhooks and customers pages may
// scroll sideways (issue 32): the small Android phones most shop owners carry.
var phones = [][2]int64{{360, 740}, {390, 844}}

// noSidewaysScroll fails the test when the page shown scrolls sideways on a phone: at each of
// phones the document is no wider than the window. The window is browsertest's phone again
// afterwards.
func noSidewaysScroll(t *testing.T, p *browsertest.Page, name string) {
	t.Helper()
	for _, wh := range phones {
		p.Do(chromedp.EmulateViewport(wh[0], wh[1]))
		var got [2]int64
		res, err := browsertest.Run(p.Ctx, chromedp.Evaluate[string](
			`document.documentElement.scrollWidth + " " + window.innerWidth`))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := fmt.Sscan(res, &got[0], &got[1]); err != nil {
			t.Fatalf("%s: %q: %v", name, res, err)
		}
		if got[0] > got[1] {
			browsertest.Screenshot(t, p.Ctx, fmt.Sprintf("dashboard/%s-%d-sideways.png", name, wh[0]))
			t.Errorf("%s at %dx%d scrolls sideways: the document is %d px wide", name, wh[0], wh[1], got[0])
		}
	}
	p.Do(chromedp.EmulateViewport(browsertest.PhoneWidth, browsertest.PhoneHeight))
}

// bothFit is Page.Both (the page in Bangla and English, axe-core and screenshots) with
// noSidewaysScroll in each language.
func bothFit(t *testing.T, p *browsertest.Page, name, url string) {
	t.Helper()
	for _, l := range []string{"bn", "en"} {
		p.Do(chromedp.Navigate(browsertest.WithLang(url, l)), chromedp.WaitVisible(chromedp.ID("main")))
		p.Check(name + "-" + l)
		noSidewaysScroll(t, p, name+"-"+l)
	}
}
