package operator

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"time"

	"github.com/takapay/payments/shared/auth"
	"github.com/takapay/payments/shared/dynamo"
	"github.com/takapay/payments/shared/webhook"
)

// DefaultWebhookGrace is how long a rotated-out webhook secret keeps signing by default (the
// CLI's --grace default): receivers have a day to switch to the new secret.
const DefaultWebhookGrace = 24 * time.Hour

// MaxWebhookGrace is the longest a rotated-out webhook secret may keep signing.
const MaxWebhookGrace = 30 * 24 * time.Hour

// ErrWebhookSecretExists means the workspace environment already has a current secret.
var ErrWebhookSecretExists = errors.New("a webhook secret is already active; use rotate")

// ErrNoWebhookSecret means the workspace environment has no current secret to rotate.
var ErrNoWebhookSecret = errors.New("no active webhook secret; use issue")

// WebhookSecretInfo describes a webhook secret without its text.
type WebhookSecretInfo struct {
	ID        string     `json:"secret_id"`
	CreatedAt time.Time  `json:"created_at"`
	ExpiresAt *time.Time `json:"expires_at,omitempty"`
	// Unsealed marks a secret an older release stored as text: it no longer signs; rotate
	// with grace 0 to replace it.
	Unsealed bool `json:"unsealed,omitempty"`
}

// Current reports whether the secret is the current one (it has no expiry).
func (i WebhookSecretInfo) Current() bool { return i.ExpiresAt == nil }

func secretInfo(s webhook.Secret) WebhookSecretInfo {
	return WebhookSecretInfo{ID: s.ID, CreatedAt: s.CreatedAt, ExpiresAt: s.ExpiresAt, Unsealed: s.Unsealed}
}

// IssuedWebhookSecret is a newly issued webhook secret: the operator hands Secret to the
// merchant once; no listing shows it again.
type IssuedWebhookSecret struct {
	Secret      string
	WorkspaceID string
	Environment auth.Environment
	Info        WebhookSecretInfo
	// Previous lists the secrets that still sign besides the new one (after a rotation: the
	// old current one until its new expiry), newest first.
	Previous []WebhookSecretInfo
}

// newWebhookSecretID returns a short random id: "whk_" + 12 hex digits.
func newWebhookSecretID() (string, error) {
	b := make([]byte, 6)
	if _, err := rand.Read(b); err != nil {
		return "", err
	}
	return "whk_" + hex.EncodeToString(b), nil
}

// newWebhookSecret makes a secret and seals it for the workspace environment (one KMS
// Encrypt on AWS). It returns the text, to be shown once, and the sealed secret to store.
func (o *Operator) newWebhookSecret(ctx context.Context, ws string, env auth.Environment, now time.Time) (string, webhook.Secret, error) {
	if o.Sealer == nil {
		return "", webhook.Secret{}, webhook.ErrNoSealer
	}
	text, err := webhook.NewSecret()
	if err != nil {
		return "", webhook.Secret{}, err
	}
	key, err := webhook.ParseSecret(text)
	if err != nil {
		return "", webhook.Secret{}, err
	}
	sealed, err := o.Sealer.Seal(ctx, webhook.Scope{WorkspaceID: ws, Environment: env}, key)
	if err != nil {
		return "", webhook.Secret{}, fmt.Errorf("seal webhook secret: %w", err)
	}
	id, err := newWebhookSecretID()
	if err != nil {
		return "", webhook.Secret{}, err
	}
	return text, webhook.Secret{ID: id, Sealed: sealed, CreatedAt: now}, nil
}

// webhookScope checks the environment and that the workspace exists; it returns the
// workspace's canonical id.
func (o *Operator) webhookScope(ctx context.Context, workspaceID string, env auth.Environment) (string, error) {
	if _, ok := auth.ParseEnvironment(string(env)); !ok {
		return "", fmt.Errorf("environment must be sandbox or live")
	}
	w, err := o.getWorkspace(ctx, workspaceID)
	if err != nil {
		return "", err
	}
	return w.ID, nil
}

func (o *Operator) putWebhookSecrets(ctx context.Context, ws string, env auth.Environment, list []webhook.Secret, version int) error {
	if err := o.Store.PutWebhookSecrets(ctx, ws, env, list, version); err != nil {
		return fmt.Errorf("store webhook secrets: %w", err)
	}
	return nil
}

