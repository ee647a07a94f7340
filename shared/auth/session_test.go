package auth_test

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/takapay/payments/shared/auth"
	"github.com/takapay/payments/shared/foundation/apierr"
	"github.com/takapay/payments/shared/foundation/obs"
	"github.com/takapay/payments/shared/foundation/web"
)

var sessionTokenRE = regexp.MustCompile(`^[A-Za-z0-9_-]{43}$`)

func newSessionToken(t testing.TB) (string, string) {
	t.Helper()
	token, hash, err := auth.NewSessionToken()
	if err != nil {
		t.Fatal(err)
	}
	return token, hash
}

func TestNewSessionToken(t *testing.T) {
	seen := map[string]bool{}
	for range 200 {
		token, hash := newSessionToken(t)
		if !sessionTokenRE.MatchString(token) {
			t.Fatalf("token %q is not 43 base64url characters", token)
		}
		b, err := base64.RawURLEncoding.DecodeString(token)
		if err != nil || len(b) != 32 {
			t.Fatalf("token %q decodes to %d bytes (%v), want 32", token, len(b), err)
		}
		sum := sha256.Sum256([]byte(token))
		if hash != hex.EncodeToString(sum[:]) || hash != auth.HashSessionToken(token) {
			t.Fatalf("hash %s is not the hex SHA-256 of the token", hash)
		}
		parsed, err := auth.ParseSessionToken(token)
		if err != nil || parsed != hash {
			t.Fatalf("ParseSessionToken(new token) = %s, %v", parsed, err)
		}
		if seen[token] {
			t.Fatalf("token %q issued twice", token)
		}
		seen[token] = true
	}
}

func TestParseSessionTokenRejects(t *testing.T) {
	token, _ := newSessionToken(t)
	// The last of 43 characters carries 4 bits of data and 2 unused bits; a non-zero unused
	// bit is a different spelling of the same bytes, refused so each token has one form.
	last := strings.IndexByte("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_", token[42])
	nonCanonical := token[:42] + string("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"[last|1])
	for _, bad := range []string{
		"", "x", token[:42], token + "A", token + "=", " " + token[1:],
		strings.Repeat("+", 43), strings.Repeat("/", 43), token[:41] + "==",
		nonCanonical,
		apiKey(t), // an API key is never a session token
	} {
		if h, err := auth.ParseSessionToken(bad); !errors.Is(err, auth.ErrMalformedSessionToken) || h != "" {
			t.Errorf("ParseSessionToken(%q) = %q, %v; want ErrMalformedSessionToken", bad, h, err)
		}
	}
}

func TestRoles(t *testing.T) {
	for _, tt := range []struct {
		text   string
		scopes []auth.Scope
	}{
		{"owner", writer},
		{"admin", writer},
		{"developer", writer},
		{"viewer", viewer},
	} {
		r, ok := auth.ParseRole(tt.text)
		if !ok || string(r) != tt.text {
			t.Errorf("ParseRole(%q) = %q, %v", tt.text, r, ok)
		}
		if got := r.Scopes(); !slices.Equal(got, tt.scopes) {
			t.Errorf("%s scopes = %v, want %v", r, got, tt.scopes)
		}
	}
	if len(auth.AllRoles) != 4 {
		t.Errorf("AllRoles = %v", auth.AllRoles)
	}
	for _, bad := range []string{"", "Owner", "OWNER", "root", "viewer ", "payments:write"} {
		if r, ok := auth.ParseRole(bad); ok {
			t.Errorf("ParseRole(%q) = %q, true", bad, r)
		}
		if s := auth.Role(bad).Scopes(); s != nil {
			t.Errorf("Role(%q).Scopes() = %v, want nil", bad, s)
		}
	}
	// Scopes returns a fresh slice each time: a caller cannot widen the role for everyone.
	s := auth.RoleViewer.Scopes()
	s[0] = auth.PaymentsWrite
	if got := auth.RoleViewer.Scopes(); got[0] != auth.DocumentsRead {
		t.Error("Scopes shares its slice between calls")
	}
}

