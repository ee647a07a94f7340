package ratelimit

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/takapay/payments/shared/foundation/obs"
)

// memStore implements Store's conditions in memory, for the limiter's unit tests (the DynamoDB
// implementation is tested against dynalite in package dynamo with the same expectations).
type memStore struct {
	mu      sync.Mutex
	buckets map[string]memBucket
	writes  int
	fail    error
}

type memBucket struct{ tat, expires time.Time }

func (m *memStore) AdvanceBucket(_ context.Context, key string, now, maxTAT time.Time, cost time.Duration, expires time.Time) (time.Time, bool, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.writes++
	if m.fail != nil {
		return time.Time{}, false, m.fail
	}
	b, ok := m.buckets[key]
	if !ok || b.tat.Before(now) || b.tat.After(maxTAT) {
		return time.Time{}, false, nil
	}
	b.tat = b.tat.Add(cost)
	b.expires = expires
	m.buckets[key] = b
	return b.tat, true, nil
}

func (m *memStore) RestartBucket(_ context.Context, key string, now time.Time, cost time.Duration, expires time.Time) (bool, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.writes++
	if m.fail != nil {
		return false, m.fail
	}
	if m.buckets == nil {
		m.buckets = map[string]memBucket{}
	}
	b, ok := m.buckets[key]
	if ok && !b.expires.Before(now) && !b.tat.Before(now) {
		return false, nil
	}
	m.buckets[key] = memBucket{tat: now.Add(cost), expires: expires}
	return true, nil
}

func (m *memStore) count() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.writes
}

// clock is a controlled clock shared by goroutines.
type clock struct{ ns atomic.Int64 }

func newClock() *clock {
	c := &clock{}
	c.ns.Store(time.Date(2026, 11, 24, 10, 0, 0, 0, time.UTC).UnixNano())
	return c
}
func (c *clock) Now() time.Time          { return time.Unix(0, c.ns.Load()).UTC() }
func (c *clock) Advance(d time.Duration) { c.ns.Add(int64(d)) }

// admitN calls Allow n times and returns how many were admitted and the last refusal's wait.
func admitN(l *Limiter, key string, n int) (int, time.Duration) {
	admitted, wait := 0, time.Duration(0)
	for range n {
		if ok, w := l.Allow(context.Background(), key); ok {
			admitted++
		} else {
			wait = w
		}
	}
	return admitted, wait
}

func TestBurstExhaustionAndRefill(t *testing.T) {
	st, c := &memStore{}, newClock()
	l := &Limiter{Store: st, Rate: 10, Burst: 20, Lease: 5, Now: c.Now}

	// A fresh bucket gives exactly the burst, then refuses with Retry-After = ceil(5 x 0.1 s).
	if got, wait := admitN(l, "ws#sandbox", 30); got != 20 || wait != time.Second {
		t.Fatalf("fresh bucket: admitted %d (want 20), Retry-After %v (want 1s)", got, wait)
	}
	// 4 leases (one Restart, three Advances), then one refusal: this instance's last lease
	// reaches past now, so one failed Advance proves the bucket full. The other 9 refusals
	// are answered locally.
	if w := st.count(); w != 5 {
		t.Errorf("writes = %d, want 5 (4 leases + 1 for the refusal)", w)
	}

	// Within the block, refusals cost nothing and count down.
	c.Advance(400 * time.Millisecond)
	if ok, wait := l.Allow(context.Background(), "ws#sandbox"); ok || wait != time.Second {
		t.Fatalf("during the block: %v %v, want refused with 1s", ok, wait)
	}
	if w := st.count(); w != 5 {
		t.Errorf("a refusal during the block wrote: %d writes", w)
	}

	// One second after the refusal: 10 tokens have refilled (rate 10/s), so exactly 10 more.
	c.Advance(600 * time.Millisecond)
	if got, _ := admitN(l, "ws#sandbox", 30); got != 10 {
		t.Fatalf("after 1 s: admitted %d, want 10", got)
	}

	// After a long pause the bucket is idle (its item expired): the whole burst again, the
	// first lease a single Restart.
	c.Advance(time.Hour)
	before := st.count()
	if ok, _ := l.Allow(context.Background(), "ws#sandbox"); !ok {
		t.Fatal("idle bucket refused")
	}
	if w := st.count() - before; w != 1 {
		t.Errorf("first lease on an idle bucket took %d writes, want 1", w)
	}
	if got, _ := admitN(l, "ws#sandbox", 30); got != 19 {
		t.Fatalf("idle bucket: admitted %d more, want 19", got)
	}
}

func TestKeysAreIndependent(t *testing.T) {
	st, c := &memStore{}, newClock()
	l := &Limiter{Store: st, Rate: 1, Burst: 5, Lease: 5, Now: c.Now}
	if got, _ := admitN(l, "a#sandbox", 10); got != 5 {
		t.Fatalf("a: %d", got)
	}
	for _, k := range []string{"a#live", "b#sandbox", "a#dashboard"} {
		if got, _ := admitN(l, k, 5); got != 5 {
			t.Errorf("%s admitted %d after a#sandbox was spent, want 5", k, got)
		}
	}
}

