package dashboard

import (
	"context"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/takapay/payments/shared/foundation/web"
	"github.com/takapay/payments/shared/ratelimit"
)

// counters is a WindowStore in memory: what the DynamoDB items do, one map entry per item.
type counters struct {
	mu     sync.Mutex
	n      map[string]int
	writes int
}

func (c *counters) CountInWindow(_ context.Context, key string, limit int, _ time.Time) (bool, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.writes++
	if c.n == nil {
		c.n = map[string]int{}
	}
	if c.n[key] >= limit {
		return false, nil
	}
	c.n[key]++
	return true, nil
}

// Two instances (two FormLimits, each with its own Quotas) over one store: a client address
// (an IPv6 /64 as one) gets PerClient posts of a form in a window whichever instance it
// reaches, everyone together Global, and each form counts apart; a refused instance asks the
// store no more until the window ends.
func TestFormLimitsPerClientAndGlobalAcrossInstances(t *testing.T) {
	store := &counters{}
	now := time.Date(2026, 11, 28, 10, 0, 1, 0, time.UTC)
	clock := func() time.Time { return now }
	instance := func() *FormLimits {
		return &FormLimits{Quotas: &ratelimit.Quotas{Store: store, Now: clock}, PerClient: 3, Global: 7}
	}
	a, b := instance(), instance()
	ctx := context.Background()
	for i := range 3 {
		if ok, _ := []*FormLimits{a, b}[i%2].Allow(ctx, FormSignUp, "2001:db8:5:6::"+string(rune('1'+i))); !ok {
			t.Fatalf("post %d of the /64 refused", i+1)
		}
	}
	ok, wait := b.Allow(ctx, FormSignUp, "2001:db8:5:6:ffff::9")
	if ok || wait != FormWindow-time.Second {
		t.Fatalf("the /64's fourth post: %v, wait %v; want refused until the window ends (%v)", ok, wait, FormWindow-time.Second)
	}
	if ok, _ := a.Allow(ctx, FormReset, "2001:db8:5:6::1"); !ok {
		t.Fatal("a reset counted against sign-ups")
	}
	writes := store.writes
	if ok, _ := b.Allow(ctx, FormSignUp, "2001:db8:5:6::1"); ok || store.writes != writes {
		t.Fatalf("a refused instance asked the store again (%d writes)", store.writes-writes)
	}
	// Global: 7 sign-ups from everyone; the /64 made 3, four other addresses make 4 more.
	for i, ip := range []string{"203.0.113.1", "203.0.113.2", "203.0.113.3", "203.0.113.4"} {
		if ok, _ := []*FormLimits{a, b}[i%2].Allow(ctx, FormSignUp, ip); !ok {
			t.Fatalf("sign-up from %s refused", ip)
		}
	}
	if ok, _ := a.Allow(ctx, FormSignUp, "203.0.113.5"); ok {
		t.Fatal("a sign-up past the global limit from a new address was allowed")
	}
	now = now.Add(FormWindow)
	if ok, _ := b.Allow(ctx, FormSignUp, "2001:db8:5:6::1"); !ok {
		t.Fatal("the next window still refuses")
	}
}

// beginOnly is a passkey service whose sign-in ceremony begins (the rest is not needed here).
type beginOnly struct{ Passkeys }

func (beginOnly) BeginLogin(context.Context) (string, string, error) {
	return `{"publicKey":{}}`, "c1", nil
}

// Every limited form, through its handler: the client's second post in the window (limit 1)
// is a 429 page with Retry-After and the link back to sign in; an invalid form (422) is
// refused before it counts.
func TestEveryLimitedFormAnswers429(t *testing.T) {
	s, m := newService()
	s.Passkeys = beginOnly{}
	s.FormLimits = &FormLimits{Quotas: &ratelimit.Quotas{Store: &counters{}}, PerClient: 1}
	tok := randomToken()
	pre := []string{preCSRFCookie + "=" + tok}
	session := m.signIn("owner", "owner")
	forms := []struct {
		name string
		h    web.HandlerFunc
		c    call
		once bool // a create form: each post is a new rendering's one-use token (once.go)
	}{
		{"sign-up", s.SignUp, call{path: "/dashboard/sign-up", cookies: pre,
			form: url.Values{"csrf": {tok}, "email": {"a@shop.com.bd"}, "password": {"a long passphrase"}, "workspace": {"Shop"}}}, false},
		{"forgot", s.Forgot, call{path: "/dashboard/forgot-password", cookies: pre, form: url.Values{"csrf": {tok}, "email": {"a@shop.com.bd"}}}, false},
		{"passkey sign-in", s.PasskeySignIn, call{path: "/dashboard/passkeys/sign-in", cookies: pre, form: url.Values{"csrf": {tok}}}, false},
		{"invite", s.InviteMember, call{path: "/dashboard/team/invites", cookies: []string{SessionCookie + "=" + session},
			form: url.Values{"csrf": {sessionCSRF(session)}, "email": {"x@shop.com.bd"}, "role": {"developer"}}}, true},
	}
	for _, f := range forms {
		f.c.method = "POST"
		bad := f.c
		bad.form = url.Values{}
		for k, v := range f.c.form {
			bad.form[k] = v
		}
		if bad.form.Has("email") {
			bad.form.Set("email", "not an email")
			if r := do(t, f.h, bad); r.Status != 422 {
				t.Fatalf("%s, invalid: %d", f.name, r.Status)
			}
		}
		if f.once {
			f.c.form.Set(onceField, randomToken())
		}
		if r := do(t, f.h, f.c); r.Status >= 400 {
			t.Fatalf("%s, first post: %d\n%s", f.name, r.Status, body(r))
		}
		if f.once {
			f.c.form.Set(onceField, randomToken())
		}
		r := do(t, f.h, f.c)
		if r.Status != 429 || r.Headers["Retry-After"] == "" || !strings.Contains(body(r), `href="/dashboard/sign-in"`) ||
			!strings.Contains(body(r), strings.SplitN(messagesEN["dash.limited.form"], " {", 2)[0][:40]) {
			t.Errorf("%s, second post: %d, Retry-After %q\n%s", f.name, r.Status, r.Headers["Retry-After"], body(r))
		}
	}
}
