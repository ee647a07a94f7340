package kmsseal_test

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"maps"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/kms/types"
	"github.com/aws/smithy-go"

	"github.com/takapay/payments/shared/auth"
	"github.com/takapay/payments/shared/aws/awsx"
	"github.com/takapay/payments/shared/aws/kmsseal"
	"github.com/takapay/payments/shared/local/fakekms"
	"github.com/takapay/payments/shared/webhook"
)

var (
	scopeA = webhook.Scope{WorkspaceID: "0196a000-0000-7000-8000-00000000000a", Environment: auth.Sandbox}
	scopeB = webhook.Scope{WorkspaceID: "0196a000-0000-7000-8000-00000000000b", Environment: auth.Sandbox}
	scopeL = webhook.Scope{WorkspaceID: scopeA.WorkspaceID, Environment: auth.Live}
)

func randomBytes(t *testing.T, n int) []byte {
	t.Helper()
	b := make([]byte, n)
	if _, err := rand.Read(b); err != nil {
		t.Fatal(err)
	}
	return b
}

// kmsSealer is the production KMS sealer (kmsseal.New) whose client reaches the fake, with
// the functions' retry policy.
func kmsSealer(t *testing.T, fake *fakekms.Server, keyID string) *kmsseal.KMS {
	t.Helper()
	cfg := fake.AWSConfig()
	cfg.Retryer = awsx.NewRetryer
	s, err := kmsseal.New(cfg, keyID, nil)
	if err != nil {
		t.Fatal(err)
	}
	k, ok := s.(*kmsseal.KMS)
	if !ok {
		t.Fatalf("New(keyID) = %T, want *kmsseal.KMS", s)
	}
	return k
}

// containsSecret reports whether b holds the secret raw, in base64 or in hex.
func containsSecret(b, secret []byte) bool {
	return bytes.Contains(b, secret) || bytes.Contains(b, []byte(base64.StdEncoding.EncodeToString(secret))) ||
		bytes.Contains(b, []byte(hex.EncodeToString(secret)))
}

func TestKMSSealAndOpenThroughTheSDK(t *testing.T) {
	t.Parallel()
	fake := fakekms.Start(t)
	s := kmsSealer(t, fake, fake.Alias)
	ctx := context.Background()
	secret := randomBytes(t, 32)

	sealed, err := s.Seal(ctx, scopeA, secret)
	if err != nil {
		t.Fatalf("Seal: %v", err)
	}
	if sealed.KeyRef != "kms:"+fake.KeyARN || len(sealed.Ciphertext) == 0 || containsSecret(sealed.Ciphertext, secret) {
		t.Fatalf("sealed = %q, %d bytes of ciphertext (must name the key ARN and not hold the secret)", sealed.KeyRef, len(sealed.Ciphertext))
	}
	got, err := s.Open(ctx, scopeA, sealed)
	if err != nil || !bytes.Equal(got, secret) {
		t.Fatalf("Open = %x, %v; want the sealed secret", got, err)
	}

	// One Encrypt and one Decrypt, each naming the configured key and the scope as context.
	wantCtx := map[string]string{"workspace_id": scopeA.WorkspaceID, "environment": "sandbox"}
	reqs := fake.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d KMS requests, want 2: %+v", len(reqs), reqs)
	}
	for i, op := range []string{"Encrypt", "Decrypt"} {
		r := reqs[i]
		if r.Op != op || r.Status != 200 || r.KeyID != fake.Alias || !maps.Equal(r.EncryptionContext, wantCtx) {
			t.Errorf("request %d = %+v, want %s of %s with context %v", i, r, op, fake.Alias, wantCtx)
		}
	}

	// Sealing twice gives different ciphertexts of the same secret.
	again, err := s.Seal(ctx, scopeA, secret)
	if err != nil || bytes.Equal(again.Ciphertext, sealed.Ciphertext) {
		t.Errorf("second Seal: %v (ciphertexts equal: %v)", err, bytes.Equal(again.Ciphertext, sealed.Ciphertext))
	}
}

