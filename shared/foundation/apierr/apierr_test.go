package apierr_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/takapay/payments/shared/foundation/apierr"
)

func TestCodesHaveAllowedStatus(t *testing.T) {
	allowed := map[int]bool{400: true, 401: true, 403: true, 404: true, 405: true, 409: true,
		413: true, 422: true, 429: true, 500: true, 503: true}
	codes := apierr.Codes()
	if len(codes) == 0 {
		t.Fatal("Codes() is empty")
	}
	seen := map[apierr.Code]bool{}
	for _, c := range codes {
		if seen[c] {
			t.Errorf("Codes() lists %s twice", c)
		}
		seen[c] = true
		if !allowed[c.Status()] {
			t.Errorf("%s.Status() = %d, not one of the allowed statuses", c, c.Status())
		}
		if c == "" || strings.ToUpper(string(c)) != string(c) || strings.ContainsAny(string(c), " -") {
			t.Errorf("code %q is not UPPER_SNAKE_CASE", c)
		}
		// Every 5xx is a transient condition the client may retry; no 4xx except the
		// explicitly transient ones is.
		if c.Status() >= 500 && !c.Retryable() {
			t.Errorf("%s is a %d but not retryable", c, c.Status())
		}
	}
}

func TestCodeTable(t *testing.T) {
	tests := []struct {
		code      apierr.Code
		spelled   string
		status    int
		retryable bool
	}{
		// The four codes the specification names.
		{apierr.InvalidEnvironment, "INVALID_ENVIRONMENT", 400, false},
		{apierr.InvalidAPIKey, "INVALID_API_KEY", 401, false},
		{apierr.ScopeOrEnvironmentDenied, "SCOPE_OR_ENVIRONMENT_DENIED", 403, false},
		{apierr.AuthServiceUnavailable, "AUTH_SERVICE_UNAVAILABLE", 503, true},
		// The service's own codes.
		{apierr.MalformedRequest, "MALFORMED_REQUEST", 400, false},
		{apierr.RequestTooLarge, "REQUEST_TOO_LARGE", 413, false},
		{apierr.ValidationFailed, "VALIDATION_FAILED", 422, false},
		{apierr.NotFound, "NOT_FOUND", 404, false},
		{apierr.NotDeployed, "NOT_DEPLOYED", 404, false},
		{apierr.MethodNotAllowed, "METHOD_NOT_ALLOWED", 405, false},
		{apierr.IdempotencyKeyReused, "IDEMPOTENCY_KEY_REUSED", 409, false},
		{apierr.VersionConflict, "VERSION_CONFLICT", 409, false},
		{apierr.StateConflict, "STATE_CONFLICT", 409, false},
		{apierr.RateLimited, "RATE_LIMITED", 429, true},
		{apierr.ServiceUnavailable, "SERVICE_UNAVAILABLE", 503, true},
		{apierr.Internal, "INTERNAL_ERROR", 500, true},
	}
	listed := map[apierr.Code]bool{}
	for _, c := range apierr.Codes() {
		listed[c] = true
	}
	for _, tt := range tests {
		t.Run(tt.spelled, func(t *testing.T) {
			if string(tt.code) != tt.spelled {
				t.Errorf("code spelled %q, want %q", tt.code, tt.spelled)
			}
			if got := tt.code.Status(); got != tt.status {
				t.Errorf("Status() = %d, want %d", got, tt.status)
			}
			if got := tt.code.Retryable(); got != tt.retryable {
				t.Errorf("Retryable() = %v, want %v", got, tt.retryable)
			}
			if !listed[tt.code] {
				t.Errorf("Codes() does not list %s", tt.code)
			}
			e := apierr.New(tt.code, "m")
			if e.Status() != tt.status {
				t.Errorf("Error.Status() = %d, want %d", e.Status(), tt.status)
			}
		})
	}
	if len(listed) != len(tests) {
		t.Errorf("Codes() has %d codes, the table here has %d: add the new code to this test", len(listed), len(tests))
	}
}

func TestUnknownCode(t *testing.T) {
	c := apierr.Code("NO_SUCH_CODE")
	if c.Status() != 500 {
		t.Errorf("unknown code Status() = %d, want 500", c.Status())
	}
	if !c.Retryable() {
		t.Error("unknown code should be retryable (it renders as a 500)")
	}
}

