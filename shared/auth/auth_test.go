package auth_test

import (
	"context"
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/takapay/payments/shared/auth"
	"github.com/takapay/payments/shared/foundation/apierr"
	"github.com/takapay/payments/shared/foundation/web"
)

func TestAuthorize(t *testing.T) {
	id := &auth.Identity{
		Kind:         auth.KindAPIKey,
		WorkspaceID:  "ws_1",
		Environments: []auth.Environment{auth.Sandbox},
		Scopes:       []auth.Scope{auth.PaymentsWrite, auth.PaymentsRead},
	}
	tests := []struct {
		name  string
		scope auth.Scope
		env   auth.Environment
		fail  string // substring of the message; "" means allowed
	}{
		{"write in sandbox", auth.PaymentsWrite, auth.Sandbox, ""},
		{"read in sandbox", auth.PaymentsRead, auth.Sandbox, ""},
		{"wrong environment", auth.PaymentsWrite, auth.Live, "live environment"},
		{"missing scope", auth.DocumentsRead, auth.Sandbox, "documents:read"},
		{"missing scope and environment", auth.DocumentsWrite, auth.Live, "live"},
		{"unknown environment", auth.PaymentsRead, auth.Environment("staging"), "staging"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := id.Authorize(tt.scope, tt.env)
			if tt.fail == "" {
				if err != nil {
					t.Fatalf("Authorize: %v", err)
				}
				return
			}
			e := wantAPIErr(t, err, apierr.ScopeOrEnvironmentDenied)
			if e.Status() != 403 {
				t.Errorf("status = %d, want 403", e.Status())
			}
			if !strings.Contains(e.Message, tt.fail) {
				t.Errorf("message %q does not contain %q", e.Message, tt.fail)
			}
		})
	}
	empty := &auth.Identity{}
	if err := empty.Authorize(auth.PaymentsRead, auth.Sandbox); err == nil {
		t.Error("an identity with no environments or scopes was authorised")
	}
}

func wantAPIErr(t *testing.T, err error, code apierr.Code) *apierr.Error {
	t.Helper()
	var e *apierr.Error
	if !errors.As(err, &e) {
		t.Fatalf("error %v (%T) is not an *apierr.Error", err, err)
	}
	if e.Code != code {
		t.Fatalf("code = %s (%q), want %s", e.Code, e.Message, code)
	}
	return e
}

// stubKeys is an in-memory KeyStore that records its calls.
type stubKeys struct {
	recs  map[string]*auth.KeyRecord
	err   error
	calls []string
}

func (s *stubKeys) GetKey(_ context.Context, hash string) (*auth.KeyRecord, error) {
	s.calls = append(s.calls, hash)
	if s.err != nil {
		return nil, s.err
	}
	return s.recs[hash], nil
}

func request(headers map[string]string) *web.Request {
	return &web.Request{Headers: headers}
}

