// Package auth authenticates callers and authorises them per scope and environment. An
// Identity is what every handler sees, whatever credential produced it: a merchant API key
// (Authenticate, the only scheme of the payments operations) or, for workspace-scoped
// operations, either a key or a dashboard session cookie (AuthenticateWorkspace).
package auth

import (
	"context"
	"crypto/subtle"
	"log/slog"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/takapay/payments/shared/foundation/apierr"
	"github.com/takapay/payments/shared/foundation/obs"
	"github.com/takapay/payments/shared/foundation/web"
	"github.com/takapay/payments/shared/ratelimit"
)

// Environment separates sandbox data and money from live.
type Environment string

// The two environments.
const (
	Sandbox Environment = "sandbox"
	Live    Environment = "live"
)

// ParseEnvironment accepts exactly "sandbox" or "live".
func ParseEnvironment(s string) (Environment, bool) {
	switch Environment(s) {
	case Sandbox, Live:
		return Environment(s), true
	}
	return "", false
}

// Scope is a permission carried by a credential.
type Scope string

// Scopes a merchant key can carry.
const (
	PaymentsWrite  Scope = "payments:write"
	PaymentsRead   Scope = "payments:read"
	DocumentsRead  Scope = "documents:read"
	DocumentsWrite Scope = "documents:write"
	// RefundsWrite: create refunds, put them in review, cancel them and report them returned.
	RefundsWrite Scope = "refunds:write"
	// RefundsApprove: approve and reject refunds.
	RefundsApprove Scope = "refunds:approve"
)

// AllScopes lists every scope in a stable order.
var AllScopes = []Scope{PaymentsWrite, PaymentsRead, DocumentsRead, DocumentsWrite, RefundsWrite, RefundsApprove}

// ParseScope accepts one of AllScopes.
func ParseScope(s string) (Scope, bool) {
	if slices.Contains(AllScopes, Scope(s)) {
		return Scope(s), true
	}
	return "", false
}

// Kind is the kind of credential behind an Identity.
type Kind string

// Credential kinds.
const (
	KindAPIKey  Kind = "api_key"
	KindSession Kind = "session"
)

// Identity is an authenticated caller.
type Identity struct {
	Kind        Kind
	WorkspaceID string
	// WorkspaceName is the merchant display name (keys carry it from issuance).
	WorkspaceName string
	Environments  []Environment
	Scopes        []Scope
	// CredentialID identifies the credential in logs: a key id (never the key), or for a
	// session the user id (never the token).
	CredentialID string
	// UserID is the dashboard user behind a session ("" for a key).
	UserID string
	// Role is the session user's role in WorkspaceID ("" for a key).
	Role Role
	// ViaCookie is true when the credential came in a cookie (a browser sends cookies by
	// itself, so such a request may be cross-site unless its Origin was checked).
	ViaCookie bool
}

// Authorize returns nil when the identity holds scope in env, else 403 SCOPE_OR_ENVIRONMENT_DENIED.
func (id *Identity) Authorize(scope Scope, env Environment) error {
	if !slices.Contains(id.Environments, env) {
		return apierr.New(apierr.ScopeOrEnvironmentDenied, "this credential is not valid in the %s environment", env)
	}
	if !slices.Contains(id.Scopes, scope) {
		return apierr.New(apierr.ScopeOrEnvironmentDenied, "this credential lacks the %s scope", scope)
	}
	return nil
}

// MayCreatePayments reports whether the identity may create payments in env: a key that
// holds payments:write there, or a dashboard member whose role Can WriteDocuments (developer
// and up, as the dashboard's own create forms decide). It is the one rule of who receives a
// payer's capability (an intent's payment_url, with which one can lock, cancel or, in the
// sandbox, approve the payment): every door that answers an intent asks it, and a caller who
// may only read payments never receives one.
func (id *Identity) MayCreatePayments(env Environment) bool {
	if id == nil || !slices.Contains(id.Environments, env) {
		return false
	}
	if id.Kind == KindSession {
		return id.Role.Can(WriteDocuments)
	}
	return slices.Contains(id.Scopes, PaymentsWrite)
}

