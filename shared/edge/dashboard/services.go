package dashboard

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/takapay/payments/shared/account"
	"github.com/takapay/payments/shared/activity"
	"github.com/takapay/payments/shared/auth"
	"github.com/takapay/payments/shared/foundation/apierr"
	"github.com/takapay/payments/shared/team"
)

// What the dashboard needs from the domain packages (account, credential, team, activity, passkey),
// small interfaces in the rules' own types where the dashboard only reads them (Client, Session,
// SignUpInput are account's; Actor, Member, Invite, Membership team's; the activity page
// activity's): *team.Service is the Team and *activity.Service the Activity as they are, the
// account service is the Accounts with the session's user and email added (shared/app/wire),
// and the pages' tests use an in-memory fake. Refusals come back as the rules return them,
// *apierr.Error (403, 404, 409; validation 422 naming the field and rule, read with refused; a
// locked sign-in 429 with Retry-After; account.ErrBadCredentials, account.ErrInvalidToken,
// account.ErrNoSession); the edge renders each once.

// Client is who sent a request: the address API Gateway saw and the browser's user agent
// (account's type).
type Client = account.Client

// Session is a new dashboard session (account's type). Token is the plaintext for the cookie
// only; Next is a relative /dashboard/ path to go to after the sign-in (an invitation's), or "".
type Session = account.Session

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

// SignUpInput is a sign-up form (account's type). Next is kept with the pending sign-up and
// returned by VerifyEmail (an invitation); JoinOnly creates no workspace (the person signs up
// to accept an invitation).
type SignUpInput = account.SignUpInput

// ErrProofNeeded refuses adding a passkey in a session whose user has not proved who they
// are recently (the password or a passkey, within passkey.FreshProof): the page asks for the
// password first.
var ErrProofNeeded = errors.New("dashboard: confirm it's you first")

// LimitedError is a form past the dashboard's own limits (FormLimits, limits.go), or a
// workspace's invitations a day (Daily): the page says when to try again.
type LimitedError struct {
	RetryAfter time.Duration
	// Form is a form's limit, not an account's sign-in lock; Daily says it is the
	// invitations a day.
	Form, Daily bool
}

func (e *LimitedError) Error() string {
	return fmt.Sprintf("dashboard: limited, retry after %s", e.RetryAfter)
}

// refusal is a rule's refusal of one form value, read from a VALIDATION_FAILED *apierr.Error
// (apierr.Field or apierr.Invalid): the field and rule its violation names, and its message.
type refusal struct{ field, rule, message string }

// refused reads err as a refusal of one form value (ok false for any other error).
func refused(err error) (*refusal, bool) {
	e, v, ok := apierr.FieldOf(err)
	if !ok {
		return nil, false
	}
	return &refusal{field: v.Path, rule: v.Rule, message: e.Message}, true
}

// Accounts signs people up and in, and keeps their sessions (package account).
type Accounts interface {
	SignUp(ctx context.Context, in SignUpInput) error
	// VerifyEmail answers account.ErrBadCredentials when password is not the sign-up's.
	VerifyEmail(ctx context.Context, token, password string, c Client) (*Session, error)
	SignIn(ctx context.Context, email, password string, c Client) (*Session, error)
	RequestPasswordReset(ctx context.Context, email, lang string, c Client) error
	// ResetPassword removes every passkey of the user too when removePasskeys.
	ResetPassword(ctx context.Context, token, newPassword string, removePasskeys bool, c Client) error
	// Authenticate returns account.ErrNoSession for a token that is not an active session.
	Authenticate(ctx context.Context, token string) (*SessionUser, error)
	// ConfirmPassword records in the session of token that its user typed their password
	// again (account.ErrBadCredentials when wrong, RATE_LIMITED while limited).
	ConfirmPassword(ctx context.Context, token, password string, c Client) error
	SignOut(ctx context.Context, token string) error
	// ActivatePasskeys emails the user about each passkey they just registered, then lets it
	// sign in (a passkey is pending until then).
	ActivatePasskeys(ctx context.Context, userID string, c Client) error
	// SignOutEverywhere removes every passkey of the user too when removePasskeys.
	SignOutEverywhere(ctx context.Context, userID string, removePasskeys bool, c Client) error
}

// Membership is a user's role in a workspace (team's type).
type Membership = team.WorkspaceMembership

// Actor is the signed-in person acting in a workspace, with the request's client (team's
// type).
type Actor = team.Actor

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
	// rules is a VALIDATION_FAILED on "url" (the rule its violation's words).
	SetDocumentWebhook(ctx context.Context, a Actor, env auth.Environment, url string) error
}

// Member is a member of a workspace (team's type).
type Member = team.Member

// Invite is a pending invitation (team's type).
type Invite = team.Invitation

// Team manages members and invitations (*team.Service).
type Team interface {
	// Workspaces lists the user's memberships (the session's workspace is one of them).
	Workspaces(ctx context.Context, userID string) ([]Membership, error)
	ListMembers(ctx context.Context, a Actor) ([]Member, error)
	ListInvites(ctx context.Context, a Actor) ([]Invite, error)
	Invite(ctx context.Context, a Actor, email string, role auth.Role, lang string) (*Invite, error)
	RevokeInvite(ctx context.Context, a Actor, inviteID string) error
	ChangeRole(ctx context.Context, a Actor, userID string, role auth.Role) (*auth.MembershipRecord, error)
	Remove(ctx context.Context, a Actor, userID string) error
	Leave(ctx context.Context, a Actor) error
	TransferOwnership(ctx context.Context, a Actor, userID string) (*auth.MembershipRecord, error)
	// LookupInvite returns an error that is account.ErrInvalidToken for an unknown, used or expired
	// invitation.
	LookupInvite(ctx context.Context, token string) (*Invite, error)
	AcceptInvite(ctx context.Context, token, userID, email string) (*auth.MembershipRecord, error)
}

// Activity lists a workspace's activity, newest first, a page at a time (*activity.Service).
type Activity interface {
	List(ctx context.Context, workspaceID, cursor string, limit int) (*activity.Page, error)
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
	// FinishLogin answers account.ErrBadCredentials for a response that does not sign in.
	FinishLogin(ctx context.Context, ceremony, response string, c Client) (*Session, error)
}
