package takapay

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
)

const created = `{"invoice_id":"0f0c6a1e-8a8e-4d52-9a51-6a3f4d0f1a11","payment_url":"https://pay.example/x","status":"PENDING"}`

// server answers the n-th request (from 0) with answers[n] (the last one from then on) and
// records every request's Idempotency-Key and body.
type server struct {
	*httptest.Server
	mu      sync.Mutex
	keys    []string
	bodies  []string
	headers []http.Header
}

type answer struct {
	status int
	body   string
	header map[string]string
	hang   time.Duration
}

func newServer(t *testing.T, answers ...answer) *server {
	s := &server{}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		s.mu.Lock()
		n := len(s.keys)
		s.keys = append(s.keys, r.Header.Get("Idempotency-Key"))
		s.bodies = append(s.bodies, string(b))
		s.headers = append(s.headers, r.Header.Clone())
		s.mu.Unlock()
		a := answers[min(n, len(answers)-1)]
		if a.hang > 0 {
			select {
			case <-time.After(a.hang):
			case <-r.Context().Done():
				return
			}
		}
		for k, v := range a.header {
			w.Header().Set(k, v)
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(a.status)
		io.WriteString(w, a.body)
	}))
	t.Cleanup(s.Close)
	return s
}

func errBody(code string, retryable bool) string {
	r := "false"
	if retryable {
		r = "true"
	}
	return `{"error":{"code":"` + code + `","message":"m","retryable":` + r + `,"correlation_id":"0123456789abcdef01234567"}}`
}

// testClient sleeps no time and records the waits it would have made.
func testClient(t *testing.T, url string, o Options) (*Client, *[]time.Duration) {
	o.BaseURL = url
	c, err := New("sk_sandbox_test", o)
	if err != nil {
		t.Fatal(err)
	}
	var waits []time.Duration
	c.sleep = func(ctx context.Context, d time.Duration) error { waits = append(waits, d); return ctx.Err() }
	return c, &waits
}

func createInput() CreatePaymentInput {
	return CreatePaymentInput{Amount: MustParseAmount("150.50")}
}

func TestRetriesReuseTheIdempotencyKey(t *testing.T) {
	s := newServer(t, answer{status: 503, body: errBody("SERVICE_UNAVAILABLE", true)}, answer{status: 503, body: errBody("SERVICE_UNAVAILABLE", true)},
		answer{status: 201, body: created})
	c, waits := testClient(t, s.URL, Options{})
	var attempts int
	p, err := c.CreatePayment(context.Background(), createInput(), WithAttempts(&attempts))
	if err != nil {
		t.Fatal(err)
	}
	if p.InvoiceId.String() != "0f0c6a1e-8a8e-4d52-9a51-6a3f4d0f1a11" || attempts != 3 || len(s.keys) != 3 || len(*waits) != 2 {
		t.Fatalf("payment %v after %d attempts, %d requests, waits %v", p, attempts, len(s.keys), *waits)
	}
	if !idempotencyKeyText.MatchString(s.keys[0]) || s.keys[1] != s.keys[0] || s.keys[2] != s.keys[0] {
		t.Errorf("keys across retries: %q", s.keys)
	}
	if s.bodies[0] != s.bodies[2] || !strings.Contains(s.bodies[0], `"amount":150.50`) {
		t.Errorf("bodies: %q", s.bodies)
	}
	h := s.headers[0]
	if h.Get("User-Agent") != "takapay-go/"+Version || h.Get("Authorization") != "Bearer sk_sandbox_test" || h.Get("Content-Type") != "application/json" {
		t.Errorf("headers: %v", h)
	}

	// Each call has its own key; a key the caller gives is sent as is.
	if _, err := c.CreatePayment(context.Background(), createInput(), WithIdempotencyKey("order-42-create-0001")); err != nil {
		t.Fatal(err)
	}
	if _, err := c.CreatePayment(context.Background(), createInput()); err != nil {
		t.Fatal(err)
	}
	if s.keys[3] != "order-42-create-0001" || s.keys[4] == s.keys[0] || s.keys[4] == "" {
		t.Errorf("keys of later calls: %q", s.keys[3:])
	}
	if _, err := c.CreatePayment(context.Background(), createInput(), WithIdempotencyKey("short")); err == nil || len(s.keys) != 5 {
		t.Errorf("a malformed key: %v (%d requests)", err, len(s.keys))
	}
}

func TestTimeoutsAreRetriedWithTheSameKey(t *testing.T) {
	s := newServer(t, answer{status: 201, body: created, hang: 5 * time.Second}, answer{status: 201, body: created})
	c, _ := testClient(t, s.URL, Options{AttemptTimeout: 100 * time.Millisecond})
	var attempts int
	if _, err := c.CreatePayment(context.Background(), createInput(), WithAttempts(&attempts)); err != nil {
		t.Fatal(err)
	}
	if attempts != 2 || len(s.keys) != 2 || s.keys[0] != s.keys[1] {
		t.Errorf("%d attempts, keys %q", attempts, s.keys)
	}
}

