package ratelimit

import (
	"context"
	"log/slog"
	"net/netip"
	"strconv"
	"sync"
	"time"

	"github.com/takapay/payments/shared/foundation/obs"
)

// # Quotas: fixed windows across instances
//
// A Quota caps how many times something may happen per Period (the dashboard's public forms
// per client address and for everyone, invitations per workspace a day). Each key and window
// has one counter item in the WindowStore; one request is one conditional write that adds one
// while the count is below the limit (no read, no lease: the counter is exact across every
// instance). Windows are aligned to multiples of Period since the Unix epoch, so every
// instance agrees on them; a new window is a new item, the old one ages out. A refusal is
// remembered by the instance until its window ends, so an instance refuses a flood without a
// write after the first refusal. That memory only saves writes: the limit itself is the item.
//
// A fixed window admits up to twice its limit across the boundary of two windows (the end of
// one and the start of the next); the limits are set with that in mind.
//
// Quotas fail open, like the Limiter: a write that errs is annotated on the request
// (ratelimit_error) and the request is admitted.

// WindowStore keeps one counter per key and window, changed only by single-item conditional
// writes.
type WindowStore interface {
	// CountInWindow adds one to the counter key unless it has reached limit: true when it
	// added, false when the counter is at the limit. The item may be forgotten after expires.
	CountInWindow(ctx context.Context, key string, limit int, expires time.Time) (bool, error)
}

// Quota is a limit of Limit events per Period for each key (a Limit below 1 allows all).
type Quota struct {
	// Name tells one quota's counters from another's ("signup.client").
	Name   string
	Limit  int
	Period time.Duration
}

// Quotas counts events against Quotas in a WindowStore. It is safe for concurrent use; a
// Lambda instance has one, built at cold start.
type Quotas struct {
	Store WindowStore
	// Now is the clock (time.Now when nil).
	Now func() time.Time

	mu      sync.Mutex
	blocked map[string]time.Time // counter key -> end of its window, once refused here
}

func (q *Quotas) now() time.Time {
	if q.Now != nil {
		return q.Now()
	}
	return time.Now()
}

// Allow counts one event of key against quota: false, and the time until the window ends (in
// whole seconds, at least one), when the window's Limit is spent. A nil Quotas, one without a
// Store, or a quota with Limit < 1 allows everything without a write.
func (q *Quotas) Allow(ctx context.Context, quota Quota, key string) (bool, time.Duration) {
	if q == nil || q.Store == nil || quota.Limit < 1 || quota.Period <= 0 {
		return true, 0
	}
	now := q.now()
	start := now.Truncate(quota.Period)
	end := start.Add(quota.Period)
	item := quota.Name + "#" + key + "#" + strconv.FormatInt(start.Unix(), 10)
	q.mu.Lock()
	if until, ok := q.blocked[item]; ok && now.Before(until) {
		q.mu.Unlock()
		return false, ceilSeconds(until.Sub(now))
	}
	q.mu.Unlock()
	obs.CountCall(ctx, "ratelimit", "Quota")
	ok, err := q.Store.CountInWindow(ctx, item, quota.Limit, end.Add(keepFor))
	if err != nil {
		obs.Annotate(ctx, slog.String("ratelimit_error", err.Error()))
		return true, 0
	}
	if ok {
		return true, 0
	}
	q.mu.Lock()
	if q.blocked == nil {
		q.blocked = map[string]time.Time{}
	}
	for k, until := range q.blocked {
		if !now.Before(until) {
			delete(q.blocked, k)
		}
	}
	q.blocked[item] = end
	q.mu.Unlock()
	return false, ceilSeconds(end.Sub(now))
}

// ClientKey is the key of a client address: an IPv4 address, or the /64 of an IPv6 one (what
// one subscriber usually holds); "" for anything that is not an address. The address is the
// one the gateway saw (API Gateway's sourceIp), never a header the client writes.
func ClientKey(ip string) string {
	a, err := netip.ParseAddr(ip)
	if err != nil {
		return ""
	}
	a = a.Unmap()
	if a.Is6() {
		p, _ := a.Prefix(64)
		return p.String()
	}
	return a.String()
}