func TestRetryAfter(t *testing.T) {
	for _, tt := range []struct {
		rate, burst, lease int
		want               time.Duration
	}{
		{100, 200, 20, time.Second}, // 20 tokens = 0.2 s
		{1, 10, 5, 5 * time.Second},
		{3, 30, 10, 4 * time.Second}, // 10 x 333334 µs = 3.33 s
		{10, 4, 20, time.Second},     // the lease is clamped to the burst: 4 x 0.1 s
		{1, 100, 60, time.Minute},
	} {
		st, c := &memStore{}, newClock()
		l := &Limiter{Store: st, Rate: tt.rate, Burst: tt.burst, Lease: tt.lease, Now: c.Now}
		if got := l.RetryAfter(); got != tt.want {
			t.Errorf("rate %d lease %d: RetryAfter %v, want %v", tt.rate, tt.lease, got, tt.want)
		}
		// Only whole leases are taken: a remainder of the burst smaller than a lease waits.
		n := l.LeaseSize()
		want := tt.burst / n * n
		admitted, wait := admitN(l, "k", tt.burst+1)
		if admitted != want || wait != tt.want {
			t.Errorf("rate %d burst %d lease %d: admitted %d, wait %v; want %d, %v", tt.rate, tt.burst, tt.lease, admitted, wait, want, tt.want)
		}
		// Retrying after Retry-After is admitted: a refused lease's tokens refill within it.
		c.Advance(wait)
		if ok, _ := l.Allow(context.Background(), "k"); !ok {
			t.Errorf("rate %d lease %d: refused again after waiting Retry-After", tt.rate, tt.lease)
		}
	}
	// The locally blocked countdown, in whole seconds.
	st, c := &memStore{}, newClock()
	l := &Limiter{Store: st, Rate: 1, Burst: 5, Lease: 5, Now: c.Now}
	admitN(l, "k", 6)
	c.Advance(2500 * time.Millisecond)
	if _, wait := l.Allow(context.Background(), "k"); wait != 3*time.Second {
		t.Errorf("2.5 s into a 5 s block: Retry-After %v, want 3s", wait)
	}
}

// An instance whose last lease is past tries Restart first; when another instance has
// restarted the bucket since, Restart fails and Advance takes the lease: two writes, admitted.
func TestRestartedByAnotherInstance(t *testing.T) {
	st, c := &memStore{}, newClock()
	a := &Limiter{Store: st, Rate: 10, Burst: 20, Lease: 5, Now: c.Now}
	b := &Limiter{Store: st, Rate: 10, Burst: 20, Lease: 5, Now: c.Now}
	if got, _ := admitN(a, "k", 5); got != 5 {
		t.Fatalf("a: %d", got)
	}
	c.Advance(time.Second) // the bucket is idle again; a's lastTAT is past
	if ok, _ := b.Allow(context.Background(), "k"); !ok {
		t.Fatal("b refused")
	}
	before := st.count()
	if ok, _ := a.Allow(context.Background(), "k"); !ok {
		t.Fatal("a refused although the bucket has 15 free tokens")
	}
	if w := st.count() - before; w != 2 {
		t.Errorf("a's lease took %d writes, want 2 (failed Restart, Advance)", w)
	}
	// Both now hold tokens leased from the one bucket: 20 in all before any refusal.
	got := 2
	for _, l := range []*Limiter{a, b, a, b} {
		n, _ := admitN(l, "k", 10)
		got += n
	}
	if got != 20 {
		t.Errorf("two instances admitted %d from a burst of 20", got)
	}
}

func TestStoreFailureFailsOpenOneLeaseAtATime(t *testing.T) {
	st, c := &memStore{fail: errors.New("AccessDeniedException")}, newClock()
	l := &Limiter{Store: st, Rate: 1, Burst: 5, Lease: 5, Now: c.Now}
	ctx, stats := obs.WithStats(context.Background())
	if ok, _ := l.Allow(ctx, "k"); !ok {
		t.Fatal("a store failure refused the request")
	}
	found := false
	for _, a := range stats.Attrs() {
		if a.Key == "ratelimit_error" && a.Value.String() == "AccessDeniedException" {
			found = true
		}
	}
	if !found {
		t.Errorf("no ratelimit_error annotation: %v", stats.Attrs())
	}
	if stats.Calls()["ratelimit.Lease"] != 1 {
		t.Errorf("lease writes counted: %v", stats.Calls())
	}
	if got, _ := admitN(l, "k", 9); got != 9 || st.count() != 2 {
		t.Errorf("admitted %d with %d store calls; want 9 with 2 (one per lease)", got, st.count())
	}
}

