package webhook

// Signing secrets at rest: a Sealer encrypts a secret for one workspace environment and
// decrypts it only for that one. Package kmsseal implements Sealer with AWS KMS (and with a
// local key for `make dev` and the tests).

import (
	"context"
	"errors"
	"fmt"

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

// ErrNoSealer means no sealing key is configured (WEBHOOK_SECRETS_KEY_ID, or the local
// stack's LOCAL_SEALING_KEY): secrets can be neither issued nor opened.
var ErrNoSealer = errors.New("no webhook secret sealing key configured (WEBHOOK_SECRETS_KEY_ID)")
