package auth

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"log/slog"
	"slices"
	"strings"
	"time"

	"github.com/takapay/payments/shared/foundation/apierr"
	"github.com/takapay/payments/shared/foundation/obs"
	"github.com/takapay/payments/shared/foundation/web"
)

// SessionCookie is the name of the dashboard session cookie (the spec's dashboardSession
// security scheme) where the dashboard's origin is plain http (make dev's localhost);
// HostSessionCookie is its name where the origin is https: the __Host- prefix makes the
// browser keep it only when Secure, Path=/ and without Domain, so no sibling subdomain can
// set or overwrite it (SessionCookieName decides from the configured origin).
const (
	SessionCookie     = "takapay_session"
	HostSessionCookie = HostPrefix + SessionCookie
	// HostPrefix is the cookie name prefix browsers keep only from a secure origin, host-only,
	// with Path=/.
	HostPrefix = "__Host-"
)

// HostCookies reports whether the dashboard at origin (its configured origin: DASHBOARD_ORIGINS'
// first, else PUBLIC_BASE_URL; never a request header) names its cookies with HostPrefix:
// when it is https. Browsers refuse a __Host- cookie without Secure, which plain-http
// localhost cannot keep for Go clients, so make dev keeps the plain names.
func HostCookies(origin string) bool {
	return len(origin) > len("https://") && strings.EqualFold(origin[:len("https://")], "https://")
}

// SessionCookieName is the session cookie's name for a dashboard whose cookies carry
// HostPrefix (host) or not.
func SessionCookieName(host bool) string {
	if host {
		return HostSessionCookie
	}
	return SessionCookie
}

// ErrTwoSessionCookies refuses a request that carries more than one session cookie (the same
// name twice, or both SessionCookie and HostSessionCookie): which one the browser meant cannot
// be told, and resolving by order would let a cookie planted by another site win.
var ErrTwoSessionCookies = errors.New("the request carries more than one session cookie")

// FindSessionCookie returns the value of the request's session cookie named name
// (SessionCookie or HostSessionCookie), from the payload 2.0 cookies list or, failing that, a
// raw Cookie header; ok false when absent. ErrTwoSessionCookies when the request carries more
// than one cookie named SessionCookie or HostSessionCookie, whichever name is configured.
func FindSessionCookie(r *web.Request, name string) (value string, ok bool, err error) {
	sources := r.Cookies
	if len(sources) == 0 {
		sources = []string{r.Header("Cookie")}
	}
	n := 0
	for _, src := range sources {
		// API Gateway splits the Cookie header on ";" but a caller-built event may not.
		for part := range strings.SplitSeq(src, ";") {
			k, v, found := strings.Cut(strings.TrimSpace(part), "=")
			k = strings.TrimSpace(k)
			if !found || (k != SessionCookie && k != HostSessionCookie) {
				continue
			}
			if n++; n > 1 {
				return "", false, ErrTwoSessionCookies
			}
			if k != name {
				continue
			}
			v = strings.TrimSpace(v)
			// RFC 6265 allows a double-quoted value.
			if len(v) >= 2 && v[0] == '"' && v[len(v)-1] == '"' {
				v = v[1 : len(v)-1]
			}
			value, ok = v, true
		}
	}
	return value, ok, nil
}

// sessionTokenBytes is the entropy of a session token; base64url without padding makes it
// sessionTokenChars characters.
const (
	sessionTokenBytes = 32
	sessionTokenChars = 43
)

// ErrMalformedSessionToken means the text cannot be one of our session tokens.
var ErrMalformedSessionToken = errors.New("malformed session token")

// NewSessionToken returns a fresh session token (32 random bytes, base64url without padding:
// 43 characters) and the hash under which it is stored. The token is shown once and never
// stored.
func NewSessionToken() (token, hash string, err error) {
	var b [sessionTokenBytes]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", "", err
	}
	token = base64.RawURLEncoding.EncodeToString(b[:])
	return token, HashSessionToken(token), nil
}

// ParseSessionToken checks a presented token's form (43 base64url characters that decode to
// exactly 32 bytes, canonically) and returns its storage hash.
func ParseSessionToken(token string) (string, error) {
	if len(token) != sessionTokenChars {
		return "", ErrMalformedSessionToken
	}
	b, err := base64.RawURLEncoding.Strict().DecodeString(token)
	if err != nil || len(b) != sessionTokenBytes {
		return "", ErrMalformedSessionToken
	}
	return HashSessionToken(token), nil
}

// HashSessionToken is the storage form of a session token: hex SHA-256 of its text. Tokens
// carry 256 random bits, so a fast hash is safe and lookup stays one GetItem.
func HashSessionToken(token string) string {
	sum := sha256.Sum256([]byte(token))
	return hex.EncodeToString(sum[:])
}

