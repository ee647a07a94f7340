package webhook

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/takapay/payments/shared/foundation/urlcheck"
)

// stubResolver answers LookupNetIP from a fixed table and records lookups.
type stubResolver struct {
	mu      sync.Mutex
	table   map[string][]netip.Addr
	lookups []string
}

func (r *stubResolver) LookupNetIP(_ context.Context, _, host string) ([]netip.Addr, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.lookups = append(r.lookups, host)
	if a, ok := r.table[host]; ok {
		return a, nil
	}
	return nil, &net.DNSError{Err: "no such host", Name: host, IsNotFound: true}
}

func addrs(ss ...string) []netip.Addr {
	out := make([]netip.Addr, len(ss))
	for i, s := range ss {
		out[i] = netip.MustParseAddr(s)
	}
	return out
}

// serverPort returns the port of an httptest server on loopback.
func serverPort(t *testing.T, s *httptest.Server) string {
	t.Helper()
	u, err := url.Parse(s.URL)
	if err != nil {
		t.Fatal(err)
	}
	return u.Port()
}

// countingServer counts the requests it receives and answers 204.
func countingServer(t *testing.T) (*httptest.Server, *atomic.Int32) {
	t.Helper()
	var n atomic.Int32
	s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n.Add(1)
		w.WriteHeader(http.StatusNoContent)
	}))
	t.Cleanup(s.Close)
	return s, &n
}

func doPost(t *testing.T, c *http.Client, rawURL string) error {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 5*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, rawURL, strings.NewReader("{}"))
	if err != nil {
		t.Fatal(err)
	}
	resp, err := c.Do(req)
	if err == nil {
		resp.Body.Close()
	}
	return err
}

func TestPostLoopbackRefusedWithoutAllowLocalhost(t *testing.T) {
	s, hits := countingServer(t)
	c := NewClient(ClientOptions{})

	// The policy refuses the URL before anything is sent.
	_, err := Post(t.Context(), c, urlcheck.Policy{}, s.URL, nil, []byte("{}"))
	var re *urlcheck.RuleError
	if !errors.As(err, &re) {
		t.Fatalf("Post with production policy: err = %v, want a *urlcheck.RuleError", err)
	}
	// Even if the policy lets it through, the dialer refuses.
	_, err = Post(t.Context(), c, urlcheck.Policy{AllowLocalhost: true}, s.URL, nil, []byte("{}"))
	if !errors.Is(err, ErrForbiddenAddress) {
		t.Fatalf("Post with dev policy but production client: err = %v, want ErrForbiddenAddress", err)
	}
	if n := hits.Load(); n != 0 {
		t.Fatalf("server got %d requests, want 0", n)
	}
}

func TestPostLoopbackAllowed(t *testing.T) {
	type got struct {
		ct, ua, custom, body, method string
	}
	ch := make(chan got, 1)
	s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		ch <- got{r.Header.Get("Content-Type"), r.Header.Get("User-Agent"), r.Header.Get("Webhook-Id"), string(b), r.Method}
		w.WriteHeader(http.StatusAccepted)
	}))
	defer s.Close()

	c := NewClient(ClientOptions{AllowLocalhost: true})
	body := []byte(`{"type":"payment.succeeded"}`)
	hdr := map[string]string{HeaderID: "msg_1", "Content-Type": "text/plain", "User-Agent": "evil"}
	for _, u := range []string{s.URL, "http://localhost:" + serverPort(t, s)} {
		status, err := Post(t.Context(), c, urlcheck.Policy{AllowLocalhost: true}, u, hdr, body)
		if err != nil {
			t.Fatalf("Post(%s): %v", u, err)
		}
		if status != http.StatusAccepted {
			t.Fatalf("Post(%s) status = %d, want 202", u, status)
		}
		g := <-ch
		want := got{"application/json", UserAgent, "msg_1", string(body), http.MethodPost}
		if g != want {
			t.Fatalf("Post(%s) sent %+v, want %+v", u, g, want)
		}
	}
}

func TestPublicNameResolvingToLoopbackRefused(t *testing.T) {
	s, hits := countingServer(t)
	res := &stubResolver{table: map[string][]netip.Addr{
		"public.example.com.bd": addrs("127.0.0.1"),
		"mapped.example.com.bd": addrs("::ffff:127.0.0.1"),
		"v6.example.com.bd":     addrs("::1"),
	}}
	port := serverPort(t, s)
	c := NewClient(ClientOptions{Resolver: res})
	for _, host := range []string{"public.example.com.bd", "mapped.example.com.bd", "v6.example.com.bd"} {
		err := doPost(t, c, "http://"+host+":"+port+"/hook")
		if !errors.Is(err, ErrForbiddenAddress) {
			t.Errorf("%s: err = %v, want ErrForbiddenAddress", host, err)
		} else if !strings.Contains(err.Error(), host) {
			t.Errorf("%s: err = %q, want it to name the host", host, err)
		}
	}
	if n := hits.Load(); n != 0 {
		t.Fatalf("server got %d requests, want 0", n)
	}

	// The same name is allowed in the dev setup, and the checked IP is
	// dialed (the stub is the only resolver that knows the name).
	dev := NewClient(ClientOptions{AllowLocalhost: true, Resolver: res})
	if err := doPost(t, dev, "http://public.example.com.bd:"+port+"/hook"); err != nil {
		t.Fatalf("AllowLocalhost: %v", err)
	}
	if n := hits.Load(); n != 1 {
		t.Fatalf("server got %d requests, want 1", n)
	}
}

