package ratelimit

import (
	"errors"
	"testing"
	"time"

	"github.com/takapay/payments/shared/foundation/apierr"
)

func TestLimiterWindows(t *testing.T) {
	l := &CapabilityLimiter{PerToken: 2, PerClient: 3}
	t0 := time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)
	allow := func(token, client string, at time.Time) bool { return l.Allow(token, client, at) == nil }
	if !allow("a", "1.1.1.1", t0) || !allow("a", "1.1.1.1", t0) {
		t.Fatal("first two requests refused")
	}
	err := l.Allow("a", "1.1.1.1", t0.Add(10*time.Second))
	var ae *apierr.Error
	if !errors.As(err, &ae) || ae.Code != apierr.RateLimited || ae.Headers["Retry-After"] != "51" {
		t.Fatalf("third request on one token: %v %+v", err, ae)
	}
	// The client has now made three requests: a fresh token from it is over the client limit.
	if allow("b", "1.1.1.1", t0.Add(20*time.Second)) {
		t.Fatal("client limit not applied")
	}
	// Another client is unaffected; a new window resets both.
	if !allow("c", "2.2.2.2", t0.Add(20*time.Second)) {
		t.Fatal("another client refused")
	}
	if !allow("a", "1.1.1.1", t0.Add(61*time.Second)) {
		t.Fatal("a new minute still refused")
	}
	var nilLimiter *CapabilityLimiter
	if nilLimiter.Allow("x", "y", t0) != nil {
		t.Fatal("a nil limiter must allow")
	}
}
