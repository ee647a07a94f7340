package webhook

// Signing secrets at rest. The table never holds a secret that can sign: the operator seals a
// new secret (Sealer.Seal) before it is stored, and only the sender opens it (Sealer.Open),
// with the workspace and environment bound to the ciphertext, so a scan, an export or a
// restored backup of the table yields nothing that signs, and a sealed secret copied into
// another workspace's item does not open. Package kmsseal implements Sealer with AWS KMS (and
// with a local key for `make dev` and the tests).

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/takapay/payments/shared/auth"
)

// Scope is whose secret a sealed value is: one workspace's environment. Sealers bind it to
// the ciphertext as its encryption context.
type Scope struct {
	WorkspaceID string
	Environment auth.Environment
}

// Encryption context keys (KMS encryption context; additional data of the local sealer).
const (
	ContextWorkspace   = "workspace_id"
	ContextEnvironment = "environment"
)

// EncryptionContext is the scope as a KMS encryption context: {"workspace_id", "environment"}.
func (s Scope) EncryptionContext() map[string]string {
	return map[string]string{ContextWorkspace: s.WorkspaceID, ContextEnvironment: string(s.Environment)}
}

// Check reports an empty workspace id or an unknown environment.
func (s Scope) Check() error {
	if s.WorkspaceID == "" {
		return errors.New("sealing scope: empty workspace id")
	}
	if _, ok := auth.ParseEnvironment(string(s.Environment)); !ok {
		return fmt.Errorf("sealing scope: invalid environment %q", s.Environment)
	}
	return nil
}

// Sealed is a signing secret encrypted at rest: what the table holds instead of the secret.
type Sealed struct {
	// KeyRef names the key that sealed it: "kms:<key ARN>" or "local:<key fingerprint>".
	KeyRef string
	// Ciphertext is the sealer's output (KMS: the ciphertext blob; local: nonce + AES-256-GCM).
	Ciphertext []byte
}

// Sealer encrypts signing secrets for storage and decrypts them for signing. Open fails for
// another scope than the one Seal was given.
type Sealer interface {
	Seal(ctx context.Context, scope Scope, secret []byte) (Sealed, error)
	Open(ctx context.Context, scope Scope, sealed Sealed) ([]byte, error)
}

// ErrNoSealer means no sealing key is configured (WEBHOOK_SECRETS_KEY_ID, or a local
// stack's LOCAL_SEALING_KEY): secrets can be neither issued nor opened.
var ErrNoSealer = errors.New("no webhook secret sealing key configured (WEBHOOK_SECRETS_KEY_ID)")

// ErrSecretUnsealed means the active secrets of a workspace environment are stored as text
// (written before secrets were sealed). Such a secret must be treated as leaked: it never
// signs, and the operator replaces it with `paymentsctl webhook secret rotate --grace 0`.
var ErrSecretUnsealed = errors.New("webhook secret stored unsealed (written before sealing): it no longer signs; " +
	"replace it with `paymentsctl webhook secret rotate --grace 0`")

// SecretStore reads a workspace environment's stored (sealed) secrets and the item's version
// (package dynamo).
type SecretStore interface {
	GetWebhookSecrets(ctx context.Context, workspaceID string, env auth.Environment) (Secrets, int, error)
}

// Cache defaults of Keyring.
const (
	DefaultKeyTTL       = 5 * time.Minute
	DefaultKeyCacheSize = 1000
)

// Keyring is the sender's SecretSource: on every call it reads the stored secrets (so a
// rotation or a revocation is seen at once) and opens the active ones, keeping each opened key
// for TTL in this instance so that a delivery costs no KMS request while the key is cached.
// Safe for concurrent use.
type Keyring struct {
	Store  SecretStore
	Sealer Sealer
	// TTL bounds how long an opened key is reused (0: DefaultKeyTTL; negative: never cached).
	// It is also how long a warm instance keeps signing after kms:Decrypt is taken away.
	TTL time.Duration
	// MaxEntries bounds the cache (0: DefaultKeyCacheSize).
	MaxEntries int
	Logger     *slog.Logger

	mu    sync.Mutex
	cache map[[sha256.Size]byte]cachedKey
}

