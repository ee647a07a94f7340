// Package kmsseal implements webhook.Sealer: KMS seals webhook signing secrets with AWS KMS
// (production), Local with a key the local stack holds (`make dev` and the tests).
//
// KMS calls Encrypt directly on the 32-byte secret, under one symmetric key, with the
// workspace and environment as encryption context, and stores the ciphertext blob. Envelope
// encryption (GenerateDataKey + AES-GCM) would cost the same one KMS request per secret sealed
// or opened, and add a data key to handle; Encrypt takes up to 4 KB. Sealing each secret on
// its own also means a rotation copies the older secrets' ciphertext as it is: the operator
// needs kms:Encrypt only, and kms:Decrypt belongs to the sender alone.
package kmsseal

import (
	"context"
	"crypto/aes"
	"crypto/cipher"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/kms"

	"github.com/takapay/payments/shared/webhook"
)

// KeyRef prefixes of webhook.Sealed.KeyRef.
const (
	KMSPrefix   = "kms:"
	LocalPrefix = "local:"
)

// LocalKeySize is the size of the local sealing key (AES-256).
const LocalKeySize = 32

// DefaultTimeout bounds one Seal or Open against KMS, retries included.
const DefaultTimeout = 5 * time.Second

// ErrBothConfigured means a KMS key and a local key were both given: the local key is never
// used next to KMS, so the configuration is refused rather than guessed.
var ErrBothConfigured = errors.New("both a KMS key (WEBHOOK_SECRETS_KEY_ID) and LOCAL_SEALING_KEY are set; the local key is for the local stack only")

// New returns the sealer a configuration names: KMS when keyID is set, else Local when
// localKey is set; webhook.ErrNoSealer when neither is; ErrBothConfigured when both are.
// Building the KMS client makes no request.
func New(cfg aws.Config, keyID string, localKey []byte, optFns ...func(*kms.Options)) (webhook.Sealer, error) {
	switch {
	case len(localKey) == 0:
		return NewKMS(cfg, keyID, optFns...)
	case keyID != "":
		return nil, ErrBothConfigured
	}
	l, err := NewLocal(localKey)
	if err != nil {
		return nil, err
	}
	return l, nil
}

// NewKMS returns the KMS sealer of keyID (webhook.ErrNoSealer when it is ""): what a deployed
// function uses. It does not reference the local sealer, so a binary that calls only NewKMS
// does not link it.
func NewKMS(cfg aws.Config, keyID string, optFns ...func(*kms.Options)) (webhook.Sealer, error) {
	if keyID == "" {
		return nil, webhook.ErrNoSealer
	}
	return &KMS{Client: kms.NewFromConfig(cfg, optFns...), KeyID: keyID}, nil
}

// API is the part of the KMS client KMS uses.
type API interface {
	Encrypt(ctx context.Context, in *kms.EncryptInput, optFns ...func(*kms.Options)) (*kms.EncryptOutput, error)
	Decrypt(ctx context.Context, in *kms.DecryptInput, optFns ...func(*kms.Options)) (*kms.DecryptOutput, error)
}

// KMS seals with AWS KMS under one symmetric encryption key.
type KMS struct {
	Client API
	// KeyID is the key's id, ARN, alias name or alias ARN. Decrypt names it too, so a blob
	// sealed under any other key is refused.
	KeyID string
	// Timeout bounds each call, retries included (0: DefaultTimeout).
	Timeout time.Duration
}

var _ webhook.Sealer = (*KMS)(nil)

func (s *KMS) timeout() time.Duration {
	if s.Timeout > 0 {
		return s.Timeout
	}
	return DefaultTimeout
}

// Seal encrypts secret with KMS Encrypt (one request), the scope as encryption context.
func (s *KMS) Seal(ctx context.Context, scope webhook.Scope, secret []byte) (webhook.Sealed, error) {
	if err := scope.Check(); err != nil {
		return webhook.Sealed{}, err
	}
	ctx, cancel := context.WithTimeout(ctx, s.timeout())
	defer cancel()
	out, err := s.Client.Encrypt(ctx, &kms.EncryptInput{
		KeyId: aws.String(s.KeyID), Plaintext: secret, EncryptionContext: scope.EncryptionContext(),
	})
	if err != nil {
		return webhook.Sealed{}, fmt.Errorf("kms encrypt: %w", err)
	}
	if len(out.CiphertextBlob) == 0 || aws.ToString(out.KeyId) == "" {
		return webhook.Sealed{}, errors.New("kms encrypt: empty answer")
	}
	return webhook.Sealed{KeyRef: KMSPrefix + aws.ToString(out.KeyId), Ciphertext: out.CiphertextBlob}, nil
}