func TestConnectionFailuresAreRetried(t *testing.T) {
	s := newServer(t, answer{status: 201, body: created})
	url := s.URL
	s.Close()
	c, waits := testClient(t, url, Options{MaxAttempts: 4})
	var attempts int
	_, err := c.CreatePayment(context.Background(), createInput(), WithAttempts(&attempts))
	if err == nil || AsAPIError(err) != nil || attempts != 4 || len(*waits) != 3 {
		t.Errorf("err %v after %d attempts, waits %v", err, attempts, *waits)
	}
}

func TestRetryAfterIsHonoured(t *testing.T) {
	s := newServer(t, answer{status: 429, body: errBody("RATE_LIMITED", true), header: map[string]string{"Retry-After": "7"}}, answer{status: 201, body: created})
	c, waits := testClient(t, s.URL, Options{})
	if _, err := c.CreatePayment(context.Background(), createInput()); err != nil {
		t.Fatal(err)
	}
	if len(*waits) != 1 || (*waits)[0] != 7*time.Second || s.keys[0] != s.keys[1] {
		t.Errorf("waits %v, keys %q", *waits, s.keys)
	}

	// Longer than MaxRetryAfter: the 429 is the answer.
	s2 := newServer(t, answer{status: 429, body: errBody("RATE_LIMITED", true), header: map[string]string{"Retry-After": "3600"}})
	c2, waits2 := testClient(t, s2.URL, Options{})
	_, err := c2.CreatePayment(context.Background(), createInput())
	if e := AsAPIError(err); e == nil || e.Status != 429 || e.Code != "RATE_LIMITED" || !e.Retryable || len(*waits2) != 0 {
		t.Errorf("err %v, waits %v", err, *waits2)
	}
}

func TestNoRetryOnOtherErrors(t *testing.T) {
	for _, a := range []answer{
		{status: 400, body: errBody("MALFORMED_REQUEST", false)}, {status: 404, body: errBody("NOT_FOUND", false)},
		{status: 409, body: errBody("IDEMPOTENCY_KEY_REUSED", false)}, {status: 422, body: errBody("VALIDATION_FAILED", false)},
		{status: 500, body: errBody("INTERNAL_ERROR", false)},
	} {
		s := newServer(t, a)
		c, waits := testClient(t, s.URL, Options{MaxAttempts: 5})
		var attempts int
		_, err := c.CreatePayment(context.Background(), createInput(), WithAttempts(&attempts))
		var e *APIError
		if !errors.As(err, &e) || e.Status != a.status || e.Retryable || e.CorrelationID != "0123456789abcdef01234567" || e.Message != "m" ||
			!strings.Contains(a.body, e.Code) || e.Attempts != 1 || attempts != 1 || len(s.keys) != 1 || len(*waits) != 0 {
			t.Errorf("%d: err %#v after %d attempts (%d requests)", a.status, err, attempts, len(s.keys))
		}
	}
	// Not JSON at all (a proxy's page): still an *APIError with the status.
	s := newServer(t, answer{status: 502, body: "<html>bad gateway</html>"})
	c, _ := testClient(t, s.URL, Options{})
	if e := AsAPIError(func() error { _, err := c.CreatePayment(context.Background(), createInput()); return err }()); e == nil || e.Status != 502 || len(s.keys) != 1 {
		t.Errorf("502: %v", e)
	}
}

func TestRetriesStopAtMaxAttempts(t *testing.T) {
	s := newServer(t, answer{status: 503, body: errBody("SERVICE_UNAVAILABLE", true)})
	c, waits := testClient(t, s.URL, Options{MaxAttempts: 4})
	_, err := c.CreatePayment(context.Background(), createInput())
	if e := AsAPIError(err); e == nil || e.Status != 503 || e.Attempts != 4 || len(s.keys) != 4 || len(*waits) != 3 {
		t.Errorf("err %v, %d requests, waits %v", err, len(s.keys), *waits)
	}
}

func TestBackoff(t *testing.T) {
	c, _ := New("sk_sandbox_x", Options{BackoffBase: 100 * time.Millisecond, BackoffMax: time.Second})
	for attempt, step := range map[int]time.Duration{1: 100 * time.Millisecond, 2: 200 * time.Millisecond, 3: 400 * time.Millisecond,
		4: 800 * time.Millisecond, 5: time.Second, 30: time.Second} {
		seen := map[time.Duration]bool{}
		for range 200 {
			d := c.backoff(attempt)
			if d < step/2 || d > step {
				t.Fatalf("backoff(%d) = %s; want %s to %s", attempt, d, step/2, step)
			}
			seen[d] = true
		}
		if len(seen) < 10 {
			t.Errorf("backoff(%d): %d distinct waits in 200: no jitter", attempt, len(seen))
		}
	}
}