func TestSessionRecordActive(t *testing.T) {
	now := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	before, after := now.Add(-time.Nanosecond), now.Add(time.Nanosecond)
	for _, tt := range []struct {
		name string
		rec  auth.SessionRecord
		want bool
	}{
		{"expires later", auth.SessionRecord{ExpiresAt: after}, true},
		{"expired", auth.SessionRecord{ExpiresAt: before}, false},
		{"expires now", auth.SessionRecord{ExpiresAt: now}, false},
		{"no expiry is never active", auth.SessionRecord{}, false},
		{"revoked", auth.SessionRecord{ExpiresAt: after, RevokedAt: &before}, false},
		{"revoked in the future still revoked", auth.SessionRecord{ExpiresAt: after, RevokedAt: &after}, false},
	} {
		if got := tt.rec.Active(now); got != tt.want {
			t.Errorf("%s: Active = %v, want %v", tt.name, got, tt.want)
		}
	}
}

// stubSessions is an in-memory SessionStore (unit tests of the auth logic only; the DynamoDB
// implementation is tested against dynalite) that records its calls.
type stubSessions struct {
	sessions     map[string]*auth.SessionRecord
	members      map[string]*auth.MembershipRecord // "user|workspace"
	sessErr      error
	memberErr    error
	sessionCalls []string
	memberCalls  []string
}

func (s *stubSessions) GetSession(_ context.Context, hash string) (*auth.SessionRecord, error) {
	s.sessionCalls = append(s.sessionCalls, hash)
	if s.sessErr != nil {
		return nil, s.sessErr
	}
	return s.sessions[hash], nil
}

func (s *stubSessions) GetMembership(_ context.Context, userID, workspaceID string) (*auth.MembershipRecord, error) {
	s.memberCalls = append(s.memberCalls, userID+"|"+workspaceID)
	if s.memberErr != nil {
		return nil, s.memberErr
	}
	return s.members[userID+"|"+workspaceID], nil
}

// req is a test request: method, headers and payload 2.0 cookies.
func req(method string, headers map[string]string, cookies ...string) *web.Request {
	return &web.Request{Method: method, Headers: headers, Cookies: cookies}
}

const (
	wsA       = "0195f3a4-0000-7000-8000-00000000000a"
	wsB       = "0195f3a4-0000-7000-8000-00000000000b"
	userDev   = "0195f3a4-1111-7000-8000-000000000001"
	userView  = "0195f3a4-1111-7000-8000-000000000002"
	userOwner = "0195f3a4-1111-7000-8000-000000000003"
	userAdmin = "0195f3a4-1111-7000-8000-000000000004"
	userNone  = "0195f3a4-1111-7000-8000-000000000005"
	userOdd   = "0195f3a4-1111-7000-8000-000000000006"
	dashboard = "https://dashboard.example.com.bd"
)

type sessionFixture struct {
	now   time.Time
	store *stubSessions
	keys  *stubKeys
	// tokens by name: dev, viewer, owner, admin, nomember, oddrole, expired, expiring-now,
	// revoked, wronghash, unknown.
	tokens map[string]string
	keyA   string // a sandbox key of wsA
	keyB   string // a sandbox key of wsB
}

func newSessionFixture(t *testing.T) *sessionFixture {
	t.Helper()
	now := time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)
	f := &sessionFixture{
		now:    now,
		store:  &stubSessions{sessions: map[string]*auth.SessionRecord{}, members: map[string]*auth.MembershipRecord{}},
		keys:   &stubKeys{recs: map[string]*auth.KeyRecord{}},
		tokens: map[string]string{},
	}
	past, future := now.Add(-time.Minute), now.Add(12*time.Hour)
	add := func(name, user string, mod func(*auth.SessionRecord)) {
		token, hash := newSessionToken(t)
		rec := &auth.SessionRecord{Hash: hash, UserID: user, CreatedAt: now.Add(-time.Hour), ExpiresAt: future}
		if mod != nil {
			mod(rec)
		}
		f.tokens[name] = token
		if name != "unknown" {
			f.store.sessions[hash] = rec
		}
	}
	add("dev", userDev, nil)
	add("viewer", userView, nil)
	add("owner", userOwner, nil)
	add("admin", userAdmin, nil)
	add("nomember", userNone, nil)
	add("oddrole", userOdd, nil)
	add("expired", userDev, func(r *auth.SessionRecord) { r.ExpiresAt = past })
	add("expiring-now", userDev, func(r *auth.SessionRecord) { r.ExpiresAt = now })
	add("revoked", userDev, func(r *auth.SessionRecord) { r.RevokedAt = &past })
	add("wronghash", userDev, func(r *auth.SessionRecord) { r.Hash = strings.Repeat("0", 64) })
	add("nouser", "", nil)
	add("unknown", userDev, nil)
	member := func(user, ws string, role auth.Role) {
		f.store.members[user+"|"+ws] = &auth.MembershipRecord{UserID: user, WorkspaceID: ws, Role: role, CreatedAt: now}
	}
	member(userDev, wsA, auth.RoleDeveloper)
	member(userView, wsA, auth.RoleViewer)
	member(userOwner, wsA, auth.RoleOwner)
	member(userAdmin, wsA, auth.RoleAdmin)
	member(userNone, wsB, auth.RoleOwner) // a member elsewhere only
	member(userOdd, wsA, auth.Role("superuser"))

	keyA, hashA := newKey(t, auth.Sandbox)
	keyB, hashB := newKey(t, auth.Sandbox)
	for _, k := range []struct{ hash, ws, id string }{{hashA, wsA, "key_AAAAAAAAAAAAAAAAAAAA"}, {hashB, wsB, "key_BBBBBBBBBBBBBBBBBBBB"}} {
		f.keys.recs[k.hash] = &auth.KeyRecord{Hash: k.hash, KeyID: k.id, WorkspaceID: k.ws, Environment: auth.Sandbox,
			Scopes: []auth.Scope{auth.DocumentsRead, auth.DocumentsWrite}, CreatedAt: now.Add(-time.Hour)}
	}
	f.keyA, f.keyB = keyA, keyB
	return f
}