type cachedKey struct {
	key     []byte
	expires time.Time
}

// Secrets returns the signing keys of a workspace environment at now: every active sealed
// secret, opened, in stored order. Unsealed (legacy) secrets are skipped; when nothing else is
// active the error is ErrSecretUnsealed. No stored secret gives (nil, nil).
func (k *Keyring) Secrets(ctx context.Context, workspaceID string, env auth.Environment, now time.Time) ([][]byte, error) {
	stored, _, err := k.Store.GetWebhookSecrets(ctx, workspaceID, env)
	if err != nil {
		return nil, err
	}
	scope := Scope{WorkspaceID: workspaceID, Environment: env}
	var keys [][]byte
	unsealed := 0
	for _, s := range stored.ActiveSecrets(now) {
		if s.Unsealed {
			unsealed++
			if k.Logger != nil {
				k.Logger.LogAttrs(ctx, slog.LevelError, "webhook secret stored unsealed: not used",
					slog.String("workspace_id", workspaceID), slog.String("environment", string(env)), slog.String("secret_id", s.ID))
			}
			continue
		}
		key, err := k.open(ctx, scope, s, now)
		if err != nil {
			return nil, fmt.Errorf("open webhook secret %s: %w", s.ID, err)
		}
		keys = append(keys, key)
	}
	if len(keys) == 0 && unsealed > 0 {
		return nil, ErrSecretUnsealed
	}
	return keys, nil
}

func (k *Keyring) open(ctx context.Context, scope Scope, s Secret, now time.Time) ([]byte, error) {
	if k.Sealer == nil {
		return nil, ErrNoSealer
	}
	ttl := k.TTL
	if ttl == 0 {
		ttl = DefaultKeyTTL
	}
	// The cache key covers everything Open depends on, so a changed item never hits.
	h := sha256.New()
	for _, part := range []string{scope.WorkspaceID, string(scope.Environment), s.ID, s.Sealed.KeyRef, string(s.Sealed.Ciphertext)} {
		fmt.Fprintf(h, "%d:%s", len(part), part)
	}
	var id [sha256.Size]byte
	h.Sum(id[:0])
	if ttl > 0 {
		k.mu.Lock()
		c, ok := k.cache[id]
		k.mu.Unlock()
		if ok && now.Before(c.expires) {
			return c.key, nil
		}
	}
	key, err := k.Sealer.Open(ctx, scope, s.Sealed)
	if err != nil {
		return nil, err
	}
	if len(key) < MinSecretSize || len(key) > MaxSecretSize {
		return nil, fmt.Errorf("opened secret is %d bytes, not %d to %d", len(key), MinSecretSize, MaxSecretSize)
	}
	if ttl > 0 {
		k.put(id, cachedKey{key: key, expires: now.Add(ttl)}, now)
	}
	return key, nil
}

func (k *Keyring) put(id [sha256.Size]byte, c cachedKey, now time.Time) {
	limit := k.MaxEntries
	if limit <= 0 {
		limit = DefaultKeyCacheSize
	}
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.cache == nil {
		k.cache = map[[sha256.Size]byte]cachedKey{}
	}
	if len(k.cache) >= limit {
		for old, e := range k.cache {
			if !now.Before(e.expires) {
				delete(k.cache, old)
			}
		}
		for old := range k.cache { // still full: drop arbitrary entries
			if len(k.cache) < limit {
				break
			}
			delete(k.cache, old)
		}
	}
	k.cache[id] = c
}

// Len returns the number of cached keys (expired ones included until evicted).
func (k *Keyring) Len() int {
	k.mu.Lock()
	defer k.mu.Unlock()
	return len(k.cache)
}