// The encryption context binds a sealed secret to its workspace and environment: KMS refuses
// to decrypt it for any other (InvalidCiphertextException), so a ciphertext copied into
// another workspace's item is useless.
func TestKMSOpenWithAnotherContextFails(t *testing.T) {
	t.Parallel()
	fake := fakekms.Start(t)
	s := kmsSealer(t, fake, fake.KeyARN)
	ctx := context.Background()
	sealed, err := s.Seal(ctx, scopeA, randomBytes(t, 32))
	if err != nil {
		t.Fatal(err)
	}
	for _, other := range []webhook.Scope{scopeB, scopeL} {
		_, err := s.Open(ctx, other, sealed)
		var invalid *types.InvalidCiphertextException
		if !errors.As(err, &invalid) {
			t.Errorf("Open for %+v = %v, want InvalidCiphertextException", other, err)
		}
	}
	last := fake.Requests()[len(fake.Requests())-1]
	if last.Op != "Decrypt" || last.Error != "InvalidCiphertextException" || last.EncryptionContext["environment"] != "live" {
		t.Errorf("last request %+v", last)
	}
	// A tampered ciphertext fails the same way.
	bad := sealed
	bad.Ciphertext = bytes.Clone(sealed.Ciphertext)
	bad.Ciphertext[len(bad.Ciphertext)-1] ^= 1
	var invalid *types.InvalidCiphertextException
	if _, err := s.Open(ctx, scopeA, bad); !errors.As(err, &invalid) {
		t.Errorf("Open(tampered) = %v", err)
	}
}

// Decrypt names the configured key: a secret sealed under another key is refused
// (IncorrectKeyException) even though the caller could decrypt with that key.
func TestKMSOpenUnderAnotherKeyFails(t *testing.T) {
	t.Parallel()
	fake := fakekms.Start(t)
	otherARN := fake.NewKey("")
	sealed, err := kmsSealer(t, fake, otherARN).Seal(context.Background(), scopeA, randomBytes(t, 32))
	if err != nil {
		t.Fatal(err)
	}
	var incorrect *types.IncorrectKeyException
	if _, err := kmsSealer(t, fake, fake.KeyARN).Open(context.Background(), scopeA, sealed); !errors.As(err, &incorrect) {
		t.Errorf("Open under another key = %v, want IncorrectKeyException", err)
	}
	// A locally sealed secret is not sent to KMS at all.
	local, _ := kmsseal.NewLocal(randomBytes(t, 32))
	ls, _ := local.Seal(context.Background(), scopeA, randomBytes(t, 32))
	before := len(fake.Requests())
	if _, err := kmsSealer(t, fake, fake.KeyARN).Open(context.Background(), scopeA, ls); err == nil || !strings.Contains(err.Error(), "not by KMS") {
		t.Errorf("Open(local-sealed) = %v", err)
	}
	if len(fake.Requests()) != before {
		t.Error("a locally sealed secret was sent to KMS")
	}
}

// The SDK's retry policy runs: server errors and throttling are retried (the functions'
// policy: 3 attempts), access denied is not.
func TestKMSRetriesAndErrorMapping(t *testing.T) {
	t.Parallel()
	fake := fakekms.Start(t)
	s := kmsSealer(t, fake, fake.KeyARN)
	ctx := context.Background()
	secret := randomBytes(t, 32)

	fake.Fail("Encrypt", 2, 400, "ThrottlingException")
	sealed, err := s.Seal(ctx, scopeA, secret)
	if err != nil || fake.Count("Encrypt") != 3 {
		t.Fatalf("Seal after 2 throttles: %v, %d Encrypt requests (want 3)", err, fake.Count("Encrypt"))
	}
	fake.Fail("Decrypt", 1, 500, "KMSInternalException")
	if got, err := s.Open(ctx, scopeA, sealed); err != nil || !bytes.Equal(got, secret) || fake.Count("Decrypt") != 2 {
		t.Fatalf("Open after a 500: %v, %d Decrypt requests (want 2)", err, fake.Count("Decrypt"))
	}
	fake.Fail("Decrypt", 3, 500, "KMSInternalException")
	var internal *types.KMSInternalException
	if _, err := s.Open(ctx, scopeA, sealed); !errors.As(err, &internal) || fake.Count("Decrypt") != 5 {
		t.Errorf("Open with KMS down = %v after %d requests, want KMSInternalException after 3 attempts", err, fake.Count("Decrypt")-2)
	}
	fake.Fail("Decrypt", 1, 400, "AccessDeniedException")
	var api smithy.APIError
	if _, err := s.Open(ctx, scopeA, sealed); !errors.As(err, &api) || api.ErrorCode() != "AccessDeniedException" || fake.Count("Decrypt") != 6 {
		t.Errorf("Open denied = %v, %d requests; want AccessDeniedException, not retried", err, fake.Count("Decrypt"))
	}
}