func (f *sessionFixture) authenticator(origins ...string) *auth.Authenticator {
	return &auth.Authenticator{Keys: f.keys, Sessions: f.store, AllowedOrigins: origins, Now: func() time.Time { return f.now }}
}

// The scopes a dashboard role grants: a viewer reads documents and payment intents; the other
// roles also write them.
var (
	viewer = []auth.Scope{auth.DocumentsRead, auth.PaymentsRead}
	writer = []auth.Scope{auth.DocumentsRead, auth.DocumentsWrite, auth.PaymentsRead, auth.PaymentsWrite}
)

func cookie(token string) string { return auth.SessionCookie + "=" + token }

func TestAuthenticateWorkspace(t *testing.T) {
	f := newSessionFixture(t)
	tok := f.tokens
	rw := []auth.Scope{auth.DocumentsRead, auth.DocumentsWrite}
	sessionID := func(user string, role auth.Role, scopes []auth.Scope) *auth.Identity {
		return &auth.Identity{Kind: auth.KindSession, WorkspaceID: wsA, Environments: []auth.Environment{auth.Sandbox, auth.Live},
			Scopes: scopes, CredentialID: user, UserID: user, Role: role, ViaCookie: true}
	}
	keyIDA := &auth.Identity{Kind: auth.KindAPIKey, WorkspaceID: wsA, Environments: []auth.Environment{auth.Sandbox},
		Scopes: rw, CredentialID: "key_AAAAAAAAAAAAAAAAAAAA"}
	origin := func(o string) map[string]string { return map[string]string{"origin": o} }

	tests := []struct {
		name        string
		r           *web.Request
		origins     []string
		want        *auth.Identity
		code        apierr.Code
		msg         string
		keyCalls    int
		sessCalls   int
		memberCalls int
	}{
		// Session cookie, safe methods: no Origin needed.
		{name: "GET developer cookie list", r: req("GET", nil, cookie(tok["dev"])),
			want: sessionID(userDev, auth.RoleDeveloper, writer), sessCalls: 1, memberCalls: 1},
		{name: "GET cookie among others", r: req("GET", nil, "theme=dark", cookie(tok["dev"]), "lang=bn"),
			want: sessionID(userDev, auth.RoleDeveloper, writer), sessCalls: 1, memberCalls: 1},
		{name: "GET cookie in a joined list entry", r: req("GET", nil, "theme=dark; "+cookie(tok["dev"])),
			want: sessionID(userDev, auth.RoleDeveloper, writer), sessCalls: 1, memberCalls: 1},
		{name: "GET raw cookie header", r: req("GET", map[string]string{"cookie": "theme=dark; " + cookie(tok["dev"]) + "; lang=bn"}),
			want: sessionID(userDev, auth.RoleDeveloper, writer), sessCalls: 1, memberCalls: 1},
		{name: "GET raw Cookie header name case", r: req("GET", map[string]string{"Cookie": cookie(tok["dev"])}),
			want: sessionID(userDev, auth.RoleDeveloper, writer), sessCalls: 1, memberCalls: 1},
		{name: "GET quoted cookie value", r: req("GET", nil, auth.SessionCookie+`="`+tok["dev"]+`"`),
			want: sessionID(userDev, auth.RoleDeveloper, writer), sessCalls: 1, memberCalls: 1},
		// Two session cookies are refused, never resolved by order (issue 30): nothing is read.
		{name: "GET two session cookies", r: req("GET", nil, cookie(tok["dev"]), cookie(tok["viewer"])),
			code: apierr.InvalidAPIKey, msg: "more than one session cookie"},
		{name: "GET the same session cookie twice", r: req("GET", nil, cookie(tok["dev"]), cookie(tok["dev"])),
			code: apierr.InvalidAPIKey, msg: "more than one session cookie"},
		{name: "GET two session cookies in one header", r: req("GET", map[string]string{"cookie": cookie(tok["dev"]) + "; " + cookie(tok["viewer"])}),
			code: apierr.InvalidAPIKey, msg: "more than one session cookie"},
		{name: "GET the plain and the __Host- session cookies", r: req("GET", nil, cookie(tok["dev"]), auth.HostSessionCookie+"="+tok["viewer"]),
			code: apierr.InvalidAPIKey, msg: "more than one session cookie"},
		// The plain-http name is read; a __Host- one alone is not this dashboard's.
		{name: "GET a __Host- cookie where the origin is http", r: req("GET", nil, auth.HostSessionCookie+"="+tok["dev"]),
			code: apierr.InvalidAPIKey, msg: "missing credentials"},
		{name: "GET with a foreign Origin", r: req("GET", origin("https://evil.example"), cookie(tok["dev"])),
			want: sessionID(userDev, auth.RoleDeveloper, writer), sessCalls: 1, memberCalls: 1},
		{name: "HEAD without Origin", r: req("HEAD", nil, cookie(tok["dev"])),
			want: sessionID(userDev, auth.RoleDeveloper, writer), sessCalls: 1, memberCalls: 1},
		{name: "OPTIONS without Origin", r: req("OPTIONS", nil, cookie(tok["dev"])),
			want: sessionID(userDev, auth.RoleDeveloper, writer), sessCalls: 1, memberCalls: 1},
		{name: "viewer gets documents:read only", r: req("GET", nil, cookie(tok["viewer"])),
			want: sessionID(userView, auth.RoleViewer, viewer), sessCalls: 1, memberCalls: 1},
		{name: "owner", r: req("GET", nil, cookie(tok["owner"])),
			want: sessionID(userOwner, auth.RoleOwner, writer), sessCalls: 1, memberCalls: 1},
		{name: "admin", r: req("GET", nil, cookie(tok["admin"])),
			want: sessionID(userAdmin, auth.RoleAdmin, writer), sessCalls: 1, memberCalls: 1},

		// Session cookie, unsafe methods: Origin must be allowed.
		{name: "POST allowed Origin", r: req("POST", origin(dashboard), cookie(tok["dev"])), origins: []string{"http://127.0.0.1:3000", dashboard},
			want: sessionID(userDev, auth.RoleDeveloper, writer), sessCalls: 1, memberCalls: 1},
		{name: "PATCH allowed Origin", r: req("PATCH", origin(dashboard), cookie(tok["dev"])), origins: []string{dashboard},
			want: sessionID(userDev, auth.RoleDeveloper, writer), sessCalls: 1, memberCalls: 1},
		{name: "DELETE allowed Origin", r: req("DELETE", origin(dashboard), cookie(tok["dev"])), origins: []string{dashboard},
			want: sessionID(userDev, auth.RoleDeveloper, writer), sessCalls: 1, memberCalls: 1},
		{name: "viewer POST allowed Origin authenticates (Authorize refuses the write)", r: req("POST", origin(dashboard), cookie(tok["viewer"])),
			origins: []string{dashboard}, want: sessionID(userView, auth.RoleViewer, viewer), sessCalls: 1, memberCalls: 1},
		{name: "POST without Origin", r: req("POST", nil, cookie(tok["dev"])), origins: []string{dashboard},
			code: apierr.ScopeOrEnvironmentDenied, msg: "Origin header required", sessCalls: 1, memberCalls: 1},
		{name: "PATCH without Origin", r: req("PATCH", nil, cookie(tok["dev"])), origins: []string{dashboard},
			code: apierr.ScopeOrEnvironmentDenied, msg: "Origin header required", sessCalls: 1, memberCalls: 1},
		{name: "POST empty Origin", r: req("POST", origin(""), cookie(tok["dev"])), origins: []string{dashboard},
			code: apierr.ScopeOrEnvironmentDenied, msg: "Origin header required", sessCalls: 1, memberCalls: 1},
		{name: "POST other Origin", r: req("POST", origin("https://evil.example"), cookie(tok["dev"])), origins: []string{dashboard},
			code: apierr.ScopeOrEnvironmentDenied, msg: "cross-origin request refused", sessCalls: 1, memberCalls: 1},
		{name: "PATCH other Origin", r: req("PATCH", origin("https://evil.example"), cookie(tok["dev"])), origins: []string{dashboard},
			code: apierr.ScopeOrEnvironmentDenied, msg: "cross-origin request refused", sessCalls: 1, memberCalls: 1},
		{name: "POST Origin null", r: req("POST", origin("null"), cookie(tok["dev"])), origins: []string{dashboard},
			code: apierr.ScopeOrEnvironmentDenied, msg: "cross-origin", sessCalls: 1, memberCalls: 1},
		{name: "POST Origin with trailing slash", r: req("POST", origin(dashboard+"/"), cookie(tok["dev"])), origins: []string{dashboard},
			code: apierr.ScopeOrEnvironmentDenied, msg: "cross-origin", sessCalls: 1, memberCalls: 1},
		{name: "POST Origin of a sub-domain", r: req("POST", origin("https://x.dashboard.example.com.bd"), cookie(tok["dev"])), origins: []string{dashboard},
			code: apierr.ScopeOrEnvironmentDenied, msg: "cross-origin", sessCalls: 1, memberCalls: 1},
		{name: "POST Origin over http", r: req("POST", origin("http://dashboard.example.com.bd"), cookie(tok["dev"])), origins: []string{dashboard},
			code: apierr.ScopeOrEnvironmentDenied, msg: "cross-origin", sessCalls: 1, memberCalls: 1},
		{name: "POST with no allowed origins configured", r: req("POST", origin(dashboard), cookie(tok["owner"])),
			code: apierr.ScopeOrEnvironmentDenied, msg: "cross-origin", sessCalls: 1, memberCalls: 1},
		{name: "lower-case method is unsafe", r: req("get", nil, cookie(tok["dev"])), origins: []string{dashboard},
			code: apierr.ScopeOrEnvironmentDenied, msg: "Origin", sessCalls: 1, memberCalls: 1},

		// Bad sessions.
		{name: "malformed cookie", r: req("GET", nil, cookie("abc")), code: apierr.InvalidAPIKey, msg: "invalid or expired session"},
		{name: "empty cookie", r: req("GET", nil, cookie("")), code: apierr.InvalidAPIKey, msg: "invalid or expired session"},
		{name: "API key as cookie", r: req("GET", nil, cookie(f.keyA)), code: apierr.InvalidAPIKey, msg: "invalid or expired session"},
		{name: "unknown session", r: req("GET", nil, cookie(tok["unknown"])), code: apierr.InvalidAPIKey, msg: "invalid or expired session", sessCalls: 1},
		{name: "expired session", r: req("GET", nil, cookie(tok["expired"])), code: apierr.InvalidAPIKey, msg: "invalid or expired session", sessCalls: 1},
		{name: "session expiring now", r: req("GET", nil, cookie(tok["expiring-now"])), code: apierr.InvalidAPIKey, msg: "invalid or expired session", sessCalls: 1},
		{name: "revoked session", r: req("GET", nil, cookie(tok["revoked"])), code: apierr.InvalidAPIKey, msg: "invalid or expired session", sessCalls: 1},
		{name: "stored hash differs", r: req("GET", nil, cookie(tok["wronghash"])), code: apierr.InvalidAPIKey, msg: "invalid or expired session", sessCalls: 1},
		{name: "session without a user", r: req("GET", nil, cookie(tok["nouser"])), code: apierr.InvalidAPIKey, msg: "invalid or expired session", sessCalls: 1},
		{name: "expired session POST with allowed Origin", r: req("POST", origin(dashboard), cookie(tok["expired"])), origins: []string{dashboard},
			code: apierr.InvalidAPIKey, msg: "invalid or expired session", sessCalls: 1},

		// Membership.
		{name: "member of another workspace only", r: req("GET", nil, cookie(tok["nomember"])), code: apierr.NotFound, msg: "no such workspace", sessCalls: 1, memberCalls: 1},
		{name: "non-member POST with allowed Origin", r: req("POST", origin(dashboard), cookie(tok["nomember"])), origins: []string{dashboard},
			code: apierr.NotFound, msg: "no such workspace", sessCalls: 1, memberCalls: 1},
		{name: "unknown stored role", r: req("GET", nil, cookie(tok["oddrole"])), code: apierr.NotFound, msg: "no such workspace", sessCalls: 1, memberCalls: 1},

		// No credentials.
		{name: "nothing", r: req("GET", nil), code: apierr.InvalidAPIKey, msg: "missing credentials"},
		{name: "other cookies only", r: req("GET", map[string]string{"cookie": "theme=dark"}, "lang=bn"), code: apierr.InvalidAPIKey, msg: "missing credentials"},
		{name: "cookie name is a prefix", r: req("GET", nil, auth.SessionCookie+"x="+tok["dev"]), code: apierr.InvalidAPIKey, msg: "missing credentials"},
		{name: "blank Authorization, no cookie", r: req("GET", map[string]string{"authorization": "  "}), code: apierr.InvalidAPIKey, msg: "missing credentials"},

		// Bearer keys (checked as Authenticate does), and bearer wins over a cookie.
		{name: "bearer of the workspace", r: req("GET", map[string]string{"authorization": "Bearer " + f.keyA}), want: keyIDA, keyCalls: 1},
		{name: "bearer POST needs no Origin", r: req("POST", map[string]string{"authorization": "Bearer " + f.keyA}), want: keyIDA, keyCalls: 1},
		{name: "bearer of another workspace", r: req("GET", map[string]string{"authorization": "Bearer " + f.keyB}),
			code: apierr.NotFound, msg: "no such workspace", keyCalls: 1},
		{name: "bad bearer", r: req("GET", map[string]string{"authorization": "Bearer sk_sandbox_nope"}), code: apierr.InvalidAPIKey, msg: "invalid API key"},
		{name: "basic scheme", r: req("GET", map[string]string{"authorization": "Basic x"}), code: apierr.InvalidAPIKey, msg: "Bearer"},
		{name: "bearer wins over a bad cookie", r: req("GET", map[string]string{"authorization": "Bearer " + f.keyA}, cookie(tok["revoked"])),
			want: keyIDA, keyCalls: 1},
		{name: "bearer wins over a good cookie", r: req("POST", map[string]string{"authorization": "Bearer " + f.keyA, "origin": "https://evil.example"}, cookie(tok["owner"])),
			want: keyIDA, keyCalls: 1},
		{name: "bad bearer does not fall back to a good cookie", r: req("GET", map[string]string{"authorization": "Bearer sk_sandbox_nope"}, cookie(tok["owner"])),
			code: apierr.InvalidAPIKey, msg: "invalid API key"},
		{name: "other workspace's bearer does not fall back to a good cookie", r: req("GET", map[string]string{"authorization": "Bearer " + f.keyB}, cookie(tok["owner"])),
			code: apierr.NotFound, msg: "no such workspace", keyCalls: 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f.store.sessionCalls, f.store.memberCalls, f.keys.calls = nil, nil, nil
			id, err := f.authenticator(tt.origins...).AuthenticateWorkspace(context.Background(), tt.r, wsA)
			if len(f.keys.calls) != tt.keyCalls || len(f.store.sessionCalls) != tt.sessCalls || len(f.store.memberCalls) != tt.memberCalls {
				t.Errorf("store calls: keys %d sessions %d memberships %d; want %d %d %d",
					len(f.keys.calls), len(f.store.sessionCalls), len(f.store.memberCalls), tt.keyCalls, tt.sessCalls, tt.memberCalls)
			}
			for _, c := range f.store.memberCalls {
				if !strings.HasSuffix(c, "|"+wsA) {
					t.Errorf("membership looked up as %s, want the requested workspace", c)
				}
			}
			if tt.code == "" {
				if err != nil {
					t.Fatalf("AuthenticateWorkspace: %v", err)
				}
				if !reflect.DeepEqual(id, tt.want) {
					t.Errorf("identity = %+v\nwant       %+v", id, tt.want)
				}
				return
			}
			if id != nil {
				t.Errorf("identity %+v returned with an error", id)
			}
			e := wantAPIErr(t, err, tt.code)
			if !strings.Contains(e.Message, tt.msg) {
				t.Errorf("message %q does not contain %q", e.Message, tt.msg)
			}
			for _, secret := range tok {
				if strings.Contains(e.Message, secret) || strings.Contains(e.Error(), secret) {
					t.Errorf("error %q echoes a session token", e.Error())
				}
			}
		})
	}
}

