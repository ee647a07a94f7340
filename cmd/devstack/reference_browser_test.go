//go:build !race

// Excluded from -race builds like the other browser tests (chromedp races on its own).

package main

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/takapay/payments/shared/local/browsertest"
)

// TestBrowserAPIReference opens /docs as `make dev` serves it (withDocs in front of the API)
// in Chromium, with no network beyond it, and waits for Redoc to render the contract: the
// operations, their parameters and errors. The page is whole by itself (build-docs
// --inlineBundle): it loads no script from Redocly's CDN. Screenshots: .artifacts/docs/reference-phone.png and -desktop.png. No
// axe-core check: the page is Redoc's, for developers, not a page a payer sees.
func TestBrowserAPIReference(t *testing.T) {
	file := buildReference(t)
	api := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { http.NotFound(w, r) })
	srv := httptest.NewServer(withDocs(api, file))
	t.Cleanup(srv.Close)

	p := browsertest.NewPage(t, "", "docs/")
	menu := `//a[contains(., "Create a hosted payment")]` // a plain string is a DOM search: XPath
	// At a desktop's width, where the menu is open beside the content.
	p.Do(chromedp.EmulateViewport(browsertest.DesktopWidth, browsertest.DesktopHeight), chromedp.Navigate(srv.URL+"/docs"), chromedp.WaitVisible(menu))
	if body := p.Text("body"); !strings.Contains(body, "Takapay payments API") || !strings.Contains(body, "405 METHOD_NOT_ALLOWED") {
		t.Errorf("/docs shows no overview:\n%.600s", body)
	}
	browsertest.Screenshots(t, p.Ctx, "docs/reference")

	// An operation's page, reached from the menu, then loaded afresh from its own URL.
	p.Do(chromedp.EmulateViewport(browsertest.DesktopWidth, browsertest.DesktopHeight), chromedp.Click(menu))
	waitText(t, p, "/v1/payment/create", "Idempotent-Replayed", "IDEMPOTENCY_KEY_REUSED")
	at := p.Location()
	if !strings.HasPrefix(at, srv.URL+"/docs") || !strings.Contains(at, "createpayment") {
		t.Fatalf("the operation's page is at %s", at)
	}
	p.Do(chromedp.Navigate(srv.URL+"/"), chromedp.Navigate(at))
	waitText(t, p, "/v1/payment/create", "Idempotent-Replayed", "IDEMPOTENCY_KEY_REUSED")
	browsertest.Screenshots(t, p.Ctx, "docs/create-payment")
}

// waitText waits, within browsertest.StepTimeout, until the page's text holds every want.
func waitText(t *testing.T, p *browsertest.Page, want ...string) {
	t.Helper()
	deadline := time.Now().Add(browsertest.StepTimeout)
	for {
		body := p.Text("body")
		var missing []string
		for _, w := range want {
			if !strings.Contains(body, w) {
				missing = append(missing, w)
			}
		}
		if len(missing) == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s shows no %q:\n%.1500s", p.Location(), missing, body)
		}
		time.Sleep(200 * time.Millisecond)
	}
}
