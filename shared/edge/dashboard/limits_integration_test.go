package dashboard_test

import (
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/takapay/payments/shared/local/localapi"
)

// The attacker's flood of sign-ups and password resets from one client, through the real
// gateway, spread over two instances of the functions (two gateways, each with its own
// handlers and memory, on one DynamoDB table): the forms are limited per client address across
// both, by the address the gateway saw whatever X-Forwarded-For says, with 429, Retry-After
// and a page that links back to sign-in, in the page's language; meanwhile a signed-in
// merchant's keys page still answers.
func TestPublicFormFloodIsLimitedAcrossInstances(t *testing.T) {
	const perClient = 4
	s := startStack(t, map[string]string{"DASHBOARD_FORM_LIMIT_PER_CLIENT": strconv.Itoa(perClient)})
	gw2, _, err := localapi.New(s.api.Stack, s.api.Options)
	if err != nil {
		t.Fatal(err)
	}
	second := httptest.NewServer(gw2)
	t.Cleanup(second.Close)
	// Both instances answer for the same origin (the cookies and the forms' Origin check).
	instances := []string{s.api.URL, strings.Replace(second.URL, "127.0.0.1", "localhost", 1)}

	merchant := s.browser(t)
	p := merchant.get("/dashboard/sign-in")
	p = merchant.post("/dashboard/sign-in", url.Values{"csrf": {csrf(t, p)}, "email": {s.api.Creds.DashboardEmail}, "password": {s.api.Creds.DashboardPassword}})
	if p.status != 200 || !strings.HasSuffix(p.url, "/dashboard") {
		t.Fatalf("merchant's sign-in: %d at %s", p.status, p.url)
	}

	attacker := s.browser(t)
	flood := func(path string, form func(i int) url.Values, lang string) []*page {
		t.Helper()
		var out []*page
		for i := range 2*perClient + 2 {
			base := instances[i%2]
			req, _ := http.NewRequest("GET", base+path, nil)
			req.Header.Set("Accept-Language", lang)
			f := form(i)
			f.Set("csrf", csrf(t, attacker.do(req)))
			req, _ = http.NewRequest("POST", base+path, strings.NewReader(f.Encode()))
			req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
			req.Header.Set("Origin", s.api.URL)
			req.Header.Set("Sec-Fetch-Site", "same-origin")
			req.Header.Set("Accept-Language", lang)
			// A header the client writes is no client address.
			req.Header.Set("X-Forwarded-For", "198.51.100."+strconv.Itoa(i+1))
			out = append(out, attacker.do(req))
			if keys := merchant.get("/dashboard/keys"); keys.status != 200 {
				t.Fatalf("the merchant's keys page during the flood: %d", keys.status)
			}
		}
		return out
	}
	check := func(what string, pages []*page, lang, words string) {
		t.Helper()
		for i, p := range pages {
			if i < perClient {
				if p.status != 200 || !strings.Contains(p.url, "/dashboard/check-email") {
					t.Fatalf("%s %d (within the limit): %d at %s\n%.1500s", what, i+1, p.status, p.url, p.body)
				}
				continue
			}
			if p.status != http.StatusTooManyRequests {
				t.Fatalf("%s %d from one client over two instances: %d at %s, want 429", what, i+1, p.status, p.url)
			}
			if secs, err := strconv.Atoi(p.header.Get("Retry-After")); err != nil || secs < 1 || secs > 600 {
				t.Errorf("%s %d: Retry-After %q, want 1..600 seconds", what, i+1, p.header.Get("Retry-After"))
			}
			for _, want := range []string{`<html lang="` + lang + `"`, `href="/dashboard/sign-in"`, words} {
				if !strings.Contains(p.body, want) {
					t.Errorf("%s %d: the 429 page lacks %q:\n%.2000s", what, i+1, want, p.body)
				}
			}
		}
	}
	clearOfWindowEdge(t, 2*time.Minute) // each flood's posts in one window of the form limit
	signUps := flood("/dashboard/sign-up", func(i int) url.Values {
		return url.Values{"email": {"flood" + strconv.Itoa(i) + "@victim.com.bd"}, "password": {"a long sandbox passphrase"}, "workspace": {"Flood"}}
	}, "en")
	check("sign-up", signUps, "en", "too many requests")
	// Resets are counted apart from sign-ups: the same client has its own allowance of them.
	resets := flood("/dashboard/forgot-password", func(i int) url.Values {
		return url.Values{"email": {"owner" + strconv.Itoa(i) + "@victim.com.bd"}}
	}, "bn")
	check("reset", resets, "bn", "অনেক বেশি অনুরোধ")

	// A refusal costs at most one conditional write (the client's counter), and none once
	// the instance has seen its window spent.
	lines := map[string]float64{}
	for _, l := range s.api.Logs.Lines() {
		if id, _ := l["correlation_id"].(string); id != "" && l["msg"] == "request" {
			n, _ := l["ddb_requests"].(float64)
			lines[id] = n
		}
	}
	for _, p := range append(signUps[perClient:], resets[perClient:]...) {
		n, ok := lines[p.header.Get("X-Correlation-Id")]
		if !ok {
			t.Fatalf("no log line for a refused request (%q)", p.header.Get("X-Correlation-Id"))
		}
		if n > 1 {
			t.Errorf("a refused post made %v DynamoDB requests, want at most 1", n)
		}
	}
	if keys := merchant.get("/dashboard/keys"); keys.status != 200 {
		t.Fatalf("the merchant's keys page after the flood: %d", keys.status)
	}
}