// TestAuthenticateWorkspaceLooksUpByHash checks the session store is asked for the token's
// SHA-256 hash, never the token.
func TestAuthenticateWorkspaceLooksUpByHash(t *testing.T) {
	f := newSessionFixture(t)
	token := f.tokens["dev"]
	if _, err := f.authenticator().AuthenticateWorkspace(context.Background(), req("GET", nil, cookie(token)), wsA); err != nil {
		t.Fatal(err)
	}
	if want := []string{auth.HashSessionToken(token)}; !slices.Equal(f.store.sessionCalls, want) {
		t.Errorf("session lookups = %v, want %v", f.store.sessionCalls, want)
	}
	if want := []string{userDev + "|" + wsA}; !slices.Equal(f.store.memberCalls, want) {
		t.Errorf("membership lookups = %v, want %v", f.store.memberCalls, want)
	}
}

// TestAuthenticateWorkspaceNotFoundIsUniform checks a key of another workspace and a session
// without membership get the same answer, whether or not the workspace exists.
func TestAuthenticateWorkspaceNotFoundIsUniform(t *testing.T) {
	f := newSessionFixture(t)
	a := f.authenticator()
	ctx := context.Background()
	var got []string
	for _, ws := range []string{wsA, "0195f3a4-9999-7000-8000-000000000000"} {
		for _, r := range []*web.Request{
			req("GET", map[string]string{"authorization": "Bearer " + f.keyB}),
			req("GET", nil, cookie(f.tokens["nomember"])),
		} {
			_, err := a.AuthenticateWorkspace(ctx, r, ws)
			e := wantAPIErr(t, err, apierr.NotFound)
			if e.Status() != 404 {
				t.Errorf("status %d", e.Status())
			}
			got = append(got, e.Message)
		}
	}
	for _, m := range got {
		if m != got[0] {
			t.Errorf("404 messages differ: %q", got)
			break
		}
	}
}

