package dashboard

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/takapay/payments/shared/auth"
)

// What the dashboard needs from the domain packages (account, credential, team, activity,
// passkey), in the dashboard's own plain types: functions/dashboard/handler adapts each
// package to these interfaces, so the pages and their tests do not depend on how the domain
// packages spell things. Refusals come back as *apierr.Error (403, 404, 409), validation as
// *FieldError (422), a limited sign-in as *LimitedError (429); the edge renders each once.

// Client is who sent a request: the address API Gateway saw and the browser's user agent.
type Client struct{ IP, UserAgent string }

// Session is a new dashboard session. Token is the plaintext for the cookie only.
type Session struct {
	Token       string
	UserID      string
	WorkspaceID string
	// Next is a relative /dashboard/ path to go to after the sign-in (an invitation's), or "".
	Next      string
	ExpiresAt time.Time
}

// SessionUser is what an authenticated session says about its user.
type SessionUser struct {
	UserID, Email string
	// WorkspaceID is the workspace the session was started in ("" when none).
	WorkspaceID string
	// CSRF is the session's form token (the account service derives it from the session
	// token); CheckCSRF compares a form's in constant time.
	CSRF string
	// ProvedAt is when the user last proved who they are in this session (the sign-in, or
	// the password typed again on the "confirm it's you" step); adding a passkey needs a
	// recent one.
	ProvedAt time.Time
}

// SignUpInput is a sign-up form.
type SignUpInput struct {
	Email, Password, WorkspaceName, Lang string
	// Next is kept with the pending sign-up and returned by VerifyEmail (an invitation).
	Next string
	// JoinOnly creates no workspace (the person signs up to accept an invitation).
	JoinOnly bool
	Client   Client
}

// ErrBadCredentials is a sign-in that failed (unknown email or wrong password alike).
var ErrBadCredentials = errors.New("dashboard: wrong email or password")

// ErrNoSession is a session cookie that names no active session.
var ErrNoSession = errors.New("dashboard: no session")

// ErrInvalidToken is a verification, reset or invitation link that is unknown, used or expired.
var ErrInvalidToken = errors.New("dashboard: the link is not valid")

// ErrProofNeeded refuses adding a passkey in a session whose user has not proved who they
// are recently (the password or a passkey, within passkey.FreshProof): the page asks for the
// password first.
var ErrProofNeeded = errors.New("dashboard: confirm it's you first")

// LimitedError is a sign-in refused because of too many failures.
type LimitedError struct {
	RetryAfter time.Duration
	// Form is a form's limit (FormLimits, or a workspace's invitations a day), not an
	// account's sign-in lock; Daily says it is the invitations a day.
	Form, Daily bool
}

func (e *LimitedError) Error() string {
	return fmt.Sprintf("dashboard: limited, retry after %s", e.RetryAfter)
}

// FieldError is a form value that breaks a rule: the page shows Message beside Field.
type FieldError struct{ Field, Rule, Message string }

func (e *FieldError) Error() string { return e.Field + ": " + e.Message }

// Accounts signs people up and in, and keeps their sessions (package account).
type Accounts interface {
	SignUp(ctx context.Context, in SignUpInput) error
	// VerifyEmail answers ErrBadCredentials when password is not the sign-up's.
	VerifyEmail(ctx context.Context, token, password string, c Client) (*Session, error)
	SignIn(ctx context.Context, email, password string, c Client) (*Session, error)
	RequestPasswordReset(ctx context.Context, email, lang string, c Client) error
	// ResetPassword removes every passkey of the user too when removePasskeys.
	ResetPassword(ctx context.Context, token, newPassword string, removePasskeys bool, c Client) error
	// Authenticate returns ErrNoSession for a token that is not an active session.
	Authenticate(ctx context.Context, token string) (*SessionUser, error)
	// ConfirmPassword records in the session of token that its user typed their password
	// again (ErrBadCredentials when wrong, *LimitedError while limited).
	ConfirmPassword(ctx context.Context, token, password string, c Client) error
	SignOut(ctx context.Context, token string) error
	// ActivatePasskeys emails the user about each passkey they just registered, then lets it
	// sign in (a passkey is pending until then).
	ActivatePasskeys(ctx context.Context, userID string, c Client) error
	// SignOutEverywhere removes every passkey of the user too when removePasskeys.
	SignOutEverywhere(ctx context.Context, userID string, removePasskeys bool, c Client) error
}

// Membership is a user's role in a workspace.
type Membership struct {
	WorkspaceID, WorkspaceName string
	Role                       auth.Role
}

// Actor is the signed-in person acting in a workspace.
type Actor struct {
	WorkspaceID, UserID, Email string
	Role                       auth.Role
	Client                     Client
}

// Key is an API key as the list shows it (never its secret).
type Key struct {
	ID, Name, Prefix string
	Environment      auth.Environment
	Scopes           []auth.Scope
	CreatedBy        string
	CreatedAt        time.Time
	// LastUsed is the day the key was last used (nil: never).
	LastUsed *time.Time
	// State is "active", "revoked" or "expired"; ExpiresAt is a roll's grace end.
	State     string
	ExpiresAt *time.Time
}

