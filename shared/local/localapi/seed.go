package localapi

import (
	"context"
	"crypto/rand"
	"crypto/subtle"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/takapay/payments/shared/account"
	"github.com/takapay/payments/shared/app/operator"
	"github.com/takapay/payments/shared/auth"
	"github.com/takapay/payments/shared/aws/dynamo"
	"github.com/takapay/payments/shared/aws/kmsseal"
	"github.com/takapay/payments/shared/webhook"
)

// Credentials is what `make dev` writes to .dev/credentials.json.
type Credentials struct {
	BaseURL     string `json:"base_url"`
	WorkspaceID string `json:"workspace_id"`
	SandboxKey  string `json:"sandbox_key"`
	LiveKey     string `json:"live_key"`
	ReadonlyKey string `json:"readonly_key"`
	// DashboardUserID owns the workspace; SessionToken is its takapay_session cookie value.
	DashboardUserID string `json:"dashboard_user_id"`
	SessionToken    string `json:"session_token"`
	// DashboardEmail and DashboardPassword sign the owner in at /dashboard/sign-in.
	DashboardEmail    string `json:"dashboard_email"`
	DashboardPassword string `json:"dashboard_password"`
	// SandboxWebhookSecret (whsec_…) signs the sandbox's webhooks; `make dev` seeds it
	// (SeedWebhookSecret), so a local integration verifies what it receives.
	SandboxWebhookSecret string `json:"sandbox_webhook_secret,omitempty"`
}

// Scopes of the seeded keys.
var (
	FullScopes     = []auth.Scope{auth.PaymentsWrite, auth.PaymentsRead, auth.DocumentsRead, auth.DocumentsWrite, auth.RefundsWrite, auth.RefundsApprove}
	ReadonlyScopes = []auth.Scope{auth.PaymentsRead, auth.DocumentsRead}
)

// Seed makes sure one demo workspace exists with a sandbox key, a live key and a read-only
// sandbox key. When prev names keys that still work against the store, they are kept (so
// restarts keep the same credentials); otherwise a new workspace and keys are issued.
func Seed(ctx context.Context, store *dynamo.Store, prev *Credentials) (*Credentials, bool, error) {
	if prev != nil && stillValid(ctx, store, prev) {
		if prev.DashboardPassword == "" { // a credentials file from before the dashboard
			u, err := store.GetUser(ctx, prev.DashboardUserID)
			if err != nil || u == nil {
				return nil, false, fmt.Errorf("seed: the dashboard owner: %v", err)
			}
			prev.DashboardEmail = u.Email
			if prev.DashboardPassword, err = setPassword(ctx, store, u.ID); err != nil {
				return nil, false, err
			}
		}
		return prev, false, nil
	}
	op := &operator.Operator{Store: store}
	ws, err := op.CreateWorkspace(ctx, "", "Demo merchant (local)")
	if err != nil {
		return nil, false, err
	}
	issue := func(env auth.Environment, scopes []auth.Scope, name string) (string, error) {
		k, err := op.IssueKey(ctx, ws.ID, env, scopes, name)
		if err != nil {
			return "", err
		}
		return k.Plaintext, nil
	}
	c := &Credentials{WorkspaceID: ws.ID}
	if c.SandboxKey, err = issue(auth.Sandbox, FullScopes, "local sandbox"); err != nil {
		return nil, false, err
	}
	if c.LiveKey, err = issue(auth.Live, FullScopes, "local live"); err != nil {
		return nil, false, err
	}
	if c.ReadonlyKey, err = issue(auth.Sandbox, ReadonlyScopes, "local read-only"); err != nil {
		return nil, false, err
	}
	u, err := op.CreateUser(ctx, "owner+"+ws.ID+"@demo-merchant.com.bd") // one owner per seeded workspace: emails are unique
	if err != nil {
		return nil, false, err
	}
	if _, err := op.Grant(ctx, u.ID, ws.ID, auth.RoleOwner); err != nil {
		return nil, false, err
	}
	c.DashboardEmail = u.Email
	if c.DashboardPassword, err = setPassword(ctx, store, u.ID); err != nil {
		return nil, false, err
	}
	sess, err := op.CreateSession(ctx, u.ID, operator.MaxSessionTTL)
	if err != nil {
		return nil, false, err
	}
	c.DashboardUserID, c.SessionToken = u.ID, sess.Token
	return c, true, nil
}

