package auth

import (
	"context"
	"log/slog"
	"sync"
	"time"

	"github.com/takapay/payments/shared/foundation/obs"
)

// KeyUseInterval is the resolution of a key's "last used": a key's last_used_at is written at
// most once per KeyUseInterval (the dashboard shows it to the day).
const KeyUseInterval = time.Hour

// DefaultKeyUseTimeout bounds the one write that records a key's use: a slow table costs a
// request at most this much, once per key per KeyUseInterval per instance.
const DefaultKeyUseTimeout = 300 * time.Millisecond

// keyUseRetry is how soon an instance tries again after a write that failed.
const keyUseRetry = time.Minute

// DefaultKeyUseMemory bounds how many keys an instance remembers having recorded.
const DefaultKeyUseMemory = 4096

// KeyUseStore records a key's use. TouchKey sets the key's last_used_at to at with one
// conditional write that succeeds only when last_used_at is absent or older than
// at-interval (so instances racing on the same key write it at most once per interval
// between them); a lost condition (fresh already, or no such key) is not an error.
type KeyUseStore interface {
	TouchKey(ctx context.Context, hash string, at time.Time, interval time.Duration) error
}

// LastUsed records when keys authenticate requests, at most one write per key per
// KeyUseInterval: a key whose stored last_used_at is recent, or that this instance already
// recorded within the interval, costs nothing; otherwise one conditional write bounded by
// Timeout is made on the request's path. A failed write is annotated on the request's log
// line (field key_last_used) and never fails the request; the instance tries again a minute
// later.
type LastUsed struct {
	Store KeyUseStore
	// Timeout bounds the write (DefaultKeyUseTimeout when 0).
	Timeout time.Duration
	// Memory bounds the keys remembered (DefaultKeyUseMemory when 0).
	Memory int

	mu sync.Mutex
	// seen maps a key hash to the last use known to be recorded (or being recorded).
	seen map[string]time.Time
}

// Note records that rec authenticated a request at now, if that is news.
func (l *LastUsed) Note(ctx context.Context, rec *KeyRecord, now time.Time) {
	l.mu.Lock()
	last, ok := l.seen[rec.Hash]
	if ok && now.Sub(last) < KeyUseInterval {
		l.mu.Unlock()
		return
	}
	if rec.LastUsedAt != nil && now.Sub(*rec.LastUsedAt) < KeyUseInterval {
		// Recorded recently (maybe by another instance): remember it, write nothing.
		l.remember(rec.Hash, *rec.LastUsedAt)
		l.mu.Unlock()
		return
	}
	// Claim the write before making it, so this instance's concurrent requests do not repeat it.
	l.remember(rec.Hash, now)
	l.mu.Unlock()

	timeout := l.Timeout
	if timeout <= 0 {
		timeout = DefaultKeyUseTimeout
	}
	wctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), timeout)
	defer cancel()
	// The write is counted apart on the request's log line (ddb_key_use_requests): it falls
	// on whichever request first uses a key in an hour on an instance, not on an operation.
	obs.CountCall(ctx, obs.KeyUseService, "TouchKey")
	if err := l.Store.TouchKey(wctx, rec.Hash, now, KeyUseInterval); err != nil {
		obs.Annotate(ctx, slog.String("key_last_used", "not recorded: "+err.Error()))
		l.mu.Lock()
		if l.seen[rec.Hash].Equal(now) {
			l.seen[rec.Hash] = now.Add(keyUseRetry - KeyUseInterval)
		}
		l.mu.Unlock()
	}
}

// remember stores hash's last use, keeping the map within Memory (l.mu held).
func (l *LastUsed) remember(hash string, at time.Time) {
	if l.seen == nil {
		l.seen = map[string]time.Time{}
	}
	limit := l.Memory
	if limit <= 0 {
		limit = DefaultKeyUseMemory
	}
	if _, ok := l.seen[hash]; !ok && len(l.seen) >= limit {
		// Forget the entries that no longer hold back a write, else any one.
		for h, t := range l.seen {
			if at.Sub(t) >= KeyUseInterval {
				delete(l.seen, h)
			}
		}
		for h := range l.seen {
			if len(l.seen) < limit {
				break
			}
			delete(l.seen, h)
		}
	}
	l.seen[hash] = at
}