// Role is a dashboard user's role in one workspace.
type Role string

// The dashboard roles, most privileged first.
const (
	RoleOwner     Role = "owner"
	RoleAdmin     Role = "admin"
	RoleDeveloper Role = "developer"
	RoleViewer    Role = "viewer"
)

// AllRoles lists every role in a stable order (most privileged first).
var AllRoles = []Role{RoleOwner, RoleAdmin, RoleDeveloper, RoleViewer}

// ParseRole accepts exactly one of AllRoles.
func ParseRole(s string) (Role, bool) {
	if slices.Contains(AllRoles, Role(s)) {
		return Role(s), true
	}
	return "", false
}

// Scopes returns the scopes a role grants on the dashboard's workspace routes (a fresh
// slice; nil for an unknown role), decided by Can alone: ViewWorkspace reads documents and
// payment intents (a viewer); WriteDocuments also writes them (a developer, admin or owner).
// Payment create and verify stay bearer-only whatever the scopes: they authenticate with
// Authenticate, which never reads a session.
func (r Role) Scopes() []Scope {
	switch {
	case r.Can(ViewWorkspace) && r.Can(WriteDocuments):
		return []Scope{DocumentsRead, DocumentsWrite, PaymentsRead, PaymentsWrite}
	case r.Can(ViewWorkspace):
		return []Scope{DocumentsRead, PaymentsRead}
	}
	return nil
}

// SessionRecord is a stored dashboard session: everything but the token itself.
type SessionRecord struct {
	// Hash is the hex SHA-256 of the token (HashSessionToken).
	Hash      string
	UserID    string
	CreatedAt time.Time
	// ExpiresAt ends the session. For dashboard sign-in sessions (package account) it is the
	// idle deadline, moved forward by use up to AbsoluteExpiresAt; Active checks it alone.
	ExpiresAt time.Time
	RevokedAt *time.Time
	// AbsoluteExpiresAt is the end of a sign-in session's lifetime whatever its use (zero for
	// operator-made sessions, whose ExpiresAt never moves).
	AbsoluteExpiresAt time.Time
	// SeenAt is when ExpiresAt was last moved by use (zero when never).
	SeenAt time.Time
	// ProvedAt is when the session's user last proved who they are in it: the sign-in (with
	// the password or a passkey), or re-entering the password on a "confirm it's you" step
	// (zero when never: operator-made sessions). Adding a passkey needs a recent one.
	ProvedAt time.Time
}

// Active reports whether the session may be used at t: not revoked and t before ExpiresAt (a
// zero ExpiresAt is never active).
func (s *SessionRecord) Active(t time.Time) bool {
	return s.RevokedAt == nil && t.Before(s.ExpiresAt)
}

// MembershipRecord is a user's role in a workspace.
type MembershipRecord struct {
	UserID      string
	WorkspaceID string
	Role        Role
	CreatedAt   time.Time
}

// SessionStore finds sessions by hash and memberships by user and workspace. GetSession
// returns (nil, nil) when no session has that hash, and may return revoked or expired ones
// (the Authenticator checks); GetMembership returns (nil, nil) when the user is no member.
type SessionStore interface {
	GetSession(ctx context.Context, hash string) (*SessionRecord, error)
	GetMembership(ctx context.Context, userID, workspaceID string) (*MembershipRecord, error)
}

// Messages of AuthenticateWorkspace's errors. msgNoWorkspace answers a non-member session and
// a key of another workspace alike, so it never tells whether the workspace exists.
const (
	msgNoWorkspace    = "no such workspace"
	msgBadSession     = "invalid or expired session"
	msgNoCredentials  = "missing credentials: send Authorization: Bearer <key> or the dashboard session cookie"
	msgOriginRequired = "Origin header required"
	msgCrossOrigin    = "cross-origin request refused"
	msgTwoSessions    = "more than one session cookie: sign out, clear this site's cookies and sign in again"
)