func TestDisabledLimiterAllows(t *testing.T) {
	var nilLimiter *Limiter
	if ok, _ := nilLimiter.Allow(context.Background(), "k"); !ok {
		t.Error("nil limiter refused")
	}
	st := &memStore{}
	if ok, _ := (&Limiter{Store: st, Rate: 0, Burst: 10}).Allow(context.Background(), "k"); !ok || st.count() != 0 {
		t.Error("rate 0 must disable the limiter without writes")
	}
}

func TestIdleStateIsDropped(t *testing.T) {
	st, c := &memStore{}, newClock()
	l := &Limiter{Store: st, Rate: 100, Burst: 200, Lease: 20, Now: c.Now}
	for i := range 50 {
		l.Allow(context.Background(), fmt.Sprintf("ws%d#sandbox", i))
	}
	c.Advance(IdleAfter + time.Second)
	l.Allow(context.Background(), "other#sandbox")
	if n := len(l.buckets); n != 1 {
		t.Errorf("%d local buckets after the idle sweep, want 1", n)
	}
}

// Several instances (limiters) hammer one key of one store from many goroutines while a
// controlled clock advances: the admitted requests never exceed the documented bound
// Burst + Rate*t + I*Lease in any window of length t (over the whole run, which starts with no
// tokens held, Burst + Rate*t), and the limiter does not starve them either.
func TestConcurrentInstancesStayWithinBound(t *testing.T) {
	const (
		instances  = 5
		goroutines = 4
		perTick    = 10
		tick       = 10 * time.Millisecond
		ticks      = 300
		rate       = 100
		burst      = 200
		lease      = 20
	)
	st, c := &memStore{}, newClock()
	start := c.Now()
	limiters := make([]*Limiter, instances)
	for i := range limiters {
		limiters[i] = &Limiter{Store: st, Rate: rate, Burst: burst, Lease: lease, Now: c.Now}
	}
	admittedAt := make([]int, ticks) // admissions per tick
	var mu sync.Mutex
	calls := 0
	for k := range ticks {
		var wg sync.WaitGroup
		for _, l := range limiters {
			for range goroutines {
				wg.Add(1)
				go func() {
					defer wg.Done()
					n, _ := admitN(l, "ws#sandbox", perTick)
					mu.Lock()
					admittedAt[k] += n
					calls += perTick
					mu.Unlock()
				}()
			}
		}
		wg.Wait()
		c.Advance(tick)
	}
	elapsed := c.Now().Sub(start)
	total := 0
	for _, n := range admittedAt {
		total += n
	}
	upper := burst + int(rate*elapsed.Seconds())
	lower := burst + int(rate*(elapsed-time.Second).Seconds()) - (instances+1)*lease
	if total > upper || total < lower {
		t.Fatalf("admitted %d over %v, want between %d and %d", total, elapsed, lower, upper)
	}
	// Every window of w ticks: at most Burst + Rate*t + I*Lease.
	for _, w := range []int{1, 10, 50, 100} {
		window := time.Duration(w) * tick
		bound := burst + int(rate*window.Seconds()) + instances*lease
		for i := 0; i+w <= ticks; i++ {
			sum := 0
			for _, n := range admittedAt[i : i+w] {
				sum += n
			}
			if sum > bound {
				t.Fatalf("%d admitted in ticks [%d, %d) (%v), bound %d", sum, i, i+w, window, bound)
			}
		}
	}
	writes := st.count()
	t.Logf("%d calls, %d admitted over %v (bound %d), %d store writes (%.3f per admitted request)",
		calls, total, elapsed, upper, writes, float64(writes)/float64(total))
	// A lease costs at most 2 writes per Lease admitted requests, a refusal at most 2 writes
	// per instance per Retry-After (1 s).
	maxWrites := 2*(total/lease+instances) + 2*instances*(int(elapsed/time.Second)+1)
	if writes > maxWrites {
		t.Errorf("%d store writes for %d admitted requests, want at most %d", writes, total, maxWrites)
	}
}

func TestWindow(t *testing.T) {
	w := &Window{Limit: 3, Period: time.Minute}
	t0 := time.Date(2026, 11, 24, 10, 0, 0, 0, time.UTC)
	for i := range 3 {
		if blocked, _ := w.Blocked("1.2.3.4", t0); blocked {
			t.Fatalf("blocked after %d events", i)
		}
		w.Add("1.2.3.4", t0)
	}
	if blocked, wait := w.Blocked("1.2.3.4", t0.Add(10*time.Second)); !blocked || wait != 50*time.Second {
		t.Fatalf("after 3 events: %v %v, want blocked for 50s", blocked, wait)
	}
	if blocked, _ := w.Blocked("5.6.7.8", t0); blocked {
		t.Fatal("another key blocked")
	}
	if blocked, _ := w.Blocked("1.2.3.4", t0.Add(time.Minute)); blocked {
		t.Fatal("still blocked in the next window")
	}
	var disabled *Window
	disabled.Add("x", t0)
	if blocked, _ := disabled.Blocked("x", t0); blocked {
		t.Fatal("nil window blocked")
	}
}
