package auth_test

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/takapay/payments/shared/auth"
	"github.com/takapay/payments/shared/foundation/apierr"
	"github.com/takapay/payments/shared/foundation/web"
)

// touches is a KeyUseStore that counts and records its writes.
type touches struct {
	mu     sync.Mutex
	writes int
	at     map[string]time.Time
	err    error
	// deadline is the write's context deadline as it was seen.
	deadline time.Duration
}

func (s *touches) TouchKey(ctx context.Context, hash string, at time.Time, interval time.Duration) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.writes++
	if d, ok := ctx.Deadline(); ok {
		s.deadline = time.Until(d)
	}
	if s.err != nil {
		return s.err
	}
	if s.at == nil {
		s.at = map[string]time.Time{}
	}
	if last, ok := s.at[hash]; !ok || last.Before(at.Add(-interval)) {
		s.at[hash] = at
	}
	return nil
}

// keyFixture returns a key, its record, a store holding it, and a request carrying it.
func keyFixture(t testing.TB) (*auth.KeyRecord, *countingKeys, *web.Request) {
	t.Helper()
	plaintext, hash, err := auth.NewKey(auth.Sandbox)
	if err != nil {
		t.Fatal(err)
	}
	rec := &auth.KeyRecord{Hash: hash, KeyID: "key_1", WorkspaceID: "ws_1", Environment: auth.Sandbox, Scopes: auth.AllScopes}
	store := &countingKeys{keys: map[string]*auth.KeyRecord{hash: rec}}
	return rec, store, &web.Request{Headers: map[string]string{"authorization": "Bearer " + plaintext}}
}

func TestLastUsedOneWritePerHour(t *testing.T) {
	ctx := context.Background()
	rec, store, r := keyFixture(t)
	now := time.Date(2026, 11, 27, 10, 0, 0, 0, time.UTC)
	w := &touches{}
	a := &auth.Authenticator{Keys: store, LastUsed: &auth.LastUsed{Store: w}, Now: func() time.Time { return now }}

	for i := range 100 {
		now = now.Add(time.Second)
		if _, err := a.Authenticate(ctx, r); err != nil {
			t.Fatalf("authentication %d: %v", i, err)
		}
	}
	if w.writes != 1 {
		t.Fatalf("100 authentications made %d writes, want 1", w.writes)
	}
	if got := w.at[rec.Hash]; !got.Equal(time.Date(2026, 11, 27, 10, 0, 1, 0, time.UTC)) {
		t.Errorf("recorded %v", got)
	}
	if w.deadline <= 0 || w.deadline > auth.DefaultKeyUseTimeout {
		t.Errorf("the write's deadline was %v away, want within %v", w.deadline, auth.DefaultKeyUseTimeout)
	}
	// An hour after the recorded use, the next use is recorded again, once.
	now = time.Date(2026, 11, 27, 11, 0, 1, 0, time.UTC)
	for range 10 {
		if _, err := a.Authenticate(ctx, r); err != nil {
			t.Fatal(err)
		}
	}
	if w.writes != 2 {
		t.Fatalf("writes after an hour = %d, want 2", w.writes)
	}
}

// A stored last use less than an hour old (another instance wrote it) costs no write.
func TestLastUsedTrustsTheStoredValue(t *testing.T) {
	ctx := context.Background()
	rec, store, r := keyFixture(t)
	now := time.Date(2026, 11, 27, 10, 0, 0, 0, time.UTC)
	recent := now.Add(-59 * time.Minute)
	rec.LastUsedAt = &recent
	w := &touches{}
	a := &auth.Authenticator{Keys: store, LastUsed: &auth.LastUsed{Store: w}, Now: func() time.Time { return now }}
	for range 5 {
		if _, err := a.Authenticate(ctx, r); err != nil {
			t.Fatal(err)
		}
	}
	if w.writes != 0 {
		t.Fatalf("writes = %d, want 0", w.writes)
	}
	now = now.Add(time.Minute) // the stored use is an hour old now
	if _, err := a.Authenticate(ctx, r); err != nil || w.writes != 1 {
		t.Fatalf("after an hour: %v, %d writes", err, w.writes)
	}
}

