package auth_test

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/takapay/payments/shared/auth"
	"github.com/takapay/payments/shared/foundation/apierr"
	"github.com/takapay/payments/shared/ratelimit"
)

// stubLimiter records the budgets it is asked for and refuses those listed in spent.
type stubLimiter struct {
	keys  []string
	spent map[string]bool
}

func (s *stubLimiter) Allow(_ context.Context, key string) (bool, time.Duration) {
	s.keys = append(s.keys, key)
	if s.spent[key] {
		return false, 3 * time.Second
	}
	return true, 0
}

// The limiter is consulted once per authenticated request, with the credential's workspace and
// environment (or "dashboard" for a session), and never for a request that fails
// authentication or names another workspace's session.
func TestLimiterAfterAuthentication(t *testing.T) {
	f := newSessionFixture(t)
	lim := &stubLimiter{spent: map[string]bool{wsB + "#sandbox": true}}
	a := f.authenticator(dashboard)
	a.Limiter = lim
	ctx := context.Background()
	bearer := func(k string) map[string]string { return map[string]string{"authorization": "Bearer " + k} }

	if _, err := a.Authenticate(ctx, req("POST", bearer(f.keyA))); err != nil {
		t.Fatal(err)
	}
	if _, err := a.AuthenticateWorkspace(ctx, req("GET", nil, cookie(f.tokens["dev"])), wsA); err != nil {
		t.Fatal(err)
	}
	// A key of wsA addressing wsB is wsA's traffic: charged to wsA, then 404.
	_, err := a.AuthenticateWorkspace(ctx, req("GET", bearer(f.keyA)), wsB)
	wantAPIErr(t, err, apierr.NotFound)
	// Failures never reach the limiter: unknown key, unknown session, non-member session,
	// cross-origin cookie write.
	_, err = a.Authenticate(ctx, req("POST", bearer(apiKey(t))))
	wantAPIErr(t, err, apierr.InvalidAPIKey)
	_, err = a.AuthenticateWorkspace(ctx, req("GET", nil, cookie(f.tokens["unknown"])), wsA)
	wantAPIErr(t, err, apierr.InvalidAPIKey)
	_, err = a.AuthenticateWorkspace(ctx, req("GET", nil, cookie(f.tokens["nomember"])), wsA)
	wantAPIErr(t, err, apierr.NotFound)
	_, err = a.AuthenticateWorkspace(ctx, req("POST", map[string]string{"origin": "https://evil.example"}, cookie(f.tokens["dev"])), wsA)
	wantAPIErr(t, err, apierr.ScopeOrEnvironmentDenied)
	want := []string{wsA + "#sandbox", wsA + "#dashboard", wsA + "#sandbox"}
	if !slices.Equal(lim.keys, want) {
		t.Fatalf("limiter keys = %q, want %q", lim.keys, want)
	}

	// A spent budget is 429 RATE_LIMITED with Retry-After.
	_, err = a.Authenticate(ctx, req("POST", bearer(f.keyB)))
	e := wantAPIErr(t, err, apierr.RateLimited)
	if e.Status() != 429 || e.Headers["Retry-After"] != "3" || !e.Code.Retryable() {
		t.Errorf("429: status %d, headers %v, retryable %v", e.Status(), e.Headers, e.Code.Retryable())
	}
	lim.spent[wsA+"#dashboard"] = true
	_, err = a.AuthenticateWorkspace(ctx, req("GET", nil, cookie(f.tokens["viewer"])), wsA)
	wantAPIErr(t, err, apierr.RateLimited)
	// The workspace's integrations keep their own budget.
	if _, err := a.AuthenticateWorkspace(ctx, req("GET", bearer(f.keyA)), wsA); err != nil {
		t.Errorf("a key of wsA after the dashboard budget was spent: %v", err)
	}
}

// After FailuresPerClient failed lookups from one address, that address is refused before any
// lookup (valid credentials too) until the window ends; malformed credentials cost no lookup
// and are not counted; other addresses are unaffected.
func TestFailuresPerClient(t *testing.T) {
	f := newSessionFixture(t)
	a := f.authenticator(dashboard)
	a.FailuresPerClient = &ratelimit.Window{Limit: 3, Period: time.Minute}
	ctx := context.Background()
	from := func(ip, key string) *auth.Identity {
		r := req("POST", map[string]string{"authorization": "Bearer " + key})
		r.SourceIP = ip
		id, _ := a.Authenticate(ctx, r)
		return id
	}
	for range 5 {
		from("198.51.100.7", "sk_sandbox_not-a-key") // malformed: no lookup, not counted
	}
	from("198.51.100.7", apiKey(t))
	from("198.51.100.7", apiKey(t))
	r := req("GET", nil, cookie(f.tokens["expired"]))
	r.SourceIP = "198.51.100.7"
	_, err := a.AuthenticateWorkspace(ctx, r, wsA) // a failed session lookup counts too
	wantAPIErr(t, err, apierr.InvalidAPIKey)
	lookups := len(f.keys.calls) + len(f.store.sessionCalls)

	r = req("POST", map[string]string{"authorization": "Bearer " + f.keyA})
	r.SourceIP = "198.51.100.7"
	_, err = a.Authenticate(ctx, r)
	e := wantAPIErr(t, err, apierr.RateLimited)
	if e.Headers["Retry-After"] != "60" {
		t.Errorf("Retry-After = %q, want 60", e.Headers["Retry-After"])
	}
	if n := len(f.keys.calls) + len(f.store.sessionCalls); n != lookups {
		t.Errorf("a refused address still cost %d lookups", n-lookups)
	}
	if from("203.0.113.5", f.keyA) == nil {
		t.Error("another address was refused")
	}
	f.now = f.now.Add(time.Minute)
	if from("198.51.100.7", f.keyA) == nil {
		t.Error("still refused in the next window")
	}
}
