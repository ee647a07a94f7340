//go:build !race

// The browser test is excluded from -race builds: chromedp v0.23 has a data race of its own in
// its query retry loop (SendKeys), which the race detector reports. make test runs this file in
// a second, non-race go test invocation.

package integration_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/takapay/payments/shared/local/browsertest"
	"github.com/takapay/payments/shared/local/localapi"
)

// chromiumPath finds Debian's chromium (browsertest.Chromium): skipped locally without it,
// a failure in CI.
func chromiumPath(t *testing.T) string { return browsertest.Chromium(t) }

// merchant is the merchant's site: it records where payers land.
type merchant struct {
	srv  *httptest.Server
	mu   sync.Mutex
	hits []string
}

func newMerchant(t *testing.T) *merchant {
	m := &merchant{}
	m.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/favicon.ico" {
			m.mu.Lock()
			m.hits = append(m.hits, r.URL.String())
			m.mu.Unlock()
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		_, _ = w.Write([]byte("<!doctype html><title>Shop</title><h1 id=merchant>Back at the shop</h1>"))
	}))
	t.Cleanup(m.srv.Close)
	return m
}

func (m *merchant) landed() []string {
	m.mu.Lock()
	defer m.mu.Unlock()
	return append([]string(nil), m.hits...)
}

// browser starts Chromium at a phone's width (browsertest.New).
func browser(t *testing.T) context.Context { return browsertest.New(t, "") }

// do runs browser steps with a deadline (browsertest.Do).
func do(ctx context.Context, steps ...chromedp.Action[chromedp.Void]) error {
	return browsertest.Do(ctx, steps...)
}

// screenshot saves .artifacts/<name> (browsertest.Screenshot).
func screenshot(t *testing.T, ctx context.Context, name string) {
	t.Helper()
	browsertest.Screenshot(t, ctx, name)
}

// The whole sandbox journey in a real browser: create → open payment_url → choose a route →
// approve → land on the merchant's redirect_url with invoice_id → verify says COMPLETED.
// Then the cancel path.
func TestBrowserJourney(t *testing.T) {
	if testing.Short() {
		t.Skip("browser test")
	}
	chromiumPath(t)
	a := localapi.StartTestAPI(t, localapi.Options{AllowLocalhostURLs: true})
	shop := newMerchant(t)
	create := func(ref string) (string, string) {
		res := a.Do(t, "POST", "/v1/payment/create", a.Creds.SandboxKey, `{"amount": 1500, "reference": "`+ref+`",
			"redirect_url": "`+shop.srv.URL+`/thanks", "cancel_url": "`+shop.srv.URL+`/cancelled"}`)
		var c struct {
			InvoiceID  string `json:"invoice_id"`
			PaymentURL string `json:"payment_url"`
		}
		if err := json.Unmarshal(res.Body, &c); err != nil || res.Status != 201 {
			t.Fatalf("create: %d %s", res.Status, res.Body)
		}
		return c.InvoiceID, c.PaymentURL
	}
	ctx := browser(t)

	id, payURL := create("order-browser-1")
	if err := do(ctx,
		chromedp.Navigate(payURL),
		chromedp.WaitVisible(chromedp.ID("route-bkash")),
	); err != nil {
		t.Fatal(err)
	}
	text, err := browsertest.Run(ctx, chromedp.Text(chromedp.CSS("body")))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"৳1,500.00", "order-browser-1", "Demo merchant (local)", "no real money moves"} {
		if !strings.Contains(text, want) {
			t.Errorf("page text lacks %q: %q", want, text)
		}
	}
	screenshot(t, ctx, "checkout-pending.png")
	// Typing into the Nagad field ticks Nagad; a wrong number comes back with Nagad still
	// ticked and the number still in its field, and the error says what to fix.
	if err := do(ctx,
		chromedp.SendKeys(chromedp.ID("payer-nagad"), "0171"),
		chromedp.Click(chromedp.ID("continue")),
		chromedp.WaitVisible(chromedp.ID("error")),
	); err != nil {
		screenshot(t, ctx, "checkout-refused-failed.png")
		t.Fatal(err)
	}
	kept, err := browsertest.Run(ctx, chromedp.Evaluate[string](
		`document.getElementById("route-nagad").checked + " " + document.getElementById("payer-nagad").value + " " + document.getElementById("payer-nagad").getAttribute("aria-invalid")`))
	if err != nil || kept != "true 0171 true" {
		t.Errorf("after a wrong number: %q %v, want Nagad ticked, 0171 kept, the field invalid", kept, err)
	}
	screenshot(t, ctx, "checkout-refused.png")
	if err := do(ctx,
		chromedp.Click(chromedp.ID("route-bkash")),
		chromedp.SendKeys(chromedp.ID("payer-bkash"), "01712345678"),
		chromedp.Click(chromedp.ID("continue")),
		chromedp.WaitVisible(chromedp.ID("approve")),
	); err != nil {
		screenshot(t, ctx, "checkout-failed.png")
		for _, l := range a.Logs.Lines() {
			t.Logf("%v %v %v", l["method"], l["path"], l["status"])
		}
		t.Fatal(err)
	}
	if text, err = browsertest.Run(ctx, chromedp.Text(chromedp.CSS("body"))); err != nil || !strings.Contains(text, "017•••••678") {
		t.Errorf("locked page does not show the masked payer: %q %v", text, err)
	}
	screenshot(t, ctx, "checkout-locked.png")
	if err := do(ctx,
		chromedp.Click(chromedp.ID("approve")),
		chromedp.WaitVisible(chromedp.ID("merchant")),
	); err != nil {
		t.Fatal(err)
	}
	landed, err := browsertest.Run(ctx, chromedp.Location())
	if err != nil || !strings.HasPrefix(landed, shop.srv.URL+"/thanks?invoice_id="+id) {
		t.Fatalf("landed on %q (%v), want the redirect_url with invoice_id=%s", landed, err, id)
	}
	if status := verifyStatus(t, a, id); status != "COMPLETED" {
		t.Fatalf("verify after approve: %s", status)
	}
	// The page of a finished payment shows the final state.
	if err := do(ctx, chromedp.Navigate(payURL), chromedp.WaitVisible(chromedp.ID("status"))); err != nil {
		t.Fatal(err)
	}
	attr, err := browsertest.Run(ctx, chromedp.AttributeValue(chromedp.ID("status"), "data-status"))
	if err != nil || attr.Value != "COMPLETED" {
		t.Fatalf("final page status %q %v", attr.Value, err)
	}
	screenshot(t, ctx, "checkout-completed.png")

	// Cancel path.
	id2, payURL2 := create("order-browser-2")
	if err := do(ctx,
		chromedp.Navigate(payURL2),
		chromedp.WaitVisible(chromedp.ID("cancel")),
		chromedp.Click(chromedp.ID("cancel")),
		chromedp.WaitVisible(chromedp.ID("merchant")),
	); err != nil {
		t.Fatal(err)
	}
	if landed, err = browsertest.Run(ctx, chromedp.Location()); err != nil || !strings.HasPrefix(landed, shop.srv.URL+"/cancelled?invoice_id="+id2) {
		t.Fatalf("cancel landed on %q (%v)", landed, err)
	}
	if st := verifyStatus(t, a, id2); st != "CANCELLED" {
		t.Fatalf("verify after cancel: %s", st)
	}
	if hits := shop.landed(); len(hits) != 2 {
		t.Fatalf("merchant saw %v", hits)
	}
}