// Open decrypts a KMS-sealed secret with KMS Decrypt (one request) under the configured key
// and the scope's encryption context; another scope's secret fails (InvalidCiphertextException).
func (s *KMS) Open(ctx context.Context, scope webhook.Scope, sealed webhook.Sealed) ([]byte, error) {
	if err := scope.Check(); err != nil {
		return nil, err
	}
	if !strings.HasPrefix(sealed.KeyRef, KMSPrefix) {
		return nil, fmt.Errorf("secret sealed by %q, not by KMS: issue a new one with this stack's KMS key", refScheme(sealed.KeyRef))
	}
	ctx, cancel := context.WithTimeout(ctx, s.timeout())
	defer cancel()
	out, err := s.Client.Decrypt(ctx, &kms.DecryptInput{
		KeyId: aws.String(s.KeyID), CiphertextBlob: sealed.Ciphertext, EncryptionContext: scope.EncryptionContext(),
	})
	if err != nil {
		return nil, fmt.Errorf("kms decrypt: %w", err)
	}
	return out.Plaintext, nil
}

func refScheme(ref string) string {
	if i := strings.IndexByte(ref, ':'); i >= 0 {
		return ref[:i]
	}
	return ref
}

// Local seals with AES-256-GCM under a key a local stack generates and holds (the tests'
// stacks without local-kms hand it over as LOCAL_SEALING_KEY; make dev runs local-kms and
// seals with KMS); the scope is the additional authenticated data. It stands in for KMS where there is none; template.yaml
// never configures it.
type Local struct {
	aead cipher.AEAD
	ref  string
}

var _ webhook.Sealer = (*Local)(nil)

// NewLocal returns a Local sealer for a 32-byte key.
func NewLocal(key []byte) (*Local, error) {
	if len(key) != LocalKeySize {
		return nil, fmt.Errorf("local sealing key must be %d bytes, not %d", LocalKeySize, len(key))
	}
	block, err := aes.NewCipher(key)
	if err != nil {
		return nil, err
	}
	aead, err := cipher.NewGCM(block)
	if err != nil {
		return nil, err
	}
	fp := sha256.Sum256(append([]byte("takapay local sealing key fingerprint\x00"), key...))
	return &Local{aead: aead, ref: LocalPrefix + hex.EncodeToString(fp[:8])}, nil
}

// KeyRef is "local:" + a fingerprint of the key (not the key).
func (l *Local) KeyRef() string { return l.ref }

// additionalData is the scope's encryption context in a canonical form.
func additionalData(scope webhook.Scope) []byte {
	ec := scope.EncryptionContext()
	keys := make([]string, 0, len(ec))
	for k := range ec {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var b []byte
	b = append(b, "takapay-webhook-secret/v1"...)
	for _, k := range keys {
		b = fmt.Appendf(b, "\x00%d:%s=%d:%s", len(k), k, len(ec[k]), ec[k])
	}
	return b
}

// Seal encrypts secret: Ciphertext is a random 12-byte nonce followed by AES-256-GCM output.
func (l *Local) Seal(_ context.Context, scope webhook.Scope, secret []byte) (webhook.Sealed, error) {
	if err := scope.Check(); err != nil {
		return webhook.Sealed{}, err
	}
	nonce := make([]byte, l.aead.NonceSize(), l.aead.NonceSize()+len(secret)+l.aead.Overhead())
	if _, err := rand.Read(nonce); err != nil {
		return webhook.Sealed{}, err
	}
	return webhook.Sealed{KeyRef: l.ref, Ciphertext: l.aead.Seal(nonce, nonce, secret, additionalData(scope))}, nil
}

// Open decrypts a secret this key sealed for this scope.
func (l *Local) Open(_ context.Context, scope webhook.Scope, sealed webhook.Sealed) ([]byte, error) {
	if err := scope.Check(); err != nil {
		return nil, err
	}
	if sealed.KeyRef != l.ref {
		if strings.HasPrefix(sealed.KeyRef, KMSPrefix) {
			return nil, errors.New("secret sealed by AWS KMS: the local stack cannot open it")
		}
		return nil, fmt.Errorf("secret sealed under another local key (%s, this stack's is %s): issue a new one", sealed.KeyRef, l.ref)
	}
	n := l.aead.NonceSize()
	if len(sealed.Ciphertext) < n+l.aead.Overhead() {
		return nil, errors.New("sealed secret is truncated")
	}
	out, err := l.aead.Open(nil, sealed.Ciphertext[:n], sealed.Ciphertext[n:], additionalData(scope))
	if err != nil {
		return nil, errors.New("sealed secret does not open for this workspace and environment")
	}
	return out, nil
}
