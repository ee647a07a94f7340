package webhook

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/takapay/payments/shared/foundation/urlcheck"
)

// DefaultTimeout is the overall per-request timeout NewClient uses when
// ClientOptions.Timeout is not positive.
const DefaultTimeout = 10 * time.Second

// MaxResponseBody is how many bytes of a receiver's response body Post reads
// (and discards) before closing the connection.
const MaxResponseBody = 64 << 10

// UserAgent is the User-Agent header Post sends.
const UserAgent = "Takapay-Webhooks/1"

// ErrForbiddenAddress is wrapped by the error a NewClient client returns when
// a host resolves to an address webhooks must not connect to (test with
// errors.Is).
var ErrForbiddenAddress = errors.New("webhook: forbidden destination address")

// Resolver resolves host names to addresses; *net.Resolver implements it.
type Resolver interface {
	LookupNetIP(ctx context.Context, network, host string) ([]netip.Addr, error)
}

// ClientOptions configures NewClient; the zero value is the production setup.
type ClientOptions struct {
	// AllowLocalhost, set only by the local dev stack and tests, additionally
	// permits loopback addresses (127.0.0.0/8 and ::1). Nothing else
	// non-public is ever allowed.
	AllowLocalhost bool
	// Timeout bounds a whole request, from dial to reading the response
	// body; DefaultTimeout when not positive.
	Timeout time.Duration
	// Resolver resolves destination host names; net.DefaultResolver when nil.
	Resolver Resolver
}

// NewClient returns an HTTP client for delivering webhooks that cannot be
// pointed at internal infrastructure (SSRF):
//
//   - its dialer resolves the host itself and refuses the connection, with an
//     error wrapping ErrForbiddenAddress, unless every resolved address is
//     public per urlcheck.IsPublicIP (or loopback, with AllowLocalhost); it
//     then dials the checked IP literally, so the name cannot be re-resolved
//     (DNS rebinding) between check and connect;
//   - it never uses a proxy and never follows redirects (the redirect
//     response itself is returned);
//   - TLS handshake, response header and overall timeouts are bounded.
func NewClient(o ClientOptions) *http.Client {
	timeout := o.Timeout
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	var resolver Resolver = net.DefaultResolver
	if o.Resolver != nil {
		resolver = o.Resolver
	}
	d := &safeDialer{
		allowLocalhost: o.AllowLocalhost,
		resolver:       resolver,
		dialer:         &net.Dialer{Timeout: timeout, KeepAlive: 30 * time.Second},
	}
	tr := &http.Transport{
		Proxy:                  nil,
		DialContext:            d.DialContext,
		ForceAttemptHTTP2:      true,
		TLSHandshakeTimeout:    min(timeout, 10*time.Second),
		ResponseHeaderTimeout:  timeout,
		ExpectContinueTimeout:  time.Second,
		IdleConnTimeout:        90 * time.Second,
		MaxIdleConns:           100,
		MaxIdleConnsPerHost:    4,
		MaxResponseHeaderBytes: 64 << 10,
	}
	return &http.Client{
		Transport: tr,
		Timeout:   timeout,
		CheckRedirect: func(*http.Request, []*http.Request) error {
			return http.ErrUseLastResponse
		},
	}
}

type safeDialer struct {
	allowLocalhost bool
	resolver       Resolver
	dialer         *net.Dialer
}

// allowed reports whether a connection to ip may be made.
func (d *safeDialer) allowed(ip netip.Addr) bool {
	ip = ip.Unmap()
	if urlcheck.IsPublicIP(ip) {
		return true
	}
	return d.allowLocalhost && ip.WithZone("").IsLoopback()
}