// IssuedKey is a new key with its secret, shown once.
type IssuedKey struct {
	Key
	Secret string
}

// NewKey is the create form.
type NewKey struct {
	Name        string
	Environment auth.Environment
	Scopes      []auth.Scope
}

// WebhookSecret is a webhook signing secret's metadata (never the secret).
type WebhookSecret struct {
	ID        string
	CreatedAt time.Time
	ExpiresAt *time.Time
	Current   bool
}

// Keys manages API keys and webhook signing secrets (package credential).
type Keys interface {
	ListKeys(ctx context.Context, workspaceID string) ([]Key, error)
	CreateKey(ctx context.Context, a Actor, k NewKey) (*IssuedKey, error)
	RevokeKey(ctx context.Context, a Actor, keyID string) error
	RollKey(ctx context.Context, a Actor, keyID string, grace time.Duration) (*IssuedKey, error)
	ListWebhookSecrets(ctx context.Context, workspaceID string, env auth.Environment) ([]WebhookSecret, error)
	// IssueWebhookSecret issues the first secret, or rolls the current one with grace.
	IssueWebhookSecret(ctx context.Context, a Actor, env auth.Environment, grace time.Duration) (string, error)
	// DocumentWebhooks returns where the payments started on the workspace's public invoice
	// and payment-link pages send their webhooks, per environment (absent: nowhere).
	DocumentWebhooks(ctx context.Context, workspaceID string) (map[auth.Environment]string, error)
	// SetDocumentWebhook sets (url "": removes) it for env; a URL that breaks the webhook_url
	// rules is a *FieldError on "url".
	SetDocumentWebhook(ctx context.Context, a Actor, env auth.Environment, url string) error
}

// Member is a member of a workspace.
type Member struct {
	UserID, Email string
	Role          auth.Role
	Since         time.Time
}

// Invite is a pending invitation.
type Invite struct {
	ID, Email     string
	Role          auth.Role
	ExpiresAt     time.Time
	WorkspaceID   string
	WorkspaceName string
	InviterEmail  string
}

// Team manages members and invitations (package team).
type Team interface {
	// Workspaces lists the user's memberships (the session's workspace is one of them).
	Workspaces(ctx context.Context, userID string) ([]Membership, error)
	ListMembers(ctx context.Context, a Actor) ([]Member, error)
	ListInvites(ctx context.Context, a Actor) ([]Invite, error)
	Invite(ctx context.Context, a Actor, email string, role auth.Role, lang string) error
	RevokeInvite(ctx context.Context, a Actor, inviteID string) error
	ChangeRole(ctx context.Context, a Actor, userID string, role auth.Role) error
	Remove(ctx context.Context, a Actor, userID string) error
	Leave(ctx context.Context, a Actor) error
	TransferOwnership(ctx context.Context, a Actor, userID string) error
	// LookupInvite returns ErrInvalidToken for an unknown, used or expired invitation.
	LookupInvite(ctx context.Context, token string) (*Invite, error)
	AcceptInvite(ctx context.Context, token, userID, email string) (workspaceID string, err error)
}

// Event is one activity entry.
type Event struct {
	At                                        time.Time
	ActorEmail, Action, Target, IP, UserAgent string
}

// Activity lists a workspace's activity, newest first (package activity).
type Activity interface {
	List(ctx context.Context, workspaceID, cursor string, limit int) ([]Event, string, error)
}

// Passkey is a registered passkey.
type Passkey struct {
	ID, Name  string
	CreatedAt time.Time
	LastUsed  *time.Time
	// Pending: registered, not yet active (the owner is emailed first).
	Pending bool
}

// Passkeys registers passkeys and signs in with them (package passkey). A begun ceremony is
// its options (WebAuthn JSON for navigator.credentials) and its id, which the page's form
// carries back ("ceremony") with the authenticator's answer ("response").
//
// Adding one needs the session's recent proof (provedAt, SessionUser.ProvedAt): begin and
// finish both answer ErrProofNeeded without it. A passkey added is emailed to the user and
// recorded in the activity log, as is one removed.
type Passkeys interface {
	BeginRegistration(ctx context.Context, userID, email string, provedAt time.Time) (options, ceremony string, err error)
	FinishRegistration(ctx context.Context, userID, ceremony, name, response string, provedAt time.Time, c Client) error
	List(ctx context.Context, userID string) ([]Passkey, error)
	Rename(ctx context.Context, userID, id, name string) error
	Remove(ctx context.Context, userID, id string, c Client) error
	BeginLogin(ctx context.Context) (options, ceremony string, err error)
	// FinishLogin answers ErrBadCredentials for a response that does not sign in.
	FinishLogin(ctx context.Context, ceremony, response string, c Client) (*Session, error)
}