// IssueWebhookSecret creates the first signing secret of a workspace (which must exist)
// environment, sealed with o.Sealer (webhook.ErrNoSealer without one). It fails with
// ErrWebhookSecretExists while any secret is active (current or in a rotation grace period, or
// an unsealed one): use RotateWebhookSecret.
func (o *Operator) IssueWebhookSecret(ctx context.Context, workspaceID string, env auth.Environment) (*IssuedWebhookSecret, error) {
	ws, err := o.webhookScope(ctx, workspaceID, env)
	if err != nil {
		return nil, err
	}
	stored, version, err := o.Store.GetWebhookSecrets(ctx, ws, env)
	if err != nil {
		return nil, err
	}
	now := o.now()
	if len(stored.ActiveSecrets(now)) > 0 {
		return nil, ErrWebhookSecretExists
	}
	text, sec, err := o.newWebhookSecret(ctx, ws, env, now)
	if err != nil {
		return nil, err
	}
	// Expired secrets are dropped from the item.
	if err := o.putWebhookSecrets(ctx, ws, env, []webhook.Secret{sec}, version); err != nil {
		return nil, err
	}
	return &IssuedWebhookSecret{Secret: text, WorkspaceID: ws, Environment: env, Info: secretInfo(sec)}, nil
}

// RotateWebhookSecret makes a new secret current. Every secret that was active keeps signing
// until now+grace (or its earlier expiry), so receivers can switch without dropping messages;
// grace 0 stops them at once (a leaked secret). Unsealed secrets (stored as text by an older
// release) are dropped whatever the grace: they no longer sign anyway. grace must be 0 to MaxWebhookGrace; the CLI
// defaults to DefaultWebhookGrace. It fails with ErrNoWebhookSecret when none is current.
func (o *Operator) RotateWebhookSecret(ctx context.Context, workspaceID string, env auth.Environment, grace time.Duration) (*IssuedWebhookSecret, error) {
	if grace < 0 || grace > MaxWebhookGrace {
		return nil, fmt.Errorf("grace must be 0 to %s", MaxWebhookGrace)
	}
	ws, err := o.webhookScope(ctx, workspaceID, env)
	if err != nil {
		return nil, err
	}
	stored, version, err := o.Store.GetWebhookSecrets(ctx, ws, env)
	if err != nil {
		return nil, err
	}
	now := o.now()
	active := stored.ActiveSecrets(now)
	hasCurrent := false
	for _, s := range active {
		hasCurrent = hasCurrent || s.ExpiresAt == nil
	}
	if !hasCurrent {
		return nil, ErrNoWebhookSecret
	}
	text, sec, err := o.newWebhookSecret(ctx, ws, env, now)
	if err != nil {
		return nil, err
	}
	until := now.Add(grace)
	list := []webhook.Secret{sec}
	var previous []WebhookSecretInfo
	for _, s := range active {
		if s.Unsealed {
			continue // stored as text by an older release: treated as leaked, dropped now
		}
		// The older secrets are copied sealed as they are: nothing here decrypts.
		if s.ExpiresAt == nil || until.Before(*s.ExpiresAt) {
			t := until
			s.ExpiresAt = &t
		}
		if !s.Active(now) {
			continue // grace 0: gone now
		}
		list = append(list, s)
		previous = append(previous, secretInfo(s))
	}
	if len(list) > dynamo.MaxWebhookSecrets {
		return nil, fmt.Errorf("%d secrets would sign at once (at most %d): rotate with a shorter --grace", len(list), dynamo.MaxWebhookSecrets)
	}
	if err := o.putWebhookSecrets(ctx, ws, env, list, version); err != nil {
		return nil, err
	}
	return &IssuedWebhookSecret{Secret: text, WorkspaceID: ws, Environment: env, Info: secretInfo(sec), Previous: previous}, nil
}

// ListWebhookSecrets lists a workspace (which must exist) environment's active secrets, the
// current one first: ids and times only, never the secret or its ciphertext. Expired secrets
// are absent. Nothing is opened, so listing needs no KMS permission.
func (o *Operator) ListWebhookSecrets(ctx context.Context, workspaceID string, env auth.Environment) ([]WebhookSecretInfo, error) {
	ws, err := o.webhookScope(ctx, workspaceID, env)
	if err != nil {
		return nil, err
	}
	stored, _, err := o.Store.GetWebhookSecrets(ctx, ws, env)
	if err != nil {
		return nil, err
	}
	out := []WebhookSecretInfo{}
	for _, s := range stored.ActiveSecrets(o.now()) {
		out = append(out, secretInfo(s))
	}
	return out, nil
}