// AuthenticateWorkspace authenticates a request to a workspace-scoped operation (the
// documents operations), accepting either security scheme:
//
//   - An Authorization header (any non-blank value) means a bearer key, checked exactly as
//     Authenticate does; a key of another workspace is 404 NOT_FOUND "no such workspace". A
//     session cookie sent alongside is ignored.
//   - Otherwise the takapay_session cookie (from the payload 2.0 cookies or a raw Cookie
//     header): a malformed, unknown, revoked or expired session is 401 INVALID_API_KEY, a store
//     failure 503 AUTH_SERVICE_UNAVAILABLE, no membership in workspaceID 404 NOT_FOUND (same
//     message as above). Methods other than GET, HEAD and OPTIONS then need an Origin header
//     equal to one of AllowedOrigins, else 403 SCOPE_OR_ENVIRONMENT_DENIED (cross-site request
//     forgery defence). The identity has both environments and the role's document scopes.
//     Its requests spend the workspace's dashboard budget (DashboardBudget).
//   - Neither is 401 INVALID_API_KEY.
//
// Either way 429 RATE_LIMITED comes as Authenticate describes.
//
// workspaceID is compared exactly: callers pass the canonical (lower-case) UUID.
func (a *Authenticator) AuthenticateWorkspace(ctx context.Context, r *web.Request, workspaceID string) (*Identity, error) {
	if strings.TrimSpace(r.Header("Authorization")) != "" {
		id, err := a.Authenticate(ctx, r)
		if err != nil {
			return nil, err
		}
		if subtle.ConstantTimeCompare([]byte(id.WorkspaceID), []byte(workspaceID)) != 1 {
			return nil, apierr.New(apierr.NotFound, msgNoWorkspace)
		}
		return id, nil
	}
	name := a.SessionCookieName
	if name == "" {
		name = SessionCookie
	}
	token, ok, err := FindSessionCookie(r, name)
	if err != nil {
		return nil, apierr.New(apierr.InvalidAPIKey, msgTwoSessions)
	}
	if !ok {
		return nil, apierr.New(apierr.InvalidAPIKey, msgNoCredentials)
	}
	return a.authenticateSession(ctx, r, token, workspaceID)
}

func (a *Authenticator) authenticateSession(ctx context.Context, r *web.Request, token, workspaceID string) (*Identity, error) {
	hash, err := ParseSessionToken(token)
	if err != nil {
		return nil, apierr.New(apierr.InvalidAPIKey, msgBadSession)
	}
	if err := a.checkClient(r); err != nil {
		return nil, err
	}
	if a.Sessions == nil {
		return nil, apierr.Wrap(apierr.AuthServiceUnavailable, errors.New("auth: no session store configured"),
			"the session store is unavailable; retry shortly")
	}
	sess, err := a.Sessions.GetSession(ctx, hash)
	if err != nil {
		return nil, apierr.Wrap(apierr.AuthServiceUnavailable, err, "the session store is unavailable; retry shortly")
	}
	if sess == nil || subtle.ConstantTimeCompare([]byte(sess.Hash), []byte(hash)) != 1 ||
		sess.UserID == "" || !sess.Active(a.now()) {
		return nil, a.failed(r, apierr.New(apierr.InvalidAPIKey, msgBadSession))
	}
	obs.Annotate(ctx, slog.String("user_id", sess.UserID))
	m, err := a.Sessions.GetMembership(ctx, sess.UserID, workspaceID)
	if err != nil {
		return nil, apierr.Wrap(apierr.AuthServiceUnavailable, err, "the session store is unavailable; retry shortly")
	}
	if m == nil || m.UserID != sess.UserID || m.WorkspaceID != workspaceID || m.Role.Scopes() == nil {
		return nil, apierr.New(apierr.NotFound, msgNoWorkspace)
	}
	obs.Annotate(ctx, slog.String("workspace_id", workspaceID), slog.String("role", string(m.Role)))
	if !safeMethod(r.Method) {
		origin := r.Header("Origin")
		if origin == "" {
			return nil, apierr.New(apierr.ScopeOrEnvironmentDenied, msgOriginRequired)
		}
		if !slices.Contains(a.AllowedOrigins, origin) {
			return nil, apierr.New(apierr.ScopeOrEnvironmentDenied, msgCrossOrigin)
		}
	}
	if err := a.limit(ctx, workspaceID, DashboardBudget); err != nil {
		return nil, err
	}
	return &Identity{
		Kind:         KindSession,
		WorkspaceID:  workspaceID,
		Environments: []Environment{Sandbox, Live},
		Scopes:       m.Role.Scopes(),
		CredentialID: sess.UserID,
		UserID:       sess.UserID,
		Role:         m.Role,
		ViaCookie:    true,
	}, nil
}

// safeMethod reports whether a method cannot change state (no Origin check needed).
func safeMethod(m string) bool {
	switch m {
	case "GET", "HEAD", "OPTIONS":
		return true
	}
	return false
}

// RequiredEnvironment reads the environment query parameter the workspace routes require:
// 400 INVALID_ENVIRONMENT when it is missing or not sandbox or live.
func RequiredEnvironment(r *web.Request) (Environment, error) {
	v, ok := r.Query["environment"]
	if !ok {
		return "", apierr.New(apierr.InvalidEnvironment, "the environment query parameter is required: sandbox or live")
	}
	env, ok := ParseEnvironment(v)
	if !ok {
		return "", apierr.New(apierr.InvalidEnvironment, "environment must be sandbox or live")
	}
	return env, nil
}
