package dynamo

import (
	"context"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/takapay/payments/shared/ratelimit"
)

func TestRateBucketConditions(t *testing.T) {
	t.Parallel()
	s, ctx := newStore(t)
	now := time.Date(2026, 11, 24, 10, 0, 0, 0, time.UTC)
	cost := 200 * time.Millisecond
	expires := now.Add(3 * time.Second)
	const k = "ws-1#sandbox"

	if _, ok, err := s.AdvanceBucket(ctx, k, now, now.Add(time.Second), cost, expires); ok || err != nil {
		t.Fatalf("Advance of an absent bucket: %v %v, want a failed condition", ok, err)
	}
	if ok, err := s.RestartBucket(ctx, k, now, cost, expires); !ok || err != nil {
		t.Fatalf("Restart of an absent bucket: %v %v", ok, err)
	}
	item, err := s.get(ctx, "RATE#"+k, "RATE")
	if err != nil {
		t.Fatal(err)
	}
	if n, _ := item["tat"].(*types.AttributeValueMemberN); n == nil || n.Value != strconv.FormatInt(now.Add(cost).UnixMicro(), 10) {
		t.Errorf("tat = %v, want now+cost in µs", item["tat"])
	}
	if n, _ := item["ttl"].(*types.AttributeValueMemberN); n == nil || n.Value != strconv.FormatInt(expires.Unix(), 10) {
		t.Errorf("ttl = %v, want %d", item["ttl"], expires.Unix())
	}
	if ok, _ := s.RestartBucket(ctx, k, now, cost, expires); ok {
		t.Fatal("Restart of a busy bucket succeeded")
	}
	// Busy: tat = now+0.2 s. Advance succeeds while tat <= max, returning the new tat.
	tat, ok, err := s.AdvanceBucket(ctx, k, now, now.Add(cost), cost, expires)
	if !ok || err != nil || !tat.Equal(now.Add(2*cost)) {
		t.Fatalf("Advance: %v %v %v, want tat now+0.4 s", tat, ok, err)
	}
	if _, ok, _ := s.AdvanceBucket(ctx, k, now, now.Add(cost), cost, expires); ok {
		t.Fatal("Advance past max succeeded")
	}
	// Later than tat the bucket is idle: Advance refuses, Restart takes it.
	later := now.Add(time.Second)
	if _, ok, _ := s.AdvanceBucket(ctx, k, later, later.Add(time.Second), cost, expires); ok {
		t.Fatal("Advance of an idle bucket succeeded")
	}
	if ok, err := s.RestartBucket(ctx, k, later, cost, later.Add(3*time.Second)); !ok || err != nil {
		t.Fatalf("Restart of an idle bucket: %v %v", ok, err)
	}

	// An item whose ttl has passed is absent, whatever it says (DynamoDB deletes it late,
	// dynalite never).
	_, err = s.DB.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(s.Table), Item: map[string]types.AttributeValue{
		"pk": &types.AttributeValueMemberS{Value: "RATE#ws-2#live"}, "sk": &types.AttributeValueMemberS{Value: "RATE"},
		"tat": micros(now.Add(time.Hour)), "ttl": epochSeconds(now.Add(-time.Second)),
	}})
	if err != nil {
		t.Fatal(err)
	}
	if ok, err := s.RestartBucket(ctx, "ws-2#live", now, cost, expires); !ok || err != nil {
		t.Fatalf("Restart of an expired item: %v %v", ok, err)
	}
}

// countingBuckets counts the conditional writes a limiter makes.
type countingBuckets struct {
	*Store
	n atomic.Int64
}

func (c *countingBuckets) AdvanceBucket(ctx context.Context, key string, now, maxTAT time.Time, cost time.Duration, expires time.Time) (time.Time, bool, error) {
	c.n.Add(1)
	return c.Store.AdvanceBucket(ctx, key, now, maxTAT, cost, expires)
}

func (c *countingBuckets) RestartBucket(ctx context.Context, key string, now time.Time, cost time.Duration, expires time.Time) (bool, error) {
	c.n.Add(1)
	return c.Store.RestartBucket(ctx, key, now, cost, expires)
}

