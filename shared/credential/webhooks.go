package credential

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"time"

	"github.com/takapay/payments/shared/auth"
	"github.com/takapay/payments/shared/webhook"
)

// WebhookSecretInfo describes a webhook signing secret without its text.
type WebhookSecretInfo struct {
	ID        string     `json:"secret_id"`
	CreatedAt time.Time  `json:"created_at"`
	ExpiresAt *time.Time `json:"expires_at,omitempty"`
	// Unsealed marks a secret an older release stored as text: it no longer signs; roll with
	// grace "now" to replace it.
	Unsealed bool `json:"unsealed,omitempty"`
}

// Current reports whether the secret is the current one (it has no expiry).
func (i WebhookSecretInfo) Current() bool { return i.ExpiresAt == nil }

func secretInfo(s webhook.Secret) WebhookSecretInfo {
	return WebhookSecretInfo{ID: s.ID, CreatedAt: s.CreatedAt, ExpiresAt: s.ExpiresAt, Unsealed: s.Unsealed}
}

// IssuedWebhookSecret is a newly issued webhook signing secret: Secret (whsec_...) is shown
// once; no listing shows it again.
type IssuedWebhookSecret struct {
	Secret      string
	WorkspaceID string
	Environment auth.Environment
	Info        WebhookSecretInfo
	// Previous lists the secrets that still sign besides the new one (after a roll: the old
	// current one until its new expiry), newest first.
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

// newWebhookSecret makes a secret and seals it for the workspace environment (one KMS Encrypt
// on AWS). It returns the text, to be shown once, and the sealed secret to store.
func (s *Service) newWebhookSecret(ctx context.Context, ws string, env auth.Environment, now time.Time) (string, webhook.Secret, error) {
	if s.Sealer == nil {
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
	sealed, err := s.Sealer.Seal(ctx, webhook.Scope{WorkspaceID: ws, Environment: env}, key)
	if err != nil {
		return "", webhook.Secret{}, fmt.Errorf("seal webhook secret: %w", err)
	}
	id, err := newWebhookSecretID()
	if err != nil {
		return "", webhook.Secret{}, err
	}
	return text, webhook.Secret{ID: id, Sealed: sealed, CreatedAt: now}, nil
}

// webhookScope checks the environment and that the workspace exists.
func (s *Service) webhookScope(ctx context.Context, ws string, env auth.Environment) error {
	if err := checkEnvironment(env); err != nil {
		return err
	}
	_, err := s.workspace(ctx, ws)
	return err
}

func (s *Service) putWebhookSecrets(ctx context.Context, ws string, env auth.Environment, list []webhook.Secret, version int) error {
	if err := s.Store.PutWebhookSecrets(ctx, ws, env, list, version); err != nil {
		return fmt.Errorf("store webhook secrets: %w", err)
	}
	return nil
}

// ListWebhookSecrets lists a workspace (which must exist) environment's active secrets, the
// current one first: ids and times only, never the secret or its ciphertext. Expired secrets
// are absent. Nothing is opened, so listing needs no KMS permission. One GetItem.
func (s *Service) ListWebhookSecrets(ctx context.Context, ws string, env auth.Environment) ([]WebhookSecretInfo, error) {
	if err := s.webhookScope(ctx, ws, env); err != nil {
		return nil, err
	}
	stored, _, err := s.Store.GetWebhookSecrets(ctx, ws, env)
	if err != nil {
		return nil, err
	}
	out := []WebhookSecretInfo{}
	for _, sec := range stored.ActiveSecrets(s.now()) {
		out = append(out, secretInfo(sec))
	}
	return out, nil
}

// IssueWebhookSecret creates the first signing secret of a workspace (which must exist)
// environment, sealed with s.Sealer (webhook.ErrNoSealer without one). It refuses with
// ErrWebhookSecretExists while any secret is active (current, in a roll's grace, or an
// unsealed one): roll instead. One GetItem, one KMS Encrypt, one conditional PutItem.
func (s *Service) IssueWebhookSecret(ctx context.Context, ws string, env auth.Environment, by string) (*IssuedWebhookSecret, error) {
	if err := s.webhookScope(ctx, ws, env); err != nil {
		return nil, err
	}
	stored, version, err := s.Store.GetWebhookSecrets(ctx, ws, env)
	if err != nil {
		return nil, err
	}
	now := s.now()
	if len(stored.ActiveSecrets(now)) > 0 {
		return nil, ErrWebhookSecretExists
	}
	text, sec, err := s.newWebhookSecret(ctx, ws, env, now)
	if err != nil {
		return nil, err
	}
	// Expired secrets are dropped from the item.
	if err := s.putWebhookSecrets(ctx, ws, env, []webhook.Secret{sec}, version); err != nil {
		return nil, err
	}
	return &IssuedWebhookSecret{Secret: text, WorkspaceID: ws, Environment: env, Info: secretInfo(sec)}, nil
}

// RollWebhookSecret makes a new secret current. Every secret that was active keeps signing
// until now+grace (or its earlier expiry: a roll never extends one), so receivers can switch
// without dropping messages; GraceNow stops them at once (a leaked secret). Unsealed secrets
// (stored as text by an older release) are dropped whatever the grace. A dashboard user gives
// one of ParseGrace's graces; the operator any from 0 to MaxWebhookGrace. ErrNoWebhookSecret
// when none is current; ErrTooManyWebhookSecrets when more than MaxWebhookSecrets would sign.
// A concurrent change of the item fails the write (the store's version conflict).
func (s *Service) RollWebhookSecret(ctx context.Context, ws string, env auth.Environment, grace Grace, by string) (*IssuedWebhookSecret, error) {
	if err := checkGrace(grace, by, MaxWebhookGrace); err != nil {
		return nil, err
	}
	if err := s.webhookScope(ctx, ws, env); err != nil {
		return nil, err
	}
	stored, version, err := s.Store.GetWebhookSecrets(ctx, ws, env)
	if err != nil {
		return nil, err
	}
	now := s.now()
	active := stored.ActiveSecrets(now)
	hasCurrent := false
	for _, sec := range active {
		hasCurrent = hasCurrent || sec.ExpiresAt == nil
	}
	if !hasCurrent {
		return nil, ErrNoWebhookSecret
	}
	text, sec, err := s.newWebhookSecret(ctx, ws, env, now)
	if err != nil {
		return nil, err
	}
	until := now.Add(time.Duration(grace))
	list := []webhook.Secret{sec}
	var previous []WebhookSecretInfo
	for _, old := range active {
		if old.Unsealed {
			continue // stored as text by an older release: treated as leaked, dropped now
		}
		// The older secrets are copied sealed as they are: nothing here decrypts.
		if old.ExpiresAt == nil || until.Before(*old.ExpiresAt) {
			t := until
			old.ExpiresAt = &t
		}
		if !old.Active(now) {
			continue // grace now: gone now
		}
		list = append(list, old)
		previous = append(previous, secretInfo(old))
	}
	if len(list) > MaxWebhookSecrets {
		return nil, ErrTooManyWebhookSecrets
	}
	if err := s.putWebhookSecrets(ctx, ws, env, list, version); err != nil {
		return nil, err
	}
	return &IssuedWebhookSecret{Secret: text, WorkspaceID: ws, Environment: env, Info: secretInfo(sec), Previous: previous}, nil
}
