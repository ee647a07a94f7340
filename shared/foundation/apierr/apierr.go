// Package apierr defines the service's error codes, the HTTP status each one maps to, and the
// error envelope every error response uses. The mapping lives here and nowhere else.
package apierr

import (
	"errors"
	"fmt"
	"net/http"
	"strings"
)

// Code is a stable, machine-readable error code sent in the envelope.
type Code string

// The four codes the specification names, spelled exactly as it spells them.
const (
	InvalidEnvironment       Code = "INVALID_ENVIRONMENT"
	InvalidAPIKey            Code = "INVALID_API_KEY"
	ScopeOrEnvironmentDenied Code = "SCOPE_OR_ENVIRONMENT_DENIED"
	AuthServiceUnavailable   Code = "AUTH_SERVICE_UNAVAILABLE"
)

// Codes this service adds for the statuses the specification lists without a code.
const (
	MalformedRequest     Code = "MALFORMED_REQUEST"
	RequestTooLarge      Code = "REQUEST_TOO_LARGE"
	ValidationFailed     Code = "VALIDATION_FAILED"
	NotFound             Code = "NOT_FOUND"
	NotDeployed          Code = "NOT_DEPLOYED"
	MethodNotAllowed     Code = "METHOD_NOT_ALLOWED"
	IdempotencyKeyReused Code = "IDEMPOTENCY_KEY_REUSED"
	VersionConflict      Code = "VERSION_CONFLICT"
	StateConflict        Code = "STATE_CONFLICT"
	RateLimited          Code = "RATE_LIMITED"
	ServiceUnavailable   Code = "SERVICE_UNAVAILABLE"
	Internal             Code = "INTERNAL_ERROR"
)

type mapping struct {
	status    int
	retryable bool
}

// table is the single place where a code gets its HTTP status and retryability.
var table = map[Code]mapping{
	MalformedRequest:         {http.StatusBadRequest, false},
	InvalidEnvironment:       {http.StatusBadRequest, false},
	InvalidAPIKey:            {http.StatusUnauthorized, false},
	ScopeOrEnvironmentDenied: {http.StatusForbidden, false},
	NotFound:                 {http.StatusNotFound, false},
	NotDeployed:              {http.StatusNotFound, false},
	MethodNotAllowed:         {http.StatusMethodNotAllowed, false},
	IdempotencyKeyReused:     {http.StatusConflict, false},
	VersionConflict:          {http.StatusConflict, false},
	StateConflict:            {http.StatusConflict, false},
	RequestTooLarge:          {http.StatusRequestEntityTooLarge, false},
	ValidationFailed:         {http.StatusUnprocessableEntity, false},
	RateLimited:              {http.StatusTooManyRequests, true},
	Internal:                 {http.StatusInternalServerError, true},
	AuthServiceUnavailable:   {http.StatusServiceUnavailable, true},
	ServiceUnavailable:       {http.StatusServiceUnavailable, true},
}

// Codes returns every defined code (for documentation and contract tests).
func Codes() []Code {
	out := make([]Code, 0, len(table))
	for c := range table {
		out = append(out, c)
	}
	return out
}

// Status returns the HTTP status a code maps to (500 for an unknown code).
func (c Code) Status() int {
	if m, ok := table[c]; ok {
		return m.status
	}
	return http.StatusInternalServerError
}

// Retryable reports whether a client may retry a request that failed with this code.
func (c Code) Retryable() bool {
	if m, ok := table[c]; ok {
		return m.retryable
	}
	return true
}

// Error is an error meant for the client: a code, a safe message, and an optional cause that
// is logged but never sent.
type Error struct {
	Code    Code
	Message string
	Cause   error
	// Headers are extra response headers (e.g. Allow on a 405).
	Headers map[string]string
	// Violations are the broken rules of a VALIDATION_FAILED error.
	Violations []Violation
}

// Error implements the error interface with the code and message (never the cause's secrets).
func (e *Error) Error() string {
	if e.Cause != nil {
		return fmt.Sprintf("%s: %s: %v", e.Code, e.Message, e.Cause)
	}
	return fmt.Sprintf("%s: %s", e.Code, e.Message)
}

// Unwrap returns the cause.
func (e *Error) Unwrap() error { return e.Cause }

// Status is the HTTP status of the error.
func (e *Error) Status() int { return e.Code.Status() }

// New returns an error with a code and a client-safe message.
func New(code Code, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...)}
}

// Wrap returns an error with a code, a client-safe message and a cause for the log only.
func Wrap(code Code, cause error, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...), Cause: cause}
}

// As converts any error into an *Error; anything that is not one becomes INTERNAL_ERROR with a
// generic message and the original error kept as the cause for the log.
func As(err error) *Error {
	var e *Error
	if errors.As(err, &e) {
		return e
	}
	return &Error{Code: Internal, Message: "internal error; retry later with the same Idempotency-Key", Cause: err}
}

// Violation is one broken validation rule at a field path such as body.items[3].quantity.
type Violation struct {
	Path string
	Rule string
}

// String renders the violation as "path: rule".
func (v Violation) String() string { return v.Path + ": " + v.Rule }

// maxListed bounds how many violations one message lists.
const maxListed = 10

// Invalid returns a VALIDATION_FAILED error whose message names each field path and the rule it broke.
func Invalid(vs ...Violation) *Error {
	parts := make([]string, 0, len(vs))
	for i, v := range vs {
		if i == maxListed {
			parts = append(parts, fmt.Sprintf("and %d more", len(vs)-maxListed))
			break
		}
		parts = append(parts, v.String())
	}
	return &Error{Code: ValidationFailed, Message: strings.Join(parts, "; "), Violations: vs}
}

// Envelope is the JSON error body: exactly {"error":{code,message,retryable,correlation_id}}.
type Envelope struct {
	Error EnvelopeBody `json:"error"`
}

// EnvelopeBody is the inner object of the envelope.
type EnvelopeBody struct {
	Code          Code   `json:"code"`
	Message       string `json:"message"`
	Retryable     bool   `json:"retryable"`
	CorrelationID string `json:"correlation_id"`
}

// Envelope renders the error for a response with the request's correlation id.
func (e *Error) Envelope(correlationID string) Envelope {
	return Envelope{Error: EnvelopeBody{
		Code:          e.Code,
		Message:       e.Message,
		Retryable:     e.Code.Retryable(),
		CorrelationID: correlationID,
	}}
}
