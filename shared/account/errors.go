package account

import (
	"errors"
	"fmt"
	"time"
)

// FieldError is a validation error of one input field (the edge answers 422 naming Field and
// Rule). Message is English text for logs and tests; pages word it from Field and Rule.
type FieldError struct {
	Field   string
	Rule    string
	Message string
}

func (e *FieldError) Error() string { return e.Message }

// LimitedError means sign-in is refused for a while (too many failures for the account or
// from the client): the edge answers 429 with Retry-After in whole seconds (RetryAfter
// rounded up, at least 1).
type LimitedError struct {
	RetryAfter time.Duration
}

func (e *LimitedError) Error() string {
	return fmt.Sprintf("too many failed sign-ins: retry after %s", e.RetryAfter)
}

// RetryAfterSeconds is RetryAfter in whole seconds, rounded up, at least 1.
func (e *LimitedError) RetryAfterSeconds() int {
	s := int((e.RetryAfter + time.Second - 1) / time.Second)
	return max(1, s)
}

var (
	// ErrBadCredentials answers a sign-in whose email is unknown or whose password is wrong,
	// alike.
	ErrBadCredentials = errors.New("wrong email or password")
	// ErrInvalidToken answers a verify or reset link that is unknown, expired, already used
	// or malformed, alike.
	ErrInvalidToken = errors.New("this link is invalid or has expired")
	// ErrNoSession answers a session token that is malformed, unknown, revoked or expired.
	ErrNoSession = errors.New("no such session")
	// ErrUnknownUser means StartSession was given a user that does not exist.
	ErrUnknownUser = errors.New("no such user")
	// ErrConflict is what a Store returns when a create-only write finds the item exists, or
	// a conditional write loses its condition.
	ErrConflict = errors.New("conflicting write")
)
