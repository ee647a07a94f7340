package webhook

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"testing"
	"time"

	"github.com/takapay/payments/shared/auth"
	"github.com/takapay/payments/shared/foundation/urlcheck"
)

// The test event follows the sender's rules: URL policy, SSRF-safe client, every active secret
// signs; refusals are told apart (refused URL, forbidden address, no secret).
func TestTesterSendsSignedTestEvent(t *testing.T) {
	key := make([]byte, SecretSize)
	key[0] = 7
	var got *http.Request
	var body []byte
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got, body = r, must(io.ReadAll(r.Body))
		w.WriteHeader(http.StatusAccepted)
	}))
	defer srv.Close()
	secrets := func(_ context.Context, ws string, env auth.Environment, _ time.Time) ([][]byte, error) {
		if ws != "ws-1" || env != auth.Sandbox {
			return nil, nil
		}
		return [][]byte{key}, nil
	}
	now := time.Date(2026, 11, 27, 10, 0, 0, 0, time.UTC)
	tr := &Tester{Secrets: secrets, URLs: urlcheck.Policy{AllowLocalhost: true}, Now: func() time.Time { return now }}
	res, err := tr.Send(context.Background(), "ws-1", auth.Sandbox, srv.URL+"/hook?token=x")
	if err != nil {
		t.Fatal(err)
	}
	if res.HTTPStatus != 202 || res.Signatures != 1 || res.Host != strings.TrimPrefix(srv.URL, "http://") ||
		!strings.HasPrefix(res.EventID, "evt_test_") {
		t.Fatalf("result %+v", res)
	}
	var p TestPayload
	if err := json.Unmarshal(body, &p); err != nil || p.Type != TestEventType || p.ID != res.EventID || p.Data.WorkspaceID != "ws-1" {
		t.Fatalf("body %s (%v)", body, err)
	}
	if sig := got.Header.Get(HeaderSignature); sig != Sign(key, res.EventID, now, body) {
		t.Errorf("signature %q", sig)
	}

	// No secret in live; a refused URL (nothing read); a name resolving to a private address.
	if _, err := tr.Send(context.Background(), "ws-1", auth.Live, srv.URL); !errors.Is(err, ErrNoSecret) {
		t.Errorf("live without a secret: %v", err)
	}
	var rule *urlcheck.RuleError
	if _, err := tr.Send(context.Background(), "ws-1", auth.Sandbox, "https://169.254.169.254/latest/meta-data"); !errors.Is(err, ErrURLRefused) ||
		!errors.As(err, &rule) || rule.Rule != "must not be an IP address" {
		t.Errorf("metadata address: %v", err)
	}
	tr.Client = NewClient(ClientOptions{Resolver: &stubResolver{table: map[string][]netip.Addr{"hooks.shop.com.bd": addrs("10.1.2.3")}}})
	var se *SendError
	if _, err := tr.Send(context.Background(), "ws-1", auth.Sandbox, "https://hooks.shop.com.bd/x"); !errors.Is(err, ErrNotDelivered) ||
		!errors.Is(err, ErrForbiddenAddress) || !errors.As(err, &se) || se.Host != "hooks.shop.com.bd" {
		t.Errorf("private address: %v", err)
	}
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}
