// Package takapay is the official Go client of the Takapay payments API.
//
// The contract's types and request builders are generated (takapay.gen.go, from
// shared/openapi/openapi.yaml by oapi-codegen); Client wraps them with what every call needs:
// the bearer key, the User-Agent, an Idempotency-Key on every create (the same one across the
// client's own retries), retries with backoff on 429/503/connection failures only, a timeout
// per attempt and a typed *APIError.
//
//	c, err := takapay.New(os.Getenv("TAKAPAY_API_KEY"), takapay.Options{BaseURL: baseURL})
//	p, err := c.CreatePayment(ctx, takapay.CreatePaymentInput{Amount: takapay.MustParseAmount("150.50")})
package takapay

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/big"
	mrand "math/rand/v2"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Version is the client's version; the User-Agent is takapay-go/<Version>.
const Version = "0.1.0"

// DefaultBaseURL is where the client sends requests unless WithBaseURL says otherwise.
const DefaultBaseURL = "http://127.0.0.1:3000"

// Client calls the API with one key. It is safe for concurrent use.
type Client struct {
	baseURL        string
	apiKey         string
	http           *http.Client
	maxAttempts    int
	attemptTimeout time.Duration
	backoffBase    time.Duration
	backoffMax     time.Duration
	maxRetryAfter  time.Duration
	userAgent      string
	environment    string
	sleep          func(context.Context, time.Duration) error

	mu          sync.Mutex
	workspaceID string
}

// Options configures a Client; a zero member takes its default.
type Options struct {
	// BaseURL is the API's base URL (default DefaultBaseURL).
	BaseURL string
	// HTTPClient is the http.Client requests go through (its Timeout should be 0 or longer than
	// AttemptTimeout).
	HTTPClient *http.Client
	// MaxAttempts is how many times a call is tried in all (default 3).
	MaxAttempts int
	// AttemptTimeout is the timeout of each attempt (default 10 s); a timed-out attempt is retried.
	AttemptTimeout time.Duration
	// BackoffBase and BackoffMax shape the wait between attempts: BackoffBase doubles per retry
	// up to BackoffMax, jittered to between half the step and the step (default 250 ms, 5 s).
	BackoffBase, BackoffMax time.Duration
	// MaxRetryAfter caps how long a Retry-After is honoured (default 60 s); a longer one ends the
	// call with the 429/503 error instead of waiting.
	MaxRetryAfter time.Duration
	// WorkspaceID is the workspace the document calls use; when empty the client asks
	// GET /v1/merchant/context once.
	WorkspaceID string
	// Environment ("sandbox" or "live") is what the document calls name; by default the key's
	// (sk_sandbox_… is sandbox, sk_live_… is live).
	Environment string
	// UserAgentSuffix is appended to the User-Agent takapay-go/<Version> (e.g. "myshop/2.1").
	UserAgentSuffix string
}

// New is a client with the API key (sk_sandbox_… or sk_live_…).
func New(apiKey string, o Options) (*Client, error) {
	if apiKey == "" {
		return nil, errors.New("takapay: no API key")
	}
	c := &Client{
		baseURL:        DefaultBaseURL,
		apiKey:         apiKey,
		http:           &http.Client{},
		maxAttempts:    3,
		attemptTimeout: 10 * time.Second,
		backoffBase:    250 * time.Millisecond,
		backoffMax:     5 * time.Second,
		maxRetryAfter:  60 * time.Second,
		userAgent:      "takapay-go/" + Version,
		sleep:          sleepCtx,
		workspaceID:    o.WorkspaceID,
		environment:    o.Environment,
	}
	if o.BaseURL != "" {
		c.baseURL = strings.TrimRight(o.BaseURL, "/")
	}
	if o.HTTPClient != nil {
		c.http = o.HTTPClient
	}
	if o.MaxAttempts > 0 {
		c.maxAttempts = o.MaxAttempts
	}
	if o.AttemptTimeout > 0 {
		c.attemptTimeout = o.AttemptTimeout
	}
	if o.BackoffBase > 0 {
		c.backoffBase = o.BackoffBase
	}
	if o.BackoffMax > 0 {
		c.backoffMax = o.BackoffMax
	}
	if c.backoffMax < c.backoffBase {
		c.backoffMax = c.backoffBase
	}
	if o.MaxRetryAfter > 0 {
		c.maxRetryAfter = o.MaxRetryAfter
	}
	if o.UserAgentSuffix != "" {
		c.userAgent += " " + o.UserAgentSuffix
	}
	if c.environment == "" {
		switch {
		case strings.HasPrefix(apiKey, "sk_sandbox_"):
			c.environment = "sandbox"
		case strings.HasPrefix(apiKey, "sk_live_"):
			c.environment = "live"
		}
	}
	return c, nil
}

// CallOption configures one call.
type CallOption func(*callConfig)

type callConfig struct {
	idempotencyKey string
	attempts       *int
}

// WithIdempotencyKey sends key as the Idempotency-Key of a create or edit (16 to 128 of
// A-Z a-z 0-9 _ . : -) instead of a generated one. Sending the same call again with the same
// key and body replays its first answer.
func WithIdempotencyKey(key string) CallOption {
	return func(cc *callConfig) { cc.idempotencyKey = key }
}

// WithAttempts records in *n how many attempts the call made.
func WithAttempts(n *int) CallOption { return func(cc *callConfig) { cc.attempts = n } }

var idempotencyKeyText = regexp.MustCompile(`^[A-Za-z0-9_.:-]{16,128}$`)

const keyAlphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"

