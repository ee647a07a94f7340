// Package obs carries per-request observability state (log attributes and AWS call counts)
// through a context, so the request log line can report them without threading parameters.
package obs

import (
	"context"
	"log/slog"
	"sync"
)

// Stats collects what one request did; it is safe for concurrent use.
type Stats struct {
	mu    sync.Mutex
	attrs []slog.Attr
	calls map[string]int
}

type ctxKey struct{}

// WithStats returns a context that carries a fresh Stats, and the Stats.
func WithStats(ctx context.Context) (context.Context, *Stats) {
	s := &Stats{calls: map[string]int{}}
	return context.WithValue(ctx, ctxKey{}, s), s
}

// FromContext returns the Stats in ctx, or nil when there is none.
func FromContext(ctx context.Context) *Stats {
	s, _ := ctx.Value(ctxKey{}).(*Stats)
	return s
}

// Annotate adds log attributes to the request in ctx (a no-op without Stats).
func Annotate(ctx context.Context, attrs ...slog.Attr) {
	if s := FromContext(ctx); s != nil {
		s.mu.Lock()
		s.attrs = append(s.attrs, attrs...)
		s.mu.Unlock()
	}
}

// KeyUseService counts the DynamoDB write that records an API key's last use (shared/auth
// LastUsed), apart from the "dynamodb" calls that include it: the request log line reports it
// as ddb_key_use_requests, since it falls on a key's first request in an hour on an instance,
// not on an operation.
const KeyUseService = "keyuse"

// CountCall records one AWS API call (e.g. service "dynamodb", operation "GetItem").
func CountCall(ctx context.Context, service, operation string) {
	if s := FromContext(ctx); s != nil {
		s.mu.Lock()
		s.calls[service+"."+operation]++
		s.mu.Unlock()
	}
}

// Attrs returns a copy of the annotations.
func (s *Stats) Attrs() []slog.Attr {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]slog.Attr(nil), s.attrs...)
}

// Calls returns a copy of the per-operation AWS call counts.
func (s *Stats) Calls() map[string]int {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make(map[string]int, len(s.calls))
	for k, v := range s.calls {
		out[k] = v
	}
	return out
}

// Total returns the number of AWS calls whose service is the given one.
func (s *Stats) Total(service string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := 0
	for k, v := range s.calls {
		if len(k) > len(service) && k[:len(service)] == service && k[len(service)] == '.' {
			n += v
		}
	}
	return n
}
