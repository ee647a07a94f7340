//go:build !race

package integration_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"

	"github.com/takapay/payments/shared/local/localapi"
)

// statusRequest is one JSON view request the page made, as the counting proxy saw it.
type statusRequest struct {
	IfNoneMatch string
	Status      int
	ETag        string
}

// statusCounter stands between the browser and the API and records the page's JSON status
// requests (GET with Accept: application/json); page loads and form posts pass uncounted.
type statusCounter struct {
	srv  *httptest.Server
	mu   sync.Mutex
	reqs []statusRequest
}

func newStatusCounter(t *testing.T, api string) *statusCounter {
	t.Helper()
	target, err := url.Parse(api)
	if err != nil {
		t.Fatal(err)
	}
	c := &statusCounter{}
	proxy := httputil.NewSingleHostReverseProxy(target)
	proxy.ModifyResponse = func(res *http.Response) error {
		r := res.Request
		if r.Method == http.MethodGet && strings.Contains(r.Header.Get("Accept"), "application/json") {
			c.mu.Lock()
			c.reqs = append(c.reqs, statusRequest{IfNoneMatch: r.Header.Get("If-None-Match"), Status: res.StatusCode, ETag: res.Header.Get("ETag")})
			c.mu.Unlock()
		}
		return nil
	}
	c.srv = httptest.NewServer(proxy)
	t.Cleanup(c.srv.Close)
	return c
}

func (c *statusCounter) requests() []statusRequest {
	c.mu.Lock()
	defer c.mu.Unlock()
	return slices.Clone(c.reqs)
}

// openPaused opens url in a new tab of the browser, waits for the element id, and then stops
// the page's clock: from then on timers (the poll schedule, the countdown, the redirect) fire
// only when advance lets virtual time run, so nothing here waits on the wall clock. (A page
// under virtual time does not finish a navigation of its own in a paused tab, so each page
// gets a tab.)
func openPaused(t *testing.T, browserCtx context.Context, url, id string) context.Context {
	t.Helper()
	// The browser belongs to browserCtx (its first tab), so that every page is a tab of it.
	if err := do(browserCtx); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := chromedp.NewContext(browserCtx)
	t.Cleanup(cancel)
	if err := do(ctx, chromedp.Navigate(url), chromedp.WaitVisible(chromedp.ID(id)),
		setVirtualTime(emulation.VirtualTimePolicyPause, 0)); err != nil {
		t.Fatal(err)
	}
	return ctx
}

func setVirtualTime(policy emulation.VirtualTimePolicy, budget time.Duration) chromedp.Action[chromedp.Void] {
	return chromedp.Func(func(ctx context.Context, t *chromedp.Target) error {
		p := emulation.SetVirtualTimePolicyParams{Policy: policy}
		if budget > 0 {
			ms := float64(budget.Milliseconds())
			p.Budget = &ms
		}
		_, err := cdp.Call(ctx, t, emulation.SetVirtualTimePolicy, p)
		return err
	})
}

// advance lets d of virtual time pass on the page (every timer due in it fires, and time
// stands still while a fetch is on the wire), then stops the clock again.
func advance(ctx context.Context, d time.Duration) error {
	c, cancel := context.WithTimeout(ctx, 60*time.Second)
	defer cancel()
	_, err := chromedp.Run(c, chromedp.WaitEvent(emulation.VirtualTimeBudgetExpired, nil,
		setVirtualTime(emulation.VirtualTimePolicyPauseIfNetworkFetchesPending, d)))
	return err
}

func eval[T any](t *testing.T, ctx context.Context, expr string) T {
	t.Helper()
	c, cancel := context.WithTimeout(ctx, 20*time.Second)
	defer cancel()
	v, err := chromedp.Run(c, chromedp.Evaluate[T](expr))
	if err != nil {
		t.Fatalf("%s: %v", expr, err)
	}
	return v
}

// landedOn waits (up to 20 s of real time; nothing is timed) until the merchant has seen one
// visit, and checks where it went.
func landedOn(t *testing.T, shop *merchant, prefix string) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for len(shop.landed()) == 0 && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	if hits := shop.landed(); len(hits) != 1 || !strings.HasPrefix(hits[0], prefix) {
		t.Fatalf("the merchant saw %v, want one visit to %s…", hits, prefix)
	}
}

// pollState is what the page says of its schedule: data-poll and data-poll-delay of #checkout.
func pollState(t *testing.T, ctx context.Context) string {
	t.Helper()
	return eval[string](t, ctx, `(function () { var r = document.getElementById("checkout");
		return r.getAttribute("data-poll") + (r.hasAttribute("data-poll-delay") ? " " + r.getAttribute("data-poll-delay") : ""); })()`)
}

// setHidden makes the page believe its tab was hidden (or shown again), as a payer switching
// to the provider's app does, and tells it so.
func setHidden(t *testing.T, ctx context.Context, hidden bool) {
	t.Helper()
	eval[bool](t, ctx, fmt.Sprintf(`Object.defineProperty(document, "hidden", {configurable: true, get: function () { return %t; }});
		document.dispatchEvent(new Event("visibilitychange")); true`, hidden))
}