func TestAuthenticateWorkspaceStoreFailures(t *testing.T) {
	f := newSessionFixture(t)
	ctx := context.Background()
	boom := errors.New("ProvisionedThroughputExceededException: table busy")
	for _, tt := range []struct {
		name           string
		sessErr, mErr  error
		sessions       bool // keep the Sessions store (false: nil store)
		wantMemberCall int
	}{
		{name: "session lookup fails", sessErr: boom, sessions: true},
		{name: "membership lookup fails", mErr: boom, sessions: true, wantMemberCall: 1},
		{name: "no session store configured"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			f.store.sessErr, f.store.memberErr, f.store.memberCalls = tt.sessErr, tt.mErr, nil
			a := f.authenticator(dashboard)
			if !tt.sessions {
				a.Sessions = nil
			}
			id, err := a.AuthenticateWorkspace(ctx, req("POST", map[string]string{"origin": dashboard}, cookie(f.tokens["dev"])), wsA)
			if id != nil {
				t.Errorf("identity %+v with a store failure", id)
			}
			e := wantAPIErr(t, err, apierr.AuthServiceUnavailable)
			if e.Status() != 503 || !e.Code.Retryable() {
				t.Errorf("status %d retryable %v", e.Status(), e.Code.Retryable())
			}
			if cause := errors.Join(tt.sessErr, tt.mErr); cause != nil {
				if !errors.Is(err, boom) {
					t.Error("store error not kept as the cause")
				}
				if strings.Contains(e.Message, "Provisioned") {
					t.Errorf("message %q leaks the store error", e.Message)
				}
			}
			if len(f.store.memberCalls) != tt.wantMemberCall {
				t.Errorf("membership calls = %d, want %d", len(f.store.memberCalls), tt.wantMemberCall)
			}
		})
	}
}