func TestAuthenticate(t *testing.T) {
	now := time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)
	past, future := now.Add(-time.Minute), now.Add(time.Minute)
	sandboxKey, sandboxHash := newKey(t, auth.Sandbox)
	liveKey, liveHash := newKey(t, auth.Live)
	unknownKey, _ := newKey(t, auth.Sandbox)
	scopes := []auth.Scope{auth.PaymentsWrite, auth.PaymentsRead}

	rec := func(hash string, env auth.Environment, mod func(*auth.KeyRecord)) *auth.KeyRecord {
		r := &auth.KeyRecord{Hash: hash, KeyID: "key_0123456789abcdefABCD", WorkspaceID: "ws_1",
			Environment: env, Scopes: scopes, CreatedAt: now.Add(-time.Hour)}
		if mod != nil {
			mod(r)
		}
		return r
	}
	tests := []struct {
		name      string
		headers   map[string]string
		rec       *auth.KeyRecord // stored under the presented key's hash
		storeErr  error
		wantCalls int
		code      apierr.Code // "" means success
		msg       string      // substring of the error message
		wantEnv   auth.Environment
	}{
		{name: "ok sandbox", headers: map[string]string{"authorization": "Bearer " + sandboxKey},
			rec: rec(sandboxHash, auth.Sandbox, nil), wantCalls: 1, wantEnv: auth.Sandbox},
		{name: "ok live", headers: map[string]string{"authorization": "Bearer " + liveKey},
			rec: rec(liveHash, auth.Live, nil), wantCalls: 1, wantEnv: auth.Live},
		{name: "lower-case bearer", headers: map[string]string{"authorization": "bearer " + sandboxKey},
			rec: rec(sandboxHash, auth.Sandbox, nil), wantCalls: 1, wantEnv: auth.Sandbox},
		{name: "upper-case BEARER", headers: map[string]string{"authorization": "BEARER " + sandboxKey},
			rec: rec(sandboxHash, auth.Sandbox, nil), wantCalls: 1, wantEnv: auth.Sandbox},
		{name: "header name case", headers: map[string]string{"Authorization": "Bearer " + sandboxKey},
			rec: rec(sandboxHash, auth.Sandbox, nil), wantCalls: 1, wantEnv: auth.Sandbox},
		{name: "extra spaces around key", headers: map[string]string{"authorization": "Bearer   " + sandboxKey + " "},
			rec: rec(sandboxHash, auth.Sandbox, nil), wantCalls: 1, wantEnv: auth.Sandbox},
		{name: "expires in the future", headers: map[string]string{"authorization": "Bearer " + sandboxKey},
			rec: rec(sandboxHash, auth.Sandbox, func(r *auth.KeyRecord) { r.ExpiresAt = &future }), wantCalls: 1, wantEnv: auth.Sandbox},

		{name: "missing header", headers: nil, code: apierr.InvalidAPIKey, msg: "missing API key"},
		{name: "empty header", headers: map[string]string{"authorization": ""}, code: apierr.InvalidAPIKey, msg: "missing API key"},
		{name: "basic scheme", headers: map[string]string{"authorization": "Basic x"}, code: apierr.InvalidAPIKey, msg: "Bearer"},
		{name: "basic scheme with a real key", headers: map[string]string{"authorization": "Basic " + sandboxKey},
			rec: rec(sandboxHash, auth.Sandbox, nil), code: apierr.InvalidAPIKey, msg: "Bearer"},
		{name: "bearer with empty token", headers: map[string]string{"authorization": "Bearer "}, code: apierr.InvalidAPIKey, msg: "Bearer"},
		{name: "bearer with blank token", headers: map[string]string{"authorization": "Bearer    "}, code: apierr.InvalidAPIKey, msg: "Bearer"},
		{name: "bearer without space", headers: map[string]string{"authorization": "Bearer"}, code: apierr.InvalidAPIKey, msg: "Bearer"},
		{name: "key without scheme", headers: map[string]string{"authorization": sandboxKey}, code: apierr.InvalidAPIKey},
		{name: "malformed key", headers: map[string]string{"authorization": "Bearer sk_sandbox_nope"}, code: apierr.InvalidAPIKey, msg: "invalid API key"},
		{name: "checksum typo", headers: map[string]string{"authorization": "Bearer " + typo(sandboxKey)},
			rec: rec(sandboxHash, auth.Sandbox, nil), code: apierr.InvalidAPIKey, msg: "invalid API key"},
		{name: "unknown key", headers: map[string]string{"authorization": "Bearer " + unknownKey},
			wantCalls: 1, code: apierr.InvalidAPIKey, msg: "invalid API key"},
		{name: "store error", headers: map[string]string{"authorization": "Bearer " + sandboxKey},
			storeErr: errors.New("ProvisionedThroughputExceeded"), wantCalls: 1, code: apierr.AuthServiceUnavailable, msg: "retry"},
		{name: "revoked", headers: map[string]string{"authorization": "Bearer " + sandboxKey},
			rec: rec(sandboxHash, auth.Sandbox, func(r *auth.KeyRecord) { r.RevokedAt = &past }), wantCalls: 1,
			code: apierr.InvalidAPIKey, msg: "revoked"},
		{name: "revoked with future expiry", headers: map[string]string{"authorization": "Bearer " + sandboxKey},
			rec: rec(sandboxHash, auth.Sandbox, func(r *auth.KeyRecord) { r.RevokedAt = &past; r.ExpiresAt = &future }), wantCalls: 1,
			code: apierr.InvalidAPIKey, msg: "revoked"},
		{name: "expired", headers: map[string]string{"authorization": "Bearer " + sandboxKey},
			rec: rec(sandboxHash, auth.Sandbox, func(r *auth.KeyRecord) { r.ExpiresAt = &past }), wantCalls: 1,
			code: apierr.InvalidAPIKey, msg: "expired"},
		{name: "expires exactly now", headers: map[string]string{"authorization": "Bearer " + sandboxKey},
			rec: rec(sandboxHash, auth.Sandbox, func(r *auth.KeyRecord) { r.ExpiresAt = &now }), wantCalls: 1,
			code: apierr.InvalidAPIKey, msg: "expired"},
		{name: "record environment differs from key text", headers: map[string]string{"authorization": "Bearer " + sandboxKey},
			rec: rec(sandboxHash, auth.Live, nil), wantCalls: 1, code: apierr.InvalidAPIKey, msg: "invalid API key"},
		{name: "record hash differs", headers: map[string]string{"authorization": "Bearer " + sandboxKey},
			rec: rec(liveHash, auth.Sandbox, nil), wantCalls: 1, code: apierr.InvalidAPIKey, msg: "invalid API key"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			store := &stubKeys{recs: map[string]*auth.KeyRecord{}, err: tt.storeErr}
			if tt.rec != nil {
				// Store under the presented key's hash, whatever the record says.
				for _, k := range []string{sandboxKey, liveKey} {
					if strings.Contains(tt.headers["authorization"]+tt.headers["Authorization"], k) {
						store.recs[auth.HashKey(k)] = tt.rec
					}
				}
			}
			a := &auth.Authenticator{Keys: store, Now: func() time.Time { return now }}
			id, err := a.Authenticate(context.Background(), request(tt.headers))
			if len(store.calls) != tt.wantCalls {
				t.Errorf("store called %d times, want %d", len(store.calls), tt.wantCalls)
			}
			if tt.code == "" {
				if err != nil {
					t.Fatalf("Authenticate: %v", err)
				}
				want := &auth.Identity{Kind: auth.KindAPIKey, WorkspaceID: "ws_1", Environments: []auth.Environment{tt.wantEnv},
					Scopes: scopes, CredentialID: "key_0123456789abcdefABCD"}
				if !reflect.DeepEqual(id, want) {
					t.Errorf("identity = %+v, want %+v", id, want)
				}
				return
			}
			if id != nil {
				t.Errorf("identity %+v returned with an error", id)
			}
			e := wantAPIErr(t, err, tt.code)
			if e.Status() != tt.code.Status() {
				t.Errorf("status = %d", e.Status())
			}
			if !strings.Contains(e.Message, tt.msg) {
				t.Errorf("message %q does not contain %q", e.Message, tt.msg)
			}
			if strings.Contains(e.Message, "sk_") {
				t.Errorf("message %q echoes key text", e.Message)
			}
			if tt.code == apierr.AuthServiceUnavailable {
				if e.Status() != 503 || !e.Code.Retryable() {
					t.Errorf("store failure should be a retryable 503, got %d retryable=%v", e.Status(), e.Code.Retryable())
				}
				if !errors.Is(err, tt.storeErr) {
					t.Error("store error not kept as the cause")
				}
				if strings.Contains(e.Message, tt.storeErr.Error()) {
					t.Errorf("message %q leaks the store error", e.Message)
				}
			}
		})
	}
}

