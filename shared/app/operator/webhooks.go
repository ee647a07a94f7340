package operator

import (
	"context"
	"errors"
	"time"

	"github.com/takapay/payments/shared/auth"
	"github.com/takapay/payments/shared/credential"
)

// DefaultWebhookGrace is how long a rotated-out webhook secret keeps signing by default (the
// CLI's --grace default): receivers have a day to switch to the new secret.
const DefaultWebhookGrace = credential.DefaultWebhookGrace

// MaxWebhookGrace is the longest a rotated-out webhook secret may keep signing.
const MaxWebhookGrace = credential.MaxWebhookGrace

// ErrWebhookSecretExists means the workspace environment already has a current secret.
var ErrWebhookSecretExists = errors.New("a webhook secret is already active; use rotate")

// ErrNoWebhookSecret means the workspace environment has no current secret to rotate.
var ErrNoWebhookSecret = errors.New("no active webhook secret; use issue")

// WebhookSecretInfo describes a webhook secret without its text.
type WebhookSecretInfo = credential.WebhookSecretInfo

// IssuedWebhookSecret is a newly issued webhook secret: the operator hands Secret to the
// merchant once; no listing shows it again.
type IssuedWebhookSecret = credential.IssuedWebhookSecret

// webhookScope checks the environment and that the workspace exists; it returns the
// workspace's canonical id.
func (o *Operator) webhookScope(ctx context.Context, workspaceID string, env auth.Environment) (string, error) {
	if _, ok := auth.ParseEnvironment(string(env)); !ok {
		return "", errors.New("environment must be sandbox or live")
	}
	w, err := o.getWorkspace(ctx, workspaceID)
	if err != nil {
		return "", err
	}
	return w.ID, nil
}

// webhookErr words the credential refusals the CLI's way.
func webhookErr(err error) error {
	switch {
	case errors.Is(err, credential.ErrWebhookSecretExists):
		return ErrWebhookSecretExists
	case errors.Is(err, credential.ErrNoWebhookSecret):
		return ErrNoWebhookSecret
	case errors.Is(err, credential.ErrTooManyWebhookSecrets):
		return errors.New("too many secrets would sign at once: rotate with a shorter --grace")
	}
	return err
}

// IssueWebhookSecret creates the first signing secret of a workspace (which must exist)
// environment (credential.IssueWebhookSecret): ErrWebhookSecretExists while any is active.
func (o *Operator) IssueWebhookSecret(ctx context.Context, workspaceID string, env auth.Environment) (*IssuedWebhookSecret, error) {
	ws, err := o.webhookScope(ctx, workspaceID, env)
	if err != nil {
		return nil, err
	}
	sec, err := o.credentials().IssueWebhookSecret(ctx, ws, env, credential.Operator)
	return sec, webhookErr(err)
}

// RotateWebhookSecret makes a new secret current; the active ones keep signing until
// now+grace (credential.RollWebhookSecret as the operator: grace 0 to MaxWebhookGrace).
// ErrNoWebhookSecret when none is current.
func (o *Operator) RotateWebhookSecret(ctx context.Context, workspaceID string, env auth.Environment, grace time.Duration) (*IssuedWebhookSecret, error) {
	ws, err := o.webhookScope(ctx, workspaceID, env)
	if err != nil {
		return nil, err
	}
	sec, err := o.credentials().RollWebhookSecret(ctx, ws, env, credential.Grace(grace), credential.Operator)
	return sec, webhookErr(err)
}

// ListWebhookSecrets lists a workspace (which must exist) environment's active secrets, the
// current one first: ids and times only (credential.ListWebhookSecrets).
func (o *Operator) ListWebhookSecrets(ctx context.Context, workspaceID string, env auth.Environment) ([]WebhookSecretInfo, error) {
	ws, err := o.webhookScope(ctx, workspaceID, env)
	if err != nil {
		return nil, err
	}
	return o.credentials().ListWebhookSecrets(ctx, ws, env)
}