// SeedWebhookSecret makes sure the seeded workspace's sandbox signs its webhooks with the
// secret c names: kept while it still signs; otherwise issued, or, when the sandbox already
// has a secret c does not know (one issued with paymentsctl, say), a new one made current
// with the old ones signing 24 h more, as a rotation does. op needs its Sealer.
//
// A stored secret that op.Sealer cannot have sealed — another key's (a .dev/ from before make
// dev ran local-kms holds secrets sealed with .dev/sealing.key; the KMS-only sender cannot
// open them, and one unopenable active secret fails every delivery of the workspace) — is
// replaced at once: a new secret, sealed by op.Sealer, with no grace for the old ones.
func SeedWebhookSecret(ctx context.Context, op *operator.Operator, c *Credentials) error {
	grace := 24 * time.Hour
	if foreign, err := foreignSecrets(ctx, op, c.WorkspaceID); err != nil {
		return fmt.Errorf("seed: the webhook secrets: %w", err)
	} else if foreign {
		grace = 0
	} else if key, err := webhook.ParseSecret(c.SandboxWebhookSecret); err == nil {
		active, err := (&webhook.Keyring{Store: op.Store, Sealer: op.Sealer, TTL: -1}).Secrets(ctx, c.WorkspaceID, auth.Sandbox, time.Now())
		if err != nil {
			return fmt.Errorf("seed: the webhook secrets: %w", err)
		}
		for _, k := range active {
			if subtle.ConstantTimeCompare(k, key) == 1 {
				return nil
			}
		}
	}
	sec, err := op.IssueWebhookSecret(ctx, c.WorkspaceID, auth.Sandbox)
	if errors.Is(err, operator.ErrWebhookSecretExists) {
		sec, err = op.RotateWebhookSecret(ctx, c.WorkspaceID, auth.Sandbox, grace)
	}
	if err != nil {
		return fmt.Errorf("seed: the sandbox webhook secret: %w", err)
	}
	c.SandboxWebhookSecret = sec.Secret
	return nil
}

// foreignSecrets reports whether the sandbox has an active sealed secret that op.Sealer did
// not seal: by KMS when it is KMS's, by another local key when it is a local key.
func foreignSecrets(ctx context.Context, op *operator.Operator, workspaceID string) (bool, error) {
	var prefix string
	switch s := op.Sealer.(type) {
	case *kmsseal.KMS:
		prefix = kmsseal.KMSPrefix
	case *kmsseal.Local:
		prefix = s.KeyRef()
	default:
		return false, nil
	}
	stored, _, err := op.Store.GetWebhookSecrets(ctx, workspaceID, auth.Sandbox)
	if err != nil {
		return false, err
	}
	for _, s := range stored.ActiveSecrets(time.Now()) {
		if !s.Unsealed && !strings.HasPrefix(s.Sealed.KeyRef, prefix) {
			return true, nil
		}
	}
	return false, nil
}

func stillValid(ctx context.Context, store *dynamo.Store, c *Credentials) bool {
	for _, key := range []string{c.SandboxKey, c.LiveKey, c.ReadonlyKey} {
		_, hash, err := auth.ParseKey(key)
		if err != nil {
			return false
		}
		rec, err := store.GetKey(ctx, hash)
		if err != nil || rec == nil || rec.WorkspaceID != c.WorkspaceID || !rec.Active(time.Now()) {
			return false
		}
		if key == c.SandboxKey && !slices.Contains(rec.Scopes, auth.RefundsApprove) {
			return false // a key seeded before refunds: seed again, so the sandbox key carries them
		}
	}
	hash, err := auth.ParseSessionToken(c.SessionToken)
	if err != nil {
		return false
	}
	sess, err := store.GetSession(ctx, hash)
	if err != nil || sess == nil || sess.UserID != c.DashboardUserID || !sess.Active(time.Now()) {
		return false
	}
	m, err := store.GetMembership(ctx, c.DashboardUserID, c.WorkspaceID)
	return err == nil && m != nil
}

// ReadCredentials reads a credentials file; a missing file is (nil, nil).
func ReadCredentials(path string) (*Credentials, error) {
	b, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var c Credentials
	if err := json.Unmarshal(b, &c); err != nil {
		return nil, nil // unreadable: seed afresh
	}
	return &c, nil
}

// WriteCredentials writes the credentials file readable by its owner only.
func WriteCredentials(path string, c *Credentials) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return err
	}
	b, err := json.MarshalIndent(c, "", "  ")
	if err != nil {
		return err
	}
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, append(b, '\n'), 0o600); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}

// setPassword gives the seeded owner a random password (128 bits, base64url) for the
// dashboard's sign-in, stored as the account service stores every password (argon2id).
func setPassword(ctx context.Context, store *dynamo.Store, userID string) (string, error) {
	var b [16]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", err
	}
	pw := "local-" + base64.RawURLEncoding.EncodeToString(b[:])
	hash, err := account.HashPassword(pw)
	if err != nil {
		return "", err
	}
	u, err := store.GetAccountUser(ctx, userID)
	if err != nil || u == nil {
		return "", fmt.Errorf("seed: the dashboard owner %s: %v", userID, err)
	}
	if err := store.SetPassword(ctx, userID, hash, time.Now(), u.SessionEpoch); err != nil {
		return "", fmt.Errorf("seed: the dashboard owner's password: %w", err)
	}
	return pw, nil
}