// NewIdempotencyKey is a random key: "tkp_" and 32 letters and digits (190 bits).
func NewIdempotencyKey() string {
	b := make([]byte, 32)
	max := big.NewInt(int64(len(keyAlphabet)))
	for i := range b {
		n, err := rand.Int(rand.Reader, max)
		if err != nil {
			panic(err)
		}
		b[i] = keyAlphabet[n.Int64()]
	}
	return "tkp_" + string(b)
}

func (c *Client) callConfig(opts []CallOption, idempotent bool) (*callConfig, error) {
	cc := &callConfig{}
	for _, o := range opts {
		o(cc)
	}
	if idempotent {
		if cc.idempotencyKey == "" {
			cc.idempotencyKey = NewIdempotencyKey()
		} else if !idempotencyKeyText.MatchString(cc.idempotencyKey) {
			return nil, fmt.Errorf("takapay: Idempotency-Key %q: want 16 to 128 of A-Z a-z 0-9 _ . : -", cc.idempotencyKey)
		}
	}
	return cc, nil
}

// call sends req (a generated constructor's request and error) with cc's retries and decodes
// the answer into a new T.
func call[T any](ctx context.Context, c *Client, req *http.Request, buildErr error, cc *callConfig) (*T, error) {
	var out T
	if err := c.do(ctx, req, buildErr, cc, &out); err != nil {
		return nil, err
	}
	return &out, nil
}

// do sends req (built by a generated New…Request) until it is answered with something other
// than 429 or 503 or the attempts run out, and decodes a 2xx answer's JSON into out. Every
// attempt carries the same Idempotency-Key (cc's, when set) and body.
func (c *Client) do(ctx context.Context, req *http.Request, buildErr error, cc *callConfig, out any) error {
	if buildErr != nil {
		return fmt.Errorf("takapay: %w", buildErr)
	}
	var body []byte
	if req.Body != nil {
		b, err := io.ReadAll(req.Body)
		req.Body.Close()
		if err != nil {
			return err
		}
		body = b
	}
	var lastErr error
	for attempt := 1; ; attempt++ {
		if cc.attempts != nil {
			*cc.attempts = attempt
		}
		status, header, respBody, err := c.attempt(ctx, req, body, cc.idempotencyKey)
		var wait time.Duration
		switch {
		case err != nil:
			if ctx.Err() != nil {
				return ctx.Err()
			}
			lastErr = fmt.Errorf("takapay: %s %s: attempt %d: %w", req.Method, req.URL.Path, attempt, err)
			wait = c.backoff(attempt)
		case status >= 200 && status < 300:
			if out == nil || len(respBody) == 0 {
				return nil
			}
			if err := json.Unmarshal(respBody, out); err != nil {
				return fmt.Errorf("takapay: %s %s: reading the %d answer: %w", req.Method, req.URL.Path, status, err)
			}
			return nil
		default:
			apiErr := newAPIError(status, header, respBody, attempt)
			if status != http.StatusTooManyRequests && status != http.StatusServiceUnavailable {
				return apiErr
			}
			lastErr = apiErr
			wait = c.backoff(attempt)
			if ra, ok := retryAfter(header.Get("Retry-After"), time.Now()); ok {
				if ra > c.maxRetryAfter {
					return apiErr
				}
				wait = ra
			}
		}
		if attempt >= c.maxAttempts {
			return lastErr
		}
		if err := c.sleep(ctx, wait); err != nil {
			return err
		}
	}
}

// attempt sends one copy of req with the body and the client's headers, within the
// per-attempt timeout, and reads the whole answer.
func (c *Client) attempt(ctx context.Context, req *http.Request, body []byte, idempotencyKey string) (int, http.Header, []byte, error) {
	actx, cancel := context.WithTimeout(ctx, c.attemptTimeout)
	defer cancel()
	r := req.Clone(actx)
	if body != nil {
		r.Body = io.NopCloser(bytes.NewReader(body))
		r.ContentLength = int64(len(body))
		r.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(body)), nil }
	}
	r.Header.Set("Authorization", "Bearer "+c.apiKey)
	r.Header.Set("User-Agent", c.userAgent)
	r.Header.Set("Accept", "application/json")
	if idempotencyKey != "" {
		r.Header.Set("Idempotency-Key", idempotencyKey)
	}
	resp, err := c.http.Do(r)
	if err != nil {
		return 0, nil, nil, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, 16<<20))
	if err != nil {
		return 0, nil, nil, err
	}
	return resp.StatusCode, resp.Header, b, nil
}

// backoff is the wait after the attempt-th attempt failed: base·2^(attempt-1), at most max,
// jittered to between half of it and all of it.
func (c *Client) backoff(attempt int) time.Duration {
	d := c.backoffBase
	for i := 1; i < attempt && d < c.backoffMax; i++ {
		d *= 2
	}
	if d > c.backoffMax {
		d = c.backoffMax
	}
	half := d / 2
	return half + time.Duration(mrand.Int64N(int64(d-half)+1))
}

// retryAfter reads a Retry-After header: delay-seconds or an HTTP date.
func retryAfter(v string, now time.Time) (time.Duration, bool) {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0, false
	}
	if n, err := strconv.Atoi(v); err == nil {
		if n < 0 {
			return 0, false
		}
		return time.Duration(n) * time.Second, true
	}
	if t, err := http.ParseTime(v); err == nil {
		d := t.Sub(now)
		if d < 0 {
			d = 0
		}
		return d, true
	}
	return 0, false
}

func sleepCtx(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}
