package webhook

import (
	"bytes"
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/takapay/payments/shared/auth"
)

// countingSealer opens by returning the ciphertext (a stand-in for a sealer; the real ones
// are tested in package kmsseal) and counts the opens, as KMS would bill them.
type countingSealer struct {
	mu    sync.Mutex
	opens int
	fail  error
}

func (c *countingSealer) Seal(_ context.Context, _ Scope, secret []byte) (Sealed, error) {
	return Sealed{KeyRef: "test:", Ciphertext: bytes.Clone(secret)}, nil
}

func (c *countingSealer) Open(_ context.Context, _ Scope, s Sealed) ([]byte, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.opens++
	if c.fail != nil {
		return nil, c.fail
	}
	return bytes.Clone(s.Ciphertext), nil
}

func (c *countingSealer) count() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.opens
}

func testSecret(id string, key byte) Secret {
	return Secret{ID: id, Sealed: Sealed{KeyRef: "test:", Ciphertext: bytes.Repeat([]byte{key}, SecretSize)}}
}

// An opened key is reused for TTL, per scope and per sealed value; then it is opened again.
func TestKeyringCachesOpenedKeysForTTL(t *testing.T) {
	sealer := &countingSealer{}
	k := &Keyring{Sealer: sealer, TTL: 5 * time.Minute}
	ctx := context.Background()
	scope := Scope{WorkspaceID: "w1", Environment: auth.Sandbox}
	t0 := time.Date(2026, 11, 24, 10, 0, 0, 0, time.UTC)
	a := testSecret("whk_a", 1)

	for i := range 100 {
		key, err := k.open(ctx, scope, a, t0.Add(time.Duration(i)*time.Second))
		if err != nil || !bytes.Equal(key, a.Sealed.Ciphertext) {
			t.Fatalf("open %d: %x, %v", i, key, err)
		}
	}
	if n := sealer.count(); n != 1 {
		t.Fatalf("100 signings within the TTL opened the secret %d times, want 1", n)
	}
	// Another scope, another secret or another ciphertext under the same id: separate entries.
	_, _ = k.open(ctx, Scope{WorkspaceID: "w1", Environment: auth.Live}, a, t0)
	_, _ = k.open(ctx, Scope{WorkspaceID: "w2", Environment: auth.Sandbox}, a, t0)
	_, _ = k.open(ctx, scope, testSecret("whk_b", 2), t0)
	changed := testSecret("whk_a", 3)
	if key, _ := k.open(ctx, scope, changed, t0); !bytes.Equal(key, changed.Sealed.Ciphertext) {
		t.Error("a changed ciphertext under the same id was answered from the cache")
	}
	if n := sealer.count(); n != 5 {
		t.Fatalf("%d opens, want 5 (one per distinct scope/secret/ciphertext)", n)
	}
	// At the TTL the key is opened again.
	_, _ = k.open(ctx, scope, a, t0.Add(5*time.Minute))
	if n := sealer.count(); n != 6 {
		t.Errorf("after the TTL: %d opens, want 6", n)
	}
}

func TestKeyringNeverCachesFailuresOrBadKeys(t *testing.T) {
	boom := errors.New("kms: AccessDeniedException")
	sealer := &countingSealer{fail: boom}
	k := &Keyring{Sealer: sealer}
	ctx := context.Background()
	scope := Scope{WorkspaceID: "w1", Environment: auth.Sandbox}
	now := time.Now()
	for range 3 {
		if _, err := k.open(ctx, scope, testSecret("whk_a", 1), now); !errors.Is(err, boom) {
			t.Fatalf("open = %v, want the sealer's error", err)
		}
	}
	if sealer.count() != 3 || k.Len() != 0 {
		t.Errorf("%d opens, %d cached after failures; want 3, 0", sealer.count(), k.Len())
	}
	sealer.fail = nil
	short := Secret{ID: "whk_s", Sealed: Sealed{KeyRef: "test:", Ciphertext: []byte("too short")}}
	if _, err := k.open(ctx, scope, short, now); err == nil || k.Len() != 0 {
		t.Errorf("a 9-byte key: %v, %d cached", err, k.Len())
	}
	if _, err := (&Keyring{}).open(ctx, scope, testSecret("whk_a", 1), now); !errors.Is(err, ErrNoSealer) {
		t.Errorf("no sealer: %v", err)
	}
}

func TestKeyringNegativeTTLNeverCaches(t *testing.T) {
	sealer := &countingSealer{}
	k := &Keyring{Sealer: sealer, TTL: -1}
	for range 3 {
		_, _ = k.open(context.Background(), Scope{WorkspaceID: "w", Environment: auth.Sandbox}, testSecret("whk_a", 1), time.Now())
	}
	if sealer.count() != 3 || k.Len() != 0 {
		t.Errorf("%d opens, %d cached", sealer.count(), k.Len())
	}
}

// The cache is bounded: expired entries go first, then arbitrary ones.
func TestKeyringCacheIsBounded(t *testing.T) {
	sealer := &countingSealer{}
	k := &Keyring{Sealer: sealer, MaxEntries: 10, TTL: time.Minute}
	ctx := context.Background()
	t0 := time.Now()
	for i := range 25 {
		_, _ = k.open(ctx, Scope{WorkspaceID: string(rune('a' + i)), Environment: auth.Sandbox}, testSecret("whk_a", 1), t0)
		if k.Len() > 10 {
			t.Fatalf("%d entries after %d opens, limit 10", k.Len(), i+1)
		}
	}
	// Once everything has expired, one new entry sweeps them out.
	_, _ = k.open(ctx, Scope{WorkspaceID: "z", Environment: auth.Sandbox}, testSecret("whk_a", 1), t0.Add(2*time.Minute))
	if k.Len() != 1 {
		t.Errorf("%d entries after the sweep, want 1", k.Len())
	}
}

func TestKeyringConcurrentUse(t *testing.T) {
	sealer := &countingSealer{}
	k := &Keyring{Sealer: sealer}
	var wg sync.WaitGroup
	for i := range 16 {
		wg.Go(func() {
			for j := range 200 {
				scope := Scope{WorkspaceID: string(rune('a' + (i+j)%4)), Environment: auth.Sandbox}
				if _, err := k.open(context.Background(), scope, testSecret("whk_a", 1), time.Now()); err != nil {
					t.Error(err)
				}
			}
		})
	}
	wg.Wait()
	if n := sealer.count(); n < 4 || n > 4*16 {
		t.Errorf("%d opens for 4 scopes", n)
	}
}

func TestScopeEncryptionContext(t *testing.T) {
	s := Scope{WorkspaceID: "0196a000-0000-7000-8000-00000000000a", Environment: auth.Live}
	ec := s.EncryptionContext()
	if len(ec) != 2 || ec["workspace_id"] != s.WorkspaceID || ec["environment"] != "live" {
		t.Errorf("EncryptionContext = %v", ec)
	}
	if s.Check() != nil || (Scope{Environment: auth.Live}).Check() == nil || (Scope{WorkspaceID: "w", Environment: "prod"}).Check() == nil {
		t.Error("Check")
	}
}
