package dashboard_test

import (
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	webhooks "github.com/takapay/payments/functions/dashboard-webhooks/handler"
	"github.com/takapay/payments/shared/local/localgw"
)

// Test events are limited per workspace across instances (issue 30 item 6c): a workspace that
// spent its TestsPerMinute through the gateway's instance of the function is refused by a
// second instance too (its own limiter, the same table), so adding instances does not multiply
// what the dashboard can make Takapay send to a URL. Before, each instance counted alone and
// the second sent the 11th event.
func TestWebhookTestEventsAreLimitedAcrossInstances(t *testing.T) {
	s := startStack(t, map[string]string{"ALLOW_LOCALHOST_URLS": "true"})
	a := s.api
	owner := s.browser(t)
	p := owner.get("/dashboard/sign-in")
	p = owner.post("/dashboard/sign-in", url.Values{"csrf": {csrf(t, p)}, "email": {a.Creds.DashboardEmail}, "password": {a.Creds.DashboardPassword}})
	if p.status != 200 || !strings.HasSuffix(p.url, "/dashboard") {
		t.Fatalf("owner sign-in: %d at %s", p.status, p.url)
	}
	rc := newReceiver(t, "whsec_"+strings.Repeat("A", 44))
	wp := owner.get("/dashboard/webhooks")
	// Events refused for want of a secret count too: each made the function try.
	for i := range webhooks.TestsPerMinute {
		if p := owner.post("/dashboard/webhooks/test", url.Values{"csrf": {csrf(t, wp)}, "url": {rc.srv.URL + "/x"}}); p.status == http.StatusTooManyRequests {
			t.Fatalf("test event %d of %d refused", i+1, webhooks.TestsPerMinute)
		}
	}
	// A second instance of the function over the same table, behind a gateway of its own.
	fn := webhooks.Function
	gw, err := localgw.New([]localgw.Route{{Method: "POST", Path: "/dashboard/webhooks/test", Function: fn.LogicalID}},
		map[string]localgw.Handler{fn.LogicalID: localgw.Handler(fn.Lambda(a.Deps[fn.LogicalID]))}, localgw.Options{})
	if err != nil {
		t.Fatal(err)
	}
	second := httptest.NewServer(gw)
	t.Cleanup(second.Close)
	req, _ := http.NewRequest("POST", second.URL+"/dashboard/webhooks/test",
		strings.NewReader(url.Values{"csrf": {csrf(t, wp)}, "url": {rc.srv.URL + "/x"}}.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Origin", owner.origin)
	req.Header.Set("Sec-Fetch-Site", "same-origin")
	// The same browser's cookies (its session), sent to the second instance's address.
	first, _ := url.Parse(a.URL + "/dashboard/webhooks/test")
	for _, c := range owner.c.Jar.Cookies(first) {
		req.AddCookie(c)
	}
	noFollow := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	req.Header.Set("Accept", "text/html")
	res, err := noFollow.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	body, _ := io.ReadAll(res.Body)
	if p := (&page{status: res.StatusCode, header: res.Header, body: string(body)}); p.status != http.StatusTooManyRequests || p.header.Get("Retry-After") == "" {
		t.Fatalf("the 11th test event in a minute, through a second instance: %d (Retry-After %q)\n%.4000s",
			p.status, p.header.Get("Retry-After"), p.body)
	}
}