// TestAuthenticateWorkspaceLog checks what the request log line gets: workspace and user (or
// key) ids, never the token or its hash.
func TestAuthenticateWorkspaceLog(t *testing.T) {
	f := newSessionFixture(t)
	token := f.tokens["viewer"]
	attrs := func(r *web.Request) map[string]string {
		ctx, stats := obs.WithStats(context.Background())
		_, _ = f.authenticator().AuthenticateWorkspace(ctx, r, wsA)
		m := map[string]string{}
		for _, a := range stats.Attrs() {
			v := a.Value.String()
			if strings.Contains(v, token) || strings.Contains(v, auth.HashSessionToken(token)) || strings.Contains(v, f.keyA) {
				t.Errorf("log attribute %s = %q holds a credential", a.Key, v)
			}
			m[a.Key] = v
		}
		return m
	}
	m := attrs(req("GET", nil, cookie(token)))
	if m["workspace_id"] != wsA || m["user_id"] != userView || m["role"] != "viewer" {
		t.Errorf("session log attributes = %v", m)
	}
	m = attrs(req("GET", nil, cookie(f.tokens["nomember"])))
	if m["user_id"] != userNone || m["workspace_id"] != "" {
		t.Errorf("non-member log attributes = %v (want the user, no workspace)", m)
	}
	m = attrs(req("GET", map[string]string{"authorization": "Bearer " + f.keyA}))
	if m["workspace_id"] != wsA || m["key_id"] != "key_AAAAAAAAAAAAAAAAAAAA" || m["user_id"] != "" {
		t.Errorf("bearer log attributes = %v", m)
	}
}