func (d *safeDialer) DialContext(ctx context.Context, network, addr string) (net.Conn, error) {
	var lookupNet string
	switch network {
	case "tcp":
		lookupNet = "ip"
	case "tcp4":
		lookupNet = "ip4"
	case "tcp6":
		lookupNet = "ip6"
	default:
		return nil, fmt.Errorf("webhook: unsupported network %q", network)
	}
	host, portStr, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, err
	}
	port, err := strconv.ParseUint(portStr, 10, 16)
	if err != nil || port == 0 {
		return nil, fmt.Errorf("webhook: invalid port in %q", addr)
	}

	var ips []netip.Addr
	if ip, err := netip.ParseAddr(host); err == nil {
		ips = []netip.Addr{ip}
	} else {
		ips, err = d.resolver.LookupNetIP(ctx, lookupNet, host)
		if err != nil {
			return nil, err
		}
		if len(ips) == 0 {
			return nil, &net.DNSError{Err: "no addresses", Name: host, IsNotFound: true}
		}
	}
	// Every address must pass: a name with one public and one internal
	// address is refused, whichever the dialer would have tried first.
	for _, ip := range ips {
		if !d.allowed(ip) {
			return nil, fmt.Errorf("%w: host %q resolves to %s", ErrForbiddenAddress, host, ip)
		}
	}

	var firstErr error
	for _, ip := range ips {
		target := netip.AddrPortFrom(ip.WithZone(""), uint16(port)).String()
		conn, err := d.dialer.DialContext(ctx, network, target)
		if err == nil {
			return conn, nil
		}
		if firstErr == nil {
			firstErr = err
		}
		if ctx.Err() != nil {
			break
		}
	}
	return nil, firstErr
}

// Post checks rawURL with policy.CheckWebhook, then POSTs body to it with c
// (which should come from NewClient), sending headers plus Content-Type
// application/json and User-Agent UserAgent (these two override any in
// headers). It reads at most MaxResponseBody bytes of the response body,
// discards them, and returns the response status; redirects are returned as
// is when c is a NewClient client. A URL the policy refuses is an error
// wrapping the *urlcheck.RuleError. Any other error is a *SendError: it names
// the URL's host, never its path or query (which may hold a merchant's
// secret token), since the sender stores and logs it.
func Post(ctx context.Context, c *http.Client, policy urlcheck.Policy, rawURL string, headers map[string]string, body []byte) (status int, err error) {
	if err := policy.CheckWebhook(rawURL); err != nil {
		return 0, fmt.Errorf("webhook: refused URL: %w", err)
	}
	u, err := url.Parse(rawURL)
	if err != nil { // CheckWebhook parsed it already
		return 0, errors.New("webhook: refused URL: must be a valid absolute URL")
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, rawURL, bytes.NewReader(body))
	if err != nil {
		return 0, sendError(u, rawURL, err)
	}
	for k, v := range headers {
		req.Header.Set(k, v)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("User-Agent", UserAgent)
	resp, err := c.Do(req)
	if err != nil {
		return 0, sendError(u, rawURL, err)
	}
	defer resp.Body.Close()
	// The status is all we need; a failure reading the (bounded) body does
	// not change the outcome.
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, MaxResponseBody))
	return resp.StatusCode, nil
}

// SendError is a POST that got no HTTP answer: the receiver's host (with its port, if the URL
// has one) and the cause. Its message never holds the URL's path or query: *url.Error, which
// net/http returns, quotes the whole URL, so the cause is taken from inside it (and any
// remaining copy of the URL, its path or its query is cut out of the message).
type SendError struct {
	Host  string
	msg   string
	cause error
}

// Error is "<host>: <cause>", e.g. "shop.com.bd: dial tcp 203.0.113.7:443: connect: connection refused".
func (e *SendError) Error() string { return e.Host + ": " + e.msg }

// Unwrap returns the cause (a *net.OpError, a timeout, an error wrapping ErrForbiddenAddress, …).
func (e *SendError) Unwrap() error { return e.cause }

func sendError(u *url.URL, rawURL string, err error) *SendError {
	var ue *url.Error
	if errors.As(err, &ue) {
		err = ue.Err
	}
	msg := err.Error()
	for _, s := range []string{rawURL, u.RequestURI(), u.EscapedPath(), u.RawQuery, u.Query().Encode()} {
		if s != "" && s != "/" {
			msg = strings.ReplaceAll(msg, s, "…")
		}
	}
	return &SendError{Host: u.Host, msg: msg, cause: err}
}