// The poll schedule as a pure function (assets/checkout.js pollDelay, evaluated in Chromium):
// 3, 6, 12, 24 s, then 30 s until the waits would pass 10 minutes; 1 s after a return to the
// tab, then the backoff again; never more than 30 requests.
func TestBrowserPollSchedule(t *testing.T) {
	if testing.Short() {
		t.Skip("browser test")
	}
	chromiumPath(t)
	a := localapi.StartTestAPI(t, localapi.Options{})
	p := newPayment(t, a, `{"amount": 10}`)
	ctx := openPaused(t, browser(t), a.URL+p.Page, "route-bkash")
	// The delays of an uninterrupted run, the function called as the page calls it.
	run := eval[[]int](t, ctx, `(function () {
		var out = [], made = 0, spent = 0, d;
		while ((d = takapayCheckout.pollDelay(made, made, false, spent)) >= 0) { out.push(d); made++; spent += d; }
		return out; })()`)
	want := []int{3000, 6000, 12000, 24000}
	for range 18 {
		want = append(want, 30000)
	}
	if !slices.Equal(run, want) {
		t.Fatalf("uninterrupted schedule %v, want %v", run, want)
	}
	total := 0
	for _, d := range run {
		total += d
	}
	if total != 585000 {
		t.Fatalf("the waits add up to %d ms, want 9 min 45 s", total)
	}
	for _, c := range []struct {
		expr string
		want int
	}{
		{"takapayCheckout.pollDelay(5, 0, true, 50000)", 1000}, // back in the tab: a fresh, short wait
		{"takapayCheckout.pollDelay(6, 1, true, 51000)", 3000}, // then the backoff again
		{"takapayCheckout.pollDelay(7, 2, true, 54000)", 6000},
		{"takapayCheckout.pollDelay(20, 9, true, 300000)", 30000},
		{"takapayCheckout.pollDelay(10, 10, false, 570000)", 30000}, // exactly 10 minutes: still allowed
		{"takapayCheckout.pollDelay(10, 10, false, 570001)", -1},    // a minute more would pass them
		{"takapayCheckout.pollDelay(29, 0, true, 0)", 1000},
		{"takapayCheckout.pollDelay(30, 0, true, 0)", -1}, // 30 requests: no more, however the tab comes back
		{"takapayCheckout.pollDelay(30, 0, false, 0)", -1},
	} {
		if got := eval[int](t, ctx, c.expr); got != c.want {
			t.Errorf("%s = %d, want %d", c.expr, got, c.want)
		}
	}
}

// A page before the route choice never asks for the status: over ten virtual minutes, hidden
// and shown again, not one request. At the expiry it asks once and follows the answer.
func TestBrowserUnlockedPageDoesNotPoll(t *testing.T) {
	if testing.Short() {
		t.Skip("browser test")
	}
	chromiumPath(t)
	a := localapi.StartTestAPI(t, localapi.Options{AllowLocalhostURLs: true})
	shop := newMerchant(t)
	counter := newStatusCounter(t, a.URL)
	p := newPayment(t, a, `{"amount": 10, "expires_in_minutes": 15, "cancel_url": "`+shop.srv.URL+`/cancelled"}`)
	ctx := openPaused(t, browser(t), counter.srv.URL+p.Page, "route-bkash")
	if got := pollState(t, ctx); got != "off" {
		t.Fatalf("unlocked page: poll state %q, want off", got)
	}
	if err := advance(ctx, 5*time.Minute); err != nil {
		t.Fatal(err)
	}
	setHidden(t, ctx, true)
	if err := advance(ctx, time.Minute); err != nil {
		t.Fatal(err)
	}
	setHidden(t, ctx, false)
	if err := advance(ctx, 4*time.Minute); err != nil {
		t.Fatal(err)
	}
	if reqs := counter.requests(); len(reqs) != 0 {
		t.Fatalf("an unlocked page made %d status requests in 10 minutes: %v", len(reqs), reqs)
	}
	// The countdown still runs on the page's clock.
	if text := eval[string](t, ctx, `document.getElementById("countdown").textContent`); !strings.Contains(text, "left") {
		t.Fatalf("countdown %q", text)
	}
	// The expiry (15 min) passes on the server too; at zero the page asks once and goes to
	// the merchant's cancel_url.
	setExpiry(t, a, p.InvoiceID, time.Now().Add(-time.Second))
	if err := advance(ctx, 6*time.Minute); err != nil {
		t.Fatal(err)
	}
	if reqs := counter.requests(); len(reqs) != 1 || reqs[0].Status != 200 || reqs[0].IfNoneMatch != "" {
		t.Fatalf("at the expiry: %v, want one request answered 200", reqs)
	}
	landedOn(t, shop, "/cancelled?invoice_id="+p.InvoiceID)
}