// A failed write never fails the request; the instance tries again a minute later, not on
// every request.
func TestLastUsedFailureIsNotTheRequests(t *testing.T) {
	ctx := context.Background()
	_, store, r := keyFixture(t)
	now := time.Date(2026, 11, 27, 10, 0, 0, 0, time.UTC)
	w := &touches{err: errors.New("throttled")}
	a := &auth.Authenticator{Keys: store, LastUsed: &auth.LastUsed{Store: w}, Now: func() time.Time { return now }}
	for range 10 {
		if _, err := a.Authenticate(ctx, r); err != nil {
			t.Fatalf("a failed last-used write failed the request: %v", err)
		}
	}
	if w.writes != 1 {
		t.Fatalf("writes = %d, want 1 (retry after a minute)", w.writes)
	}
	now = now.Add(time.Minute)
	w.err = nil
	if _, err := a.Authenticate(ctx, r); err != nil || w.writes != 2 {
		t.Fatalf("retry: %v, %d writes", err, w.writes)
	}
	now = now.Add(59 * time.Minute)
	if _, err := a.Authenticate(ctx, r); err != nil || w.writes != 2 {
		t.Fatalf("after the retry succeeded: %v, %d writes", err, w.writes)
	}
}

// Failed authentications record nothing.
func TestLastUsedOnlyOnSuccess(t *testing.T) {
	ctx := context.Background()
	rec, store, r := keyFixture(t)
	now := time.Date(2026, 11, 27, 10, 0, 0, 0, time.UTC)
	rec.RevokedAt = &now
	w := &touches{}
	a := &auth.Authenticator{Keys: store, LastUsed: &auth.LastUsed{Store: w}, Now: func() time.Time { return now }}
	if _, err := a.Authenticate(ctx, r); err == nil {
		t.Fatal("a revoked key authenticated")
	}
	if w.writes != 0 {
		t.Fatalf("a refused key was recorded as used (%d writes)", w.writes)
	}
}

// The memory bound holds, and forgetting a key costs at most one more (conditional) write.
func TestLastUsedMemoryBound(t *testing.T) {
	ctx := context.Background()
	now := time.Date(2026, 11, 27, 10, 0, 0, 0, time.UTC)
	w := &touches{}
	l := &auth.LastUsed{Store: w, Memory: 3}
	for i := range 10 {
		l.Note(ctx, &auth.KeyRecord{Hash: string(rune('a' + i))}, now)
	}
	if w.writes != 10 {
		t.Fatalf("writes = %d", w.writes)
	}
	l.Note(ctx, &auth.KeyRecord{Hash: "j"}, now) // the newest is remembered
	if w.writes != 10 {
		t.Fatalf("the newest key was forgotten")
	}
}

// Revocation within the key cache's stated delay: a revoked key keeps working on an instance
// that cached it for at most the TTL, and is refused once the TTL has passed (clock injected,
// no sleeps) — docs/operations.md "Revocation delay".
func TestRevokedKeyRefusedAfterCacheTTL(t *testing.T) {
	ctx := context.Background()
	rec, store, r := keyFixture(t)
	now := time.Date(2026, 11, 27, 10, 0, 0, 0, time.UTC)
	clock := func() time.Time { return now }
	a := &auth.Authenticator{Keys: &auth.KeyCache{Store: store, Now: clock}, Now: clock}
	if _, err := a.Authenticate(ctx, r); err != nil {
		t.Fatal(err)
	}
	// The key is revoked in the store (a new record, as a read after the write returns).
	revoked := *rec
	at := now
	revoked.RevokedAt = &at
	store.keys[rec.Hash] = &revoked
	now = now.Add(auth.DefaultKeyCacheTTL - time.Millisecond)
	if _, err := a.Authenticate(ctx, r); err != nil {
		t.Fatalf("within the TTL the cached key is still trusted (the stated delay): %v", err)
	}
	now = at.Add(auth.DefaultKeyCacheTTL)
	_, err := a.Authenticate(ctx, r)
	if e := wantAPIErr(t, err, apierr.InvalidAPIKey); e.Status() != 401 {
		t.Fatalf("status %d", e.Status())
	}
	if auth.DefaultKeyCacheTTL != 5*time.Second {
		t.Errorf("docs/operations.md states a 5 s revocation delay; DefaultKeyCacheTTL is %v", auth.DefaultKeyCacheTTL)
	}
}

// BenchmarkAuthenticate measures the hot path of a warm instance: a cached key, with and
// without last-used recording (after its one write, recording is a map lookup).
func BenchmarkAuthenticate(b *testing.B) {
	for _, withLastUsed := range []bool{false, true} {
		name := "without_last_used"
		if withLastUsed {
			name = "with_last_used"
		}
		b.Run(name, func(b *testing.B) {
			ctx := context.Background()
			_, store, r := keyFixture(b)
			now := time.Date(2026, 11, 27, 10, 0, 0, 0, time.UTC)
			clock := func() time.Time { return now }
			a := &auth.Authenticator{Keys: &auth.KeyCache{Store: store, Now: clock}, Now: clock}
			if withLastUsed {
				a.LastUsed = &auth.LastUsed{Store: &touches{}}
			}
			b.ReportAllocs()
			b.ResetTimer()
			for range b.N {
				if _, err := a.Authenticate(ctx, r); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