// The fake checks SigV4 signatures: a client with the wrong secret key is refused, so the
// tests above prove the SDK signed every request.
func TestFakeKMSChecksSignatures(t *testing.T) {
	t.Parallel()
	fake := fakekms.Start(t)
	cfg := fake.AWSConfig()
	cfg.Credentials = aws.NewCredentialsCache(credentials.NewStaticCredentialsProvider(fakekms.AccessKeyID, "wrong", ""))
	cfg.Retryer = awsx.NewRetryer
	s, _ := kmsseal.New(cfg, fake.KeyARN, nil)
	if _, err := s.Seal(context.Background(), scopeA, randomBytes(t, 32)); err == nil || !strings.Contains(err.Error(), "InvalidSignatureException") {
		t.Errorf("Seal signed with a wrong key = %v, want InvalidSignatureException", err)
	}
}

func TestLocalSealer(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	key := randomBytes(t, 32)
	l, err := kmsseal.NewLocal(key)
	if err != nil {
		t.Fatal(err)
	}
	secret := randomBytes(t, 32)
	sealed, err := l.Seal(ctx, scopeA, secret)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(sealed.KeyRef, "local:") || sealed.KeyRef != l.KeyRef() || len(sealed.Ciphertext) != 12+32+16 ||
		containsSecret(sealed.Ciphertext, secret) || strings.Contains(sealed.KeyRef, hex.EncodeToString(key)[:16]) {
		t.Fatalf("sealed = %q, %d bytes", sealed.KeyRef, len(sealed.Ciphertext))
	}
	if got, err := l.Open(ctx, scopeA, sealed); err != nil || !bytes.Equal(got, secret) {
		t.Fatalf("Open = %x, %v", got, err)
	}
	// Same key again (make dev restarts): still opens.
	again, _ := kmsseal.NewLocal(key)
	if got, err := again.Open(ctx, scopeA, sealed); err != nil || !bytes.Equal(got, secret) {
		t.Fatalf("Open with the same key, new sealer = %v", err)
	}
	for _, other := range []webhook.Scope{scopeB, scopeL} {
		if _, err := l.Open(ctx, other, sealed); err == nil {
			t.Errorf("opened for %+v", other)
		}
	}
	bad := sealed
	bad.Ciphertext = bytes.Clone(sealed.Ciphertext)
	bad.Ciphertext[0] ^= 1
	if _, err := l.Open(ctx, scopeA, bad); err == nil {
		t.Error("tampered nonce opened")
	}
	bad.Ciphertext = sealed.Ciphertext[:20]
	if _, err := l.Open(ctx, scopeA, bad); err == nil {
		t.Error("truncated ciphertext opened")
	}
	other, _ := kmsseal.NewLocal(randomBytes(t, 32))
	if _, err := other.Open(ctx, scopeA, sealed); err == nil || !strings.Contains(err.Error(), "another local key") {
		t.Errorf("Open under another local key = %v", err)
	}
	if _, err := l.Open(ctx, scopeA, webhook.Sealed{KeyRef: "kms:arn:aws:kms:x", Ciphertext: sealed.Ciphertext}); err == nil ||
		!strings.Contains(err.Error(), "KMS") {
		t.Errorf("Open of a KMS-sealed secret = %v", err)
	}
	if _, err := l.Seal(ctx, webhook.Scope{Environment: auth.Sandbox}, secret); err == nil {
		t.Error("sealed for an empty workspace")
	}
	if _, err := l.Seal(ctx, webhook.Scope{WorkspaceID: "w", Environment: "prod"}, secret); err == nil {
		t.Error("sealed for an unknown environment")
	}
	if _, err := kmsseal.NewLocal(randomBytes(t, 16)); err == nil {
		t.Error("a 16-byte local key was accepted")
	}
}

// KMS whenever a key id is configured; the local key only without one; never both.
func TestNewChoosesTheSealer(t *testing.T) {
	t.Parallel()
	local := randomBytes(t, 32)
	if s, err := kmsseal.New(aws.Config{}, "alias/x", nil); err != nil {
		t.Errorf("KMS: %v", err)
	} else if k, ok := s.(*kmsseal.KMS); !ok || k.KeyID != "alias/x" {
		t.Errorf("KMS: %T %+v", s, s)
	}
	if s, err := kmsseal.New(aws.Config{}, "", local); err != nil {
		t.Errorf("local: %v", err)
	} else if _, ok := s.(*kmsseal.Local); !ok {
		t.Errorf("local: %T", s)
	}
	if _, err := kmsseal.New(aws.Config{}, "alias/x", local); !errors.Is(err, kmsseal.ErrBothConfigured) {
		t.Errorf("both: %v", err)
	}
	if _, err := kmsseal.New(aws.Config{}, "", nil); !errors.Is(err, webhook.ErrNoSealer) {
		t.Errorf("neither: %v", err)
	}
}