func TestInternalAddressesRefusedEvenWithAllowLocalhost(t *testing.T) {
	res := &stubResolver{table: map[string][]netip.Addr{
		"private.example.com.bd":  addrs("10.0.0.1"),
		"metadata.example.com.bd": addrs("169.254.169.254"),
		"mapped.example.com.bd":   addrs("::ffff:169.254.169.254"),
		"ula.example.com.bd":      addrs("fd00::1"),
		"unspec.example.com.bd":   addrs("0.0.0.0"),
		// One bad address taints the whole answer, even after a public one.
		"mixed.example.com.bd": addrs("93.184.215.14", "10.0.0.1"),
	}}
	for _, allow := range []bool{false, true} {
		c := NewClient(ClientOptions{AllowLocalhost: allow, Resolver: res, Timeout: 2 * time.Second})
		for host := range res.table {
			start := time.Now()
			// Port 9 (discard): a real dial would hang or be refused, not
			// fail with ErrForbiddenAddress, and must never happen.
			err := doPost(t, c, "http://"+host+":9/")
			if !errors.Is(err, ErrForbiddenAddress) {
				t.Errorf("allow=%v %s: err = %v, want ErrForbiddenAddress", allow, host, err)
			}
			if d := time.Since(start); d > time.Second {
				t.Errorf("allow=%v %s: took %v; the check must fire before dialing", allow, host, d)
			}
		}
	}
}

func TestDialerIPLiteralSkipsResolver(t *testing.T) {
	res := &stubResolver{}
	c := NewClient(ClientOptions{AllowLocalhost: true, Resolver: res})
	err := doPost(t, c, "http://169.254.169.254/latest/meta-data/")
	if !errors.Is(err, ErrForbiddenAddress) {
		t.Fatalf("err = %v, want ErrForbiddenAddress", err)
	}
	if len(res.lookups) != 0 {
		t.Fatalf("resolver consulted for an IP literal: %v", res.lookups)
	}
}

func TestNoProxy(t *testing.T) {
	c := NewClient(ClientOptions{})
	tr, ok := c.Transport.(*http.Transport)
	if !ok {
		t.Fatalf("Transport is %T", c.Transport)
	}
	if tr.Proxy != nil {
		t.Fatal("Transport.Proxy is set")
	}
	if c.Timeout != DefaultTimeout || tr.TLSHandshakeTimeout <= 0 || tr.ResponseHeaderTimeout <= 0 {
		t.Fatalf("timeouts: client %v, TLS %v, header %v", c.Timeout, tr.TLSHandshakeTimeout, tr.ResponseHeaderTimeout)
	}
}

func TestRedirectNotFollowed(t *testing.T) {
	target, hits := countingServer(t)
	s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, target.URL+"/elsewhere", http.StatusFound)
	}))
	defer s.Close()

	c := NewClient(ClientOptions{AllowLocalhost: true})
	status, err := Post(t.Context(), c, urlcheck.Policy{AllowLocalhost: true}, s.URL, nil, []byte("{}"))
	if err != nil {
		t.Fatal(err)
	}
	if status != http.StatusFound {
		t.Fatalf("status = %d, want 302", status)
	}
	if n := hits.Load(); n != 0 {
		t.Fatalf("redirect target got %d requests, want 0", n)
	}
}

func TestHugeResponseBodyBounded(t *testing.T) {
	release := make(chan struct{})
	s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusOK)
		chunk := make([]byte, 64<<10)
		for range 160 { // 10 MiB
			if _, err := w.Write(chunk); err != nil {
				return // the client hung up, as it should
			}
		}
		// A client that drained the whole body would now wait for the end
		// of the response until its timeout.
		select {
		case <-release:
		case <-r.Context().Done():
		}
	}))
	defer s.Close()
	defer close(release)

	c := NewClient(ClientOptions{AllowLocalhost: true, Timeout: 10 * time.Second})
	start := time.Now()
	status, err := Post(t.Context(), c, urlcheck.Policy{AllowLocalhost: true}, s.URL, nil, []byte("{}"))
	if err != nil {
		t.Fatal(err)
	}
	if status != http.StatusOK {
		t.Fatalf("status = %d, want 200", status)
	}
	if d := time.Since(start); d > 3*time.Second {
		t.Fatalf("Post took %v; it must stop reading after %d bytes", d, MaxResponseBody)
	}
}