// TestSessionIdentityAuthorize checks what a session identity may do: documents and payment
// intents in both environments per role (viewers read, the other roles also write). Payment
// create and verify stay bearer-only: they never read a session (package payment's tests).
func TestSessionIdentityAuthorize(t *testing.T) {
	f := newSessionFixture(t)
	ctx := context.Background()
	for _, tt := range []struct {
		token string
		write bool
	}{{"viewer", false}, {"dev", true}, {"admin", true}, {"owner", true}} {
		id, err := f.authenticator().AuthenticateWorkspace(ctx, req("GET", nil, cookie(f.tokens[tt.token])), wsA)
		if err != nil {
			t.Fatal(err)
		}
		for _, env := range []auth.Environment{auth.Sandbox, auth.Live} {
			if err := id.Authorize(auth.DocumentsRead, env); err != nil {
				t.Errorf("%s: documents:read in %s: %v", tt.token, env, err)
			}
			if err := id.Authorize(auth.DocumentsWrite, env); (err == nil) != tt.write {
				t.Errorf("%s: documents:write in %s = %v, want allowed %v", tt.token, env, err, tt.write)
			}
			if err := id.Authorize(auth.PaymentsRead, env); err != nil {
				t.Errorf("%s: payments:read in %s: %v", tt.token, env, err)
			}
			if err := id.Authorize(auth.PaymentsWrite, env); (err == nil) != tt.write {
				t.Errorf("%s: payments:write in %s = %v, want allowed %v", tt.token, env, err, tt.write)
			}
		}
	}
}

