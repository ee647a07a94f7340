package ratelimit

import (
	"strconv"
	"sync"
	"time"

	"github.com/takapay/payments/shared/foundation/apierr"
)

// CapabilityLimiter bounds requests per capability token (a checkout token, a public document
// token) and per client address in fixed one-minute windows. It is per function instance (no DynamoDB write per request); API Gateway's stage
// throttle is the global backstop. A zero limit disables that dimension.
type CapabilityLimiter struct {
	PerToken  int
	PerClient int

	mu      sync.Mutex
	windows map[string]*capWindow
	swept   time.Time
}

type capWindow struct {
	start time.Time
	count int
}

// Allow counts one request for token and client at now, or returns 429 RATE_LIMITED with
// Retry-After when either is over its limit.
func (l *CapabilityLimiter) Allow(token, client string, now time.Time) error {
	if l == nil {
		return nil
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.windows == nil {
		l.windows = map[string]*capWindow{}
	}
	if now.Sub(l.swept) > time.Minute {
		for k, w := range l.windows {
			if now.Sub(w.start) >= time.Minute {
				delete(l.windows, k)
			}
		}
		l.swept = now
	}
	// Count in both dimensions before deciding, so a refused request still counts for both.
	var over *capWindow
	for _, c := range []struct {
		key   string
		limit int
	}{{"t:" + token, l.PerToken}, {"c:" + client, l.PerClient}} {
		if c.limit <= 0 {
			continue
		}
		w := l.windows[c.key]
		if w == nil || now.Sub(w.start) >= time.Minute {
			w = &capWindow{start: now}
			l.windows[c.key] = w
		}
		w.count++
		if w.count > c.limit && over == nil {
			over = w
		}
	}
	if over != nil {
		retry := int(time.Minute-now.Sub(over.start))/int(time.Second) + 1
		return &apierr.Error{Code: apierr.RateLimited,
			Message: "too many requests for this payment page; wait a minute and try again",
			Headers: map[string]string{"Retry-After": strconv.Itoa(retry)}}
	}
	return nil
}
