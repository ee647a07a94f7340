package account

import (
	"errors"

	"github.com/takapay/payments/shared/foundation/apierr"
)

// The package's refusals are *apierr.Error (the one domain error type; apierr's table maps
// each code to its status once): a bad input is apierr.Field (VALIDATION_FAILED naming the
// field and the rule, e.g. "password"/"min_length", the English sentence its message); a
// locked sign-in is apierr.Limited (RATE_LIMITED with Retry-After in whole seconds, rounded
// up, at least 1); the others below are compared with errors.Is.
var (
	// ErrBadCredentials answers a sign-in whose email is unknown or whose password is wrong,
	// alike (the API answers a bad session cookie with the same code).
	ErrBadCredentials = apierr.New(apierr.InvalidAPIKey, "wrong email or password")
	// ErrInvalidToken answers a verify or reset link that is unknown, expired, already used
	// or malformed, alike.
	ErrInvalidToken = apierr.New(apierr.NotFound, "this link is invalid or has expired")
	// ErrNoSession answers a session token that is malformed, unknown, revoked or expired.
	ErrNoSession = apierr.New(apierr.InvalidAPIKey, "no such session")
	// ErrAccountExists answers a verification whose email got an account in the meantime
	// (another sign-up's link was used first): sign in.
	ErrAccountExists = apierr.New(apierr.StateConflict, "this email already has an account: sign in")
)

// The store's answers (a Store's contract, not refusals of a person's request).
var (
	// ErrUnknownUser means StartSession was given a user that does not exist.
	ErrUnknownUser = errors.New("no such user")
	// ErrConflict is what a Store returns when a create-only write finds the item exists, or
	// a conditional write loses its condition.
	ErrConflict = errors.New("conflicting write")
)