// KeyRecord is a stored API key: everything but the key itself.
type KeyRecord struct {
	Hash        string
	KeyID       string
	WorkspaceID string
	// WorkspaceName is the merchant's display name, copied at issuance (shown to payers).
	WorkspaceName string
	Environment   Environment
	Scopes        []Scope
	Name          string
	Hint          string
	CreatedAt     time.Time
	RevokedAt     *time.Time
	// ExpiresAt is set when a rotation gives the old key a grace period.
	ExpiresAt *time.Time
	// CreatedBy is who issued the key: a dashboard user id, or "operator".
	CreatedBy string
	// LastUsedAt is when the key last authenticated a request, to within KeyUseInterval
	// (package auth's LastUsed writes it at most once per key per interval); nil if never.
	LastUsedAt *time.Time
}

// Active reports whether the key may be used at t.
func (k *KeyRecord) Active(t time.Time) bool {
	if k.RevokedAt != nil {
		return false
	}
	return k.ExpiresAt == nil || t.Before(*k.ExpiresAt)
}

// KeyStore finds keys by hash. GetKey returns (nil, nil) when no key has that hash.
type KeyStore interface {
	GetKey(ctx context.Context, hash string) (*KeyRecord, error)
}

// Limiter spends one request of a budget named by key (package ratelimit implements it across
// instances); it returns false and how long to wait when that budget is spent.
type Limiter interface {
	Allow(ctx context.Context, key string) (ok bool, retryAfter time.Duration)
}

// DashboardBudget is the environment part of the rate-limit key of session requests: a
// session addresses both environments, so a workspace's dashboard users share one budget, apart
// from its integrations' per-environment budgets.
const DashboardBudget = "dashboard"

// Authenticator turns request credentials into an Identity.
type Authenticator struct {
	// Keys finds merchant API keys by hash.
	Keys KeyStore
	// Sessions finds dashboard sessions and memberships (AuthenticateWorkspace only).
	Sessions SessionStore
	// AllowedOrigins are the exact Origin values ("https://dashboard.example.com.bd") from
	// which a session-cookie request may use an unsafe method; empty allows none.
	AllowedOrigins []string
	// SessionCookieName is the session cookie read (SessionCookieName(HostCookies(the
	// dashboard's origin))); "" reads SessionCookie. A request with two session cookies is
	// refused whatever it is.
	SessionCookieName string
	// Limiter, when set, is consulted after every successful authentication, with the key
	// "<workspace>#<environment>" for an API key and "<workspace>#dashboard" for a session:
	// 429 RATE_LIMITED with Retry-After when that budget is spent. A request that fails
	// authentication never reaches it, so unknown keys cannot spend a merchant's budget.
	Limiter Limiter
	// FailuresPerClient, when set, counts failed authentications that cost a lookup (an
	// unknown, revoked or expired key or session) per client address in this instance; once an
	// address reaches its limit, its credentialed requests are answered 429 RATE_LIMITED before
	// any lookup until its window ends.
	FailuresPerClient *ratelimit.Window
	// LastUsed, when set, records that a key authenticated a request (at most one write per
	// key per KeyUseInterval; never fails the request).
	LastUsed *LastUsed
	// Now is the clock (time.Now when nil).
	Now func() time.Time
}

// limit spends one request of an authenticated caller's budget.
func (a *Authenticator) limit(ctx context.Context, workspaceID, budget string) error {
	if a.Limiter == nil {
		return nil
	}
	ok, wait := a.Limiter.Allow(ctx, workspaceID+"#"+budget)
	if ok {
		return nil
	}
	what := "from this workspace in " + budget
	if budget == DashboardBudget {
		what = "from this workspace's dashboard sessions"
	}
	return rateLimited(wait, "too many requests %s; retry after %d s", what, int(wait/time.Second))
}

// checkClient refuses, before any lookup, a client address that has failed authentication too
// often in this instance.
func (a *Authenticator) checkClient(r *web.Request) error {
	if a.FailuresPerClient == nil || r.SourceIP == "" {
		return nil
	}
	if blocked, wait := a.FailuresPerClient.Blocked(r.SourceIP, a.now()); blocked {
		return rateLimited(wait, "too many failed authentications from this address; retry after %d s", int(wait/time.Second))
	}
	return nil
}

// failed counts a failed authentication of the request's client address and returns err.
func (a *Authenticator) failed(r *web.Request, err error) error {
	if a.FailuresPerClient != nil && r.SourceIP != "" {
		a.FailuresPerClient.Add(r.SourceIP, a.now())
	}
	return err
}

