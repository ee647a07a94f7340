package credential

import (
	"errors"

	"github.com/takapay/payments/shared/apierr"
)

// FieldError is a validation failure of one input field: the HTTP edge answers it 422
// VALIDATION_FAILED naming Field and Rule (errors.As to *apierr.Error gives exactly that, so
// apierr.As maps it without knowing this package).
type FieldError struct {
	// Field is the input's name: "name", "environment", "scopes", "grace".
	Field string
	// Rule is the broken rule, worded for people ("must be one of now, 1h, 24h, 7d").
	Rule string
}

func (e *FieldError) Error() string { return e.Field + ": " + e.Rule }

// As converts the error to the API's 422 VALIDATION_FAILED.
func (e *FieldError) As(target any) bool {
	if t, ok := target.(**apierr.Error); ok {
		*t = apierr.Invalid(apierr.Violation{Path: e.Field, Rule: e.Rule})
		return true
	}
	return false
}

// Error is a refusal that is not about one field (a missing key, a state that forbids the
// action); Code says how the edge answers it (404 NOT_FOUND, 409 STATE_CONFLICT).
type Error struct {
	Code    apierr.Code
	Message string
}

func (e *Error) Error() string { return e.Message }

// As converts the error to the API's envelope error with the same code and message.
func (e *Error) As(target any) bool {
	if t, ok := target.(**apierr.Error); ok {
		*t = apierr.New(e.Code, "%s", e.Message)
		return true
	}
	return false
}

// The refusals (compare with errors.Is).
var (
	// ErrKeyNotFound: no key with that id in that workspace (another workspace's key, a
	// malformed id and an unknown id are all this).
	ErrKeyNotFound = &Error{apierr.NotFound, "no such API key in this workspace"}
	// ErrWorkspaceNotFound: the workspace does not exist.
	ErrWorkspaceNotFound = &Error{apierr.NotFound, "no such workspace"}
	// ErrKeyInactive: the key is revoked or expired; it cannot be rolled (create a new one).
	ErrKeyInactive = &Error{apierr.StateConflict, "this API key is revoked or expired; create a new key instead"}
	// ErrKeyRolled: the key was already rolled and is expiring; it is not rolled again (revoke
	// it to end it sooner). The operator may roll it again (see RollKey).
	ErrKeyRolled = &Error{apierr.StateConflict, "this API key was already rolled and is expiring; revoke it to end it sooner"}
	// ErrTooManyKeys: the workspace holds MaxActiveKeys active keys already.
	ErrTooManyKeys = &Error{apierr.StateConflict, "this workspace has the most active API keys allowed; revoke one first"}
	// ErrWebhookSecretExists: the environment already has an active signing secret (roll it).
	ErrWebhookSecretExists = &Error{apierr.StateConflict, "a webhook signing secret is already active; roll it instead"}
	// ErrNoWebhookSecret: the environment has no current signing secret to roll (issue one).
	ErrNoWebhookSecret = &Error{apierr.StateConflict, "no active webhook signing secret; issue one first"}
	// ErrTooManyWebhookSecrets: a roll would leave more than MaxWebhookSecrets signing.
	ErrTooManyWebhookSecrets = &Error{apierr.StateConflict, "too many webhook signing secrets would sign at once; roll with a shorter grace"}
)

// IsNotFound reports whether err means the key or workspace does not exist.
func IsNotFound(err error) bool {
	return errors.Is(err, ErrKeyNotFound) || errors.Is(err, ErrWorkspaceNotFound)
}
