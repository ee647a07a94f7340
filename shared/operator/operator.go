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
	"github.com/takapay/payments/shared/dynamo"
	"github.com/takapay/payments/shared/urlcheck"
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

// IssueKey issues a key for a workspace (which must exist) in one environment.
func (o *Operator) IssueKey(ctx context.Context, workspaceID string, env auth.Environment, scopes []auth.Scope, name string) (*IssuedKey, error) {
	if _, ok := auth.ParseEnvironment(string(env)); !ok {
		return nil, fmt.Errorf("environment must be sandbox or live")
	}
	if len(scopes) == 0 {
		return nil, fmt.Errorf("at least one scope is required")
	}
	ws, err := o.Store.GetWorkspace(ctx, workspaceID)
	if err != nil {
		return nil, fmt.Errorf("workspace %s: %w", workspaceID, err)
	}
	plaintext, hash, err := auth.NewKey(env)
	if err != nil {
		return nil, err
	}
	keyID, err := auth.NewKeyID()
	if err != nil {
		return nil, err
	}
	rec := &auth.KeyRecord{
		Hash: hash, KeyID: keyID, WorkspaceID: workspaceID, WorkspaceName: ws.Name, Environment: env, Scopes: scopes,
		Name: name, Hint: auth.KeyHint(plaintext), CreatedAt: o.now(),
	}
	if err := o.Store.PutKey(ctx, rec); err != nil {
		return nil, fmt.Errorf("store key: %w", err)
	}
	return &IssuedKey{Plaintext: plaintext, Record: rec}, nil
}

// ListKeys lists a workspace's keys (hints only; no key can be recovered).
func (o *Operator) ListKeys(ctx context.Context, workspaceID string) ([]*auth.KeyRecord, error) {
	return o.Store.ListKeys(ctx, workspaceID)
}

// RevokeKey revokes a workspace's key by key id: requests with it get 401 once no instance
// trusts its cached copy any more, within KEY_CACHE_TTL_MS (auth.KeyCache).
func (o *Operator) RevokeKey(ctx context.Context, workspaceID, keyID string) error {
	k, err := o.Store.FindKey(ctx, workspaceID, keyID)
	if err != nil {
		return fmt.Errorf("key %s: %w", keyID, err)
	}
	return o.Store.RevokeKey(ctx, k.Hash, o.now())
}

// RotateKey issues a replacement with the same workspace, environment, scopes and name, and
// lets the old key work for grace more (0 revokes it at once).
func (o *Operator) RotateKey(ctx context.Context, workspaceID, keyID string, grace time.Duration) (*IssuedKey, error) {
	old, err := o.Store.FindKey(ctx, workspaceID, keyID)
	if err != nil {
		return nil, fmt.Errorf("key %s: %w", keyID, err)
	}
	if !old.Active(o.now()) {
		return nil, fmt.Errorf("key %s is revoked or expired; issue a new key instead", keyID)
	}
	issued, err := o.IssueKey(ctx, workspaceID, old.Environment, old.Scopes, old.Name)
	if err != nil {
		return nil, err
	}
	if grace <= 0 {
		err = o.Store.RevokeKey(ctx, old.Hash, o.now())
	} else {
		err = o.Store.ExpireKey(ctx, old.Hash, o.now().Add(grace))
	}
	if err != nil {
		return nil, fmt.Errorf("new key %s issued, but retiring %s failed (revoke it): %w", issued.Record.KeyID, keyID, err)
	}
	return issued, nil
}