func rateLimited(wait time.Duration, format string, args ...any) *apierr.Error {
	e := apierr.New(apierr.RateLimited, format, args...)
	e.Headers = map[string]string{"Retry-After": strconv.Itoa(int(wait / time.Second))}
	return e
}

func (a *Authenticator) now() time.Time {
	if a.Now != nil {
		return a.Now()
	}
	return time.Now()
}

// Authenticate reads the bearer key from the request: 401 INVALID_API_KEY when it is missing,
// malformed, unknown, revoked or expired; 503 AUTH_SERVICE_UNAVAILABLE when the store fails;
// 429 RATE_LIMITED when the key's workspace and environment have spent their budget (Limiter)
// or the client address has failed too often (FailuresPerClient).
func (a *Authenticator) Authenticate(ctx context.Context, r *web.Request) (*Identity, error) {
	header := r.Header("Authorization")
	if header == "" {
		return nil, apierr.New(apierr.InvalidAPIKey, "missing API key: send Authorization: Bearer <key>")
	}
	scheme, token, ok := strings.Cut(header, " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") || strings.TrimSpace(token) == "" {
		return nil, apierr.New(apierr.InvalidAPIKey, "the Authorization header must be: Bearer <key>")
	}
	token = strings.TrimSpace(token)
	env, hash, err := ParseKey(token)
	if err != nil {
		return nil, apierr.New(apierr.InvalidAPIKey, "invalid API key")
	}
	if err := a.checkClient(r); err != nil {
		return nil, err
	}
	rec, err := a.Keys.GetKey(ctx, hash)
	if err != nil {
		return nil, apierr.Wrap(apierr.AuthServiceUnavailable, err, "the key store is unavailable; retry shortly")
	}
	// The lookup is by hash; the comparison of the stored hash is constant-time anyway so no
	// code path compares secret-derived bytes with early exit.
	if rec == nil || subtle.ConstantTimeCompare([]byte(rec.Hash), []byte(hash)) != 1 || rec.Environment != env {
		return nil, a.failed(r, apierr.New(apierr.InvalidAPIKey, "invalid API key"))
	}
	if !rec.Active(a.now()) {
		if rec.RevokedAt != nil {
			return nil, a.failed(r, apierr.New(apierr.InvalidAPIKey, "this API key has been revoked"))
		}
		return nil, a.failed(r, apierr.New(apierr.InvalidAPIKey, "this API key has expired (rotated)"))
	}
	obs.Annotate(ctx, slog.String("workspace_id", rec.WorkspaceID), slog.String("key_id", rec.KeyID),
		slog.String("environment", string(rec.Environment)))
	if err := a.limit(ctx, rec.WorkspaceID, string(rec.Environment)); err != nil {
		return nil, err
	}
	if a.LastUsed != nil {
		a.LastUsed.Note(ctx, rec, a.now())
	}
	return &Identity{
		Kind:          KindAPIKey,
		WorkspaceID:   rec.WorkspaceID,
		WorkspaceName: rec.WorkspaceName,
		Environments:  []Environment{rec.Environment},
		Scopes:        rec.Scopes,
		CredentialID:  rec.KeyID,
	}, nil
}

// Workspace is a merchant workspace.
type Workspace struct {
	ID        string    `dynamodbav:"workspace_id" json:"workspace_id"`
	Name      string    `dynamodbav:"name" json:"name"`
	CreatedAt time.Time `dynamodbav:"created_at" json:"created_at"`
	// DocumentWebhookSandbox and DocumentWebhookLive are where the payments that payers start
	// on the workspace's public invoice and payment-link pages send their webhook events, per
	// environment ("" for none). A payment the API creates names its own webhook_url instead.
	DocumentWebhookSandbox string `dynamodbav:"doc_webhook_sandbox,omitempty" json:"-"`
	DocumentWebhookLive    string `dynamodbav:"doc_webhook_live,omitempty" json:"-"`
}

// DocumentWebhook returns the workspace's webhook URL for payments started on its public
// document pages in env ("" for none).
func (w *Workspace) DocumentWebhook(env Environment) string {
	if w == nil {
		return ""
	}
	if env == Live {
		return w.DocumentWebhookLive
	}
	return w.DocumentWebhookSandbox
}

// User is a dashboard user.
type User struct {
	ID        string    `dynamodbav:"user_id" json:"user_id"`
	Email     string    `dynamodbav:"email" json:"email"`
	CreatedAt time.Time `dynamodbav:"created_at" json:"created_at"`
}
