package auth_test

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/takapay/payments/shared/auth"
)

// countingKeys is a KeyStore that counts its reads.
type countingKeys struct {
	keys  map[string]*auth.KeyRecord
	reads int
	err   error
}

func (s *countingKeys) GetKey(_ context.Context, hash string) (*auth.KeyRecord, error) {
	s.reads++
	return s.keys[hash], s.err
}

func TestKeyCache(t *testing.T) {
	ctx := context.Background()
	now := time.Date(2026, 11, 24, 10, 0, 0, 0, time.UTC)
	store := &countingKeys{keys: map[string]*auth.KeyRecord{"h1": {Hash: "h1", KeyID: "key_1"}}}
	c := &auth.KeyCache{Store: store, TTL: 5 * time.Second, Size: 2, Now: func() time.Time { return now }}

	for range 3 {
		if rec, err := c.GetKey(ctx, "h1"); err != nil || rec == nil || rec.KeyID != "key_1" {
			t.Fatalf("GetKey = %+v, %v", rec, err)
		}
	}
	if store.reads != 1 {
		t.Fatalf("3 lookups within the TTL made %d reads, want 1", store.reads)
	}
	// An unknown key is never cached: once issued, it works at once.
	if rec, _ := c.GetKey(ctx, "h2"); rec != nil {
		t.Fatal("found an unknown key")
	}
	store.keys["h2"] = &auth.KeyRecord{Hash: "h2", KeyID: "key_2"}
	if rec, _ := c.GetKey(ctx, "h2"); rec == nil || store.reads != 3 {
		t.Fatalf("a new key after a miss: %+v, %d reads", rec, store.reads)
	}
	// After the TTL the store is asked again: a revocation shows within TTL.
	revoked := now
	store.keys["h1"] = &auth.KeyRecord{Hash: "h1", KeyID: "key_1", RevokedAt: &revoked}
	now = now.Add(4 * time.Second)
	if rec, _ := c.GetKey(ctx, "h1"); rec.RevokedAt != nil {
		t.Fatal("the cache was not used within its TTL")
	}
	now = now.Add(2 * time.Second)
	if rec, _ := c.GetKey(ctx, "h1"); rec.RevokedAt == nil {
		t.Fatal("a revocation was not seen after the TTL")
	}
	// A store failure is returned, not cached.
	store.err = errors.New("unavailable")
	now = now.Add(time.Minute)
	if _, err := c.GetKey(ctx, "h1"); err == nil {
		t.Fatal("a store failure was hidden")
	}
	// The size bound holds.
	store.err = nil
	for i := range 10 {
		h := fmt.Sprintf("k%d", i)
		store.keys[h] = &auth.KeyRecord{Hash: h}
		now = now.Add(time.Millisecond)
		if _, err := c.GetKey(ctx, h); err != nil {
			t.Fatal(err)
		}
	}
	reads := store.reads
	if _, err := c.GetKey(ctx, "k9"); err != nil || store.reads != reads {
		t.Fatalf("the newest key was not kept (reads %d -> %d)", reads, store.reads)
	}
	if _, err := c.GetKey(ctx, "k0"); err != nil || store.reads != reads+1 {
		t.Fatalf("the stalest key was kept beyond the size bound (reads %d -> %d)", reads, store.reads)
	}
}