func apiKey(t *testing.T) string {
	t.Helper()
	k, _, err := auth.NewKey(auth.Sandbox)
	if err != nil {
		t.Fatal(err)
	}
	return k
}

// Where the dashboard's origin is https, the session cookie is __Host-takapay_session: it is
// read, and the plain name alone is not (a sibling subdomain could have set it).
func TestHostSessionCookie(t *testing.T) {
	if !auth.HostCookies("https://dash.example.com.bd") || auth.HostCookies("http://localhost:3000") || auth.HostCookies("") {
		t.Fatal("HostCookies: https only")
	}
	if auth.SessionCookieName(true) != "__Host-takapay_session" || auth.SessionCookieName(false) != "takapay_session" {
		t.Fatal("SessionCookieName")
	}
	f := newSessionFixture(t)
	a := f.authenticator()
	a.SessionCookieName = auth.HostSessionCookie
	id, err := a.AuthenticateWorkspace(context.Background(), req("GET", nil, auth.HostSessionCookie+"="+f.tokens["dev"]), wsA)
	if err != nil || id.UserID != userDev {
		t.Fatalf("the __Host- cookie: %+v, %v", id, err)
	}
	for name, r := range map[string]*web.Request{
		"plain name alone": req("GET", nil, cookie(f.tokens["dev"])),
		"both names":       req("GET", nil, auth.HostSessionCookie+"="+f.tokens["dev"], cookie(f.tokens["viewer"])),
	} {
		var ae *apierr.Error
		if _, err := a.AuthenticateWorkspace(context.Background(), r, wsA); !errors.As(err, &ae) || ae.Code != apierr.InvalidAPIKey {
			t.Errorf("%s: %v, want 401 INVALID_API_KEY", name, err)
		}
	}
}