// Three limiter instances share the bucket through dynalite while a controlled clock advances:
// together they admit no more than Burst + Rate*t (nor much less), with about one write per
// Lease admissions.
func TestRateBucketSharedByInstances(t *testing.T) {
	t.Parallel()
	s, ctx := newStore(t)
	const (
		rate, burst, lease = 50, 100, 10
		instances          = 3
		ticks              = 100
		tick               = 20 * time.Millisecond
	)
	var clock atomic.Int64
	start := time.Date(2026, 11, 24, 10, 0, 0, 0, time.UTC)
	clock.Store(start.UnixNano())
	now := func() time.Time { return time.Unix(0, clock.Load()).UTC() }
	store := &countingBuckets{Store: s}
	var limiters []*ratelimit.Limiter
	for range instances {
		limiters = append(limiters, &ratelimit.Limiter{Store: store, Rate: rate, Burst: burst, Lease: lease, Now: now})
	}
	var admitted atomic.Int64
	for range ticks {
		var wg sync.WaitGroup
		for _, l := range limiters {
			for range 3 {
				wg.Add(1)
				go func() {
					defer wg.Done()
					for range 5 {
						if ok, _ := l.Allow(ctx, "ws-3#sandbox"); ok {
							admitted.Add(1)
						}
					}
				}()
			}
		}
		wg.Wait()
		clock.Add(int64(tick))
	}
	elapsed := now().Sub(start)
	got := int(admitted.Load())
	upper := burst + int(rate*elapsed.Seconds())
	lower := burst + int(rate*(elapsed-time.Second).Seconds()) - (instances+1)*lease
	if got > upper || got < lower {
		t.Fatalf("admitted %d over %v, want between %d and %d", got, elapsed, lower, upper)
	}
	writes := int(store.n.Load())
	t.Logf("%d admitted of %d over %v, %d conditional writes", got, ticks*instances*15, elapsed, writes)
	if max := 2*(got/lease+instances) + 2*instances*(int(elapsed/time.Second)+1); writes > max {
		t.Errorf("%d writes for %d admitted requests, want at most %d", writes, got, max)
	}
}

// A quota's counter is exact across instances: three Quotas (three instances) and twelve
// concurrent callers on one dynalite item admit exactly the limit, every refusal after the
// first per instance costs no write, and the next window is a new item.
func TestQuotaCounterExactAcrossInstances(t *testing.T) {
	t.Parallel()
	s, ctx := newStore(t)
	const limit = 7
	now := time.Date(2026, 11, 28, 10, 3, 0, 0, time.UTC)
	clock := func() time.Time { return now }
	q := ratelimit.Quota{Name: "test.client", Limit: limit, Period: 10 * time.Minute}
	var writes atomic.Int64
	store := countingWindows{WindowStore: s, n: &writes}
	var instances []*ratelimit.Quotas
	for range 3 {
		instances = append(instances, &ratelimit.Quotas{Store: store, Now: clock})
	}
	var admitted atomic.Int64
	var wg sync.WaitGroup
	for i := range 12 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 3 {
				if ok, _ := instances[i%3].Allow(ctx, q, "203.0.113.9"); ok {
					admitted.Add(1)
				}
			}
		}()
	}
	wg.Wait()
	if admitted.Load() != limit {
		t.Fatalf("%d admitted across three instances, want exactly %d", admitted.Load(), limit)
	}
	item, err := s.get(ctx, QuotaPrefix+"test.client#203.0.113.9#"+strconv.FormatInt(now.Truncate(10*time.Minute).Unix(), 10), "LIMIT")
	if err != nil {
		t.Fatal(err)
	}
	if n, _ := item["n"].(*types.AttributeValueMemberN); n == nil || n.Value != strconv.Itoa(limit) {
		t.Errorf("counter n = %v, want %d", item["n"], limit)
	}
	if n, _ := item["ttl"].(*types.AttributeValueMemberN); n == nil || n.Value != strconv.FormatInt(now.Truncate(10*time.Minute).Add(11*time.Minute).Unix(), 10) {
		t.Errorf("ttl = %v, want the window's end and a minute", item["ttl"])
	}
	before := writes.Load()
	for _, in := range instances {
		in.Allow(ctx, q, "203.0.113.9")
	}
	if got := writes.Load() - before; got != 0 {
		t.Errorf("refused instances wrote %d times", got)
	}
	now = now.Add(10 * time.Minute)
	if ok, _ := instances[0].Allow(ctx, q, "203.0.113.9"); !ok {
		t.Error("the next window refused")
	}
}

type countingWindows struct {
	ratelimit.WindowStore
	n *atomic.Int64
}

func (c countingWindows) CountInWindow(ctx context.Context, key string, limit int, expires time.Time) (bool, error) {
	c.n.Add(1)
	return c.WindowStore.CountInWindow(ctx, key, limit, expires)
}
