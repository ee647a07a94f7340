package apierr_test

import (
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/takapay/payments/shared/foundation/apierr"
)

// Retry-After is whole seconds, rounded up, at least one; RetryAfter reads it back.
func TestLimitedRetryAfter(t *testing.T) {
	for d, want := range map[int64]int{0: 1, 1: 1, 1e9: 1, 1e9 + 1: 2, 60e9: 60} {
		e := apierr.Limited(time.Duration(d), "slow down")
		if got := e.Headers["Retry-After"]; got != fmt.Sprint(want) {
			t.Errorf("Limited(%d ns): Retry-After %q, want %d", d, got, want)
		}
		if got := e.RetryAfter(); got != time.Duration(want)*time.Second {
			t.Errorf("Limited(%d ns).RetryAfter() = %s, want %ds", d, got, want)
		}
		if e.Code != apierr.RateLimited || e.Status() != 429 {
			t.Errorf("Limited: %s %d", e.Code, e.Status())
		}
	}
	if got := apierr.New(apierr.RateLimited, "x").RetryAfter(); got != 0 {
		t.Errorf("no Retry-After: %s", got)
	}
}

// A rule's field refusal keeps its English message and names field and rule in its violation.
func TestField(t *testing.T) {
	err := fmt.Errorf("wrapped: %w", apierr.Field("password", "min_length", "password must be at least 12 characters"))
	e, v, ok := apierr.FieldOf(err)
	if !ok || v != (apierr.Violation{Path: "password", Rule: "min_length"}) || e.Message != "password must be at least 12 characters" ||
		e.Status() != 422 {
		t.Fatalf("FieldOf = %v, %+v, %v", e, v, ok)
	}
	for _, other := range []error{errors.New("plain"), apierr.New(apierr.NotFound, "x"), &apierr.Error{Code: apierr.ValidationFailed}} {
		if _, _, ok := apierr.FieldOf(other); ok {
			t.Errorf("FieldOf(%v) ok", other)
		}
	}
}