func TestAs(t *testing.T) {
	plain := errors.New("dial tcp 10.0.0.1:443: secret connection detail")
	tests := []struct {
		name     string
		err      error
		wantCode apierr.Code
		wantMsg  string // "" means "must not contain the plain error text"
	}{
		{"plain error", plain, apierr.Internal, ""},
		{"io.EOF", io.EOF, apierr.Internal, ""},
		{"apierr", apierr.New(apierr.NotFound, "no such %s", "thing"), apierr.NotFound, "no such thing"},
		{"wrapped apierr", fmt.Errorf("ctx: %w", apierr.New(apierr.RateLimited, "slow down")), apierr.RateLimited, "slow down"},
		{"apierr with cause", apierr.Wrap(apierr.ServiceUnavailable, plain, "store down"), apierr.ServiceUnavailable, "store down"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := apierr.As(tt.err)
			if e == nil {
				t.Fatal("As returned nil")
			}
			if e.Code != tt.wantCode {
				t.Errorf("code = %s, want %s", e.Code, tt.wantCode)
			}
			if tt.wantMsg != "" && e.Message != tt.wantMsg {
				t.Errorf("message = %q, want %q", e.Message, tt.wantMsg)
			}
			if tt.wantMsg == "" {
				if e.Message == "" || strings.Contains(e.Message, tt.err.Error()) {
					t.Errorf("message %q must be generic and not leak %q", e.Message, tt.err.Error())
				}
				if !errors.Is(e, tt.err) {
					t.Error("the original error must be kept as the cause")
				}
			}
		})
	}
	// As returns the same *Error, not a copy.
	orig := apierr.New(apierr.NotFound, "x")
	if apierr.As(orig) != orig {
		t.Error("As(*Error) should return the same pointer")
	}
}

func TestErrorStringAndUnwrap(t *testing.T) {
	cause := errors.New("boom")
	tests := []struct {
		err  *apierr.Error
		want string
	}{
		{apierr.New(apierr.NotFound, "no payment %d", 7), "NOT_FOUND: no payment 7"},
		{apierr.Wrap(apierr.Internal, cause, "internal"), "INTERNAL_ERROR: internal: boom"},
	}
	for _, tt := range tests {
		if got := tt.err.Error(); got != tt.want {
			t.Errorf("Error() = %q, want %q", got, tt.want)
		}
	}
	if !errors.Is(apierr.Wrap(apierr.Internal, cause, "x"), cause) {
		t.Error("Wrap must unwrap to its cause")
	}
	if apierr.New(apierr.Internal, "x").Unwrap() != nil {
		t.Error("New must have no cause")
	}
	// New formats its arguments; a message without args is not treated as a format of args.
	if got := apierr.New(apierr.NotFound, "100%% sure").Message; got != "100% sure" {
		t.Errorf("message = %q", got)
	}
}

func TestInvalid(t *testing.T) {
	v := func(i int) apierr.Violation {
		return apierr.Violation{Path: fmt.Sprintf("body.f%d", i), Rule: fmt.Sprintf("rule %d", i)}
	}
	many := func(n int) []apierr.Violation {
		out := make([]apierr.Violation, n)
		for i := range out {
			out[i] = v(i)
		}
		return out
	}
	joined := func(n int) string {
		parts := make([]string, n)
		for i := range parts {
			parts[i] = v(i).String()
		}
		return strings.Join(parts, "; ")
	}
	tests := []struct {
		name string
		in   []apierr.Violation
		want string
	}{
		{"one", []apierr.Violation{{Path: "body.amount", Rule: "is required"}}, "body.amount: is required"},
		{"two", []apierr.Violation{{Path: "body.amount", Rule: "is required"}, {Path: "body.reference", Rule: "must not be empty"}},
			"body.amount: is required; body.reference: must not be empty"},
		{"nine", many(9), joined(9)},
		{"exactly ten", many(10), joined(10)},
		{"eleven", many(11), joined(10) + "; and 1 more"},
		{"twenty-five", many(25), joined(10) + "; and 15 more"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := apierr.Invalid(tt.in...)
			if e.Code != apierr.ValidationFailed {
				t.Errorf("code = %s, want VALIDATION_FAILED", e.Code)
			}
			if e.Status() != 422 {
				t.Errorf("status = %d, want 422", e.Status())
			}
			if e.Message != tt.want {
				t.Errorf("message =\n %q\nwant\n %q", e.Message, tt.want)
			}
		})
	}
}

func TestEnvelopeJSON(t *testing.T) {
	e := apierr.Wrap(apierr.AuthServiceUnavailable, errors.New("secret cause"), "the key store is unavailable")
	b, err := json.Marshal(e.Envelope("0123456789abcdef01234567"))
	if err != nil {
		t.Fatal(err)
	}
	var top map[string]json.RawMessage
	if err := json.Unmarshal(b, &top); err != nil {
		t.Fatal(err)
	}
	if len(top) != 1 || top["error"] == nil {
		t.Fatalf("envelope top level = %s, want exactly {\"error\":...}", b)
	}
	var inner map[string]any
	if err := json.Unmarshal(top["error"], &inner); err != nil {
		t.Fatal(err)
	}
	keys := make([]string, 0, len(inner))
	for k := range inner {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	if want := []string{"code", "correlation_id", "message", "retryable"}; !reflect.DeepEqual(keys, want) {
		t.Errorf("envelope keys = %v, want %v", keys, want)
	}
	want := map[string]any{
		"code":           "AUTH_SERVICE_UNAVAILABLE",
		"message":        "the key store is unavailable",
		"retryable":      true,
		"correlation_id": "0123456789abcdef01234567",
	}
	if !reflect.DeepEqual(inner, want) {
		t.Errorf("envelope = %v, want %v", inner, want)
	}
	if strings.Contains(string(b), "secret cause") {
		t.Errorf("envelope leaks the cause: %s", b)
	}
}