// TestAuthenticateLooksUpByHash checks the store is asked for the key's SHA-256 hash, never
// the key itself.
func TestAuthenticateLooksUpByHash(t *testing.T) {
	key, hash := newKey(t, auth.Sandbox)
	store := &stubKeys{}
	a := &auth.Authenticator{Keys: store}
	_, err := a.Authenticate(context.Background(), request(map[string]string{"authorization": "Bearer " + key}))
	wantAPIErr(t, err, apierr.InvalidAPIKey)
	if len(store.calls) != 1 || store.calls[0] != hash {
		t.Errorf("store calls = %v, want [%s]", store.calls, hash)
	}
}

func TestKeyRecordActive(t *testing.T) {
	now := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	before, after := now.Add(-time.Nanosecond), now.Add(time.Nanosecond)
	tests := []struct {
		name string
		rec  auth.KeyRecord
		want bool
	}{
		{"plain", auth.KeyRecord{}, true},
		{"revoked", auth.KeyRecord{RevokedAt: &before}, false},
		{"revoked in the future still revoked", auth.KeyRecord{RevokedAt: &after}, false},
		{"expires later", auth.KeyRecord{ExpiresAt: &after}, true},
		{"expired", auth.KeyRecord{ExpiresAt: &before}, false},
		{"expires now", auth.KeyRecord{ExpiresAt: &now}, false},
	}
	for _, tt := range tests {
		if got := tt.rec.Active(now); got != tt.want {
			t.Errorf("%s: Active = %v, want %v", tt.name, got, tt.want)
		}
	}
}

// typo changes one character of the key's random part.
func typo(key string) string {
	i := len(key) - 10
	c := byte('a')
	if key[i] == 'a' {
		c = 'b'
	}
	return key[:i] + string(c) + key[i+1:]
}
