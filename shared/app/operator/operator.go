// Package operator holds the operator actions on workspaces, API keys, dashboard users, their
// workspace roles and their sessions. None of these is reachable through the HTTP API: only
// the operator CLI (cmd/paymentsctl) and the local stack's seeding call them, against
// whichever DynamoDB endpoint they are configured for.
package operator

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/google/uuid"

	"github.com/takapay/payments/shared/auth"
	"github.com/takapay/payments/shared/aws/dynamo"
	"github.com/takapay/payments/shared/credential"
	"github.com/takapay/payments/shared/foundation/urlcheck"
	"github.com/takapay/payments/shared/webhook"
)

// Operator performs operator actions on a store.
type Operator struct {
	Store *dynamo.Store
	// Sealer seals new webhook signing secrets before they are stored (KMS Encrypt on AWS);
	// issuing and rotating them need it, and only TestWebhook opens them (KMS Decrypt).
	Sealer webhook.Sealer
	// Queue receives the events ResendWebhook makes due again (the webhook queue); only
	// resending needs it.
	Queue webhook.Enqueuer
	// URLs checks TestWebhook's URL with the webhook rules (the zero value is production's;
	// the local stack allows localhost), and Client posts its event (nil: webhook.NewClient
	// with URLs' localhost setting, as the sender).
	URLs   urlcheck.Policy
	Client *http.Client
	Now    func() time.Time
}

func (o *Operator) now() time.Time {
	if o.Now != nil {
		return o.Now().UTC()
	}
	return time.Now().UTC()
}

// CreateWorkspace creates a workspace; id may be empty for a new random one.
func (o *Operator) CreateWorkspace(ctx context.Context, id, name string) (*auth.Workspace, error) {
	if id == "" {
		u, err := uuid.NewV7()
		if err != nil {
			return nil, err
		}
		id = u.String()
	} else if u, err := uuid.Parse(id); err != nil || len(id) != 36 {
		return nil, fmt.Errorf("workspace id must be a UUID")
	} else {
		id = u.String()
	}
	name = strings.TrimSpace(name)
	if name == "" || utf8.RuneCountInString(name) > 160 {
		return nil, fmt.Errorf("workspace name must be 1 to 160 characters")
	}
	w := auth.Workspace{ID: id, Name: name, CreatedAt: o.now()}
	if err := o.Store.PutWorkspace(ctx, w); err != nil {
		return nil, fmt.Errorf("create workspace: %w", err)
	}
	return &w, nil
}

// IssuedKey is a newly issued key: the plaintext is returned once and never stored.
type IssuedKey struct {
	Plaintext string
	Record    *auth.KeyRecord
}

// credentials is the credential service the operator delegates every key and webhook secret
// rule to, acting as credential.Operator.
func (o *Operator) credentials() *credential.Service {
	return &credential.Service{Store: o.Store, Sealer: o.Sealer, Now: o.now}
}

// ParseScopes parses a comma-separated scope list.
func ParseScopes(s string) ([]auth.Scope, error) {
	var out []auth.Scope
	for _, part := range strings.Split(s, ",") {
		part = strings.TrimSpace(part)
		if part == "" {
			continue
		}
		sc, ok := auth.ParseScope(part)
		if !ok {
			return nil, fmt.Errorf("unknown scope %q (known: %v)", part, auth.AllScopes)
		}
		if !slices.Contains(out, sc) {
			out = append(out, sc)
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("at least one scope is required")
	}
	return out, nil
}

// keyErr words a credential refusal for the operator: a missing key or workspace wraps
// dynamo.ErrNotFound, as it always did.
func keyErr(what string, err error) error {
	if credential.IsNotFound(err) {
		return fmt.Errorf("%s: %w", what, dynamo.ErrNotFound)
	}
	return err
}

// IssueKey issues a key for a workspace (which must exist) in one environment (credential.CreateKey).
func (o *Operator) IssueKey(ctx context.Context, workspaceID string, env auth.Environment, scopes []auth.Scope, name string) (*IssuedKey, error) {
	k, err := o.credentials().CreateKey(ctx, workspaceID, credential.NewKey{Name: name, Environment: env, Scopes: scopes, CreatedBy: credential.Operator})
	if err != nil {
		return nil, keyErr("workspace "+workspaceID, err)
	}
	return &IssuedKey{Plaintext: k.Key, Record: k.Record}, nil
}

// ListKeys lists a workspace's keys (hints only; no key can be recovered).
func (o *Operator) ListKeys(ctx context.Context, workspaceID string) ([]*auth.KeyRecord, error) {
	return o.Store.ListKeys(ctx, workspaceID)
}

// RevokeKey revokes a workspace's key by key id: requests with it get 401 once no instance
// trusts its cached copy any more, within KEY_CACHE_TTL_MS (auth.KeyCache).
func (o *Operator) RevokeKey(ctx context.Context, workspaceID, keyID string) error {
	_, err := o.credentials().RevokeKey(ctx, workspaceID, keyID, credential.Operator)
	return keyErr("key "+keyID, err)
}

// RotateKey issues a replacement with the same workspace, environment, scopes and name, and
// lets the old key work for grace more (0 revokes it at once); credential.RollKey as the
// operator, who may roll an expiring key again (its expiry is never extended).
func (o *Operator) RotateKey(ctx context.Context, workspaceID, keyID string, grace time.Duration) (*IssuedKey, error) {
	k, err := o.credentials().RollKey(ctx, workspaceID, keyID, credential.Grace(grace), credential.Operator)
	if err != nil {
		return nil, keyErr("key "+keyID, err)
	}
	return &IssuedKey{Plaintext: k.Key, Record: k.Record}, nil
}
