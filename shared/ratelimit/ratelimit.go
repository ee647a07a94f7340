// Package ratelimit limits requests per key (a workspace and environment) across every function
// instance, at a small fraction of a DynamoDB write per request, and counts events per key
// inside one instance (Window) where no shared state is wanted.
//
// # The shared limit
//
// Each key has one token bucket in the Store, kept as a theoretical arrival time (TAT, the
// generic cell rate algorithm): the bucket holds Burst tokens, refills at Rate tokens a
// second, and is empty up to TAT - Burst/Rate. An instance does not write per request: it
// leases Lease tokens with one conditional write and serves them from memory, and writes again
// only when they are spent. Taking n tokens at time now needs max(TAT, now) + n/Rate to stay
// within now + Burst/Rate; there is no max() in a DynamoDB update, so a lease is one of two
// conditional writes:
//
//   - Advance (the bucket is busy): TAT += n/Rate, if now <= TAT <= now + (Burst-n)/Rate;
//   - Restart (the bucket is idle, absent or expired): TAT = now + n/Rate, if TAT < now.
//
// TAT only grows, so a failed condition is conclusive. An instance whose own last lease still
// reaches past now knows the bucket is busy and tries Advance alone: if it fails, the bucket
// is full. Otherwise it tries Restart first, and Advance when Restart fails (TAT >= now, so
// Advance failing then means full). A lease is thus one write, or two, and so is a refusal.
// When the bucket is full, TAT > now + (Burst-n)/Rate, and since no lease ever sets TAT beyond
// its writer's now + Burst/Rate, n tokens are free again within n/Rate: the instance refuses
// that key locally, without a write, for ceil(n/Rate) whole seconds, the Retry-After it
// answers. An expired item (its ttl is past, which implies TAT is past) is treated as absent
// by Restart's condition.
//
// # What it admits
//
// Leases granted during any interval of length t carry at most Burst + Rate*t tokens; on top of
// those, each of I instances may still hold up to Lease tokens leased earlier. So the requests
// admitted for one key in any interval of length t are at most
//
//	Burst + Rate*t + I*Lease
//
// (plus Rate times the clock skew between instances). The instances are bounded by the
// functions' concurrency. Tokens an instance holds are dropped after IdleAfter without use.
//
// # When the store fails
//
// The limiter fails open: a lease write that errs is logged on the request (ratelimit_error)
// and the instance serves the lease as if granted, so a broken limiter costs availability
// nothing and is retried once per Lease requests.
package ratelimit

import (
	"context"
	"log/slog"
	"sync"
	"time"

	"github.com/takapay/payments/shared/foundation/obs"
)

// Store keeps one bucket per key, changed only by single-item conditional writes.
type Store interface {
	// AdvanceBucket moves a busy bucket's TAT forward by cost, only when now <= TAT <= maxTAT
	// (ok false otherwise), and returns the new TAT. It keeps the bucket until expires.
	AdvanceBucket(ctx context.Context, key string, now, maxTAT time.Time, cost time.Duration, expires time.Time) (tat time.Time, ok bool, err error)
	// RestartBucket sets TAT to now+cost, only when the bucket is absent or expired or its TAT
	// is before now (ok false otherwise). It keeps the bucket until expires.
	RestartBucket(ctx context.Context, key string, now time.Time, cost time.Duration, expires time.Time) (ok bool, err error)
}

// IdleAfter is how long an instance keeps a key's unspent tokens without a request for it.
const IdleAfter = 10 * time.Minute

// keepFor is how long a bucket item outlives the moment it would be full again.
const keepFor = time.Minute

// Limiter is one instance's view of the shared limits. It is safe for concurrent use; a Lambda
// instance has one per function, built at cold start.
type Limiter struct {
	// Store holds the shared buckets.
	Store Store
	// Rate is the sustained requests per Per (a second when zero) per key (at least 1).
	Rate int
	Per  time.Duration
	// Burst is the bucket's capacity: the requests a key may make at once after a pause.
	Burst int
	// Lease is the tokens one write takes (1 to Burst; more is taken as Burst).
	Lease int
	// Now is the clock (time.Now when nil).
	Now func() time.Time

	mu      sync.Mutex
	buckets map[string]*local
	swept   time.Time
}

// local is what this instance knows and holds of one key's bucket.
type local struct {
	mu           sync.Mutex
	tokens       int       // leased, not yet spent
	lastTAT      time.Time // TAT after this instance's last lease
	blockedUntil time.Time // refused locally until then
	used         time.Time // last request for the key (guarded by Limiter.mu)
}

func (l *Limiter) now() time.Time {
	if l.Now != nil {
		return l.Now()
	}
	return time.Now()
}

// interval is the time one token stands for, Per/Rate, rounded up to a whole microsecond (the
// resolution of the stored TAT) so that rounding never grants extra tokens (a Rate above
// 1,000,000 a second acts as 1,000,000).
func (l *Limiter) interval() time.Duration {
	per := l.Per
	if per <= 0 {
		per = time.Second
	}
	us := (int64(per/time.Microsecond) + int64(l.Rate) - 1) / int64(l.Rate)
	return time.Duration(us) * time.Microsecond
}

// LeaseSize is the tokens one lease takes: Lease, at least 1 and at most Burst.
func (l *Limiter) LeaseSize() int {
	return max(1, min(l.Lease, l.Burst))
}

