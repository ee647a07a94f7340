package auth

import (
	"context"
	"sync"
	"time"
)

// DefaultKeyCacheTTL bounds how long an instance trusts a key it has read: a revoked or
// rotated-out key keeps working on an instance that read it for at most this long.
const DefaultKeyCacheTTL = 5 * time.Second

// DefaultKeyCacheSize bounds how many keys an instance remembers.
const DefaultKeyCacheSize = 1024

// KeyCache is a KeyStore that remembers the keys it has found for a few seconds, so that a
// warm instance authenticates a merchant's steady traffic without a read per request: payment
// create is then one PutItem and verify one GetItem. Only found keys are cached — an unknown
// key is looked up every time, so a key issued a moment ago works at once — and never longer
// than TTL, which is the revocation delay (docs/operations.md documents it). Expiry (a rotation's grace)
// is still checked on every use by the authenticator, from the record.
type KeyCache struct {
	Store KeyStore
	// TTL is how long a found key is trusted (DefaultKeyCacheTTL when 0).
	TTL time.Duration
	// Size bounds the entries (DefaultKeyCacheSize when 0); a full cache forgets the stalest.
	Size int
	// Now is the clock (time.Now when nil).
	Now func() time.Time

	mu      sync.Mutex
	entries map[string]keyEntry
}

type keyEntry struct {
	rec *KeyRecord
	at  time.Time
}

var _ KeyStore = (*KeyCache)(nil)

// GetKey returns the cached record while it is fresh, else reads it from Store.
func (c *KeyCache) GetKey(ctx context.Context, hash string) (*KeyRecord, error) {
	now := c.now()
	ttl := c.TTL
	if ttl <= 0 {
		ttl = DefaultKeyCacheTTL
	}
	c.mu.Lock()
	if e, ok := c.entries[hash]; ok {
		if now.Sub(e.at) < ttl && !now.Before(e.at) {
			c.mu.Unlock()
			return e.rec, nil
		}
		delete(c.entries, hash)
	}
	c.mu.Unlock()

	rec, err := c.Store.GetKey(ctx, hash)
	if err != nil || rec == nil {
		return rec, err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	size := c.Size
	if size <= 0 {
		size = DefaultKeyCacheSize
	}
	if c.entries == nil {
		c.entries = map[string]keyEntry{}
	}
	if len(c.entries) >= size {
		stalest := ""
		for h, e := range c.entries {
			if stalest == "" || e.at.Before(c.entries[stalest].at) {
				stalest = h
			}
		}
		delete(c.entries, stalest)
	}
	c.entries[hash] = keyEntry{rec: rec, at: now}
	return rec, nil
}

func (c *KeyCache) now() time.Time {
	if c.Now != nil {
		return c.Now()
	}
	return time.Now()
}
