package credential

import (
	"errors"

	"github.com/takapay/payments/shared/foundation/apierr"
)

// invalid is a validation failure of one input field: 422 VALIDATION_FAILED naming the field
// ("name", "environment", "scopes", "grace", "url") and the broken rule, worded for people
// ("must be one of now, 1h, 24h, 7d").
func invalid(field, rule string) error {
	return apierr.Invalid(apierr.Violation{Path: field, Rule: rule})
}

// The refusals that are not about one field, each an *apierr.Error (the one domain error
// type; apierr's table maps each code to its status once): compare with errors.Is.
var (
	// ErrKeyNotFound: no key with that id in that workspace (another workspace's key, a
	// malformed id and an unknown id are all this).
	ErrKeyNotFound = apierr.New(apierr.NotFound, "no such API key in this workspace")
	// ErrWorkspaceNotFound: the workspace does not exist.
	ErrWorkspaceNotFound = apierr.New(apierr.NotFound, "no such workspace")
	// ErrKeyInactive: the key is revoked or expired; it cannot be rolled (create a new one).
	ErrKeyInactive = apierr.New(apierr.StateConflict, "this API key is revoked or expired; create a new key instead")
	// ErrKeyRolled: the key was already rolled and is expiring; it is not rolled again (revoke
	// it to end it sooner). The operator may roll it again (see RollKey).
	ErrKeyRolled = apierr.New(apierr.StateConflict, "this API key was already rolled and is expiring; revoke it to end it sooner")
	// ErrTooManyKeys: the workspace holds MaxActiveKeys active keys already.
	ErrTooManyKeys = apierr.New(apierr.StateConflict, "this workspace has the most active API keys allowed; revoke one first")
	// ErrWebhookSecretExists: the environment already has an active signing secret (roll it).
	ErrWebhookSecretExists = apierr.New(apierr.StateConflict, "a webhook signing secret is already active; roll it instead")
	// ErrNoWebhookSecret: the environment has no current signing secret to roll (issue one).
	ErrNoWebhookSecret = apierr.New(apierr.StateConflict, "no active webhook signing secret; issue one first")
	// ErrTooManyWebhookSecrets: a roll would leave more than MaxWebhookSecrets signing.
	ErrTooManyWebhookSecrets = apierr.New(apierr.StateConflict, "too many webhook signing secrets would sign at once; roll with a shorter grace")
)

// IsNotFound reports whether err means the key or workspace does not exist.
func IsNotFound(err error) bool {
	return errors.Is(err, ErrKeyNotFound) || errors.Is(err, ErrWorkspaceNotFound)
}