// RetryAfter is what a refused request is told to wait: the time Lease tokens take to refill,
// in whole seconds (at least one). Once a lease is refused, that many tokens are free again
// within this time.
func (l *Limiter) RetryAfter() time.Duration {
	return ceilSeconds(time.Duration(l.LeaseSize()) * l.interval())
}

// Allow spends one request of key's budget. It returns false, and how long to wait, when the
// budget is spent. A nil Limiter or one with Rate < 1 allows everything.
func (l *Limiter) Allow(ctx context.Context, key string) (bool, time.Duration) {
	if l == nil || l.Rate < 1 || l.Burst < 1 || l.Store == nil {
		return true, 0
	}
	b := l.bucket(key)
	b.mu.Lock()
	defer b.mu.Unlock()
	now := l.now()
	if b.tokens > 0 {
		b.tokens--
		return true, 0
	}
	if now.Before(b.blockedUntil) {
		return false, ceilSeconds(b.blockedUntil.Sub(now))
	}
	granted, err := l.lease(ctx, key, b, now)
	switch {
	case err != nil:
		// Fail open, one lease at a time (see the package doc).
		obs.Annotate(ctx, slog.String("ratelimit_error", err.Error()))
		b.tokens = l.LeaseSize() - 1
		return true, 0
	case !granted:
		wait := l.RetryAfter()
		b.blockedUntil = now.Add(wait)
		return false, wait
	}
	b.tokens = l.LeaseSize() - 1
	return true, 0
}

// lease takes LeaseSize tokens from the shared bucket: true when granted, false when the
// bucket is full.
func (l *Limiter) lease(ctx context.Context, key string, b *local, now time.Time) (bool, error) {
	n := l.LeaseSize()
	t := l.interval()
	cost := time.Duration(n) * t
	maxTAT := now.Add(time.Duration(l.Burst-n) * t)
	expires := now.Add(time.Duration(l.Burst)*t + keepFor)
	advance := func() (bool, error) {
		obs.CountCall(ctx, "ratelimit", "Lease")
		tat, ok, err := l.Store.AdvanceBucket(ctx, key, now, maxTAT, cost, expires)
		if ok {
			b.lastTAT = tat
		}
		return ok, err
	}
	restart := func() (bool, error) {
		obs.CountCall(ctx, "ratelimit", "Lease")
		ok, err := l.Store.RestartBucket(ctx, key, now, cost, expires)
		if ok {
			b.lastTAT = now.Add(cost)
		}
		return ok, err
	}
	// A bucket whose TAT this instance saw at or after now is busy (TAT only grows): Advance
	// alone decides. Otherwise Restart; when it fails TAT >= now, and Advance decides.
	order := []func() (bool, error){restart, advance}
	if !b.lastTAT.Before(now) {
		order = []func() (bool, error){advance}
	}
	for _, try := range order {
		ok, err := try()
		if err != nil || ok {
			return ok, err
		}
	}
	return false, nil
}

// bucket returns the local state of key, dropping states idle for IdleAfter.
func (l *Limiter) bucket(key string) *local {
	l.mu.Lock()
	defer l.mu.Unlock()
	now := l.now()
	if l.buckets == nil {
		l.buckets = map[string]*local{}
	}
	if now.Sub(l.swept) > IdleAfter {
		for k, b := range l.buckets {
			if now.Sub(b.used) > IdleAfter {
				delete(l.buckets, k)
			}
		}
		l.swept = now
	}
	b := l.buckets[key]
	if b == nil {
		b = &local{}
		l.buckets[key] = b
	}
	b.used = now
	return b
}

// ceilSeconds rounds a wait up to whole seconds, at least one (Retry-After's unit).
func ceilSeconds(d time.Duration) time.Duration {
	s := (d + time.Second - 1) / time.Second
	return max(1, s) * time.Second
}

// Window counts events per key in fixed windows inside one instance: no store, no write. It
// bounds what one client can make one instance do (e.g. failed authentications per address).
type Window struct {
	// Limit is how many events a key may have per window; below 1 disables the Window.
	Limit int
	// Period is the window's length (a minute when zero).
	Period time.Duration

	mu     sync.Mutex
	counts map[string]*window
	swept  time.Time
}

type window struct {
	start time.Time
	count int
}

func (w *Window) period() time.Duration {
	if w.Period > 0 {
		return w.Period
	}
	return time.Minute
}

// Blocked reports whether key has used up its window at now, and how long until the window
// ends (in whole seconds, at least one).
func (w *Window) Blocked(key string, now time.Time) (bool, time.Duration) {
	if w == nil || w.Limit < 1 {
		return false, 0
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	c := w.counts[key]
	if c == nil || now.Sub(c.start) >= w.period() || c.count < w.Limit {
		return false, 0
	}
	return true, ceilSeconds(w.period() - now.Sub(c.start))
}

// Add counts one event for key at now.
func (w *Window) Add(key string, now time.Time) {
	if w == nil || w.Limit < 1 {
		return
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	p := w.period()
	if w.counts == nil {
		w.counts = map[string]*window{}
	}
	if now.Sub(w.swept) > p {
		for k, c := range w.counts {
			if now.Sub(c.start) >= p {
				delete(w.counts, k)
			}
		}
		w.swept = now
	}
	c := w.counts[key]
	if c == nil || now.Sub(c.start) >= p {
		c = &window{start: now}
		w.counts[key] = c
	}
	c.count++
}