// A locked page waiting for the provider polls on the schedule, with If-None-Match (304s),
// pauses while hidden, comes back with a short wait, stops after its budget with Check again,
// and follows an outcome that arrives from elsewhere to the merchant.
func TestBrowserLockedPagePolls(t *testing.T) {
	if testing.Short() {
		t.Skip("browser test")
	}
	chromiumPath(t)
	a := localapi.StartTestAPI(t, localapi.Options{AllowLocalhostURLs: true})
	shop := newMerchant(t)
	counter := newStatusCounter(t, a.URL)
	// A day to pay: the page's clock runs well over an hour here, and the check at the expiry
	// is another test's business.
	p := newPayment(t, a, `{"amount": 10, "expires_in_minutes": 1440, "redirect_url": "`+shop.srv.URL+`/thanks"}`)
	if r := a.Do(t, "POST", p.Page+"/lock", "", `{"route":"bkash","payer":"01712345678"}`); r.Status != 200 {
		t.Fatalf("lock: %d %s", r.Status, r.Body)
	}
	browserCtx := browser(t)
	ctx := openPaused(t, browserCtx, counter.srv.URL+p.Page, "approve")
	if got := pollState(t, ctx); got != "waiting 3000" {
		t.Fatalf("locked page: poll state %q, want waiting 3000", got)
	}
	// One virtual minute: requests at 3, 9, 21 and 45 s; the next is 30 s away.
	if err := advance(ctx, time.Minute); err != nil {
		t.Fatal(err)
	}
	reqs := counter.requests()
	if len(reqs) != 4 {
		t.Fatalf("in one minute: %d requests %v, want 4", len(reqs), reqs)
	}
	tag := reqs[0].ETag
	if reqs[0].IfNoneMatch != "" || reqs[0].Status != 200 || tag == "" {
		t.Fatalf("first request %+v: want a plain 200 with an ETag", reqs[0])
	}
	for i, r := range reqs[1:] {
		if r.IfNoneMatch != tag || r.Status != http.StatusNotModified {
			t.Fatalf("request %d %+v: want If-None-Match %s answered 304", i+2, r, tag)
		}
	}
	if got := pollState(t, ctx); got != "waiting 30000" {
		t.Fatalf("after four requests: %q, want waiting 30000", got)
	}

	// Hidden: no requests however long; shown again: the next one after 1 s.
	setHidden(t, ctx, true)
	if got := pollState(t, ctx); got != "paused" {
		t.Fatalf("hidden: %q, want paused", got)
	}
	if err := advance(ctx, 20*time.Minute); err != nil {
		t.Fatal(err)
	}
	if n := len(counter.requests()); n != 4 {
		t.Fatalf("a hidden page made %d requests, want none", n-4)
	}
	setHidden(t, ctx, false)
	if got := pollState(t, ctx); got != "waiting 1000" {
		t.Fatalf("shown again: %q, want waiting 1000", got)
	}
	if err := advance(ctx, 1500*time.Millisecond); err != nil {
		t.Fatal(err)
	}
	if n := len(counter.requests()); n != 5 {
		t.Fatalf("shown again: %d requests after 1.5 s, want 5", n)
	}

	// The budget: 45 s + 1 s were spent; then 3, 6, 12, 24 and 30 s waits while they stay
	// within 10 minutes (16 more of 30 s): 25 requests in all, then Check again.
	if err := advance(ctx, 15*time.Minute); err != nil {
		t.Fatal(err)
	}
	if n := len(counter.requests()); n != 25 {
		t.Fatalf("%d requests in all, want 25: %v", n, counter.requests())
	}
	if got := pollState(t, ctx); got != "stopped" {
		t.Fatalf("after the budget: %q, want stopped", got)
	}
	ok := eval[bool](t, ctx, `(function () {
		var a = document.getElementById("refresh"), note = document.getElementById("poll-stopped");
		return !!a && !!note && a.offsetParent !== null && note.offsetParent !== null &&
			a.textContent === "Check again" && a.getAttribute("href") === document.getElementById("checkout").getAttribute("data-status-url"); })()`)
	if !ok {
		t.Fatal("a stopped page does not show the Check again link and its note")
	}
	if err := advance(ctx, time.Hour); err != nil {
		t.Fatal(err)
	}
	if n := len(counter.requests()); n != 25 {
		t.Fatalf("a stopped page went on asking: %d requests", n)
	}
	// Check again loads the page (its href is the page, checked above): a fresh schedule.
	ctx = openPaused(t, browserCtx, counter.srv.URL+p.Page, "approve")
	if got := pollState(t, ctx); got != "waiting 3000" {
		t.Fatalf("the page loaded again: %q, want waiting 3000", got)
	}

	// The provider's outcome arrives elsewhere (here the sandbox notice through the API): the
	// next request sees it and the page goes to the merchant's redirect_url.
	if r := a.Do(t, "POST", p.Page+"/notices/approve", "", ""); r.Status != 200 {
		t.Fatalf("approve: %d %s", r.Status, r.Body)
	}
	if err := advance(ctx, 5*time.Second); err != nil {
		t.Fatal(err)
	}
	landedOn(t, shop, "/thanks?invoice_id="+p.InvoiceID)
	last := counter.requests()
	if r := last[len(last)-1]; r.Status != 200 || r.IfNoneMatch != "" {
		t.Fatalf("the request that saw the outcome: %+v", r)
	}
}