func TestRetryAfterHeader(t *testing.T) {
	now := time.Date(2026, 11, 27, 12, 0, 0, 0, time.UTC)
	for v, want := range map[string]time.Duration{"0": 0, "3": 3 * time.Second, " 120 ": 2 * time.Minute,
		"Fri, 27 Nov 2026 12:00:30 GMT": 30 * time.Second, "Fri, 27 Nov 2026 11:00:00 GMT": 0} {
		if d, ok := retryAfter(v, now); !ok || d != want {
			t.Errorf("retryAfter(%q) = %s, %v; want %s", v, d, ok, want)
		}
	}
	for _, v := range []string{"", "-1", "soon", "1.5"} {
		if d, ok := retryAfter(v, now); ok {
			t.Errorf("retryAfter(%q) = %s; want none", v, d)
		}
	}
}

func TestNewIdempotencyKey(t *testing.T) {
	seen := map[string]bool{}
	for range 100 {
		k := NewIdempotencyKey()
		if !idempotencyKeyText.MatchString(k) || seen[k] {
			t.Fatalf("key %q", k)
		}
		seen[k] = true
	}
}

// The committed takapay.gen.go is what oapi-codegen makes of the contract now: a change to
// shared/openapi/openapi.yaml without `go generate` in clients/go fails here.
func TestGeneratedInSync(t *testing.T) {
	if testing.Short() {
		t.Skip("runs oapi-codegen")
	}
	cfg, err := os.ReadFile("oapi-codegen.yaml")
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "takapay.gen.go")
	tmpCfg := filepath.Join(t.TempDir(), "oapi-codegen.yaml")
	replaced := strings.Replace(string(cfg), "\noutput: takapay.gen.go\n", "\noutput: "+out+"\n", 1)
	if replaced == string(cfg) {
		t.Fatal("oapi-codegen.yaml has no `output: takapay.gen.go` line")
	}
	if err := os.WriteFile(tmpCfg, []byte(replaced), 0o644); err != nil {
		t.Fatal(err)
	}
	goBin := filepath.Join(runtimeGOROOT(), "bin", "go")
	cmd := exec.Command(goBin, "tool", "oapi-codegen", "-config", tmpCfg, "../../shared/openapi/openapi.yaml")
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("oapi-codegen: %v\n%s", err, b)
	}
	want, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile("takapay.gen.go")
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != string(want) {
		t.Fatal("takapay.gen.go is not what the contract generates now: run `go generate` in clients/go and commit it")
	}
}

// AllIntents pages with each page's next_cursor until it is null, yields every item once in
// order (an empty filtered page does not end it), and stops on an error or a break.
func TestAllIntentsPagesToTheEnd(t *testing.T) {
	intent := func(id string) string {
		return `{"id":"` + id + `","object":"payment_intent","status":"COMPLETED","amount_minor":100,"currency":"BDT","reference":"r"}`
	}
	const (
		c1 = "11111111-1111-4111-8111-111111111111"
		c2 = "22222222-2222-4222-8222-222222222222"
	)
	var mu sync.Mutex
	var cursors []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		cur := r.URL.Query().Get("cursor")
		mu.Lock()
		cursors = append(cursors, cur)
		mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		switch cur {
		case "":
			io.WriteString(w, `{"items":[`+intent("a0000000-0000-4000-8000-000000000001")+`,`+intent("a0000000-0000-4000-8000-000000000002")+`],"next_cursor":"`+c1+`"}`)
		case c1: // every intent of this page filtered out
			io.WriteString(w, `{"items":[],"next_cursor":"`+c2+`"}`)
		case c2:
			io.WriteString(w, `{"items":[`+intent("a0000000-0000-4000-8000-000000000003")+`],"next_cursor":null}`)
		default:
			w.WriteHeader(http.StatusUnprocessableEntity)
			io.WriteString(w, `{"error":{"code":"VALIDATION_FAILED","message":"query.cursor","retryable":false,"correlation_id":"0123456789abcdef01234567"}}`)
		}
	}))
	t.Cleanup(srv.Close)
	c, err := New("sk_sandbox_test", Options{BaseURL: srv.URL})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for in, err := range c.AllIntents(context.Background(), nil) {
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, in.Id.String()[len(in.Id.String())-1:])
	}
	sent := func() []string {
		mu.Lock()
		defer mu.Unlock()
		out := cursors
		cursors = nil
		return out
	}
	if cs := sent(); strings.Join(got, ",") != "1,2,3" || strings.Join(cs, ",") != ","+c1+","+c2 {
		t.Errorf("yielded %v after cursors %q", got, cs)
	}

	// A break stops the paging: one request.
	for range c.AllIntents(context.Background(), nil) {
		break
	}
	if cs := sent(); len(cs) != 1 {
		t.Errorf("a break after the first item still sent %d requests", len(cs))
	}

	// An error is yielded once, typed, and ends the loop.
	bad := "ffffffff-ffff-4fff-8fff-ffffffffffff"
	cur, _ := uuid.Parse(bad)
	var errs int
	for in, err := range c.AllIntents(context.Background(), &GetPaymentIntentsParams{Cursor: &cur}) {
		if in != nil || AsAPIError(err) == nil || AsAPIError(err).Status != 422 {
			t.Errorf("yielded %v, %v", in, err)
		}
		errs++
	}
	if errs != 1 {
		t.Errorf("%d errors yielded, want 1", errs)
	}
}
